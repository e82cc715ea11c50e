"""Answers the requests aiohttp refuses before any handler runs, as the contract answers errors.

aiohttp's HTTP parser refuses an over-long request line or header, too many headers, or bytes
that are not HTTP, and its `RequestHandler.handle_error` answers them (and a handler that
failed) with `400 text/plain` and no `X-Request-Id`. `ContractServer` is the protocol factory
of the simulator's sockets: its connections' `handle_error` answers in the run's error shape,
with a request id, and with the status that says what was wrong (414 for the request line, 431
for the headers, else 400); the run's OpenAPI document lists those statuses on every operation.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from http import HTTPStatus
from typing import Any, Final, Protocol

from aiohttp import web
from aiohttp.http_exceptions import BadHttpMessage, HttpProcessingError, LineTooLong

from ._responses import ERROR_CODES, ApiError

# The limits of an AWS Application Load Balancer ("HTTP headers" quotas: request line 16K, a
# single header 16K), above aiohttp's 8,190 bytes (Apache's LimitRequestLine and
# LimitRequestFieldSize, about nginx's 8k large_client_header_buffers). aiohttp measures the
# request target against max_line_size, so that is the 16K less a GET's method, spaces and
# version, and a header's name and its value against max_field_size. The two differ, which
# tells a refused request line from a refused header.
MAX_REQUEST_TARGET: Final = 16 * 1024 - len("GET  HTTP/1.1")
MAX_HEADER_FIELD: Final = 16 * 1024
MAX_HEADERS: Final = 128
"""aiohttp's own limit on the number of headers (Apache's LimitRequestFields is 100)."""


class Refuse(Protocol):
    """Answers with the contract's error (`SimulatorApp.refusal`); `count` a request the
    handler never saw."""

    def __call__(self, error: ApiError, *, count: bool) -> web.Response: ...


def refusal_of(error: HttpProcessingError) -> ApiError:
    """The contract's error for a request aiohttp could not parse. Its text never quotes the
    request, whose refused line may be a credential's header."""
    if isinstance(error, LineTooLong):
        if error.args[1:2] == (MAX_REQUEST_TARGET,):
            return ApiError(
                414, "uri_too_long", f"the request target is over {MAX_REQUEST_TARGET:,} bytes"
            )
        return ApiError(
            431,
            "request_header_fields_too_large",
            f"a header is over {MAX_HEADER_FIELD:,} bytes",
        )
    if isinstance(error, BadHttpMessage) and "too many headers" in error.message.lower():
        return ApiError(
            431, "request_header_fields_too_large", f"the request has over {MAX_HEADERS} headers"
        )
    return ApiError(400, "bad_request", "the request is not valid HTTP/1.1")


class _ContractHandler(web.RequestHandler):
    """One connection of the simulator, whose refusals are the contract's errors."""

    def __init__(self, manager: web.Server, *, refuse: Refuse, **options: Any) -> None:
        super().__init__(manager, **options)
        self._refuse = refuse

    def handle_error(
        self,
        request: web.BaseRequest,
        status: int = 500,
        exc: BaseException | None = None,
        message: str | None = None,
    ) -> web.StreamResponse:
        """Answer a request aiohttp refused, or one whose handler failed, in the contract's
        error shape (aiohttp's own answer once a response has begun: the connection drops)."""
        if request.writer.output_size > 0:
            return super().handle_error(request, status, exc, message)
        if isinstance(exc, HttpProcessingError):
            self.log_debug("Refused a request aiohttp could not parse: %r", exc)
            response = self._refuse(refusal_of(exc), count=True)
        else:
            self.log_exception("Error handling request", exc_info=exc)
            code = ERROR_CODES.get(status, HTTPStatus(status).phrase.lower().replace(" ", "_"))
            error = ApiError(status, code, "the simulator failed to answer")
            response = self._refuse(error, count=False)
        response.force_close()
        return response


class ContractServer(web.Server):
    """aiohttp's low-level server, taking requests as long as a load balancer does and refusing
    the others in the contract's error shape (see the module's doc)."""

    def __init__(
        self,
        handler: Callable[[web.BaseRequest], Awaitable[web.StreamResponse]],
        *,
        refuse: Refuse,
        handler_cancellation: bool = False,
        **connection_options: Any,
    ) -> None:
        self._refuse = refuse
        self._connection_options = {
            **connection_options,
            "max_line_size": MAX_REQUEST_TARGET,
            "max_field_size": MAX_HEADER_FIELD,
            "max_headers": MAX_HEADERS,
        }
        super().__init__(
            handler, handler_cancellation=handler_cancellation, **self._connection_options
        )

    def __call__(self) -> web.RequestHandler:
        """The protocol of one new connection."""
        return _ContractHandler(
            self,
            loop=asyncio.get_running_loop(),
            refuse=self._refuse,
            **self._connection_options,
        )
