"""Real loopback servers, for tests where the socket or the exact bytes are the point.

- `serve_handler(handler)`: a MockTransport handler (`tests.mock_service.Routes`, `Script`,
  `tests.published.PublishedService(...).handler`) answering over a loopback socket, so the
  same canned service runs with or without one;
- `ScriptedServer`: raw response bytes, one connection each (truncated bodies, lying lengths);
- `serve_app` (and the `serve` fixture): a hand-written aiohttp.web app, only for answers a
  handler cannot give: a streamed or stalled body, a response held back on a clock.

What the service does (paging, faults, rate limits) is the simulator's job:
`remedy_async.simulator.Simulator`. See `tests/README.md`.
"""

from __future__ import annotations

import asyncio
import inspect
import ssl
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import asynccontextmanager

from aiohttp import web

from remedy_async import MockRequest, MockResponse

CANARY = "canary-token-7f3e9a"
"""The token tests use; the suite fails if it ever shows up in a log record or a report."""

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]
Serve = Callable[[dict[str, Handler]], Awaitable[str]]
"""The `serve` fixture: start a loopback app from {path: handler}; returns its base URL."""


@asynccontextmanager
async def serve_app(
    app: web.Application, ssl_context: ssl.SSLContext | None = None
) -> AsyncIterator[str]:
    """Run an aiohttp.web app on a free loopback port (over TLS with `ssl_context`); yields its
    base URL."""
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0, ssl_context=ssl_context)
    await site.start()
    assert site._server is not None
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    try:
        yield f"{'https' if ssl_context else 'http'}://127.0.0.1:{port}"
    finally:
        await runner.cleanup()


MockHandler = Callable[[MockRequest], MockResponse | Awaitable[MockResponse]]
"""A MockTransport handler: a function, plain or async, from a MockRequest to a MockResponse."""


@asynccontextmanager
async def serve_handler(
    handler: MockHandler, ssl_context: ssl.SSLContext | None = None
) -> AsyncIterator[str]:
    """Answer every request on a free loopback port with what `handler` returns, as a
    MockTransport would without a socket; yields the base URL (https with `ssl_context`, the
    server's certificate).

    The handler sees the request as aiohttp received it (method, URL with its query, headers)
    and its MockResponse goes out as status, headers and body bytes, Content-Length set by
    aiohttp. A handler raising is a 500, as an aiohttp app's would be.
    """

    async def answer(request: web.Request) -> web.Response:
        returned = handler(MockRequest(request.method, request.url, request.headers))
        response = await returned if inspect.isawaitable(returned) else returned
        return web.Response(status=response.status, headers=response.headers, body=response.body)

    app = web.Application()
    app.router.add_route("*", "/{tail:.*}", answer)
    async with serve_app(app, ssl_context) as url:
        yield url


class ScriptedServer:
    """A raw TCP server that answers each connection with the next scripted bytes, then closes.

    Records the request head of each connection, so tests can see what was sent.
    """

    def __init__(self, responses: Sequence[bytes]) -> None:
        self._responses = list(responses)
        self.requests: list[bytes] = []
        self._server: asyncio.Server | None = None

    @property
    def url(self) -> str:
        assert self._server is not None
        port = self._server.sockets[0].getsockname()[1]
        return f"http://127.0.0.1:{port}"

    async def __aenter__(self) -> ScriptedServer:
        self._server = await asyncio.start_server(self._handle, "127.0.0.1", 0)
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        assert self._server is not None
        self._server.close()
        await self._server.wait_closed()

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        head = await reader.readuntil(b"\r\n\r\n")
        self.requests.append(head)
        writer.write(self._responses.pop(0) if self._responses else b"")
        await writer.drain()
        writer.close()
        await writer.wait_closed()


def http_response(
    status: int,
    body: bytes,
    *,
    headers: dict[str, str] | None = None,
    content_length: int | None = None,
) -> bytes:
    """Build raw HTTP/1.1 response bytes; `content_length` may lie to script a truncated body."""
    lines = [
        f"HTTP/1.1 {status} X",
        f"Content-Length: {len(body) if content_length is None else content_length}",
    ]
    lines += [f"{name}: {value}" for name, value in (headers or {}).items()]
    lines.append("Connection: close")
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + body
