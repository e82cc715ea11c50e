"""Positions the client computes: offsets, page numbers, last ids and page sizes; an echoed
position must be the one asked for (issue 23: it used to be trusted, and skipped records); and
later pages planned from a list's announced size: which requests, and when none."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest
from hypothesis import given
from hypothesis import strategies as st
from multidict import CIMultiDict, CIMultiDictProxy
from yarl import URL

from remedy_async._paging._conventions import CONVENTIONS
from remedy_async._paging._paginators._auto import AutoPaginator
from remedy_async._paging._paginators._convention import ConventionPaginator
from remedy_async._paging._paginators._pinned import OffsetPaginator, PageNumberPaginator
from remedy_async._paging._protocol import (
    Convention,
    ListSize,
    PagePlan,
    PageRequest,
    PageResult,
    PagingFault,
    PlanningPaginator,
    Probe,
)
from remedy_async._paging._read._positions import (
    announced_pages,
    check_echo,
    first_request,
    int_at,
    int_param,
    keyset_next,
    last_page_number,
    next_position,
    planned_offsets,
    planned_pages,
    predict_next,
    requested_size,
    with_position,
)
from remedy_async._wire._http import JSONResponse
from remedy_async._wire._types import TypedItem, WireFault
from tests.paging.responses import page

OFFSET = CONVENTIONS["offset"]
PAGE = CONVENTIONS["page"]
SPRING = CONVENTIONS["spring"]
POSITIONS = st.integers(min_value=0, max_value=10**6)


def asked(*params: tuple[str, str]) -> PageRequest:
    return PageRequest(params=params)


# First requests


@pytest.mark.parametrize(
    ("convention", "params"),
    [
        (OFFSET, (("limit", "10"),)),
        (PAGE, (("pageSize", "10"),)),
        (SPRING, (("size", "10"),)),
        (CONVENTIONS["cursor"], (("limit", "10"),)),
    ],
    ids=["offset", "page", "spring", "cursor"],
)
def test_a_first_request_starts_at_the_conventions_start(
    convention: Convention, params: tuple[tuple[str, str], ...]
) -> None:
    """A first request names no position (offsets and pages start where every service starts
    them), only the size in the size parameter."""
    request = first_request(convention, 10)
    assert (request.params, request.convention) == (params, convention)


def test_a_first_request_without_a_size_asks_for_none() -> None:
    """Without a page size, a first request sends no parameter at all."""
    assert first_request(OFFSET, None).params == ()


# Echoes


@given(POSITIONS, POSITIONS)
def test_an_echoed_offset_must_be_the_one_asked(requested: int, echoed: int) -> None:
    """Any echoed offset other than the requested one is refused; the same one is followed."""
    request = asked(("offset", str(requested)), ("limit", "2"))
    body = {"items": [1, 2], "offset": echoed}
    if echoed == requested:
        following = next_position(OFFSET, request, body, 2, None)
        assert following is not None
        assert dict(following.params)["offset"] == str(requested + 2)
    else:
        with pytest.raises(PagingFault, match=f"echoed offset {echoed} for a request of offset"):
            next_position(OFFSET, request, body, 2, None)


@given(st.integers(min_value=1, max_value=10**6), st.integers(min_value=1, max_value=10**6))
def test_an_echoed_page_must_be_the_one_asked(requested: int, echoed: int) -> None:
    """Any echoed page number other than the requested one is refused."""
    request = asked(("page", str(requested)))
    body = {"items": [1], "page": echoed}
    if echoed == requested:
        following = next_position(PAGE, request, body, 1, None)
        assert following is not None
        assert dict(following.params)["page"] == str(requested + 1)
    else:
        with pytest.raises(PagingFault, match=f"echoed page {echoed} for a request of page"):
            next_position(PAGE, request, body, 1, None)


def test_a_first_page_without_its_number_is_the_conventions_first() -> None:
    """A request without a page number asked for the first page: a zero-based echo of 0 fits."""
    following = next_position(SPRING, asked(), {"content": [1], "number": 0}, 1, None)
    assert following is not None
    assert dict(following.params)["page"] == "1"


def test_a_zero_based_echo_of_another_page_is_refused() -> None:
    """Spring echoing page 0 for a request of page 1 is refused (the list moved)."""
    with pytest.raises(PagingFault, match="echoed number 0 for a request of page 1"):
        next_position(SPRING, asked(("page", "1")), {"content": [1], "number": 0}, 1, None)


def test_no_echo_is_not_checked() -> None:
    """A body that echoes no position is read by the request's own."""
    check_echo(OFFSET, {"items": []}, 40)


