"""One gate per client: caps requests in flight and pauses every task when the service says so.

A 429 with a wait hint, or `X-RateLimit-Remaining: 0` with `X-RateLimit-Reset`, pauses all of
the client's requests until then, so concurrent workers do not each rediscover the limit.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Mapping

from ._response import retry_after_seconds

EPOCH_THRESHOLD = 1_000_000_000
"""An `X-RateLimit-Reset` at or above this is a Unix time; below it, seconds from now."""


def reset_delay(headers: Mapping[str, str], *, now: float | None = None) -> float | None:
    """Seconds until the rate-limit window resets, when the response says none remain."""
    if headers.get("X-RateLimit-Remaining", "").strip() != "0":
        return None
    try:
        reset = float(headers.get("X-RateLimit-Reset", ""))
    except ValueError:
        return None
    if not reset >= 0 or reset == float("inf"):
        return None
    if reset >= EPOCH_THRESHOLD:
        return max(0.0, reset - (time.time() if now is None else now))
    return reset


class RequestGate:
    """Admits a client's requests: at most `max_in_flight` at once, none during a pause."""

    def __init__(self, max_in_flight: int, clock: Callable[[], float]) -> None:
        self.max_in_flight = max_in_flight
        self._slots = asyncio.Semaphore(max_in_flight)
        self._clock = clock
        self._resume_at = 0.0

    def __repr__(self) -> str:
        return f"<RequestGate max_in_flight={self.max_in_flight} pause={self.pause_left():.2f}s>"

    def pause_left(self) -> float:
        """Seconds until requests may go out again (0 when there is no pause)."""
        return max(0.0, self._resume_at - self._clock())

    def pause_for(self, seconds: float) -> None:
        """Hold every request of the client for `seconds` from now (a longer pause wins)."""
        self._resume_at = max(self._resume_at, self._clock() + seconds)

    def observe(self, status: int, headers: Mapping[str, str]) -> float | None:
        """Pause as a response asks (429 hint, or no requests remaining); return the pause."""
        pause = retry_after_seconds(headers) if status == 429 else None
        if pause is None:
            pause = reset_delay(headers)
        if pause:
            self.pause_for(pause)
        return pause

    @property
    def slot(self) -> asyncio.Semaphore:
        """One of the in-flight slots, to hold for the duration of a request (`async with`)."""
        return self._slots
