"""Awaiting a pager: `await collection.list(...)` is the list's first page, fetched alone, and
its resume token lists the next; a pager is awaited once or iterated, never both."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from remedy_async import (
    ClientEvent,
    Endpoint,
    MockRequest,
    MockResponse,
    Page,
    Pager,
    RemedyClient,
    RetryPolicy,
    ServerError,
)
from tests.mock_service import Routes, mock_client
from tests.published import TOKEN, PublishedService, dataset

SIZE = 230


@pytest.fixture
def service() -> PublishedService:
    return PublishedService(dataset(sizes={"endpoints": SIZE}))


def client_of(service: PublishedService, **settings: Any) -> RemedyClient:
    return mock_client(service.handler, token=TOKEN, **settings)


def ids(service: PublishedService) -> list[str]:
    return [record["id"] for record in service.records["endpoints"]]


async def test_awaiting_a_list_gives_its_first_page_from_one_request(
    service: PublishedService,
) -> None:
    """`await client.endpoints.list(page_size=50)` sends one request and returns its Page: the
    first 50 records, typed, with the response's status and the announced total."""
    async with client_of(service) as client:
        page = await client.endpoints.list(page_size=50)
    assert isinstance(page, Page)
    assert all(isinstance(item, Endpoint) for item in page.items)
    assert [item.id for item in page.items] == ids(service)[:50]
    assert (page.status, page.total) == (200, SIZE)
    assert service.requests == ["/v1/endpoints?limit=50"]


async def test_page_resume_tokens_read_the_whole_list_exactly_once(
    service: PublishedService,
) -> None:
    """Awaiting list(resume_token=page.resume_token) from each page in turn reads every record
    once, in order, one request a page, ending on a page whose resume_token is None."""
    seen: list[str] = []
    async with client_of(service) as client:
        page = await client.endpoints.list(page_size=100)
        seen += [item.id for item in page.items]
        while page.resume_token is not None:
            page = await client.endpoints.list(page_size=100, resume_token=page.resume_token)
            seen += [item.id for item in page.items]
    assert seen == ids(service)
    assert len(service.requests) == 3


async def test_prefetch_and_concurrency_do_not_fetch_ahead_of_an_awaited_page(
    service: PublishedService,
) -> None:
    """An awaited pager fetches one page even when the list asks for pages ahead or in
    parallel: prefetch and concurrency are for iterating."""
    async with client_of(service) as client:
        page = await client.endpoints.list(page_size=20, prefetch=4, concurrency=4)
    assert len(page.items) == 20
    assert service.requests == ["/v1/endpoints?limit=20"]


async def test_an_awaited_page_is_cut_to_max_items_and_its_token_continues_after_it(
    service: PublishedService,
) -> None:
    """With max_items below the page size the page holds max_items records, and its token
    continues right after the last of them; the pager's token is the page's."""
    async with client_of(service) as client:
        pager = client.endpoints.list(page_size=100, max_items=7)
        page = await pager
        assert pager.resume_token == page.resume_token
        rest = await client.endpoints.list(page_size=100, resume_token=page.resume_token)
    assert [item.id for item in page.items] == ids(service)[:7]
    assert rest.items[0].id == ids(service)[7]


async def test_an_awaited_list_filters_as_iterating_does(service: PublishedService) -> None:
    """Filters reach the awaited page's request as they reach an iterated one's."""
    async with client_of(service) as client:
        page = await client.endpoints.list(os_family="linux", has_agent=True)
        iterated = [
            item.id async for item in client.endpoints.list(os_family="linux", has_agent=True)
        ]
    assert [item.id for item in page.items] == iterated[:100]
    assert "osFamily=linux" in service.requests[0]
    assert "hasAgent=true" in service.requests[0]


async def test_awaiting_an_empty_list_gives_a_page_without_items_and_no_token() -> None:
    """A list with no records is one page with no items, and nothing to continue."""
    routes = Routes(
        {"/v1/scopes": lambda request: MockResponse.json(200, {"data": [], "total": 0})}
    )
    async with routes.client() as client:
        page = await client.scopes.list()
    assert (page.items, page.status, page.total, page.resume_token) == ((), 200, 0, None)
    assert len(routes.requests) == 1


async def test_awaiting_a_list_of_no_items_sends_nothing(service: PublishedService) -> None:
    """max_items=0 asks for no page: none is fetched, and the empty page's token continues the
    list from where it began."""
    async with client_of(service) as client:
        page = await client.endpoints.list(max_items=0, page_size=10)
        assert (page.items, page.status, page.resume_token is not None) == ((), 204, True)
        assert service.requests == []
        following = await client.endpoints.list(page_size=10, resume_token=page.resume_token)
    assert [item.id for item in following.items] == ids(service)[:10]


