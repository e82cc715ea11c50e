"""Virtual time for tests that count arrivals at a loopback server: `ParkedTime`, which moves on
only while every request in flight is parked on it; `SlowHandshakes`, a relay that makes new
connections take virtual time to open while warm ones take none; and `SlowTunnels`, a proxy
whose tunnels take virtual time to open."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from contextlib import suppress
from typing import Any

import aiohttp

from tests.fakes import VirtualTime
from tests.proxy import ForwardProxy

SLACK = 1e-9
"""Room for floating-point sums when comparing virtual times."""


def most_in_any_window(times: Sequence[float], window: float) -> int:
    """The most arrivals within any half-open window `(t - window, t]` (a sliding check)."""
    ordered = sorted(times)
    most, first = 0, 0
    for last, at in enumerate(ordered):
        while ordered[first] <= at - window + SLACK:
            first += 1
        most = max(most, last - first + 1)
    return most


class ParkedTime:
    """A clock shared by a client and loopback servers that moves on only while every request
    in flight is parked on virtual time: asleep on the client's `sleep` (its turn at the wire),
    or waiting on a connection a test's link holds open on virtual time (`hold`).

    A request in flight is one aiohttp is sending (give the client `trace_configs=[time.traced()]`:
    from its start to its response or failure), or, with a transport of the test's own, one
    between its `request` event and its `response` or `error` event (give this object as an
    event hook). Anything else in flight (bytes on their way, a TLS handshake, a server reading
    a request) keeps time still, so a server stamping arrivals with `clock` sees each request at
    the virtual time it left the client, and every virtual second a connection takes to open is
    one the test asked for.
    """

    def __init__(self, start: float = 1000.0) -> None:
        self.virtual = VirtualTime(start, busy=self.busy)
        self.flying: set[asyncio.Task[Any]] = set()
        self.asleep: set[asyncio.Task[Any]] = set()
        self.held = 0
        """Connections a link holds on virtual time now (each one keeps one request waiting)."""
        self.holds: list[float] = []
        """Every hold a link made, in seconds."""
        self.sleeps: list[float] = []
        """Every wait of the client on `sleep`, in seconds."""

    def clock(self) -> float:
        return self.virtual.clock()

    def __call__(self, event: Any) -> None:
        task = asyncio.current_task()
        assert task is not None
        if event.kind == "request":
            self.flying.add(task)
        elif event.kind in ("response", "error"):
            self.flying.discard(task)

    def traced(self) -> aiohttp.TraceConfig:
        """An aiohttp trace config telling the clock which requests are in flight (it needs no
        events, so the sender's fast path is what runs)."""

        async def started(*_: object) -> None:
            task = asyncio.current_task()
            assert task is not None
            self.flying.add(task)

        async def ended(*_: object) -> None:
            self.flying.discard(asyncio.current_task())  # type: ignore[arg-type]

        config = aiohttp.TraceConfig()
        config.on_request_start.append(started)
        config.on_request_end.append(ended)
        config.on_request_exception.append(ended)
        return config

    async def sleep(self, seconds: float) -> None:
        """The client's sleep: a request asleep here is parked."""
        self.sleeps.append(seconds)
        task = asyncio.current_task()
        assert task is not None
        self.asleep.add(task)
        try:
            await self.virtual.sleep(seconds)
        finally:
            self.asleep.discard(task)

    async def hold(self, seconds: float) -> None:
        """Hold one connection's opening for `seconds` of virtual time (a link's delay)."""
        self.holds.append(seconds)
        self.held += 1
        try:
            await self.virtual.sleep(seconds)
        finally:
            self.held -= 1

    def busy(self) -> bool:
        """Whether some request in flight is neither asleep nor waiting on a held connection."""
        return len(self.flying - self.asleep) > self.held


class SlowHandshakes:
    """A TCP relay before a loopback TLS server: the n-th new connection's first bytes from the
    server (its handshake answer) are held `delays[n % len(delays)]` virtual seconds, so opening
    that connection takes as long; a warm connection's bytes pass at once.

    `async with SlowHandshakes(port, time, [0.5]) as relay:` then connect to `relay.port`.
    """

    def __init__(self, target_port: int, time: ParkedTime, delays: Sequence[float]) -> None:
        self.target_port = target_port
        self.time = time
        self.delays = tuple(delays)
        self.opened = 0
        """Connections the relay accepted."""
        self._server: asyncio.Server | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self._writers: list[asyncio.StreamWriter] = []

    @property
    def port(self) -> int:
        assert self._server is not None
        port: int = self._server.sockets[0].getsockname()[1]
        return port

    async def __aenter__(self) -> SlowHandshakes:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        assert self._server is not None
        self._server.close()
        for writer in self._writers:  # each pump then reads the end of its stream, and stops
            writer.close()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        for writer in self._writers:
            with suppress(Exception):
                await writer.wait_closed()
        with suppress(Exception):
            await self._server.wait_closed()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._tasks.add(task)
        self._writers.append(writer)
        delay = self.delays[self.opened % len(self.delays)]
        self.opened += 1
        try:
            upstream_reader, upstream_writer = await asyncio.open_connection(
                "127.0.0.1", self.target_port
            )
            self._writers.append(upstream_writer)
            await asyncio.gather(
                _pump(reader, upstream_writer),
                _pump(upstream_reader, writer, lambda: self.time.hold(delay)),
            )
        except (ConnectionError, asyncio.IncompleteReadError):
            pass
        finally:
            self._tasks.discard(task)


async def _pump(
    source: asyncio.StreamReader, sink: asyncio.StreamWriter, first: Any = None
) -> None:
    """Copy `source` to `sink`, awaiting `first()` before the first chunk goes on."""
    with suppress(ConnectionError):
        while chunk := await source.read(65536):
            if first is not None:
                await first()
                first = None
            sink.write(chunk)
            await sink.drain()
    with suppress(Exception):
        sink.write_eof()


class SlowTunnels(ForwardProxy):
    """A loopback forward proxy that holds each tunnel `delay` virtual seconds before it
    connects to the service, so a CONNECT is answered that much later."""

    def __init__(self, time: ParkedTime, delay: float) -> None:
        super().__init__()
        self.time = time
        self.delay = delay

    async def _open(
        self, host: str, port: int
    ) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        await self.time.hold(self.delay)
        return await super()._open(host, port)
