"""Reading a list response without judging it: the items by structure, every paging signal of
the envelope (any depth up to four, the items excluded) and of the headers."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from multidict import CIMultiDict

from remedy_async._paging._protocol import RESOURCE, PagingFault
from remedy_async._paging._read._items import MAX_ITEMS_DEPTH, find_items, general_items_path
from remedy_async._paging._read._signals import (
    MAX_SIGNAL_DEPTH,
    Signal,
    body_signals,
    header_signals,
    kind_of,
    looks_like_url,
)
from tests.paging.responses import records

RECORDS = records(2)
NAMES = ("vulnerabilityFindings", "vulnerability_findings", "vulnerability-findings")
KEYS = st.text(min_size=1, max_size=10)


def nested(path: tuple[str, ...] | list[str], value: Any) -> Any:
    """`value` under the keys of `path`, outermost first."""
    for key in reversed(path):
        value = {key: value}
    return value


# Items


def test_a_bare_array_is_the_items() -> None:
    """A body that is an array is the item array, whatever it holds."""
    assert find_items(RECORDS, NAMES).path == ()
    assert find_items([], NAMES).items == []


@given(st.lists(KEYS, min_size=1, max_size=MAX_ITEMS_DEPTH, unique=True))
def test_records_are_found_under_any_keys_up_to_depth_three(path: list[str]) -> None:
    """The one array of records carrying ids is the items, under any key, 1 to 3 levels deep."""
    body = nested(path, RECORDS)
    found = find_items(body, NAMES)
    assert (found.path, found.items) == (tuple(path), RECORDS)


def test_records_deeper_than_three_levels_are_not_items() -> None:
    """Four levels down is past the bound: the page is refused as having no items."""
    with pytest.raises(PagingFault, match="within 3 levels"):
        find_items(nested(["a", "b", "c", "d"], RECORDS), NAMES)


@pytest.mark.parametrize(
    "scalars", [{"total": 2}, {"next": "x", "count": 2, "tags": ["a", "b"]}, {"errors": []}]
)
def test_other_values_beside_the_records_do_not_compete(scalars: dict[str, Any]) -> None:
    """Numbers, strings, arrays of strings and empty arrays do not compete with the records."""
    assert find_items({"entries": RECORDS, **scalars}, NAMES).path == ("entries",)


def test_an_item_word_breaks_a_tie_between_arrays_of_records() -> None:
    """Of two arrays of records, the one named like an item array (`data`) is the items."""
    body = {"data": RECORDS, "included": records(1, "inc")}
    assert find_items(body, NAMES).path == ("data",)


def test_the_resource_name_breaks_a_tie() -> None:
    """Of two arrays of records, the one named after the resource is the items."""
    body = {"vulnerability_findings": RECORDS, "endpoints_seen": records(1, "x")}
    assert find_items(body, NAMES).path == ("vulnerability_findings",)


def test_records_without_ids_are_found_by_name() -> None:
    """An array without ids (or empty) is the items when its key names an item array."""
    assert find_items({"items": [], "tags": ["a"]}, NAMES).path == ("items",)
    assert find_items({"rows": [[1, 2]]}, NAMES).path == ("rows",)


def test_several_candidates_are_refused_naming_them_and_the_keys() -> None:
    """Two arrays of records that nothing tells apart are refused, naming both and the keys."""
    body = {"users": RECORDS, "groups": records(1, "g"), "meta": {}}
    with pytest.raises(PagingFault, match="several arrays of records") as info:
        find_items(body, NAMES)
    message = str(info.value)
    assert "users, groups" in message
    assert "keys at the top: groups, meta, users" in message


def test_no_candidate_is_refused_naming_the_keys_seen() -> None:
    """An object with no array of records is refused, naming the arrays and keys it has."""
    with pytest.raises(PagingFault, match="no array of records") as info:
        find_items({"status": "ok", "count": 3}, NAMES)
    assert "keys at the top: count, status" in str(info.value)


@pytest.mark.parametrize("body", ["text", 3, None, True])
def test_a_body_neither_array_nor_object_is_refused(body: Any) -> None:
    """A scalar body has no items."""
    with pytest.raises(PagingFault, match="neither an array nor an object"):
        find_items(body, NAMES)


def test_the_resource_name_becomes_the_placeholder() -> None:
    """The resource's own key in an items path is written as `{resource}`."""
    path = ("response", "vulnerability_findings")
    assert general_items_path(path, NAMES) == ("response", RESOURCE)
    assert general_items_path(("data",), NAMES) == ("data",)


