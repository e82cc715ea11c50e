"""Decodes a successful response: its body from JSON, then into a model, or a DecodeError.

A body that is not JSON is a DecodeError showing what arrived; a value that does not fit the
model is one naming its JSON path (`wire_fault_error`), never the echoed credential. Numbers
are read exactly (`_json`): an integer of any size stays an int, and a number too large for a
float is a DecodeError naming its JSON path, never infinity.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, TypeVar

from yarl import URL

from remedy_async._errors import DecodeError
from remedy_async._redact import body_excerpt, kept_body, scrub_error
from remedy_async._wire._http import JSONResponse, Response

from ._fastpath import from_wire
from ._json import NotJSON, dumps, loads
from ._types import WireFault


def json_body(response: Response, *, secrets: Iterable[str] = ()) -> Any:
    """Return the decoded JSON body of a response; DecodeError says what arrived instead."""
    try:
        return loads(response.body)
    except NotJSON as exc:
        kind = response.content_type or "no Content-Type"
        said = f"{kind}; {exc.detail}" if exc.detail else kind
        body, cut = kept_body(response.body, secrets, response.content_type)
        error = DecodeError(
            f"expected JSON, got {exc.what} ({said})",
            method=response.request.method,
            url=response.request.url,
            path=exc.path,
            status=response.status,
            request_id=response.request_id,
            body_excerpt=body_excerpt(response.body, secrets),
            body=body,
            body_truncated=cut,
        )
        scrub_error(error, secrets)
        raise error from None


def decode_json(response: Response, *, secrets: Iterable[str] = ()) -> JSONResponse:
    """Decode a successful response into a JSONResponse (what paginators read)."""
    body = json_body(response, secrets=secrets)
    return JSONResponse(
        url=response.request.url, status=response.status, headers=response.headers, body=body
    )


T = TypeVar("T")


def wire_fault_error(
    fault: WireFault,
    response: Response | JSONResponse,
    *,
    url: URL | str | None = None,
    secrets: Iterable[str] = (),
) -> DecodeError:
    """Return the DecodeError for a decoded body that does not fit what was expected.

    It shows `url` (default: the response's), with any of `secrets` echoed in it redacted,
    and keeps the body that did not fit (`kept_body`: bounded, redacted).
    """
    raw = response.body if isinstance(response, Response) else dumps(response.body)
    body, cut = kept_body(raw, secrets, "application/json")
    error = DecodeError(
        fault.reason,
        method="GET",
        url=response.url if url is None else url,
        path=fault.path,
        status=response.status,
        request_id=response.request_id,
        body=body,
        body_truncated=cut,
    )
    scrub_error(error, secrets)
    return error


def record_from(
    model: type[T],
    response: Response,
    *,
    secrets: Iterable[str] = (),
    read: Callable[[object], T] | None = None,
) -> T:
    """Decode a successful response's body into a model; DecodeError says what did not fit.

    `read` builds the model from the decoded body (default: `from_wire`, the published
    snake_case keys).
    """
    body = json_body(response, secrets=secrets)
    try:
        return from_wire(model, body) if read is None else read(body)
    except WireFault as fault:
        raise wire_fault_error(fault, response, secrets=secrets) from None
