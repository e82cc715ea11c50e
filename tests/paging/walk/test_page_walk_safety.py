"""Pager safety: repeated or cycling next requests, foreign links, duplicates, bad tokens."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from yarl import URL

from remedy_async import (
    CursorPaginator,
    DuplicateItemWarning,
    MockRequest,
    MockResponse,
    OffsetPaginator,
    PaginationError,
    RemedyClient,
)
from remedy_async._paging._walk._page_walk import target_problem
from tests.mock_service import BASE_URL, Routes, mock_client
from tests.paging.published import endpoint, scope

TOKEN = "canary-token-7f3e9a"


Listing = Callable[[MockRequest], MockResponse]
"""A route of a Routes service."""


def cursor_listing(next_cursors: list[str | None]) -> tuple[list[str | None], Listing]:
    """A cursor listing whose n-th response names next_cursors[n]; records the cursors received."""
    received: list[str | None] = []

    def listing(request: MockRequest) -> MockResponse:
        number = len(received)
        received.append(request.query.get("cursor"))
        body = {"items": [endpoint(f"ep-{number}")], "nextCursor": next_cursors[number]}
        return MockResponse.json(200, body)

    return received, listing


@pytest.mark.parametrize(
    ("next_cursors", "sent"),
    [(["A", "A"], [None, "A"]), (["A", "B", "A"], [None, "A", "B"])],
)
async def test_repeating_or_cycling_cursor_stops_before_resending(
    next_cursors: list[str | None], sent: list[str | None]
) -> None:
    """A next cursor already followed (A, A or A, B, A) raises PaginationError before it is sent."""
    received, listing = cursor_listing(next_cursors)
    async with Routes({"/v1/endpoints": listing}).client() as client:
        with pytest.raises(PaginationError, match="already followed") as caught:
            await client.endpoints.list().collect()
    assert received == sent
    assert caught.value.items_yielded == len(sent)
    assert caught.value.resume_token is not None


async def test_an_empty_cursor_ends_the_list() -> None:
    """An empty-string next cursor is an end value (issue 23): the list ends after its page."""
    received, listing = cursor_listing([""])
    async with Routes({"/v1/endpoints": listing}).client() as client:
        records = await client.endpoints.list().collect()
    assert [record.id for record in records] == ["ep-0"]
    assert received == [None]


def link_listing(target: str) -> Listing:
    """A one-item page whose Link header names `target` as the next page."""
    return lambda request: MockResponse.json(
        200, [endpoint("ep-1")], headers={"Link": f'<{target}>; rel="next"'}
    )


OTHER_ORIGIN = "https://elsewhere.test"


async def test_next_link_to_another_origin_is_never_requested() -> None:
    """A Link to another origin raises PaginationError; that origin sees no request, no token."""
    seen: list[MockRequest] = []
    link = link_listing(f"{OTHER_ORIGIN}/v1/endpoints?page=2")

    def by_host(request: MockRequest) -> MockResponse:
        seen.append(request)
        if request.url.host == URL(OTHER_ORIGIN).host:
            return MockResponse.json(200, [])
        return link(request)

    async with mock_client(by_host, token=TOKEN) as client:
        with pytest.raises(PaginationError, match="another origin") as caught:
            await client.endpoints.list().collect()
    assert [request.url.host for request in seen] == [URL(BASE_URL).host]
    assert TOKEN not in str(caught.value) + repr(caught.value)


async def test_next_link_outside_the_base_path_is_refused() -> None:
    """A Link leaving the API's base path raises PaginationError before it is followed."""
    service = Routes({"/api/v1/endpoints": link_listing("/admin/export?page=2")})
    async with service.client(BASE_URL + "/api") as client:
        with pytest.raises(PaginationError, match="base path"):
            await client.endpoints.list().collect()
    assert [request.path for request in service.requests] == ["/api/v1/endpoints"]


async def test_relative_next_link_within_the_api_is_followed() -> None:
    """A relative Link inside the API is resolved against the request URL and followed."""

    def listing(request: MockRequest) -> MockResponse:
        if request.query.get("page") == "2":
            return MockResponse.json(200, [endpoint("ep-2")])
        return MockResponse.json(200, [endpoint("ep-1")], headers={"Link": '<?page=2>; rel="next"'})

    async with Routes({"/v1/endpoints": listing}).client() as client:
        assert [e.id async for e in client.endpoints.list()] == ["ep-1", "ep-2"]


async def test_items_repeated_across_pages_are_skipped_with_a_warning() -> None:
    """An offset page that repeats the previous page's last id warns and does not yield it twice."""
    pages = {0: ["a", "b", "c"], 3: ["c", "d", "e"], 6: ["f"]}

    def listing(request: MockRequest) -> MockResponse:
        offset = int(request.query.get("offset", 0))
        items = [endpoint(i) for i in pages.get(offset, [])]
        return MockResponse.json(200, {"items": items, "offset": offset})

    async with Routes({"/v1/endpoints": listing}).client() as client:
        with pytest.warns(DuplicateItemWarning, match="1 item"):
            ids = [e.id async for e in client.endpoints.list(page_size=3)]
    assert ids == ["a", "b", "c", "d", "e", "f"]


