"""Lists whose first page announces no paging: the whole list, or a silent cap to check.

A first page with no paging signal at all is the whole list, unless it holds exactly the page
size asked for, or a number services cap lists at by default, or fewer records than a total (or
page count) it states. Then the next page is asked for under the parameters such services read
(`offset`, `skip`, `page` from 0 and from 1, `after` the last id), each kept only if it brings
new records; none does: the list ends there, or, when it announced more, stops with the reason.
"""

from __future__ import annotations

from typing import Any

import attrs

from remedy_async._paging._conventions import CONVENTIONS
from remedy_async._paging._detect._preset import reads_alike_whole
from remedy_async._paging._protocol import Convention, Detection, PageRequest
from remedy_async._paging._read._items import FoundItems
from remedy_async._paging._read._page import announced_total
from remedy_async._paging._read._positions import (
    CONTRACT_SIZE_PARAMS,
    announced_pages,
    int_param,
)
from remedy_async._wire._http import JSONResponse
from remedy_async._wire._types import item_id

ROUND_SIZES = frozenset({25, 50, 200, 250, *range(100, 10_001, 100)})
"""Page sizes services cap lists at by default (with the size asked for, what makes a first
page without any paging signal worth checking for a second page)."""


def unannounced(
    convention: Convention, request: PageRequest, response: JSONResponse, found: FoundItems
) -> Detection:
    """A page that names no way forward: the whole list, unless it may be a silent cap (a
    round number of records, or fewer than a total it states), which is then tried."""
    items = found.items
    count = len(items)
    asked = {int_param(request.params, name) for name in CONTRACT_SIZE_PARAMS}
    total = convention.total_at or convention.total_header
    pages = convention.pages_at or convention.pages_header
    announced = announced_total(convention, response) if total else None
    page_count = announced_pages(convention, response) if pages else None
    short_of_total = announced not in (None, count) or (page_count or 0) > 1
    complete = announced == count or page_count == 1
    if not items or complete or not (count in asked or count in ROUND_SIZES or short_of_total):
        if not total and reads_alike_whole(response, found.path):
            return Detection(CONVENTIONS["none"])
        return Detection(attrs.evolve(convention, name="none" if not total else "detected"))
    last = item_id(items[-1])
    guesses = (
        Convention(**_axes(convention), follow="offset", param="offset"),
        Convention(**_axes(convention), follow="offset", param="skip"),
        Convention(**_axes(convention), follow="page", param="page", first_page=0),
        Convention(**_axes(convention), follow="page", param="page"),
        *(
            [Convention(**_axes(convention), follow="keyset", param="after")]
            if isinstance(last, str | int)
            else []
        ),
    )
    refusal = None
    if short_of_total:
        size = f"{announced} items" if announced is not None else "more than one page"
        refusal = (
            f"the service announced {size}, but the first page holds {count}, names no way to "
            "the rest, and no offset, page number or last id brought more: no convention pages "
            "past it (the service may offer another way, such as an export)"
        )
    named = attrs.evolve(convention, name="none")
    return Detection(named, guesses, unannounced=True, refusal=refusal)


def _axes(convention: Convention) -> dict[str, Any]:
    """What a guess keeps of the first page's convention: where its items, size and flags are
    (a guess that dropped a `hasMore` flag would refuse, once pinned, the page it was read from)."""
    fields = ("items", "total_at", "total_header", "pages_at", "pages_header", "more_at", "last_at")
    return {"name": "detected", **{field: getattr(convention, field) for field in fields}}
