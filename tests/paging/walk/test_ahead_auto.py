"""`prefetch="auto"`, the default: a list's first two pages fetched as the loop reaches them,
then one page read ahead of the loop, so the service answers the next page while the loop
works on this one (on a list that announces its total, the next page's request sent as soon as
the page the loop waits for is answered, before that page is read, for records and wire dicts
alike); `prefetch=0` keeps every page in step."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from remedy_async import MockRequest, MockResponse, RemedyClient
from remedy_async._paging._walk._ahead import PAGE_TASK
from tests.loopback import serve_handler
from tests.mock_service import Routes
from tests.paging.walk.test_ahead_prefetch import PAGES, PATH, OffsetListing, settle

FIRST_PAGE = 5
LATER_PAGE = 3
"""Items a page delivers: 5 on the first, 3 on each later one (an offset page overlaps the
page before by 2, to prove the list goes on)."""
OFFSET_PAGES = 1 + -(-(PAGES * 5 - FIRST_PAGE) // LATER_PAGE)
"""The pages a whole list takes."""


def first_item_of_page(page: int) -> int:
    """How many items a loop has taken once it holds the first item of `page` (from 1)."""
    return 1 if page == 1 else FIRST_PAGE + (page - 2) * LATER_PAGE + 1


async def requests_when_holding(
    client: RemedyClient, listing: OffsetListing, page: int, *, dicts: bool = False, **options: Any
) -> int:
    """The requests made by the time a loop holding the first item of `page` lets everything
    ready run (a loop handed wire dicts, with `dicts`)."""
    taken = 0
    pager = client.endpoints.list(page_size=5, **options)
    items = aiter(pager.as_dicts() if dicts else pager)
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


@pytest.mark.parametrize(
    ("options", "page", "requests"),
    [({}, 1, 1), ({}, 2, 2), ({}, 3, 4), ({}, 6, 7), ({"prefetch": 0}, 6, 6)],
)
async def test_as_dicts_holds_one_page_ahead_from_the_third(
    options: dict[str, Any], page: int, requests: int
) -> None:
    """A loop handed wire dicts that pauses on a page has caused that page's request and, from
    the third page, the next one's: one page ahead, as for records, never more."""
    listing = OffsetListing()
    async with Routes({PATH: listing}).client() as client:
        held = await requests_when_holding(client, listing, page, dicts=True, **options)
    assert held == requests


class TakenWhenAsked(OffsetListing):
    """The listing, noting how many items the loop had taken when each request came in."""

    def __init__(self) -> None:
        super().__init__()
        self.taken = 0
        self.taken_when_asked: list[int] = []

    def __call__(self, request: MockRequest) -> MockResponse:
        self.taken_when_asked.append(self.taken)
        return super().__call__(request)


@pytest.mark.parametrize("dicts", [False, True])
async def test_the_next_pages_request_goes_out_before_the_one_answered_is_read(
    dicts: bool,
) -> None:
    """From the fourth page on, each page's request reaches the service before the loop is
    handed the first item of the page before it: the request went out as soon as that page
    was answered, while it was read (as records or as wire dicts)."""
    listing = TakenWhenAsked()
    async with Routes({PATH: listing}).client() as client:
        pager = client.endpoints.list(page_size=5)
        async for _ in pager.as_dicts() if dicts else pager:
            listing.taken += 1
    assert listing.taken == PAGES * 5
    assert len(listing.taken_when_asked) == OFFSET_PAGES
    for page, taken in enumerate(listing.taken_when_asked, 1):
        if page >= 4:
            assert taken < first_item_of_page(page - 1), (page, taken)


def fetches_left() -> list[asyncio.Task[object]]:
    """Tasks of the library's reading ahead still running."""
    return [
        task
        for task in asyncio.all_tasks()
        if task.get_name() == PAGE_TASK or task.get_name().startswith("remedy-prefetch")
    ]


class HeldListing(OffsetListing):
    """The listing, holding its answer to the `held`-th request until `release` is set."""

    def __init__(self, held: int) -> None:
        super().__init__()
        self.held = held
        self.release = asyncio.Event()
        self.holding = asyncio.Event()

    async def __call__(self, request: MockRequest) -> MockResponse:  # type: ignore[override]
        if self.requests + 1 == self.held:
            self.holding.set()
            await asyncio.wait_for(self.release.wait(), timeout=10)
        return super().__call__(request)