# Body signals


@given(st.lists(KEYS.filter(lambda key: key != "items"), max_size=MAX_SIGNAL_DEPTH - 1))
def test_a_continuation_is_found_at_any_depth_up_to_four(parents: list[str]) -> None:
    """A `next_cursor` 1 to 4 levels deep, under any keys, is a forward token signal there."""
    path = (*parents, "next_cursor")
    body = {"items": RECORDS, **nested(path, "c2")}
    (signal,) = body_signals(body, ("items",))
    assert signal.path == path
    assert (signal.role, signal.kind, signal.value) == ("forward", "token", "c2")


def test_a_signal_at_depth_four_is_found_and_at_five_is_not() -> None:
    """The envelope is scanned four levels deep, no deeper."""
    at_four = nested(["a", "b", "c", "next_cursor"], "c")
    at_five = nested(["a", "b", "c", "d", "next_cursor"], "c")
    assert [signal.path for signal in body_signals(at_four, ())] == [("a", "b", "c", "next_cursor")]
    assert body_signals(at_five, ()) == []


def test_the_items_are_not_scanned() -> None:
    """Keys inside the records (a record's own `nextCursor`) are not paging signals."""
    body = {"items": [{"id": "a", "nextCursor": "inside"}], "total": 1}
    assert [signal.path for signal in body_signals(body, ("items",))] == [("total",)]


@pytest.mark.parametrize(
    ("value", "kind"),
    [
        ("https://api.example.com/v1/x?p=2", "url"),
        ("/v1/x?p=2", "url"),
        ("?p=2", "url"),
        ("eyJvIjoxfQ==", "token"),
        (7, "number"),
        (True, "flag"),
        (None, "null"),
    ],
)
def test_a_signal_has_the_kind_of_its_value(value: Any, kind: str) -> None:
    """A continuation's value is a URL, a token, a number, a flag, or null."""
    (signal,) = body_signals({"next": value}, ())
    assert signal.kind == kind


def test_objects_and_arrays_are_not_signal_values() -> None:
    """A key whose value is an object or a plain array holds no signal of its own."""
    assert kind_of({"a": 1}) is None
    assert kind_of([1]) is None


def test_a_generic_key_is_read_under_its_parent() -> None:
    """`_links.next.href` is a forward URL; `_links.prev.href` a backward one."""
    body = {"_links": {"next": {"href": "/v1/x?p=2"}, "prev": {"href": "/v1/x?p=0"}}}
    found = {signal.path: signal.role for signal in body_signals(body, ())}
    assert found == {("_links", "next", "href"): "forward", ("_links", "prev", "href"): "backward"}


def test_relation_link_arrays_are_read_by_their_rel() -> None:
    """`links: [{"rel": "next", "href": ...}]` gives a forward URL at `links.[rel=next].href`."""
    body = {
        "links": [
            {"rel": "self", "href": "/v1/x?p=1"},
            {"rel": "next", "href": "/v1/x?p=2"},
            {"rel": "prev", "url": "/v1/x?p=0"},
        ]
    }
    found = [(signal.path, signal.role) for signal in body_signals(body, ())]
    assert found == [
        (("links", "[rel=self]", "href"), "backward"),
        (("links", "[rel=next]", "href"), "forward"),
        (("links", "[rel=prev]", "url"), "backward"),
    ]


