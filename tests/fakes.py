"""Injected time for tests: a clock that only the fake sleep moves, recording every wait."""

from __future__ import annotations

import asyncio


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
