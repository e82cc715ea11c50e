"""Walks a list by a paging convention row, by hand: the test's own reading of the row's rules.

Deliberately independent of the client's reader (`remedy_async._paging`): it reads the row's
fields the way the convention table documents them, and checks every page's paging signals
against the truth (the data set's total) as it goes.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from typing import Any

import aiohttp
import attrs
import orjson
from yarl import URL

from remedy_async import Convention

GENERIC_ITEMS = (("items",), ("data",), ("results",))
PAGING_HEADER = "X-Simulator-Paging"
_NEXT_LINK = re.compile(r'<([^>]*)>\s*;\s*rel="next"')
MISSING: Any = object()


def camel(resource: str) -> str:
    """`vulnerability-findings` -> `vulnerabilityFindings`."""
    first, *rest = resource.split("-")
    return first + "".join(word.title() for word in rest)


def dig(body: Any, path: Sequence[str]) -> Any:
    """The value at a body path, or MISSING."""
    for key in path:
        if not isinstance(body, dict) or key not in body:
            return MISSING
        body = body[key]
    return body


def items_path(row: Convention, resource: str, items_key: str = "data") -> tuple[str, ...]:
    """Where the row keeps the items of `resource` (the contract's keys: the run's items key)."""
    if row.items == GENERIC_ITEMS:
        return (items_key,)
    return tuple(camel(resource) if key in ("{resource}", "*") else key for key in row.items[0])


def disguised(row: Convention) -> Convention:
    """The row a disguised simulator serves: last keys renamed nxt_tok_x, y, z, w, v, ..."""
    renames: dict[str, str] = {}
    fields = ("next_at", "more_at", "last_at", "total_at", "pages_at", "position_at", "size_at")
    changes: dict[str, Any] = {}
    for field in fields:
        path = getattr(row, field)
        if path:
            name = renames.setdefault(path[-1], f"nxt_tok_{'xyzwvuts'[len(renames)]}")
            changes[field] = (*path[:-1], name)
    if row.next_header is not None:
        changes["next_header"] = "Nxt-Tok-X"
    return attrs.evolve(row, **changes)


@attrs.define
class Walk:
    """The result of walking a list: the ids in order and how many pages it took."""

    ids: list[str] = attrs.field(factory=list)
    pages: int = 0


async def walk(
    session: aiohttp.ClientSession,
    base: str,
    resource: str,
    row: Convention,
    *,
    expected_total: int,
    size: int = 100,
    filters: Sequence[tuple[str, str]] = (),
    items_key: str = "data",
    served_as: str | None = None,
) -> Walk:
    """Follow every page of a list by `row`'s rules; check each page's signals on the way.

    `served_as` names the convention the simulator is told to serve (default: the row's own);
    pass a disguised copy of a row as `row` to walk a disguised simulator.
    """
    headers = {PAGING_HEADER: served_as or row.name}
    url = URL(f"{base}/v1/{resource}")
    sized = [*filters, *([(row.size_param, str(size))] if row.size_param else [])]
    position = {"offset": 0, "page": row.first_page}.get(row.follow)
    first = sized if position is None else [*sized, (row.param or "", str(position))]
    target = url.with_query(first)
    where = items_path(row, resource, items_key)
    result = Walk()
    while True:
        async with session.get(target, headers=headers) as response:
            raw = await response.read()
            assert response.status == 200, raw
            body = orjson.loads(raw)
            response_headers = response.headers
        result.pages += 1
        assert result.pages <= 1000, "too many pages"
        page = dig(body, where) if where else body
        assert isinstance(page, list), body
        result.ids += [item["id"] for item in page]
        last = row.follow == "none" or len(result.ids) >= expected_total
        check_signals(row, body, response_headers, last=last, total=expected_total, size=size)
        if row.position_at and position is not None:
            assert dig(body, row.position_at) == position
        following = next_target(
            row, url, sized, body, response_headers, page, len(result.ids), result.pages
        )
        if following is None:
            assert last, f"the list ended early, after {len(result.ids)} of {expected_total}"
            return result
        assert not last or not page, "a page after the last must be empty"
        target = following
        if position is not None:
            position += len(page) if row.follow == "offset" else 1


def next_target(
    row: Convention,
    url: URL,
    sized: list[tuple[str, str]],
    body: Any,
    headers: Any,
    page: list[Any],
    seen: int,
    pages: int,
) -> URL | None:
    """The next page's URL by the row's rules, or None where the row proves the list ended."""
    param = row.param or ""
    if row.follow == "none":
        return None
    if row.follow in ("url", "token"):
        value = headers.get(row.next_header) if row.next_header else dig(body, row.next_at)
        if value and row.next_header and row.follow == "url":
            value = link_next(value)
        if not value or value is MISSING:
            return None
        return URL(value) if row.follow == "url" else url.with_query([*sized, (param, value)])
    if _ended(row, body, page, seen, pages):
        return None
    if row.follow == "keyset":
        return url.with_query([*sized, (param, page[-1]["id"])])
    if row.follow == "offset":
        return url.with_query([*sized, (param, str(seen))])
    return url.with_query([*sized, (param, str(row.first_page + pages))])


def link_next(value: str) -> str | None:
    """The next URL in a header: its rel="next" link if it holds links, else the value itself."""
    if "rel=" not in value:
        return value or None
    found = _NEXT_LINK.search(value)
    return found.group(1) if found else None


def _ended(row: Convention, body: Any, page: list[Any], seen: int, pages: int) -> bool:
    """Whether a keyset, offset or page-number list proved its end (as the table says)."""
    if not page:
        return True
    if row.last_at and dig(body, row.last_at) is True:
        return True
    if row.more_at and dig(body, row.more_at) is False:
        return True
    if row.total_at and seen >= dig(body, row.total_at):
        return True
    if row.pages_at and pages >= dig(body, row.pages_at):
        return True
    size = dig(body, row.size_at) if row.size_at else None
    return isinstance(size, int) and len(page) < size


def check_signals(
    row: Convention, body: Any, headers: Any, *, last: bool, total: int, size: int
) -> None:
    """Every paging signal the row reads says the truth about this page."""
    if row.total_at:
        assert dig(body, row.total_at) == total
    if row.pages_at:
        assert dig(body, row.pages_at) == math.ceil(total / size)
    if row.size_at:
        assert dig(body, row.size_at) == size
    if row.last_at:
        assert dig(body, row.last_at) is last
    if row.more_at:
        assert dig(body, row.more_at) is (not last)
    if row.next_at:
        value = dig(body, row.next_at)
        assert value is not MISSING, "the next key is kept on the last page"
        assert (value is None) == last
    if row.next_header is None:
        return
    value = headers.get(row.next_header)
    if row.follow == "url":
        assert (link_next(value or "") is not None) == (not last)
    elif not last:
        assert value
    elif row.follow == "token" and row.param == "page":
        assert value == "", "a page-number header is sent empty on the last page"
    else:
        assert value is None, "the next header is left out on the last page"
