"""Reads one page by a convention: where its items are, what comes next, and whether it ended.

Pure functions over a `Convention` row and a decoded response. A page ends the list only on
positive evidence (no continuation, `more_at` false, `last_at` true, a total or page count
reached, an empty page); a continuation-like signal the row does not read is refused by
`_signals`, so an unknown convention fails loudly instead of ending after page 1.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any

from attrs import frozen
from yarl import URL

from remedy_async._http import JSONResponse
from remedy_async._wire._faults import WireFault, json_type_name

from ._envelope import MISSING, last_page_number, link_values, planned_offsets, planned_pages
from ._envelope import dig_path as dig
from ._links import next_link, resolve
from ._protocol import (
    ONLY_ARRAY,
    RESOURCE,
    Convention,
    ListSize,
    PagePlan,
    PageRequest,
    PageResult,
    Paginator,
    PagingFault,
    Path,
)
from ._signals import refuse_unread_signals


@frozen
class ConventionPaginator:
    """Follows one convention for every list: what `paginator=<Convention>` pins."""

    convention: Convention

    @property
    def parameter_names(self) -> frozenset[str]:
        """The query parameters the convention sets (a filter may not use them)."""
        return self.convention.parameter_names

    def first(self, page_size: int | None) -> PageRequest:
        """Ask for the first page, with the page size in the convention's parameter."""
        return first_request(self.convention, page_size)

    def read(self, request: PageRequest, response: JSONResponse) -> PageResult:
        """Return the page's items and the next request, checked against the convention."""
        return read_page(self.convention, request, response)

    def predict_next(self, request: PageRequest) -> PageRequest | None:
        """Guess the next request when the convention computes it (offsets, page numbers)."""
        return predict_next(self.convention, request)

    def plan(
        self, request: PageRequest, response: JSONResponse, result: PageResult, count: int
    ) -> PagePlan | None:
        """Plan up to `count` later pages when the convention computes them from a size."""
        return plan_pages(self.convention, request, response, result, count)


def as_paginator(value: Paginator | Convention) -> Paginator:
    """The paginator for a `paginator=` setting: a Convention is followed as given."""
    return ConventionPaginator(value) if isinstance(value, Convention) else value


def scheme_name(paginator: Paginator) -> str:
    """The paginator's name in resume tokens (a token resumes only under the same scheme)."""
    if isinstance(paginator, ConventionPaginator):
        return f"Convention:{paginator.convention.name}"
    return type(paginator).__name__


def first_request(convention: Convention, page_size: int | None) -> PageRequest:
    """The first page request of a list under `convention`."""
    params: list[tuple[str, str]] = []
    if convention.follow == "page" and convention.param:
        params.append((convention.param, str(convention.first_page)))
    if convention.follow == "offset" and convention.param:
        params.append((convention.param, "0"))
    if page_size is not None and convention.size_param:
        params.append((convention.size_param, str(page_size)))
    return PageRequest(params=tuple(params), convention=convention.name)


def read_page(convention: Convention, request: PageRequest, response: JSONResponse) -> PageResult:
    """Return a page's items and the next request, or PagingFault/WireFault saying why not."""
    items, items_path = locate_items(convention, response)
    refuse_unread_signals(
        response, items_path, _signal_paths(convention), convention.next_header, convention.name
    )
    following = _next_request(convention, request, response, items)
    path = "$" + "".join(f".{key}" for key in items_path)
    return PageResult(items=items, next=following, items_path=path, convention=convention)


@lru_cache(maxsize=64)
def _signal_paths(convention: Convention) -> tuple[Path, ...]:
    return convention.signal_paths


def predict_next(convention: Convention, request: PageRequest) -> PageRequest | None:
    """The request after `request` when the convention computes it (offset, page numbers)."""
    if convention.follow not in ("offset", "page") or not convention.param:
        return None
    params = dict(request.params)
    size = _requested_size(convention, request)
    current = _int_param(params, convention.param)
    if convention.follow == "offset":
        if size is None:
            return None
        return _with_position(convention, request, (current or 0) + size)
    page = convention.first_page if current is None else current
    return _with_position(convention, request, page + 1)


