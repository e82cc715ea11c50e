"""The client's own request-rate budget: at most N requests in any window of T seconds.

`RateLimit` is the public value; `RequestBudget` books send times for it. Each request reserves
the earliest time it may go: not before `per` seconds after the request `requests` places
before it (a sliding window over the send times), nor, with a `burst` below `requests`, before
`burst x per / requests` seconds after the request `burst` places before it. Reservations are
made in the order requests ask, so every task of the client shares one queue and no task can
jump it. Pure bookkeeping on the client's clock: the sender waits (on its injected sleep).
"""

from __future__ import annotations

import math
import re
from collections import deque

from attrs import field, frozen

UNITS = {
    "s": 1.0,
    "sec": 1.0,
    "second": 1.0,
    "m": 60.0,
    "min": 60.0,
    "minute": 60.0,
    "h": 3600.0,
    "hour": 3600.0,
}
"""The time units `RateLimit.parse` reads, in seconds."""

_RATE = re.compile(
    r"\s*(\d+)\s*/\s*(\d+(?:\.\d*)?(?:e[-+]?\d+)?)?\s*"
    r"(s|secs?|seconds?|m|mins?|minutes?|h|hours?)\s*"
)
_SUFFIX = {1.0: "s", 60.0: "min", 3600.0: "h"}


def _count(_: object, attribute: object, value: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        name = getattr(attribute, "name", "value")
        raise ValueError(f"RateLimit.{name} must be an int >= 1, got {value!r}")


def _optional_count(instance: object, attribute: object, value: int | None) -> None:
    if value is not None:
        _count(instance, attribute, value)


def _positive_seconds(_: object, __: object, value: float) -> None:
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value < math.inf:
        raise ValueError(
            f"RateLimit.per must be a positive finite number of seconds, not {value!r}"
        )


@frozen
class RateLimit:
    """A request-rate budget: at most `requests` requests in any window of `per` seconds.

    Shared by every task of the client (gets, get_many, lists and their parallel pages,
    downloads, retries included): requests beyond the budget wait their turn, first come first
    served. `RateLimit(10)` is 10 per second, `RateLimit(600, per=60, burst=10)` 600 a minute
    and never more than 10 in a second. The client remembers the send times of the
    last `requests` requests (a few bytes each).
    """

    requests: int = field(validator=_count)
    """How many requests any window of `per` seconds may hold."""
    per: float = field(default=1.0, validator=_positive_seconds)
    """The window, in seconds."""
    burst: int | None = field(default=None, validator=_optional_count)
    """How many may go at once: at most `burst` in any `burst x per / requests` seconds (None: up to
    `requests` at once; 1: evenly spaced)."""

    def __attrs_post_init__(self) -> None:
        object.__setattr__(self, "per", float(self.per))
        if self.burst is not None and self.burst > self.requests:
            raise ValueError(
                f"RateLimit.burst ({self.burst}) must not exceed requests ({self.requests})"
            )

    def __str__(self) -> str:
        text = f"{self.requests}/{_SUFFIX.get(self.per) or f'{self.per!r}s'}"
        return text if self.burst is None else f"{text} (burst {self.burst})"

    @classmethod
    def parse(cls, text: str) -> RateLimit:
        """Read a rate written `N/s`, `N/min`, `N/h` or `N/Xs` (N per X seconds).

        Args:
            text: The rate, such as `10/s`, `600/min` or `5/2.5s`; anything else raises
                ValueError saying what is expected.
        """
        match = _RATE.fullmatch(text.lower())
        unit = UNITS.get(match[3].rstrip("s") or "s") if match else None
        if match is None or unit is None:
            raise ValueError(
                f"a rate is N/s, N/min, N/h or N/Xs (N requests per X seconds), got {text!r}"
            )
        count = float(match[2]) if match[2] else 1.0
        return cls(int(match[1]), per=count * unit)


class RequestBudget:
    """Books send times under a RateLimit, in the order requests ask (not thread-safe)."""

    def __init__(self, limit: RateLimit) -> None:
        self.limit = limit
        self._window = limit.per
        self._sent: deque[float] = deque(maxlen=limit.requests)
        burst = limit.burst
        if burst is None or burst == limit.requests:
            self._bursts: deque[float] | None = None
            self._burst_window = 0.0
        else:
            self._bursts = deque(maxlen=burst)
            self._burst_window = burst * limit.per / limit.requests

    def __repr__(self) -> str:
        return f"<RequestBudget {self.limit} booked={len(self._sent)}>"

    def next_at(self, now: float) -> float:
        """The earliest time one more request may go, on the client's clock (`now` or later)."""
        at = now
        sent = self._sent
        if len(sent) == sent.maxlen:
            at = max(at, sent[0] + self._window)
        bursts = self._bursts
        if bursts is not None and len(bursts) == bursts.maxlen:
            at = max(at, bursts[0] + self._burst_window)
        return at

    def book(self, now: float) -> float:
        """Reserve the next send time (see `next_at`) and return it."""
        at = self.next_at(now)
        self._sent.append(at)
        if self._bursts is not None:
            self._bursts.append(at)
        return at