def test_non_paging_keys_are_not_signals() -> None:
    """Keys that say nothing about paging are left out."""
    assert body_signals({"status": "ok", "requestId": "r", "items": []}, ("items",)) == []


def test_a_bare_array_has_no_body_signals() -> None:
    """A body that is an array carries its paging, if any, in headers."""
    assert body_signals(RECORDS, ()) == []


def test_a_signal_says_where_it_is() -> None:
    """A body signal is shown by its path, a header signal by its name."""
    body = Signal(("meta", "next_cursor"), None, "forward", "token", "c")
    header = Signal((), "X-Next-Page", "forward", "token", "2")
    assert (body.where, body.key) == ("meta.next_cursor", "next_cursor")
    assert (header.where, header.key) == ("the X-Next-Page header", "X-Next-Page")


# Header signals


def test_continuation_and_size_headers_are_signals() -> None:
    """Next-page, total and page-count headers are found with their roles and kinds."""
    headers = CIMultiDict(
        [("X-Next-Page", "2"), ("X-Total-Count", "9"), ("X-Total-Pages", "3"), ("Nxt-Tok-X", "a")]
    )
    found = [(s.header, s.role, s.kind, s.value) for s in header_signals(headers)]
    assert found == [
        ("X-Next-Page", "forward", "token", "2"),
        ("X-Total-Count", "total", "number", 9),
        ("X-Total-Pages", "pages", "number", 3),
        ("Nxt-Tok-X", "unknown", "token", "a"),
    ]


@pytest.mark.parametrize(
    "header",
    [("Retry-After", "3"), ("X-Request-Id", "r"), ("X-RateLimit-Reset", "5"), ("Date", "x")],
)
def test_headers_that_are_not_paging_are_left_out(header: tuple[str, str]) -> None:
    """`Retry-After`, request ids and rate-limit headers are not paging signals."""
    assert header_signals(CIMultiDict([header])) == []


def test_a_count_header_that_is_not_a_number_is_left_out() -> None:
    """A total header whose value is not digits says nothing."""
    assert header_signals(CIMultiDict([("X-Total-Count", "many")])) == []


def test_a_blank_continuation_header_is_null() -> None:
    """An empty `X-Next-Page` (GitLab's last page) is a null continuation."""
    (signal,) = header_signals(CIMultiDict([("X-Next-Page", "")]))
    assert (signal.kind, signal.value) == ("null", None)


def test_a_repeated_header_is_one_signal() -> None:
    """A header sent twice (in any letter case) is read once."""
    headers = CIMultiDict([("X-Next-Page", "2"), ("x-next-page", "2")])
    assert len(header_signals(headers)) == 1


def test_link_relations_are_read_one_by_one() -> None:
    """Each Link relation is a signal: next forward, prev/first/last/self backward."""
    link = '<?p=2>; rel="next", <?p=0>; rel="prev", <?p=9>; rel="last", <?p=1>; rel="self"'
    found = [(s.role, s.value) for s in header_signals(CIMultiDict([("Link", link)]))]
    assert found == [
        ("forward", "?p=2"),
        ("backward", "?p=0"),
        ("backward", "?p=9"),
        ("backward", "?p=1"),
    ]


def test_a_link_next_marked_without_results_is_a_null_continuation() -> None:
    """`rel="next"; results="false"` (Sentry's last page) is a forward signal of kind null."""
    link = '<?cursor=x>; rel="next"; results="false"'
    (signal,) = header_signals(CIMultiDict([("Link", link)]))
    assert (signal.role, signal.kind) == ("forward", "null")


@pytest.mark.parametrize(
    ("text", "url"),
    [
        ("https://h/x", True),
        ("ftp://h/x", True),
        ("/v1/x", True),
        ("?p=2", True),
        ("abc", False),
        ("a/b", False),
        ("", False),
    ],
)
def test_what_looks_like_a_link(text: str, url: bool) -> None:
    """Absolute URLs of any scheme and links from the root or a query are links."""
    assert looks_like_url(text) is url
