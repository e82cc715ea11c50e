"""A first request refused for its page-size names falls back to one name at a time; a guess the
service refuses (400) gives way to the next; when none is left the list ends, or stops with the
guess's refusal. Paging decisions above the transport: a MockTransport answers, no socket."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from remedy_async import (
    BadRequestError,
    ContractDriftWarning,
    MockRequest,
    MockResponse,
    MockTransport,
    PaginationError,
    RemedyClient,
)
from tests.paging.published import endpoints
from tests.paging.responses import records

BASE = "https://api.example.com"
Handler = Callable[[MockRequest], MockResponse]


def refusing(
    names: set[str], answer: Callable[[MockRequest], object], status: int = 400
) -> tuple[list[str], Handler]:
    """A list at `/v1/endpoints` answering `status` (in the published error body) to a request
    carrying any of `names`, else `answer(request)`; records every query string."""
    seen: list[str] = []

    def handler(request: MockRequest) -> MockResponse:
        if request.path != "/v1/endpoints":
            return MockResponse.json(404, {"error": "not found"})
        seen.append(request.url.query_string)
        if names & set(request.query):
            return MockResponse.json(status, {"error": "unknown parameter"})
        return MockResponse.json(200, answer(request))

    return seen, handler


def client(handler: Handler) -> RemedyClient:
    """A client whose requests `handler` answers."""
    return RemedyClient(BASE, transport=MockTransport(handler))


async def test_a_first_request_refused_for_limit_is_sent_with_page_size_instead() -> None:
    """A 400 for `limit` is met by asking with `pageSize` instead, told as a drift warning."""
    seen, handler = refusing({"limit"}, lambda _: {"items": endpoints(3)})
    async with client(handler) as remedy:
        with pytest.warns(ContractDriftWarning, match="parameter limit .* with pageSize"):
            found = await remedy.endpoints.list(page_size=5).collect()
    assert [record.id for record in found] == ["ep-0", "ep-1", "ep-2"]
    assert seen == ["limit=5", "pageSize=5"]


async def test_a_first_request_refused_under_every_size_name_raises_the_first_refusal() -> None:
    """A service refusing `limit` and `pageSize` alike fails with its first 400."""
    seen, handler = refusing({"pageSize", "limit"}, lambda _: {"items": []})
    async with client(handler) as remedy:
        with pytest.raises(BadRequestError):
            await remedy.endpoints.list(page_size=5).collect()
    assert seen == ["limit=5", "pageSize=5"]


def by_page(request: MockRequest) -> object:
    """A list of 150 records capped at 100 a page, paged by a one-based `page` only."""
    number = int(request.query.get("page", "1"))
    return {1: records(100), 2: records(50, start=100)}.get(max(number, 1), [])


@pytest.mark.parametrize("status", [400, 422])
async def test_a_refused_guess_gives_way_to_the_next(status: int) -> None:
    """`offset` refused (400, or 422 as a FastAPI service refuses a value it cannot read) and
    `page=1` ignored: `page=2` is kept, with a warning."""
    seen, handler = refusing({"offset"}, by_page, status)
    async with client(handler) as remedy:
        with pytest.warns(ContractDriftWarning, match="announced no paging.*'page'"):
            found = await remedy.endpoints.list().as_dicts().collect()
    assert len(found) == 150
    assert len({record["id"] for record in found}) == 150
    assert seen[:2] == ["limit=100", "offset=100&limit=100"]
    assert "page=2&limit=100" in seen


async def test_every_guess_refused_on_a_silent_page_ends_the_list() -> None:
    """A silent round page whose service refuses every guess is the whole list."""
    seen, handler = refusing({"offset", "page", "after"}, lambda _: records(100))
    async with client(handler) as remedy:
        found = await remedy.endpoints.list().as_dicts().collect()
    assert len(found) == 100
    assert seen[:2] == ["limit=100", "offset=100&limit=100"]
    assert len(seen) <= 6  # one check per paging parameter, never a loop


async def test_every_guess_refused_after_a_continuation_is_a_pagination_error() -> None:
    """A token handed out whose every parameter is refused stops the list loudly."""
    seen, handler = refusing(
        {"cursor", "next_cursor"}, lambda _: {"data": records(2), "next_cursor": "c2"}
    )
    async with client(handler) as remedy:
        with pytest.raises(PaginationError, match="each parameter tried") as caught:
            await remedy.endpoints.list().as_dicts().collect()
    assert caught.value.items_yielded == 2
    assert seen[:2] == ["limit=100", "cursor=c2&limit=100"]
    assert "next_cursor=c2&limit=100" in seen
