"""Under injected faults nothing is lost, repeated or truncated, and nothing hangs or leaks (the
simulator's faults over loopback; retry limits on a MockTransport)."""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator
from typing import Any

import pytest

from remedy_async import (
    BadRequestError,
    MockResponse,
    NotFoundError,
    RateLimitError,
    RemedyClient,
    RequestOptions,
    RetryPolicy,
    ServerError,
)
from remedy_async.simulator import FaultSpec, Simulator, SimulatorConfig
from tests.fakes import ENDPOINT_ID, FakeTime
from tests.mock_service import Script

pytestmark = pytest.mark.usefixtures("library_logging")

FINDINGS = "vulnerability-findings"
PATIENT = RetryPolicy(attempts=8)
LARGE_PAGES = 1000
"""Pages of 1,000 records (a service allowing more than the published 100), so 20,000 records
are 20 pages each time."""


LIST_FAULTS = (
    FaultSpec("http-503", 0.10, routes=["list:*"]),
    FaultSpec("reset", 0.05, routes=["list:*"]),
    FaultSpec("http-429", 0.05, routes=["list:*"], retry_after=1),
    FaultSpec("truncate", 0.02, routes=["list:*"]),
)


@pytest.fixture(scope="module")
def expected_findings() -> list[str]:
    """The first 20,000 finding ids of the seeded data set, in list order."""
    with asyncio.Runner() as runner:

        async def ids() -> list[str]:
            async with Simulator(SimulatorConfig(seed=21, size=1040)) as simulator:
                ids = list(simulator.dataset.ids(FINDINGS))
                assert len(ids) >= 20_000
                return ids[:20_000]

        return runner.run(ids())


@pytest.mark.parametrize(
    ("paging", "concurrency"),
    [
        ("none", 1),
        ("offset", 1),
        ("offset", 8),
        ("page", 1),
        ("page", 8),
        ("cursor", 1),
        ("link", 1),
    ],
)
async def test_listing_under_faults_loses_and_repeats_nothing(
    paging: str, concurrency: int, expected_findings: list[str]
) -> None:
    """20,000 findings under 503s, resets, 429s and truncated bodies arrive exactly, in order,
    sequentially and with pages fetched in parallel."""
    time = FakeTime()
    config = SimulatorConfig(
        seed=21, size=1040, paging=paging, faults=LIST_FAULTS, max_page_size=LARGE_PAGES
    )
    async with Simulator(config) as simulator:
        async with RemedyClient(
            simulator.url,
            retry=PATIENT,
            clock=time.clock,
            sleep=time.sleep,
            max_page_size=LARGE_PAGES,
        ) as client:
            # An unpaged list is one request; list it several times so that faults hit it.
            for _ in range(8 if paging == "none" else 1):
                pager = client.vulnerability_findings.list(
                    page_size=1000, max_items=20_000, concurrency=concurrency
                )
                ids = [finding.id async for finding in pager]
                assert len(ids) == 20_000
                assert ids == expected_findings
        injected = simulator.counters.total_faults
    assert injected > 0
    assert time.waits


async def test_get_many_under_faults_answers_every_id_once() -> None:
    """5,000 gets (1% unknown or malformed) under 20% faults give one right result per id (a
    404 or a 400 for those), within the cap."""
    faults = (
        FaultSpec("http-500", 0.05, routes=["get:*"]),
        FaultSpec("http-503", 0.05, routes=["get:*"]),
        FaultSpec("reset", 0.05, routes=["get:*"]),
        FaultSpec("truncate", 0.05, routes=["get:*"]),
    )
    time = FakeTime()
    async with Simulator(SimulatorConfig(seed=8, size=250, faults=faults)) as simulator:
        known = list(simulator.dataset.ids(FINDINGS))[:4950]
        malformed = [f"vf-missing-{i}" for i in range(25)]
        unknown = [f"00000000-0000-4000-8000-{i:012d}" for i in range(25)]
        ids = known + malformed + unknown
        random.Random(3).shuffle(ids)
        async with RemedyClient(
            simulator.url, retry=PATIENT, max_in_flight=16, clock=time.clock, sleep=time.sleep
        ) as client:
            results = [r async for r in client.vulnerability_findings.get_many(ids, concurrency=64)]
        counters = simulator.counters
    assert [r.id for r in results] == ids
    for result in results:
        if result.id in malformed:
            assert isinstance(result.error, BadRequestError)
        elif result.id in unknown:
            assert isinstance(result.error, NotFoundError)
        else:
            assert result.error is None
            assert result.unwrap().id == result.id
    assert counters.total_faults > 0
    assert counters.max_in_flight <= 16


