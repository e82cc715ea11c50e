"""Real loopback servers for wire tests: an aiohttp.web app, or raw scripted bytes."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import asynccontextmanager

from aiohttp import web

CANARY = "canary-token-7f3e9a"
"""The token tests use; the suite fails if it ever shows up in a log record or a report."""

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]
Serve = Callable[[dict[str, Handler]], Awaitable[str]]
"""The `serve` fixture: start a loopback app from {path: handler}; returns its base URL."""


@asynccontextmanager
async def serve_app(app: web.Application) -> AsyncIterator[str]:
    """Run an aiohttp.web app on a free loopback port; yields its base URL."""
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    assert site._server is not None
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        await runner.cleanup()


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
