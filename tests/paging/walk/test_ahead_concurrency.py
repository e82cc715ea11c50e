"""list(concurrency=N): planned pages fetched at once, delivered in order, exactly once, exactly
resumable, within the client's caps, and nothing left running after a stop."""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest

from remedy_async import (
    ClientEvent,
    OffsetPaginator,
    PageNumberPaginator,
    PaginationError,
    RemedyClient,
    RetryPolicy,
    ServerError,
)
from remedy_async._paging._walk._ahead import PAGE_TASK
from remedy_async.simulator import FaultSpec, Simulator, SimulatorConfig
from tests.fakes import FakeTime

FINDINGS = "vulnerability-findings"
LIST_ROUTE = f"list:{FINDINGS}"
PLANNED = ["offset", "page", "spring"]
"""Simulator conventions whose pages announce the list's size (a total or a page count)."""


async def yielding_sleep(_: float) -> None:
    """The simulator's latency without real time: let every other ready task run a while."""
    for _ in range(20):
        await asyncio.sleep(0)


def latency() -> tuple[FaultSpec, ...]:
    return (FaultSpec("latency", 1.0, latency_ms=1),)


SERVED_PAGE = 20
"""The page size the simulator serves when a request names none it reads: the client asks
its size as `limit`, which the `page` convention does not read (its size is `pageSize`)."""


def simulator(paging: str, **config: Any) -> Simulator:
    """A simulator of 60 endpoints (about 1,200 findings) serving pages of SERVED_PAGE by
    default, its latency without real time."""
    return Simulator(
        SimulatorConfig(
            host="127.0.0.1",
            port=0,
            seed=5,
            size=60,
            paging=paging,
            page_size=SERVED_PAGE,
            **config,
        ),
        sleep=yielding_sleep,
    )


def patient_client(sim: Simulator, time: FakeTime) -> RemedyClient:
    """A client that retries up to 8 times, waiting on the injected clock."""
    return RemedyClient(
        sim.url,
        token=sim.config.token,
        retry=RetryPolicy(attempts=8),
        clock=time.clock,
        sleep=time.sleep,
    )


@pytest.fixture
async def served(request: pytest.FixtureRequest) -> AsyncIterator[Simulator]:
    """A simulator of 60 endpoints (about 1,200 findings) paging as the test's parameter says,
    each answer held back a little (without real time) so that requests overlap."""
    async with simulator(request.param, faults=latency()) as sim:
        yield sim


def all_ids(sim: Simulator) -> list[str]:
    return list(sim.dataset.ids(FINDINGS))


@pytest.mark.parametrize("served", PLANNED, indirect=True)
@pytest.mark.parametrize("page_size", [7, 100])
async def test_parallel_pages_deliver_every_item_once_in_order(
    served: Simulator, page_size: int
) -> None:
    """With concurrency=8 the items are exactly the sequential list's, and pages overlapped."""
    async with RemedyClient(served.url, token=served.config.token) as client:
        findings = client.vulnerability_findings
        ids = [f.id async for f in findings.list(page_size=page_size, concurrency=8)]
        assert served.counters.max_in_flight > 1
        assert ids == all_ids(served)
        assert [f.id async for f in findings.list(page_size=page_size)] == ids


@pytest.mark.parametrize("served", ["offset"], indirect=True)
async def test_parallel_pages_of_wire_dicts_are_the_same(served: Simulator) -> None:
    """as_dicts() keeps the concurrency: the same ids, fetched in parallel."""
    async with RemedyClient(served.url, token=served.config.token) as client:
        pager = client.vulnerability_findings.list(page_size=50, concurrency=4).as_dicts()
        assert [record["id"] async for record in pager] == all_ids(served)
        assert served.counters.max_in_flight > 1


@pytest.mark.parametrize(
    ("served", "paginator"),
    [("offset", OffsetPaginator()), ("page", PageNumberPaginator())],
    indirect=["served"],
)
async def test_pinned_paginators_plan_their_pages_too(served: Simulator, paginator: Any) -> None:
    """OffsetPaginator and PageNumberPaginator, pinned, fetch planned pages at once as well."""
    async with RemedyClient(served.url, token=served.config.token, paginator=paginator) as client:
        ids = [f.id async for f in client.vulnerability_findings.list(page_size=30, concurrency=6)]
    assert ids == all_ids(served)
    assert served.counters.max_in_flight > 1