@pytest.mark.parametrize("how", ["break", "cancel"])
async def test_as_dicts_leaving_mid_list_leaves_no_fetch_running(how: str) -> None:
    """Over a socket: a loop handed wire dicts that breaks (or is cancelled) on the fifth page
    while the sixth page's guessed request waits at the service leaves no fetch running and
    sends nothing more, and the client's connections list the whole collection again."""
    listing = HeldListing(held=6)
    async with serve_handler(Routes({PATH: listing})) as url, RemedyClient(url) as client:
        reached = asyncio.Event()

        async def consume() -> None:
            taken = 0
            async for _ in client.endpoints.list(page_size=5).as_dicts():
                taken += 1
                if taken == first_item_of_page(5):
                    await asyncio.wait_for(listing.holding.wait(), timeout=10)
                    if how == "break":
                        break
                    reached.set()
                    await asyncio.Event().wait()

        task = asyncio.create_task(consume())
        if how == "cancel":
            await asyncio.wait_for(reached.wait(), timeout=10)
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
        else:
            await task
        await settle()  # a loop left by `break` closes its iterator at the loop's next turns
        assert fetches_left() == []
        listing.release.set()
        await settle()
        served = listing.requests
        await settle()
        assert listing.requests == served == 6
        ids = [item["id"] async for item in client.endpoints.list(page_size=50).as_dicts()]
    assert len(ids) == PAGES * 5


class ListingWithoutTotal(OffsetListing):
    """The same pages, announcing no total: the list's end shows only on its last page."""

    def __call__(self, request: MockRequest) -> MockResponse:
        response = super().__call__(request)
        body = json.loads(response.body)
        del body["total"]
        return MockResponse.json(200, body)


async def test_as_dicts_guesses_no_request_on_a_list_that_announces_no_total() -> None:
    """Without a total, nothing says a next page exists before this one is read: the default
    holds one page ahead as for records, and asks for no page past the list's end."""
    listing = ListingWithoutTotal()
    async with Routes({PATH: listing}).client() as client:
        taken = 0
        items = aiter(client.endpoints.list(page_size=5).as_dicts())
        async for _ in items:  # unproven pages do not overlap: 5 new items each
            taken += 1
            if taken == 5 * 5 + 1:  # the first item of the sixth page
                await settle()
                break
        await items.aclose()  # type: ignore[attr-defined]
        assert listing.requests == 7  # that page's and the one held ahead, none guessed
        listing.requests = 0
        ids = [item["id"] async for item in client.endpoints.list(page_size=5).as_dicts()]
        in_step = listing.requests
        listing.requests = 0
        assert [e.id async for e in client.endpoints.list(page_size=5, prefetch=0)] == ids
    assert len(ids) == PAGES * 5
    assert in_step == listing.requests


@pytest.mark.parametrize("dicts", [False, True])
async def test_a_loop_that_stops_within_two_pages_asks_for_no_page_it_does_not_read(
    dicts: bool,
) -> None:
    """Leaving the loop on the last item of the second page leaves no third request made."""
    listing = OffsetListing()
    async with Routes({PATH: listing}).client() as client:
        taken = 0
        pager = client.endpoints.list(page_size=5)
        async for _ in pager.as_dicts() if dicts else pager:
            taken += 1
            if taken == FIRST_PAGE + LATER_PAGE:
                break
        await settle()
    assert listing.requests == 2


async def test_reading_ahead_lists_every_item_once_in_order() -> None:
    """The default's items are the in-step list's, in the same order, as dicts too."""
    listing = OffsetListing()
    async with Routes({PATH: listing}).client() as client:
        ahead = [e.id async for e in client.endpoints.list(page_size=5)]
        in_step = [e.id async for e in client.endpoints.list(page_size=5, prefetch=0)]
        dicts = [e["id"] async for e in client.endpoints.list(page_size=5).as_dicts()]
    assert ahead == in_step == dicts == [f"ep-{i:03d}" for i in range(PAGES * 5)]
    assert listing.requests == 3 * OFFSET_PAGES  # no page asked twice, none past the end


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


@pytest.mark.parametrize("dicts", [False, True])
async def test_reading_ahead_sends_one_request_at_a_time_in_the_lists_order(dicts: bool) -> None:
    """The default holds a page ahead, never two requests in flight: the service sees the
    list's requests one after the other, in order, however long each takes to answer (as
    dicts too, though the next request goes out as soon as the one before is answered)."""
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
        pager = client.endpoints.list(page_size=5)
        items = pager.as_dicts() if dicts else pager
        ids = [item["id"] if dicts else item.id async for item in items]
    assert len(ids) == PAGES * 5
    assert most == 1
    assert offsets == sorted(set(offsets))  # each page asked once, in the list's order
    assert len(offsets) == listing.requests
