"""Reads one page by a convention: its items, its announced total, what comes next, and whether
it ended.

Pure functions over a `Convention` and a decoded response. A page ends the list only on positive
evidence: no continuation (null, absent, `""`, or a Link next marked `results="false"`), a flag
saying the end (which wins over a continuation still present, so such a list never loops), the
page count or total reached, or an empty page (one with a continuation only if it names itself
again). A flag saying more with no continuation, or a signal the convention does not account
for, is refused (`_signals`); the announced total is passed on, so a list ending short of it is
refused too. `announced_total` is the one reading of a list's total: where the convention reads
it, or, with none, where services commonly state it.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from yarl import URL

from remedy_async._paging._protocol import (
    Convention,
    PageRequest,
    PageResult,
    PagingFault,
    Path,
    request_identity,
)
from remedy_async._wire._http import JSONResponse
from remedy_async._wire._types import WireFault, json_type_name

from ._envelope import MISSING, dig, link_values
from ._items import locate_items
from ._links import next_link, resolve
from ._positions import (
    announced_pages,
    check_position,
    int_at,
    keyset_next,
    next_position,
    with_position,
)
from ._signals import refuse_unread_signals

TOTAL_KEYS = (
    "total",
    "totalCount",
    "total_count",
    "totalSize",
    "totalElements",
    "totalItems",
    "total_items",
    "TotalCount",
    "count",
    "@odata.count",
)
"""Keys a list response may announce its total number of items under."""
TOTAL_PARENTS = ("meta", "page", "pagination", "paging")
TOTAL_HEADERS = ("X-Total-Count", "X-Total")
API_PREFIX = "/v1/"
"""Where the API's own paths start under the client's base URL."""


def read_page(
    convention: Convention, request: PageRequest, response: JSONResponse, reader: str | None = None
) -> PageResult:
    """Return a page's items and the next request, or PagingFault/WireFault saying why not."""
    items, items_path = locate_items(convention, response)
    total = announced_total(convention, response)
    following = _next_request(convention, request, response, items, total)
    if following is not None and not items and _same_place(following, request, response):
        following = None  # an empty page naming itself as the next: nothing lies beyond it
    refuse_unread_signals(convention, response, items_path, following, reader)
    return PageResult(
        items=items,
        next=following,
        items_path=json_path(items_path),
        convention=convention,
        total=total,
    )


@lru_cache(maxsize=256)
def json_path(path: Path) -> str:
    """A body path as a JSON path (`$.data`, `$` for the body itself), worked out once per
    path rather than once a page."""
    return "$" + "".join(f".{key}" for key in path)


def announced_total(convention: Convention | None, response: JSONResponse) -> int | None:
    """The list's total as the page states it, if it does: where the convention reads it (a
    value of another type there is a WireFault); with no convention (a paginator that reports
    no total), under any of the keys and headers services commonly use (`TOTAL_KEYS`,
    `TOTAL_PARENTS`, `TOTAL_HEADERS`), integers only."""
    if convention is None:
        return _commonly_announced(response.body, response.headers)
    total = int_at(response.body, convention.total_at)
    if total is None and convention.total_header:
        text = response.headers.get(convention.total_header, "").strip()
        total = int(text) if text.isdigit() else None
    return total


def _commonly_announced(body: Any, headers: Mapping[str, str]) -> int | None:
    places = [body] if isinstance(body, dict) else []
    if isinstance(body, dict):
        places += [body[key] for key in TOTAL_PARENTS if isinstance(body.get(key), dict)]
    for place in places:
        for key in TOTAL_KEYS:
            value = place.get(key)
            if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
                return value
    for name in TOTAL_HEADERS:
        text = headers.get(name, "").strip()
        if text.isdigit():
            return int(text)
    return None