@pytest.mark.parametrize("served", ["offset"], indirect=True)
@pytest.mark.parametrize(("concurrency", "cap", "most"), [(8, 64, 8), (8, 3, 3), (2, 64, 2)])
async def test_requests_in_flight_never_exceed_concurrency_or_the_client_cap(
    served: Simulator, concurrency: int, cap: int, most: int
) -> None:
    """The simulator never sees more list requests at once than concurrency or max_in_flight."""
    async with RemedyClient(served.url, token=served.config.token, max_in_flight=cap) as client:
        pager = client.vulnerability_findings.list(page_size=10, concurrency=concurrency)
        assert len([f async for f in pager]) == len(all_ids(served))
    assert served.counters.max_in_flight == most


@pytest.mark.parametrize("served", ["cursor", "link", "odata"], indirect=True)
async def test_lists_whose_pages_name_the_next_stay_sequential(served: Simulator) -> None:
    """Cursor, Link-header and next-link lists ignore concurrency: one request at a time."""
    async with RemedyClient(served.url, token=served.config.token) as client:
        ids = [f.id async for f in client.vulnerability_findings.list(page_size=50, concurrency=8)]
    assert ids == all_ids(served)
    assert served.counters.max_in_flight == 1


@pytest.mark.parametrize(
    ("served", "page_size", "max_items"),
    [("offset", 7, 17), ("page", SERVED_PAGE, 3 * SERVED_PAGE - 1)],
    indirect=["served"],
)
async def test_max_items_fetches_only_the_pages_it_needs(
    served: Simulator, page_size: int, max_items: int
) -> None:
    """max_items within a third page with concurrency=8 sends exactly three list requests (the
    page convention pages in the size it serves, as it reads no `limit`; offset pages after the
    first overlap by 2, so pages of 7 bring 7, 5 and 5 new records)."""
    async with RemedyClient(served.url, token=served.config.token) as client:
        pager = client.vulnerability_findings.list(
            page_size=page_size, max_items=max_items, concurrency=8
        )
        assert [f.id async for f in pager] == all_ids(served)[:max_items]
    assert served.counters.requests[LIST_ROUTE] == 3


@pytest.mark.parametrize("served", PLANNED, indirect=True)
async def test_resume_tokens_taken_anywhere_continue_exactly(served: Simulator) -> None:
    """A token taken after any item, while later pages are in flight, resumes right after it."""
    expected = all_ids(served)
    stops = random.Random(11).sample(range(1, len(expected)), 6)
    async with RemedyClient(served.url, token=served.config.token) as client:
        findings = client.vulnerability_findings
        for stop in stops:
            pager = findings.list(page_size=25, concurrency=8)
            head: list[str] = []
            async for finding in pager:
                head.append(finding.id)
                if len(head) == stop:
                    break
            token = pager.resume_token
            rest = findings.list(page_size=25, concurrency=8, resume_token=token)
            assert head + [f.id async for f in rest] == expected, stop


@pytest.mark.parametrize("served", ["offset"], indirect=True)
async def test_page_tokens_resume_after_their_page(served: Simulator) -> None:
    """Each page's resume_token, taken while later pages are in flight, resumes after it."""
    expected = all_ids(served)
    async with RemedyClient(served.url, token=served.config.token) as client:
        findings = client.vulnerability_findings
        pages = [page async for page in findings.list(page_size=100, concurrency=8).pages()]
        for index in (0, 3, len(pages) - 2):
            head = [f.id for page in pages[: index + 1] for f in page.items]
            rest = findings.list(concurrency=8, resume_token=pages[index].resume_token)
            assert head + [f.id async for f in rest] == expected
        assert pages[-1].resume_token is None


