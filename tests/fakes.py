"""Fakes for tests: injected time (a clock that only the fake sleep moves, recording every wait)
and records in the shape the service publishes."""

from __future__ import annotations

import asyncio
import heapq
import itertools
import json
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


ENDPOINT_ID = "6f1c2b9e-3d4a-4e5f-8a7b-1c2d3e4f5a6b"
"""A published-format (UUID) endpoint id."""
SCOPE_ID = "0b7e8d6c-5a4f-4e3d-9c2b-1a0f9e8d7c6b"
"""A published-format (UUID) scope id."""


def endpoint_record(id: str = ENDPOINT_ID, **fields: Any) -> dict[str, Any]:
    """A published Endpoint as the service sends it (snake_case, every required field, the
    nullable ones null), with `fields` replacing or adding keys."""
    return {
        "id": id,
        "hostname": "web-1",
        "ip": "10.0.0.1",
        "mac_address": None,
        "operating_system": {"name": "Ubuntu", "family": "linux", "version": "24.04"},
        "agent_id": None,
        "agent_version": None,
        "created_at": "2026-01-02T03:04:05Z",
        "updated_at": "2026-11-01T10:00:00Z",
    } | fields


def endpoint_body(id: str = ENDPOINT_ID, **fields: Any) -> bytes:
    """`endpoint_record(...)` as a JSON response body."""
    return json.dumps(endpoint_record(id, **fields)).encode()


def scope_record(id: str = SCOPE_ID, **fields: Any) -> dict[str, Any]:
    """A published Scope as the service sends it (its three filters empty: match everything),
    with `fields` replacing or adding keys."""
    return {
        "id": id,
        "name": "Critical patches",
        "description": None,
        "status": "active",
        "subject_filter": {},
        "endpoint_filter": {},
        "finding_filter": {},
    } | fields


def page(
    records: list[dict[str, Any]], total: int | None = None, offset: int = 0, limit: int = 100
) -> dict[str, Any]:
    """A list page in the published envelope: `data`, `total`, `limit`, `offset`."""
    return {
        "data": records,
        "total": len(records) if total is None else total,
        "limit": limit,
        "offset": offset,
    }
