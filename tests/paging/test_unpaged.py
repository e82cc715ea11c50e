"""The unpaged paginator: item arrays in bare lists and envelopes, and refusal of hidden pages."""

from __future__ import annotations

from typing import Any

import pytest
from multidict import CIMultiDict, CIMultiDictProxy
from yarl import URL

from remedy_async._http import JSONResponse
from remedy_async._paging._envelope import envelope_items, has_link_next
from remedy_async._paging._protocol import PageRequest, PageResult, Paginator, PagingFault
from remedy_async._paging._schemes import UnpagedPaginator
from remedy_async._wire._faults import WireFault

URL_ = URL("https://api.example.com/v1/scopes")
ITEMS = [{"id": "sc-1"}, {"id": "sc-2"}]


def page(body: Any, *header_pairs: tuple[str, str]) -> JSONResponse:
    """A decoded page response with aiohttp-style headers."""
    return JSONResponse(
        url=URL_, status=200, headers=CIMultiDictProxy(CIMultiDict(header_pairs)), body=body
    )


def read(body: Any, *header_pairs: tuple[str, str]) -> PageResult:
    paginator = UnpagedPaginator()
    return paginator.read(paginator.first(None), page(body, *header_pairs))


def test_unpaged_paginator_is_a_paginator() -> None:
    """UnpagedPaginator implements the Paginator protocol."""
    assert isinstance(UnpagedPaginator(), Paginator)


@pytest.mark.parametrize("page_size", [None, 1, 50, 10_000])
def test_first_adds_no_params_whatever_the_page_size(page_size: int | None) -> None:
    """The first request of an unpaged list adds no parameters and no URL."""
    assert UnpagedPaginator().first(page_size) == PageRequest()
    assert UnpagedPaginator().first(page_size).params == ()
    assert UnpagedPaginator().first(page_size).url is None


def test_bare_array_is_the_items() -> None:
    """A bare JSON array is the whole list, with no next page."""
    result = read(ITEMS)
    assert result == PageResult(items=ITEMS, next=None, items_path="$")


def test_empty_bare_array_is_an_empty_list() -> None:
    """An empty array is an empty list."""
    assert read([]).items == []


@pytest.mark.parametrize("key", ["items", "data", "results"])
def test_envelope_item_key(key: str) -> None:
    """An envelope's items are found under `items`, `data` or `results`."""
    result = read({key: ITEMS, "total": 2})
    assert result.items == ITEMS
    assert result.next is None
    assert result.items_path == f"$.{key}"


def test_envelope_prefers_items_over_data() -> None:
    """When several item keys are present, `items` is used first, then `data`."""
    assert read({"data": [1], "items": [2], "results": [3]}).items == [2]
    assert read({"results": [3], "data": [1]}).items == [1]


@pytest.mark.parametrize("value", [{"id": "x"}, "sc-1", 3, None])
def test_items_not_an_array_is_a_wire_fault(value: Any) -> None:
    """An item key holding anything but an array is a WireFault at that key."""
    with pytest.raises(WireFault) as info:
        read({"data": value})
    assert info.value.path == "$.data"


def test_object_without_item_key_is_a_wire_fault() -> None:
    """An object with none of the item keys is a WireFault at `$`."""
    with pytest.raises(WireFault) as info:
        read({"rows": ITEMS})
    assert info.value.path == "$"


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
    ],
)
def test_envelope_with_next_marker_is_a_paging_fault(marker: str, value: Any) -> None:
    """An envelope that says more pages exist is refused, not truncated silently."""
    with pytest.raises(PagingFault, match=marker):
        read({"items": ITEMS, marker: value})


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
    """A Link header without a next relation does not stop the list."""
    assert read(ITEMS, ("Link", link)).items == ITEMS


def test_link_next_relation_is_case_insensitive() -> None:
    """rel="Next" (relation types are case-insensitive) is a next page too."""
    with pytest.raises(PagingFault):
        read(ITEMS, ("Link", '<https://api.example.com/v1/scopes?page=2>; rel="Next"'))


def test_has_link_next_reads_a_plain_mapping() -> None:
    """has_link_next also works with a plain dict of headers."""
    assert has_link_next({"Link": '<https://h/?p=2>; rel="next"'})
    assert not has_link_next({})


def test_has_link_next_without_link_header_is_false() -> None:
    """No Link header means no next page."""
    assert not has_link_next(CIMultiDictProxy(CIMultiDict([("Content-Type", "application/json")])))


def test_envelope_items_uses_the_given_keys() -> None:
    """envelope_items looks only under the keys it is given."""
    assert envelope_items({"records": [1]}, keys=("records",)).items == [1]
    with pytest.raises(WireFault):
        envelope_items({"items": [1]}, keys=("records",))
