"""Slots of requests in flight: a client's own cap, and a ceiling several clients share.

`InFlightSlots` is a first-come, first-served count the sender takes without a coroutine when
one is free; `SharedSlots` takes a client's own slot together with one of a ceiling shared with
other clients (a `ConnectionPool`'s), so requests queue in the gate, never inside aiohttp's pool.
"""

from __future__ import annotations

import asyncio
from collections import deque
from contextlib import suppress


class InFlightSlots:
    """A first-come, first-served count of slots that costs no coroutine when one is free.

    The sender takes a slot with `take()` and only awaits `wait()` when none is free, so the
    common case is a counter decrement; `async with slots:` does both for other callers. A
    freed slot passes straight to the longest waiter, so later arrivals cannot jump the queue.
    """

    def __init__(self, count: int) -> None:
        self._free = count
        self._waiters: deque[asyncio.Future[None]] = deque()

    def __repr__(self) -> str:
        return f"<InFlightSlots free={self._free} waiting={len(self._waiters)}>"

    def take(self) -> bool:
        """Take a free slot now if there is one nobody is queued for; True when taken."""
        if self._free and not self._waiters:
            self._free -= 1
            return True
        return False

    async def wait(self) -> None:
        """Queue for a slot (after `take()` failed); the slot is held on return."""
        waiter = asyncio.get_running_loop().create_future()
        self._waiters.append(waiter)
        try:
            await waiter
        except asyncio.CancelledError:
            if waiter.done() and not waiter.cancelled():
                self.give_back()  # handed a slot just as we were cancelled: pass it on
            else:
                with suppress(ValueError):
                    self._waiters.remove(waiter)
            raise

    def give_back(self) -> None:
        """Free a held slot: to the longest waiter still waiting, else back to the count."""
        while self._waiters:
            waiter = self._waiters.popleft()
            if not waiter.done():
                waiter.set_result(None)
                return
        self._free += 1

    async def __aenter__(self) -> None:
        if not self.take():
            await self.wait()

    async def __aexit__(self, *exc_info: object) -> None:
        self.give_back()


class SharedSlots:
    """A client's own in-flight slots taken together with a ceiling it shares with other
    clients (its `ConnectionPool`'s): the own slot first, then the shared one, so a client at
    its own cap never holds a shared slot it cannot use. Given back together."""

    def __init__(self, own: InFlightSlots, shared: InFlightSlots) -> None:
        self.own = own
        self.shared = shared

    def __repr__(self) -> str:
        return f"<SharedSlots own={self.own!r} shared={self.shared!r}>"

    def take(self) -> bool:
        """Take both slots now if both are free; True when taken."""
        if not self.own.take():
            return False
        if self.shared.take():
            return True
        self.own.give_back()
        return False

    async def wait(self) -> None:
        """Queue for both slots (after `take()` failed); both are held on return."""
        if not self.own.take():
            await self.own.wait()
        try:
            if not self.shared.take():
                await self.shared.wait()
        except BaseException:
            self.own.give_back()
            raise

    def give_back(self) -> None:
        """Free both slots."""
        self.shared.give_back()
        self.own.give_back()
