"""Which records pass a list's filters as they were generated (before any hiding or change)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ._cache import SizedLRU, view_size
from ._churn import generated_matches
from ._matching import FilterField, Filters, Matcher, column_builders
from ._run_config import RESOURCES
from ._world import World


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
