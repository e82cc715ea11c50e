"""The simulator's data set, `Dataset`: seeded records, hidden and changed, filtered and encoded.

Read top down: `EncodedRecords` keeps the JSON of records and of runs of records (a page's) in a
bounded cache; `GeneratedMatches` answers which records pass a list's filters as generated;
`Store` is the machinery (records as generated and as changed since, hidden records, filtered
views of a collection and their encodings); `Dataset` is what tests and the server use.
"""

from __future__ import annotations

import math
import time
from array import array
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from datetime import UTC, datetime
from functools import partial
from typing import Any

import orjson

from ._cache import SizedLRU, view_size
from ._churn import (
    ChurnStep,
    Revisions,
    choose,
    generated_matches,
    parse_with_ranges,
    record_passes,
    reserved,
    revised,
    step_random,
)
from ._matching import (
    FilterField,
    Filters,
    Matcher,
    column_builders,
    filter_fields,
    parse_filters,
    range_fields,
)
from ._records import Record, build_record, respeller
from ._run_config import DEFAULT_CACHE_BYTES, ORDERS, RESOURCES, SimulatorConfig
from ._world import World

# Encoded records and runs of records, in bounded caches.


def _entry_size(body: bytes) -> int:
    return len(body) + 160  # the bytes object, its key tuple and the dict entry


