"""Checks the URL parts that come from outside, before any request: a caller's resource id, which
becomes exactly one path segment, and a URL the service handed over (a next link, a redirect's
Location).

One rule for every URL the service hands over: http or https, no user information (a
credential the client would send on to whoever it names), a host that is a valid IP address or
DNS name (labels of 1 to 63 characters, 253 in all), and a valid port. A URL that fails is
refused with the reason, never handed to aiohttp to fail there with a bare Python error.
"""

from __future__ import annotations

import ipaddress
import re
import unicodedata
from urllib.parse import quote

from yarl import URL

MAX_HOST_LENGTH = 253
MAX_LABEL_LENGTH = 63
_LABEL = re.compile(r"^[A-Za-z0-9_](?:[A-Za-z0-9_-]*[A-Za-z0-9_])?$")
_UNRESERVED = re.compile(r"[A-Za-z0-9_.~-]+").fullmatch
"""Whether a text holds only the characters percent-encoding leaves as they are (RFC 3986's
unreserved): such an id is its own path segment."""


def url_problem(url: URL) -> str | None:
    """Why a URL from the service cannot be requested safely (a phrase following "it"), or
    None when it can."""
    try:
        scheme, host, port = url.scheme, url.raw_host, url.port
        user, password = url.raw_user, url.raw_password
    except (ValueError, UnicodeError):
        return "is not a usable URL"
    if scheme not in ("http", "https"):
        return f"has the scheme {scheme[:20]!r}; only http and https are followed"
    if user is not None or password is not None:
        return "carries user information, which is never followed"
    if host is None or not valid_host(host):
        return "has no valid host"
    if port is not None and not 0 < port < 65536:
        return "has no valid port"
    return None


def valid_host(host: str) -> bool:
    """Whether `host` (as it goes on the wire: IDNA-encoded) is an IP address or DNS name."""
    try:
        ipaddress.ip_address(host)
    except ValueError:
        pass
    else:
        return True
    name = host[:-1] if host.endswith(".") else host
    if not name or len(name) > MAX_HOST_LENGTH:
        return False
    return all(len(label) <= MAX_LABEL_LENGTH and _LABEL.match(label) for label in name.split("."))


MAX_ID_LENGTH = 1024


def id_segment(resource_id: str | int) -> str:
    """Return the id percent-encoded as one path segment, after checking it can be one.

    Ints are accepted and turned into their decimal string. Raises TypeError for other types and
    ValueError for an empty id, `.` or `..`, a control character, or more than 1024 characters.
    """
    if isinstance(resource_id, bool) or not isinstance(resource_id, str | int):
        raise TypeError(f"a resource id must be a str or int, not {type(resource_id).__name__}")
    text = str(resource_id)
    if not text:
        raise ValueError("a resource id must not be empty")
    if text in {".", ".."}:
        raise ValueError(f"{text!r} is not a valid resource id: it would change the URL path")
    if len(text) > MAX_ID_LENGTH:
        raise ValueError(
            f"a resource id must be at most {MAX_ID_LENGTH} characters, got {len(text)}"
        )
    if _UNRESERVED(text):  # the common case, checked in C: nothing to encode
        return text
    if text.isprintable():  # no control characters
        return quote(text, safe="")
    for position, char in enumerate(text):
        if unicodedata.category(char) == "Cc":
            raise ValueError(
                "a resource id must not contain control characters "
                f"(U+{ord(char):04X} at position {position})"
            )
    return quote(text, safe="")
