"""Turns a response whose status is not 2xx into the typed error a caller can act on.

The message comes from the service's explanation when the body carries one; otherwise from
the status line and a short, redacted excerpt of the body. The error keeps the whole body too,
redacted and bounded (`kept_body`). A 401's message also says whether the client sent a token,
in which header and from where (the `CredentialSource` its secrets carry), never which.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from remedy_async._errors import APIStatusError, RateLimitError, public_url, status_error_class
from remedy_async._redact import body_excerpt, kept_body, redact, redact_headers
from remedy_async._wire._http import Response

from ._credential import KnownSecrets, StaticSecrets
from ._retry import retry_after_seconds


def status_error(response: Response, *, secrets: Iterable[str] = ()) -> APIStatusError:
    """Build the typed error for a response whose status is not 2xx.

    The message, `code` and `detail` come from the body when it explains itself, in any of
    the conventions `explain` reads (on a 401 without one, from `WWW-Authenticate`); otherwise
    the message is the status line. A short, redacted excerpt of the body is always kept, and
    the whole body (parsed when JSON, bounded at `BODY_LIMIT`), redacted. A 401's message ends
    with what the client sent: `(a token was sent in Authorization, from REMEDY_API_TOKEN)`,
    when `secrets` are a client's (which carry its `CredentialSource`).
    """
    from remedy_async._wire._error_bodies import explain  # noqa: PLC0415 - loaded by a first error

    source = secrets.source if isinstance(secrets, StaticSecrets | KnownSecrets) else None
    secrets = tuple(secrets)
    said = explain(response.body, response.content_type)
    code, message = said.code, said.message
    if message is None and response.status == 401:
        code, message = _challenge(response.headers.get("WWW-Authenticate"), code)
    if message is None:
        message = _default_message(response)
    error_class = status_error_class(response.status)
    body, cut = kept_body(response.body, secrets, response.content_type)
    fields: dict[str, Any] = {
        "method": response.request.method,
        "url": redact(public_url(response.request.url), secrets),
        "status": response.status,
        "request_id": response.request_id,
        "code": redact(code, secrets) if code else None,
        "body_excerpt": body_excerpt(response.body, secrets),
        "headers": redact_headers(response.headers, secrets),
        "detail": redact(said.detail, secrets) if said.detail else None,
        "body_shape": said.shape,
        "body": body,
        "body_truncated": cut,
    }
    message = redact(message, secrets)
    if response.status == 401 and source is not None:
        message = f"{message} ({source.said()})"
    if error_class is RateLimitError:
        return RateLimitError(message, retry_after=retry_after_seconds(response.headers), **fields)
    return error_class(message, **fields)


def _default_message(response: Response) -> str:
    if 300 <= response.status < 400:
        location = response.headers.get("Location")
        where = f" to {location}" if location else ""
        return f"redirect{where} not followed"
    return f"HTTP {response.status}"


_CHALLENGE_PARAM = re.compile(r'(\w+)\s*=\s*(?:"([^"]*)"|([^\s,]*))')


def _challenge(value: str | None, code: str | None) -> tuple[str | None, str | None]:
    """(code, message) from a `WWW-Authenticate` challenge: its scheme, error and description."""
    if not value or not value.strip():
        return code, None
    scheme = value.strip().split(None, 1)[0].rstrip(",")
    params = {
        name.lower(): quoted if quoted else bare
        for name, quoted, bare in _CHALLENGE_PARAM.findall(value)
    }
    error = params.get("error")
    described = params.get("error_description")
    message = f"{scheme} authentication required"
    if error:
        message += f": {error}" + (f" ({described})" if described else "")
    return code or error, message