@pytest.mark.parametrize("paging", ["offset", "page"])
async def test_a_failed_page_delivers_all_before_it_then_resumes(paging: str) -> None:
    """Without retries, a 503 on a planned page raises after every earlier item, with a token
    that continues the list; resuming until done gives every item once."""
    faults = (*latency(), FaultSpec("http-503", 0.15, routes=[LIST_ROUTE]))
    async with simulator(paging, faults=faults) as sim:
        async with RemedyClient(
            sim.url, token=sim.config.token, retry=RetryPolicy(attempts=1)
        ) as client:
            findings = client.vulnerability_findings
            got: list[str] = []
            token, counts = None, []
            while True:
                start = len(got)
                try:
                    pager = findings.list(page_size=20, concurrency=8, resume_token=token)
                    async for finding in pager:
                        got.append(finding.id)
                    break
                except ServerError as error:
                    counts.append((error.items_yielded, len(got) - start))
                    token = error.resume_token
        assert counts
        assert all(said == delivered for said, delivered in counts)
        assert got == all_ids(sim)


@pytest.mark.parametrize("served", ["offset"], indirect=True)
async def test_breaking_out_cancels_the_pages_in_flight(served: Simulator) -> None:
    """Leaving the loop early leaves no page task running, and the client still works."""
    async with RemedyClient(served.url, token=served.config.token) as client:
        findings = client.vulnerability_findings
        async for finding in findings.list(page_size=10, concurrency=8):
            if finding.id == all_ids(served)[15]:
                break
        for _ in range(5):
            await asyncio.sleep(0)
        assert [t for t in asyncio.all_tasks() if t.get_name() == PAGE_TASK] == []
        assert (await findings.list(concurrency=8).first()) is not None


@pytest.mark.parametrize("served", ["offset"], indirect=True)
async def test_cancelling_the_listing_task_leaves_no_page_task(served: Simulator) -> None:
    """Cancelling a task that is listing with concurrency cancels its page fetches too."""
    async with RemedyClient(served.url, token=served.config.token) as client:
        started = asyncio.Event()

        async def listing() -> None:
            async for _ in client.vulnerability_findings.list(page_size=10, concurrency=8):
                started.set()

        task = asyncio.create_task(listing())
        await started.wait()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert [t for t in asyncio.all_tasks() if t.get_name() == PAGE_TASK] == []


def test_concurrency_below_one_is_refused_before_any_request() -> None:
    """concurrency=0 (or a bool) is a ValueError at the call, before any I/O."""
    client = RemedyClient("http://127.0.0.1:9", token="tok")
    for bad in (0, -1, True):
        with pytest.raises(ValueError, match="concurrency"):
            client.vulnerability_findings.list(concurrency=bad)


def test_a_misspelt_concurrency_is_suggested() -> None:
    """list(concurency=8) is a TypeError naming concurrency, not a filter sent to the server."""
    client = RemedyClient("http://127.0.0.1:9", token="tok")
    with pytest.raises(TypeError, match="concurrency"):
        client.vulnerability_findings.list(concurency=8)  # type: ignore[call-arg]


async def test_fault_retries_of_planned_pages_are_waited_on_the_injected_clock() -> None:
    """A 429 on a planned page is retried after Retry-After on the client's clock, not real time."""
    time = FakeTime()
    faults = (*latency(), FaultSpec("http-429", 0.2, routes=[LIST_ROUTE], retry_after=1))
    async with simulator("offset", faults=faults) as sim:
        async with patient_client(sim, time) as client:
            pager = client.vulnerability_findings.list(page_size=20, concurrency=8)
            assert [f.id async for f in pager] == all_ids(sim)
        assert time.waits


async def test_parallel_pages_keep_to_the_services_rate_limit() -> None:
    """Against a 5-requests-per-second bucket, parallel pages are paused by the client's shared
    rate-limit gate and retried on its clock: every item once, in order."""
    time = FakeTime(start=1_700_000_000.0)  # the simulator's X-RateLimit-Reset is a Unix time
    config = SimulatorConfig(
        host="127.0.0.1", port=0, seed=5, size=60, paging="offset", rate_limit=5
    )
    async with Simulator(config, sleep=yielding_sleep, clock=time.clock) as sim:
        async with patient_client(sim, time) as client:
            pager = client.vulnerability_findings.list(page_size=20, concurrency=8)
            assert [f.id async for f in pager] == all_ids(sim)
        assert sim.counters.responses.get(429, 0) > 0
    assert time.waits


class ChangeAfterFirstPage:
    """An event hook that changes the simulator's list as the first page's response arrives:
    before the pages it plans are requested, so every later page announces the new size."""

    def __init__(self, change: Callable[[], None]) -> None:
        self.change = change
        self.done = False

    def __call__(self, event: ClientEvent) -> None:
        if event.kind == "response" and not self.done:
            self.done = True
            self.change()


