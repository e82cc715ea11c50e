"""Pager: items, pages, caps, collect/first, and faults from paginators and items."""

from __future__ import annotations

import weakref
from collections.abc import AsyncIterator, Callable

import pytest

from remedy_async import (
    ClientEvent,
    DecodeError,
    Endpoint,
    JSONResponse,
    MockRequest,
    MockResponse,
    Page,
    PageRequest,
    PageResult,
    PaginationError,
    RemedyClient,
    RequestOptions,
    Scope,
    UnpagedPaginator,
)
from remedy_async.simulator import Simulator, SimulatorConfig
from tests.mock_service import Routes
from tests.paging.published import endpoint, endpoints, scope

TOTAL = 25


class PageNumberPaginator:
    """A paginator written outside the library: ?page=N&size=M until a short page."""

    def first(self, page_size: int | None) -> PageRequest:
        return PageRequest(params=(("page", "1"), ("size", str(page_size or 10))))

    def read(self, request: PageRequest, response: JSONResponse) -> PageResult:
        params = dict(request.params)
        items = response.body["items"]
        if len(items) < int(params["size"]):
            return PageResult(items=items, next=None, items_path="$.items")
        following = (("page", str(int(params["page"]) + 1)), ("size", params["size"]))
        return PageResult(items=items, next=PageRequest(params=following), items_path="$.items")


def scopes_page(request: MockRequest) -> MockResponse:
    """A scopes listing of TOTAL paged by ?page&size, each page's request id `req-{page}`."""
    page, size = int(request.query["page"]), int(request.query["size"])
    ids = range((page - 1) * size, min(page * size, TOTAL))
    body = {"items": [scope(f"sc-{i:02d}") for i in ids]}
    return MockResponse.json(200, body, headers={"X-Request-Id": f"req-{page}"})


@pytest.fixture
async def scopes() -> tuple[RemedyClient, Routes]:
    """A client paging by page number, and the scopes service whose `requests` are the pages
    it served."""
    service = Routes({"/v1/scopes": scopes_page})
    return service.client(paginator=PageNumberPaginator()), service


def answer(body: object) -> Callable[[MockRequest], MockResponse]:
    """A route answering every request with `body` as JSON."""
    return lambda request: MockResponse.json(200, body)


ALL_IDS = [f"sc-{i:02d}" for i in range(TOTAL)]
NO_ID = {key: value for key, value in endpoint("x").items() if key != "id"}
"""An endpoint record without its id."""


async def test_a_new_paginator_plugs_in_as_one_class(
    scopes: tuple[RemedyClient, Routes],
) -> None:
    """A paginator defined outside the library lists every item across pages, in order."""
    client, service = scopes
    async with client:
        ids = [scope.id async for scope in client.scopes.list(page_size=10)]
    assert ids == ALL_IDS
    assert len(service.requests) == 3


async def test_pages_carry_items_and_response_details(scopes: tuple[RemedyClient, Routes]) -> None:
    """pages() yields Page values with typed items, status, headers and request id."""
    client, _ = scopes
    async with client:
        pages = [page async for page in client.scopes.list(page_size=10).pages()]
    assert [len(page.items) for page in pages] == [10, 10, 5]
    assert [page.request_id for page in pages] == ["req-1", "req-2", "req-3"]
    first: Page[Scope] = pages[0]
    assert first.status == 200
    assert first.headers["X-Request-Id"] == "req-1"
    assert "page=1" in first.url
    assert isinstance(first.items[0], Scope)


@pytest.mark.parametrize(
    ("max_items", "pages_needed"), [(1, 1), (10, 1), (11, 2), (25, 3), (99, 3)]
)
async def test_max_items_caps_the_items_and_the_pages_fetched(
    scopes: tuple[RemedyClient, Routes], max_items: int, pages_needed: int
) -> None:
    """max_items yields at most that many items and fetches no page beyond the one reaching it."""
    client, service = scopes
    async with client:
        items = await client.scopes.list(page_size=10, max_items=max_items).collect()
    assert [scope.id for scope in items] == ALL_IDS[:max_items]
    assert len(service.requests) == pages_needed


async def test_max_items_zero_sends_nothing(scopes: tuple[RemedyClient, Routes]) -> None:
    """max_items=0 yields nothing and sends no request."""
    client, service = scopes
    async with client:
        assert await client.scopes.list(max_items=0).collect() == []
    assert len(service.requests) == 0


async def test_a_plain_for_over_a_pager_says_to_use_async_for(
    scopes: tuple[RemedyClient, Routes],
) -> None:
    """`for e in client.scopes.list()` raises a TypeError naming `async for`, before any
    request; the pager can still be iterated as it should be afterwards."""
    client, service = scopes
    async with client:
        pager = client.scopes.list(max_items=3)
        with pytest.raises(TypeError, match=r"asynchronous: iterate it with 'async for") as raised:
            for _ in pager:  # type: ignore[attr-defined]  # what the error is for
                pass
        assert "scopes" in str(raised.value)
        assert len(service.requests) == 0
        assert [item.id async for item in pager] == ALL_IDS[:3]


