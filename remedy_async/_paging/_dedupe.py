"""Decides which raw items of a fetched page go to the caller: new ones, up to the cap.

Repeats of the previous page's ids (a list shifting under offset paging) are skipped and counted,
so the pager can warn; nothing else is dropped.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from attrs import frozen


@frozen
class Delivery:
    """Which raw items of a page the caller gets, and the page position after each."""

    items: Sequence[Any]
    positions: Sequence[int]
    repeats: int
    stopped_early: bool
    all_objects: bool = False
    """True when every item is known to be a JSON object with an id (it was indexed by id)."""


class RecentIds:
    """Remembers the ids of the previous page, to catch items a page repeats.

    Bounded on purpose: remembering every id of a million-item export would cost more memory
    than the export itself; repeats come from pages shifting under the list, so they sit at
    page boundaries. A page without repeats is checked with one set comprehension; only a page
    that has some is walked item by item.
    """

    def __init__(self) -> None:
        self._previous: frozenset[object] | set[object] = frozenset()

    def deliver(self, items: Sequence[Any], skip: int, remaining: int | None) -> Delivery:
        """Cut a page's raw items to what is new and wanted, skipping repeated ids."""
        candidates = items[skip:] if skip else items
        stopped_early = remaining is not None and len(candidates) > remaining
        if stopped_early:
            candidates = candidates[:remaining]
        try:
            ids = {item["id"] for item in candidates}
        except (TypeError, KeyError, IndexError):
            ids = None
        if ids is not None and len(ids) == len(candidates) and ids.isdisjoint(self._previous):
            self._previous = ids
            positions = range(skip + 1, skip + len(candidates) + 1)
            return Delivery(candidates, positions, 0, stopped_early, all_objects=True)
        return self._deliver_each(items, skip, remaining)

    def _deliver_each(self, items: Sequence[Any], skip: int, remaining: int | None) -> Delivery:
        seen: set[object] = set()
        delivered: list[Any] = []
        positions: list[int] = []
        repeats = 0
        stopped_early = False
        for index in range(skip, len(items)):
            if remaining is not None and len(delivered) >= remaining:
                stopped_early = True
                break
            item = items[index]
            key = item.get("id") if isinstance(item, dict) else None
            if key is not None and not isinstance(key, dict | list):
                if key in seen or key in self._previous:
                    repeats += 1
                    continue
                seen.add(key)
            delivered.append(item)
            positions.append(index + 1)
        self._previous = seen
        return Delivery(delivered, positions, repeats, stopped_early)
