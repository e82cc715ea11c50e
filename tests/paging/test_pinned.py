"""The paging schemes (offset, page number, cursor, Link header) and their auto-detection."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest
from multidict import CIMultiDict, CIMultiDictProxy
from yarl import URL

from remedy_async._http import JSONResponse
from remedy_async._paging._auto import AutoPaginator
from remedy_async._paging._conventions import CONVENTIONS
from remedy_async._paging._protocol import (
    Convention,
    PageRequest,
    PageResult,
    Paginator,
    PagingFault,
)
from remedy_async._paging._pinned import (
    CursorPaginator,
    LinkHeaderPaginator,
    OffsetPaginator,
    PageNumberPaginator,
)
from remedy_async._wire._faults import WireFault

URL_ = URL("https://api.example.com/v1/endpoints")
ITEMS = [{"id": "ep-1"}, {"id": "ep-2"}]


def page(body: Any, *header_pairs: tuple[str, str], url: URL = URL_) -> JSONResponse:
    """A decoded page response with aiohttp-style headers."""
    return JSONResponse(
        url=url, status=200, headers=CIMultiDictProxy(CIMultiDict(header_pairs)), body=body
    )


def req(*params: tuple[str, str]) -> PageRequest:
    """A page request adding the given query parameters."""
    return PageRequest(params=params)


ALL_SCHEMES = [
    OffsetPaginator(),
    PageNumberPaginator(),
    CursorPaginator(),
    LinkHeaderPaginator(),
    AutoPaginator(),
]


@pytest.mark.parametrize("paginator", ALL_SCHEMES, ids=lambda p: type(p).__name__)
def test_every_scheme_is_a_paginator(paginator: object) -> None:
    """Every scheme implements the Paginator protocol."""
    assert isinstance(paginator, Paginator)


# first()


@pytest.mark.parametrize(
    ("paginator", "size_none", "size_50"),
    [
        (OffsetPaginator(), (("offset", "0"),), (("offset", "0"), ("limit", "50"))),
        (PageNumberPaginator(), (("page", "1"),), (("page", "1"), ("pageSize", "50"))),
        (CursorPaginator(), (), (("limit", "50"),)),
        (LinkHeaderPaginator(), (), (("limit", "50"),)),
        (AutoPaginator(), (), (("limit", "50"), ("pageSize", "50"))),
    ],
    ids=["offset", "page-number", "cursor", "link", "auto"],
)
def test_first_params(
    paginator: Paginator,
    size_none: tuple[tuple[str, str], ...],
    size_50: tuple[tuple[str, str], ...],
) -> None:
    """first() adds the scheme's start parameters, and the page size only when given."""
    assert paginator.first(None) == PageRequest(params=size_none)
    assert paginator.first(50) == PageRequest(params=size_50)


def test_first_uses_custom_parameter_names() -> None:
    """first() uses the configured parameter names and first page number."""
    assert OffsetPaginator(offset_param="skip", limit_param="take").first(5).params == (
        ("skip", "0"),
        ("take", "5"),
    )
    assert PageNumberPaginator(page_param="p", size_param="per_page", first_page=0).first(
        5
    ).params == (("p", "0"), ("per_page", "5"))
    assert CursorPaginator(limit_param="max").first(5).params == (("max", "5"),)
    assert LinkHeaderPaginator(page_size_param="per_page").first(5).params == (("per_page", "5"),)


# Offset


def test_offset_next_offset_is_offset_plus_items() -> None:
    """The next offset is this page's offset plus its item count, with the same limit."""
    result = OffsetPaginator().read(
        req(("offset", "10"), ("limit", "2")),
        page({"items": ITEMS, "offset": 10, "limit": 2, "total": 50}),
    )
    assert result == PageResult(ITEMS, req(("offset", "12"), ("limit", "2")), "$.items")


def test_offset_read_from_request_params_when_body_is_silent() -> None:
    """Offset and limit come from the request's parameters when the body does not echo them."""
    result = OffsetPaginator().read(req(("offset", "4"), ("limit", "2")), page({"data": ITEMS}))
    assert result.next == req(("offset", "6"), ("limit", "2"))
    assert result.items_path == "$.data"


