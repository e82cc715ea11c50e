"""The paginators one pins by hand (offset, page number, cursor, Link header): thin
constructors over `Convention` values, read by the one reader with its end rules."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest
from yarl import URL

from remedy_async._paging._paginators._pinned import (
    CursorPaginator,
    LinkHeaderPaginator,
    OffsetPaginator,
    PageNumberPaginator,
    UnpagedPaginator,
)
from remedy_async._paging._protocol import Paginator, PagingFault
from remedy_async._wire._http import JSONResponse
from remedy_async._wire._types import WireFault
from tests.paging.responses import LIST_URL, Headers, page, req, run

ITEMS = [{"id": "ep-1"}, {"id": "ep-2"}]
PINNED = [
    OffsetPaginator(),
    PageNumberPaginator(),
    CursorPaginator(),
    LinkHeaderPaginator(),
    UnpagedPaginator(),
]


def named(paginator: object) -> str:
    return type(paginator).__name__


@pytest.mark.parametrize("paginator", PINNED, ids=named)
def test_every_pinned_paginator_is_a_paginator(paginator: object) -> None:
    """Every pinned paginator implements the Paginator protocol."""
    assert isinstance(paginator, Paginator)


@pytest.mark.parametrize("paginator", PINNED, ids=named)
def test_a_pinned_paginator_is_named_after_its_class(paginator: OffsetPaginator) -> None:
    """The convention a pinned paginator builds carries its class name (as messages show it)."""
    assert paginator.convention.name == named(paginator)


@pytest.mark.parametrize("paginator", PINNED[:4], ids=named)
def test_requests_carry_the_convention_the_paginator_builds(paginator: OffsetPaginator) -> None:
    """The first request and the page read by it name the paginator's own convention."""
    request = paginator.first(2)
    assert request.convention == paginator.convention
    result = paginator.read(request, page({"items": []}))
    assert result.convention == paginator.convention


@pytest.mark.parametrize("paginator", PINNED, ids=named)
def test_parameter_names_are_the_conventions(paginator: OffsetPaginator) -> None:
    """The query parameters a filter may not use are the ones the convention sets."""
    assert paginator.parameter_names == paginator.convention.parameter_names


# first()


@pytest.mark.parametrize(
    ("paginator", "size_none", "size_50"),
    [
        (OffsetPaginator(), (), (("limit", "50"),)),
        (PageNumberPaginator(), (), (("pageSize", "50"),)),
        (CursorPaginator(), (), (("limit", "50"),)),
        (LinkHeaderPaginator(), (), (("limit", "50"),)),
        (UnpagedPaginator(), (), ()),
    ],
    ids=["offset", "page-number", "cursor", "link", "unpaged"],
)
def test_first_params(paginator: Paginator, size_none: Headers, size_50: Headers) -> None:
    """first() names no start position (every service starts there), and the page size only
    when given."""
    assert paginator.first(None).params == size_none
    assert paginator.first(50).params == size_50
    assert paginator.first(50).url is None


def test_first_uses_custom_parameter_names() -> None:
    """first() uses the configured size parameter names (and no position)."""
    assert OffsetPaginator(offset_param="skip", limit_param="take").first(5).params == (
        ("take", "5"),
    )
    assert PageNumberPaginator(page_param="p", size_param="per_page", first_page=0).first(
        5
    ).params == (("per_page", "5"),)
    assert CursorPaginator(limit_param="max").first(5).params == (("max", "5"),)
    assert LinkHeaderPaginator(page_size_param="per_page").first(5).params == (("per_page", "5"),)


# Offset


def test_offset_next_offset_is_offset_plus_items() -> None:
    """The next offset is this page's offset plus its item count, with the same limit."""
    result = OffsetPaginator().read(
        req(("offset", "10"), ("limit", "2")),
        page({"items": ITEMS, "offset": 10, "limit": 2, "total": 50}),
    )
    assert result.items == ITEMS
    assert result.items_path == "$.items"
    assert result.next is not None
    assert result.next.params == (("offset", "12"), ("limit", "2"))


def test_offset_read_from_request_params_when_body_is_silent() -> None:
    """Offset and limit come from the request's parameters when the body does not echo them."""
    result = OffsetPaginator().read(req(("offset", "4"), ("limit", "2")), page({"data": ITEMS}))
    assert result.next is not None
    assert result.next.params == (("offset", "6"), ("limit", "2"))
    assert result.items_path == "$.data"


