"""RecentIds: a page cut to its new items, for JSON objects and typed views (`TypedItem`) alike."""

from __future__ import annotations

import msgspec

from remedy_async._paging._walk._dedupe import RecentIds
from remedy_async._wire._types import TypedItem


class Row(msgspec.Struct, TypedItem, frozen=True):
    """A typed view of a record, as the decode engine hands one over."""

    id: str


def test_a_page_of_typed_views_is_delivered_whole_as_records_with_ids() -> None:
    page = [Row("a"), Row("b"), Row("c")]
    delivery = RecentIds().deliver(page, 0, None)
    assert list(delivery.items) == page
    assert list(delivery.positions) == [1, 2, 3]
    assert delivery.all_objects
    assert delivery.repeats == 0


def test_typed_views_repeating_the_previous_pages_ids_are_skipped_and_counted() -> None:
    recent = RecentIds()
    recent.deliver([Row("a"), Row("b"), Row("c")], 0, None)
    delivery = recent.deliver([Row("b"), Row("c"), Row("d")], 0, None)
    assert [row.id for row in delivery.items] == ["d"]
    assert list(delivery.positions) == [3]
    assert delivery.repeats == 2


def test_json_objects_repeating_typed_views_ids_are_skipped() -> None:
    recent = RecentIds()
    recent.deliver([Row("a"), Row("b")], 0, None)
    delivery = recent.deliver([{"id": "b"}, {"id": "c"}], 0, None)
    assert list(delivery.items) == [{"id": "c"}]
    assert delivery.repeats == 1


def test_a_typed_view_repeated_within_its_page_is_delivered_once() -> None:
    delivery = RecentIds().deliver([Row("a"), Row("a"), Row("b")], 0, None)
    assert [row.id for row in delivery.items] == ["a", "b"]
    assert delivery.repeats == 1


def test_a_page_with_an_item_without_an_id_is_not_all_records() -> None:
    delivery = RecentIds().deliver([{"id": "a"}, {"name": "b"}], 0, None)
    assert len(delivery.items) == 2
    assert not delivery.all_objects


def test_the_cap_cuts_a_typed_page() -> None:
    delivery = RecentIds().deliver([Row("a"), Row("b"), Row("c")], 1, 1)
    assert [row.id for row in delivery.items] == ["b"]
    assert delivery.stopped_early