class EncodedRecords:
    """Encodes records (as `build` makes them, respelled) and keeps the bytes within a budget:
    half of it for records, a quarter for runs of them (a page's records)."""

    def __init__(
        self,
        build: Callable[[str, int], Record],
        respell: Callable[[Any], Any],
        budget: int,
    ) -> None:
        self._build = build
        self._respell = respell
        self._records: SizedLRU[bytes] = SizedLRU(budget // 2, _entry_size)
        self._runs: SizedLRU[bytes] = SizedLRU(budget // 4, _entry_size)

    def record(self, resource: str, index: int) -> bytes:
        """The JSON of one record."""
        key = (resource, index)
        body = self._records.get(key)
        if body is None:
            # orjson's result keeps its over-allocated buffer (~4 KiB): keep an exact copy.
            encoded = orjson.dumps(self._respell(self._build(resource, index)))
            body = self._records.put(key, bytes(memoryview(encoded)))
        return body

    def run(
        self, resource: str, filters: object, view: Sequence[int], start: int, stop: int
    ) -> bytes:
        """The JSON of records view[start:stop] of a list with these `filters` (a fingerprint),
        comma-separated without brackets."""
        key = (resource, filters, start, stop)
        body = self._runs.get(key)
        if body is None:
            record = self.record
            body = b",".join([record(resource, index) for index in view[start:stop]])
            body = self._runs.put(key, body)
        return body

    def forget(self, resource: str, indices: Iterable[int]) -> None:
        """Forget these records' bytes, and every run (their content changed)."""
        for index in indices:
            self._records.discard((resource, index))
        self._runs.clear()

    def forget_runs(self) -> None:
        """Forget every run (which records a list holds changed)."""
        self._runs.clear()


# Which records pass a list's filters as they were generated (before any hiding or change).


class GeneratedMatches:
    """Answers which indices of a collection pass filters as generated, keeping the answers
    (ascending index views) in a cache of a quarter of `budget`, at least 16 MiB."""

    def __init__(
        self,
        world: World,
        fields: Mapping[str, Mapping[str, FilterField]],
        ranges: Mapping[str, Mapping[str, FilterField]],
        budget: int,
    ) -> None:
        self._counts = world.counts
        self._fields = fields
        self._ranges = ranges
        self._builders = column_builders(world)
        self._columns: dict[str, bytes] = {}
        self._matchers = {
            resource: Matcher(world.counts[resource], fields[resource], self._column)
            for resource in RESOURCES
        }
        self._views: SizedLRU[Sequence[int]] = SizedLRU(max(budget // 4, 1 << 24), view_size)

    def of(self, filters: Filters) -> Sequence[int]:
        """The ascending indices of the records whose generated values pass `filters`."""
        resource = filters.resource
        if not filters:
            return range(self._counts[resource])
        key = (resource, filters.fingerprint)
        view = self._views.get(key)
        if view is None:
            matcher, ranges = self._matchers[resource], self._ranges[resource]
            view = self._views.put(key, generated_matches(matcher, ranges, filters))
        return view

    def _column(self, name: str) -> bytes:
        column = self._columns.get(name)
        if column is None:
            column = self._columns[name] = self._builders[name]()
        return column


# The machinery of the data set: records as generated and as changed since, hidden records,
# filtered views of a collection and their encodings. The server also calls the methods here
# that read a list request's filters, find its records and encode them.

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
        order: str = "created",
        clock: Callable[[], float] = time.time,
    ) -> None:
        if order not in ORDERS:
            raise ValueError(f"order must be one of {', '.join(ORDERS)}; got {order!r}")
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
        self._removed: dict[str, set[int]] = {}
        """Indices ever taken out of each collection since it was made (not the reserve)."""
        self._visible: SizedLRU[Sequence[int]] = SizedLRU(max(budget // 4, 1 << 24), view_size)
        """Matches without the hidden records, by filters (emptied when hiding changes)."""
        self._revisions = Revisions()
        self._steps: dict[str, int] = {}
        self._by_update = order == "updated"
        self._reordered: set[str] = set()
        """Collections whose list order is no longer their creation order (by update, once a
        record of theirs changed or was added)."""
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

    def _revised(self, resource: str) -> None:
        """Note that records of `resource` got a new revision or stamp: in update order, the
        list's order moves (views and pages are forgotten by `_changed` and `_set_hidden`)."""
        if self._by_update and self._revisions.of(resource):
            self._reordered.add(resource)

    def order_key(self, resource: str) -> Callable[[int], tuple[float, int]] | None:
        """In update order, what sorts the records of `resource` into their list order: record
        index -> (the time of its last change, or -inf if it never changed; the index), for
        hidden records too (their place if shown); None in creation order (the index is the
        key). Read once per request: the next change makes another."""
        if not self._by_update:
            return None
        revisions = self._revisions.of(resource)
        never = -math.inf

        def key(index: int) -> tuple[float, int]:
            change = revisions.get(index)
            return (never if change is None else change[1], index)

        return key

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
        """The indices of the visible records that pass `filters`, in list order (cached):
        ascending in creation order, sorted by `order_key` in update order; with
        `include_hidden`, of the hidden ones too."""
        resource = filters.resource
        view = self._generated.of(filters)
        hidden = self._hidden.get(resource)
        changed = self._changed_indices(resource) if filters else ()
        if (hidden is None or include_hidden) and not changed and resource not in self._reordered:
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
        filters now in place of those that passed them as generated, in list order (cached
        until hiding or a record changes)."""
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
            if filters.resource in self._reordered:
                kept = self._in_update_order(filters.resource, kept)
            visible = self._visible.put(key, array("I", kept))
        return visible

    def _in_update_order(self, resource: str, ascending: list[int]) -> list[int]:
        """Ascending indices in update order: those never changed first (ascending), then the
        changed ones by the time of their last change (ties ascending: the sort is stable)."""
        revisions = self._revisions.of(resource)
        moved = [index for index in ascending if index in revisions]
        if not moved:
            return ascending
        moved.sort(key=lambda index: revisions[index][1])
        return [index for index in ascending if index not in revisions] + moved

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
        before = self._hidden.get(resource, frozenset())
        if hidden == before:
            return
        taken = hidden - before
        if taken:
            self._removed.setdefault(resource, set()).update(taken)
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


# The data set, for the server and for tests that need to know the truth.


class Dataset(Store):
    """The seeded records of a run: counts, ids in order, records by id, and filtering.

    Records are generated on demand from (seed, resource, index), dated a seeded distance
    before `now` (default: the real time when it is made), so any size costs little memory;
    encoded records and pages are kept in bounded caches. Records are snake_case dicts with the
    published fields (endpoints, scopes) or the assumed ones (targets, findings), ids UUIDs.
    Filters use the same query parameters and string values as a list request, e.g.
    `{"osFamily": ["macos", "linux"], "hasAgent": "true"}` (several values: any of them); only
    endpoints have filters, as published.

    A test can make a list move while it is being listed: `hide(resource, ids)` takes records
    out of their collection and `show(resource, ids)` puts them back where they stood (a list
    grows when it starts with records hidden and they are shown). Hidden records are out of
    everything this class and the server answer: lists (filtered or not), counts and every
    convention's totals, `ids`, `records`, `get` and `index_of` (a get of one is 404). Offsets
    and page numbers count the visible records, as a database-backed service's would, so a
    record hidden before an offset shifts the later ones back by one. Cursors and keyset ids
    name a place in the list's order, not a count: the next page starts at the first visible
    record after that place, so a cursor neither repeats nor skips a visible record whatever
    is hidden or shown meanwhile (a record shown behind it is not seen, as with a database
    keyset), and a keyset id whose record was hidden since is still a valid place to resume.
    Hiding costs the list path nothing while nothing of that collection is hidden.

    A data set can also change as a service's does (see `_churn`): `add` brings back records
    held back at the start (`reserve`, a share of each collection) or removed, `modify` gives
    records a new revision (their `updated_at` moves to the time of the change), `remove`
    hides them, and `churn` does all three to a share of a collection, choosing by seed and
    step. `removed(resource)` is every id taken out since the data set was made, even if back
    since, so the records present throughout a listing are its ids at the start less those.
    Filters see records as they are now. With `range_filters`, a list also takes
    `updatedAt[gte]=TIME` (on `updated_at`, in every collection).

    Lists are in creation order (index order), or with `order="updated"` by last change: the
    records never changed first, by creation, then those modified or added since, by the time
    of their last change (then by creation), so `modify` and `churn` move records to the end.
    Everything above follows the order: `ids`, `records`, offsets and totals of every
    convention, and the places cursors and keyset ids name (a cursor keeps the time of its
    record's change when it was issued; a keyset id is placed where its record stands now).
    The order is worked out once per change, not per request.

    A simulator makes its own (`Simulator.dataset`, `Dataset.from_config(config)`); one made
    alone serves tests that need the records without a server.

    Args:
        seed: As `SimulatorConfig.seed`.
        size: As `SimulatorConfig.size`.
        now: As `SimulatorConfig.now`; None: the real time when it is made.
        id_prefix: As `SimulatorConfig.id_prefix`.
        extra_fields_rate: As `SimulatorConfig.extra_fields_rate`.
        naming: As `SimulatorConfig.naming`.
        cache: As `SimulatorConfig.cache`.
        cache_bytes: As `SimulatorConfig.cache_bytes`.
        reserve: The share of each collection held back at the start, for `add` and `churn`.
        range_filters: As `SimulatorConfig.range_filters`.
        order: As `SimulatorConfig.order`: `created` or `updated`.
        clock: The time changes are stamped with by default, in Unix seconds.
    """

    @classmethod
    def from_config(
        cls,
        config: SimulatorConfig,
        *,
        seed: int | None = None,
        size: int | None = None,
        cache_bytes: int | None = None,
    ) -> Dataset:
        """The data set a simulator with this configuration serves (or one tenant of it).

        Args:
            config: The simulator's configuration.
            seed: The seed instead of the configuration's (a tenant's own).
            size: The size instead of the configuration's (a tenant's share).
            cache_bytes: The cache's budget instead of the configuration's (a tenant's share).
        """
        return cls(
            seed=config.seed if seed is None else seed,
            size=config.size if size is None else size,
            now=config.now,
            id_prefix=config.id_prefix,
            extra_fields_rate=config.extra_fields_rate,
            naming=config.naming,
            cache=config.cache,
            cache_bytes=config.cache_bytes if cache_bytes is None else cache_bytes,
            reserve=config.churn_reserve if config.churning else 0.0,
            range_filters=config.range_filters,
            order=config.order,
        )

    def __repr__(self) -> str:
        counts = ", ".join(f"{name}={self.count(name)}" for name in RESOURCES)
        return f"Dataset(seed={self.seed}, size={self.size}, {counts})"

    @property
    def seed(self) -> int:
        """The seed the records derive from."""
        return self._world.seed

    @property
    def now(self) -> datetime:
        """The data set's present, to the second: every timestamp lies before it."""
        return datetime.fromtimestamp(self._world.now, UTC)

    @property
    def size(self) -> int:
        """The number of endpoints, which scales everything else."""
        return self._world.size

    @property
    def resources(self) -> tuple[str, ...]:
        """The collections, by path segment."""
        return RESOURCES

    def filter_names(self, resource: str) -> tuple[str, ...]:
        """The query parameters a list of `resource` accepts as filters, sorted.

        Args:
            resource: A collection, by path segment (`endpoints`, `vulnerability-findings`, ...).
        """
        return tuple(sorted(self._fields[self._check(resource)]))

    def count(self, resource: str, filters: FilterInput | None = None) -> int:
        """How many records of `resource` pass the filters; hidden ones are not counted.

        Args:
            resource: A collection, by path segment (`endpoints`, `vulnerability-findings`, ...).
            filters: Wire names to one value or several (any of them), as strings; none: all.
        """
        if not filters:
            resource = self._check(resource)
            return self._world.counts[resource] - len(self._hidden.get(resource, ()))
        return len(self.matches(self._parse(resource, filters)))

    def ids(self, resource: str, filters: FilterInput | None = None) -> Iterator[str]:
        """The ids of `resource` that pass the filters, in list order.

        Args:
            resource: A collection, by path segment (`endpoints`, `vulnerability-findings`, ...).
            filters: Wire names to one value or several (any of them), as strings; none: all.
        """
        make_id = self._world.make_id
        return (make_id(resource, index) for index in self._indices(resource, filters))

    def records(self, resource: str, filters: FilterInput | None = None) -> Iterator[Record]:
        """The records of `resource` that pass the filters, in list order, as wire dicts.

        Args:
            resource: A collection, by path segment (`endpoints`, `vulnerability-findings`, ...).
            filters: Wire names to one value or several (any of them), as strings; none: all.
        """
        return (self._build(resource, index) for index in self._indices(resource, filters))

    def get(self, resource: str, record_id: str) -> Record | None:
        """The record with this id, or None (also when it is hidden).

        Args:
            resource: A collection, by path segment (`endpoints`, `vulnerability-findings`, ...).
            record_id: The record's id.
        """
        index = self.index_of(resource, record_id)
        return None if index is None else self._build(resource, index)

    def update(self, resource: str, record_id: str, changes: Mapping[str, object]) -> None:
        """Change fields of a record from now on (wire names; a None value serves null).

        Lists, gets and `records` serve the changed record, and filters see it as it is now.
        Unlike `modify`, nothing else of the record moves (not its `updated_at`). An id that
        is no record of `resource` is a ValueError.

        Args:
            resource: A collection, by path segment (`endpoints`, `vulnerability-findings`, ...).
            record_id: The record's id.
            changes: Wire names to new values.
        """
        (index,) = self._known(resource, [record_id])
        key = (resource, index)
        self._overrides[key] = {**self._overrides.get(key, {}), **changes}
        self._changed(resource, [index])

    def index_of(
        self, resource: str, record_id: str, *, include_hidden: bool = False
    ) -> int | None:
        """The position of the record with this id in the unfiltered list of every record,
        hidden or not; None if there is no such record, or it is hidden and `include_hidden`
        is false.

        Args:
            resource: A collection, by path segment (`endpoints`, `vulnerability-findings`, ...).
            record_id: The record's id.
            include_hidden: Answer for a hidden record too.
        """
        index = self._world.parse_id(self._check(resource), record_id)
        hidden = self._hidden.get(resource)
        if hidden is None or include_hidden or index not in hidden:
            return index
        return None

    def well_formed(self, record_id: str) -> bool:
        """Whether `record_id` has the form of an id (the run's `id_prefix`, then a UUID): a
        get of anything else is a 400, of an unknown id of this form a 404.

        Args:
            record_id: What a get asks for.
        """
        return self._world.well_formed(record_id)

    def id_of(self, resource: str, index: int) -> str:
        """The id of the record at this position of the unfiltered list of every record.

        Args:
            resource: A collection, by path segment (`endpoints`, `vulnerability-findings`, ...).
            index: The position, from 0.
        """
        return self._world.make_id(self._check(resource), index)

    # moving lists ---------------------------------------------------------------------------

    def hide(self, resource: str, ids: Iterable[str]) -> None:
        """Take the records with these ids out of `resource` until `show` brings them back.

        Hiding a hidden record does nothing; an id that is no record of `resource` is a
        ValueError (and nothing is hidden).

        Args:
            resource: A collection, by path segment (`endpoints`, `vulnerability-findings`, ...).
            ids: The records' ids.
        """
        indices = self._known(resource, ids)
        self._set_hidden(resource, self._hidden.get(resource, frozenset()) | indices)

    def show(self, resource: str, ids: Iterable[str]) -> None:
        """Bring hidden records back, at their place in the list order.

        Showing a record that is not hidden does nothing; an id that is no record of
        `resource` is a ValueError (and nothing is shown).

        Args:
            resource: A collection, by path segment (`endpoints`, `vulnerability-findings`, ...).
            ids: The records' ids.
        """
        indices = self._known(resource, ids)
        self._set_hidden(resource, self._hidden.get(resource, frozenset()) - indices)

    def hidden(self, resource: str) -> tuple[str, ...]:
        """The ids of the hidden records of `resource`, in list order (where each would stand
        if shown).

        Args:
            resource: A collection, by path segment (`endpoints`, `vulnerability-findings`, ...).
        """
        make_id = self._world.make_id
        indices = self._hidden.get(self._check(resource), ())
        return tuple(make_id(resource, i) for i in sorted(indices, key=self.order_key(resource)))

    # change over time --------------------------------------------------------------------------

    def removed(self, resource: str) -> frozenset[str]:
        """The ids of every record taken out of `resource` since the data set was made (by
        `churn`, `remove` or `hide`), even those brought back since; not the records held back
        at the start (`reserve`), unless they were added and taken out again. So the records
        present throughout a listing are the ids at its start less these.

        Args:
            resource: A collection, by path segment (`endpoints`, `vulnerability-findings`, ...).
        """
        make_id = self._world.make_id
        resource = self._check(resource)
        return frozenset(make_id(resource, index) for index in self._removed.get(resource, ()))

    def add(self, resource: str, count: int, *, at: float | None = None) -> tuple[str, ...]:
        """Bring hidden records (held back, or removed) into `resource`, chosen by seed and
        step; returns their ids.

        Args:
            resource: A collection, by path segment (`endpoints`, `vulnerability-findings`, ...).
            count: How many.
            at: The time they are stamped with, in Unix seconds. Default: the clock's now.
        """
        return self.churn(resource, added=count, modified=0, removed=0, at=at).added

    def modify(self, resource: str, ids: Iterable[str], *, at: float | None = None) -> None:
        """Give these records a new revision: their `updated_at` moves to the change's time
        (and, in update order, the records to the end of the list, by index among themselves).

        Args:
            resource: A collection, by path segment (`endpoints`, `vulnerability-findings`, ...).
            ids: The records' ids.
            at: The time of the change, in Unix seconds. Default: the clock's now.
        """
        indices = self._known(resource, ids)
        self._revisions.modify(resource, sorted(indices), self._now(at))
        self._revised(resource)
        self._changed(resource, indices)

    def remove(self, resource: str, ids: Iterable[str]) -> None:
        """Take these records out of `resource` (as `hide`: `add` may bring them back).

        Args:
            resource: A collection, by path segment (`endpoints`, `vulnerability-findings`, ...).
            ids: The records' ids.
        """
        self.hide(resource, ids)

    def churn(
        self,
        resource: str,
        *,
        rate: float = 0.0,
        added: int | None = None,
        modified: int | None = None,
        removed: int | None = None,
        at: float | None = None,
    ) -> ChurnStep:
        """One step of change in `resource`: remove, modify and add records, chosen by seed and
        the collection's step number (the same in either list order); returns what changed,
        each in list order (the removed ones where they stood).

        Args:
            resource: A collection, by path segment (`endpoints`, `vulnerability-findings`, ...).
            rate: The share of its visible records removed, modified and added each (at
                least one when above 0).
            added: How many to add, instead of the `rate` share.
            modified: How many to modify, instead of the `rate` share.
            removed: How many to remove, instead of the `rate` share.
            at: The time of the change, in Unix seconds. Default: the clock's now.
        """
        resource = self._check(resource)
        number = self._steps[resource] = self._steps.get(resource, 0) + 1
        share = round(self.count(resource) * rate) or (1 if rate > 0 else 0)
        add, change, drop = (share if n is None else n for n in (added, modified, removed))
        visible = self.matches(Filters(resource))
        if resource in self._reordered:
            visible = sorted(visible)  # choose by creation, whatever the order
        born, touched, gone = choose(
            step_random(self.seed, resource, number),
            visible,
            sorted(self._hidden.get(resource, ())),
            (add, change, drop),
        )
        gone.sort(key=self.order_key(resource))
        moment = self._now(at)
        self._revisions.modify(resource, touched, moment)
        self._revisions.stamp(resource, born, moment)
        self._revised(resource)
        before = self._hidden.get(resource, frozenset())
        self._set_hidden(resource, (before | frozenset(gone)) - frozenset(born))
        self._changed(resource, [*touched, *born])
        ids = (tuple(map(partial(self._world.make_id, resource), n)) for n in (born, touched, gone))
        return ChurnStep(resource, number, *ids)
