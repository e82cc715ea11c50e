"""Runs the simulator on a loopback (or any) TCP port, in the caller's event loop."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from datetime import UTC, datetime
from types import TracebackType
from typing import Final, Self

import attrs
from aiohttp import web

from ._app import SimulatorApp
from ._counters import CounterState, SimulatorCounters
from ._dataset import Dataset
from ._protocol import ContractServer
from ._run_config import SimulatorConfig
from ._wire import Sleep

SHUTDOWN_TIMEOUT: Final = 1.0
"""Seconds stop() lets unfinished requests run before cancelling them."""


class Simulator:
    """Serves the assumed Remedy API from seeded data, with optional faults, on a real socket.

        async with Simulator(SimulatorConfig(size=1000, paging="offset")) as sim:
            ...  # point a client at sim.url; check sim.counters and sim.dataset

    Args:
        config: What to serve; default: the contract's defaults (`SimulatorConfig()`).
        sleep: How latency and stall faults wait. Tests pass one that returns at once.
        clock: The time, in Unix seconds (health, the rate limit, `now`). `config.now` left
            None becomes `clock()` when the simulator is made.
    """

    def __init__(
        self,
        config: SimulatorConfig | None = None,
        *,
        sleep: Sleep = asyncio.sleep,
        clock: Callable[[], float] = time.time,
    ) -> None:
        started = clock()
        config = config if config is not None else SimulatorConfig()
        if config.now is None:
            config = attrs.evolve(config, now=datetime.fromtimestamp(started, UTC))
        self.config = config
        """The configuration served, its `now` set (the time the records are dated from)."""
        self.dataset = Dataset.from_config(config)
        """The records served: ask it what a list or get should answer."""
        self._counters = CounterState()
        self._app = SimulatorApp(
            config, self.dataset, self._counters, sleep=sleep, clock=clock, started=started
        )
        self._runner: web.ServerRunner | None = None
        self._url: str | None = None

    def __repr__(self) -> str:
        where = self._url or "not started"
        config = self.config
        return (
            f"Simulator({where}, seed={config.seed}, size={config.size}, "
            f"paging={config.paging!r}, faults={len(config.faults)})"
        )

    @property
    def url(self) -> str:
        """The base URL, e.g. `http://127.0.0.1:54321` (no trailing slash; it ends with the
        configured `base_path`, if any)."""
        if self._url is None:
            raise RuntimeError("the simulator is not running: call start() or use `async with`")
        return self._url

    @property
    def port(self) -> int:
        """The TCP port it listens on."""
        return int(self.url.removesuffix(self.config.base_path).rsplit(":", 1)[1])

    @property
    def running(self) -> bool:
        """Whether it is serving."""
        return self._runner is not None

    @property
    def counters(self) -> SimulatorCounters:
        """A snapshot of what it has seen so far."""
        return self._counters.snapshot()

    def reset_counters(self) -> None:
        """Zero the counters (requests in flight stay counted as in flight)."""
        self._counters.reset()

    async def start(self) -> None:
        """Start listening on the configured host and port (port 0: a free one)."""
        if self._runner is not None:
            raise RuntimeError("the simulator is already running")
        server = ContractServer(
            self._app.handle,
            refuse=self._app.refusal,
            handler_cancellation=True,
            access_log=None,
        )
        runner = web.ServerRunner(server, shutdown_timeout=SHUTDOWN_TIMEOUT)
        await runner.setup()
        try:
            site = web.TCPSite(runner, self.config.host, self.config.port)
            await site.start()
        except BaseException:
            await runner.cleanup()
            raise
        host, port = runner.addresses[0][:2]
        origin = f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"
        self._url = origin + self.config.base_path
        self._runner = runner

    async def stop(self) -> None:
        """Stop listening, cancel requests still in flight, close connections; idempotent."""
        runner, self._runner = self._runner, None
        self._url = None
        if runner is not None:
            await self._app.cancel_in_flight()
            await runner.cleanup()

    async def __aenter__(self) -> Self:
        await self.start()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.stop()
