"""Reads the ids of a page's items, whatever form the items came in.

A list item is a JSON object (`item["id"]`) or, when the decode engine read it straight into its
record's typed view, a `TypedItem` (`item.id`). Every place of the paging layer that needs an
item's id (the offset proof, the repeats check, a keyset continuation, a guess compared with
its page) reads it here, so both kinds of page are paged alike.
"""

from __future__ import annotations

from collections.abc import Sequence

from remedy_async._wire._types import TypedItem


def page_ids(items: Sequence[object]) -> list[object] | None:
    """The id of every item of a page, in page order; None when an item has none (it is not
    a JSON object with an `id` key, nor a TypedItem).

    A page of JSON objects, or of typed views, is read in one pass; a page with other items,
    item by item. An explicit `"id": null` is read as it is (None in the list): what it is
    worth is the caller's to decide.
    """
    if items and isinstance(items[0], TypedItem):
        try:  # a page read into typed views is typed throughout
            return [item.id for item in items]  # type: ignore[attr-defined]
        except AttributeError:
            pass
    else:
        try:
            return [item["id"] for item in items]  # type: ignore[index]
        except (KeyError, TypeError, IndexError):
            pass
    ids: list[object] = []
    for item in items:
        if item.__class__ is dict:
            if "id" not in item:
                return None
            ids.append(item["id"])
        elif isinstance(item, TypedItem):
            ids.append(item.id)
        else:
            return None
    return ids
