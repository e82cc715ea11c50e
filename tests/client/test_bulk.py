"""get_many: one result per input id, duplicates fetched once, bounded, cancellable (on a
MockTransport: the published service's handler, or gets held until released)."""

from __future__ import annotations

import asyncio
import gc
import itertools
import weakref
from collections.abc import AsyncIterator, Iterator

import pytest

from remedy_async import (
    BadRequestError,
    GetResult,
    MockRequest,
    MockResponse,
    NotFoundError,
    RemedyClient,
)
from remedy_async._bulk import get_many
from tests.fakes import endpoint_record
from tests.mock_service import Routes, mock_client
from tests.published import TOKEN, PublishedService

UNKNOWN = "00000000-0000-4000-8000-000000000000"
"""A well-formed id no record has."""


@pytest.fixture
def service() -> PublishedService:
    """The published service, answering `client`."""
    return PublishedService()


@pytest.fixture
async def client(service: PublishedService) -> AsyncIterator[RemedyClient]:
    """A client of `service`, on a MockTransport."""
    async with mock_client(service.handler, token=TOKEN) as opened:
        yield opened


def some_ids(service: PublishedService, count: int) -> list[str]:
    return [record["id"] for record in service.records["endpoints"][:count]]


def gets(service: PublishedService) -> int:
    """How many endpoint gets the service answered."""
    return sum(path.startswith("/v1/endpoints/") for path in service.requests)


async def test_one_result_per_id_in_input_order(
    service: PublishedService, client: RemedyClient
) -> None:
    """Results come one per input id, in input order, each with its record or error: an id
    the service does not know is its 404, a malformed one its 400, an empty one refused."""
    known = some_ids(service, 20)
    ids = [*known[:10], UNKNOWN, *known[10:], "", "not-a-uuid"]
    results = [r async for r in client.endpoints.get_many(ids, concurrency=4)]
    assert [r.id for r in results] == ids
    for result in results:
        if result.id in known:
            assert result.ok
            assert result.unwrap().id == result.id
        elif result.id == "":
            assert isinstance(result.error, ValueError)
        elif result.id == UNKNOWN:
            assert isinstance(result.error, NotFoundError)
            with pytest.raises(NotFoundError, match=r"Endpoint not found\."):
                result.unwrap()
        else:
            assert isinstance(result.error, BadRequestError)
            with pytest.raises(BadRequestError, match=r"Invalid endpoint ID format\."):
                result.unwrap()


async def test_duplicated_ids_are_fetched_once(
    service: PublishedService, client: RemedyClient
) -> None:
    """An id repeated in the input is fetched once and answered for every occurrence."""
    known = some_ids(service, 5)
    ids = known + known + [known[0]] * 3
    results = [r async for r in client.endpoints.get_many(ids, concurrency=3)]
    assert [r.id for r in results] == ids
    assert all(r.ok for r in results)
    assert gets(service) == 5


async def test_an_id_beyond_the_dedupe_window_is_fetched_again(
    service: PublishedService,
    client: RemedyClient,
) -> None:
    """Only the last dedupe_window results are remembered: an older repeat is fetched anew."""
    a, b, c = some_ids(service, 3)
    results = [
        r async for r in client.endpoints.get_many([a, b, c, a, c], concurrency=1, dedupe_window=2)
    ]
    assert [r.id for r in results] == [a, b, c, a, c]
    assert all(r.ok for r in results)
    assert gets(service) == 4  # a twice; c remembered


async def test_int_ids_are_accepted(service: PublishedService, client: RemedyClient) -> None:
    """Int ids are fetched by their decimal string, and reported under it (the service's
    ids are UUIDs: it answers 400 for "7", which the client never judges itself)."""
    results = [r async for r in client.endpoints.get_many([7, 7])]
    assert [r.id for r in results] == ["7", "7"]
    assert all(isinstance(r.error, BadRequestError) for r in results)
    assert gets(service) == 1


async def test_async_iterable_input(service: PublishedService, client: RemedyClient) -> None:
    """An async iterable of ids works like a list."""
    known = some_ids(service, 8)

    async def stream() -> AsyncIterator[str]:
        for resource_id in known:
            yield resource_id

    results = [r.id async for r in client.endpoints.get_many(stream(), concurrency=3)]
    assert results == known


async def test_unordered_yields_every_result_once(
    service: PublishedService, client: RemedyClient
) -> None:
    """ordered=False yields every input id's result exactly once, duplicates included."""
    known = some_ids(service, 12)
    ids = [*known, known[0], UNKNOWN]
    results = [r async for r in client.endpoints.get_many(ids, concurrency=4, ordered=False)]
    assert sorted(r.id for r in results) == sorted(ids)


async def test_input_is_read_lazily_and_memory_stays_bounded(
    service: PublishedService, client: RemedyClient
) -> None:
    """An endless id stream is read only as far as the reorder window needs (twice the
    concurrency, ordered)."""
    known = some_ids(service, 30)
    read = 0

    def endless() -> Iterator[str]:
        nonlocal read
        for resource_id in itertools.cycle(known):
            read += 1
            yield resource_id

    bulk = client.endpoints.get_many(endless(), concurrency=5, dedupe_window=0)
    taken = [result async for result in _take(bulk, 50)]
    assert len(taken) == 50
    assert read <= 50 + 2 * 5


