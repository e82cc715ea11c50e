"""What a handler answers, before faults and framing: status, headers and body or chunks."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any, Final

import attrs
import orjson

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
