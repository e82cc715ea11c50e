"""The service's published paging is the default client's: `limit`/`offset` in, `data`, `total`,
`limit` and `offset` out, followed at once (no detection, no guess to verify), exact to the
total; out-of-range page sizes refused before any request. Pure: a MockTransport answers as the
published contract says, and the paginator is read directly."""

from __future__ import annotations

import asyncio
import warnings
from typing import Any

import pytest
from multidict import CIMultiDict, CIMultiDictProxy
from yarl import URL

from remedy_async import (
    CONVENTIONS,
    AutoPaginator,
    Endpoint,
    MockRequest,
    MockResponse,
    MockTransport,
    RemedyClient,
)
from remedy_async._paging._paginators._auto import published_page
from remedy_async._paging._protocol import PageRequest
from remedy_async._wire._http import JSONResponse
from tests.paging.published import MAX_LIMIT, endpoints, published_page_body

LIST_URL = URL("https://api.furl.ai/v1/endpoints")


class PublishedList:
    """A MockTransport handler serving `count` endpoints as the published contract pages them
    (default `limit` 50, at most 100, 422 beyond); records every query and how many requests
    were in flight at once."""

    def __init__(self, count: int, *, pause: bool = False) -> None:
        self.records = endpoints(count)
        self.queries: list[dict[str, str]] = []
        self.pause = pause
        self.in_flight = 0
        self.most_in_flight = 0

    async def __call__(self, request: MockRequest) -> MockResponse:
        self.queries.append(dict(request.query))
        self.in_flight += 1
        self.most_in_flight = max(self.most_in_flight, self.in_flight)
        try:
            if self.pause:
                for _ in range(20):  # lets the client start its other planned pages
                    await asyncio.sleep(0)
            limit = int(request.query.get("limit", "50"))
            if not 1 <= limit <= MAX_LIMIT:
                return MockResponse.json(422, {"error": "limit must be between 1 and 100"})
            return MockResponse.json(200, published_page_body(self.records, request.query))
        finally:
            self.in_flight -= 1

    @property
    def ids(self) -> list[str]:
        return [record["id"] for record in self.records]


