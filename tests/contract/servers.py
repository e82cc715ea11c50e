"""Simulators on a background event loop, for clients that block (schemathesis calls `requests`).

A test on the main thread cannot serve and block at once, so the simulators run on one event
loop in a daemon thread; each is a real loopback server, started on first use and kept until
`close()`.
"""

from __future__ import annotations

import asyncio
import threading
from typing import Final

from remedy_async.simulator import Simulator, SimulatorConfig

START_TIMEOUT: Final = 30.0
"""Seconds a simulator may take to start (its data set is built first)."""


class BackgroundSimulators:
    """Serves one simulator per configuration from a background thread; `url(config)` starts it."""

    def __init__(self) -> None:
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(
            target=self._loop.run_forever, name="contract-simulators", daemon=True
        )
        self._thread.start()
        self._running: dict[SimulatorConfig, Simulator] = {}
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"BackgroundSimulators(running={len(self._running)})"

    def url(self, config: SimulatorConfig) -> str:
        """The base URL of the simulator serving `config`, started if it is not yet."""
        return self.simulator(config).url

    def simulator(self, config: SimulatorConfig) -> Simulator:
        """The simulator serving `config`, started if it is not yet (read its counters, data
        sets and tenants from any thread)."""
        with self._lock:
            simulator = self._running.get(config)
            if simulator is None:
                simulator = Simulator(config)
                future = asyncio.run_coroutine_threadsafe(simulator.start(), self._loop)
                future.result(START_TIMEOUT)
                self._running[config] = simulator
            return simulator

    def close(self) -> None:
        """Stop every simulator, then the loop and its thread."""
        stops = [simulator.stop() for simulator in self._running.values()]
        self._running.clear()

        async def stop_all() -> None:
            await asyncio.gather(*stops)

        asyncio.run_coroutine_threadsafe(stop_all(), self._loop).result(START_TIMEOUT)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(START_TIMEOUT)
        self._loop.close()