async def test_max_items_cuts_the_last_page(scopes: tuple[RemedyClient, Routes]) -> None:
    """With max_items inside a page, pages() yields that page cut to the cap."""
    client, _ = scopes
    async with client:
        pages = [page async for page in client.scopes.list(page_size=10, max_items=13).pages()]
    assert [len(page.items) for page in pages] == [10, 3]


async def test_first_fetches_one_page(scopes: tuple[RemedyClient, Routes]) -> None:
    """first() returns the first item after fetching a single page."""
    client, service = scopes
    async with client:
        first = await client.scopes.list(page_size=10).first()
    assert first is not None
    assert first.id == "sc-00"
    assert len(service.requests) == 1


async def test_first_of_an_empty_list_is_none() -> None:
    """first() returns None for an empty list."""
    async with Routes({"/v1/endpoints": answer([])}).client() as client:
        assert await client.endpoints.list().first() is None


async def test_each_iteration_starts_from_the_first_page(
    scopes: tuple[RemedyClient, Routes],
) -> None:
    """Iterating the same pager twice lists everything twice."""
    client, service = scopes
    async with client:
        pager = client.scopes.list(page_size=10)
        assert [s.id async for s in pager] == [s.id async for s in pager] == ALL_IDS
    assert len(service.requests) == 6


async def test_per_call_options_apply_to_every_page(scopes: tuple[RemedyClient, Routes]) -> None:
    """RequestOptions given to list() are sent with every page request, not just the first."""
    client, service = scopes
    async with client:
        await client.scopes.list(
            page_size=10, options=RequestOptions(headers={"X-Trace": "t"})
        ).collect()
    assert [r.headers.get("X-Trace") for r in service.requests] == ["t", "t", "t"]


async def test_bad_item_is_a_decode_error_with_its_path() -> None:
    """An item that does not fit the model raises DecodeError naming its index in the page."""
    listing = answer({"data": [endpoint("ep-1"), NO_ID]})
    async with Routes({"/v1/endpoints": listing}).client() as client:
        with pytest.raises(DecodeError) as caught:
            await client.endpoints.list().collect()
    assert caught.value.path == "$.data[1].id"


async def test_records_before_a_bad_item_are_delivered_and_resume_stops_at_it() -> None:
    """Iterating items hands over the good records before a bad one; the error resumes at it."""
    fixed = False

    def listing(request: MockRequest) -> MockResponse:
        bad = endpoint("ep-2") if fixed else NO_ID
        return MockResponse.json(200, {"items": [*endpoints(2), bad, endpoint("ep-3")]})

    got: list[str] = []

    async def take_all(pager: AsyncIterator[Endpoint]) -> None:
        async for record in pager:
            got.append(record.id)

    async with Routes({"/v1/endpoints": listing}).client() as client:
        with pytest.raises(DecodeError) as caught:
            await take_all(aiter(client.endpoints.list()))
        assert got == ["ep-0", "ep-1"]
        assert caught.value.path == "$.items[2].id"
        assert caught.value.items_yielded == 2
        fixed = True
        rest = client.endpoints.list(resume_token=caught.value.resume_token)
        assert [record.id async for record in rest] == ["ep-2", "ep-3"]


async def test_pages_with_a_bad_item_raise_before_the_page_is_yielded() -> None:
    """pages() builds a whole page first, so a bad item raises with no part of its page yielded."""
    listing = answer({"items": [endpoint("ep-0"), endpoint(7.5)]})
    seen: list[Page[Endpoint]] = []

    async def take_pages(pages: AsyncIterator[Page[Endpoint]]) -> None:
        async for page in pages:
            seen.append(page)

    async with Routes({"/v1/endpoints": listing}).client() as client:
        with pytest.raises(DecodeError) as caught:
            await take_pages(client.endpoints.list().pages())
    assert seen == []
    assert caught.value.path == "$.items[1].id"
    assert caught.value.items_yielded == 0


async def test_unpaged_list_that_advertises_more_pages_is_a_pagination_error() -> None:
    """An unpaged list whose response says more pages exist raises rather than truncating."""
    service = Routes({"/v1/endpoints": answer({"items": [{"id": "ep-1"}], "nextCursor": "abc"})})
    async with service.client(paginator=UnpagedPaginator()) as client:
        with pytest.raises(PaginationError, match="nextCursor"):
            await client.endpoints.list().collect()


async def test_unpaged_envelope_keys_are_all_understood() -> None:
    """Bare arrays and items/data/results envelopes all list their items."""
    bodies = {
        "/v1/endpoints": [endpoint("a")],
        "/v1/scopes": {"items": [scope("b")]},
        "/v1/remediation-targets": {"data": [{"id": "c"}]},
        "/v1/vulnerability-findings": {"results": [{"id": "d"}], "nextCursor": None},
    }
    async with Routes({path: answer(body) for path, body in bodies.items()}).client() as client:
        firsts = [
            await client.endpoints.list().first(),
            await client.scopes.list().first(),
            await client.remediation_targets.list().first(),
            await client.vulnerability_findings.list().first(),
        ]
    assert [record.id for record in firsts if record is not None] == ["a", "b", "c", "d"]