def test_offset_body_offset_wins_over_request_params() -> None:
    """The body's offset is used over the request's, as the service's word."""
    result = OffsetPaginator().read(
        req(("offset", "0"), ("limit", "2")), page({"items": ITEMS, "offset": 6})
    )
    assert result.next == req(("offset", "8"), ("limit", "2"))


def test_offset_next_keeps_the_limit_asked_for() -> None:
    """The next request asks for the same limit, even when the service served a smaller one."""
    result = OffsetPaginator().read(
        req(("offset", "0"), ("limit", "100")), page({"items": ITEMS, "offset": 0, "limit": 2})
    )
    assert result.next == req(("offset", "2"), ("limit", "100"))


def test_offset_without_any_limit_continues_until_empty() -> None:
    """With no limit known and no total, a page with items is followed by the next offset."""
    result = OffsetPaginator().read(req(("offset", "0")), page({"items": ITEMS}))
    assert result.next == req(("offset", "2"))


def test_offset_ends_on_empty_page() -> None:
    """An empty page ends the list."""
    result = OffsetPaginator().read(req(("offset", "4"), ("limit", "2")), page({"items": []}))
    assert result == PageResult([], None, "$.items")


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
    assert result.next == req(("offset", "6"), ("limit", "3"))


def test_offset_total_wins_over_a_short_page() -> None:
    """With a known total not yet reached, a short page does not end the list."""
    result = OffsetPaginator().read(
        req(("offset", "0"), ("limit", "3")),
        page({"items": ITEMS, "offset": 0, "limit": 3, "total": 10}),
    )
    assert result.next == req(("offset", "2"), ("limit", "3"))


@pytest.mark.parametrize(("offset", "total"), [(8, 10), (8, 9), (0, 2), (0, 1)])
def test_offset_ends_when_total_reached(offset: int, total: int) -> None:
    """The list ends once offset + items reaches or passes `total`."""
    result = OffsetPaginator().read(
        req(("offset", str(offset)), ("limit", "2")),
        page({"items": ITEMS, "offset": offset, "total": total}),
    )
    assert result.next is None


def test_offset_continues_below_total() -> None:
    """A full page below `total` has a next page."""
    result = OffsetPaginator().read(
        req(("offset", "7"), ("limit", "2")), page({"items": ITEMS, "offset": 7, "total": 10})
    )
    assert result.next == req(("offset", "9"), ("limit", "2"))


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
    assert result.next == req(("offset", "2"), ("limit", "2"))


def test_offset_custom_names() -> None:
    """Custom parameter, total and item key names are used throughout."""
    paginator = OffsetPaginator(
        offset_param="skip", limit_param="take", total_field="count", item_keys=("records",)
    )
    result = paginator.read(
        req(("skip", "0"), ("take", "2")), page({"records": ITEMS, "skip": 0, "count": 5})
    )
    assert result == PageResult(ITEMS, req(("skip", "2"), ("take", "2")), "$.records")
    last = paginator.read(req(("skip", "4"), ("take", "2")), page({"records": [1], "count": 5}))
    assert last.next is None


# Page number


def test_page_number_next_page() -> None:
    """The next page is this page's number plus one, with the same page size."""
    result = PageNumberPaginator().read(
        req(("page", "2"), ("pageSize", "2")),
        page({"items": ITEMS, "page": 2, "pageSize": 2, "totalPages": 4}),
    )
    assert result == PageResult(ITEMS, req(("page", "3"), ("pageSize", "2")), "$.items")


def test_page_number_read_from_request_params() -> None:
    """Page and size come from the request's parameters when the body does not echo them."""
    result = PageNumberPaginator().read(
        req(("page", "5"), ("pageSize", "2")), page({"results": ITEMS})
    )
    assert result == PageResult(ITEMS, req(("page", "6"), ("pageSize", "2")), "$.results")


