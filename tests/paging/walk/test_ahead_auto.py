"""`prefetch="auto"`, the default: a list's first two pages fetched as the loop reaches them,
then one page read ahead of the loop, so the service answers the next page while the loop
works on this one; `prefetch=0` keeps every page in step."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from remedy_async import MockRequest, MockResponse, RemedyClient
from tests.mock_service import Routes
from tests.paging.walk.test_ahead_prefetch import PAGES, PATH, OffsetListing, settle

FIRST_PAGE = 5
LATER_PAGE = 3
"""Items a page delivers: 5 on the first, 3 on each later one (an offset page overlaps the
page before by 2, to prove the list goes on)."""


def first_item_of_page(page: int) -> int:
    """How many items a loop has taken once it holds the first item of `page` (from 1)."""
    return 1 if page == 1 else FIRST_PAGE + (page - 2) * LATER_PAGE + 1


async def requests_when_holding(
    client: RemedyClient, listing: OffsetListing, page: int, **options: Any
) -> int:
    """The requests made by the time a loop holding the first item of `page` lets everything
    ready run."""
    taken = 0
    items = aiter(client.endpoints.list(page_size=5, **options))
    try:
        async for _ in items:
            taken += 1
            if taken == first_item_of_page(page):
                await settle()
                return listing.requests
    finally:
        await items.aclose()  # type: ignore[attr-defined]
    raise AssertionError("the list ended first")


@pytest.mark.parametrize(
    ("options", "page", "requests"),
    [
        ({}, 1, 1),
        ({}, 2, 2),
        ({}, 3, 4),
        ({}, 6, 7),
        ({"prefetch": 0}, 3, 3),
        ({"prefetch": 0}, 6, 6),
        ({"prefetch": "auto"}, 3, 4),
    ],
)
async def test_the_default_reads_one_page_ahead_from_the_third(
    options: dict[str, Any], page: int, requests: int
) -> None:
    """Holding the first item of a page, the loop has caused that page's request, and by
    default from the third page the next one's too, never more."""
    listing = OffsetListing()
    async with Routes({PATH: listing}).client() as client:
        assert await requests_when_holding(client, listing, page, **options) == requests


async def test_a_loop_that_stops_within_two_pages_asks_for_no_page_it_does_not_read() -> None:
    """Leaving the loop on the last item of the second page leaves no third request made."""
    listing = OffsetListing()
    async with Routes({PATH: listing}).client() as client:
        taken = 0
        async for _ in client.endpoints.list(page_size=5):
            taken += 1
            if taken == FIRST_PAGE + LATER_PAGE:
                break
        await settle()
    assert listing.requests == 2


async def test_reading_ahead_lists_every_item_once_in_order() -> None:
    """The default's items are the in-step list's, in the same order."""
    listing = OffsetListing()
    async with Routes({PATH: listing}).client() as client:
        ahead = [e.id async for e in client.endpoints.list(page_size=5)]
        in_step = [e.id async for e in client.endpoints.list(page_size=5, prefetch=0)]
    assert ahead == in_step == [f"ep-{i:03d}" for i in range(PAGES * 5)]


@pytest.mark.parametrize("prefetch", [None, -1, True, 1.5, "fast", "AUTO"])
async def test_a_prefetch_that_is_neither_auto_nor_a_count_is_refused_before_any_request(
    prefetch: object,
) -> None:
    """A ValueError names the argument; no request is made."""
    listing = OffsetListing()
    async with Routes({PATH: listing}).client() as client:
        with pytest.raises(ValueError, match="prefetch must be"):
            client.endpoints.list(prefetch=prefetch)  # type: ignore[arg-type]
    assert listing.requests == 0


async def test_the_pager_shows_its_prefetch() -> None:
    """A pager's repr says how far it reads ahead."""
    async with Routes({PATH: OffsetListing()}).client() as client:
        assert "prefetch=auto" in repr(client.endpoints.list())
        assert "prefetch=0" in repr(client.endpoints.list(prefetch=0))


async def test_reading_ahead_sends_one_request_at_a_time_in_the_lists_order() -> None:
    """The default holds a page ahead, never two requests in flight: the service sees the
    list's requests one after the other, in order, however long each takes to answer."""
    listing = OffsetListing()
    in_flight = most = 0
    offsets: list[int] = []

    async def slow(request: MockRequest) -> MockResponse:
        nonlocal in_flight, most
        in_flight += 1
        most = max(most, in_flight)
        offsets.append(int(request.query.get("offset", 0)))
        try:
            for _ in range(5):  # answered a few loop turns later, as a socket would be
                await asyncio.sleep(0)
            return listing(request)
        finally:
            in_flight -= 1

    async with Routes({PATH: slow}).client() as client:
        ids = [e.id async for e in client.endpoints.list(page_size=5)]
    assert len(ids) == PAGES * 5
    assert most == 1
    assert offsets == sorted(set(offsets))  # each page asked once, in the list's order
    assert len(offsets) == listing.requests