async def test_a_failed_await_raises_with_the_token_of_where_the_list_began() -> None:
    """A first page that fails raises its typed error, carrying the resume token of the list's
    start and no items delivered."""

    def failing(request: MockRequest) -> MockResponse:
        return MockResponse.json(503, {"error": "down for maintenance"})

    routes = Routes({"/v1/endpoints": failing})
    async with routes.client(retry=RetryPolicy(attempts=1)) as client:
        with pytest.raises(ServerError) as raised:
            await client.endpoints.list(page_size=10)
    assert raised.value.status == 503
    assert raised.value.items_yielded == 0
    assert raised.value.resume_token is not None


async def test_an_awaited_page_is_one_list_call_to_the_event_hooks(
    service: PublishedService,
) -> None:
    """The event hooks see an awaited list as one `endpoints.list` call that ends once its
    page is in, as they see an iteration."""
    events: list[ClientEvent] = []
    async with client_of(service, event_hooks=[events.append]) as client:
        await client.endpoints.list(page_size=10)
    calls = [(event.kind, event.operation) for event in events if event.kind in ("call", "end")]
    assert calls[0] == ("call", "endpoints.list")
    assert calls[-1] == ("end", "endpoints.list")
    assert sum(event.kind == "request" for event in events) == 1


async def test_as_dicts_awaits_to_a_page_of_wire_dicts(service: PublishedService) -> None:
    """An `as_dicts()` pager awaits to its first page of the records' wire dicts."""
    async with client_of(service) as client:
        page = await client.endpoints.list(page_size=3).as_dicts()
    assert [row["id"] for row in page.items] == ids(service)[:3]
    assert all(type(row) is dict for row in page.items)


# A pager is awaited once or iterated ------------------------------------------------------------


async def test_awaiting_a_pager_twice_is_a_runtime_error_before_any_request(
    service: PublishedService,
) -> None:
    """A second await would fetch the same first page again (a loop awaiting it for the next
    page would never end): RuntimeError, nothing sent."""
    async with client_of(service) as client:
        pager = client.endpoints.list(page_size=10)
        await pager
        with pytest.raises(RuntimeError, match=r"already awaited.*resume_token=page\.resume_token"):
            await pager
    assert len(service.requests) == 1


async def _items(pager: Pager[Endpoint]) -> object:
    return [item async for item in pager]


async def _pages(pager: Pager[Endpoint]) -> object:
    return [page async for page in pager.pages()]


ITERATIONS: dict[str, Callable[[Pager[Endpoint]], Awaitable[object]]] = {
    "items": _items,
    "pages": _pages,
    "collect": Pager.collect,
    "first": Pager.first,
}
"""Each way of iterating a pager, run to its end."""


@pytest.mark.parametrize("how", ITERATIONS)
async def test_an_iterated_pager_cannot_be_awaited(service: PublishedService, how: str) -> None:
    """Awaiting a pager already iterated (by items, pages, collect or first) would hand over
    its first page's items again: RuntimeError, nothing sent."""
    async with client_of(service) as client:
        pager = client.endpoints.list(page_size=100, max_items=3)
        await ITERATIONS[how](pager)
        sent = len(service.requests)
        with pytest.raises(RuntimeError, match="already iterated"):
            await pager
    assert len(service.requests) == sent


@pytest.mark.parametrize("how", ITERATIONS)
async def test_an_awaited_pager_cannot_be_iterated(service: PublishedService, how: str) -> None:
    """Iterating a pager already awaited (by items, pages, collect or first) would hand over
    the awaited page's items again: RuntimeError, nothing sent."""
    async with client_of(service) as client:
        pager = client.endpoints.list(page_size=10)
        await pager
        with pytest.raises(RuntimeError, match="was awaited for its first page"):
            await ITERATIONS[how](pager)
    assert len(service.requests) == 1


async def test_a_pager_not_awaited_still_iterates_again_from_its_start(
    service: PublishedService,
) -> None:
    """Iterating is as it was: each iteration of a pager never awaited starts again from where
    the list call began."""
    async with client_of(service) as client:
        pager = client.endpoints.list(page_size=100, max_items=150)
        first = [item.id async for item in pager]
        again = [item.id async for item in pager]
    assert first == again == ids(service)[:150]