def test_page_number_defaults_to_first_page() -> None:
    """With no page number anywhere, the page read is the first, and the next is the second."""
    result = PageNumberPaginator().read(req(), page({"items": ITEMS}))
    assert result.next == req(("page", "2"))


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
    assert result.next == req(("page", "2"), ("pageSize", "5"))


def test_page_number_next_keeps_the_size_asked_for() -> None:
    """The next request asks for the same page size, even when the service served a smaller one."""
    result = PageNumberPaginator().read(
        req(("page", "1"), ("pageSize", "100")), page({"items": ITEMS, "page": 1, "pageSize": 2})
    )
    assert result.next == req(("page", "2"), ("pageSize", "100"))


def test_page_number_ends_on_empty_page() -> None:
    """An empty page ends the list."""
    result = PageNumberPaginator().read(req(("page", "3")), page({"items": []}))
    assert result.next is None


def test_page_number_zero_based_total_pages() -> None:
    """With first_page=0, page totalPages-1 is the last and earlier pages continue."""
    paginator = PageNumberPaginator(first_page=0)
    middle = paginator.read(req(("page", "1")), page({"items": ITEMS, "page": 1, "totalPages": 3}))
    assert middle.next == req(("page", "2"))
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
    assert result == PageResult(ITEMS, req(("p", "2"), ("per_page", "2")), "$.rows")


def test_page_number_non_integer_total_pages_is_a_wire_fault() -> None:
    """A `totalPages` that is not an integer is a WireFault at `$.totalPages`."""
    with pytest.raises(WireFault) as info:
        PageNumberPaginator().read(req(), page({"items": ITEMS, "totalPages": "3"}))
    assert info.value.path == "$.totalPages"


# Cursor


def test_cursor_next_cursor_with_same_limit() -> None:
    """The next request carries the next cursor and the same limit."""
    result = CursorPaginator().read(req(("limit", "2")), page({"items": ITEMS, "nextCursor": "c2"}))
    assert result == PageResult(ITEMS, req(("cursor", "c2"), ("limit", "2")), "$.items")


def test_cursor_replaces_the_previous_cursor() -> None:
    """The next request has only the new cursor, not the one just used."""
    result = CursorPaginator().read(
        req(("cursor", "c2"), ("limit", "2")), page({"data": ITEMS, "nextCursor": "c3"})
    )
    assert result.next == req(("cursor", "c3"), ("limit", "2"))


def test_cursor_without_limit() -> None:
    """Without a limit in the request, the next request carries only the cursor."""
    result = CursorPaginator().read(req(), page({"items": ITEMS, "nextCursor": "c2"}))
    assert result.next == req(("cursor", "c2"))


def test_cursor_keeps_the_cursor_verbatim() -> None:
    """An opaque cursor with URL-special characters is passed on unchanged."""
    cursor = "a+b/c==&x=1 é"
    result = CursorPaginator().read(req(), page({"items": ITEMS, "nextCursor": cursor}))
    assert result.next == req(("cursor", cursor))


@pytest.mark.parametrize("body", [{"items": ITEMS, "nextCursor": None}, {"items": ITEMS}])
def test_cursor_null_or_absent_next_ends(body: dict[str, Any]) -> None:
    """A null or absent next cursor ends the list."""
    assert CursorPaginator().read(req(("limit", "2")), page(body)) == PageResult(
        ITEMS, None, "$.items"
    )


@pytest.mark.parametrize("empty", ["", "   "])
def test_cursor_empty_next_is_a_paging_fault(empty: str) -> None:
    """An empty (or blank) next cursor cannot mean "more", so it is refused."""
    with pytest.raises(PagingFault, match="nextCursor"):
        CursorPaginator().read(req(), page({"items": ITEMS, "nextCursor": empty}))


@pytest.mark.parametrize("value", [3, 1.5, True, False, ["c2"], {"c": 2}])
def test_cursor_non_string_next_is_a_wire_fault(value: Any) -> None:
    """A next cursor that is not a string is a WireFault at its field."""
    with pytest.raises(WireFault) as info:
        CursorPaginator().read(req(), page({"items": ITEMS, "nextCursor": value}))
    assert info.value.path == "$.nextCursor"


