"""Planning later pages from a list's announced size (pure): which requests, and when none."""

from __future__ import annotations

from typing import Any

import pytest
from multidict import CIMultiDict, CIMultiDictProxy
from yarl import URL

from remedy_async._http import JSONResponse
from remedy_async._paging._conventions import CONVENTIONS
from remedy_async._paging._paginators._auto import AutoPaginator
from remedy_async._paging._paginators._convention import ConventionPaginator
from remedy_async._paging._paginators._pinned import OffsetPaginator, PageNumberPaginator
from remedy_async._paging._protocol import (
    ListSize,
    PagePlan,
    PageRequest,
    PageResult,
    Paginator,
    Probe,
)
from remedy_async._paging._read._positions import last_page_number, planned_offsets, planned_pages

URL_ = URL("https://api.example.com/v1/endpoints")
OFFSET = CONVENTIONS["offset"]


def items(count: int) -> list[dict[str, str]]:
    return [{"id": f"ep-{i}"} for i in range(count)]


def plan(paginator: Paginator, request: PageRequest, body: Any, count: int = 3) -> PagePlan | None:
    """Read a page with the paginator, then plan up to `count` pages after it."""
    response = JSONResponse(
        url=URL_, status=200, headers=CIMultiDictProxy(CIMultiDict()), body=body
    )
    result = paginator.read(request, response)
    return paginator.plan(request, response, result, count)  # type: ignore[attr-defined, no-any-return]


def params(found: PagePlan | None) -> list[dict[str, str]]:
    assert found is not None
    return [dict(request.params) for request in found.requests]


def test_offsets_step_by_what_the_page_served_and_stop_short_of_the_total() -> None:
    """From offset 10, pages of 10, a total of 45: offsets 10, 20, 30, 40; three asked: 10-30."""
    assert list(planned_offsets(10, 10, 45, 3)) == [10, 20, 30]
    assert list(planned_offsets(10, 10, 45, 9)) == [10, 20, 30, 40]
    assert list(planned_offsets(10, 0, 45, 3)) == []


def test_page_numbers_stop_at_the_last_page() -> None:
    """From page 2 to last page 4, eight asked: 2, 3, 4."""
    assert list(planned_pages(2, 4, 8)) == [2, 3, 4]
    assert list(planned_pages(5, 4, 8)) == []


@pytest.mark.parametrize(
    ("first", "pages", "total", "size", "last"),
    [
        (1, 26, None, None, 26),
        (1, None, 2503, 100, 26),
        (0, None, 2500, 100, 24),
        (1, None, 5, None, None),
    ],
)
def test_the_last_page_number_comes_from_a_count_or_a_total_and_size(
    first: int, pages: int | None, total: int | None, size: int | None, last: int | None
) -> None:
    """A page count wins; else the total over the page size, rounded up; else unknown."""
    assert last_page_number(first, pages, total, size) == last


def test_offset_convention_plans_from_the_total() -> None:
    """An offset page of 10 at 0 with total 35 plans offsets 10, 20 and 30, keeping the limit."""
    paginator = ConventionPaginator(OFFSET)
    request = paginator.first(10)
    body = {"items": items(10), "offset": 0, "limit": 10, "total": 35}
    found = plan(paginator, request, body, count=8)
    assert params(found) == [{"offset": str(o), "limit": "10"} for o in (10, 20, 30)]
    assert found is not None
    assert found.size == ListSize(35)


def test_the_first_planned_request_is_the_one_read_gives() -> None:
    """The plan starts with exactly the next request the page names (so it is used)."""
    paginator = AutoPaginator()
    request = paginator.first(10)
    response_body = {"items": items(10), "offset": 0, "limit": 10, "total": 35}
    response = JSONResponse(
        url=URL_, status=200, headers=CIMultiDictProxy(CIMultiDict()), body=response_body
    )
    result = paginator.read(request, response)
    found = paginator.plan(request, response, result, 3)
    assert found is not None
    assert found.requests[0] == result.next


def test_page_convention_plans_to_the_page_count() -> None:
    """Page 1 of 4 plans pages 2, 3 and 4."""
    paginator = ConventionPaginator(CONVENTIONS["page"])
    body = {"items": items(5), "page": 1, "pageSize": 5, "total": 18, "totalPages": 4}
    found = plan(paginator, paginator.first(5), body, count=8)
    assert [p["page"] for p in params(found)] == ["2", "3", "4"]
    assert found is not None
    assert found.size == ListSize(18, 4)


