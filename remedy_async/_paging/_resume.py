"""Resume tokens: opaque strings that say where a list stopped, so it can continue exactly there.

A token records the collection, a fingerprint of the filters, the paginator, the request of
the page to continue from and how many of that page's items were already delivered, or, for an
offset list proven page by page, digests of the last ids it delivered (so the page it resumes
at is proven too). It is versioned (`r1.` prefix) and checked against the list call it is
given to.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
from collections.abc import Sequence
from typing import Any, cast

import attrs
import orjson
from msgspec import Struct
from yarl import URL

from remedy_async._redact import conceal, reveal

from ._conventions import convention_document, convention_from
from ._paginators._convention import paginator_name
from ._paginators._proven import ResumedProof
from ._protocol import NamingPaginator, PageRequest, Paginator, Probe

TOKEN_PREFIX = "r1."


class ResumePoint(Struct, frozen=True):
    """Where a list continues: the page request to send and how many of its items to skip (a
    proven offset list's request carries what the token keeps of its proof)."""

    collection: str
    filters: str
    paginator: str
    """The name of the paginator the list was made with (a token resumes only under it)."""
    request: PageRequest
    skip: int = 0


def filters_fingerprint(params: tuple[tuple[str, str], ...]) -> str:
    """Return a short digest of a list call's filter parameters."""
    return hashlib.sha256(orjson.dumps(sorted(params))).hexdigest()[:16]


def list_start(
    paginator: Paginator,
    page_size: int | None,
    filter_params: tuple[tuple[str, str], ...],
    resume_token: str | None,
    collection: str,
    secrets: Sequence[str],
) -> tuple[ResumePoint, PageRequest]:
    """Where a list starts (its first request, or the place its resume token names) and its
    first request. A filter that is one of the paginator's own parameters raises ValueError."""
    first = paginator.first(page_size)
    owned = {name for name, _ in first.params}
    if isinstance(paginator, NamingPaginator):
        owned |= paginator.parameter_names
    clashes = {name for name, _ in filter_params} & owned
    if clashes:
        raise ValueError(
            f"filter(s) {sorted(clashes)} are paging parameters of "
            f"{type(paginator).__name__}; use page_size instead"
        )
    fingerprint = filters_fingerprint(filter_params)
    name = paginator_name(paginator)
    if resume_token is None:
        return ResumePoint(collection, fingerprint, name, first), first
    start = decode_token(
        resume_token, collection=collection, filters=fingerprint, paginator=name, secrets=secrets
    )
    return start, first


def encode_token(point: ResumePoint, secrets: Sequence[str] = ()) -> str:
    """Return the opaque, URL-safe token for a resume point.

    A secret the service echoed into the page's cursor, link or header is not stored: only a
    mark of where it was, which `decode_token` fills with the client's own secret again.
    """
    document: dict[str, Any] = {
        "c": point.collection,
        "f": point.filters,
        "s": point.paginator,
        "k": point.skip,
        **_request_document(point.request, secrets),
    }
    proof = point.request.proof
    if isinstance(proof, ResumedProof):
        document["a"] = {"i": list(proof.digests), "z": proof.page_size, "w": proof.whole}
    return TOKEN_PREFIX + base64.urlsafe_b64encode(orjson.dumps(document)).decode().rstrip("=")


def _request_document(request: PageRequest, secrets: Sequence[str]) -> dict[str, Any]:
    def hidden(text: str) -> str:
        return conceal(text, secrets) if secrets else text

    document: dict[str, Any] = {
        "p": [[name, hidden(value)] for name, value in request.params],
        "u": None if request.url is None else hidden(str(request.url)),
    }
    if request.convention is not None:
        document["v"] = convention_document(request.convention)
    if request.headers:
        document["h"] = [[name, hidden(value)] for name, value in request.headers]
    probe = request.probe
    if probe is not None:
        document["q"] = {
            "i": probe.first_id,
            "o": [_request_document(other, secrets) for other in probe.others],
            "r": probe.refusal,
            "n": probe.unannounced,
            "c": probe.confirming,
            "m": probe.announced_more,
        }
    return document


def decode_token(
    token: str, *, collection: str, filters: str, paginator: str, secrets: Sequence[str] = ()
) -> ResumePoint:
    """Read a token given to a list call; ValueError if malformed or made for another list."""
    if not isinstance(token, str) or not token.startswith(TOKEN_PREFIX):
        raise ValueError("resume_token is not a remedy_async resume token (expected 'r1.' prefix)")
    body = token[len(TOKEN_PREFIX) :]
    try:
        document = orjson.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))
        if not isinstance(document, dict):
            raise TypeError("expected an object")
        request = _request_from(document, secrets)
        proof = _proof(document.get("a"))
        if proof is not None:
            request = attrs.evolve(request, proof=proof)
        point = ResumePoint(
            collection=_text(document["c"]),
            filters=_text(document["f"]),
            paginator=_text(document["s"]),
            request=request,
            skip=_count(document["k"]),
        )
    except _Unusable as error:
        raise ValueError(f"resume_token cannot be used: {error}") from None
    except (binascii.Error, orjson.JSONDecodeError, KeyError, TypeError, ValueError):
        raise ValueError("resume_token is malformed") from None
    if point.collection != collection:
        raise ValueError(f"resume_token was made for {point.collection!r}, not for {collection!r}")
    if point.filters != filters:
        raise ValueError("resume_token was made for a list call with other filters")
    if point.paginator != paginator:
        raise ValueError(
            f"resume_token was made with {point.paginator}, this list uses {paginator}"
        )
    return point


class _Unusable(Exception):
    """A well-formed token this client cannot use (it holds a credential the client lacks)."""


def _request_from(document: dict[str, Any], secrets: Sequence[str]) -> PageRequest:
    def shown(text: object) -> str:
        try:
            return reveal(_text(text), secrets)
        except ValueError as error:
            raise _Unusable(str(error)) from None

    params = tuple((_text(name), shown(value)) for name, value in map(_pair, _list(document["p"])))
    headers = tuple(
        (_text(name), shown(value)) for name, value in map(_pair, _list(document.get("h", [])))
    )
    url = None if document["u"] is None else _absolute(shown(document["u"]))
    convention = None
    if document.get("v") is not None:
        convention = convention_from(document["v"], "the token's convention")
    probe = None
    if document.get("q") is not None:
        found = document["q"]
        if not isinstance(found, dict):
            raise TypeError("expected an object")
        refusal = found.get("r")
        probe = Probe(
            first_id=_text(found["i"]),
            others=tuple(_request_from(_object(other), secrets) for other in _list(found["o"])),
            refusal=None if refusal is None else _text(refusal),
            unannounced=found.get("n") is True,
            confirming=found.get("c") is True,
            announced_more=found.get("m") is True,
        )
    return PageRequest(params=params, url=url, convention=convention, headers=headers, probe=probe)


def _proof(value: object) -> ResumedProof | None:
    """What a token kept of a proven list's proof (key `a`: digests `i`, page size `z`, `w`
    whether they are of every id delivered)."""
    if value is None:
        return None
    found = _object(value)
    digests = _list(found["i"])
    if len(digests) > 64 or not all(
        isinstance(digest, int) and not isinstance(digest, bool) and -(2**63) <= digest < 2**63
        for digest in digests
    ):
        raise TypeError("expected id digests")
    whole = found.get("w", False)
    if not isinstance(whole, bool):
        raise TypeError("expected a flag")
    return ResumedProof(
        digests=tuple(cast(list[int], digests)), page_size=_count(found["z"]), whole=whole
    )


def _object(value: object) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise TypeError("expected an object")
    return value


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