def test_pager_repr_describes_the_call() -> None:
    """repr(pager) names the collection, page size, cap and the default AutoPaginator."""
    client = RemedyClient("https://api.example.com")
    text = repr(client.endpoints.list(page_size=5, max_items=9))
    assert "endpoints" in text
    assert "page_size=5" in text
    assert "max_items=9" in text
    assert "AutoPaginator" in text


async def test_as_dicts_yields_wire_records_with_paging_unchanged(
    scopes: tuple[RemedyClient, Routes],
) -> None:
    """as_dicts() lists the same records as wire dicts, across pages, with resume tokens."""
    client, _ = scopes
    async with client:
        pager = client.scopes.list(page_size=10).as_dicts()
        records = [record async for record in pager]
        assert records == [scope(i) for i in ALL_IDS]
        first_page = await anext(aiter(client.scopes.list(page_size=10).as_dicts().pages()))
        rest = client.scopes.list(resume_token=first_page.resume_token).as_dicts()
        assert [r["id"] async for r in rest] == ALL_IDS[10:]


async def test_as_dicts_still_rejects_items_that_are_not_objects() -> None:
    """A non-object item in as_dicts() mode raises DecodeError at its path."""
    service = Routes({"/v1/endpoints": answer({"items": [{"id": "a"}, "b"]})})
    async with service.client() as client:
        with pytest.raises(DecodeError) as caught:
            await client.endpoints.list().as_dicts().collect()
    assert caught.value.path == "$.items[1]"


class RememberingPaginator(PageNumberPaginator):
    """Page-number paging that notes, as each later page's request is sent, whether the
    previous page's response still lives."""

    def __init__(self) -> None:
        self.previous: weakref.ref[JSONResponse] | None = None
        self.previous_alive: list[bool] = []

    def read(self, request: PageRequest, response: JSONResponse) -> PageResult:
        self.previous = weakref.ref(response)
        return super().read(request, response)

    def on_event(self, event: ClientEvent) -> None:
        if event.kind == "request" and self.previous is not None:
            self.previous_alive.append(self.previous() is not None)


@pytest.mark.parametrize("mode", ["items", "dicts", "pages"])
async def test_a_page_is_let_go_before_the_next_one_is_read(mode: str) -> None:
    """Only one page's response is alive at a time: it is freed before the next page is
    requested, so memory (and the garbage collector's work) holds one page, not two."""
    paginator = RememberingPaginator()
    service = Routes({"/v1/scopes": scopes_page})
    async with service.client(paginator=paginator, event_hooks=[paginator.on_event]) as client:
        pager = client.scopes.list(page_size=10)
        if mode == "pages":
            async for page in pager.pages():
                assert page.items
        else:
            async for record in pager.as_dicts() if mode == "dicts" else pager:
                assert record
    assert paginator.previous_alive == [False, False]


@pytest.mark.parametrize(
    ("paging", "announced"), [("offset", True), ("page", True), ("cursor", False)]
)
async def test_pager_and_pages_say_the_total_the_service_announces(
    paging: str, announced: bool
) -> None:
    """`Page.total` and `Pager.total` give the list's size when the service announces it, and
    None when it does not (never a guess)."""
    async with Simulator(SimulatorConfig(size=30, paging=paging)) as simulator:
        expected = simulator.dataset.count("endpoints")
        async with RemedyClient(simulator.url) as client:
            pager = client.endpoints.list(page_size=7)
            assert pager.total is None
            totals = [page.total async for page in pager.pages()]
    assert totals == [expected if announced else None] * len(totals)
    assert pager.total == (expected if announced else None)


async def test_a_token_after_part_of_a_page_continues_right_there() -> None:
    """`Page.resume_token_after(k)` continues after the page's k-th item, for a consumer that
    stops part-way through a page: on a proven offset list and on a plain one alike."""
    async with Simulator(SimulatorConfig(size=40)) as service, RemedyClient(service.url) as client:
        every = [e.id for e in await client.endpoints.list().collect()]
        page, second = [page async for page in client.endpoints.list(page_size=10).pages()][:2]
        token = second.resume_token_after(3)
        rest = await client.endpoints.list(page_size=10, resume_token=token).collect()
        before = [e.id for e in [*page.items, *second.items[:3]]]
        assert [*before, *[e.id for e in rest]] == every
        assert page.resume_token_after(len(page.items)) == page.resume_token
        start = await client.endpoints.list(resume_token=page.resume_token_after(0)).collect()
        assert [e.id for e in start] == every


def test_a_page_made_by_hand_knows_only_its_end() -> None:
    """A Page built outside a Pager has its own token only; another count is a ValueError."""
    page = Page(items=(1, 2), status=200, headers={}, request_id=None, url="u", resume_token="t")
    assert page.resume_token_after(2) == "t"
    with pytest.raises(ValueError, match="not made by a Pager"):
        page.resume_token_after(1)
    with pytest.raises(ValueError, match="count must be an int from 0 to 2"):
        page.resume_token_after(3)