def test_cursor_nested_next_field() -> None:
    """A dotted next_field reads a nested cursor such as `meta.nextCursor`."""
    paginator = CursorPaginator(next_field="meta.nextCursor")
    result = paginator.read(
        req(("limit", "2")), page({"items": ITEMS, "meta": {"nextCursor": "c2"}})
    )
    assert result.next == req(("cursor", "c2"), ("limit", "2"))


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
    with pytest.raises(PagingFault, match=r"nextCursor.*'cursor' convention"):
        CursorPaginator(next_field="meta.nextCursor").read(
            req(), page({"items": ITEMS, "nextCursor": "c2"})
        )


def test_cursor_nested_non_string_is_a_wire_fault_at_its_path() -> None:
    """A nested next field of the wrong type is reported at its full path."""
    with pytest.raises(WireFault) as info:
        CursorPaginator(next_field="meta.nextCursor").read(
            req(), page({"items": ITEMS, "meta": {"nextCursor": 7}})
        )
    assert info.value.path == "$.meta.nextCursor"


@pytest.mark.parametrize(
    ("link", "expected"),
    [
        ("/v1/endpoints?after=ep-2", "https://api.example.com/v1/endpoints?after=ep-2"),
        ("?after=ep-2", "https://api.example.com/v1/endpoints?after=ep-2"),
        (
            "https://api.example.com/v1/endpoints?after=ep-2",
            "https://api.example.com/v1/endpoints?after=ep-2",
        ),
    ],
)
def test_cursor_url_kind_resolves_against_request_url(link: str, expected: str) -> None:
    """With next_kind="url", the next field is a URL resolved against the request URL."""
    paginator = CursorPaginator(next_field="links.next", next_kind="url")
    result = paginator.read(
        req(("limit", "2")),
        page({"data": ITEMS, "links": {"next": link}}, url=URL_.with_query(limit="2")),
    )
    assert result == PageResult(ITEMS, PageRequest(url=URL(expected)), "$.data")


def test_cursor_url_kind_null_ends() -> None:
    """With next_kind="url", a null next URL ends the list."""
    paginator = CursorPaginator(next_field="links.next", next_kind="url")
    assert paginator.read(req(), page({"data": ITEMS, "links": {"next": None}})).next is None


def test_cursor_url_kind_unparseable_url_is_a_wire_fault() -> None:
    """With next_kind="url", a next URL that is not a URL is a WireFault, not a crash."""
    paginator = CursorPaginator(next_field="links.next", next_kind="url")
    with pytest.raises(WireFault):
        paginator.read(req(), page({"data": ITEMS, "links": {"next": "http://[oops/x"}}))


def test_cursor_custom_names() -> None:
    """Custom cursor, limit and item key names are used."""
    paginator = CursorPaginator(
        cursor_param="after", limit_param="max", next_field="next_token", item_keys=("entries",)
    )
    result = paginator.read(req(("max", "2")), page({"entries": ITEMS, "next_token": "t2"}))
    assert result == PageResult(ITEMS, req(("after", "t2"), ("max", "2")), "$.entries")


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
            url=URL_.with_query(limit="2"),
        ),
    )
    expected = PageRequest(url=URL("https://api.example.com/v1/endpoints?page=2&limit=2"))
    assert result == PageResult(ITEMS, expected, items_path)


@pytest.mark.parametrize("body", [ITEMS, {"data": ITEMS}])
@pytest.mark.parametrize(
    "headers",
    [(), (("Link", '</v1/endpoints?page=1>; rel="prev"'),), (("Link", ""),)],
)
def test_link_without_next_ends(body: Any, headers: tuple[tuple[str, str], ...]) -> None:
    """Without a rel="next" link, the page is the last."""
    assert LinkHeaderPaginator().read(req(), page(body, *headers)).next is None


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
    assert result.next == PageRequest(url=URL("https://api.example.com/v1/endpoints?page=3"))


