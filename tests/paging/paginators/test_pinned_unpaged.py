"""The unpaged paginator: item arrays in bare lists and envelopes, and refusal of hidden pages."""

from __future__ import annotations

from typing import Any

import pytest
from yarl import URL

from remedy_async._paging._paginators._pinned import UnpagedPaginator
from remedy_async._paging._protocol import PageResult, Paginator, PagingFault
from remedy_async._wire._types import WireFault
from tests.paging.responses import page

SCOPES = URL("https://api.example.com/v1/scopes")
ITEMS = [{"id": "sc-1"}, {"id": "sc-2"}]


def read(body: Any, *headers: tuple[str, str]) -> PageResult:
    paginator = UnpagedPaginator()
    return paginator.read(paginator.first(None), page(body, *headers, url=SCOPES))


def test_unpaged_paginator_is_a_paginator() -> None:
    """UnpagedPaginator implements the Paginator protocol."""
    assert isinstance(UnpagedPaginator(), Paginator)


@pytest.mark.parametrize("page_size", [None, 1, 50, 10_000])
def test_first_adds_no_params_whatever_the_page_size(page_size: int | None) -> None:
    """The first request of an unpaged list adds no parameters and no URL."""
    first = UnpagedPaginator().first(page_size)
    assert (first.params, first.url, first.headers) == ((), None, ())


def test_bare_array_is_the_items() -> None:
    """A bare JSON array is the whole list, with no next page."""
    result = read(ITEMS)
    assert (result.items, result.next, result.items_path) == (ITEMS, None, "$")


def test_empty_bare_array_is_an_empty_list() -> None:
    """An empty array is an empty list."""
    assert read([]).items == []


@pytest.mark.parametrize("key", ["items", "data", "results"])
def test_envelope_item_key(key: str) -> None:
    """An envelope's items are found under `items`, `data` or `results`."""
    result = read({key: ITEMS, "total": 2})
    assert (result.items, result.next, result.items_path) == (ITEMS, None, f"$.{key}")


def test_envelope_prefers_items_over_data() -> None:
    """When several item keys are present, `items` is used first, then `data`."""
    assert read({"data": [1], "items": [2], "results": [3]}).items == [2]
    assert read({"results": [3], "data": [1]}).items == [1]


@pytest.mark.parametrize("value", [{"id": "x"}, "sc-1", 3])
def test_items_not_an_array_is_a_wire_fault(value: Any) -> None:
    """An item key holding a value that is not an array is a WireFault at that key."""
    with pytest.raises(WireFault) as info:
        read({"data": value})
    assert info.value.path == "$.data"


def test_object_without_item_key_is_refused_naming_where_it_looked() -> None:
    """No item key: a PagingFault naming where it looked (it was a WireFault at `$`)."""
    with pytest.raises(PagingFault, match="no array of items at the body, items, data, results"):
        read({"rows": ITEMS})


@pytest.mark.parametrize("body", ["text", 3, 1.5, True, None])
def test_body_neither_array_nor_object_is_a_wire_fault(body: Any) -> None:
    """A body that is neither array nor object is a WireFault at `$`."""
    with pytest.raises(WireFault) as info:
        read(body)
    assert info.value.path == "$"


@pytest.mark.parametrize(
    ("marker", "value"),
    [
        ("nextCursor", "abc"),
        ("next", "https://api.example.com/v1/scopes?page=2"),
        ("hasMore", True),
        ("has_more", True),
        ("nextPageToken", "t2"),
        ("nextLink", "/v1/scopes?p=2"),
        ("next_cursor", 7),
    ],
)
def test_envelope_with_next_marker_is_a_paging_fault(marker: str, value: Any) -> None:
    """An envelope that says more pages exist is refused, not truncated silently."""
    with pytest.raises(PagingFault, match=marker):
        read({"items": ITEMS, marker: value})


@pytest.mark.parametrize(
    "body",
    [
        {"items": ITEMS, "meta": {"pagination": {"next_cursor": "c"}}},
        {"items": ITEMS, "paging": {"next": {"after": "a"}}},
        {"items": ITEMS, "links": {"pages": {"next": "/v1/scopes?page=2"}}},
    ],
    ids=["meta.pagination", "paging.next.after", "links.pages.next"],
)
def test_a_deeply_nested_continuation_is_refused(body: dict[str, Any]) -> None:
    """A continuation 2-3 levels deep is refused (it used to end the list silently)."""
    with pytest.raises(PagingFault, match="signals a next page"):
        read(body)


