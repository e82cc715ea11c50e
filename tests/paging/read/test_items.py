"""Finding a page's item array by structure: the one array of records carrying ids, up to three
levels deep, the item words and the resource's name breaking ties."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from remedy_async._paging._protocol import RESOURCE, PagingFault
from remedy_async._paging._read._items import MAX_ITEMS_DEPTH, find_items, general_items_path
from tests.paging.responses import nested, records

RECORDS = records(2)
NAMES = ("vulnerabilityFindings", "vulnerability_findings", "vulnerability-findings")
KEYS = st.text(min_size=1, max_size=10)


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