def test_link_reads_a_plain_dict_of_headers() -> None:
    """The Link scheme also works with headers as a plain mapping."""
    response = JSONResponse(
        url=URL_, status=200, headers={"Link": '<?page=2>; rel="next"'}, body=ITEMS
    )
    result = LinkHeaderPaginator().read(req(), response)
    assert result.next == PageRequest(url=URL("https://api.example.com/v1/endpoints?page=2"))


def test_link_custom_item_keys() -> None:
    """An envelope's items are looked for under the configured keys."""
    result = LinkHeaderPaginator(item_keys=("rows",)).read(req(), page({"rows": ITEMS}))
    assert result == PageResult(ITEMS, None, "$.rows")


@pytest.mark.parametrize("body", ["text", 3, None, True])
def test_link_body_neither_array_nor_object_is_a_wire_fault(body: Any) -> None:
    """A body that is neither an array nor an object is a WireFault at `$`."""
    with pytest.raises(WireFault) as info:
        LinkHeaderPaginator().read(req(), page(body))
    assert info.value.path == "$"


@pytest.mark.parametrize(
    "paginator", [LinkHeaderPaginator(), AutoPaginator()], ids=["link", "auto"]
)
def test_link_unparseable_next_target_is_a_fault(paginator: Paginator) -> None:
    """A rel="next" target that is not a URL is reported as a paging or wire fault."""
    with pytest.raises((WireFault, PagingFault)):
        paginator.read(req(), page(ITEMS, ("Link", '<http://[oops/x>; rel="next"')))


# Envelope shape, for every envelope-reading scheme

ENVELOPE_SCHEMES = [OffsetPaginator(), PageNumberPaginator(), CursorPaginator()]


@pytest.mark.parametrize("paginator", ENVELOPE_SCHEMES, ids=lambda p: type(p).__name__)
def test_envelope_scheme_names_the_convention_of_a_bare_array(paginator: Paginator) -> None:
    """A bare array given to an envelope scheme is refused, naming the convention it shows."""
    with pytest.raises(PagingFault, match=r"'none' convention"):
        paginator.read(paginator.first(2), page(ITEMS))


@pytest.mark.parametrize("paginator", ENVELOPE_SCHEMES, ids=lambda p: type(p).__name__)
@pytest.mark.parametrize("body", ["text", 3, None])
def test_envelope_scheme_requires_an_object(paginator: Paginator, body: Any) -> None:
    """Offset, page-number and cursor pages must be envelope objects (WireFault at `$`)."""
    with pytest.raises(WireFault) as info:
        paginator.read(paginator.first(2), page(body))
    assert info.value.path == "$"


@pytest.mark.parametrize(
    "paginator", [*ENVELOPE_SCHEMES, LinkHeaderPaginator()], ids=lambda p: type(p).__name__
)
def test_envelope_missing_items_is_a_wire_fault(paginator: Paginator) -> None:
    """An envelope without any known item key is a WireFault at `$`."""
    with pytest.raises(WireFault) as info:
        paginator.read(paginator.first(2), page({"rows": ITEMS, "total": 2}))
    assert info.value.path == "$"


@pytest.mark.parametrize(
    "paginator", [*ENVELOPE_SCHEMES, LinkHeaderPaginator()], ids=lambda p: type(p).__name__
)
def test_items_of_another_convention_are_named(paginator: Paginator) -> None:
    """Items where another known convention keeps them are refused, naming that convention."""
    with pytest.raises(PagingFault, match="'salesforce' convention"):
        paginator.read(
            paginator.first(2), page({"records": ITEMS, "done": True, "nextRecordsUrl": None})
        )


@pytest.mark.parametrize(
    "paginator", [*ENVELOPE_SCHEMES, LinkHeaderPaginator()], ids=lambda p: type(p).__name__
)
@pytest.mark.parametrize("value", [{"id": "ep-1"}, "ep-1", 3, None])
def test_envelope_non_array_items_is_a_wire_fault(paginator: Paginator, value: Any) -> None:
    """An envelope whose item key is not an array is a WireFault at that key."""
    with pytest.raises(WireFault) as info:
        paginator.read(paginator.first(2), page({"data": value}))
    assert info.value.path == "$.data"


