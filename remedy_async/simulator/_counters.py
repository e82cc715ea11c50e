"""Counts what the simulator saw and did, so tests can assert on it: per route, status and
fault, and per tenant (its requests, their arrival times, and its 429s)."""

from __future__ import annotations

from array import array
from collections import Counter
from collections.abc import Iterable, Mapping

import attrs


@attrs.frozen
class TenantCounts:
    """What one tenant's token was used for (`SimulatorCounters.tenants`)."""

    requests: int = 0
    """Requests that carried its token (health aside), refused ones included."""
    rate_limited: int = 0
    """Of those, the ones answered 429 by its own rate limit (`tenant_rate_limit`)."""


@attrs.frozen
class SimulatorCounters:
    """A snapshot of a simulator's counters, `sim.counters` (take a new one to see later
    requests; `sim.reset_counters()` zeroes them)."""

    requests: Mapping[str, int] = attrs.field(factory=dict)
    """Requests by route name (`list:endpoints`, ..., `unmatched` for paths not served)."""
    responses: Mapping[int, int] = attrs.field(factory=dict)
    """Responses by HTTP status."""
    faults: Mapping[str, int] = attrs.field(factory=dict)
    """Injected faults by kind (`http-503`, ...)."""
    faults_by_route: Mapping[str, Mapping[str, int]] = attrs.field(factory=dict)
    """Injected faults by route, then kind."""
    in_flight: int = 0
    """Requests being handled now."""
    max_in_flight: int = 0
    """The most requests handled at once since the last reset."""
    tenants: Mapping[str, TenantCounts] = attrs.field(factory=dict)
    """Each tenant's counts, by name, every tenant listed; empty for a run of one organisation
    (`tenants=0`)."""

    @property
    def total_requests(self) -> int:
        """Requests seen on every route."""
        return sum(self.requests.values())

    @property
    def total_faults(self) -> int:
        """Faults injected, of every kind."""
        return sum(self.faults.values())


class CounterState:
    """The live, mutable counters behind the snapshots; `tenants` names the tenants counted."""

    def __init__(self, tenants: Iterable[str] = ()) -> None:
        self.requests: Counter[str] = Counter()
        self.responses: Counter[int] = Counter()
        self.faults: Counter[str] = Counter()
        self.faults_by_route: dict[str, Counter[str]] = {}
        self.in_flight = 0
        self.max_in_flight = 0
        self.arrivals: dict[str, array[float]] = {name: array("d") for name in tenants}
        """Each tenant's requests, by arrival time (its request count is their number)."""
        self.rate_limited: dict[str, int] = dict.fromkeys(self.arrivals, 0)

    def __repr__(self) -> str:
        return (
            f"CounterState(requests={sum(self.requests.values())}, in_flight={self.in_flight}, "
            f"max_in_flight={self.max_in_flight})"
        )

    def begin(self, route: str) -> None:
        """A request of `route` arrived."""
        self.requests[route] += 1
        self.in_flight += 1
        self.max_in_flight = max(self.max_in_flight, self.in_flight)

    def end(self, status: int | None) -> None:
        """A request is done (`status` None when no response was sent)."""
        self.in_flight -= 1
        if status is not None:
            self.responses[status] += 1

    def fault(self, route: str, kind: str) -> None:
        """A fault of `kind` hit a request of `route`."""
        self.faults[kind] += 1
        self.faults_by_route.setdefault(route, Counter())[kind] += 1

    def arrived(self, tenant: str, at: float) -> None:
        """A request with `tenant`'s token arrived at `at`."""
        self.arrivals[tenant].append(at)

    def limited(self, tenant: str) -> None:
        """`tenant`'s own rate limit refused a request."""
        self.rate_limited[tenant] += 1

    def reset(self) -> None:
        """Zero everything but the requests in flight, which are still running."""
        self.requests.clear()
        self.responses.clear()
        self.faults.clear()
        self.faults_by_route.clear()
        self.max_in_flight = self.in_flight
        for name, times in self.arrivals.items():
            del times[:]
            self.rate_limited[name] = 0

    def snapshot(self) -> SimulatorCounters:
        """A frozen copy."""
        return SimulatorCounters(
            requests=dict(self.requests),
            responses=dict(self.responses),
            faults=dict(self.faults),
            faults_by_route={route: dict(kinds) for route, kinds in self.faults_by_route.items()},
            in_flight=self.in_flight,
            max_in_flight=self.max_in_flight,
            tenants={
                name: TenantCounts(len(times), self.rate_limited[name])
                for name, times in self.arrivals.items()
            },
        )