async def listed(service: PublishedList, **options: Any) -> tuple[list[Endpoint], list[Any]]:
    """Every endpoint the default client lists from `service`, with every warning it gave."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        async with RemedyClient(token="key", transport=MockTransport(service)) as client:
            found = await client.endpoints.list(**options).collect()
    return found, [warning.message for warning in caught]


async def test_the_default_client_follows_the_published_paging_at_once() -> None:
    """237 records: `limit=100` (offset 0 by default), then offsets 98 and 196 (each page
    overlapping the one before by 2, to prove it continues the list: issue 33), and nothing
    else; every record once, in order, typed; no warning of any kind."""
    service = PublishedList(237)
    found, caught = await listed(service)
    assert service.queries == [
        {"limit": "100"},
        {"offset": "98", "limit": "100"},
        {"offset": "196", "limit": "100"},
    ]
    assert [endpoint.id for endpoint in found] == service.ids
    assert caught == []


async def test_a_page_size_is_sent_as_limit_on_every_page() -> None:
    """`page_size=50`: five pages of 50 by `limit` and `offset` (each overlapping the one
    before by 2), every record once."""
    service = PublishedList(237)
    found, caught = await listed(service, page_size=50)
    assert service.queries == [
        {"limit": "50"},
        *({"offset": str(offset), "limit": "50"} for offset in range(48, 237, 48)),
    ]
    assert [endpoint.id for endpoint in found] == service.ids
    assert caught == []


@pytest.mark.parametrize(("count", "requests"), [(0, 1), (100, 1), (200, 3), (201, 3)])
async def test_the_list_ends_when_the_total_is_reached(count: int, requests: int) -> None:
    """The total ends the list: a full last page is not followed by an empty one. (200
    records take 3 pages of 100: each page overlaps the one before by 2, issue 33.)"""
    service = PublishedList(count)
    found, caught = await listed(service)
    assert len(service.queries) == requests
    assert [endpoint.id for endpoint in found] == service.ids
    assert caught == []


@pytest.mark.parametrize("page_size", [0, 101, -1])
async def test_an_out_of_range_page_size_is_refused_before_any_request(page_size: int) -> None:
    """`page_size` outside 1..100 is a ValueError naming the bound; nothing is sent."""
    service = PublishedList(10)
    async with RemedyClient(token="key", transport=MockTransport(service)) as client:
        with pytest.raises(ValueError, match="page_size must be") as caught:
            client.endpoints.list(page_size=page_size)
    assert ("at most 100" in str(caught.value)) == (page_size > 0)
    assert service.queries == []


async def test_the_total_drives_the_pages_and_the_pager() -> None:
    """Each page and the pager carry the published total; the convention is the preset."""
    service = PublishedList(237)
    async with RemedyClient(token="key", transport=MockTransport(service)) as client:
        pager = client.endpoints.list()
        assert pager.total is None
        totals = [page.total async for page in pager.pages()]
    assert totals == [237, 237, 237]
    assert pager.total == 237
    assert pager.convention == CONVENTIONS["offset"]


async def test_concurrency_plans_the_offset_pages_from_the_total() -> None:
    """`concurrency=4` on the default client: the pages after the first are planned from the
    total and fetched up to four at once, each at most 100 records, each asked once, each
    overlapping the page before by 2 records (so each boundary is proven)."""
    service = PublishedList(1000, pause=True)
    found, caught = await listed(service, concurrency=4)
    assert [endpoint.id for endpoint in found] == service.ids
    assert caught == []
    assert service.most_in_flight == 4
    assert sorted(int(query.get("offset", "0")) for query in service.queries) == [
        0,
        *list(range(98, 1000, 98)),
    ]
    assert all(query["limit"] == "100" for query in service.queries)


def response(body: Any, *headers: tuple[str, str]) -> JSONResponse:
    return JSONResponse(
        url=LIST_URL, status=200, headers=CIMultiDictProxy(CIMultiDict(headers)), body=body
    )


def test_the_first_request_asks_the_page_size_by_its_published_name() -> None:
    """`limit` alone; `pageSize` alone only after the service refuses `limit`."""
    paginator = AutoPaginator()
    first = paginator.first(100)
    assert first == PageRequest(params=(("limit", "100"),))
    assert paginator.fallbacks(first) == (PageRequest(params=(("pageSize", "100"),)),)


def test_a_published_first_page_is_read_by_the_offset_convention_with_nothing_to_verify() -> None:
    """The next request is the published one, carrying no guess to verify."""
    paginator = AutoPaginator()
    first = paginator.first(100)
    body = published_page_body(endpoints(237), {"limit": "100"})
    result = paginator.read(first, response(body))
    assert result.convention == CONVENTIONS["offset"]
    assert result.total == 237
    assert len(result.items) == 100
    assert result.notice is None
    assert result.next == PageRequest(
        params=(("offset", "100"), ("limit", "100")), convention=CONVENTIONS["offset"]
    )


PUBLISHED = {"data": [{"id": "a"}], "total": 3, "limit": 1, "offset": 0}


@pytest.mark.parametrize(
    ("body", "headers", "request_params", "published"),
    [
        (PUBLISHED, (), (("limit", "1"),), True),
        ({"data": [], "total": 0, "limit": 100, "offset": 0}, (), (), True),
        ({**PUBLISHED, "has_more": True}, (), (), False),
        ({key: PUBLISHED[key] for key in ("data", "total", "limit")}, (), (), False),
        ({**PUBLISHED, "total": "3"}, (), (), False),
        ({**PUBLISHED, "offset": True}, (), (), False),
        ({**PUBLISHED, "data": {"id": "a"}}, (), (), False),
        ({**PUBLISHED, "offset": 1}, (), (), False),
        ({**PUBLISHED, "offset": 5}, (), (("offset", "5"),), True),
        (PUBLISHED, (("Link", '<https://api.furl.ai/v1/endpoints?c=2>; rel="next"'),), (), False),
        (PUBLISHED, (("X-Total-Count", "3"),), (), False),
        (PUBLISHED, (("Content-Type", "application/json"),), (), True),
        ([{"id": "a"}], (), (), False),
    ],
    ids=[
        "published",
        "empty",
        "extra-key",
        "no-offset",
        "total-as-text",
        "offset-a-flag",
        "data-not-an-array",
        "another-offset-echoed",
        "the-offset-asked",
        "link-header",
        "total-header",
        "plain-header",
        "bare-array",
    ],
)
def test_only_a_page_exactly_in_the_published_envelope_skips_detection(
    body: Any,
    headers: tuple[tuple[str, str], ...],
    request_params: tuple[tuple[str, str], ...],
    published: bool,
) -> None:
    """Anything more, less or other than the published envelope is detected as before."""
    request = PageRequest(params=request_params)
    assert published_page(request, response(body, *headers)) is published