def test_an_echo_message_shows_no_values_but_positions() -> None:
    """The refusal names the echo's place and the two positions, nothing else of the body."""
    with pytest.raises(PagingFault) as info:
        check_echo(OFFSET, {"offset": 12, "secret": "s3cr3t"}, 10)
    assert "s3cr3t" not in str(info.value)
    assert "echoed offset 12 for a request of offset 10" in str(info.value)


# Ends and next positions


def test_an_offset_list_ends_at_its_total() -> None:
    """Offset + count reaching the total ends the list."""
    assert next_position(OFFSET, asked(("offset", "8")), {"offset": 8}, 2, 10) is None


def test_a_page_list_ends_at_its_page_count() -> None:
    """The page numbered as the page count is the last."""
    assert (
        next_position(PAGE, asked(("page", "4")), {"page": 4, "totalPages": 4}, 5, None, 4) is None
    )


@pytest.mark.parametrize(
    ("convention", "response", "pages"),
    [
        (PAGE, page({"items": [], "totalPages": 4}), 4),
        (
            Convention(follow="page", param="p", pages_header="X-Total-Pages"),
            page([], ("X-Total-Pages", " 3 ")),
            3,
        ),
        (
            Convention(follow="page", param="p", pages_header="X-Total-Pages"),
            page([], ("X-Total-Pages", "many")),
            None,
        ),
        (OFFSET, page({"items": [], "totalPages": 4}), None),
    ],
)
def test_a_page_count_is_read_where_the_convention_says(
    convention: Convention, response: JSONResponse, pages: int | None
) -> None:
    """In the body or a header (digits only); a convention reading none states none."""
    assert announced_pages(convention, response) == pages


def test_a_page_list_ends_at_its_total() -> None:
    """Pages before this one plus this page's items reaching the total end the list."""
    request = asked(("page", "3"), ("pageSize", "10"))
    assert next_position(PAGE, request, {"page": 3}, 5, 25) is None


def test_the_next_page_asks_for_the_size_served() -> None:
    """Page boundaries follow the size the service served, not the one asked for."""
    request = asked(("page", "1"), ("pageSize", "100"))
    following = next_position(PAGE, request, {"page": 1, "pageSize": 20}, 20, None)
    assert following is not None
    assert following.params == (("page", "2"), ("pageSize", "20"))


def test_a_keyset_request_carries_the_last_id() -> None:
    """The next keyset request continues after the page's last id, keeping the size."""
    convention = Convention(name="k", follow="keyset", param="after", size_param="limit")
    following = keyset_next(convention, asked(("limit", "2")), [{"id": "a"}, {"id": 7}])
    assert following.params == (("after", "7"), ("limit", "2"))


def test_a_keyset_page_of_typed_views_continues_after_its_last_id() -> None:
    """A page the decode engine read into typed views continues after its last view's id."""
    convention = Convention(name="k", follow="keyset", param="after")
    following = keyset_next(convention, asked(("limit", "2")), [Row("a"), Row("b")])
    assert following.params == (("after", "b"), ("limit", "2"))


class Row(msgspec.Struct, TypedItem, frozen=True):
    """A typed view of a record, as the decode engine hands one over."""

    id: str


@pytest.mark.parametrize("last", [{"id": None}, {"id": True}, {"name": "x"}, "a"])
def test_a_keyset_page_without_a_last_id_is_refused(last: Any) -> None:
    """No usable id on the last item: the list cannot continue after it."""
    convention = Convention(name="k", follow="keyset", param="after")
    with pytest.raises(PagingFault, match="no id to continue after"):
        keyset_next(convention, asked(), [last])


# Predictions (for fetching ahead)


