"""The simulator's data changing over time: deterministic steps per seed, revisions that move
`updatedAt`, filters that see records as they are now, range filters, and `serve --churn`."""

from __future__ import annotations

import aiohttp
import pytest

from remedy_async.simulator import Dataset, Simulator, SimulatorConfig, config_from_args
from remedy_async.simulator._arguments import command_line

ENDPOINTS, TARGETS, FINDINGS = "endpoints", "remediation-targets", "vulnerability-findings"
AT = 2_000_000_000
STAMP = "2033-05-18T03:33:20Z"


def test_a_step_is_the_same_for_the_same_seed() -> None:
    """Two data sets of one seed take the same steps; another seed takes others."""
    steps = [
        [Dataset(seed=seed, size=50).churn(ENDPOINTS, rate=0.1, at=AT) for _ in range(3)]
        for seed in (4, 4, 5)
    ]
    assert steps[0] == steps[1]
    assert steps[0] != steps[2]


def test_a_step_removes_modifies_and_adds_a_share() -> None:
    """A step removes, modifies and adds a tenth; removed ones are gone, added ones back."""
    dataset = Dataset(seed=1, size=40, reserve=0.2)
    before = set(dataset.ids(ENDPOINTS))
    step = dataset.churn(ENDPOINTS, rate=0.1, at=AT)
    after = set(dataset.ids(ENDPOINTS))
    assert (len(step.removed), len(step.modified), len(step.added)) == (3, 3, 3)
    assert after == (before - set(step.removed)) | set(step.added)
    assert not set(step.modified) & set(step.removed)
    assert all(dataset.get(ENDPOINTS, record_id) is None for record_id in step.removed)


def test_a_reserve_is_held_back_until_added() -> None:
    """With `reserve`, a share of each collection starts hidden; `add` brings some in."""
    dataset = Dataset(seed=2, size=50, reserve=0.2)
    assert dataset.count(ENDPOINTS) == 40
    added = dataset.add(ENDPOINTS, 4, at=AT)
    assert len(added) == 4
    assert dataset.count(ENDPOINTS) == 44
    assert all(dataset.get(ENDPOINTS, i)["updatedAt"] == STAMP for i in added)  # type: ignore[index]


def test_a_modification_moves_the_update_time_and_changes_the_record() -> None:
    """A modified endpoint gets `updatedAt` and `lastSeenAt` at the change; a finding's status
    turns; the served bytes follow."""
    dataset = Dataset(seed=3, size=10)
    endpoint = dataset.id_of(ENDPOINTS, 0)
    finding = dataset.id_of(FINDINGS, 0)
    status = dataset.get(FINDINGS, finding)["status"]  # type: ignore[index]
    dataset.encode(ENDPOINTS, 0)
    dataset.modify(ENDPOINTS, [endpoint], at=AT)
    dataset.modify(FINDINGS, [finding], at=AT)
    record = dataset.get(ENDPOINTS, endpoint)
    assert record is not None
    assert (record["updatedAt"], record["lastSeenAt"]) == (STAMP, STAMP)
    assert b'"updatedAt":"2033-05-18T03:33:20Z"' in dataset.encode(ENDPOINTS, 0)
    changed = dataset.get(FINDINGS, finding)
    assert changed is not None
    assert changed["status"] != status
    assert changed["status"] in ("open", "resolved")


def test_filters_see_records_as_they_are_now() -> None:
    """A finding whose status a modification turned is listed under its new status only."""
    dataset = Dataset(seed=6, size=10)
    finding = dataset.id_of(FINDINGS, 0)
    old = dataset.get(FINDINGS, finding)["status"]  # type: ignore[index]
    assert finding in set(dataset.ids(FINDINGS, {"status": old}))
    dataset.modify(FINDINGS, [finding], at=AT)
    new = dataset.get(FINDINGS, finding)["status"]  # type: ignore[index]
    assert finding not in set(dataset.ids(FINDINGS, {"status": old}))
    assert finding in set(dataset.ids(FINDINGS, {"status": new}))


def test_range_filters_keep_what_changed_since() -> None:
    """`updatedAt[gte]` keeps records updated at or after a time, on every collection."""
    dataset = Dataset(seed=7, size=10, range_filters=True)
    targets = list(dataset.ids(TARGETS))
    dataset.modify(TARGETS, targets[1:3], at=AT)
    dataset.modify(ENDPOINTS, [dataset.id_of(ENDPOINTS, 4)], at=AT)
    since = {"updatedAt[gte]": "2033-01-01T00:00:00Z"}
    assert list(dataset.ids(TARGETS, since)) == targets[1:3]
    assert list(dataset.ids(ENDPOINTS, since)) == [dataset.id_of(ENDPOINTS, 4)]
    old = {"updatedAt[gte]": "2000-01-01T00:00:00Z"}
    assert list(dataset.ids(TARGETS, old)) == targets


def test_range_filters_are_refused_unless_asked_for_or_on_other_fields() -> None:
    """Without `range_filters` a range is an unknown filter; on a field that is no timestamp
    it is refused too."""
    with pytest.raises(ValueError, match="unknown query parameter"):
        list(Dataset(size=3).ids(TARGETS, {"updatedAt[gte]": "2033-01-01T00:00:00Z"}))
    with pytest.raises(ValueError, match="timestamp field"):
        list(Dataset(size=3, range_filters=True).ids(TARGETS, {"status[gte]": "x"}))


def test_serve_takes_churn_options() -> None:
    """`--churn`, `--churn-every` and `--range-filters` reach the configuration; a share
    above 1 is refused naming the flag."""
    parser = command_line()
    config = config_from_args(
        parser.parse_args(["--churn", "0.05", "--churn-every", "3", "--range-filters"])
    )
    assert (config.churn, config.churn_every, config.range_filters) == (0.05, 3, True)
    with pytest.raises(ValueError, match="--churn must be between 0 and 1"):
        config_from_args(parser.parse_args(["--churn", "2"]))


async def test_a_churning_simulator_changes_every_n_list_requests() -> None:
    """With churn every 2 list requests, the second list differs from the first (the step
    runs before it is answered) and the third is the second; a fifth of the records were
    held back to add."""
    config = SimulatorConfig(seed=8, size=30, churn=0.1, churn_every=2)
    async with Simulator(config) as simulator, aiohttp.ClientSession() as session:
        lists = []
        for _ in range(3):
            async with session.get(f"{simulator.url}/v1/endpoints?limit=1000") as response:
                lists.append([item["id"] for item in (await response.json())["items"]])
    assert len(lists[0]) == 24
    assert lists[1] != lists[0]
    assert lists[2] == lists[1]
