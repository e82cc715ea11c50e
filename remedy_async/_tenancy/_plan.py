"""A run over many tenants, cut into work an engine can spread: units, and shards of them.

A unit is one tenant's list of one collection (with the run's list options): today's `Pager`
reads it, with its overlap proof, parallel pages and resume tokens. A shard is what one worker
reads in one event loop: whole tenants, each with all its units of the run, so every key's
budget lives in exactly one process and holds at the service whatever the number of workers
(`RateLimit` is kept where it is spent, its turn at the wire included). Tenants go to shards
largest first, each to the lightest shard so far (by estimated records, or one each when
unknown), so a tenant holding most records is not queued behind others.

A unit is never cut into offset ranges read by different workers: the published lists are
offset lists whose order is unpublished, so two ranges read at different times can only be
fenced by record ids, and a fence record removed meanwhile leaves the ranges unable to agree
where one ends and the next begins without a shared frontier; and a key's rate limit, not a
core, bounds a tenant (one core types far more records a second than one key may fetch), while
the unit's parallel pages (`concurrency=`) already reach that limit.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from attrs import frozen

from remedy_async._errors import ConfigurationError


@frozen
class Unit:
    """One tenant's list of one collection: the unit of work of a run over many tenants."""

    tenant: str
    """The tenant's name."""
    collection: str
    """The collection, by client attribute (`vulnerability_findings`)."""

    def __str__(self) -> str:
        return f"{self.tenant}/{self.collection}"


@frozen
class Shard:
    """The units one worker reads together in one event loop: all the units of some tenants."""

    index: int
    """Its place in the plan (0, 1, ...): a worker's retry of a shard is the same index."""
    units: tuple[Unit, ...]
    """Its units, tenant by tenant."""

    @property
    def tenants(self) -> tuple[str, ...]:
        """The tenants whose keys this shard holds, in order."""
        return tuple(dict.fromkeys(unit.tenant for unit in self.units))


def plan_units(tenants: Iterable[str], collections: Iterable[str]) -> tuple[Unit, ...]:
    """Every unit of a run: each tenant's list of each collection, tenant by tenant.

    Args:
        tenants: The tenants' names.
        collections: The collections, by client attribute (`vulnerability_findings`).
    """
    chosen = tuple(dict.fromkeys(collections))
    return tuple(Unit(tenant, collection) for tenant in tenants for collection in chosen)


def plan_shards(
    units: Sequence[Unit], count: int, weights: Mapping[str, int] | None = None
) -> tuple[Shard, ...]:
    """Group the units into at most `count` shards of whole tenants, balanced by `weights`,
    heaviest tenant first (each to the lightest shard so far).

    Args:
        units: The run's units (`plan_units`).
        count: The most shards: an engine's number of workers at once.
        weights: Estimated records by tenant; 1 each when not given.
    """
    if isinstance(count, bool) or not isinstance(count, int) or count < 1:
        raise ConfigurationError(f"the number of shards must be an int >= 1, got {count!r}")
    by_tenant: dict[str, list[Unit]] = {}
    for unit in units:
        by_tenant.setdefault(unit.tenant, []).append(unit)
    if not by_tenant:
        return ()
    weight = {name: max(1, (weights or {}).get(name, 1)) for name in by_tenant}
    order = sorted(by_tenant, key=lambda name: -weight[name])
    loads = [0] * min(count, len(by_tenant))
    members: list[list[str]] = [[] for _ in loads]
    for name in order:
        lightest = min(range(len(loads)), key=loads.__getitem__)
        loads[lightest] += weight[name]
        members[lightest].append(name)
    position = {name: index for index, name in enumerate(by_tenant)}
    return tuple(
        Shard(
            index,
            tuple(
                unit for name in sorted(names, key=position.__getitem__) for unit in by_tenant[name]
            ),
        )
        for index, names in enumerate(members)
    )
