"""Prefetch: pages fetched ahead with backpressure, and nothing left running after a stop."""

from __future__ import annotations

import asyncio
import http.server
import json
import threading
import urllib.parse
from typing import ClassVar

import pytest

from remedy_async import MockRequest, MockResponse, RemedyClient
from tests.loopback import serve_handler
from tests.mock_service import Routes
from tests.paging.published import endpoint

PAGES = 10
PATH = "/v1/endpoints"


class OffsetListing:
    """A MockTransport handler listing PAGES pages of 5 in the published envelope (`data`,
    `total`, `limit`, `offset`) that counts requests and can signal on one."""

    def __init__(self) -> None:
        self.requests = 0
        self.reached: dict[int, asyncio.Event] = {}

    def event_at(self, count: int) -> asyncio.Event:
        return self.reached.setdefault(count, asyncio.Event())

    def __call__(self, request: MockRequest) -> MockResponse:
        self.requests += 1
        self.event_at(self.requests).set()
        offset = int(request.query.get("offset", 0))
        items = [endpoint(f"ep-{i:03d}") for i in range(offset, min(offset + 5, PAGES * 5))]
        body = {"data": items, "total": PAGES * 5, "limit": 5, "offset": offset}
        return MockResponse.json(200, body)


@pytest.fixture
def listing() -> OffsetListing:
    return OffsetListing()


async def settle() -> None:
    """Give every ready callback a chance to run (no real time passes)."""
    for _ in range(50):
        await asyncio.sleep(0)


def prefetch_tasks() -> list[asyncio.Task[object]]:
    return [t for t in asyncio.all_tasks() if t.get_name().startswith("remedy-prefetch")]


@pytest.mark.parametrize("prefetch", [1, 2, 5])
async def test_prefetch_lists_the_same_items(listing: OffsetListing, prefetch: int) -> None:
    """With prefetch the items and their order are unchanged."""
    async with Routes({PATH: listing}).client() as client:
        ids = [e.id async for e in client.endpoints.list(page_size=5, prefetch=prefetch)]
    assert ids == [f"ep-{i:03d}" for i in range(PAGES * 5)]


async def test_prefetch_stays_ahead_by_at_most_n_pages(listing: OffsetListing) -> None:
    """A paused consumer with prefetch=2 lets exactly two pages beyond its own be fetched."""
    handler = listing
    async with Routes({PATH: listing}).client() as client:
        pager = client.endpoints.list(page_size=5, prefetch=2)
        iterator = aiter(pager)
        assert (await anext(iterator)).id == "ep-000"
        await asyncio.wait_for(handler.event_at(3).wait(), timeout=10)
        await settle()
        assert handler.requests == 3
        await iterator.aclose()  # type: ignore[attr-defined]


async def test_breaking_out_cancels_the_prefetch(listing: OffsetListing) -> None:
    """Leaving the loop early stops the prefetch task; no warning, and the client still works.

    Over a socket: the requests cut short must leave the client's connections usable."""
    handler = listing
    async with serve_handler(Routes({PATH: listing})) as url, RemedyClient(url) as client:
        async for endpoint in client.endpoints.list(page_size=5, prefetch=3):
            if endpoint.id == "ep-006":
                break
        await settle()
        assert prefetch_tasks() == []
        served = handler.requests
        await settle()
        assert handler.requests == served
        assert len(await client.endpoints.list(page_size=50).collect()) == PAGES * 5


async def test_cancelling_the_consumer_cancels_the_prefetch(listing: OffsetListing) -> None:
    """Cancelling a task that is listing with prefetch leaves no prefetch task behind.

    Over a socket: the requests cut short must leave the client's connections usable."""
    started = asyncio.Event()

    async with serve_handler(Routes({PATH: listing})) as url, RemedyClient(url) as client:

        async def consume() -> None:
            async for _ in client.endpoints.list(page_size=5, prefetch=2):
                started.set()
                await asyncio.Event().wait()

        task = asyncio.create_task(consume())
        await asyncio.wait_for(started.wait(), timeout=10)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        await settle()
        assert prefetch_tasks() == []
        assert (await client.endpoints.list(max_items=1).first()) is not None


async def test_prefetch_with_max_items_fetches_only_needed_pages(listing: OffsetListing) -> None:
    """Prefetch never fetches beyond the page that reaches max_items."""
    handler = listing
    async with Routes({PATH: listing}).client() as client:
        # Offset pages after the first overlap by 2: pages of 5 bring 5, 3 and 3 new records.
        items = await client.endpoints.list(page_size=5, max_items=11, prefetch=4).collect()
    assert len(items) == 11
    assert handler.requests == 3


def test_negative_prefetch_is_refused() -> None:
    """prefetch below 0 raises ValueError from list()."""
    with pytest.raises(ValueError, match="prefetch"):
        RemedyClient("https://h").endpoints.list(prefetch=-1)