async def test_persistent_503_stops_after_exactly_the_configured_attempts() -> None:
    """A 503 on every request ends in ServerError after exactly `attempts` requests."""
    time = FakeTime()
    busy = Script(MockResponse.json(503, {"error": "Service unavailable."}))
    policy = RetryPolicy(attempts=4)
    async with busy.client(retry=policy, clock=time.clock, sleep=time.sleep) as client:
        with pytest.raises(ServerError) as caught:
            await client.endpoints.get(ENDPOINT_ID)
    assert len(busy.requests) == 4
    assert caught.value.attempts == 4
    assert len(time.waits) == 3


async def test_retry_after_is_honoured_and_the_deadline_holds() -> None:
    """Every wait is at least the 3 s hint, and all waits together stay within the deadline."""
    time = FakeTime()
    limited = Script(
        MockResponse.json(429, {"error": "Too many requests."}, headers={"Retry-After": "3"})
    )
    policy = RetryPolicy(attempts=100, deadline=10)
    async with limited.client(retry=policy, clock=time.clock, sleep=time.sleep) as client:
        with pytest.raises(RateLimitError) as caught:
            await client.endpoints.get(ENDPOINT_ID)
    assert time.waits
    assert all(wait >= 3 for wait in time.waits)
    assert sum(time.waits) <= 10
    assert caught.value.retry_after == 3
    assert caught.value.attempts is not None


class Hold:
    """A simulator sleep that parks every latency fault until released (no real time passes)."""

    def __init__(self) -> None:
        self.release = asyncio.Event()
        self.parked = asyncio.Condition()
        self.count = 0

    async def sleep(self, seconds: float) -> None:
        self.count += 1
        async with self.parked:
            self.parked.notify_all()
        await self.release.wait()


def leftover_tasks() -> list[asyncio.Task[object]]:
    names = ("BulkGet._fetch", "Pager._prepared_pages.<locals>.produce")
    return [t for t in asyncio.all_tasks() if t.get_coro().__qualname__ in names]


def connections_in_use(client: RemedyClient) -> int:
    session = client._owned_session
    assert session is not None
    return len(session.connector._acquired)  # type: ignore[union-attr]


async def cancel_and_check_nothing_is_left(task: asyncio.Task[Any], client: RemedyClient) -> None:
    """Cancel a task using the client, then check no task or connection of it is left."""
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    for _ in range(5):
        await asyncio.sleep(0)
    assert leftover_tasks() == []
    assert connections_in_use(client) == 0


@pytest.fixture
async def held_simulator() -> AsyncIterator[tuple[Simulator, Hold]]:
    hold = Hold()
    faults = (FaultSpec("latency", 1.0, latency_ms=50),)
    simulator = Simulator(
        SimulatorConfig(size=20, paging="offset", faults=faults), sleep=hold.sleep
    )
    async with simulator:
        try:
            yield simulator, hold
        finally:
            hold.release.set()


async def test_cancelling_a_list_leaves_nothing_behind(
    held_simulator: tuple[Simulator, Hold],
) -> None:
    """A list cancelled mid-page leaves no task or connection in use; the client still works."""
    simulator, hold = held_simulator
    async with RemedyClient(simulator.url) as client:
        task = asyncio.create_task(
            client.vulnerability_findings.list(page_size=10, prefetch=2).collect()
        )
        async with hold.parked:
            await asyncio.wait_for(hold.parked.wait_for(lambda: hold.count >= 1), 10)
        await cancel_and_check_nothing_is_left(task, client)
        hold.release.set()
        assert len(await client.scopes.list().collect()) == simulator.dataset.count("scopes")


async def test_cancelling_get_many_leaves_nothing_behind(
    held_simulator: tuple[Simulator, Hold],
) -> None:
    """get_many cancelled with fetches in flight leaves no task or connection in use."""
    simulator, hold = held_simulator
    ids = list(simulator.dataset.ids("endpoints"))
    async with RemedyClient(simulator.url) as client:

        async def fetch_all() -> None:
            async for _ in client.endpoints.get_many(ids, concurrency=8):
                pass

        task = asyncio.create_task(fetch_all())
        async with hold.parked:
            await asyncio.wait_for(hold.parked.wait_for(lambda: hold.count >= 8), 10)
        await cancel_and_check_nothing_is_left(task, client)
        hold.release.set()
        options = RequestOptions(retry=RetryPolicy(attempts=1))
        assert (await client.endpoints.get(ids[0], options=options)).id == ids[0]