NEXT_MARKERS: tuple[str, ...] = (
    "nextCursor",
    "next_cursor",
    "nextPageToken",
    "next_page_token",
    "nextToken",
    "next",
    "nextLink",
    "nextUrl",
    "hasMore",
    "has_more",
)
"""Envelope keys that, when set, say there is another page."""


@pytest.mark.parametrize("marker", NEXT_MARKERS)
@pytest.mark.parametrize("value", [None, False, ""])
def test_unset_next_marker_is_fine(marker: str, value: Any) -> None:
    """A next marker that is null, false or empty means no further page."""
    assert read({"items": ITEMS, marker: value}).items == ITEMS


@pytest.mark.parametrize(
    "body",
    [
        {"items": ITEMS, "prev": "/v1/scopes?page=1"},
        {"items": ITEMS, "before_cursor": "b"},
        {"items": ITEMS, "paging": {"cursors": {"before": "b"}}},
    ],
    ids=["prev", "before_cursor", "paging.cursors.before"],
)
def test_a_backward_cursor_is_not_a_next_page(body: dict[str, Any]) -> None:
    """A cursor back to earlier pages does not say more follow (issue 23: it was refused)."""
    assert read(body).items == ITEMS


@pytest.mark.parametrize(
    "link",
    [
        '<https://api.example.com/v1/scopes?page=2>; rel="next"',
        "<https://api.example.com/v1/scopes?page=2>; rel=next",
        '<https://api.example.com/v1/scopes?page=9>; rel="next last"',
        '<https://api.example.com/v1/scopes?page=1>; rel="first", '
        '<https://api.example.com/v1/scopes?page=2>; rel="next"',
        '<https://api.example.com/v1/scopes?page=2>; title="more"; rel="next"',
    ],
)
def test_link_next_header_is_a_paging_fault(link: str) -> None:
    """A Link header advertising rel="next" is refused for an unpaged list."""
    with pytest.raises(PagingFault, match="Link"):
        read(ITEMS, ("Link", link))


def test_link_next_in_a_second_link_header_is_a_paging_fault() -> None:
    """rel="next" in any of several Link headers is detected."""
    with pytest.raises(PagingFault):
        read(
            ITEMS,
            ("Link", '<https://api.example.com/v1/scopes?page=1>; rel="first"'),
            ("link", '<https://api.example.com/v1/scopes?page=2>; rel="next"'),
        )


@pytest.mark.parametrize(
    "link",
    [
        '<https://api.example.com/v1/scopes?page=1>; rel="prev"',
        '<https://api.example.com/v1/scopes?page=1>; rel="first last"',
        '<https://api.example.com/v1/next>; rel="self"',
        '<https://api.example.com/v1/scopes>; rel="nextish"',
    ],
)
def test_link_without_next_is_fine(link: str) -> None:
    """A Link header without a live next relation does not stop the list."""
    assert read(ITEMS, ("Link", link)).items == ITEMS


def test_a_link_next_marked_without_results_is_not_a_next_page() -> None:
    """A rel="next" marked `results="false"` is an end, not a signal to refuse."""
    link = '<https://api.example.com/v1/scopes?cursor=x>; rel="next"; results="false"'
    assert read(ITEMS, ("Link", link)).items == ITEMS


def test_link_next_relation_is_case_insensitive() -> None:
    """rel="Next" (relation types are case-insensitive) is a next page too."""
    with pytest.raises(PagingFault):
        read(ITEMS, ("Link", '<https://api.example.com/v1/scopes?page=2>; rel="Next"'))


@pytest.mark.parametrize(
    ("header", "value"), [("X-Next-Page", "2"), ("X-Next-Cursor", "c"), ("X-Continuation", "t")]
)
def test_a_continuation_header_is_a_paging_fault(header: str, value: str) -> None:
    """A response header handing out a next page is refused for an unpaged list."""
    with pytest.raises(PagingFault, match=header):
        read(ITEMS, (header, value))
