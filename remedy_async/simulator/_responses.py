"""What a handler answers, before faults and framing: a `Payload`, or an `ApiError` in a shape.

A `Payload` is a status, headers and a body or chunks to stream; an `ApiError` is an error answer
(status, code, message) a handler raises, written by `error_payload` in any common error-body
shape, so clients can be tested on each. Every shape carries the error's message where clients
of that convention look for it, and its code where the convention has a place for one:

    error           {"error": {"code", "message"}}                    (the contract's own)
    problem         RFC 9457 problem+json: type, title, detail, status, code
    detail          {"detail": message}                               (Django REST framework)
    fastapi         {"detail": [{"loc", "msg", "type"}]}              (FastAPI validation)
    json-api        {"errors": [{"status", "code", "title", "detail"}]}
    graphql         {"errors": [{"message", "extensions": {"code"}}]}
    oauth           {"error": code, "error_description": message}     (RFC 6749 section 5.2)
    message         {"message", "code"}
    pascal-message  {"Message": message}                              (AWS API Gateway)
    error-string    {"error": message}
    strings         {"errors": [message]}
    text            text/plain, the message on the first line
    html            a proxy's error page, the status and message in its <title>
"""

from __future__ import annotations

import html
from collections.abc import Callable, Iterator, Mapping
from http import HTTPStatus
from typing import Any, Final

import attrs
import orjson

from ._run_config import ErrorFormat

JSON: Final = "application/json"

ERROR_CODES: Final = {
    500: "internal_error",
    502: "bad_gateway",
    503: "service_unavailable",
    504: "gateway_timeout",
}
"""The error code of each server error the faults inject."""


def _describe(body: bytes | None) -> str:
    return "None" if body is None else f"<{len(body)} bytes>"


@attrs.frozen
class Payload:
    """A response to send: a whole `body`, or `chunks` to stream (`length` if known)."""

    status: int
    body: bytes | None = attrs.field(default=None, repr=_describe)
    content_type: str | None = JSON
    headers: Mapping[str, str] = attrs.field(factory=dict)
    chunks: Callable[[], Iterator[bytes]] | None = attrs.field(default=None, repr=False)
    length: int | None = None

    @property
    def streamed(self) -> bool:
        """Whether the body is sent in chunks rather than from `body`."""
        return self.chunks is not None


class ApiError(Exception):
    """An error answer (status, code, message) raised by a handler.

    `location` says what the error is about, as FastAPI's `loc` does: `("query", "cursor")`
    for a query parameter, `("path", "id")` for the id of a get, `()` for the request as a
    whole.
    """

    def __init__(
        self,
        status: int,
        code: str,
        message: str,
        headers: Mapping[str, str] | None = None,
        *,
        location: tuple[str, ...] = (),
    ) -> None:
        super().__init__(f"{status} {code}: {message}")
        self.status = status
        self.code = code
        self.message = message
        self.headers = dict(headers or {})
        self.location = location

    def echoing(self, credential: str) -> ApiError:
        """The same error with `credential` echoed into its code and message (echo mode)."""
        return ApiError(
            self.status,
            f"{self.code}:{credential}",
            f"{self.message} (credential {credential})",
            self.headers,
            location=self.location,
        )


def json_payload(
    document: Any, status: int = 200, headers: Mapping[str, str] | None = None
) -> Payload:
    """A JSON answer."""
    return Payload(status=status, body=orjson.dumps(document), headers=dict(headers or {}))


# Error bodies in every common shape.

PROBLEM_JSON: Final = "application/problem+json"
PROBLEM_TYPE_BASE: Final = "urn:remedy:problem:"
JSON_API: Final = "application/vnd.api+json"
TEXT: Final = "text/plain; charset=utf-8"
HTML: Final = "text/html; charset=utf-8"

_FILLER: Final = (
    "<p>The server is temporarily unable to service your request. Please try again later; "
    "if the problem persists, contact the administrator of this proxy and quote the request "
    "id from the response headers.</p>\n"
) * 8
"""What a proxy's error page says besides its title: text no client should show."""

Render = Callable[[ApiError], bytes]


def _phrase(error: ApiError) -> str:
    return HTTPStatus(error.status).phrase


def _json(build: Callable[[ApiError], Any]) -> Render:
    return lambda error: orjson.dumps(build(error))


def _html(error: ApiError) -> bytes:
    status = f"{error.status} {_phrase(error)}"
    page = (
        "<!DOCTYPE html>\n<html>\n"
        f"<head><title>{html.escape(f'{status}: {error.message}')}</title></head>\n"
        f"<body>\n<center><h1>{status}</h1></center>\n{_FILLER}"
        "<hr><center>remedy-simulator-proxy</center>\n</body>\n</html>\n"
    )
    return page.encode()


SHAPES: Final[dict[str, tuple[str, Render]]] = {
    "error": (JSON, _json(lambda e: {"error": {"code": e.code, "message": e.message}})),
    "problem": (
        PROBLEM_JSON,
        _json(
            lambda e: {
                "type": PROBLEM_TYPE_BASE + e.code,
                "title": _phrase(e),
                "status": e.status,
                "detail": e.message,
                "code": e.code,
            }
        ),
    ),
    "detail": (JSON, _json(lambda e: {"detail": e.message})),
    "fastapi": (
        JSON,
        _json(lambda e: {"detail": [{"loc": list(e.location), "msg": e.message, "type": e.code}]}),
    ),
    "json-api": (
        JSON_API,
        _json(
            lambda e: {
                "errors": [
                    {
                        "status": str(e.status),
                        "code": e.code,
                        "title": _phrase(e),
                        "detail": e.message,
                    }
                ]
            }
        ),
    ),
    "graphql": (
        JSON,
        _json(lambda e: {"errors": [{"message": e.message, "extensions": {"code": e.code}}]}),
    ),
    "oauth": (JSON, _json(lambda e: {"error": e.code, "error_description": e.message})),
    "message": (JSON, _json(lambda e: {"message": e.message, "code": e.code})),
    "pascal-message": (JSON, _json(lambda e: {"Message": e.message})),
    "error-string": (JSON, _json(lambda e: {"error": e.message})),
    "strings": (JSON, _json(lambda e: {"errors": [e.message]})),
    "text": (TEXT, lambda e: f"{e.message}\n".encode()),
    "html": (HTML, _html),
}
"""Each shape's content type and renderer, by its name in `ERROR_FORMATS` (same order)."""


def error_payload(error: ApiError, error_format: ErrorFormat) -> Payload:
    """The error answer with its body in the run's shape; the error's headers are kept."""
    content_type, render = SHAPES[error_format]
    return Payload(
        status=error.status, body=render(error), content_type=content_type, headers=error.headers
    )
