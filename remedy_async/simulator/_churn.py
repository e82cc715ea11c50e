"""A data set that changes over time: records modified since they were generated, the choice
of what a churn step adds, modifies and removes, and the update-time range filters a change
feed narrows its passes with.

A modified record keeps its id and place and gets a new revision, stamped with the time of the
change: its `updated_at` moves to that time, and an endpoint's agent to the newest agent version
(if it has one). Scopes publish no `updated_at`: a revision moves a scope's `status` one step
along `active` -> `paused` -> `archived` (-> `active`). An added record (one held back, or
removed before) is stamped with the time it was added. Which records a step picks is a pure
function of the seed, the collection and the step's number.
"""

from __future__ import annotations

import random
from array import array
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Final

import attrs

from ._catalog import AGENT_VERSIONS
from ._matching import (
    FilterError,
    FilterField,
    Filters,
    Matcher,
    Scalar,
    parse_filters,
    parse_value,
)
from ._prng import iso, seed_key

Record = dict[str, Any]

RANGE_SUFFIX: Final = "[gte]"
"""A range filter's parameter is a timestamp field's name and this: `updatedAt[gte]=TIME`
keeps the records whose field (`updated_at`) is at or after TIME."""
UPDATED_AT: Final = "updated_at"
"""The record key a revision stamps."""
NEWEST_AGENT: Final = AGENT_VERSIONS[-1]
SCOPE_STATUSES: Final = ("active", "paused", "archived")


@attrs.frozen
class ChurnStep:
    """The ids one churn step added, modified and removed in one collection, in list order."""

    resource: str
    number: int
    added: tuple[str, ...] = ()
    modified: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()


def revised(record: Record, resource: str, revision: int, at: float) -> Record:
    """The record as `revision` changes at time `at` left it (revision 0: just stamped)."""
    changed = dict(record)
    stamp = iso(at)
    if resource == "scopes":
        if revision:
            status = changed.get("status")
            position = SCOPE_STATUSES.index(status) if status in SCOPE_STATUSES else -1
            changed["status"] = SCOPE_STATUSES[(position + revision) % len(SCOPE_STATUSES)]
        return changed
    changed[UPDATED_AT] = stamp
    if revision and resource == "endpoints" and changed.get("agent_version") is not None:
        changed["agent_version"] = NEWEST_AGENT
    return changed


class Revisions:
    """Per collection, the records changed since generation: index -> (revision, time)."""

    def __init__(self) -> None:
        self._by_resource: dict[str, dict[int, tuple[int, float]]] = {}

    def __repr__(self) -> str:
        counts = {resource: len(changed) for resource, changed in self._by_resource.items()}
        return f"Revisions({counts})"

    def of(self, resource: str) -> Mapping[int, tuple[int, float]]:
        """The changed records of a collection (empty when none)."""
        return self._by_resource.get(resource, {})

    def modify(self, resource: str, indices: Sequence[int], at: float) -> None:
        """A new revision of each record, at `at`."""
        changed = self._by_resource.setdefault(resource, {})
        for index in indices:
            revision, _ = changed.get(index, (0, at))
            changed[index] = (revision + 1, at)

    def stamp(self, resource: str, indices: Sequence[int], at: float) -> None:
        """Stamp records added at `at` (their content otherwise unchanged)."""
        changed = self._by_resource.setdefault(resource, {})
        for index in indices:
            revision, _ = changed.get(index, (0, at))
            changed[index] = (revision, at)


def reserved(seed: int, resource: str, count: int, share: float) -> frozenset[int]:
    """The records of a collection held back at the start, for churn to add later."""
    if share <= 0:
        return frozenset()
    rng = random.Random(seed_key(seed, f"churn.reserve.{resource}"))
    return frozenset(rng.sample(range(count), round(count * share)))


def step_random(seed: int, resource: str, number: int) -> random.Random:
    """The random choices of churn step `number` of a collection."""
    return random.Random(seed_key(seed, f"churn.{resource}.{number}"))


def choose(
    rng: random.Random,
    visible: Sequence[int],
    hidden: Sequence[int],
    counts: tuple[int, int, int],
) -> tuple[list[int], list[int], list[int]]:
    """What a step (added, modified, removed) picks, each ascending: (`counts` of each, fewer
    when there are not enough) added from `hidden`, modified and removed from `visible`."""
    add, modify, remove = counts
    gone = rng.sample(visible, min(remove, len(visible)))
    out = set(gone)
    wanted = min(modify + len(gone), len(visible))
    touched = [index for index in rng.sample(visible, wanted) if index not in out][:modify]
    born = rng.sample(hidden, min(add, len(hidden)))
    return sorted(born), sorted(touched), sorted(gone)


def split_ranges(
    params: Sequence[tuple[str, str]],
) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """A query's parameters: (the rest, the range filters)."""
    rest = [(name, value) for name, value in params if not name.endswith(RANGE_SUFFIX)]
    ranges = [(name, value) for name, value in params if name.endswith(RANGE_SUFFIX)]
    return rest, ranges