@pytest.mark.parametrize("paginator", ENVELOPE_SCHEMES, ids=lambda p: type(p).__name__)
@pytest.mark.parametrize("key", ["items", "data", "results"])
def test_items_path_names_the_item_key(paginator: Paginator, key: str) -> None:
    """items_path is the JSON path of the item array actually read."""
    assert paginator.read(paginator.first(2), page({key: []})).items_path == f"$.{key}"


# AutoPaginator: detection


def detect(body: Any, *headers: tuple[str, str]) -> str:
    return AutoPaginator().detect(page(body, *headers)).name


@pytest.mark.parametrize(
    "body",
    [
        ITEMS,
        {"items": ITEMS, "nextCursor": "c2"},
        {"items": ITEMS, "offset": 0},
        {"items": ITEMS, "page": 1},
        {"items": ITEMS},
    ],
)
def test_auto_link_next_wins_over_everything(body: Any) -> None:
    """A Link header with rel="next" selects the Link convention whatever the body says."""
    assert detect(body, ("Link", '<?page=2>; rel="next"')) == "link"


def test_auto_bare_array_without_link_is_unpaged() -> None:
    """A bare array without a next link is the whole list."""
    assert detect(ITEMS) == "none"
    assert detect(ITEMS, ("Link", '<?page=1>; rel="prev"')) == "none"


@pytest.mark.parametrize("cursor", ["c2", None, ""])
def test_auto_next_cursor_field_is_cursor(cursor: str | None) -> None:
    """An envelope with a `nextCursor` field, even null, is the cursor convention."""
    assert detect({"items": ITEMS, "nextCursor": cursor, "offset": 0, "page": 1}) == "cursor"


def test_auto_offset_field_is_offset() -> None:
    """An envelope with an `offset` field (and no next cursor) is the offset convention."""
    assert detect({"items": ITEMS, "offset": 0, "page": 1}) == "offset"


def test_auto_page_field_is_page_number() -> None:
    """An envelope with a `page` field (and no cursor or offset) is the page-number convention."""
    assert detect({"items": ITEMS, "page": 1}) == "page"


@pytest.mark.parametrize("body", [{"items": ITEMS}, {"data": ITEMS, "total": 2}])
def test_auto_other_envelope_is_unpaged(body: Any) -> None:
    """Any other envelope with the items of a known convention is the whole list."""
    assert detect(body) == "none"


def test_auto_body_that_is_no_list_is_a_wire_fault() -> None:
    """A body that is neither an array nor an envelope of a known convention cannot be read."""
    with pytest.raises(WireFault):
        detect("text")


def test_auto_plain_envelope_reads_all_items() -> None:
    """A plain envelope is read whole, with no next page."""
    auto = AutoPaginator()
    result = auto.read(auto.first(2), page({"data": ITEMS}))
    assert (result.items, result.next, result.items_path) == (ITEMS, None, "$.data")
    assert result.convention == CONVENTIONS["none"]


@pytest.mark.parametrize(
    ("marker", "value"),
    [("next_cursor", "x"), ("hasMore", True), ("nextLink", "/v1/x"), ("nxt_tok_x", "x")],
)
def test_auto_unknown_next_marker_is_refused(marker: str, value: Any) -> None:
    """An envelope whose next marker no convention reads is refused, never read as the end."""
    auto = AutoPaginator()
    response = page({"items": ITEMS, marker: value})
    assert auto.detect(response).name == "none"
    with pytest.raises(PagingFault, match=marker):
        auto.read(auto.first(2), response)


def test_auto_uses_its_configured_conventions() -> None:
    """Detection tries only the given conventions, in their order."""
    skip = Convention(
        "skip", "offset as skip", "{}", follow="offset", param="skip", position_at=("skip",)
    )
    auto = AutoPaginator(conventions=(skip, CONVENTIONS["none"]))
    assert auto.detect(page({"items": ITEMS, "skip": 0})) is skip
    assert auto.detect(page({"items": ITEMS, "offset": 0})) is CONVENTIONS["none"]


