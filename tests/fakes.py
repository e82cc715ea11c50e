"""Injected time for tests: a clock that only the fake sleep moves, recording every wait."""

from __future__ import annotations

import asyncio
import heapq
import itertools
from collections.abc import Callable
from typing import Any


class FakeTime:
    """A monotonic clock moved only by `sleep`, which returns at once and records the wait."""

    def __init__(self, start: float = 1000.0) -> None:
        self.now = start
        self.waits: list[float] = []

    def clock(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.waits.append(seconds)
        self.now += seconds
        await asyncio.sleep(0)


class VirtualTime:
    """A clock shared by concurrent tasks, moved only by `sleep`: each sleeper wakes at its own
    virtual time, in order, and time moves on only while nothing else can run and `busy()`
    says no request is in flight (so a server stamping arrivals with `clock` sees each request
    at the virtual time it was let go). Records every wait, as FakeTime does.
    """

    SETTLE_ROUNDS = 10
    """Event-loop rounds without work before time moves on."""

    def __init__(self, start: float = 1000.0, busy: Callable[[], bool] = lambda: False) -> None:
        self.now = start
        self.waits: list[float] = []
        self.busy = busy
        self._sleepers: list[tuple[float, int, asyncio.Future[None]]] = []
        self._order = itertools.count()
        self._driver: asyncio.Task[None] | None = None

    def clock(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.waits.append(seconds)
        if seconds <= 0:
            await asyncio.sleep(0)
            return
        woken = asyncio.get_running_loop().create_future()
        heapq.heappush(self._sleepers, (self.now + seconds, next(self._order), woken))
        if self._driver is None or self._driver.done():
            self._driver = asyncio.create_task(self._drive(), name="virtual-time")
        await woken

    async def _drive(self) -> None:
        while self._sleepers:
            quiet = 0
            while quiet < self.SETTLE_ROUNDS:
                await asyncio.sleep(0)
                quiet = 0 if self.busy() else quiet + 1
            wake_at, _, woken = heapq.heappop(self._sleepers)
            if not woken.done():
                self.now = max(self.now, wake_at)
                woken.set_result(None)


class InFlight:
    """An event hook counting the client's requests between their request event and their
    response (or failure): the `busy` of a VirtualTime."""

    def __init__(self) -> None:
        self.count = 0

    def __call__(self, event: Any) -> None:
        if event.kind == "request":
            self.count += 1
        elif event.kind in ("response", "error"):
            self.count -= 1

    def busy(self) -> bool:
        return self.count > 0