def test_offset_echoed_other_than_the_one_asked_is_refused() -> None:
    """An echoed offset other than the one asked is refused (issue 23: it was trusted)."""
    with pytest.raises(PagingFault, match="echoed offset 6 for a request of offset 0"):
        OffsetPaginator().read(
            req(("offset", "0"), ("limit", "2")), page({"items": ITEMS, "offset": 6})
        )


def test_offset_echoed_as_asked_is_followed() -> None:
    """A body echoing the very offset asked for is read on."""
    result = OffsetPaginator().read(
        req(("offset", "6"), ("limit", "2")), page({"items": ITEMS, "offset": 6})
    )
    assert result.next is not None
    assert dict(result.next.params)["offset"] == "8"


def test_offset_next_keeps_the_limit_asked_for() -> None:
    """The next request asks for the same limit, even when the service served a smaller one."""
    result = OffsetPaginator().read(
        req(("offset", "0"), ("limit", "100")), page({"items": ITEMS, "offset": 0, "limit": 2})
    )
    assert result.next is not None
    assert result.next.params == (("offset", "2"), ("limit", "100"))


def test_offset_without_any_limit_continues_until_empty() -> None:
    """With no limit known and no total, a page with items is followed by the next offset."""
    result = OffsetPaginator().read(req(("offset", "0")), page({"items": ITEMS}))
    assert result.next is not None
    assert result.next.params == (("offset", "2"),)


def test_offset_ends_on_empty_page() -> None:
    """An empty page ends the list."""
    result = OffsetPaginator().read(req(("offset", "4"), ("limit", "2")), page({"items": []}))
    assert (result.items, result.next, result.items_path) == ([], None, "$.items")


def test_offset_ends_on_short_page() -> None:
    """A page with fewer items than the limit the service says it served is the last."""
    result = OffsetPaginator().read(
        req(("offset", "4"), ("limit", "3")), page({"items": ITEMS, "offset": 4, "limit": 3})
    )
    assert result.items == ITEMS
    assert result.next is None


def test_offset_page_shorter_than_asked_does_not_end() -> None:
    """A page shorter than the limit asked for (but not served) continues: services cap sizes."""
    result = OffsetPaginator().read(
        req(("offset", "4"), ("limit", "3")), page({"items": ITEMS, "offset": 4})
    )
    assert result.next is not None
    assert result.next.params == (("offset", "6"), ("limit", "3"))


def test_offset_total_wins_over_a_short_page() -> None:
    """With a known total not yet reached, a short page does not end the list."""
    result = OffsetPaginator().read(
        req(("offset", "0"), ("limit", "3")),
        page({"items": ITEMS, "offset": 0, "limit": 3, "total": 10}),
    )
    assert result.next is not None
    assert result.next.params == (("offset", "2"), ("limit", "3"))


@pytest.mark.parametrize(("offset", "total"), [(8, 10), (8, 9), (0, 2), (0, 1)])
def test_offset_ends_when_total_reached(offset: int, total: int) -> None:
    """The list ends once offset + items reaches or passes `total`."""
    result = OffsetPaginator().read(
        req(("offset", str(offset)), ("limit", "2")),
        page({"items": ITEMS, "offset": offset, "total": total}),
    )
    assert result.next is None


def test_offset_announces_the_total() -> None:
    """The page's total is passed on, so a list ending short of it can be refused."""
    result = OffsetPaginator().read(req(("offset", "0")), page({"items": ITEMS, "total": 9}))
    assert result.total == 9


def test_offset_continues_below_total() -> None:
    """A full page below `total` has a next page."""
    result = OffsetPaginator().read(
        req(("offset", "7"), ("limit", "2")), page({"items": ITEMS, "offset": 7, "total": 10})
    )
    assert result.next is not None
    assert result.next.params == (("offset", "9"), ("limit", "2"))


@pytest.mark.parametrize("total", ["10", 10.0, True, [10], {"n": 10}])
def test_offset_non_integer_total_is_a_wire_fault(total: Any) -> None:
    """A `total` that is not an integer is a WireFault at `$.total`."""
    with pytest.raises(WireFault) as info:
        OffsetPaginator().read(req(("offset", "0")), page({"items": ITEMS, "total": total}))
    assert info.value.path == "$.total"


