"""Where a list response keeps its items and its paging signals, read without judging them.

Helpers shared by the schemes: the item array of an envelope, dotted field lookup, integers
from the body or the request, the Link header's next target, the end-of-list rule, and where
the later pages of a list of known size start.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from yarl import URL

from remedy_async._http import JSONResponse
from remedy_async._wire._faults import WireFault, json_type_name

from ._links import next_link, parse_link_header
from ._protocol import ITEM_KEYS, PageResult, PagingFault


def envelope_items(body: Mapping[str, Any], keys: Sequence[str] = ITEM_KEYS) -> PageResult:
    """Find the item array of an envelope under the first of `keys` present (no next page)."""
    for key in keys:
        if key in body:
            items = body[key]
            if not isinstance(items, list):
                raise WireFault(f"$.{key}", f"expected an array, got {json_type_name(items)}")
            return PageResult(items=items, next=None, items_path=f"$.{key}")
    raise WireFault("$", f"expected an array or an object with one of {', '.join(keys)}")


def has_link_next(headers: Mapping[str, str]) -> bool:
    """Whether a Link header advertises a next page (rel="next" among its relations)."""
    getall = getattr(headers, "getall", None)
    values = getall("Link", []) if getall is not None else [headers.get("Link", "")]
    return any("next" in link.rels for value in values for link in parse_link_header(value))


MISSING = object()


def dig(body: Mapping[str, Any], dotted: str) -> Any:
    """Return the value at a dotted path such as `meta.nextCursor`, or MISSING."""
    return dig_path(body, tuple(dotted.split(".")))


def dig_path(body: Any, path: tuple[str, ...]) -> Any:
    """Return the value at a body path (keys outermost first), or MISSING."""
    value = body
    for key in path:
        if not isinstance(value, dict) or key not in value:
            return MISSING
        value = value[key]
    return value


def envelope(response: JSONResponse, keys: Sequence[str]) -> tuple[dict[str, Any], PageResult]:
    body = response.body
    if not isinstance(body, dict):
        raise WireFault("$", f"expected a paging envelope object, got {json_type_name(body)}")
    return body, envelope_items(body, keys)


def int_from(body: Mapping[str, Any], key: str, params: Mapping[str, str]) -> int | None:
    """Read an int from the response body, else from the request's parameters, else None."""
    value = body.get(key)
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if value is not None:
        raise WireFault(f"$.{key}", f"expected an integer, got {json_type_name(value)}")
    text = params.get(key)
    return int(text) if text is not None and text.isdigit() else None


def is_last_page(count: int, position: int, total: int | None, served_size: int | None) -> bool:
    """Whether a page ends the list, trusting only what the service said.

    `position` is how far the list has got with this page (items or pages). A page shorter
    than the size *asked for* proves nothing (services cap page sizes silently), so the end is
    a known total reached, a page shorter than the size the service says it served, or an empty
    page.
    """
    if count == 0:
        return True
    if total is not None:
        return position >= total
    return served_size is not None and count < served_size


def planned_offsets(following: int, step: int, total: int, count: int) -> range:
    """The offsets of up to `count` pages from `following`, `step` items apart, short of `total`.

    `step` is what the page before served: a service that caps page sizes serves its cap.
    """
    if step <= 0:
        return range(0)
    return range(following, min(total, following + step * count), step)


def planned_pages(following: int, last: int, count: int) -> range:
    """The page numbers of up to `count` pages from `following` to `last`."""
    return range(following, min(last, following + count - 1) + 1)


def last_page_number(
    first_page: int, pages: int | None, total: int | None, size: int | None
) -> int | None:
    """The number of a list's last page, from its page count or its total and page size."""
    if pages is not None:
        return first_page + pages - 1
    if total is not None and size:
        return first_page + -(-total // size) - 1
    return None


def size_params(name: str, page_size: int | str | None) -> tuple[tuple[str, str], ...]:
    return () if page_size is None else ((name, str(page_size)),)


def next_link_of(response: JSONResponse) -> URL | None:
    try:
        return next_link(link_values(response.headers), response.url)
    except ValueError as exc:
        raise PagingFault(str(exc)) from None


def link_values(headers: Mapping[str, str]) -> list[str]:
    getall = getattr(headers, "getall", None)
    if getall is not None:
        return list(getall("Link", []))
    value = headers.get("Link")
    return [value] if value is not None else []
