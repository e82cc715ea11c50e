"""A list's walk: bad next links, loops, repeats, totals, conventions. Paging decisions above the
transport: a MockTransport answers, no socket."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from remedy_async import (
    CONVENTIONS,
    ClientEvent,
    ConfigurationError,
    MockRequest,
    MockResponse,
    MockTransport,
    OffsetPaginator,
    PaginationError,
    RemedyClient,
)
from tests.paging.published import endpoint

BASE = "https://api.example.com"
Handler = Callable[[MockRequest], MockResponse]


def pages(*bodies: Any) -> Any:
    """A handler answering the n-th request with the n-th body; records the queries."""
    seen: list[str] = []

    def handler(request: MockRequest) -> MockResponse:
        seen.append(request.url.query_string)
        return MockResponse.json(200, bodies[min(len(seen), len(bodies)) - 1])

    handler.seen = seen  # type: ignore[attr-defined]
    return handler


def at(path: str, handler: Handler) -> MockTransport:
    """A transport serving `handler` at `path` alone (404 elsewhere)."""

    def routed(request: MockRequest) -> MockResponse:
        if request.path != path:
            return MockResponse.json(404, {"error": "not found"})
        return handler(request)

    return MockTransport(routed)


@pytest.mark.parametrize(
    "link",
    [
        "ftp://api.example.com/v1/endpoints?c=2",
        "https://user:secret@api.example.com/v1/endpoints?c=2",
        "https://evil.example.net/v1/endpoints?c=2",
        "http://[::1/v1/endpoints",
        "http://exa mple.com/v1/endpoints",
    ],
    ids=["other-scheme", "userinfo", "foreign-origin", "invalid-host", "space-in-host"],
)
async def test_bad_next_links_are_pagination_errors(link: str) -> None:
    """A next link that is unusable or unsafe ends the list with PaginationError, never sent.

    One that is not a URL at all fails as its page is read; an unsafe one after the page's
    items, before it would be fetched. Either way the error's token resumes exactly.
    """
    handler = pages({"data": [endpoint("a")], "links": {"next": link}})
    transport = at("/v1/endpoints", handler)
    async with RemedyClient(BASE, transport=transport) as client:
        with pytest.raises(PaginationError) as caught:
            await client.endpoints.list().collect()
    assert caught.value.items_yielded in (0, 1)
    assert caught.value.resume_token is not None
    assert handler.seen == ["limit=100"]
    assert "secret" not in str(caught.value)


async def test_a_link_differing_only_by_fragment_cannot_loop() -> None:
    """A next link that is the current request plus a #fragment is refused as a cycle."""
    handler = pages(
        {"data": [endpoint("a")], "links": {"next": "/v1/endpoints?page[cursor]=x&b=1"}},
        {"data": [endpoint("b")], "links": {"next": "/v1/endpoints?b=1&page[cursor]=x#again"}},
    )
    transport = at("/v1/endpoints", handler)
    async with RemedyClient(BASE, transport=transport) as client:
        with pytest.raises(PaginationError, match="already followed"):
            await client.endpoints.list().collect()


async def test_a_page_that_repeats_the_previous_one_is_refused() -> None:
    """A service that ignores the paging parameters (the same page again) fails loudly."""
    same = {"items": [endpoint("a"), endpoint("b")], "total": 10}
    transport = at("/v1/endpoints", pages(same, same, same))
    async with RemedyClient(BASE, transport=transport, paginator=OffsetPaginator()) as client:
        with pytest.raises(PaginationError, match="repeats the list's first page") as caught:
            await client.endpoints.list(page_size=2).collect()
    assert caught.value.items_yielded == 2


async def test_an_echoed_offset_other_than_the_one_asked_is_refused() -> None:
    """A page echoing offset 0 for a request of offset 2 is refused, not trusted (issue 23)."""
    same = {"items": [endpoint("a"), endpoint("b")], "offset": 0, "total": 10}
    handler = pages(same, same, same)
    transport = at("/v1/endpoints", handler)
    async with RemedyClient(BASE, transport=transport) as client:
        with pytest.raises(PaginationError, match="offset") as caught:
            await client.endpoints.list(page_size=2).collect()
    assert caught.value.items_yielded == 2
    assert handler.seen == ["limit=2", "offset=2&limit=2"]


