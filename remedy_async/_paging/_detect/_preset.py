"""Names a composed convention after the preset that reads a page alike, if one does.

A preset stands for a composition when every axis it reads is the one composed (its items where
the page keeps them, its continuation and parameter, its flags, totals and echoes), and every
axis it names that the page lacks is left out by the composition too; the preset is then what
`pager.convention` shows, and what resume tokens and configuration files name.
"""

from __future__ import annotations

from remedy_async._paging._conventions import CONVENTIONS
from remedy_async._paging._protocol import Convention, PagingFault, Path
from remedy_async._paging._read._envelope import MISSING, dig
from remedy_async._paging._read._items import locate_items
from remedy_async._wire._http import JSONResponse
from remedy_async._wire._types import WireFault

READING_FIELDS = ("more_at", "last_at", "total_at", "pages_at", "position_at", "size_at")


def preset_alike(composed: Convention, response: JSONResponse, items_path: Path) -> Convention:
    for row in CONVENTIONS.values():
        if row.follow == "none" or composed.ignore or composed.ignore_headers:
            continue
        if _alike(row, composed, response, items_path):
            return row
    return composed


def _alike(row: Convention, composed: Convention, response: JSONResponse, path: Path) -> bool:
    continuing = composed.follow in ("url", "token") and row.follow in ("url", "token")
    if row.follow != composed.follow and not (continuing and _ends_here(composed, response)):
        return False
    positional = row.follow in ("token", "keyset", "offset", "page")
    if (
        positional
        and not _ends_here(composed, response)
        and ((row.param, row.param_in) != (composed.param, composed.param_in))
    ):
        return False
    if (row.next_at, (row.next_header or "").lower()) != (
        composed.next_at,
        (composed.next_header or "").lower(),
    ):
        return False
    if (row.total_header, row.pages_header, row.first_page, row.links_from) != (
        composed.total_header, composed.pages_header, composed.first_page, composed.links_from
    ):  # fmt: skip
        return False
    for field in READING_FIELDS:
        mine, theirs = getattr(composed, field), getattr(row, field)
        if mine != theirs and (mine or dig(response.body, theirs) is not MISSING):
            return False
    try:
        return locate_items(row, response)[1] == path
    except (PagingFault, WireFault):
        return False


def _ends_here(composed: Convention, response: JSONResponse) -> bool:
    """Whether the page's continuation is empty (so its parameter is never used)."""
    if composed.next_header:
        return not response.headers.get(composed.next_header, "").strip()
    return dig(response.body, composed.next_at) in (None, "", MISSING)


def reads_alike_whole(response: JSONResponse, path: Path) -> bool:
    try:
        return locate_items(CONVENTIONS["none"], response)[1] == path
    except (PagingFault, WireFault):
        return False
