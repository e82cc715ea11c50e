"""Units and shards: a run over many tenants cut into work an engine spreads, whole tenants
per shard."""

from __future__ import annotations

import pytest

from remedy_async import ConfigurationError
from remedy_async._tenancy._plan import Unit, plan_shards, plan_units


def test_units_are_every_tenant_times_every_collection() -> None:
    """A run's units go tenant by tenant, each tenant's collections in order, once each."""
    units = plan_units(["a", "b"], ["endpoints", "scopes", "endpoints"])
    assert [str(unit) for unit in units] == ["a/endpoints", "a/scopes", "b/endpoints", "b/scopes"]


def test_a_shard_holds_whole_tenants() -> None:
    """Every unit of a tenant lands in one shard, so its key is held by one worker."""
    units = plan_units([f"t{n}" for n in range(7)], ["endpoints", "scopes"])
    shards = plan_shards(units, 3)
    assert len(shards) == 3
    owner = {}
    for shard in shards:
        for unit in shard.units:
            assert owner.setdefault(unit.tenant, shard.index) == shard.index
    assert sorted(str(unit) for shard in shards for unit in shard.units) == sorted(map(str, units))


def test_there_are_never_more_shards_than_tenants() -> None:
    """Two tenants make at most two shards, whatever is asked."""
    assert len(plan_shards(plan_units(["a", "b"], ["scopes"]), 8)) == 2
    assert plan_shards((), 4) == ()


def test_the_heaviest_tenant_is_not_queued_behind_others() -> None:
    """Weighted, the largest tenant has a shard to itself when the others fit beside it."""
    units = plan_units(["small1", "big", "small2", "small3"], ["endpoints"])
    weights = {"big": 100, "small1": 10, "small2": 10, "small3": 10}
    shards = plan_shards(units, 2, weights)
    assert [shard.tenants for shard in shards] == [("big",), ("small1", "small2", "small3")]


@pytest.mark.parametrize("count", [0, -2, True, 1.5])
def test_a_bad_shard_count_is_refused(count: object) -> None:
    """The number of shards is an int of at least 1."""
    with pytest.raises(ConfigurationError, match="number of shards"):
        plan_shards([Unit("a", "scopes")], count)  # type: ignore[arg-type]