async def list_until_it_moves(
    sim: Simulator, hook: ChangeAfterFirstPage
) -> tuple[list[str], PaginationError]:
    """List with concurrency=8 until the PaginationError; return the items delivered before."""
    got: list[str] = []
    async with RemedyClient(sim.url, token=sim.config.token, event_hooks=[hook]) as client:
        pager = client.vulnerability_findings.list(page_size=20, concurrency=8)

        async def drain() -> None:
            async for finding in pager:
                got.append(finding.id)

        with pytest.raises(PaginationError, match="the list changed") as caught:
            await drain()
    return got, caught.value


@pytest.mark.parametrize("served", ["page"], indirect=True)
async def test_a_list_that_shrinks_mid_way_stops_with_every_item_before_it(
    served: Simulator,
) -> None:
    """A record removed while pages are in flight stops the list after the first page, with
    a token that continues it: nothing skipped but the removed record, nothing repeated."""
    expected = all_ids(served)
    removed = expected[50]
    hook = ChangeAfterFirstPage(lambda: served.dataset.hide(FINDINGS, [removed]))
    got, error = await list_until_it_moves(served, hook)
    assert got == expected[:20]
    assert error.items_yielded == 20
    async with RemedyClient(served.url, token=served.config.token) as client:
        rest = client.vulnerability_findings.list(concurrency=8, resume_token=error.resume_token)
        assert got + [f.id async for f in rest] == [i for i in expected if i != removed]


@pytest.mark.parametrize("served", ["page"], indirect=True)
async def test_a_list_that_grows_mid_way_stops_with_every_item_before_it(
    served: Simulator,
) -> None:
    """Records added while pages are in flight stop the list after the first page too."""
    expected = all_ids(served)
    added = expected[30:35]
    served.dataset.hide(FINDINGS, added)
    hook = ChangeAfterFirstPage(lambda: served.dataset.show(FINDINGS, added))
    got, _ = await list_until_it_moves(served, hook)
    assert got == expected[:20]


async def list_while_it_moves(sim: Simulator, hook: ChangeAfterFirstPage) -> list[str]:
    """List with concurrency=8 while `hook` changes the list; return the ids delivered."""
    async with RemedyClient(sim.url, token=sim.config.token, event_hooks=[hook]) as client:
        pager = client.vulnerability_findings.list(page_size=20, concurrency=8)
        return [finding.id async for finding in pager]


@pytest.mark.parametrize("served", ["offset"], indirect=True)
async def test_an_offset_list_that_shrinks_mid_way_is_proven_exactly(served: Simulator) -> None:
    """A record removed while parallel offset pages are in flight: every other record is
    delivered once, in order (the shifted page is re-read)."""
    expected = all_ids(served)
    removed = expected[50]
    hook = ChangeAfterFirstPage(lambda: served.dataset.hide(FINDINGS, [removed]))
    got = await list_while_it_moves(served, hook)
    assert got == [i for i in expected if i != removed]


@pytest.mark.parametrize("served", ["offset"], indirect=True)
async def test_an_offset_list_that_grows_mid_way_is_proven_exactly(served: Simulator) -> None:
    """Records added while parallel offset pages are in flight: every record there before is
    delivered once, in order, and none twice."""
    expected = all_ids(served)
    added = expected[30:35]
    served.dataset.hide(FINDINGS, added)
    hook = ChangeAfterFirstPage(lambda: served.dataset.show(FINDINGS, added))
    got = await list_while_it_moves(served, hook)
    assert len(got) == len(set(got))
    assert [i for i in got if i not in added] == [i for i in expected if i not in added]


@pytest.mark.parametrize("served", ["offset"], indirect=True)
async def test_a_list_changed_before_it_starts_is_listed_exactly(served: Simulator) -> None:
    """A list that does not move while it is listed is exact, whatever happened before."""
    expected = all_ids(served)
    served.dataset.hide(FINDINGS, expected[5:9])
    async with RemedyClient(served.url, token=served.config.token) as client:
        pager = client.vulnerability_findings.list(page_size=20, concurrency=8)
        assert [f.id async for f in pager] == expected[:5] + expected[9:]
