"""The headers every request carries, and the check that no header can split a request.

Accept, User-Agent, the caller's extras and the credential header, checked once at
construction so a bad one fails before any request (a token provider's header is added to each
attempt's instead: `_credential`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from remedy_async._errors import ConfigurationError
from remedy_async._version import VERSION

USER_AGENT = f"remedy-async/{VERSION}"


_TOKEN = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")
"""An HTTP token (RFC 9110): what a header name or an auth scheme may be."""


def check_headers(headers: Mapping[str, str]) -> dict[str, str]:
    """Return headers as a dict after checking no name or value could split the header block."""
    checked: dict[str, str] = {}
    for name, value in headers.items():
        if not isinstance(name, str) or not isinstance(value, str):
            raise TypeError(
                f"header names and values must be str, got {name!r}: {type(value).__name__}"
            )
        if not name or any(c in name for c in " \t\r\n:") or any(c in value for c in "\r\n\0"):
            shown = name.split(":", 1)[0].split(" ", 1)[0]  # never a value pasted into a name
            raise ValueError(f"header {shown!r} has a name or value that is not allowed")
        checked[name] = value
    return checked


def default_headers(
    headers: Mapping[str, str], secret: str | None, auth_header: str, auth_scheme: str | None
) -> dict[str, str]:
    """Return the headers every request carries: Accept, User-Agent, extras and credentials."""
    merged = {"Accept": "application/json", "User-Agent": USER_AGENT}
    merged.update(check_headers(headers))
    if not isinstance(auth_header, str) or not _TOKEN.fullmatch(auth_header):
        raise ConfigurationError(
            f"auth_header must be a header name such as 'Authorization' or 'X-API-Key', "
            f"got {auth_header!r}"
        )
    if auth_scheme is not None and not _TOKEN.fullmatch(auth_scheme):
        shown = auth_scheme.split(" ", 1)[0]  # `Bearer <token>` given whole: the word only
        raise ConfigurationError(
            f"auth_scheme must be one word such as 'Bearer', or None, got {shown!r} and more "
            "(the token goes in token=)"
            if " " in auth_scheme.strip()
            else f"auth_scheme must be one word such as 'Bearer', or None, got {auth_scheme!r}"
        )
    if secret is not None:
        refuse_credential_header(headers, auth_header)
        merged[auth_header] = f"{auth_scheme} {secret}" if auth_scheme else secret
    return merged


def refuse_credential_header(headers: Mapping[str, str], auth_header: str) -> None:
    """ConfigurationError when `headers` set the header the token goes in (any letter case)."""
    if any(name.lower() == auth_header.lower() for name in headers):
        raise ConfigurationError(
            f"headers sets {auth_header!r}, which the token also sets; pass one of them"
        )
