"""Decides, reproducibly, which fault (if any) hits each request (`FaultInjector`), and
counts what each fault did (`FaultCounts`).

Every request of a route gets the next number in that route's sequence; each configured fault
by `rate` that applies rolls `draw(seed, route, n, fault position) < rate`. A certain fault
(`nth`, `every`, `first`) counts the requests it applies to, all its routes together, and hits
the ones it names. Latency adds to whatever else happens; of the other faults, the first in
configuration order that fires wins. A retried request is a new request, so it rolls (and
counts) again: faults never change the data or the page sequence.
"""

from __future__ import annotations

from collections import defaultdict
from email.utils import formatdate
from typing import Final

import attrs

from ._prng import draw, name_key, seed_key, unit
from ._responses import ERROR_CODES, ApiError
from ._run_config import FaultKind, FaultSpec

REPLACING: Final = frozenset(
    {
        FaultKind.HTTP_500,
        FaultKind.HTTP_502,
        FaultKind.HTTP_503,
        FaultKind.HTTP_504,
        FaultKind.HTTP_429,
        FaultKind.RESET,
        FaultKind.CURSOR_EXPIRED,
    }
)
"""Faults that answer instead of the handler; the others reshape the handler's answer."""


@attrs.frozen
class FaultDecision:
    """The faults one request gets: an optional delay and at most one other fault."""

    delay: float = 0.0
    """Seconds to wait before answering (latency faults)."""
    latency: FaultSpec | None = None
    fault: FaultSpec | None = None

    @property
    def replacing(self) -> FaultSpec | None:
        """The fault that answers instead of the handler, if any."""
        return self.fault if self.fault is not None and self.fault.kind in REPLACING else None

    @property
    def shaping(self) -> FaultSpec | None:
        """The fault that reshapes the handler's answer on the wire, if any."""
        return self.fault if self.fault is not None and self.fault.kind not in REPLACING else None


NO_FAULT: Final = FaultDecision()


@attrs.frozen
class FaultCounts:
    """What one configured fault did in a run (`Simulator.fault_counts`): the requests it could
    hit, and how many it hit.

    A fault with `hits == 0` was never seen by the client: a test that configured it proved
    nothing about it (a `rate` too small for the run, a route never requested, or an earlier
    fault answering the same requests).
    """

    fault: FaultSpec
    """The fault, as configured."""
    requests: int = 0
    """The requests it applied to (of its routes, after auth and rate limits; for
    `cursor-expired`, those carrying a cursor): what `nth`, `every` and `first` count."""
    hits: int = 0
    """The requests it hit: answered or reshaped (or delayed, for latency). A request that an
    earlier fault answered instead is not one of them."""

    def __str__(self) -> str:
        return f"{self.fault} hit {self.hits} of the {self.requests} requests it applied to"


class FaultInjector:
    """Rolls the configured faults for each request, deterministically from the seed, and
    counts what each did."""

    def __init__(self, faults: tuple[FaultSpec, ...], seed: int) -> None:
        self._faults = faults
        self._key = seed_key(seed, "faults")
        self._sequence: defaultdict[str, int] = defaultdict(int)
        self._requests = [0] * len(faults)
        """Per fault, in order: the requests it applied to (a certain fault's count)."""
        self._hits = [0] * len(faults)

    def __repr__(self) -> str:
        return f"FaultInjector(faults={len(self._faults)}, rolled={sum(self._sequence.values())})"

    def roll(self, route: str, *, has_cursor: bool) -> FaultDecision:
        """The faults for the next request of `route` (cursor expiry needs a cursor)."""
        if not self._faults:
            return NO_FAULT
        number = self._sequence[route]
        self._sequence[route] = number + 1
        request_key = draw(self._key ^ name_key(route), number)
        delay = 0.0
        latency: FaultSpec | None = None
        chosen: FaultSpec | None = None
        for position, spec in enumerate(self._faults):
            if not spec.applies_to(route):
                continue
            if spec.kind is FaultKind.CURSOR_EXPIRED and not has_cursor:
                continue
            self._requests[position] += 1
            if spec.rate is None:
                if not spec.hits(self._requests[position]):
                    continue
            elif unit(draw(request_key, 2 * position)) >= spec.rate:
                continue
            if spec.kind is FaultKind.LATENCY:
                if latency is None:
                    jitter = unit(draw(request_key, 2 * position + 1)) * spec.jitter_ms
                    delay, latency = (spec.latency_ms + jitter) / 1000, spec
                    self._hits[position] += 1
            elif chosen is None:
                chosen = spec
                self._hits[position] += 1
        if latency is None and chosen is None:
            return NO_FAULT
        return FaultDecision(delay=delay, latency=latency, fault=chosen)

    def counts(self) -> tuple[FaultCounts, ...]:
        """What each configured fault did so far, in configuration order."""
        return tuple(
            FaultCounts(spec, requests, hits)
            for spec, requests, hits in zip(self._faults, self._requests, self._hits, strict=True)
        )


INTERNAL_ERROR_MESSAGE: Final = "Internal server error."
"""The published message of a 500."""


def replacing_error(spec: FaultSpec, now: float) -> ApiError:
    """The error answer of a replacing fault (not RESET, which sends nothing)."""
    if spec.kind is FaultKind.HTTP_429:
        if spec.retry_after_format == "http-date":
            retry_after = formatdate(now + spec.retry_after, usegmt=True)
        else:
            retry_after = str(spec.retry_after)
        return ApiError(
            429, "rate_limited", "too many requests; retry later", {"Retry-After": retry_after}
        )
    if spec.kind is FaultKind.CURSOR_EXPIRED:
        return ApiError(
            410, "cursor_expired", "the cursor has expired; restart the listing from the beginning"
        )
    status = int(spec.kind.value.removeprefix("http-"))
    message = INTERNAL_ERROR_MESSAGE if status == 500 else f"simulated {status} fault"
    return ApiError(status, ERROR_CODES[status], message)