def test_zero_based_pages_plan_from_their_own_first_page() -> None:
    """Spring's page 0 of 3 plans pages 1 and 2, at the size it served."""
    paginator = ConventionPaginator(CONVENTIONS["spring"])
    body = {"content": items(5), "number": 0, "size": 5, "totalPages": 3, "last": False}
    found = plan(paginator, paginator.first(50), body, count=8)
    assert params(found) == [{"page": "1", "size": "5"}, {"page": "2", "size": "5"}]


def test_the_last_page_plans_nothing_but_still_states_the_size() -> None:
    """A last page gives an empty plan with its size, so a changed size is still caught."""
    paginator = ConventionPaginator(OFFSET)
    request = PageRequest(params=(("offset", "30"), ("limit", "10")), convention=OFFSET)
    body = {"items": items(5), "offset": 30, "limit": 10, "total": 35}
    assert plan(paginator, request, body) == PagePlan((), ListSize(35))


@pytest.mark.parametrize("name", ["cursor", "link", "odata", "stripe"])
def test_conventions_whose_pages_name_the_next_do_not_plan(name: str) -> None:
    """Cursor, link and token lists cannot be planned: each page names the next."""
    paginator = ConventionPaginator(CONVENTIONS[name])
    response = JSONResponse(
        url=URL_, status=200, headers=CIMultiDictProxy(CIMultiDict()), body={"total": 30}
    )
    next_page = PageRequest(params=(("cursor", "x"),))
    result = PageResult(items(3), next_page, convention=CONVENTIONS[name])
    assert paginator.plan(paginator.first(10), response, result, 3) is None


def test_an_offset_list_without_a_total_does_not_plan() -> None:
    """Without a total there is nothing to plan from: the list stays sequential."""
    paginator = OffsetPaginator()
    body = {"items": items(10), "offset": 0, "limit": 10}
    assert plan(paginator, paginator.first(10), body) is None


def test_pinned_offset_paginator_plans_with_its_own_parameter_names() -> None:
    """OffsetPaginator(offset_param="skip", limit_param="top") plans skip/top requests."""
    paginator = OffsetPaginator(offset_param="skip", limit_param="top")
    body = {"items": items(10), "skip": 0, "top": 10, "total": 30}
    assert params(plan(paginator, paginator.first(10), body)) == [
        {"skip": "10", "top": "10"},
        {"skip": "20", "top": "10"},
    ]


def test_pinned_page_number_paginator_plans_from_total_pages() -> None:
    """PageNumberPaginator plans page numbers up to totalPages."""
    paginator = PageNumberPaginator()
    body = {"items": items(10), "page": 1, "pageSize": 10, "totalPages": 3}
    assert [p["page"] for p in params(plan(paginator, paginator.first(10), body))] == ["2", "3"]


def test_list_size_says_what_was_announced() -> None:
    """A size reads as its items and pages, for the moved-list error."""
    assert str(ListSize(2503, 26)) == "2503 items in 26 pages"
    assert str(ListSize(None, 26)) == "26 pages"


def test_a_guess_the_service_ignored_plans_nothing() -> None:
    """A page that answered a guess with the list's first page again plans nothing."""
    paginator = AutoPaginator()
    probe = Probe(items(1)[0]["id"])
    request = PageRequest(
        params=(("offset", "10"), ("limit", "10")), convention=OFFSET, probe=probe
    )
    body = {"items": items(10), "offset": 10, "limit": 10, "total": 35}
    assert plan(paginator, request, body) is None


def test_a_guess_the_service_took_plans_as_usual() -> None:
    """A page that confirms a guess plans the later pages like any page of its convention."""
    paginator = AutoPaginator()
    request = PageRequest(
        params=(("offset", "10"), ("limit", "10")), convention=OFFSET, probe=Probe("other-id")
    )
    body = {"items": items(10), "offset": 10, "limit": 10, "total": 35}
    assert [p["offset"] for p in params(plan(paginator, request, body))] == ["20", "30"]


def test_the_auto_paginator_plans_by_the_convention_it_composed() -> None:
    """An offset list detected on page 1 plans its later offsets as a pinned one would."""
    paginator = AutoPaginator()
    body = {"items": items(10), "offset": 0, "limit": 10, "total": 25}
    assert [p["offset"] for p in params(plan(paginator, paginator.first(10), body))] == ["10", "20"]