async def _take(
    results: AsyncIterator[GetResult[object]], count: int
) -> AsyncIterator[GetResult[object]]:
    async for result in results:
        yield result
        count -= 1
        if count == 0:
            await results.aclose()  # type: ignore[attr-defined]
            return


class GatedGets:
    """A get endpoint that counts concurrent requests and holds them until released."""

    def __init__(self) -> None:
        self.in_flight = 0
        self.max_in_flight = 0
        self.started = 0
        self.release = asyncio.Event()
        self.arrived = asyncio.Condition()

    async def handle(self, request: MockRequest, id: str) -> MockResponse:
        self.started += 1
        self.in_flight += 1
        self.max_in_flight = max(self.max_in_flight, self.in_flight)
        async with self.arrived:
            self.arrived.notify_all()
        try:
            await asyncio.wait_for(self.release.wait(), timeout=10)
            return MockResponse.json(200, endpoint_record(id))
        finally:
            self.in_flight -= 1


async def test_concurrency_caps_requests_in_flight() -> None:
    """No more than `concurrency` gets are in flight at once."""
    handler = GatedGets()
    async with Routes({"/v1/endpoints/{id}": handler.handle}).client() as client:
        task = asyncio.create_task(
            _collect(client.endpoints.get_many([f"e{i}" for i in range(20)], concurrency=4))
        )
        try:
            async with handler.arrived:
                await asyncio.wait_for(handler.arrived.wait_for(lambda: handler.in_flight >= 4), 10)
        finally:
            handler.release.set()
        results = await task
    assert len(results) == 20
    assert handler.max_in_flight == 4


async def _collect(results: AsyncIterator[GetResult[object]]) -> list[GetResult[object]]:
    return [result async for result in results]


def bulk_tasks() -> list[asyncio.Task[object]]:
    return [t for t in asyncio.all_tasks() if t.get_coro().__qualname__ == "BulkGet._fetch"]


async def test_cancelling_get_many_cancels_fetches_in_flight() -> None:
    """Cancelling the consumer cancels its fetches; the client keeps working afterwards."""
    handler = GatedGets()
    async with Routes({"/v1/endpoints/{id}": handler.handle}).client() as client:
        task = asyncio.create_task(
            _collect(client.endpoints.get_many([f"e{i}" for i in range(10)], concurrency=3))
        )
        async with handler.arrived:
            await asyncio.wait_for(handler.arrived.wait_for(lambda: handler.in_flight >= 3), 10)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        left = bulk_tasks()
        handler.release.set()
        assert left == []
        assert (await client.endpoints.get("after")).id == "after"


async def test_breaking_out_cancels_fetches_in_flight() -> None:
    """Leaving the loop early and closing the iterator cancels the remaining fetches."""
    handler = GatedGets()
    handler.release.set()
    async with Routes({"/v1/endpoints/{id}": handler.handle}).client() as client:
        results = client.endpoints.get_many([f"e{i}" for i in range(50)], concurrency=5)
        async for result in results:
            assert result.ok
            break
        await results.aclose()  # type: ignore[attr-defined]
        assert bulk_tasks() == []
    assert handler.started < 50


def test_a_single_string_is_refused() -> None:
    """Passing one id string instead of a collection of ids is a TypeError."""
    client = RemedyClient("https://api.example.com")
    with pytest.raises(TypeError, match="single string"):
        client.endpoints.get_many("ep-1")


@pytest.mark.parametrize(("name", "value"), [("concurrency", 0), ("dedupe_window", -1)])
def test_bad_settings_are_refused(name: str, value: int) -> None:
    """concurrency < 1 or dedupe_window < 0 raises ValueError at once."""
    client = RemedyClient("https://api.example.com")
    with pytest.raises(ValueError, match=name):
        client.endpoints.get_many(["a"], **{name: value})  # type: ignore[arg-type]


async def test_unordered_yields_a_result_as_soon_as_its_fetch_finishes() -> None:
    """With ordered=False a quick answer comes before a slow one asked for earlier."""
    slow_may_answer = asyncio.Event()

    async def answer(request: MockRequest, id: str) -> MockResponse:
        if id == "slow":
            await slow_may_answer.wait()
        return MockResponse.json(200, endpoint_record(id))

    async with Routes({"/v1/endpoints/{id}": answer}).client() as client:
        order = []
        async with asyncio.timeout(10):
            async for result in client.endpoints.get_many(["slow", "quick"], ordered=False):
                order.append(result.id)
                slow_may_answer.set()
    assert order == ["quick", "slow"]


