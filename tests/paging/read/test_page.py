"""Reading one page by a convention: its items, the next request, and the end rules (issue 23:
`""`, null, absent and `results="false"` end; an end flag wins over a continuation left beside
it; a flag saying more without a continuation is refused)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from yarl import URL

from remedy_async._paging._protocol import (
    BODY,
    ONLY_ARRAY,
    RESOURCE,
    Convention,
    PageRequest,
    PagingFault,
)
from remedy_async._paging._read._items import resource_names
from remedy_async._paging._read._page import announced_total, read_page
from remedy_async._wire._types import WireFault
from tests.paging.responses import KEYSET, TOKEN, page, records

ITEMS = records(2)
SIZED = PageRequest(params=(("limit", "2"),))
FLAGGED = Convention(
    name="flagged",
    follow="token",
    items=(("data",),),
    next_at=("next_cursor",),
    param="cursor",
    more_at=("has_more",),
)
LINKED = Convention(name="linked", follow="url", items=(BODY,), next_header="Link")


def test_the_next_token_goes_in_the_conventions_parameter() -> None:
    """A token at `next_at` is sent back in `param`, with the page size the list asked for."""
    result = read_page(TOKEN, SIZED, page({"data": ITEMS, "meta": {"next": "t2"}}))
    assert result.next is not None
    assert result.next.params == (("cursor", "t2"), ("limit", "2"))
    assert result.next.convention == TOKEN


@pytest.mark.parametrize(
    "body",
    [
        {"data": ITEMS, "meta": {"next": None}},
        {"data": ITEMS, "meta": {}},
        {"data": ITEMS},
        {"data": ITEMS, "meta": {"next": ""}},
    ],
    ids=["null", "absent", "no-parent", "empty"],
)
def test_null_absent_or_empty_continuations_end(body: dict[str, Any]) -> None:
    """No continuation (null, absent, or `""`) ends the list."""
    assert read_page(TOKEN, SIZED, page(body)).next is None


def test_an_empty_continuation_header_ends() -> None:
    """A continuation header that is present but empty ends the list."""
    convention = Convention(
        name="h", follow="token", items=(BODY,), next_header="X-Next-Page", param="page"
    )
    assert read_page(convention, SIZED, page(ITEMS, ("X-Next-Page", ""))).next is None


def test_a_link_next_marked_without_results_ends() -> None:
    """A Link rel="next" with `results="false"` ends the list, never followed."""
    link = '<https://api.example.com/v1/endpoints?cursor=x>; rel="next"; results="false"'
    assert read_page(LINKED, SIZED, page(ITEMS, ("Link", link))).next is None


def test_a_live_link_next_is_followed() -> None:
    """A Link rel="next" with `results="true"` is followed."""
    link = '<https://api.example.com/v1/endpoints?cursor=x>; rel="next"; results="true"'
    result = read_page(LINKED, SIZED, page(ITEMS, ("Link", link)))
    assert result.next is not None
    assert result.next.url == URL("https://api.example.com/v1/endpoints?cursor=x")


def test_an_end_flag_wins_over_a_continuation_left_beside_it() -> None:
    """`has_more: false` ends the list despite a next cursor beside it (it used to loop)."""
    result = read_page(FLAGGED, SIZED, page({"data": ITEMS, "next_cursor": "c", "has_more": False}))
    assert result.next is None


def test_a_last_flag_wins_over_a_continuation_left_beside_it() -> None:
    """`last: true` ends the list even with a next URL still present."""
    convention = Convention(
        name="l", follow="url", items=(("data",),), next_at=("next",), last_at=("last",)
    )
    body = {"data": ITEMS, "next": "/v1/endpoints?p=2", "last": True}
    assert read_page(convention, SIZED, page(body)).next is None


def test_more_without_a_continuation_is_refused() -> None:
    """`has_more: true` with no continuation is refused, naming both."""
    with pytest.raises(PagingFault, match=r"has_more says more items follow.*next_cursor"):
        read_page(FLAGGED, SIZED, page({"data": ITEMS, "has_more": True, "next_cursor": None}))


def test_not_last_without_a_continuation_is_refused() -> None:
    """`last: false` with no continuation is refused."""
    convention = Convention(
        name="l", follow="url", items=(("data",),), next_at=("next",), last_at=("last",)
    )
    with pytest.raises(PagingFault, match="says more items follow"):
        read_page(convention, SIZED, page({"data": ITEMS, "last": False}))


@pytest.mark.parametrize("value", ["yes", 2.5, [True]])
def test_a_flag_that_is_not_a_boolean_is_a_wire_fault(value: Any) -> None:
    """A more flag that is not true or false is a WireFault at its path."""
    with pytest.raises(WireFault) as info:
        read_page(FLAGGED, SIZED, page({"data": ITEMS, "has_more": value}))
    assert info.value.path == "$.has_more"


def test_a_keyset_list_continues_after_its_last_id() -> None:
    """With `has_more: true`, the next request carries the last item's id."""
    result = read_page(KEYSET, SIZED, page({"data": ITEMS, "has_more": True}))
    assert result.next is not None
    assert result.next.params == (("starting_after", "ep-1"), ("limit", "2"))


@pytest.mark.parametrize("body", [{"data": ITEMS, "has_more": False}, {"data": ITEMS}])
def test_a_keyset_list_ends_without_more(body: dict[str, Any]) -> None:
    """A keyset list with a more flag ends when it is false or absent."""
    assert read_page(KEYSET, SIZED, page(body)).next is None


