"""Decodes a successful response's body from JSON; a body that is not JSON is a DecodeError."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import orjson

from remedy_async._errors import DecodeError
from remedy_async._http import JSONResponse, Response
from remedy_async._redact import body_excerpt, scrub_error


def json_body(response: Response, *, secrets: Iterable[str] = ()) -> Any:
    """Return the decoded JSON body of a response; DecodeError says what arrived instead."""
    try:
        return orjson.loads(response.body)
    except orjson.JSONDecodeError as exc:
        what = "an empty body" if not response.body else "a body that is not valid JSON"
        kind = response.content_type or "no Content-Type"
        error = DecodeError(
            f"expected JSON, got {what} ({kind}; {exc})",
            method=response.request.method,
            url=response.request.url,
            status=response.status,
            request_id=response.request_id,
            body_excerpt=body_excerpt(response.body, secrets),
        )
        scrub_error(error, secrets)
        raise error from None


def decode_json(response: Response, *, secrets: Iterable[str] = ()) -> JSONResponse:
    """Decode a successful response into a JSONResponse (what paginators read)."""
    body = json_body(response, secrets=secrets)
    return JSONResponse(
        url=response.request.url, status=response.status, headers=response.headers, body=body
    )