@pytest.mark.parametrize("ordered", [True, False])
async def test_an_error_that_is_no_answer_for_an_id_ends_the_iteration(ordered: bool) -> None:
    """An error other than the API's, ValueError or TypeError is no result: the iteration
    raises it, and the fetches still in flight are cancelled."""

    async def get(resource_id: str | int) -> object:
        if resource_id == "bad":
            raise RuntimeError("a bug in the get")
        await asyncio.sleep(0)
        return resource_id

    ids = ["a", "bad", *(f"id-{i}" for i in range(20))]
    results = get_many(get, ids, 4, ordered=ordered, dedupe_window=10)
    with pytest.raises(RuntimeError, match="a bug in the get"):
        async for _ in results:
            pass
    assert bulk_tasks() == []


class Record:
    """A value a get returns, which a weak reference can follow."""


@pytest.mark.parametrize("ordered", [True, False])
async def test_a_finished_get_many_lets_its_results_go_without_the_garbage_collector(
    ordered: bool,
) -> None:
    """Once the iteration ends, nothing of it keeps the results it remembered for duplicates
    alive: they are freed as soon as the caller lets them go (and the loop has run the
    workers' last callbacks), no collection needed."""
    made: list[weakref.ref[Record]] = []

    async def get(resource_id: str | int) -> Record:
        await asyncio.sleep(0)
        record = Record()
        made.append(weakref.ref(record))
        return record

    collecting = gc.isenabled()
    gc.disable()
    try:
        results = get_many(
            get, [f"id-{i}" for i in range(50)], 4, ordered=ordered, dedupe_window=100
        )
        count = 0
        async for _ in results:
            count += 1
        del results, _
        await asyncio.sleep(0)  # the workers' last callbacks run
        assert count == 50
        assert len(made) == 50
        assert [ref for ref in made if ref() is not None] == []
    finally:
        if collecting:
            gc.enable()


class HeldFirst:
    """A get holding its first id until released, answering the others at once."""

    def __init__(self, first: str) -> None:
        self.first = first
        self.release = asyncio.Event()
        self.started: list[str | int] = []

    async def __call__(self, resource_id: str | int) -> str:
        self.started.append(resource_id)
        if resource_id == self.first:
            await self.release.wait()
        await asyncio.sleep(0)
        return str(resource_id)


@pytest.mark.parametrize("ordered", [True, False])
@pytest.mark.parametrize("awaited", [False, True])
async def test_an_input_that_fails_raises_where_it_failed_after_the_results_before_it(
    ordered: bool, awaited: bool
) -> None:
    """The ids read before the input (plain or async) raised are answered; then its error is
    raised."""

    def plain_ids() -> Iterator[str]:
        yield from ("a", "b", "c")
        raise OSError("the id file went away")

    async def async_ids() -> AsyncIterator[str]:
        for resource_id in plain_ids():
            yield resource_id

    def ids() -> Iterator[str] | AsyncIterator[str]:
        return async_ids() if awaited else plain_ids()

    async def get(resource_id: str | int) -> str:
        await asyncio.sleep(0)
        return str(resource_id)

    answered: list[str] = []

    async def take_all() -> None:
        async for result in get_many(get, ids(), 2, ordered=ordered, dedupe_window=0):
            answered.append(result.id)

    with pytest.raises(OSError, match="the id file went away"):
        await take_all()
    assert (answered if ordered else sorted(answered)) == ["a", "b", "c"]
    assert bulk_tasks() == []


async def test_unordered_hands_over_an_id_asked_again_while_in_flight_once_per_ask() -> None:
    """As done, an id repeated while its fetch runs is fetched once and handed over per ask."""
    get = HeldFirst("a")
    results = get_many(get, ["a", "b", "a", "a"], 4, ordered=False, dedupe_window=0)
    taken = [(await anext(results)).id]
    get.release.set()
    taken += [result.id async for result in results]
    assert taken == ["b", "a", "a", "a"]
    assert get.started == ["a", "b"]


async def test_ordered_a_slow_answer_holds_back_no_fetch_behind_it_within_the_window() -> None:
    """In order, concurrency 2: while the first id's answer is held, each fetch that ends
    starts the next id's at once (never more than 2 in flight), up to a window of twice the
    concurrency behind the result awaited; the results still come in input order."""
    release = asyncio.Event()
    started: list[str] = []
    in_flight = most = 0

    async def get(resource_id: str | int) -> str:
        nonlocal in_flight, most
        started.append(str(resource_id))
        in_flight += 1
        most = max(most, in_flight)
        try:
            if resource_id == "a":
                await release.wait()
            else:
                await asyncio.sleep(0)
            return str(resource_id)
        finally:
            in_flight -= 1

    results = get_many(get, list("abcdefgh"), 2, ordered=True, dedupe_window=0)
    first = asyncio.ensure_future(anext(results))
    for _ in range(20):
        await asyncio.sleep(0)
    assert started == list("abcde")  # the id awaited, and a window of 2 x 2 ids behind it
    assert not first.done()
    release.set()
    assert (await first).id == "a"
    rest = [result.id async for result in results]
    assert rest == list("bcdefgh")
    assert started == list("abcdefgh")
    assert most == 2
