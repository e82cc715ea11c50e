"""Reads a complete response: an error status becomes a typed error, a body becomes JSON.

Pure functions over `Response` values; nothing here does I/O.
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterable
from email.utils import parsedate_to_datetime
from typing import Any, TypeVar
from urllib.parse import quote

import orjson

from ._codec import WireFault
from ._errors import (
    APIStatusError,
    DecodeError,
    RateLimitError,
    excerpt,
    status_error_class,
)
from ._fastpath import from_wire
from ._http import JSONResponse, Response

T = TypeVar("T")

REDACTED = "[REDACTED]"


def redact(text: str, secrets: Iterable[str]) -> str:
    """Replace each secret in text, so a token the service echoes back never escapes.

    Also catches the forms an echo commonly takes (JSON-escaped, `\\/` for `/`,
    percent-encoded) and a secret's beginning left at the very end of a body cut short.
    """
    for secret in secrets:
        if not secret:
            continue
        for form in _echoed_forms(secret):
            text = text.replace(form, REDACTED)
        for length in range(len(secret) - 1, min(len(secret), 4) - 1, -1):
            if text.endswith(secret[:length]):
                text = text[:-length] + REDACTED
                break
    return text


def _echoed_forms(secret: str) -> list[str]:
    forms = [
        secret,
        orjson.dumps(secret).decode()[1:-1],
        secret.replace("/", "\\/"),
        quote(secret, safe=""),
    ]
    return sorted(set(forms), key=len, reverse=True)


def body_text(body: bytes) -> str:
    """Decode a body for display, replacing undecodable bytes."""
    return body.decode("utf-8", errors="replace")


def status_error(response: Response, *, secrets: Iterable[str] = ()) -> APIStatusError:
    """Build the typed error for a response whose status is not 2xx.

    The message comes from a `{"error": {"code", "message"}}` body or an RFC 7807 problem body
    when there is one, otherwise from the status line and a short excerpt of the body.
    """
    secrets = tuple(secrets)
    code, message = _error_fields(response)
    text = redact(body_text(response.body), secrets)
    body_excerpt = excerpt(text.strip()) if text.strip() else None
    if message is None:
        message = _default_message(response)
    error_class = status_error_class(response.status)
    fields: dict[str, Any] = {
        "method": response.request.method,
        "url": response.request.url,
        "status": response.status,
        "request_id": response.request_id,
        "code": redact(code, secrets) if code else None,
        "body_excerpt": body_excerpt,
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


def retry_after_seconds(headers: Any, *, now: float | None = None) -> float | None:
    """Return the wait the service asked for, in seconds, or None when absent or unusable.

    Reads `retry-after-ms`, then `Retry-After` as seconds or as an HTTP date. A negative,
    non-finite or unparseable hint counts as absent.
    """
    milliseconds = _finite(headers.get("retry-after-ms"))
    if milliseconds is not None and milliseconds >= 0:
        return milliseconds / 1000
    value = headers.get("Retry-After")
    if value is None:
        return None
    seconds = _finite(value)
    if seconds is not None:
        return seconds if seconds >= 0 else None
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        return None
    wait = when.timestamp() - (time.time() if now is None else now)
    return max(wait, 0.0)


def _finite(value: str | None) -> float | None:
    if value is None:
        return None
    try:
        number = float(value.strip())
    except ValueError:
        return None
    return number if math.isfinite(number) else None


def json_body(response: Response, *, secrets: Iterable[str] = ()) -> Any:
    """Decode a successful response's body from JSON; a body that is not JSON is a DecodeError."""
    try:
        return orjson.loads(response.body)
    except orjson.JSONDecodeError as exc:
        shown = redact(body_text(response.body), secrets).strip()
        what = "an empty body" if not response.body else "a body that is not valid JSON"
        kind = response.content_type or "no Content-Type"
        raise DecodeError(
            f"expected JSON, got {what} ({kind}; {exc})",
            method=response.request.method,
            url=response.request.url,
            status=response.status,
            request_id=response.request_id,
            body_excerpt=excerpt(shown) if shown else None,
        ) from None


def decode_json(response: Response, *, secrets: Iterable[str] = ()) -> JSONResponse:
    """Decode a successful response into a JSONResponse (what paginators read)."""
    body = json_body(response, secrets=secrets)
    return JSONResponse(
        url=response.request.url, status=response.status, headers=response.headers, body=body
    )


def wire_fault_error(fault: WireFault, response: Response | JSONResponse) -> DecodeError:
    """Return the DecodeError for a decoded body that does not fit what was expected."""
    return DecodeError(
        fault.reason,
        method="GET",
        url=response.url,
        path=fault.path,
        status=response.status,
        request_id=response.request_id,
    )


def record_from(model: type[T], response: Response, *, secrets: Iterable[str] = ()) -> T:
    """Decode a successful response's body into a model; DecodeError says what did not fit."""
    body = json_body(response, secrets=secrets)
    try:
        return from_wire(model, body)
    except WireFault as fault:
        raise wire_fault_error(fault, response) from None
