"""Counts what each job of a command has done: records, pages, retries, time.

The client reports every retry to its event hooks; `Meters.on_event` credits the retry to the
job whose route (collection and list or get) the request went to. The progress display and the
closing summaries read the same meters.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import Literal

from yarl import URL

from remedy_async import RESOURCES, ClientEvent

Operation = Literal["list", "get"]
Route = tuple[str, Operation]
"""A collection's path segment and the operation, e.g. ("scopes", "list")."""

_SEGMENTS = frozenset(resource.segment for resource in RESOURCES)


def route_of(url: str) -> Route | None:
    """Return the route a request URL belongs to, or None for health and downloads.

    `/v1/<collection>` is a list request and `/v1/<collection>/<id>` a get, whatever path
    prefix the base URL has.
    """
    parts = [part for part in URL(url).path.split("/") if part]
    for index in range(len(parts) - 1):
        if parts[index] == "v1" and parts[index + 1] in _SEGMENTS:
            operation: Operation = "get" if len(parts) > index + 2 else "list"
            return parts[index + 1], operation
    return None


class Meter:
    """One job's running totals; `total` is the number of records expected, when known."""

    def __init__(
        self,
        name: str,
        *,
        total: int | None = None,
        done: int = 0,
        clock: Callable[[], float] = time.perf_counter,
    ) -> None:
        self.name = name
        self.total = total
        self.records = done
        self.pages = 0
        self.retries = 0
        self.errors = 0
        self.failed = False
        self._resumed_at = done
        self._clock = clock
        self._started = clock()
        self._ended: float | None = None

    def __repr__(self) -> str:
        return (
            f"<Meter {self.name} records={self.records} pages={self.pages} "
            f"retries={self.retries} errors={self.errors}>"
        )

    def add(self, records: int, *, pages: int = 1, total: int | None = None) -> None:
        """Count records (and pages) that arrived; `total` is the list's size as a page
        announced it (`Page.total`), which progress shows as a share and an ETA. None keeps
        what is known."""
        self.records += records
        self.pages += pages
        if total is not None:
            self.total = total

    def finish(self, *, failed: bool = False) -> None:
        """Stop the clock; `failed` marks a job that ended with an error."""
        if self._ended is None:
            self._ended = self._clock()
        self.failed = self.failed or failed

    @property
    def finished(self) -> bool:
        """Whether the job has ended, well or not."""
        return self._ended is not None

    @property
    def seconds(self) -> float:
        """Seconds the job has run (until it finished)."""
        end = self._ended if self._ended is not None else self._clock()
        return end - self._started

    @property
    def rate(self) -> float:
        """Records per second this run fetched (records resumed from a checkpoint excluded)."""
        seconds = self.seconds
        return (self.records - self._resumed_at) / seconds if seconds > 0 else 0.0


class Meters:
    """The meters of one command, in the order they were added, fed by client events."""

    def __init__(self, clock: Callable[[], float] = time.perf_counter) -> None:
        self._clock = clock
        self._meters: list[Meter] = []
        self._routes: dict[Route, Meter] = {}
        self.unrouted_retries = 0

    def __iter__(self) -> Iterator[Meter]:
        return iter(self._meters)

    def __len__(self) -> int:
        return len(self._meters)

    def add(
        self, name: str, route: Route | None, *, total: int | None = None, done: int = 0
    ) -> Meter:
        """Start a meter for a job; retries of requests on `route` are counted on it."""
        meter = Meter(name, total=total, done=done, clock=self._clock)
        self._meters.append(meter)
        if route is not None:
            self._routes[route] = meter
        return meter

    def on_event(self, event: ClientEvent) -> None:
        """Count a retry on the meter of its route; an event hook for RemedyClient."""
        if event.kind != "retry":
            return
        route = route_of(event.url)
        meter = self._routes.get(route) if route is not None else None
        if meter is None:
            self.unrouted_retries += 1
        else:
            meter.retries += 1
