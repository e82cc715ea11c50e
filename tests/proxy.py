"""A forward proxy on loopback for tests: CONNECT tunnels and absolute-form http requests.

It records what crossed it from the client (request heads, and every byte of every tunnel) so
a test can assert what a proxy could see; with `credentials` it answers 407 to a request
without the matching `Proxy-Authorization`. With `ssl` it is itself reached over TLS.
"""

from __future__ import annotations

import asyncio
import base64
import ssl as ssl_module
from contextlib import suppress

MAX_HEAD = 64 * 1024


class ForwardProxy:
    """`async with ForwardProxy() as proxy:` then point a client at `proxy.url`."""

    def __init__(
        self,
        *,
        credentials: tuple[str, str] | None = None,
        ssl: ssl_module.SSLContext | None = None,
    ) -> None:
        self.credentials = credentials
        self.ssl = ssl
        self.heads: list[bytes] = []
        """Each request head the proxy read: CONNECT lines, absolute-form requests."""
        self.seen = bytearray()
        """Every byte the clients sent through the proxy, heads and tunnels alike."""
        self.refused = 0
        self._server: asyncio.Server | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self._writers: list[asyncio.StreamWriter] = []

    @property
    def url(self) -> str:
        assert self._server is not None
        port = self._server.sockets[0].getsockname()[1]
        return f"{'https' if self.ssl else 'http'}://127.0.0.1:{port}"

    @property
    def connects(self) -> list[str]:
        """The `host:port` of each CONNECT the proxy was asked for."""
        return [head.split()[1].decode() for head in self.heads if head.startswith(b"CONNECT ")]

    async def __aenter__(self) -> ForwardProxy:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0, ssl=self.ssl)
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        assert self._server is not None
        self._server.close()
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        for writer in self._writers:
            writer.close()
            with suppress(Exception):
                await writer.wait_closed()
        with suppress(Exception):
            await self._server.wait_closed()

    async def _open(
        self, host: str, port: int
    ) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        reader, writer = await asyncio.open_connection(host, port)
        self._writers.append(writer)
        return reader, writer

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._tasks.add(task)
        self._writers.append(writer)
        try:
            await self._one(reader, writer)
        except (ConnectionError, asyncio.IncompleteReadError, asyncio.LimitOverrunError):
            pass
        finally:
            self._tasks.discard(task)
            writer.close()
            with suppress(Exception):
                await writer.wait_closed()

    async def _one(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        head = await reader.readuntil(b"\r\n\r\n")
        self.heads.append(head)
        self.seen += head
        method, target, _ = head.split(b"\r\n", 1)[0].split(b" ", 2)
        if not self._authorized(head):
            self.refused += 1
            writer.write(
                b"HTTP/1.1 407 Proxy Authentication Required\r\n"
                b'Proxy-Authenticate: Basic realm="test"\r\n'
                b"Content-Length: 0\r\nConnection: close\r\n\r\n"
            )
            await writer.drain()
            return
        if method == b"CONNECT":
            host, _, port = target.decode().rpartition(":")
            try:
                upstream_reader, upstream_writer = await self._open(host, int(port))
            except OSError:
                writer.write(b"HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n")
                await writer.drain()
                return
            writer.write(b"HTTP/1.1 200 Connection established\r\n\r\n")
            await writer.drain()
            await self._relay(reader, writer, upstream_reader, upstream_writer)
            return
        await self._forward(head, target.decode(), writer)

    def _authorized(self, head: bytes) -> bool:
        if self.credentials is None:
            return True
        expected = base64.b64encode(":".join(self.credentials).encode()).decode()
        lines = head.decode("latin-1").split("\r\n")[1:]
        return any(
            name.strip().lower() == "proxy-authorization" and value.strip() == f"Basic {expected}"
            for name, _, value in (line.partition(":") for line in lines)
        )

    async def _forward(self, head: bytes, target: str, writer: asyncio.StreamWriter) -> None:
        """An absolute-form request: sent on to the origin in origin form, answer relayed."""
        rest = target.split("://", 1)[1]
        authority, _, path = rest.partition("/")
        host, _, port = authority.rpartition(":")
        lines = head.decode("latin-1").split("\r\n")
        method = lines[0].split(" ", 1)[0]
        kept = [
            line
            for line in lines[1:]
            if line
            and line.split(":", 1)[0].strip().lower()
            not in {"proxy-authorization", "proxy-connection", "connection"}
        ]
        request = "\r\n".join([f"{method} /{path} HTTP/1.1", *kept, "Connection: close", "", ""])
        upstream_reader, upstream_writer = await self._open(host, int(port))
        upstream_writer.write(request.encode("latin-1"))
        await upstream_writer.drain()
        writer.write(await upstream_reader.read())
        await writer.drain()

    async def _relay(
        self,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        upstream_reader: asyncio.StreamReader,
        upstream_writer: asyncio.StreamWriter,
    ) -> None:
        async def pump(
            source: asyncio.StreamReader, sink: asyncio.StreamWriter, record: bool
        ) -> None:
            with suppress(ConnectionError):
                while chunk := await source.read(65536):
                    if record:
                        self.seen += chunk
                    sink.write(chunk)
                    await sink.drain()
            with suppress(Exception):
                sink.write_eof()

        await asyncio.gather(
            pump(reader, upstream_writer, True),
            pump(upstream_reader, writer, False),
        )
