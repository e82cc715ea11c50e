"""What a handler answers, before faults and framing: status, headers and body or chunks."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from http import HTTPStatus
from typing import Any, Final

import attrs
import orjson

from ._config import ErrorFormat

JSON: Final = "application/json"
PROBLEM_JSON: Final = "application/problem+json"
PROBLEM_TYPE_BASE: Final = "urn:remedy:problem:"

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
    """An error answer (status, code, message) raised by a handler."""

    def __init__(
        self, status: int, code: str, message: str, headers: Mapping[str, str] | None = None
    ) -> None:
        super().__init__(f"{status} {code}: {message}")
        self.status = status
        self.code = code
        self.message = message
        self.headers = dict(headers or {})


def json_payload(
    document: Any, status: int = 200, headers: Mapping[str, str] | None = None
) -> Payload:
    """A JSON answer."""
    return Payload(status=status, body=orjson.dumps(document), headers=dict(headers or {}))


def error_payload(error: ApiError, error_format: ErrorFormat) -> Payload:
    """The error body in the run's format: `{"error": {...}}` or RFC 7807 problem+json."""
    if error_format == "problem":
        document: dict[str, Any] = {
            "type": PROBLEM_TYPE_BASE + error.code,
            "title": HTTPStatus(error.status).phrase,
            "status": error.status,
            "detail": error.message,
            "code": error.code,
        }
        return Payload(
            status=error.status,
            body=orjson.dumps(document),
            content_type=PROBLEM_JSON,
            headers=error.headers,
        )
    document = {"error": {"code": error.code, "message": error.message}}
    return Payload(status=error.status, body=orjson.dumps(document), headers=error.headers)