class GatedOffsetListing:
    """A MockTransport handler listing in the published envelope that holds every request after
    the first until released, counting them; `served_size` caps the pages it serves."""

    def __init__(self, served_size: int | None = None) -> None:
        self.served_size = served_size
        self.offsets: list[int] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self.release = asyncio.Event()
        self.arrived = asyncio.Condition()

    async def __call__(self, request: MockRequest) -> MockResponse:
        offset = int(request.query.get("offset", 0))
        limit = int(request.query.get("limit", 5))
        size = min(limit, self.served_size or limit)
        self.offsets.append(offset)
        self.in_flight += 1
        self.max_in_flight = max(self.max_in_flight, self.in_flight)
        async with self.arrived:
            self.arrived.notify_all()
        try:
            if offset > 0:
                await asyncio.wait_for(self.release.wait(), timeout=10)
            items = [endpoint(f"ep-{i:03d}") for i in range(offset, min(offset + size, 40))]
            body = {"data": items, "total": 40, "limit": size, "offset": offset}
            return MockResponse.json(200, body)
        finally:
            self.in_flight -= 1


async def test_predictable_pages_are_fetched_in_parallel() -> None:
    """With offset paging and prefetch=3, three page requests are in flight at once.

    Over a socket: the three are at the service together, on connections of their own."""
    handler = GatedOffsetListing()
    async with serve_handler(Routes({PATH: handler})) as url, RemedyClient(url) as client:
        pager = client.endpoints.list(page_size=5, prefetch=3)
        listing = asyncio.create_task(pager.collect())
        try:
            async with handler.arrived:
                await asyncio.wait_for(handler.arrived.wait_for(lambda: handler.in_flight >= 3), 10)
        finally:
            handler.release.set()
        items = await listing
    assert [e.id for e in items] == [f"ep-{i:03d}" for i in range(40)]
    assert handler.max_in_flight == 3


async def test_wrong_guesses_are_discarded_and_nothing_is_skipped() -> None:
    """A server serving 3 items when 5 are asked: the list is proven in pages of 3 (each
    overlapping the one before by 2), and each item comes once."""
    handler = GatedOffsetListing(served_size=3)
    handler.release.set()
    async with Routes({PATH: handler}).client() as client:
        items = await client.endpoints.list(page_size=5, prefetch=2).collect()
    assert [e.id for e in items] == [f"ep-{i:03d}" for i in range(40)]
    assert set(range(38)) <= set(handler.offsets) <= set(range(40))  # a guess ahead may be lost


async def test_no_guessing_ahead_with_max_items() -> None:
    """With max_items set, prefetch requests only the pages needed, one at a time."""
    handler = GatedOffsetListing()
    handler.release.set()
    async with Routes({PATH: handler}).client() as client:
        items = await client.endpoints.list(page_size=5, prefetch=3, max_items=11).collect()
    assert len(items) == 11
    assert handler.offsets == [0, 3, 6]


async def test_a_page_fetched_ahead_is_asked_for_before_the_caller_reads_the_page_before(
    listing: OffsetListing,
) -> None:
    """With prefetch=1, the next page's request has gone out by the time the caller holds the
    first item of a page, though the caller awaits nothing between items."""
    async with Routes({PATH: listing}).client() as client:
        iterator = aiter(client.endpoints.list(page_size=5, prefetch=1))
        assert (await anext(iterator)).id == "ep-000"
        assert listing.requests == 2
        await iterator.aclose()  # type: ignore[attr-defined]


_LOCK = threading.Lock()


class _ThreadedListing(http.server.BaseHTTPRequestHandler):
    """The published listing served from another thread, so a request on the wire reaches it
    while the test's event loop is busy."""

    protocol_version = "HTTP/1.1"
    arrived: ClassVar[list[threading.Event]]
    """Set as each request arrives: the first, the second, ..."""
    count: ClassVar[list[int]]

    def do_GET(self) -> None:
        query = urllib.parse.parse_qs(urllib.parse.urlsplit(self.path).query)
        offset = int(query.get("offset", ["0"])[0])
        items = [endpoint(f"ep-{i:03d}") for i in range(offset, min(offset + 5, PAGES * 5))]
        body = json.dumps({"data": items, "total": PAGES * 5, "limit": 5, "offset": offset})
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body.encode())
        with _LOCK:
            self.arrived[min(self.count[0], len(self.arrived) - 1)].set()
            self.count[0] += 1

    def log_message(self, format: str, *args: object) -> None:
        """Quiet."""


class _QuietServer(http.server.ThreadingHTTPServer):
    def handle_error(self, request: object, client_address: object) -> None:
        """A connection the client drops at the end is no failure of the test."""


async def test_a_page_fetched_ahead_is_on_the_wire_while_the_caller_reads() -> None:
    """Over a socket to a server in another thread: with prefetch=1, the request for the
    second page reaches the service while the caller, holding the first page's first item,
    keeps its event loop busy (the service answers it while the caller reads)."""
    _ThreadedListing.arrived = [threading.Event() for _ in range(3)]
    _ThreadedListing.count = [0]
    server = _QuietServer(("127.0.0.1", 0), _ThreadedListing)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}"
        async with RemedyClient(url) as client:
            iterator = aiter(client.endpoints.list(page_size=5, prefetch=1))
            assert (await anext(iterator)).id == "ep-000"
            # The loop stays busy here: only a request already sent can arrive.
            assert _ThreadedListing.arrived[1].wait(timeout=10)
            await iterator.aclose()  # type: ignore[attr-defined]
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
