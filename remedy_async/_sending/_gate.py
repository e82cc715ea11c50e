"""One gate per client: caps requests in flight, paces them under the client's own rate limit
(`_budget`), and pauses every task when the service says so. Clients derived from a client
(`with_options`) share its gate.

When a response asks for a pause, all of the client's requests wait until then, so concurrent
workers do not each rediscover the limit. The service's rate-limit signals are read here too, by
pure functions: a 429 with a wait hint (`Retry-After`, `retry-after-ms`), or
`X-RateLimit-Remaining: 0` with `X-RateLimit-Reset` (a Unix time or seconds from now).
"""

from __future__ import annotations

import asyncio
import math
import time
from collections.abc import Callable, Mapping

from ._budget import RateLimit, RequestBudget, shared_budget
from ._retry import retry_after_seconds
from ._slots import InFlightSlots, SharedSlots

EPOCH_THRESHOLD = 1_000_000_000
"""An `X-RateLimit-Reset` at or above this is a Unix time; below it, seconds from now."""


def reset_delay(
    headers: Mapping[str, str], *, now: float | None = None, wall: Callable[[], float] = time.time
) -> float | None:
    """Seconds until the rate-limit window resets, when the response says none remain (a Unix
    time counts from `now`, else from what `wall` says is the Unix time)."""
    remaining = headers.get("X-RateLimit-Remaining")  # absent: the common answer, asks nothing
    if remaining is None or remaining.strip() != "0":
        return None
    try:
        reset = float(headers.get("X-RateLimit-Reset", ""))
    except ValueError:
        return None
    if not reset >= 0 or reset == float("inf"):
        return None
    if reset >= EPOCH_THRESHOLD:
        return max(0.0, reset - (wall() if now is None else now))
    return reset


def pause_asked(
    status: int, headers: Mapping[str, str], wall: Callable[[], float] = time.time
) -> float | None:
    """Seconds a response asks the whole client to wait (429 hint, or no budget left); `wall`
    tells the Unix time, for a hint given as a date."""
    if status != 429:
        return reset_delay(headers, wall=wall)
    pause = retry_after_seconds(headers, wall=wall)
    return reset_delay(headers, wall=wall) if pause is None else pause


def _running_loop() -> object:
    """The running event loop, or None outside one."""
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None


def wall_clock_of(clock: Callable[[], float]) -> Callable[[], float]:
    """The Unix time as `clock` tells it: the real one beside the real monotonic clock; beside
    an injected clock, the real time when first asked, moved on by `clock` alone (so a test's
    fake clock and a simulator on it agree on the dates of Retry-After and X-RateLimit-Reset)."""
    if clock is time.monotonic:
        return time.time
    offset = time.time() - clock()
    return lambda: offset + clock()


class RequestGate:
    """Admits a client's requests: at most `max_in_flight` at once (and a slot of a ceiling
    `shared` with other clients, if any), none during a pause, and no faster than its `limit`
    (the client's rate limit, if any: a budget it shares with every client given the same
    value) allows. `wall` tells the Unix time, for the service's hints given as dates."""

    def __init__(
        self,
        max_in_flight: int,
        clock: Callable[[], float],
        max_pause: float = math.inf,
        limit: RateLimit | None = None,
        wall: Callable[[], float] = time.time,
        shared: InFlightSlots | None = None,
    ) -> None:
        self.max_in_flight = max_in_flight
        self.limit = limit
        """The client's rate limit (None: none)."""
        self._budget: RequestBudget | None = None
        self._budget_loop: object = None
        self.max_pause = max_pause
        """The longest pause one response can impose on everyone (an absurd hint is capped)."""
        own = InFlightSlots(max_in_flight)
        self.slots: InFlightSlots | SharedSlots = (
            own if shared is None else SharedSlots(own, shared)
        )
        """What each request in flight holds: one of the client's own slots, and one of the
        ceiling it shares with other clients (`shared`: a `ConnectionPool`'s), if any."""
        self.resume_at = 0.0
        """When requests may go out again, on the gate's clock (in the past when not paused)."""
        self._clock = clock
        self.wall = wall

    @property
    def budget(self) -> RequestBudget | None:
        """What the rate limit books into in the running event loop: the budget of every
        client given the same `RateLimit` there (None without a limit)."""
        limit = self.limit
        if limit is None:
            return None
        loop = _running_loop()
        if self._budget is None or loop is not self._budget_loop:
            self._budget = shared_budget(limit, self._clock)
            self._budget_loop = loop
        return self._budget

    def __repr__(self) -> str:
        budget = "" if self.limit is None else f" rate_limit={self.limit}"
        return (
            f"<RequestGate max_in_flight={self.max_in_flight}{budget} "
            f"pause={self.pause_left():.2f}s>"
        )

    def pause_left(self) -> float:
        """Seconds until requests may go out again (0 when there is no pause)."""
        return max(0.0, self.resume_at - self._clock())

    def pause_for(self, seconds: float) -> None:
        """Hold every request of the client for `seconds` from now (a longer pause wins).

        Capped at `max_pause`, so one absurd hint (a Retry-After of a year) cannot stop the
        client for longer than its retry policy would ever wait.
        """
        seconds = min(seconds, self.max_pause)
        self.resume_at = max(self.resume_at, self._clock() + seconds)

    def observe(self, status: int, headers: Mapping[str, str]) -> float | None:
        """Pause as a response asks (429 hint, or no requests remaining); return the pause."""
        pause = pause_asked(status, headers, self.wall)
        if pause:
            pause = min(pause, self.max_pause)
            self.pause_for(pause)
        return pause
