"""The change feed over the published service while its records are inserted, removed and
updated between list pages (issue 33), answered in a MockTransport: no pass reports the removal
of a record that was never removed, a record present all along is never reported removed, and
a pass is complete only when its list ended. With and without the removal check's gets (without
them, a record the offset list skipped would be reported removed), as the feed lists by
default and with planned parallel pages; and over the simulator changing records before every
list request (`churn_count`, `churn_every=1`), in creation order and in update order.
"""

from __future__ import annotations

import asyncio
import tempfile
from collections.abc import AsyncIterable, Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, Final

import pytest
from attrs import frozen
from hypothesis import HealthCheck, Phase, given, note, settings
from hypothesis import strategies as st

from remedy_async import ChangeKind, PaginationError, RemedyClient
from remedy_async._paging._paginators._proof import OVERLAP
from remedy_async.simulator import Simulator, SimulatorConfig
from remedy_async.simulator._churn import ChurnStep
from remedy_async.simulator._run_config import ListOrder
from tests.mock_service import mock_client
from tests.published import TOKEN, Churn, ChurnOp, PublishedService, dataset

ENDPOINTS: Final = "endpoints"
PASSES: Final = 5
"""Passes run while the records churn (a failed pass's continuation counts as one)."""
QUIET: Final = 4
"""Passes without churn after them, until one completes; the pass after it, begun on a quiet
collection, must converge on it."""
PROPERTY = settings(
    max_examples=15,
    derandomize=True,
    database=None,
    deadline=None,
    phases=(Phase.explicit, Phase.generate),
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
"""Fifteen fixed examples, no shrinking (a failure reports its first case in the notes)."""


@frozen
class Plan:
    """`size` endpoints listed in pages of `page_size` by each pass; `churn[n]` applied before
    the n-th list request of all passes together is answered."""

    size: int
    page_size: int
    churn: Mapping[int, Sequence[ChurnOp]]

    def __repr__(self) -> str:
        return f"Plan({self.size}, {self.page_size}, {dict(self.churn)!r})"


async def drained(feed: AsyncIterable[Any]) -> tuple[list[Any], PaginationError | None]:
    """Every change a feed hands out, and the PaginationError that stopped it (if one did)."""
    changes: list[Any] = []
    try:
        async for change in feed:
            changes.append(change)
    except PaginationError as refused:
        return changes, refused
    return changes, None


@st.composite
def plans(draw: st.DrawFn, kinds: Sequence[str]) -> Plan:
    """20-150 records in pages of 5-30, up to 30 changes over the requests of the passes."""
    size = draw(st.integers(20, 150))
    page_size = draw(st.integers(5, 30))
    requests = PASSES * (-(-size // (page_size - OVERLAP)) + 1)
    ops = draw(
        st.lists(
            st.tuples(st.integers(0, requests), st.sampled_from(kinds), st.integers(0, 10**6)),
            max_size=30,
        )
    )
    churn: dict[int, list[ChurnOp]] = {}
    for served, kind, where in ops:
        churn.setdefault(served, []).append((kind, where))
    return Plan(size, page_size, churn)


@frozen
class Pass:
    """One pass as it went: its changes, whether complete, what stopped it, and the list's
    requests (counted over all passes) at its start and end."""

    changes: list[Any]
    complete: bool
    error: BaseException | None
    began: int
    ended: int


class Feed:
    """Runs passes of the feed on one state and checks each against the service's truth."""

    def __init__(
        self,
        plan: Plan,
        state: Path,
        options: Mapping[str, Any],
        say: Callable[[str], None] = lambda _: None,
    ) -> None:
        self.service = PublishedService(dataset(sizes={"endpoints": plan.size}))
        self.churn = Churn(self.service, plan.churn)
        self.requests = 0
        self.service.between_pages = self._between
        self.plan = plan
        self.state = state
        self.options = options
        self.say = say
        """Where each pass is told (Hypothesis's `note` in a property)."""
        self.snapshot: set[str] = set()
        """What the feed's changes say the collection holds: added, not removed since."""
        self.epoch = 0
        """The list request the current pass began at (its first attempt's)."""
        self.present_at_epoch: set[str] = set()

    def _between(self, collection: str, served: int) -> None:
        if collection == "endpoints":
            self.requests = served + 1
        self.churn(collection, served)

    def current(self) -> set[str]:
        return {record["id"] for record in self.churn.records}

    async def one(self, client: RemedyClient) -> Pass:
        """Run one pass (or the continuation of a failed one) and check it."""
        began = self.requests
        feed = client.endpoints.changes(
            self.state, page_size=self.plan.page_size, **self.options
        ).as_dicts()
        changes, error = await drained(feed)
        assert feed.result is not None
        done = Pass(changes, feed.result.complete, error, began, self.requests)
        self.say(f"pass {feed.result}: requests {began}..{done.ended}, error {error!r}")
        self.check(done, feed.result)
        return done

    def check(self, done: Pass, result: Any) -> None:
        now = self.current()
        removed = [change.id for change in done.changes if change.kind is ChangeKind.REMOVED]
        assert done.complete == (done.error is None), "complete is not 'the list ended'"
        assert done.complete == result.complete
        assert (result.error is None) == done.complete
        if not done.complete:
            assert removed == [], "a pass whose list did not end reported removals"
        for key in removed:
            assert key in self.churn.removed, f"{key}: reported removed, never removed"
            assert key not in now, f"{key}: reported removed, still listed"
            assert key in self.snapshot, f"{key}: reported removed, never reported added"
        for change in done.changes:
            if change.kind is ChangeKind.REMOVED:
                self.snapshot.discard(change.id)
            else:
                assert change.id in self.churn.existed, f"{change.id}: never existed"
                self.snapshot.add(change.id)
        if not done.complete:
            return
        throughout = self.present_at_epoch - self.churn.removed
        lost = throughout - self.snapshot
        assert not lost, f"{len(lost)} record(s) present throughout the pass not in it: {lost}"
        during = {
            key
            for served, kind, key in self.churn.log
            if kind in ("remove", "drop") and served > self.epoch
        }
        stale = (self.snapshot - now) - during
        assert not stale, f"records removed before the pass began not reported removed: {stale}"
        self.epoch, self.present_at_epoch = self.requests, now

    async def run(self) -> list[Pass]:
        """`PASSES` passes under churn, then quiet ones until one completes: it converges."""
        passes: list[Pass] = []
        async with mock_client(self.service.handler, token=TOKEN) as client:
            self.present_at_epoch = self.current()
            for _ in range(PASSES):
                passes.append(await self.one(client))
            self.churn.plan = {}
            for _ in range(QUIET):
                passes.append(await self.one(client))
                if passes[-1].complete:
                    break
            assert passes[-1].complete, "no quiet pass completed"
            passes.append(await self.one(client))  # begun after the churn ended
        assert passes[-1].complete, "a pass over a quiet collection did not complete"
        assert self.snapshot == self.current(), "a pass over a quiet collection did not converge"
        return passes


def feed_passes(
    plan: Plan, options: Mapping[str, Any], say: Callable[[str], None] = note
) -> list[Pass]:
    """Run the plan's passes on a new state, checking each; `say` tells what happened."""
    say(f"{plan!r} {dict(options)}")
    with tempfile.TemporaryDirectory() as folder:
        feed = Feed(plan, Path(folder) / "endpoints.db", options, say)
        try:
            return asyncio.run(feed.run())
        finally:
            say(f"changes applied: {feed.churn.log}")


MODES: Final = (
    pytest.param({}, id="sequential"),
    pytest.param({"confirm_removals": False}, id="sequential-unconfirmed"),
    pytest.param({"concurrency": 4, "confirm_removals": False}, id="concurrency-4-unconfirmed"),
)
"""The feed's options: with the removal check's gets (the default), and without them, where
only the list's exactness keeps a record it skipped from being reported removed."""


@pytest.mark.parametrize("options", MODES)
@given(plan=plans(("insert", "remove", "drop", "update")))
@PROPERTY
def test_no_pass_reports_a_removal_that_never_happened(
    options: Mapping[str, Any], plan: Plan
) -> None:
    """Passes over a collection churning between pages: every removal reported was a real
    one, every record present throughout a pass is in the feed after it, and a quiet pass
    converges on the collection."""
    feed_passes(plan, options)


@pytest.mark.parametrize("options", MODES)
@given(plan=plans(("insert", "remove", "update", "move")))
@PROPERTY
def test_records_moved_by_updates_are_never_reported_removed(
    options: Mapping[str, Any], plan: Plan
) -> None:
    """The same under an `updated_at` order, where an update moves its record to the end: a
    pass may be refused (incomplete, no removals), never report a moved record removed."""
    feed_passes(plan, options)


@pytest.mark.parametrize(
    "options",
    [
        pytest.param({}, id="sequential"),
        pytest.param({"confirm_removals": False}, id="sequential-unconfirmed"),
    ],
)
def test_a_record_skipped_by_a_moved_order_is_not_reported_removed(
    options: Mapping[str, Any],
) -> None:
    """5 endpoints in pages of 4; during pass 2, after its first page, r0 is moved to the end
    and r1, r2 are removed: r4, there all along, must not be reported removed (the removal
    check's get finds it; without the gets, only the list's proof can)."""
    plan = Plan(5, 4, {3: [("move", 0), ("remove", 1), ("remove", 2)]})
    feed_passes(plan, options, say=lambda _: None)


class SimulatedFeed:
    """Passes of the feed over the simulator churning before every list request
    (`churn_count`, `churn_every=1`), with every step it took recorded: the ground truth."""

    def __init__(self, simulator: Simulator, state: Path, options: Mapping[str, Any]) -> None:
        self.dataset = simulator.dataset
        self.url = simulator.url
        self.state = state
        self.options = options
        self.steps: list[ChurnStep] = []
        self.churning = True
        churn = self.dataset.churn

        def recorded(resource: str, **how: Any) -> ChurnStep:
            if not self.churning:
                how = {"added": 0, "modified": 0, "removed": 0, "at": how.get("at")}
            step: ChurnStep = churn(resource, **how)
            self.steps.append(step)
            return step

        # the simulator's churner calls it before each list request
        self.dataset.churn = recorded  # type: ignore[method-assign]
        self.snapshot: set[str] = set()
        self.epoch = 0
        """The step the current pass began at (its first attempt's)."""
        self.present_at_epoch: set[str] = set()

    def current(self) -> set[str]:
        return set(self.dataset.ids(ENDPOINTS))

    def removed_since(self, step: int) -> set[str]:
        return {key for churned in self.steps[step:] for key in churned.removed}

    async def one(self, client: RemedyClient, page_size: int) -> bool:
        """Run one pass and check it; whether it was complete."""
        listing = client.endpoints.changes(self.state, page_size=page_size, **self.options)
        feed = listing.as_dicts()
        changes, error = await drained(feed)
        assert feed.result is not None
        note(f"pass {feed.result}: steps {self.epoch}..{len(self.steps)}, error {error!r}")
        throughout = self.present_at_epoch - self.removed_since(self.epoch)
        ever_removed = self.removed_since(0)
        assert feed.result.complete == (error is None), "complete is not 'the list ended'"
        for change in changes:
            if change.kind is ChangeKind.REMOVED:
                assert feed.result.complete, "a pass whose list did not end reported removals"
                assert change.id in ever_removed, f"{change.id}: reported removed, never removed"
                assert change.id not in throughout, f"{change.id}: there all along, reported"
                self.snapshot.discard(change.id)
            else:
                self.snapshot.add(change.id)
        if not feed.result.complete:
            return False
        lost = throughout - self.snapshot
        assert not lost, f"{len(lost)} record(s) present throughout the pass not in it: {lost}"
        self.epoch, self.present_at_epoch = len(self.steps), self.current()
        return True

    async def run(self, page_size: int) -> None:
        """`PASSES` passes under churn, then quiet ones until one completes, and one more
        begun on the quiet collection, which must converge on it."""
        self.present_at_epoch = self.current()
        async with RemedyClient(self.url) as client:
            for _ in range(PASSES):
                await self.one(client, page_size)
            self.churning = False
            for _ in range(QUIET):
                if await self.one(client, page_size):
                    break
            else:
                raise AssertionError("no quiet pass completed")
            assert await self.one(client, page_size), "a pass over a quiet collection failed"
        assert self.snapshot == self.current(), "a pass over a quiet collection did not converge"


@pytest.mark.parametrize("options", [{}, {"confirm_removals": False}], ids=["gets", "no-gets"])
@pytest.mark.parametrize("order", ["created", "updated"])
@given(
    seed=st.integers(0, 2**16),
    size=st.integers(20, 120),
    page_size=st.integers(3, 25),
    count=st.integers(1, 3),
)
@settings(PROPERTY, max_examples=6)
def test_the_feed_over_the_churning_simulator_reports_only_real_removals(
    order: ListOrder, options: Mapping[str, Any], seed: int, size: int, page_size: int, count: int
) -> None:
    """The simulator adds, modifies and removes `count` records before every list request
    (by creation order, or by update order, where a modification moves its record to the
    end): no pass reports a record removed that was not, nor one there all along; a complete
    pass holds every record present throughout it; a quiet pass converges."""
    config = SimulatorConfig(seed=seed, size=size, churn_count=count, churn_every=1, order=order)

    async def scenario(state: Path) -> None:
        async with Simulator(config) as simulator:
            await SimulatedFeed(simulator, state, options).run(page_size)

    with tempfile.TemporaryDirectory() as folder:
        asyncio.run(scenario(Path(folder) / "endpoints.db"))