def test_auto_keeps_the_convention_of_the_list() -> None:
    """Once chosen, a list's convention is kept: a later page is read by it, not re-detected."""
    auto = AutoPaginator()
    first = auto.read(auto.first(2), page({"items": [1, 2], "nextCursor": "c2"}))
    assert first.next is not None
    assert first.next.convention == "cursor"
    contradicting = {"items": [3], "nextCursor": None, "links": {"next": "/v1/x"}}
    with pytest.raises(PagingFault, match=r"links\.next.*'json-api'"):
        auto.read(first.next, page(contradicting))


def test_auto_first_sends_both_size_names_once() -> None:
    """first(N) sends the page size as `limit` and `pageSize`, each once."""
    assert AutoPaginator().first(25) == req(("limit", "25"), ("pageSize", "25"))


def test_auto_first_without_page_size_sends_nothing() -> None:
    """first(None) adds no parameters."""
    assert AutoPaginator().first(None) == PageRequest()


# AutoPaginator: whole sequences


def named(convention: str, *params: tuple[str, str]) -> PageRequest:
    return PageRequest(params=params, convention=convention)


def run(
    paginator: Paginator, responses: Sequence[tuple[Any, tuple[tuple[str, str], ...]]]
) -> tuple[list[Any], list[PageRequest]]:
    """Feed a page sequence to a paginator; return the items and every request it made."""
    request = paginator.first(2)
    requests: list[PageRequest] = [request]
    items: list[Any] = []
    for count, (body, headers) in enumerate(responses):
        url = request.url if request.url is not None else URL_.with_query(request.params)
        result = paginator.read(request, page(body, *headers, url=url))
        items.extend(result.items)
        if result.next is None:
            assert count == len(responses) - 1, "the sequence ended early"
            break
        request = result.next
        requests.append(request)
    else:
        pytest.fail("the sequence did not end")
    return items, requests


def test_auto_offset_sequence() -> None:
    """An offset-paged list is read to its end by following offsets."""
    items, requests = run(
        AutoPaginator(),
        [
            ({"items": [1, 2], "offset": 0, "limit": 2, "total": 5}, ()),
            ({"items": [3, 4], "offset": 2, "limit": 2, "total": 5}, ()),
            ({"items": [5], "offset": 4, "limit": 2, "total": 5}, ()),
        ],
    )
    assert items == [1, 2, 3, 4, 5]
    assert requests == [
        req(("limit", "2"), ("pageSize", "2")),
        named("offset", ("offset", "2"), ("limit", "2")),
        named("offset", ("offset", "4"), ("limit", "2")),
    ]


def test_auto_offset_sequence_without_echoed_limit() -> None:
    """An offset list that echoes no limit or total is read until an empty page."""
    items, requests = run(
        AutoPaginator(),
        [
            ({"data": [1, 2], "offset": 0}, ()),
            ({"data": [3], "offset": 2}, ()),
            ({"data": [], "offset": 3}, ()),
        ],
    )
    assert items == [1, 2, 3]
    assert requests[1:] == [
        named("offset", ("offset", "2"), ("limit", "2")),
        named("offset", ("offset", "3"), ("limit", "2")),
    ]


def test_auto_page_number_sequence() -> None:
    """A page-number list is read to its end by following page numbers."""
    items, requests = run(
        AutoPaginator(),
        [
            ({"results": [1, 2], "page": 1, "totalPages": 3}, ()),
            ({"results": [3, 4], "page": 2, "totalPages": 3}, ()),
            ({"results": [5, 6], "page": 3, "totalPages": 3}, ()),
        ],
    )
    assert items == [1, 2, 3, 4, 5, 6]
    assert requests == [
        req(("limit", "2"), ("pageSize", "2")),
        named("page", ("page", "2"), ("pageSize", "2")),
        named("page", ("page", "3"), ("pageSize", "2")),
    ]