@pytest.mark.parametrize("field", ["offset", "limit"])
def test_offset_non_integer_offset_or_limit_is_a_wire_fault(field: str) -> None:
    """An `offset` or `limit` in the body that is not an integer is a WireFault there."""
    with pytest.raises(WireFault) as info:
        OffsetPaginator().read(req(("offset", "0")), page({"items": ITEMS, field: "2"}))
    assert info.value.path == f"$.{field}"


def test_offset_null_total_is_unknown() -> None:
    """A null `total` means the total is unknown, not zero."""
    result = OffsetPaginator().read(
        req(("offset", "0"), ("limit", "2")), page({"items": ITEMS, "total": None})
    )
    assert result.next is not None
    assert result.next.params == (("offset", "2"), ("limit", "2"))
    assert result.total is None


def test_offset_custom_names() -> None:
    """Custom parameter, total and item key names are used throughout."""
    paginator = OffsetPaginator(
        offset_param="skip", limit_param="take", total_field="count", item_keys=("records",)
    )
    result = paginator.read(
        req(("skip", "0"), ("take", "2")), page({"records": ITEMS, "skip": 0, "count": 5})
    )
    assert (result.items, result.items_path) == (ITEMS, "$.records")
    assert result.next is not None
    assert result.next.params == (("skip", "2"), ("take", "2"))
    last = paginator.read(req(("skip", "4"), ("take", "2")), page({"records": [1], "count": 5}))
    assert last.next is None


def test_offset_nested_total_field() -> None:
    """A dotted total_field reads a nested total such as `meta.total`."""
    paginator = OffsetPaginator(total_field="meta.total")
    last = paginator.read(req(("offset", "3")), page({"items": ITEMS, "meta": {"total": 5}}))
    assert (last.total, last.next) == (5, None)


# Page number


def test_page_number_next_page() -> None:
    """The next page is this page's number plus one, with the same page size."""
    result = PageNumberPaginator().read(
        req(("page", "2"), ("pageSize", "2")),
        page({"items": ITEMS, "page": 2, "pageSize": 2, "totalPages": 4}),
    )
    assert (result.items, result.items_path) == (ITEMS, "$.items")
    assert result.next is not None
    assert result.next.params == (("page", "3"), ("pageSize", "2"))


def test_page_number_read_from_request_params() -> None:
    """Page and size come from the request's parameters when the body does not echo them."""
    result = PageNumberPaginator().read(
        req(("page", "5"), ("pageSize", "2")), page({"results": ITEMS})
    )
    assert result.items_path == "$.results"
    assert result.next is not None
    assert result.next.params == (("page", "6"), ("pageSize", "2"))


def test_page_number_echoed_other_than_the_one_asked_is_refused() -> None:
    """A body echoing another page number than the request's is refused (issue 23)."""
    with pytest.raises(PagingFault, match="echoed page 3 for a request of page 2"):
        PageNumberPaginator().read(req(("page", "2")), page({"items": ITEMS, "page": 3}))


def test_page_number_defaults_to_first_page() -> None:
    """With no page number anywhere, the page read is the first, and the next is the second."""
    result = PageNumberPaginator().read(req(), page({"items": ITEMS}))
    assert result.next is not None
    assert result.next.params == (("page", "2"),)


@pytest.mark.parametrize(("number", "total_pages"), [(4, 4), (5, 4), (1, 1), (1, 0)])
def test_page_number_ends_at_total_pages(number: int, total_pages: int) -> None:
    """The list ends at the page numbered `totalPages` (or past it)."""
    result = PageNumberPaginator().read(
        req(("page", str(number)), ("pageSize", "2")),
        page({"items": ITEMS, "page": number, "totalPages": total_pages}),
    )
    assert result.next is None


def test_page_number_ends_on_short_page() -> None:
    """A page with fewer items than the page size the service says it served is the last."""
    result = PageNumberPaginator().read(
        req(("page", "1"), ("pageSize", "5")), page({"items": ITEMS, "page": 1, "pageSize": 5})
    )
    assert result.next is None


def test_page_number_page_shorter_than_asked_does_not_end() -> None:
    """A page shorter than the size asked for (but not served) continues: services cap sizes."""
    result = PageNumberPaginator().read(
        req(("page", "1"), ("pageSize", "5")), page({"items": ITEMS, "page": 1})
    )
    assert result.next is not None
    assert result.next.params == (("page", "2"), ("pageSize", "5"))