async def test_ids_equal_in_python_but_not_on_the_wire_are_both_delivered() -> None:
    """`1` and `true` are different ids: neither is skipped as a repeat of the other."""
    transport = at(
        "/v1/endpoints",
        pages(
            {"items": [{"id": 1}, {"id": "x"}], "nextCursor": "c"},
            {"items": [{"id": True}, {"id": "y"}], "nextCursor": None},
        ),
    )
    async with RemedyClient(BASE, transport=transport) as client:
        records = await client.endpoints.list().as_dicts().collect()
    assert [record["id"] for record in records] == [1, "x", True, "y"]


async def test_an_end_before_the_announced_total_is_refused() -> None:
    """A list that stops before the total it announced is a PaginationError, not a short list."""
    transport = at("/v1/endpoints", pages({"items": [endpoint("a")], "totalCount": 3}))
    async with RemedyClient(BASE, transport=transport) as client:
        with pytest.raises(PaginationError, match="announced 3"):
            await client.endpoints.list().collect()


async def test_the_detected_convention_is_reported_and_can_be_pinned() -> None:
    """`pager.convention` and a paging event say what was detected; pinning it lists the same."""

    def handler(request: MockRequest) -> MockResponse:
        if "$skiptoken" in request.query:
            return MockResponse.json(200, {"value": [endpoint("b")]})
        body = {"value": [endpoint("a")], "@odata.nextLink": "/v1/endpoints?$skiptoken=2"}
        return MockResponse.json(200, body)

    transport = at("/v1/endpoints", handler)
    events: list[ClientEvent] = []
    async with RemedyClient(BASE, transport=transport, event_hooks=[events.append]) as client:
        pager = client.endpoints.list()
        assert pager.convention is None
        first = [record.id async for record in pager]
    assert pager.convention == CONVENTIONS["odata"]
    assert str(pager.convention).startswith("odata: ")
    assert [event.detail for event in events if event.kind == "paging"] == [str(pager.convention)]
    async with RemedyClient(BASE, transport=transport, paginator=pager.convention) as pinned:
        again = await pinned.endpoints.list().collect()
    assert first == [record.id for record in again] == ["a", "b"]


async def test_links_relative_to_the_base_path_are_followed_once_confirmed() -> None:
    """Links relative to the base path are followed once page 2 confirms them."""
    seen: list[str] = []

    def handler(request: MockRequest) -> MockResponse:
        seen.append(str(request.url.relative()))
        if "cursor" not in request.query:
            body = {
                "data": [endpoint("a"), endpoint("b")],
                "links": {"next": "/v1/endpoints?cursor=x"},
            }
            return MockResponse.json(200, body)
        return MockResponse.json(200, {"data": [endpoint("c")], "links": {"next": None}})

    transport = at("/wiki/v1/endpoints", handler)
    async with RemedyClient(f"{BASE}/wiki", transport=transport) as client:
        pager = client.endpoints.list()
        found = [record.id async for record in pager]
    assert found == ["a", "b", "c"]
    assert seen == ["/wiki/v1/endpoints?limit=100", "/wiki/v1/endpoints?cursor=x"]
    assert pager.convention is not None
    assert pager.convention.links_from == "base"


async def test_a_composed_convention_is_reported_and_can_be_pinned() -> None:
    """A composed convention is reported on the pager and lists the same when pinned."""

    def handler(request: MockRequest) -> MockResponse:
        if request.query.get("cursor") == "c2":
            return MockResponse.json(200, {"data": [endpoint("b")], "meta": {"pagination": {}}})
        body = {"data": [endpoint("a")], "meta": {"pagination": {"next_cursor": "c2"}}}
        return MockResponse.json(200, body)

    transport = at("/v1/endpoints", handler)
    async with RemedyClient(BASE, transport=transport) as client:
        pager = client.endpoints.list()
        first = [record.id async for record in pager]
    composed = pager.convention
    assert composed is not None
    assert (composed.next_at, composed.param) == (("meta", "pagination", "next_cursor"), "cursor")
    async with RemedyClient(BASE, transport=transport, paginator=composed) as pinned:
        again = await pinned.endpoints.list().collect()
    assert first == [record.id for record in again] == ["a", "b"]


@pytest.mark.parametrize("origins", [["ftp://x"], ["https://h/path"], "https://h"])
def test_trusted_origins_must_be_origins(origins: Any) -> None:
    """trusted_origins takes a list of bare http(s) origins."""
    with pytest.raises(ConfigurationError, match="trusted_origins"):
        RemedyClient("https://api.example.com", trusted_origins=origins)