@given(POSITIONS, st.integers(min_value=1, max_value=1000))
def test_an_offset_prediction_steps_by_the_size_asked(offset: int, size: int) -> None:
    """The page after offset N with limit M starts at N + M."""
    request = asked(("offset", str(offset)), ("limit", str(size)))
    following = predict_next(OFFSET, request)
    assert following is not None
    assert following.params == (("offset", str(offset + size)), ("limit", str(size)))


def test_an_offset_without_a_size_is_not_predicted() -> None:
    """Without a size asked, where the next page starts is unknown."""
    assert predict_next(OFFSET, asked(("offset", "20"))) is None


def test_a_page_prediction_is_the_next_number() -> None:
    """The page after page N is N + 1 (the first page when none was asked)."""
    following = predict_next(PAGE, asked(("page", "3"), ("pageSize", "10")))
    assert following is not None
    assert following.params == (("page", "4"), ("pageSize", "10"))
    first = predict_next(SPRING, asked())
    assert first is not None
    assert first.params == (("page", "1"),)


@pytest.mark.parametrize("name", ["cursor", "link", "stripe", "none"])
def test_handed_out_positions_are_not_predicted(name: str) -> None:
    """Cursor, link, keyset and whole lists name their next page only in the page itself."""
    assert predict_next(CONVENTIONS[name], asked(("limit", "10"))) is None


# Sizes and parameters


def test_a_request_without_a_size_parameter_keeps_the_contract_sizes() -> None:
    """Without a size parameter of its own, a request keeps the first request's sizes."""
    convention = Convention(name="o", follow="offset", param="start")
    request = asked(("start", "0"), ("limit", "5"), ("pageSize", "5"), ("q", "x"))
    following = with_position(convention, request, 5)
    assert following.params == (("start", "5"), ("limit", "5"), ("pageSize", "5"))


def test_page_numbers_count_only_their_own_size_parameter() -> None:
    """A contract `limit` the page-number service did not read does not set its page size."""
    assert requested_size(PAGE, asked(("limit", "5"))) is None
    assert requested_size(OFFSET, asked(("pageSize", "5"))) == 5


@pytest.mark.parametrize(("text", "number"), [("12", 12), ("-1", None), ("x", None), ("", None)])
def test_integer_parameters(text: str, number: int | None) -> None:
    """A parameter is a position only when it is digits."""
    assert int_param([("offset", text)], "offset") == number
    assert int_param([], "offset") is None


def test_a_repeated_parameter_reads_as_its_last() -> None:
    """A parameter sent twice is read as the service reads it: its last value."""
    assert int_param([("offset", "1"), ("limit", "5"), ("offset", "7")], "offset") == 7


def test_a_size_sent_in_other_digits_is_sent_on_as_the_number() -> None:
    """A page size not written as plain digits (`0100`) reaches the next request as its number."""
    assert with_position(OFFSET, asked(("limit", "0100")), 200).params == (
        ("offset", "200"),
        ("limit", "100"),
    )


@pytest.mark.parametrize("value", ["3", 3.0, True, [3]])
def test_an_echo_that_is_not_an_integer_is_a_wire_fault(value: Any) -> None:
    """A position in the body that is not an integer is a WireFault at its path."""
    with pytest.raises(WireFault) as info:
        int_at({"meta": {"offset": value}}, ("meta", "offset"))
    assert info.value.path == "$.meta.offset"


def test_an_absent_or_null_echo_is_none() -> None:
    """An absent or null integer is unknown, as is one read at no path."""
    assert int_at({"offset": None}, ("offset",)) is None
    assert int_at({}, ("offset",)) is None
    assert int_at({"offset": 3}, ()) is None


URL_ = URL("https://api.example.com/v1/endpoints")


def items(count: int) -> list[dict[str, str]]:
    return [{"id": f"ep-{i}"} for i in range(count)]


def plan(
    paginator: PlanningPaginator, request: PageRequest, body: Any, count: int = 3
) -> PagePlan | None:
    """Read a page with the paginator, then plan up to `count` pages after it."""
    response = JSONResponse(
        url=URL_, status=200, headers=CIMultiDictProxy(CIMultiDict()), body=body
    )
    result = paginator.read(request, response)
    return paginator.plan(request, response, result, count)


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