def test_page_number_next_asks_for_the_size_served() -> None:
    """The next page asks for the size served, so page boundaries stay where they were."""
    result = PageNumberPaginator().read(
        req(("page", "1"), ("pageSize", "100")), page({"items": ITEMS, "page": 1, "pageSize": 2})
    )
    assert result.next is not None
    assert result.next.params == (("page", "2"), ("pageSize", "2"))


def test_page_number_ends_on_empty_page() -> None:
    """An empty page ends the list."""
    result = PageNumberPaginator().read(req(("page", "3")), page({"items": []}))
    assert result.next is None


def test_page_number_zero_based_total_pages() -> None:
    """With first_page=0, page totalPages-1 is the last and earlier pages continue."""
    paginator = PageNumberPaginator(first_page=0)
    middle = paginator.read(req(("page", "1")), page({"items": ITEMS, "page": 1, "totalPages": 3}))
    assert middle.next is not None
    assert middle.next.params == (("page", "2"),)
    last = paginator.read(req(("page", "2")), page({"items": ITEMS, "page": 2, "totalPages": 3}))
    assert last.next is None


def test_page_number_custom_names() -> None:
    """Custom parameter, total and item key names are used throughout."""
    paginator = PageNumberPaginator(
        page_param="p", size_param="per_page", total_pages_field="pages", item_keys=("rows",)
    )
    result = paginator.read(
        req(("p", "1"), ("per_page", "2")), page({"rows": ITEMS, "p": 1, "pages": 2})
    )
    assert (result.items, result.items_path) == (ITEMS, "$.rows")
    assert result.next is not None
    assert result.next.params == (("p", "2"), ("per_page", "2"))


def test_page_number_non_integer_total_pages_is_a_wire_fault() -> None:
    """A `totalPages` that is not an integer is a WireFault at `$.totalPages`."""
    with pytest.raises(WireFault) as info:
        PageNumberPaginator().read(req(), page({"items": ITEMS, "totalPages": "3"}))
    assert info.value.path == "$.totalPages"


# Cursor


def test_cursor_next_cursor_with_same_limit() -> None:
    """The next request carries the next cursor and the same limit."""
    result = CursorPaginator().read(req(("limit", "2")), page({"items": ITEMS, "nextCursor": "c2"}))
    assert (result.items, result.items_path) == (ITEMS, "$.items")
    assert result.next is not None
    assert result.next.params == (("cursor", "c2"), ("limit", "2"))


def test_cursor_replaces_the_previous_cursor() -> None:
    """The next request has only the new cursor, not the one just used."""
    result = CursorPaginator().read(
        req(("cursor", "c2"), ("limit", "2")), page({"data": ITEMS, "nextCursor": "c3"})
    )
    assert result.next is not None
    assert result.next.params == (("cursor", "c3"), ("limit", "2"))


def test_cursor_without_limit() -> None:
    """Without a limit in the request, the next request carries only the cursor."""
    result = CursorPaginator().read(req(), page({"items": ITEMS, "nextCursor": "c2"}))
    assert result.next is not None
    assert result.next.params == (("cursor", "c2"),)


def test_cursor_keeps_the_cursor_verbatim() -> None:
    """An opaque cursor with URL-special characters is passed on unchanged."""
    cursor = "a+b/c==&x=1 é"
    result = CursorPaginator().read(req(), page({"items": ITEMS, "nextCursor": cursor}))
    assert result.next is not None
    assert result.next.params == (("cursor", cursor),)


@pytest.mark.parametrize(
    "body",
    [{"items": ITEMS, "nextCursor": None}, {"items": ITEMS}, {"items": ITEMS, "nextCursor": ""}],
    ids=["null", "absent", "empty"],
)
def test_cursor_null_absent_or_empty_next_ends(body: dict[str, Any]) -> None:
    """A null, absent or `""` next cursor ends the list (issue 23: `""` was refused)."""
    result = CursorPaginator().read(req(("limit", "2")), page(body))
    assert (result.items, result.next) == (ITEMS, None)


def test_cursor_blank_next_ends_like_an_empty_one() -> None:
    """A blank next cursor ends the list, as a blank continuation header does."""
    result = CursorPaginator().read(req(), page({"items": ITEMS, "nextCursor": "   "}))
    assert result.next is None


