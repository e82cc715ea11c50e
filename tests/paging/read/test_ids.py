"""Item ids: a page's ids read alike from JSON objects and from typed views (`TypedItem`)."""

from __future__ import annotations

import msgspec

from remedy_async._paging._read._ids import page_ids
from remedy_async._wire._types import TypedItem


class Row(msgspec.Struct, TypedItem, frozen=True):
    """A typed view of a record, as the decode engine hands one over."""

    id: str
    name: str = ""


def test_a_page_of_json_objects_gives_its_ids_in_page_order() -> None:
    assert page_ids([{"id": "b"}, {"id": "a"}, {"id": 3}]) == ["b", "a", 3]


def test_a_page_of_typed_views_gives_their_ids_in_page_order() -> None:
    assert page_ids([Row("b"), Row("a", "x")]) == ["b", "a"]


def test_a_page_mixing_objects_and_typed_views_gives_every_id() -> None:
    assert page_ids([Row("a"), {"id": "b"}]) == ["a", "b"]


def test_an_item_without_an_id_gives_none() -> None:
    assert page_ids([{"id": "a"}, {"name": "b"}]) is None
    assert page_ids([Row("a"), {"name": "b"}]) is None
    assert page_ids([Row("a"), "b"]) is None
    assert page_ids([["id"]]) is None


def test_an_explicit_null_id_is_read_as_it_is() -> None:
    assert page_ids([{"id": None}]) == [None]


def test_an_empty_page_has_no_ids() -> None:
    assert page_ids([]) == []