def range_conditions(
    resource: str,
    fields: Mapping[str, FilterField],
    ranges: Sequence[tuple[str, str]],
    *,
    strict: bool = False,
) -> tuple[tuple[str, tuple[Scalar, ...]], ...]:
    """Range filters as conditions (`updatedAt[gte]`, its canonical time); FilterError for a
    value that is no RFC 3339 date-time. A range filter `resource` does not take (scopes have
    no `updated_at`) is ignored as any undeclared parameter is, or a FilterError with
    `strict`."""
    conditions: dict[str, Scalar] = {}
    for name, raw in ranges:
        field = fields.get(name.removesuffix(RANGE_SUFFIX))
        if field is None and not strict:
            continue
        if field is None or field.type != "timestamp":
            known = ", ".join(f"{known}{RANGE_SUFFIX}" for known in sorted(fields))
            raise FilterError(
                "unknown_filter",
                f"{name} is not a range filter of {resource} (those are: {known}).",
                name,
            )
        try:
            value = parse_value(field, raw)
        except FilterError as error:
            message = error.message.replace(field.name, name, 1)  # the parameter, as sent
            raise FilterError(error.code, message, name) from None
        previous = conditions.get(name)
        conditions[name] = value if previous is None else max(str(previous), str(value))
    return tuple((name, (value,)) for name, value in sorted(conditions.items()))


def in_range(
    fields: Mapping[str, FilterField], ranges: Sequence[tuple[str, tuple[Scalar, ...]]]
) -> Callable[[int], bool]:
    """Whether generated record `index` passes the range conditions (by its generated values)."""
    checks = [
        (fields[name.removesuffix(RANGE_SUFFIX)].value, str(wanted[0])) for name, wanted in ranges
    ]

    def passes(index: int) -> bool:
        for read, bound in checks:
            value = read(index)
            if value is None or str(value) < bound:
                return False
        return True

    return passes


def record_passes(
    record: Record,
    filters: Filters,
    fields: Mapping[str, FilterField],
    ranges: Mapping[str, FilterField],
) -> bool:
    """Whether a record as it is now passes every condition (for changed records)."""
    for name, wanted in filters.conditions:
        if name.endswith(RANGE_SUFFIX):
            value = ranges[name.removesuffix(RANGE_SUFFIX)].of_record(record)
            if value is None or str(value) < str(wanted[0]):
                return False
        else:
            value = fields[name].of_record(record)
            if not any(
                value == choice and isinstance(value, bool) == isinstance(choice, bool)
                for choice in wanted
            ):
                return False
    return True


def parse_with_ranges(
    resource: str,
    fields: Mapping[str, FilterField],
    range_fields: Mapping[str, FilterField],
    params: Iterable[tuple[str, str]],
    *,
    strict: bool = False,
) -> Filters:
    """A query's filters, range filters (`FIELD[gte]`) included."""
    rest, ranges = split_ranges(list(params))
    plain = parse_filters(resource, fields, rest, strict=strict)
    if not ranges:
        return plain
    conditions = plain.conditions + range_conditions(resource, range_fields, ranges, strict=strict)
    return Filters(resource, tuple(sorted(conditions)))


def generated_matches(
    matcher: Matcher, ranges_of: Mapping[str, FilterField], filters: Filters
) -> Sequence[int]:
    """The records whose generated values pass `filters` (range filters included)."""
    plain = [(name, wanted) for name, wanted in filters.conditions if RANGE_SUFFIX not in name]
    ranges = [(name, wanted) for name, wanted in filters.conditions if RANGE_SUFFIX in name]
    view = matcher.match(Filters(filters.resource, tuple(plain)))
    if not ranges:
        return view
    passes = in_range(ranges_of, ranges)
    return array("I", [index for index in view if passes(index)])


class Churner:
    """Applies a churn step to a collection every `every` list requests of it (`serve
    --churn`), stamped by `clock`: a `rate` share of its records, or `count` records, removed,
    modified and added each."""

    def __init__(
        self,
        dataset: Any,
        rate: float,
        every: int,
        clock: Callable[[], float],
        *,
        count: int | None = None,
    ) -> None:
        self._dataset = dataset
        self._rate = rate
        self._count = count
        self._every = every
        self._clock = clock
        self._requests: dict[str, int] = {}
        self._active = rate > 0 or count is not None

    def __repr__(self) -> str:
        return f"Churner(rate={self._rate}, count={self._count}, every={self._every})"

    def list_requested(self, resource: str) -> None:
        """Count a list request of `resource`; change the collection when a step is due."""
        if not self._active:
            return
        requests = self._requests[resource] = self._requests.get(resource, 0) + 1
        if requests % self._every == 0:
            count = self._count
            self._dataset.churn(
                resource,
                rate=self._rate,
                added=count,
                modified=count,
                removed=count,
                at=self._clock(),
            )
