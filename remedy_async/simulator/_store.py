"""The machinery of the simulator's data set: records as generated and as changed since,
hidden records, filtered views of a collection and their encodings.

`Dataset` (in `_dataset`) is what tests and the server use; the server also calls the methods
here that read a list request's filters, find its records and encode them.
"""

from __future__ import annotations

import math
import time
from array import array
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from datetime import datetime

from ._cache import SizedLRU, view_size
from ._churn import Revisions, parse_with_ranges, record_passes, reserved, revised
from ._encoded import EncodedRecords
from ._generated import GeneratedMatches
from ._matching import Filters, filter_fields, parse_filters, range_fields
from ._naming import respeller
from ._records import Record, build_record
from ._run_config import DEFAULT_CACHE_BYTES, RESOURCES
from ._world import World

FilterInput = Mapping[str, str | Sequence[str]]
"""Filters as a test writes them: wire names to one value or several (OR), as strings."""


class Store:
    """A data set's records, hidden records, changes, views and encodings (see `Dataset`)."""

    def __init__(
        self,
        *,
        seed: int = 0,
        size: int = 100,
        now: datetime | None = None,
        id_prefix: str = "",
        extra_fields_rate: float = 0.0,
        naming: str = "snake",
        cache: bool = True,
        cache_bytes: int = DEFAULT_CACHE_BYTES,
        reserve: float = 0.0,
        range_filters: bool = False,
        clock: Callable[[], float] = time.time,
    ) -> None:
        moment = time.time() if now is None else now.timestamp()
        self._world = World(
            seed=seed,
            size=size,
            now=math.floor(moment),
            id_prefix=id_prefix,
            extra_fields_rate=extra_fields_rate,
        )
        self._fields = filter_fields(self._world)
        self._ranges = range_fields(self._world)
        budget = cache_bytes if cache else 0
        self._generated = GeneratedMatches(self._world, self._fields, self._ranges, budget)
        self._encoded = EncodedRecords(self._build, respeller(naming), budget)
        self._overrides: dict[tuple[str, int], dict[str, object]] = {}
        """Fields set by `update`, by (resource, index)."""
        self._hidden: dict[str, frozenset[int]] = {}
        """Indices hidden from each collection (only collections with some hidden)."""
        self._visible: SizedLRU[Sequence[int]] = SizedLRU(max(budget // 4, 1 << 24), view_size)
        """Matches without the hidden records, by filters (emptied when hiding changes)."""
        self._revisions = Revisions()
        self._steps: dict[str, int] = {}
        self._range_filters = range_filters
        self._clock = clock
        for resource in RESOURCES:
            held = reserved(seed, resource, self._world.counts[resource], reserve)
            if held:
                self._hidden[resource] = held

    def _now(self, at: float | None) -> float:
        return self._clock() if at is None else at

    def _build(self, resource: str, index: int) -> Record:
        record = build_record(self._world, resource, index)
        change = self._revisions.of(resource).get(index)
        if change is not None:
            record = revised(record, resource, *change)
        overrides = self._overrides.get((resource, index))
        return record if overrides is None else {**record, **overrides}

    def _changed_indices(self, resource: str) -> Collection[int]:
        """The indices of records of `resource` whose content is no longer as generated."""
        revised = self._revisions.of(resource)
        if not self._overrides:
            return revised
        return {*revised, *(index for name, index in self._overrides if name == resource)}

    def _changed(self, resource: str, indices: Iterable[int]) -> None:
        """Forget what was cached of records whose content changed."""
        self._encoded.forget(resource, indices)
        self._visible.clear()

    def parse_filters(
        self, resource: str, params: Iterable[tuple[str, str]], *, strict: bool = False
    ) -> Filters:
        """Read a query's filters; raises FilterError for bad values (and, with `strict`, for
        a parameter that is neither a filter nor a paging parameter: else it is ignored)."""
        fields = self._fields[resource]
        if not self._range_filters:
            return parse_filters(resource, fields, params, strict=strict)
        return parse_with_ranges(resource, fields, self._ranges[resource], params, strict=strict)

    def matches(self, filters: Filters, *, include_hidden: bool = False) -> Sequence[int]:
        """Ascending indices of the visible records that pass `filters` (cached); with
        `include_hidden`, of the hidden ones too."""
        resource = filters.resource
        view = self._generated.of(filters)
        hidden = self._hidden.get(resource)
        changed = self._changed_indices(resource) if filters else ()
        if (hidden is None or include_hidden) and not changed:
            return view
        return self._without(filters, view, None if include_hidden else hidden)

    def encode(self, resource: str, index: int) -> bytes:
        """The JSON of one record (cached)."""
        return self._encoded.record(resource, index)

    def encode_run(self, filters: Filters, view: Sequence[int], start: int, stop: int) -> bytes:
        """The JSON of records view[start:stop], comma-separated without brackets (cached)."""
        return self._encoded.run(filters.resource, filters.fingerprint, view, start, stop)

    def _without(
        self, filters: Filters, view: Sequence[int], hidden: frozenset[int] | None
    ) -> Sequence[int]:
        """`view` less the `hidden` indices, and with the changed records that pass the
        filters now in place of those that passed them as generated (cached until hiding or
        a record changes)."""
        key = (filters.resource, filters.fingerprint, hidden is None)
        visible = self._visible.get(key)
        if visible is None:
            gone = hidden or frozenset()
            changed = self._changed_indices(filters.resource) if filters else ()
            kept = [index for index in view if index not in gone and index not in changed]
            if changed:
                build, resource = self._build, filters.resource
                fields, ranges = self._fields[resource], self._ranges[resource]
                kept += [
                    index
                    for index in changed
                    if index not in gone
                    and record_passes(build(resource, index), filters, fields, ranges)
                ]
                kept.sort()
            visible = self._visible.put(key, array("I", kept))
        return visible

    def _known(self, resource: str, ids: Iterable[str]) -> frozenset[int]:
        """The indices of these ids; ValueError for one that is no record of `resource`."""
        parse_id = self._world.parse_id
        resource = self._check(resource)
        indices = []
        for record_id in [ids] if isinstance(ids, str) else ids:
            index = parse_id(resource, record_id)
            if index is None:
                raise ValueError(f"{record_id!r} is not the id of a record of {resource}")
            indices.append(index)
        return frozenset(indices)

    def _set_hidden(self, resource: str, hidden: frozenset[int]) -> None:
        if hidden == self._hidden.get(resource, frozenset()):
            return
        if hidden:
            self._hidden[resource] = hidden
        else:
            del self._hidden[resource]
        # Cached visible views and pages are keyed by place in the visible list: start afresh.
        self._visible.clear()
        self._encoded.forget_runs()

    def _indices(self, resource: str, filters: FilterInput | None) -> Sequence[int]:
        return self.matches(self._parse(resource, filters or {}))

    def _parse(self, resource: str, filters: FilterInput) -> Filters:
        pairs: list[tuple[str, str]] = []
        for name, value in filters.items():
            values = [value] if isinstance(value, str) else list(value)
            pairs.extend((name, item) for item in values)
        return self.parse_filters(self._check(resource), pairs, strict=True)

    def _check(self, resource: str) -> str:
        if resource not in RESOURCES:
            raise ValueError(f"unknown resource {resource!r}; resources are {', '.join(RESOURCES)}")
        return resource