def plan_pages(
    convention: Convention,
    request: PageRequest,
    response: JSONResponse,
    result: PageResult,
    count: int,
) -> PagePlan | None:
    """The requests of up to `count` pages after a page, from the size the page announces.

    Only offset and page-number conventions plan, and only when the page states its list's
    total (or page count); offsets step by what this page served.
    """
    if convention.follow not in ("offset", "page") or not convention.param:
        return None
    body = response.body
    size = ListSize(_int_at(body, convention.total_at), _int_at(body, convention.pages_at))
    if convention.follow == "offset":
        if size.items is None:
            return None
        if result.next is None:
            return PagePlan((), size)
        start = _int_param(dict(result.next.params), convention.param) or 0
        positions = planned_offsets(start, len(result.items), size.items, count)
    else:
        served = _int_at(body, convention.size_at)
        page_size = served or _requested_size(convention, request) or len(result.items)
        last = last_page_number(convention.first_page, size.pages, size.items, page_size)
        if last is None:
            return None
        if result.next is None:
            return PagePlan((), size)
        start = _int_param(dict(result.next.params), convention.param) or convention.first_page
        positions = planned_pages(start, last, count)
    following = result.next
    return PagePlan(tuple(_with_position(convention, following, at) for at in positions), size)


def resource_names(url: URL) -> tuple[str, ...]:
    """The resource's name in every spelling, from the list URL's last path segment."""
    return _names_of(url.path)


@lru_cache(maxsize=256)
def _names_of(path: str) -> tuple[str, ...]:
    segment = path.rstrip("/").rpartition("/")[2]
    words = [word.lower() for word in re.split(r"[-_]", segment) if word]
    if not words:
        return ()
    camel = words[0] + "".join(word.title() for word in words[1:])
    return tuple(
        dict.fromkeys(
            (camel, "_".join(words), "-".join(words), camel[:1].upper() + camel[1:], segment)
        )
    )


def locate_items(convention: Convention, response: JSONResponse) -> tuple[list[Any], Path]:
    """Find the item array where the convention keeps it; PagingFault or WireFault if absent."""
    body = response.body
    names: Sequence[str] = ()
    for path in convention.items:
        if RESOURCE in path and not names:
            names = resource_names(response.url)
        found = _items_at(body, path, names)
        if found is not None:
            return found
    places = ", ".join("the body" if not path else ".".join(path) for path in convention.items)
    if isinstance(body, dict | list):
        raise PagingFault(
            f"the response does not look like the {convention.name!r} convention: no array of "
            f"items at {places}"
        )
    raise WireFault("$", f"expected an array or an object, got {json_type_name(body)}")


def _items_at(body: Any, path: Path, names: Sequence[str]) -> tuple[list[Any], Path] | None:
    value, found = body, []
    for step in path:
        if not isinstance(value, dict):
            return None
        key = step
        if step == RESOURCE:
            key = next((name for name in names if name in value), "")
        elif step == ONLY_ARRAY:
            arrays = [name for name, inner in value.items() if isinstance(inner, list)]
            key = arrays[0] if len(arrays) == 1 else ""
        if key not in value:
            return None
        value = value[key]
        found.append(key)
    if not isinstance(value, list):
        if path and value is not None:
            raise WireFault(
                "$." + ".".join(found), f"expected an array, got {json_type_name(value)}"
            )
        return None
    return value, tuple(found)


def _next_request(
    convention: Convention, request: PageRequest, response: JSONResponse, items: list[Any]
) -> PageRequest | None:
    follow = convention.follow
    if follow == "none":
        return None
    if follow in ("url", "token"):
        value = _continuation(convention, response)
        if value is None:
            return None
        if follow == "url":
            return PageRequest(url=_target(response.url, value), convention=convention.name)
        return _with_position(convention, request, value)
    body = response.body
    if _flag(body, convention.more_at) is False or _flag(body, convention.last_at) is True:
        return None
    if not items:
        return None
    if follow == "keyset":
        if _flag(body, convention.more_at) is not True:
            return None
        last = items[-1]
        key = last.get("id") if isinstance(last, dict) else None
        if not isinstance(key, str | int) or isinstance(key, bool):
            raise PagingFault(
                f"{'.'.join(convention.more_at)} says there are more items, but the last item has "
                "no id to continue after"
            )
        return _with_position(convention, request, str(key))
    return _next_position(convention, request, body, len(items))


