"""The client's own request-rate budget: at most N requests in any window of T seconds, counted
where the service counts them, as they reach it.

`RateLimit` is the public value; `RequestBudget` keeps it in two steps, each booking times no
closer than the limit allows: not before the window after the time `requests` places earlier (a
sliding window), nor, with a `burst` below `requests`, before the burst window after the time
`burst` places earlier. Up front, each attempt books its turn, in the order requests ask, so
every task of the client shares one queue and the long waits happen before a connection is
taken. Then at the wire: the request the transport is given carries its turn
(`Request.turn`, the sender's `_at_wire`); once the transport has its connection in hand
(opened, TLS done, a proxy's tunnel up), it awaits the turn, which books the time the request
goes out (every redirect hop and every resend too) and waits for it. So a request that waited
for a new connection cannot reach the service together with later ones that found a warm one.
A transport that does not take turns has the sender take each one just before calling it.
Each window is kept `margin` wider than asked (5% of it, at most 0.1 s), for what the client
cannot see: a request woken a little late, and the time from its bytes leaving to the service
counting it, which varies with the network. Bookkeeping on the client's clock; the sender waits
(on its injected sleep).

One `RateLimit` value is one budget: every client given the same instance books into the same
`RequestBudget` (`shared_budget`), one per event loop (a budget is not thread-safe, and each
loop runs in one thread) and per clock (its times are on one). Equal values made apart, or
text such as `"10/s"`, are budgets of their own; a pickled or copied value is a new one.
"""

from __future__ import annotations

import asyncio
import math
import re
import weakref
from collections import deque
from collections.abc import Callable
from typing import Any

from attrs import field, frozen

from remedy_async._redact import shown_value

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

MARGIN_SHARE = 0.05
"""How much wider than asked a window is kept, as a share of it (see `margin`)."""
MARGIN_CAP = 0.1
"""The widest margin, in seconds."""


def margin(window: float) -> float:
    """Seconds added to a window of `window` seconds: 5% of it, at most 0.1 s.

    What the client cannot see varies by about that much: when a request it let go reaches
    the service (the network's jitter; the service's own reading), so a window counted at the
    service may be that much narrower than the same window at the client. Under `10/s` it costs
    under 5% of the throughput; under `600/min`, under 0.2%."""
    return min(window * MARGIN_SHARE, MARGIN_CAP)


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

    One value is one budget: clients given the same `RateLimit` instance (in one event loop)
    share it, so together they stay within it, as the clients derived with `with_options` do.
    Two values made apart, even equal ones, or the same text (`rate_limit="10/s"`) given to
    two clients, are two budgets.
    """

    requests: int = field(validator=_count)
    """How many requests any window of `per` seconds may hold."""
    per: float = field(default=1.0, validator=_positive_seconds)
    """The window, in seconds."""
    burst: int | None = field(default=None, validator=_optional_count)
    """How many may go at once: at most `burst` in any `burst x per / requests` seconds (None: up to
    `requests` at once; 1: evenly spaced)."""
    _budgets: weakref.WeakKeyDictionary[Any, dict[Any, RequestBudget]] = field(
        init=False, factory=weakref.WeakKeyDictionary, eq=False, hash=False, repr=False
    )
    """The budget every client given this value books into, by event loop and clock."""

    def __attrs_post_init__(self) -> None:
        object.__setattr__(self, "per", float(self.per))
        if self.burst is not None and self.burst > self.requests:
            raise ValueError(
                f"RateLimit.burst ({self.burst}) must not exceed requests ({self.requests})"
            )

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickle the rate alone: a value loaded elsewhere is a budget of its own."""
        return RateLimit, (self.requests, self.per, self.burst)

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
                "a rate is N/s, N/min, N/h or N/Xs (N requests per X seconds), "
                f"got {shown_value(text)}"
            )
        count = float(match[2]) if match[2] else 1.0
        return cls(int(match[1]), per=count * unit)


class SendTimes:
    """Times booked under a RateLimit, at most `requests` of them in any `per` seconds (and
    `burst` in any burst window), each window `margin` wider: the earliest next one, and
    booking it."""

    def __init__(self, limit: RateLimit) -> None:
        self._window = limit.per + margin(limit.per)
        self._times: deque[float] = deque(maxlen=limit.requests)
        burst = limit.burst
        if burst is None or burst == limit.requests:
            self._bursts: deque[float] | None = None
            self._burst_window = 0.0
        else:
            self._bursts = deque(maxlen=burst)
            burst_window = burst * limit.per / limit.requests
            self._burst_window = burst_window + margin(burst_window)

    def __len__(self) -> int:
        return len(self._times)

    def next_at(self, now: float) -> float:
        """The earliest time one more may be booked, on the client's clock (`now` or later)."""
        at = now
        times = self._times
        if len(times) == times.maxlen:
            at = max(at, times[0] + self._window)
        bursts = self._bursts
        if bursts is not None and len(bursts) == bursts.maxlen:
            at = max(at, bursts[0] + self._burst_window)
        return at

    def book(self, now: float) -> float:
        """Book the next time (see `next_at`) and return it."""
        at = self.next_at(now)
        self._times.append(at)
        if self._bursts is not None:
            self._bursts.append(at)
        return at


class RequestBudget:
    """Keeps a RateLimit: `turns` books each attempt's turn up front, in the order requests
    ask; `wire` books the time each request goes out, its connection in hand (not
    thread-safe)."""

    def __init__(self, limit: RateLimit) -> None:
        self.limit = limit
        self.turns = SendTimes(limit)
        self.wire = SendTimes(limit)

    def __repr__(self) -> str:
        return f"<RequestBudget {self.limit} booked={len(self.turns)} sent={len(self.wire)}>"


def shared_budget(limit: RateLimit, clock: Callable[[], float]) -> RequestBudget:
    """The budget every client given `limit` books into in the running event loop, its times
    on `clock`. Outside an event loop (where nothing is sent) a budget of its own."""
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        return RequestBudget(limit)
    by_clock = limit._budgets.get(loop)
    if by_clock is None:
        by_clock = limit._budgets[loop] = {}
    budget = by_clock.get(clock)
    if budget is None:
        budget = by_clock[clock] = RequestBudget(limit)
    return budget
