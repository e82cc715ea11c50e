"""The change feed's exactness, by property, over the simulator on real sockets: random
additions, modifications and removals between and during passes, under the resilience fault
mix. After every complete pass the previous snapshot plus the changes equals the state and the
collection as the pass saw it; a failed pass reports no removal; a quiet pass converges."""

from __future__ import annotations

import asyncio
import sqlite3
import warnings
from pathlib import Path
from typing import Any

import attrs
from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st

from remedy_async import (
    ChangeKind,
    ClientEvent,
    DuplicateItemWarning,
    Endpoint,
    RemedyClient,
    RemedyError,
    RetryPolicy,
)
from remedy_async._changes._fingerprint import canonical, fingerprints
from remedy_async.simulator import FaultSpec, Simulator, SimulatorConfig
from tests.budget import examples
from tests.client.test_resilience import LIST_FAULTS
from tests.fakes import FakeTime

ENDPOINTS = "endpoints"
Records = dict[str, dict[str, Any]]

counts = st.tuples(*(st.integers(0, 3),) * 3)
"""How many records a churn step adds, modifies and removes."""


@attrs.frozen
class PassPlan:
    """Churn before a pass, and churn during it (after its n-th list request)."""

    before: tuple[int, int, int]
    during: tuple[tuple[int, tuple[int, int, int]], ...]


plans = st.builds(
    PassPlan,
    before=counts,
    during=st.lists(st.tuples(st.integers(1, 4), counts), max_size=2).map(tuple),
)


class Churn:
    """Applies churn steps to the data set, a minute apart, and remembers every version of
    every record while a pass runs (its `seen` record)."""

    def __init__(self, simulator: Simulator) -> None:
        self.dataset = simulator.dataset
        self.minute = 0
        self.requests = 0
        self.pending: list[tuple[int, tuple[int, int, int]]] = []
        self.versions: dict[str, list[dict[str, Any]]] = {}
        self.changed_during = False

    def current(self) -> Records:
        return {record["id"]: record for record in self.dataset.records(ENDPOINTS)}

    def step(self, how: tuple[int, int, int]) -> None:
        added, modified, removed = how
        self.minute += 1
        at = 2_000_000_000 + 60 * self.minute
        self.dataset.churn(ENDPOINTS, added=added, modified=modified, removed=removed, at=at)
        self._note()

    def begin(self, plan: PassPlan, fresh: bool) -> Records:
        """Churn before a pass attempt, then watch it; returns the records at its start. An
        attempt that continues a failed pass (not `fresh`) is the same pass: churn since its
        first attempt counts as churn during it."""
        if fresh:
            self.versions, self.changed_during = {}, False
        elif any(plan.before):
            self.changed_during = True
        self.step(plan.before)
        self.requests, self.pending = 0, sorted(plan.during)
        self._note()
        return self.current()

    def _note(self) -> None:
        for record_id, record in self.current().items():
            seen = self.versions.setdefault(record_id, [])
            if record not in seen:
                seen.append(record)

    def saw(self, event: ClientEvent) -> None:
        """A client event hook: churn after the planned list requests of the pass."""
        if event.kind != "request" or f"/v1/{ENDPOINTS}" not in event.url:
            return
        self.requests += 1
        while self.pending and self.pending[0][0] <= self.requests:
            self.changed_during = True
            self.step(self.pending.pop(0)[1])


def state_of(path: Path) -> dict[str, str]:
    """The state's fingerprints by id, read from its documented format."""
    with sqlite3.connect(path) as db:
        rows = dict(db.execute("SELECT id, fingerprint FROM records"))
    db.close()
    return rows


def apply(snapshot: Records, changes: list[Any]) -> None:
    for change in changes:
        if change.kind is ChangeKind.REMOVED:
            del snapshot[change.id]
        else:
            snapshot[change.id] = change.record


PLACE_KEEPING = frozenset({"cursor", "link", "header-cursor"})
"""Conventions whose next page starts after a place in the list, so that a record there all
along is listed whatever moves around it. Offsets and page numbers count records: one removed
behind them moves a later one back past the walk, unseen, while records added after it keep
the total the list announced (so no check can tell)."""