def test_cursor_integer_next_is_sent_as_its_digits() -> None:
    """An integer next cursor (a next page number or start index) is sent back as text."""
    result = CursorPaginator().read(req(), page({"items": ITEMS, "nextCursor": 3}))
    assert result.next is not None
    assert result.next.params == (("cursor", "3"),)


@pytest.mark.parametrize("value", [1.5, True, False, ["c2"], {"c": 2}])
def test_cursor_non_string_next_is_a_wire_fault(value: Any) -> None:
    """A next cursor that is neither a string nor an integer is a WireFault at its field."""
    with pytest.raises(WireFault) as info:
        CursorPaginator().read(req(), page({"items": ITEMS, "nextCursor": value}))
    assert info.value.path == "$.nextCursor"


def test_cursor_nested_next_field() -> None:
    """A dotted next_field reads a nested cursor such as `meta.nextCursor`."""
    paginator = CursorPaginator(next_field="meta.nextCursor")
    result = paginator.read(
        req(("limit", "2")), page({"items": ITEMS, "meta": {"nextCursor": "c2"}})
    )
    assert result.next is not None
    assert result.next.params == (("cursor", "c2"), ("limit", "2"))


@pytest.mark.parametrize(
    "body",
    [
        {"items": ITEMS, "meta": {"nextCursor": None}},
        {"items": ITEMS, "meta": {}},
        {"items": ITEMS, "meta": "c2"},
    ],
)
def test_cursor_nested_next_field_missing_ends(body: dict[str, Any]) -> None:
    """A nested next field that is null or missing along its path ends the list."""
    assert CursorPaginator(next_field="meta.nextCursor").read(req(), page(body)).next is None


def test_cursor_refuses_a_next_cursor_it_does_not_read() -> None:
    """A continuation elsewhere than the configured field is refused, not taken as the end."""
    with pytest.raises(PagingFault, match=r"nextCursor.*'CursorPaginator' convention"):
        CursorPaginator(next_field="meta.nextCursor").read(
            req(), page({"items": ITEMS, "nextCursor": "c2"})
        )


def test_cursor_nested_non_string_is_a_wire_fault_at_its_path() -> None:
    """A nested next field of the wrong type is reported at its full path."""
    with pytest.raises(WireFault) as info:
        CursorPaginator(next_field="meta.nextCursor").read(
            req(), page({"items": ITEMS, "meta": {"nextCursor": 7.5}})
        )
    assert info.value.path == "$.meta.nextCursor"


@pytest.mark.parametrize(
    "link",
    [
        "/v1/endpoints?after=ep-2",
        "?after=ep-2",
        "https://api.example.com/v1/endpoints?after=ep-2",
    ],
)
def test_cursor_url_kind_resolves_against_request_url(link: str) -> None:
    """With next_kind="url", the next field is a URL resolved against the request URL."""
    paginator = CursorPaginator(next_field="links.next", next_kind="url")
    result = paginator.read(
        req(("limit", "2")),
        page({"data": ITEMS, "links": {"next": link}}, url=LIST_URL.with_query(limit="2")),
    )
    assert (result.items, result.items_path) == (ITEMS, "$.data")
    assert result.next is not None
    assert result.next.url == URL("https://api.example.com/v1/endpoints?after=ep-2")
    assert result.next.params == ()


def test_cursor_url_kind_null_ends() -> None:
    """With next_kind="url", a null next URL ends the list."""
    paginator = CursorPaginator(next_field="links.next", next_kind="url")
    assert paginator.read(req(), page({"data": ITEMS, "links": {"next": None}})).next is None


def test_cursor_url_kind_unparseable_url_is_a_paging_fault() -> None:
    """With next_kind="url", a next URL that is not a URL is refused, not a crash."""
    paginator = CursorPaginator(next_field="links.next", next_kind="url")
    with pytest.raises(PagingFault, match="not a usable URL"):
        paginator.read(req(), page({"data": ITEMS, "links": {"next": "http://[oops/x"}}))


def test_cursor_custom_names() -> None:
    """Custom cursor, limit and item key names are used."""
    paginator = CursorPaginator(
        cursor_param="after", limit_param="max", next_field="next_token", item_keys=("entries",)
    )
    result = paginator.read(req(("max", "2")), page({"entries": ITEMS, "next_token": "t2"}))
    assert (result.items, result.items_path) == (ITEMS, "$.entries")
    assert result.next is not None
    assert result.next.params == (("after", "t2"), ("max", "2"))


