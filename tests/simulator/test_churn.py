"""The simulator's data changing over time: deterministic steps per seed, revisions that move
`updated_at`, filters that see records as they are now, range filters, `serve --churn`, and
churn by a count of records between every two pages."""

from __future__ import annotations

from datetime import UTC, datetime

import aiohttp
import pytest

from remedy_async.simulator import Dataset, Simulator, SimulatorConfig, config_from_args
from remedy_async.simulator._arguments import command_line

from .helpers import FakeClock, StartSimulator, get_json

ENDPOINTS, TARGETS, FINDINGS = "endpoints", "remediation-targets", "vulnerability-findings"
AT = 2_000_000_000
STAMP = "2033-05-18T03:33:20Z"
UPDATED = "updated_at"


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
    assert all(dataset.get(ENDPOINTS, i)["updated_at"] == STAMP for i in added)  # type: ignore[index]


def test_removed_holds_every_id_taken_out_even_if_back_since() -> None:
    """`removed` keeps what churn steps, `remove` and `hide` took out, also once shown or
    added again, so the ids at the start less it were present throughout."""
    dataset = Dataset(seed=6, size=30, reserve=0.2)
    start = set(dataset.ids(ENDPOINTS))
    steps = [dataset.churn(ENDPOINTS, rate=0.1, at=AT) for _ in range(3)]
    hidden, removed = dataset.id_of(ENDPOINTS, 0), dataset.id_of(ENDPOINTS, 1)
    dataset.hide(ENDPOINTS, [hidden])
    dataset.remove(ENDPOINTS, [removed])
    dataset.show(ENDPOINTS, [hidden])
    taken = {record_id for step in steps for record_id in step.removed} | {hidden, removed}
    assert dataset.removed(ENDPOINTS) == taken
    assert hidden in set(dataset.ids(ENDPOINTS))
    throughout = start - dataset.removed(ENDPOINTS)
    assert throughout <= set(dataset.ids(ENDPOINTS))


def test_removed_leaves_out_the_reserve_and_other_collections() -> None:
    """Records held back from the start were never taken out; nor were other collections'."""
    dataset = Dataset(seed=6, size=30, reserve=0.2)
    assert dataset.hidden(ENDPOINTS)
    assert dataset.removed(ENDPOINTS) == frozenset()
    dataset.add(ENDPOINTS, 2, at=AT)
    dataset.churn(ENDPOINTS, removed=1, added=0, modified=0, at=AT)
    assert len(dataset.removed(ENDPOINTS)) == 1
    assert dataset.removed(TARGETS) == frozenset()
    with pytest.raises(ValueError, match="unknown resource"):
        dataset.removed("endpoint")


def test_a_modification_moves_the_update_time_and_changes_the_record() -> None:
    """A modified endpoint gets `updated_at` at the change and the newest agent (if it has
    one); a finding its `updated_at`; the served bytes follow; the keys stay the published."""
    dataset = Dataset(seed=3, size=10)
    endpoint = next(dataset.ids(ENDPOINTS, {"hasAgent": "true"}))
    finding = dataset.id_of(FINDINGS, 0)
    before = dataset.get(ENDPOINTS, endpoint)
    assert before is not None
    index = dataset.index_of(ENDPOINTS, endpoint)
    assert index is not None
    dataset.encode(ENDPOINTS, index)
    dataset.modify(ENDPOINTS, [endpoint], at=AT)
    dataset.modify(FINDINGS, [finding], at=AT)
    record = dataset.get(ENDPOINTS, endpoint)
    assert record is not None
    assert (record["updated_at"], record["agent_version"]) == (STAMP, "8.0.0")
    assert record.keys() == before.keys()
    assert {**record, "updated_at": None, "agent_version": None} == {
        **before, "updated_at": None, "agent_version": None,
    }  # fmt: skip
    assert b'"updated_at":"2033-05-18T03:33:20Z"' in dataset.encode(ENDPOINTS, index)
    changed = dataset.get(FINDINGS, finding)
    assert changed is not None
    assert changed["updated_at"] == STAMP


def test_a_scope_revision_moves_its_status_and_adds_no_field() -> None:
    """Scopes publish no `updated_at`: a revision moves `status` one step along
    active -> paused -> archived -> active instead, and the keys stay the published ones."""
    dataset = Dataset(seed=6, size=10)
    scope = dataset.id_of("scopes", 0)
    before = dataset.get("scopes", scope)
    assert before is not None
    order = ["active", "paused", "archived"]
    for step in range(1, 4):
        dataset.modify("scopes", [scope], at=AT + step)
        record = dataset.get("scopes", scope)
        assert record is not None
        assert record.keys() == before.keys()
        assert record["status"] == order[(order.index(before["status"]) + step) % 3]