def _next_position(
    convention: Convention, request: PageRequest, body: Any, count: int
) -> PageRequest | None:
    """The offset or page-number request after a non-empty page, or None at the proven end."""
    assert convention.param is not None
    params = dict(request.params)
    echoed = _int_at(body, convention.position_at)
    requested = _int_param(params, convention.param)
    served = _int_at(body, convention.size_at)
    total = _int_at(body, convention.total_at)
    if convention.follow == "offset":
        offset = echoed if echoed is not None else requested or 0
        if total is not None and offset + count >= total:
            return None
        if served is not None and count < served:
            return None
        return _with_position(convention, request, offset + count)
    page = echoed if echoed is not None else requested
    page = convention.first_page if page is None else page
    number = page - convention.first_page + 1
    pages = _int_at(body, convention.pages_at)
    if pages is not None and number >= pages:
        return None
    size = served if served is not None else _requested_size(convention, request)
    if total is not None and size is not None and (number - 1) * size + count >= total:
        return None
    if served is not None and count < served:
        return None
    # Page boundaries depend on the size: ask for the size the service served, which differs
    # from the one asked when it did not read the first request's size parameter.
    return _with_position(convention, request, page + 1, size)


def _with_position(
    convention: Convention, request: PageRequest, value: object, size: int | None = None
) -> PageRequest:
    """The request with the convention's parameter set to `value`, keeping the page size (or
    setting `size`)."""
    assert convention.param is not None
    if size is None:
        size = _requested_size(convention, request)
    params = [(convention.param, str(value))]
    if size is not None and convention.size_param:
        params.append((convention.size_param, str(size)))
    return PageRequest(params=tuple(params), convention=convention.name)


def _requested_size(convention: Convention, request: PageRequest) -> int | None:
    """The page size the list asked for, under this convention's name or the first request's.

    Where positions are page numbers, only the convention's own name counts: a size the service
    did not read on the first page must not change its page boundaries on the second.
    """
    params = dict(request.params)
    names: tuple[str | None, ...] = (convention.size_param,)
    if not _numbers_pages(convention):
        names += ("limit", "pageSize")
    for name in names:
        if name and (size := _int_param(params, name)) is not None:
            return size
    return None


def _numbers_pages(convention: Convention) -> bool:
    """Whether the convention's positions are page numbers (in a parameter or a header)."""
    return convention.follow == "page" or (
        convention.follow == "token" and convention.param == "page"
    )


def _continuation(convention: Convention, response: JSONResponse) -> str | None:
    """The next URL or token, or None when the page says there is none."""
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
    where = "$." + ".".join(convention.next_at)
    if value is MISSING or value is None:
        return None
    if isinstance(value, int) and not isinstance(value, bool) and convention.follow == "token":
        return str(value)
    if not isinstance(value, str):
        raise WireFault(where, f"expected a string, got {json_type_name(value)}")
    if not value.strip():
        raise PagingFault(f"the response's {where[2:]!r} is empty, yet not null")
    return value


def _target(base: URL, value: str) -> URL:
    try:
        return resolve(base, value)
    except (ValueError, UnicodeError) as exc:
        raise PagingFault(f"the next-page link {value[:80]!r} is not a usable URL: {exc}") from None


def _flag(body: Any, path: Path) -> bool | None:
    if not path:
        return None
    value = dig(body, path)
    if value is MISSING or value is None:
        return None
    if not isinstance(value, bool):
        raise WireFault("$." + ".".join(path), f"expected a boolean, got {json_type_name(value)}")
    return value


def _int_at(body: Any, path: Path) -> int | None:
    if not path:
        return None
    value = dig(body, path)
    if value is MISSING or value is None:
        return None
    if not isinstance(value, int) or isinstance(value, bool):
        raise WireFault("$." + ".".join(path), f"expected an integer, got {json_type_name(value)}")
    return value


def _int_param(params: Mapping[str, str], name: str) -> int | None:
    text = params.get(name)
    return int(text) if text is not None and text.isdigit() else None