# Link header


@pytest.mark.parametrize(
    ("body", "items_path"),
    [(ITEMS, "$"), ({"items": ITEMS}, "$.items"), ({"results": ITEMS, "total": 9}, "$.results")],
)
def test_link_next_becomes_an_absolute_url(body: Any, items_path: str) -> None:
    """The rel="next" target, resolved against the request URL, is the next request's URL."""
    result = LinkHeaderPaginator().read(
        req(("limit", "2")),
        page(
            body,
            ("Link", '</v1/endpoints?page=2&limit=2>; rel="next"'),
            url=LIST_URL.with_query(limit="2"),
        ),
    )
    assert (result.items, result.items_path) == (ITEMS, items_path)
    assert result.next is not None
    assert result.next.url == URL("https://api.example.com/v1/endpoints?page=2&limit=2")


@pytest.mark.parametrize("body", [ITEMS, {"data": ITEMS}])
@pytest.mark.parametrize(
    "headers",
    [(), (("Link", '</v1/endpoints?page=1>; rel="prev"'),), (("Link", ""),)],
)
def test_link_without_next_ends(body: Any, headers: Headers) -> None:
    """Without a rel="next" link, the page is the last."""
    assert LinkHeaderPaginator().read(req(), page(body, *headers)).next is None


def test_link_next_marked_without_results_ends() -> None:
    """A rel="next" marked `results="false"` ends the list (it was followed forever)."""
    link = '</v1/endpoints?cursor=x>; rel="next"; results="false"'
    assert LinkHeaderPaginator().read(req(), page(ITEMS, ("Link", link))).next is None


def test_link_next_in_second_header() -> None:
    """A rel="next" link in a second Link header is followed."""
    result = LinkHeaderPaginator().read(
        req(),
        page(
            ITEMS,
            ("Link", '<https://api.example.com/v1/endpoints?page=1>; rel="first"'),
            ("link", '<https://api.example.com/v1/endpoints?page=3>; rel="next"'),
        ),
    )
    assert result.next is not None
    assert result.next.url == URL("https://api.example.com/v1/endpoints?page=3")


def test_link_reads_a_plain_dict_of_headers() -> None:
    """The Link paginator also works with headers as a plain mapping."""
    response = JSONResponse(
        url=LIST_URL, status=200, headers={"Link": '<?page=2>; rel="next"'}, body=ITEMS
    )
    result = LinkHeaderPaginator().read(req(), response)
    assert result.next is not None
    assert result.next.url == URL("https://api.example.com/v1/endpoints?page=2")


def test_link_custom_item_keys() -> None:
    """An envelope's items are looked for under the configured keys."""
    result = LinkHeaderPaginator(item_keys=("rows",)).read(req(), page({"rows": ITEMS}))
    assert (result.items, result.next, result.items_path) == (ITEMS, None, "$.rows")


@pytest.mark.parametrize("body", ["text", 3, None, True])
def test_link_body_neither_array_nor_object_is_a_wire_fault(body: Any) -> None:
    """A body that is neither an array nor an object is a WireFault at `$`."""
    with pytest.raises(WireFault) as info:
        LinkHeaderPaginator().read(req(), page(body))
    assert info.value.path == "$"


def test_link_unparseable_next_target_is_a_paging_fault() -> None:
    """A rel="next" target that is not a URL is refused as a paging fault."""
    with pytest.raises(PagingFault):
        LinkHeaderPaginator().read(req(), page(ITEMS, ("Link", '<http://[oops/x>; rel="next"')))


# Envelope shape, for every envelope-reading paginator

ENVELOPE_PAGINATORS = [OffsetPaginator(), PageNumberPaginator(), CursorPaginator()]
WITH_LINK = [*ENVELOPE_PAGINATORS, LinkHeaderPaginator()]


@pytest.mark.parametrize("paginator", ENVELOPE_PAGINATORS, ids=named)
def test_a_bare_array_is_refused_naming_the_preset_that_reads_it(paginator: Paginator) -> None:
    """A bare array given to an envelope paginator is refused, advising the 'none' preset."""
    with pytest.raises(PagingFault, match=r"CONVENTIONS\['none'\]"):
        paginator.read(paginator.first(None), page(ITEMS))