def _next_request(
    convention: Convention,
    request: PageRequest,
    response: JSONResponse,
    items: list[Any],
    total: int | None,
) -> PageRequest | None:
    follow, body = convention.follow, response.body
    if follow == "none":
        return None
    more, last = _flag(body, convention.more_at), _flag(body, convention.last_at)
    ends, goes_on = more is False or last is True, more is True or last is False
    if follow in ("url", "token"):
        value = continuation(convention, response)
        if value is None:
            if goes_on:
                flag = ".".join(convention.more_at if more is True else convention.last_at)
                raise PagingFault(
                    f"the response's {flag} says more items follow, but it carries no "
                    f"continuation at {_continuation_place(convention)}"
                )
            return None
        if ends:
            return None  # the flag says the end: a continuation left beside it is not followed
        if follow == "url":
            return PageRequest(
                url=link_target(convention, response.url, value), convention=convention
            )
        return with_position(convention, request, value)
    if ends or not items:
        if follow in ("offset", "page"):  # a page that goes on is checked by `next_position`
            check_position(convention, request, body)
        return None
    if follow == "keyset":
        if convention.more_at and more is not True:
            return None
        return keyset_next(convention, request, items)
    pages = announced_pages(convention, response)
    return next_position(convention, request, body, len(items), total, pages)


def _same_place(following: PageRequest, request: PageRequest, response: JSONResponse) -> bool:
    """Whether a next request asks for the very page that named it."""
    if following.url is not None:
        return request_identity(PageRequest(url=response.url)) == request_identity(
            PageRequest(url=following.url)
        )
    return (sorted(following.params), following.headers) == (
        sorted(request.params),
        request.headers,
    )


def continuation(convention: Convention, response: JSONResponse) -> str | None:
    """The next URL or token, or None when the page says there is none (null, absent, "")."""
    header = convention.next_header
    if header is not None:
        if header.lower() == "link":
            try:
                target = next_link(link_values(response.headers), response.url)
            except ValueError as exc:
                raise PagingFault(str(exc)) from None
            return None if target is None else str(target)
        value = response.headers.get(header)
        return value.strip() or None if value is not None else None
    value = dig(response.body, convention.next_at)
    if value is MISSING or value is None or (isinstance(value, str) and not value.strip()):
        return None
    if isinstance(value, int) and not isinstance(value, bool) and convention.follow == "token":
        return str(value)
    if not isinstance(value, str):
        where = "$." + ".".join(convention.next_at)
        raise WireFault(where, f"expected a string, got {json_type_name(value)}")
    return value


def _continuation_place(convention: Convention) -> str:
    if convention.next_header:
        return f"the {convention.next_header} header"
    return ".".join(convention.next_at) or "any place"


def link_target(convention: Convention, url: URL, value: str) -> URL:
    """A next link as a URL: resolved against the page's URL, or against the API's base URL
    for a convention whose links are relative to it (`links_from="base"`)."""
    try:
        if convention.links_from == "base" and value.startswith("/"):
            return resolve(url, base_path(url, value) + value)
        return resolve(url, value)
    except (ValueError, UnicodeError) as exc:
        raise PagingFault(f"the next-page link is not a usable URL: {exc}") from None


def base_path(url: URL, link: str) -> str:
    """The path a root-relative link is relative to, for a service whose links leave out its
    base path: what precedes the link's path in the list's own (`/wiki` for a link to
    `/rest/api/content` from `/wiki/rest/api/content`), else what precedes the API's `/v1/`."""
    linked = link.split("?", 1)[0].split("#", 1)[0].rstrip("/")
    own = url.path.rstrip("/")
    if linked and own.endswith(linked) and own != linked:
        return own[: -len(linked)]
    return url.path.rpartition(API_PREFIX)[0] if API_PREFIX in url.path else ""


def says_more(convention: Convention, body: Any) -> bool:
    """Whether a page's flags say more records follow it: its more flag true, or its last flag
    false (read as the page reader reads them: `1` and `0` too)."""
    return _flag(body, convention.more_at) is True or _flag(body, convention.last_at) is False


def _flag(body: Any, path: Path) -> bool | None:
    if not path:
        return None
    value = dig(body, path)
    if value is MISSING or value is None:
        return None
    if value in (0, 1) and isinstance(value, int):
        return bool(value)  # `hasMore: 1` (Qualys)
    if not isinstance(value, bool):
        raise WireFault("$." + ".".join(path), f"expected a boolean, got {json_type_name(value)}")
    return value