def test_auto_cursor_sequence() -> None:
    """A cursor list is read to its end by following next cursors until null."""
    items, requests = run(
        AutoPaginator(),
        [
            ({"items": [1, 2], "nextCursor": "c2"}, ()),
            ({"items": [3, 4], "nextCursor": "c3"}, ()),
            ({"items": [5], "nextCursor": None}, ()),
        ],
    )
    assert items == [1, 2, 3, 4, 5]
    assert requests == [
        req(("limit", "2"), ("pageSize", "2")),
        named("cursor", ("cursor", "c2"), ("limit", "2")),
        named("cursor", ("cursor", "c3"), ("limit", "2")),
    ]


def test_auto_link_sequence() -> None:
    """A Link-paged list is read to its end; the last page, with no next link, is unpaged."""
    items, requests = run(
        AutoPaginator(),
        [
            ([1, 2], (("Link", '</v1/endpoints?page=2&limit=2>; rel="next"'),)),
            (
                [3, 4],
                (
                    (
                        "Link",
                        '</v1/endpoints?page=1&limit=2>; rel="prev", <?page=3&limit=2>; rel="next"',
                    ),
                ),
            ),
            ([5], (("Link", '</v1/endpoints?page=2&limit=2>; rel="prev"'),)),
        ],
    )
    assert items == [1, 2, 3, 4, 5]
    assert requests == [
        req(("limit", "2"), ("pageSize", "2")),
        PageRequest(
            url=URL("https://api.example.com/v1/endpoints?page=2&limit=2"), convention="link"
        ),
        PageRequest(
            url=URL("https://api.example.com/v1/endpoints?page=3&limit=2"), convention="link"
        ),
    ]


def test_auto_link_sequence_with_envelopes() -> None:
    """A Link-paged list of envelopes is read to its end."""
    items, requests = run(
        AutoPaginator(),
        [
            (
                {"data": [1, 2]},
                (("Link", '<https://api.example.com/v1/endpoints?p=2>; rel="next"'),),
            ),
            ({"data": [3]}, ()),
        ],
    )
    assert items == [1, 2, 3]
    assert requests[1] == PageRequest(
        url=URL("https://api.example.com/v1/endpoints?p=2"), convention="link"
    )


def test_auto_unpaged_sequence() -> None:
    """An unpaged list is one request."""
    items, requests = run(AutoPaginator(), [(ITEMS, ())])
    assert items == ITEMS
    assert requests == [req(("limit", "2"), ("pageSize", "2"))]


@pytest.mark.parametrize(
    ("paginator", "responses", "expected"),
    [
        (
            OffsetPaginator(),
            [({"items": [1, 2]}, ()), ({"items": [3, 4]}, ()), ({"items": []}, ())],
            [
                req(("offset", "0"), ("limit", "2")),
                req(("offset", "2"), ("limit", "2")),
                req(("offset", "4"), ("limit", "2")),
            ],
        ),
        (
            PageNumberPaginator(),
            [({"items": [1, 2]}, ()), ({"items": [3]}, ()), ({"items": []}, ())],
            [
                req(("page", "1"), ("pageSize", "2")),
                req(("page", "2"), ("pageSize", "2")),
                req(("page", "3"), ("pageSize", "2")),
            ],
        ),
        (
            CursorPaginator(),
            [({"items": [1, 2], "nextCursor": "x"}, ()), ({"items": [3]}, ())],
            [req(("limit", "2")), req(("cursor", "x"), ("limit", "2"))],
        ),
        (
            LinkHeaderPaginator(),
            [([1, 2], (("Link", '<?after=2>; rel="next"'),)), ([3], ())],
            [
                req(("limit", "2")),
                PageRequest(url=URL("https://api.example.com/v1/endpoints?after=2")),
            ],
        ),
    ],
    ids=["offset", "page-number", "cursor", "link"],
)
def test_fixed_scheme_sequence(
    paginator: Paginator,
    responses: Sequence[tuple[Any, tuple[tuple[str, str], ...]]],
    expected: list[PageRequest],
) -> None:
    """Each fixed scheme, fed pages that echo no paging fields, makes the expected requests."""
    items, requests = run(paginator, responses)
    assert requests == expected
    assert len(items) == sum(
        len(body if isinstance(body, list) else body["items"]) for body, _ in responses
    )
