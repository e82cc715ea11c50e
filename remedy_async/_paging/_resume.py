"""Resume tokens: opaque strings that say where a list stopped, so it can continue exactly there.

A token records the collection, a fingerprint of the filters, the paging scheme, the request of
the page to continue from and how many of that page's items were already delivered. It is
versioned (`r1.` prefix) and checked against the list call it is given to.
"""

from __future__ import annotations

import base64
import binascii
import hashlib

import orjson
from attrs import frozen
from yarl import URL

from remedy_async._redact import conceal, reveal

from ._protocol import PageRequest

TOKEN_PREFIX = "r1."


@frozen
class ResumePoint:
    """Where a list continues: the page request to send and how many of its items to skip."""

    collection: str
    filters: str
    scheme: str
    request: PageRequest
    skip: int = 0


def filters_fingerprint(params: tuple[tuple[str, str], ...]) -> str:
    """Return a short digest of a list call's filter parameters."""
    return hashlib.sha256(orjson.dumps(sorted(params))).hexdigest()[:16]


def encode_token(point: ResumePoint, secrets: tuple[str, ...] = ()) -> str:
    """Return the opaque, URL-safe token for a resume point.

    A secret the service echoed into the page's cursor or link is not stored: only a mark of
    where it was, which `decode_token` fills with the client's own secret again.
    """
    url = None if point.request.url is None else str(point.request.url)
    params = [list(param) for param in point.request.params]
    if secrets:
        url = None if url is None else conceal(url, secrets)
        params = [[name, conceal(value, secrets)] for name, value in params]
    document = {
        "c": point.collection,
        "f": point.filters,
        "s": point.scheme,
        "p": params,
        "u": url,
        "k": point.skip,
    }
    if point.request.convention is not None:
        document["v"] = point.request.convention
    return TOKEN_PREFIX + base64.urlsafe_b64encode(orjson.dumps(document)).decode().rstrip("=")


def decode_token(
    token: str, *, collection: str, filters: str, scheme: str, secrets: tuple[str, ...] = ()
) -> ResumePoint:
    """Read a token given to a list call; ValueError if malformed or made for another list."""
    if not isinstance(token, str) or not token.startswith(TOKEN_PREFIX):
        raise ValueError("resume_token is not a remedy_async resume token (expected 'r1.' prefix)")
    body = token[len(TOKEN_PREFIX) :]
    try:
        document = orjson.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))
        params = tuple(_pair(param) for param in _list(document["p"]))
        url = None if document["u"] is None else _text(document["u"])
    except (binascii.Error, orjson.JSONDecodeError, KeyError, TypeError, ValueError):
        raise ValueError("resume_token is malformed") from None
    try:
        params = tuple((name, reveal(value, secrets)) for name, value in params)
        url = None if url is None else reveal(url, secrets)
    except ValueError as error:
        raise ValueError(f"resume_token cannot be used: {error}") from None
    try:
        point = ResumePoint(
            collection=_text(document["c"]),
            filters=_text(document["f"]),
            scheme=_text(document["s"]),
            request=PageRequest(
                params=params,
                url=None if url is None else _absolute(url),
                convention=None if document.get("v") is None else _text(document["v"]),
            ),
            skip=_count(document["k"]),
        )
    except (KeyError, TypeError, ValueError):
        raise ValueError("resume_token is malformed") from None
    if point.collection != collection:
        raise ValueError(f"resume_token was made for {point.collection!r}, not for {collection!r}")
    if point.filters != filters:
        raise ValueError("resume_token was made for a list call with other filters")
    if point.scheme != scheme:
        raise ValueError(f"resume_token was made with {point.scheme}, this list uses {scheme}")
    return point


def _text(value: object) -> str:
    if not isinstance(value, str):
        raise TypeError("expected a string")
    return value


def _list(value: object) -> list[object]:
    if not isinstance(value, list):
        raise TypeError("expected a list")
    return value


def _pair(value: object) -> tuple[str, str]:
    if not isinstance(value, list) or len(value) != 2:
        raise TypeError("expected a [name, value] pair")
    return _text(value[0]), _text(value[1])


def _absolute(value: object) -> URL:
    url = URL(_text(value))
    if not url.absolute or url.scheme not in {"http", "https"}:
        raise ValueError("expected an absolute http(s) URL")
    return url


def _count(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise TypeError("expected a count")
    return value