@pytest.mark.parametrize("paginator", ENVELOPE_PAGINATORS, ids=named)
@pytest.mark.parametrize("body", ["text", 3, None])
def test_envelope_paginator_requires_an_object(paginator: Paginator, body: Any) -> None:
    """Offset, page-number and cursor pages must be envelope objects (WireFault at `$`)."""
    with pytest.raises(WireFault) as info:
        paginator.read(paginator.first(2), page(body))
    assert info.value.path == "$"


@pytest.mark.parametrize("paginator", WITH_LINK, ids=named)
def test_envelope_without_items_where_pinned_is_refused_with_a_convention(
    paginator: Paginator,
) -> None:
    """No items where pinned: a PagingFault advising a convention (was a WireFault)."""
    with pytest.raises(PagingFault, match="no array of items at") as info:
        paginator.read(paginator.first(2), page({"rows": ITEMS, "total": 2}))
    suggestion = info.value.suggestion
    assert suggestion is not None
    assert suggestion.items == (("rows",),)


@pytest.mark.parametrize("paginator", WITH_LINK, ids=named)
def test_items_of_another_convention_are_named(paginator: Paginator) -> None:
    """Items where another known convention keeps them are refused, naming that preset."""
    with pytest.raises(PagingFault, match=r"CONVENTIONS\['salesforce'\]"):
        paginator.read(
            paginator.first(2), page({"records": ITEMS, "done": True, "nextRecordsUrl": None})
        )


@pytest.mark.parametrize("paginator", WITH_LINK, ids=named)
@pytest.mark.parametrize("value", [{"id": "ep-1"}, "ep-1", 3])
def test_envelope_non_array_items_is_a_wire_fault(paginator: Paginator, value: Any) -> None:
    """An envelope whose item key holds a value that is not an array is a WireFault there."""
    with pytest.raises(WireFault) as info:
        paginator.read(paginator.first(2), page({"data": value}))
    assert info.value.path == "$.data"


@pytest.mark.parametrize("paginator", WITH_LINK, ids=named)
def test_envelope_null_items_are_no_items(paginator: Paginator) -> None:
    """A null item key is read as absent: the page is refused for having no item array."""
    with pytest.raises(PagingFault, match="no array of items"):
        paginator.read(paginator.first(2), page({"data": None}))


@pytest.mark.parametrize("paginator", ENVELOPE_PAGINATORS, ids=named)
@pytest.mark.parametrize("key", ["items", "data", "results"])
def test_items_path_names_the_item_key(paginator: Paginator, key: str) -> None:
    """items_path is the JSON path of the item array actually read."""
    assert paginator.read(paginator.first(2), page({key: []})).items_path == f"$.{key}"


# Whole sequences


@pytest.mark.parametrize(
    ("paginator", "responses", "expected"),
    [
        (
            OffsetPaginator(),
            [({"items": [1, 2]}, ()), ({"items": [3, 4]}, ()), ({"items": []}, ())],
            [
                (("limit", "2"),),
                (("offset", "2"), ("limit", "2")),
                (("offset", "4"), ("limit", "2")),
            ],
        ),
        (
            PageNumberPaginator(),
            [({"items": [1, 2]}, ()), ({"items": [3]}, ()), ({"items": []}, ())],
            [
                (("pageSize", "2"),),
                (("page", "2"), ("pageSize", "2")),
                (("page", "3"), ("pageSize", "2")),
            ],
        ),
        (
            CursorPaginator(),
            [({"items": [1, 2], "nextCursor": "x"}, ()), ({"items": [3]}, ())],
            [(("limit", "2"),), (("cursor", "x"), ("limit", "2"))],
        ),
    ],
    ids=["offset", "page-number", "cursor"],
)
def test_pinned_sequence(
    paginator: Paginator,
    responses: Sequence[tuple[Any, Headers]],
    expected: list[Headers],
) -> None:
    """Each pinned paginator, fed pages that echo no paging fields, makes the expected requests."""
    items, requests = run(paginator, responses)
    assert [request.params for request in requests] == expected
    assert len(items) == sum(len(body["items"]) for body, _ in responses)


def test_link_sequence() -> None:
    """The Link paginator follows each next link until a page has none."""
    items, requests = run(
        LinkHeaderPaginator(), [([1, 2], (("Link", '<?after=2>; rel="next"'),)), ([3], ())]
    )
    assert items == [1, 2, 3]
    assert requests[0].params == (("limit", "2"),)
    assert requests[1].url == URL("https://api.example.com/v1/endpoints?after=2")