@pytest.mark.parametrize(
    ("token", "message"),
    [("not-a-token", "not a remedy_async resume token"), ("r1.%%%", "malformed")],
)
def test_malformed_resume_token_is_a_value_error_before_io(token: str, message: str) -> None:
    """A malformed resume token raises ValueError from list(), sending nothing."""
    service = Routes({})
    client = service.client()
    with pytest.raises(ValueError, match=message):
        client.endpoints.list(resume_token=token)
    assert not service.requests


async def test_resume_token_from_another_list_is_refused() -> None:
    """A token from another collection, other filters or another paginator raises ValueError."""
    _, listing = cursor_listing(["A", None])
    service = Routes({"/v1/endpoints": listing})
    async with service.client() as client:
        pager = client.endpoints.list(os_family="macos")
        await pager.first()
        token = pager.resume_token
        assert token is not None
        with pytest.raises(ValueError, match="'endpoints', not for 'scopes'"):
            client.scopes.list(resume_token=token)
        with pytest.raises(ValueError, match="other filters"):
            client.endpoints.list(os_family="linux", resume_token=token)
    async with service.client(paginator=OffsetPaginator()) as other:
        with pytest.raises(ValueError, match="AutoPaginator"):
            other.endpoints.list(os_family="macos", resume_token=token)


async def test_a_paginator_can_be_pinned_per_collection() -> None:
    """paginators={...} pins one collection's paginator and leaves the others on auto-detection."""
    _, listing = cursor_listing(["A", None])

    def scopes(request: MockRequest) -> MockResponse:
        return MockResponse.json(
            200, {"data": [scope("sc-1")], "after": None, "seen": request.url.query_string}
        )

    service = Routes({"/v1/endpoints": listing, "/v1/scopes": scopes})
    custom = CursorPaginator(next_field="after", cursor_param="after")
    async with service.client(paginators={"scopes": custom}) as client:
        assert client.scopes.paginator is custom
        assert [s.id async for s in client.scopes.list(page_size=5)] == ["sc-1"]
        assert len(await client.endpoints.list().collect()) == 2


def test_unknown_collection_in_paginators_is_a_configuration_error() -> None:
    """paginators naming a collection that does not exist is refused."""
    with pytest.raises(ValueError, match="unknown collection 'devices'"):
        RemedyClient("https://h", paginators={"devices": OffsetPaginator()})


@pytest.mark.parametrize("name", ["limit", "offset", "cursor", "page", "pageSize"])
def test_filter_named_like_a_paging_parameter_is_refused_without_page_size(name: str) -> None:
    """An extra parameter named like any the paging conventions set is refused, page size or not;
    as a filter keyword it is no filter at all."""
    client = RemedyClient("https://api.example.com")
    with pytest.raises(ValueError, match="paging parameters"):
        client.endpoints.list(extra_params={name: "3"})
    with pytest.raises(TypeError, match="unknown filter"):
        client.endpoints.list(**{name: "3"})  # type: ignore[misc]


BASE = URL("https://api.example.com/api")


@pytest.mark.parametrize(
    ("link", "problem"),
    [
        ("ftp://api.example.com/api/v1/endpoints?c=2", "scheme 'ftp'"),
        ("javascript://api.example.com/v1/x", "scheme 'javascript'"),
        ("https://user:pw@api.example.com/api/v1/endpoints", "user information"),
        ("https://evil.example.net/v1/endpoints?c=2", "another origin"),
        ("http://api.example.com/api/v1/endpoints?c=2", "another origin"),
        ("https://api.example.com:8443/api/v1/endpoints", "another origin"),
        ("https://api.example.com/admin/users", "outside the API's base path"),
    ],
)
def test_unsafe_next_links_are_named(link: str, problem: str) -> None:
    """Each kind of unsafe next link is refused with a reason that names it."""
    found = target_problem(URL(link), BASE, frozenset())
    assert found is not None
    assert problem in found


def test_a_link_without_a_host_is_refused() -> None:
    """A next link with no host is never fetched."""
    found = target_problem(URL("https:///v1/endpoints"), BASE, frozenset())
    assert found is not None


def test_a_same_origin_link_under_the_base_path_is_safe() -> None:
    """A next link on the API's own origin and path is followed."""
    assert (
        target_problem(URL("https://api.example.com/api/v1/endpoints?c=2"), BASE, frozenset())
        is None
    )


def test_a_trusted_origin_is_followed() -> None:
    """A next link on an origin the client trusts is followed."""
    link = URL("https://cdn.example.com/pages/2")
    assert target_problem(link, BASE, frozenset({"https://cdn.example.com"})) is None