def test_filters_see_records_as_they_are_now() -> None:
    """A record modified since it was generated is filtered as it is now, by every filter."""
    dataset = Dataset(seed=6, size=30, range_filters=True)
    endpoint = next(dataset.ids(ENDPOINTS, {"osFamily": "linux", "hasAgent": "true"}))
    since = {"updatedAt[gte]": STAMP}
    assert endpoint not in set(dataset.ids(ENDPOINTS, since))
    dataset.modify(ENDPOINTS, [endpoint], at=AT)
    assert list(dataset.ids(ENDPOINTS, since)) == [endpoint]
    assert endpoint in set(dataset.ids(ENDPOINTS, {"osFamily": "linux", "hasAgent": "true"}))
    assert list(dataset.ids(ENDPOINTS, {**since, "osFamily": "windows"})) == []


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
    """A Dataset's filters are strict: without `range_filters` a range is an unknown filter,
    and a range on another field (or on scopes, which have no `updated_at`) is refused."""
    with pytest.raises(ValueError, match=r"^Unknown query parameter: updatedAt\[gte\]"):
        list(Dataset(size=3).ids(TARGETS, {"updatedAt[gte]": "2033-01-01T00:00:00Z"}))
    ranged = Dataset(size=3, range_filters=True)
    with pytest.raises(ValueError, match=r"^status\[gte\] is not a range filter of"):
        list(ranged.ids(TARGETS, {"status[gte]": "x"}))
    with pytest.raises(ValueError, match=r"^updatedAt\[gte\] is not a range filter of scopes"):
        list(ranged.ids("scopes", {"updatedAt[gte]": "2033-01-01T00:00:00Z"}))
    with pytest.raises(ValueError, match="must be an RFC 3339 date-time"):
        list(ranged.ids(TARGETS, {"updatedAt[gte]": "yesterday"}))


async def test_a_server_ignores_range_filters_it_does_not_take() -> None:
    """Over the wire, a range filter the run or the list does not take is ignored as any
    undeclared parameter (the whole list), refused with `strict_params`; a bad time is 422."""
    since = "updatedAt[gte]=2099-01-01T00:00:00Z"
    async with (
        Simulator(SimulatorConfig(size=5)) as plain,
        Simulator(SimulatorConfig(size=5, range_filters=True)) as ranged,
        Simulator(SimulatorConfig(size=5, range_filters=True, strict_params=True)) as strict,
        aiohttp.ClientSession() as session,
    ):
        async with session.get(f"{plain.url}/v1/endpoints?{since}") as response:
            assert (await response.json())["total"] == 5
        async with session.get(f"{ranged.url}/v1/endpoints?{since}") as response:
            assert (await response.json())["total"] == 0
        async with session.get(f"{ranged.url}/v1/scopes?{since}") as response:
            assert (await response.json())["total"] == ranged.dataset.count("scopes")
        async with session.get(f"{strict.url}/v1/scopes?{since}") as response:
            assert response.status == 422
        async with session.get(f"{ranged.url}/v1/endpoints?updatedAt[gte]=soon") as response:
            assert response.status == 422
            assert await response.json() == {
                "error": "updatedAt[gte] must be an RFC 3339 date-time."
            }


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
            async with session.get(f"{simulator.url}/v1/endpoints?limit=100") as response:
                lists.append([item["id"] for item in (await response.json())["data"]])
    assert len(lists[0]) == 24
    assert lists[1] != lists[0]
    assert lists[2] == lists[1]


@pytest.mark.parametrize(("rate", "changed"), [(0.0001, 1), (0.005, 1), (0.01, 2), (0.02, 3)])
def test_a_small_share_changes_one_to_three_records_of_two_hundred(
    rate: float, changed: int
) -> None:
    """On a list of 200 endpoints (160 visible, a fifth held back), a small share changes one
    to three records each way, never none: a share rounds to the nearest count, at least 1."""
    dataset = Dataset(seed=3, size=200, reserve=0.2)
    assert dataset.count(ENDPOINTS) == 160
    step = dataset.churn(ENDPOINTS, rate=rate, at=AT)
    assert (len(step.removed), len(step.modified), len(step.added)) == (changed,) * 3


@pytest.mark.parametrize("order", ["created", "updated"])
@pytest.mark.parametrize("count", [1, 2, 3])
async def test_churn_count_changes_the_data_between_every_two_pages(
    serve: StartSimulator,
    session: aiohttp.ClientSession,
    clock: FakeClock,
    count: int,
    order: str,
) -> None:
    """With `churn_count=N` and `churn_every=1`, every list request (so between every two
    pages) removes exactly N records, modifies N and adds N, stamped with the time of the
    request; the total stays the count, and each page is cut from the data as it then is."""
    sim = await serve(size=200, churn_count=count, churn_every=1, order=order)
    dataset = sim.dataset
    assert dataset.count(ENDPOINTS) == 160  # a fifth held back, to add
    before = set(dataset.ids(ENDPOINTS))
    for number in range(8):
        clock.advance(1)
        params = {"offset": str(number * 20), "limit": "20"}
        status, body, _ = await get_json(session, f"{sim.url}/v1/endpoints", params)
        assert status == 200, body
        now = list(dataset.ids(ENDPOINTS))
        assert body["total"] == len(now) == 160
        assert [record["id"] for record in body["data"]] == now[number * 20 : number * 20 + 20]
        assert (len(before - set(now)), len(set(now) - before)) == (count, count)
        stamp = datetime.fromtimestamp(clock.now, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        touched = [record for record in dataset.records(ENDPOINTS) if record[UPDATED] == stamp]
        assert len(touched) == 2 * count  # modified and added by this request's step
        if order == "updated":
            assert now[-2 * count :] == [record["id"] for record in touched]
        before = set(now)


async def test_without_churn_options_nothing_changes_or_is_held_back(
    serve: StartSimulator, session: aiohttp.ClientSession
) -> None:
    """The default run holds nothing back and lists the same records on every request."""
    sim = await serve(size=30, churn_every=1)
    assert sim.dataset.count(ENDPOINTS) == 30
    lists = []
    for _ in range(3):
        _, body, _ = await get_json(session, f"{sim.url}/v1/endpoints", {"limit": "100"})
        lists.append(body["data"])
    assert lists[0] == lists[1] == lists[2]
