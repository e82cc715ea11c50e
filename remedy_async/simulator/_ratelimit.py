"""Rate limits and their decisions: a token bucket (`rate` requests per second on average,
bursts of up to `rate` requests: a run's `rate_limit`) and an exact sliding window (at most
`limit` requests admitted in any `window` seconds: each tenant's `tenant_rate_limit`)."""

from __future__ import annotations

import bisect
import math
from collections import deque
from collections.abc import Callable

import attrs


@attrs.frozen
class RateDecision:
    """Whether a request may pass, and the X-RateLimit-* / Retry-After values to send."""

    allowed: bool
    limit: float
    remaining: int
    reset: float
    """Unix time when the bucket is full again (whole seconds, rounded up), or, for a sliding
    window, when its oldest request leaves it, so one more may pass (to the millisecond: a
    client pausing on `X-RateLimit-Remaining: 0` then waits as long as it must, not up to a
    second more)."""
    retry_after: int
    """Seconds until the next request can pass (0 when this one passed)."""

    def headers(self) -> dict[str, str]:
        """The X-RateLimit-* headers, plus Retry-After when refused."""
        limit = int(self.limit) if self.limit == int(self.limit) else self.limit
        headers = {
            "X-RateLimit-Limit": str(limit),
            "X-RateLimit-Remaining": str(self.remaining),
            "X-RateLimit-Reset": str(self.reset if self.reset % 1 else int(self.reset)),
        }
        if not self.allowed:
            headers["Retry-After"] = str(self.retry_after)
        return headers


class TokenBucket:
    """Refills `rate` tokens per second up to `max(rate, 1)`; each request takes one.

    `clock` returns Unix time in seconds; tests pass a fake one so nothing really waits.
    """

    def __init__(self, rate: float, clock: Callable[[], float]) -> None:
        self._rate = rate
        self._capacity = max(rate, 1.0)
        self._clock = clock
        self._tokens = self._capacity
        self._updated = clock()

    def __repr__(self) -> str:
        return f"TokenBucket(rate={self._rate}, tokens={self._tokens:.2f})"

    def take(self) -> RateDecision:
        """Try to take a token now."""
        now = self._clock()
        elapsed = max(0.0, now - self._updated)
        self._tokens = min(self._capacity, self._tokens + elapsed * self._rate)
        self._updated = now
        allowed = self._tokens >= 1.0
        if allowed:
            self._tokens -= 1.0
        retry_after = 0 if allowed else max(1, math.ceil((1.0 - self._tokens) / self._rate))
        reset = math.ceil(now + (self._capacity - self._tokens) / self._rate)
        return RateDecision(
            allowed=allowed,
            limit=self._rate,
            remaining=math.floor(self._tokens),
            reset=reset,
            retry_after=retry_after,
        )


class SlidingWindow:
    """At most `limit` requests admitted in any `window` seconds, exactly: a request is admitted
    when fewer than `limit` admitted requests arrived in the `window` seconds before it (those
    at least `window` seconds old have left); a refused one is not counted. It keeps the arrival
    times of the admitted requests still in the window, at most `limit`.

    `clock` returns Unix time in seconds; tests pass a fake one so nothing really waits.
    """

    def __init__(self, limit: int, window: float, clock: Callable[[], float]) -> None:
        self._limit = limit
        self._window = window
        self._clock = clock
        self._admitted: deque[float] = deque()

    def __repr__(self) -> str:
        return (
            f"SlidingWindow(limit={self._limit}, window={self._window}, "
            f"admitted={len(self._admitted)})"
        )

    def take(self, at: float | None = None) -> RateDecision:
        """Admit a request arriving at `at` (default: now), or refuse it until the oldest
        admitted one leaves. Requests are decided in the order they are answered, which under
        load may differ a little from the order they arrived in: each is counted at its own
        arrival time all the same."""
        now = self._clock() if at is None else at
        admitted, window = self._admitted, self._window
        while admitted and admitted[0] + window <= now:
            admitted.popleft()
        held = sum(1 for time in admitted if time > now - window)
        allowed = held < self._limit
        if allowed:
            bisect.insort(admitted, now)
            held += 1
        retry_after = 0 if allowed else max(1, math.ceil(admitted[0] + window - now))
        return RateDecision(
            allowed=allowed,
            limit=self._limit,
            remaining=self._limit - held,
            reset=round(admitted[0] + window, 3),  # never empty: limit >= 1
            retry_after=retry_after,
        )
