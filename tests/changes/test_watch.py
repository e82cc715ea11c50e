"""Watching: passes repeated every interval (injected sleep, jitter), failed passes retried
and continued, cancellation mid-pass leaving the state consistent; narrowed passes."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from remedy_async import Change, ChangeKind, ClientEvent, PassResult, RemedyClient, ServerError
from remedy_async.simulator import Simulator, SimulatorConfig
from tests.changes.service import Service, eid, endpoint, running
from tests.fakes import FakeTime

TARGETS = "remediation-targets"


async def test_passes_repeat_every_interval_with_jitter(tmp_path: Path) -> None:
    """Three passes wait between them an interval give or take its jitter, never really."""
    service = Service([endpoint(1)])
    time = FakeTime()
    results: list[PassResult] = []

    def next_pass(result: PassResult) -> None:
        results.append(result)
        service.put(endpoint(10 + len(results)))

    found: list[str] = []
    async with running(service) as client:
        watch = client.endpoints.watch(
            tmp_path / "s.db", interval=60, jitter=0.5, sleep=time.sleep, on_pass=next_pass
        )
        async for change in watch:
            found.append(change.id)
            if len(found) == 4:
                break
    assert found == [eid(1), eid(11), eid(12), eid(13)]
    assert [result.number for result in results] == [1, 2, 3]
    assert len(time.waits) == 3
    assert all(30 <= wait <= 90 for wait in time.waits)


async def test_a_failed_pass_is_retried_and_continued(tmp_path: Path) -> None:
    """A pass that fails is retried after the interval, from where it stopped."""
    service = Service([endpoint(n) for n in range(1, 8)])
    service.fail_at = {3}
    time = FakeTime()
    results: list[PassResult] = []

    def heal(result: PassResult) -> None:
        results.append(result)
        service.fail_at = set()

    async with running(service) as client:
        watch = client.endpoints.watch(
            tmp_path / "s.db", interval=5, jitter=0, sleep=time.sleep, on_pass=heal
        )
        found = []
        async for change in watch:
            found.append(change.id)
            if len(found) == 7:
                break
    assert found == [eid(n) for n in range(1, 8)]
    assert [(r.number, r.complete, r.resumed) for r in results] == [(1, False, False)]
    assert isinstance(results[0].error, ServerError)
    assert time.waits == [5]


async def test_too_many_failures_in_a_row_raise_the_last(tmp_path: Path) -> None:
    """With max_failures=2 the third failed pass in a row raises its error."""
    service = Service([endpoint(1)])
    service.fail_at = {0}
    time = FakeTime()
    results: list[PassResult] = []
    async with running(service) as client:
        watch = client.endpoints.watch(
            tmp_path / "s.db", max_failures=2, sleep=time.sleep, on_pass=results.append
        )
        with pytest.raises(ServerError):
            async for _ in watch:
                pass
    assert [result.complete for result in results] == [False, False, False]
    assert len(time.waits) == 2
    assert watch.result is results[-1]


async def test_cancelling_mid_pass_keeps_what_was_committed(tmp_path: Path) -> None:
    """A watch cancelled inside a page re-delivers that page's changes, and only those."""
    service = Service([endpoint(n) for n in range(1, 8)])
    time = FakeTime()
    found: list[str] = []
    async with running(service) as client:

        async def consume() -> None:
            async for change in client.endpoints.watch(tmp_path / "s.db", sleep=time.sleep):
                found.append(change.id)
                if change.id == eid(5):
                    raise asyncio.CancelledError

        with pytest.raises(asyncio.CancelledError):
            await asyncio.create_task(consume())
        again = [change.id async for change in client.endpoints.changes(tmp_path / "s.db")]
    assert found == [eid(n) for n in range(1, 6)]
    assert again == [eid(4), eid(5), eid(6), eid(7)]


START = 2_000_000_000.0


def stamp(seconds: float) -> str:
    """A time as the since filter sends it, URL-encoded in a query."""
    text = datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    return "updatedAt%5Bgte%5D=" + text


async def narrowed_scenario(tmp_path: Path, overlap: float, later: float) -> dict[str, Any]:
    """Three passes over remediation targets with `updatedAt[gte]` narrowing (resync an
    hour): full at START, narrowed at START+60 (after two modifications at START+10 and a
    removal), then one at START+60+`later`. Returns each pass's changes and the queries it
    sent."""
    now = [START]
    queries: list[str] = []

    def saw(event: ClientEvent) -> None:
        if event.kind == "request":
            queries.append(event.url)

    config = SimulatorConfig(size=4, range_filters=True, page_size=10)
    passes: list[list[Change[Any]]] = []
    sent: list[list[str]] = []
    async with Simulator(config) as simulator:
        dataset = simulator.dataset
        async with RemedyClient(simulator.url, event_hooks=[saw]) as client:
            targets = client.remediation_targets
            settings: dict[str, Any] = {
                "since_filter": "updatedAt[gte]",
                "overlap": overlap,
                "wall_clock": lambda: now[0],
                "page_size": 10,
            }
            ids = list(dataset.ids(TARGETS))
            for step in range(3):
                queries.clear()
                feed = targets.changes(tmp_path / "s.db", **settings)
                passes.append([change async for change in feed])
                sent.append(list(queries))
                if step == 0:
                    dataset.modify(TARGETS, ids[2:4], at=now[0] + 10)
                    dataset.remove(TARGETS, ids[7:8])
                now[0] += 60 if step == 0 else later
    return {"passes": passes, "queries": sent, "ids": ids}


async def test_narrowed_passes_ask_for_what_changed_and_resyncs_find_removals(
    tmp_path: Path,
) -> None:
    """Between resyncs a pass asks for records updated since the previous pass began (less
    the overlap) and reports their changes; the next full pass reports the removal."""
    seen = await narrowed_scenario(tmp_path, overlap=300, later=3600)
    first, narrowed, resync = seen["passes"]
    ids = seen["ids"]
    assert {change.kind for change in first} == {ChangeKind.ADDED}
    assert [(c.kind, c.id, c.changed) for c in narrowed] == [
        (ChangeKind.MODIFIED, ids[2], ("updated_at",)),
        (ChangeKind.MODIFIED, ids[3], ("updated_at",)),
    ]
    assert all(stamp(START - 300) in query for query in seen["queries"][1])
    assert [(c.kind, c.id) for c in resync] == [(ChangeKind.REMOVED, ids[7])]
    assert not any("updatedAt" in q for q in seen["queries"][2])


async def test_records_listed_again_by_the_overlap_are_not_changes(tmp_path: Path) -> None:
    """A narrowed pass whose overlap reaches back past modifications already reported lists
    them again and reports nothing: they are compared by fingerprint."""
    seen = await narrowed_scenario(tmp_path, overlap=4000, later=60)
    assert len(seen["passes"][1]) == 2
    assert seen["passes"][2] == []
    assert all(stamp(START + 60 - 4000) in query for query in seen["queries"][2])
