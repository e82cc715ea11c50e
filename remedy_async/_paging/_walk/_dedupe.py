"""Decides which raw items of a fetched page go to the caller: new ones, up to the cap.

The ones the paginator chose, when it chose them (a proven offset page). Otherwise repeats of
the previous page's ids (a list shifting under offset paging) are skipped and counted, so the
pager can warn; nothing else is dropped. A `Delivery` is a frozen msgspec `Struct`, made a page
at a time (see docs/architecture.md).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from msgspec import Struct

from remedy_async._paging._read._ids import page_ids
from remedy_async._wire._types import item_id


class Delivery(Struct, frozen=True):
    """Which raw items of a page the caller gets, and the page position after each."""

    items: Sequence[Any]
    positions: Sequence[int]
    repeats: int
    stopped_early: bool
    all_objects: bool = False
    """True when every item is known to be a record with an id (it was indexed by id): a JSON
    object, or a typed view (`TypedItem`)."""


class RecentIds:
    """Remembers the ids of the previous page, to catch items a page repeats.

    Bounded on purpose: remembering every id of a million-item export would cost more memory
    than the export itself; repeats come from pages shifting under the list, so they sit at
    page boundaries. A page without repeats is checked with one set comprehension; only a page
    that has some is walked item by item.
    """

    def __init__(self) -> None:
        # The previous page's ids as found (a quick, conservative pre-check: `1` and `true`
        # fall together there) and, after a page read item by item, by type and value.
        self._previous: frozenset[object] | set[object] = frozenset()
        self._previous_typed: set[tuple[type, object]] | None = None

    def deliver(
        self,
        items: Sequence[Any],
        skip: int,
        remaining: int | None,
        chosen: Sequence[int] | None = None,
    ) -> Delivery:
        """Cut a page's raw items to what is new and wanted: the positions `chosen` by the
        paginator when it chose them, else the items from `skip` on, repeated ids skipped."""
        if chosen is not None:
            return _chosen(items, chosen, remaining)
        candidates = items[skip:] if skip else items
        stopped_early = remaining is not None and len(candidates) > remaining
        if stopped_early:
            candidates = candidates[:remaining]
        found = page_ids(candidates)
        try:
            ids = None if found is None else set(found)
        except TypeError:  # an id that is an object or an array
            ids = None
        if ids is not None and len(ids) == len(candidates) and ids.isdisjoint(self._previous):
            self._previous, self._previous_typed = ids, None
            positions = range(skip + 1, skip + len(candidates) + 1)
            return Delivery(candidates, positions, 0, stopped_early, all_objects=True)
        return self._deliver_each(items, skip, remaining)

    def _deliver_each(self, items: Sequence[Any], skip: int, remaining: int | None) -> Delivery:
        previous = self._previous_typed
        if previous is None:  # the previous page's ids were all distinct as found
            previous = {(key.__class__, key) for key in self._previous}
        seen: set[tuple[type, object]] = set()
        delivered: list[Any] = []
        positions: list[int] = []
        repeats = 0
        stopped_early = False
        for index in range(skip, len(items)):
            if remaining is not None and len(delivered) >= remaining:
                stopped_early = True
                break
            item = items[index]
            raw = item_id(item)
            # Typed keys: `1` and `true` (equal in Python) are different ids on the wire.
            key = None if raw is None or isinstance(raw, dict | list) else (raw.__class__, raw)
            if key is not None:
                if key in seen or key in previous:
                    repeats += 1
                    continue
                seen.add(key)
            delivered.append(item)
            positions.append(index + 1)
        self._previous, self._previous_typed = {raw for _, raw in seen}, seen
        return Delivery(delivered, positions, repeats, stopped_early)


def _chosen(items: Sequence[Any], chosen: Sequence[int], remaining: int | None) -> Delivery:
    """The items at the positions the paginator chose (objects with ids), up to `remaining`."""
    stopped_early = remaining is not None and len(chosen) > remaining
    if stopped_early:
        chosen = chosen[:remaining]
    if isinstance(chosen, range):  # the page from a position on: sliced, not picked
        picked = items[chosen.start : chosen.stop]
        return Delivery(picked, range(chosen.start + 1, chosen.stop + 1), 0, stopped_early, True)
    positions = [position + 1 for position in chosen]
    picked = [items[position] for position in chosen]
    return Delivery(picked, positions, 0, stopped_early, all_objects=True)