def test_a_keyset_list_without_a_flag_goes_on_until_an_empty_page() -> None:
    """A keyset convention reading no flag continues after any non-empty page."""
    convention = Convention(name="k", follow="keyset", items=(("data",),), param="after")
    assert read_page(convention, SIZED, page({"data": ITEMS})).next is not None
    assert read_page(convention, SIZED, page({"data": []})).next is None


def test_a_keyset_list_needs_an_id_to_continue_after() -> None:
    """A keyset page whose last item has no id cannot be continued: refused."""
    with pytest.raises(PagingFault, match="no id to continue after"):
        read_page(KEYSET, SIZED, page({"data": [{"name": "x"}], "has_more": True}))


def test_a_token_may_go_back_in_a_request_header() -> None:
    """With `param_in="header"`, the token is sent as a request header, not a parameter."""
    convention = Convention(
        name="h",
        follow="token",
        items=(BODY,),
        next_header="X-Next",
        param="X-Cursor",
        param_in="header",
        size_param="limit",
    )
    result = read_page(convention, SIZED, page(ITEMS, ("X-Next", "tok")))
    assert result.next is not None
    assert (result.next.headers, result.next.params) == ((("X-Cursor", "tok"),), (("limit", "2"),))


def test_an_integer_token_is_sent_as_text() -> None:
    """An integer continuation (a next start index) is a token like any other."""
    result = read_page(TOKEN, SIZED, page({"data": ITEMS, "meta": {"next": 40}}))
    assert result.next is not None
    assert dict(result.next.params)["cursor"] == "40"


BASED = URL("https://wiki.example.com/wiki/v1/endpoints")


@pytest.mark.parametrize(
    ("links_from", "expected"),
    [
        ("base", "https://wiki.example.com/wiki/v1/endpoints?c=2"),
        ("request", "https://wiki.example.com/v1/endpoints?c=2"),
    ],
)
def test_root_relative_links_resolve_as_the_convention_says(links_from: Any, expected: str) -> None:
    """A root-relative link resolves under the base path with `links_from="base"` only."""
    convention = Convention(
        name="b", follow="url", items=(("data",),), next_at=("next",), links_from=links_from
    )
    body = {"data": ITEMS, "next": "/v1/endpoints?c=2"}
    result = read_page(convention, PageRequest(), page(body, url=BASED))
    assert result.next is not None
    assert result.next.url == URL(expected)


def test_query_relative_links_resolve_against_the_request_under_either_setting() -> None:
    """A `?query` link is the request's URL with that query, even with `links_from="base"`."""
    convention = Convention(
        name="b", follow="url", items=(("data",),), next_at=("next",), links_from="base"
    )
    result = read_page(convention, PageRequest(), page({"data": ITEMS, "next": "?c=2"}, url=BASED))
    assert result.next is not None
    assert result.next.url == URL("https://wiki.example.com/wiki/v1/endpoints?c=2")


def test_the_total_is_passed_on_from_a_header() -> None:
    """A total read from a header rides on the page result."""
    convention = Convention(name="t", items=(BODY,), total_header="X-Total-Count")
    assert read_page(convention, SIZED, page(ITEMS, ("X-Total-Count", "7"))).total == 7


def test_a_whole_list_has_no_next_page() -> None:
    """A convention that does not follow ends after its page."""
    result = read_page(Convention(name="w", items=(BODY,)), SIZED, page(ITEMS))
    assert (result.items, result.next, result.items_path) == (ITEMS, None, "$")


@given(st.sampled_from(["vulnerability-findings", "remediation-targets", "scopes"]))
def test_the_resource_placeholder_reads_any_collections_key(segment: str) -> None:
    """`{resource}` finds the items under the collection's own name in any spelling."""
    names = resource_names(URL(f"https://api.example.com/v1/{segment}"))
    convention = Convention(name="r", items=((RESOURCE,),))
    for name in names:
        url = URL(f"https://api.example.com/v1/{segment}")
        result = read_page(convention, SIZED, page({name: ITEMS}, url=url))
        assert result.items_path == f"$.{name}"


def test_resource_names_are_every_spelling_of_the_last_segment() -> None:
    """`vulnerability-findings` is also camel, snake and Pascal case."""
    names = resource_names(URL("https://api.example.com/v1/vulnerability-findings"))
    assert set(names) == {
        "vulnerabilityFindings",
        "vulnerability_findings",
        "vulnerability-findings",
        "VulnerabilityFindings",
    }


def test_the_only_array_placeholder_reads_halss_embedded() -> None:
    """`_embedded.*` is the one array under `_embedded`, and nothing when there are two."""
    convention = Convention(name="hal", items=(("_embedded", ONLY_ARRAY),))
    result = read_page(convention, SIZED, page({"_embedded": {"things": ITEMS}}))
    assert result.items_path == "$._embedded.things"
    with pytest.raises(PagingFault, match="no array of items"):
        read_page(convention, SIZED, page({"_embedded": {"a": ITEMS, "b": []}}))


# The paginator pinning a convention


@pytest.mark.parametrize(
    ("body", "headers", "total"),
    [
        ({"items": [], "total": 7}, {}, 7),
        ({"value": [], "@odata.count": 9}, {}, 9),
        ({"data": [], "meta": {"totalCount": 3}}, {}, 3),
        ({"content": [], "totalElements": 4}, {}, 4),
        ([], {"X-Total-Count": "12"}, 12),
        ({"items": [], "total": "7"}, {}, None),
        ({"items": [], "total": True}, {}, None),
        ([], {}, None),
    ],
)
def test_with_no_convention_the_total_is_read_from_common_spellings(
    body: object, headers: dict[str, str], total: int | None
) -> None:
    """With no convention to say where, the total a list announces is read from the common keys
    and headers, ints only."""
    assert announced_total(None, page(body, *headers.items())) == total