def check_complete(
    snapshot: Records, known: set[str], start: Records, churn: Churn, path: Path, paging: str
) -> None:
    """The snapshot is the state, and the collection as this complete pass saw it: every
    record in it as served during the pass, none that never was; and one there throughout
    the pass in it as it ended, if the list keeps its place or the state knew it already (a
    removal is confirmed by a get, which finds it)."""
    records = canonical(list(snapshot.values()), Endpoint)
    assert state_of(path) == dict(zip(snapshot, fingerprints(records), strict=True))
    end = churn.current()
    if not churn.changed_during:
        assert snapshot == end
        return
    for record_id in start.keys() | end.keys() | snapshot.keys():
        versions = churn.versions.get(record_id, [])
        if record_id in snapshot:
            assert snapshot[record_id] in versions, f"{record_id}: content never served"
        throughout = record_id in start and record_id in end and len(versions) == 1
        if throughout and (paging in PLACE_KEEPING or record_id in known):
            assert snapshot.get(record_id) == end[record_id], f"{record_id}: lost"
        if not versions:
            assert record_id not in snapshot, f"{record_id}: invented"


async def scenario(paging: str, seed: int, plan_list: list[PassPlan], path: Path) -> None:
    time = FakeTime()
    config = SimulatorConfig(seed=seed, size=12, page_size=4, paging=paging, faults=LIST_FAULTS)
    snapshot: Records = {}
    async with Simulator(config) as simulator:
        churn = Churn(simulator)
        simulator.dataset.remove(ENDPOINTS, list(simulator.dataset.ids(ENDPOINTS))[::4])
        async with RemedyClient(
            simulator.url,
            retry=RetryPolicy(attempts=2),
            clock=time.clock,
            sleep=time.sleep,
            event_hooks=[churn.saw],
        ) as client:
            quiet = [PassPlan((0, 0, 0), ())] * 10
            fresh = True
            for number, plan in enumerate([*plan_list, *quiet]):
                began = churn.begin(plan, fresh)
                if fresh:
                    start, known = began, set(snapshot)
                feed = client.endpoints.changes(path).as_dicts()
                changes: list[Any] = []
                try:
                    async for change in feed:
                        changes.append(change)  # kept when the pass fails later
                except RemedyError:
                    assert ChangeKind.REMOVED not in {c.kind for c in changes}, "failed pass"
                    apply(snapshot, changes)
                    fresh = False
                    continue
                fresh = True
                apply(snapshot, changes)
                check_complete(snapshot, known, start, churn, path, paging)
                if number >= len(plan_list) and not churn.changed_during:
                    return  # a pass without churn: the snapshot is the collection
    raise AssertionError("no quiet pass completed: the fault mix stopped ten in a row")


@given(
    paging=st.sampled_from(["cursor", "link", "offset", "page", "header-cursor"]),
    seed=st.integers(0, 2**16),
    plan_list=st.lists(plans, min_size=1, max_size=5),
)
@settings(
    max_examples=examples(150),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
def test_every_pass_applied_to_the_snapshot_gives_what_it_saw(
    tmp_path_factory: Any, paging: str, seed: int, plan_list: list[PassPlan]
) -> None:
    """Random churn between and during passes, with 503s, resets, 429s and truncated bodies:
    each complete pass's changes turn the previous snapshot into the state and into the
    collection as the pass saw it; a failed pass removes nothing; a quiet pass converges."""
    path = tmp_path_factory.mktemp("feed") / "s.db"
    note(f"paging={paging} seed={seed} plans={plan_list}")
    with warnings.catch_warnings():
        # An offset list shifted by an addition repeats an id, which it skips with a warning.
        warnings.simplefilter("ignore", DuplicateItemWarning)
        asyncio.run(scenario(paging, seed, plan_list, path))


def test_the_fault_mix_is_the_resilience_tests_one() -> None:
    """The property runs under the same list faults as tests/client/test_resilience.py."""
    assert {fault.kind.value for fault in LIST_FAULTS} >= {"http-503", "reset", "http-429"}
    assert all(isinstance(fault, FaultSpec) for fault in LIST_FAULTS)
