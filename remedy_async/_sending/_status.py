"""Turns a response whose status is not 2xx into the typed error a caller can act on.

The message comes from the service's explanation when the body carries one; otherwise from
the status line and a short, redacted excerpt of the body.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import orjson

from remedy_async._errors import APIStatusError, RateLimitError, status_error_class
from remedy_async._http import Response
from remedy_async._redact import body_excerpt, redact

from ._retry import retry_after_seconds


def status_error(response: Response, *, secrets: Iterable[str] = ()) -> APIStatusError:
    """Build the typed error for a response whose status is not 2xx.

    The message comes from a `{"error": {"code", "message"}}` body or an RFC 7807 problem body
    when there is one, otherwise from the status line and a short excerpt of the body.
    """
    secrets = tuple(secrets)
    code, message = _error_fields(response)
    if message is None:
        message = _default_message(response)
    error_class = status_error_class(response.status)
    fields: dict[str, Any] = {
        "method": response.request.method,
        "url": response.request.url,
        "status": response.status,
        "request_id": response.request_id,
        "code": redact(code, secrets) if code else None,
        "body_excerpt": body_excerpt(response.body, secrets),
        "headers": response.headers,
    }
    message = redact(message, secrets)
    if error_class is RateLimitError:
        return RateLimitError(message, retry_after=retry_after_seconds(response.headers), **fields)
    return error_class(message, **fields)


def _default_message(response: Response) -> str:
    if 300 <= response.status < 400:
        location = response.headers.get("Location")
        where = f" to {location}" if location else ""
        return f"redirect{where} not followed"
    return f"HTTP {response.status}"


def _error_fields(response: Response) -> tuple[str | None, str | None]:
    """Return (code, message) from a JSON error body, or (None, None) when it has none."""
    if not response.body or "json" not in response.content_type:
        return None, None
    try:
        body = orjson.loads(response.body)
    except orjson.JSONDecodeError:
        return None, None
    if not isinstance(body, dict):
        return None, None
    error = body.get("error")
    if isinstance(error, dict):
        return _text(error.get("code")), _text(error.get("message"))
    if isinstance(error, str):
        return None, error
    if response.content_type == "application/problem+json" or "title" in body:
        code = _text(body.get("type"))
        if code == "about:blank":
            code = None
        return code, _text(body.get("detail")) or _text(body.get("title"))
    return _text(body.get("code")), _text(body.get("message"))


def _text(value: object) -> str | None:
    if value is None:
        return None
    return value if isinstance(value, str) else str(value)
