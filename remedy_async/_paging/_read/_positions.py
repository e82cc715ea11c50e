"""Where the next page of a list starts when the client computes it: offsets, page numbers,
the last id of a keyset list, and the page size each request carries; and where the later pages
of a list of announced size start, planned at once for `concurrency`.

Pure functions of a `Convention`, the request of a page and what the page said. An echoed
position must be the one asked for: a service that echoes another (the next offset, say) would
have the client skip or repeat records, so it is refused.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from remedy_async._paging._protocol import (
    Convention,
    ListSize,
    PagePlan,
    PageRequest,
    PageResult,
    PagingFault,
    Path,
    Proof,
)
from remedy_async._wire._http import JSONResponse
from remedy_async._wire._types import WireFault, item_id, json_type_name

from ._envelope import MISSING, dig

PUBLISHED_SIZE_PARAM = "limit"
"""The published page-size parameter, which a list's first request carries."""
CONTRACT_SIZE_PARAMS = (PUBLISHED_SIZE_PARAM, "pageSize")
"""The page-size names a list's first request may carry: the published one, and `pageSize`,
sent alone instead when the service refuses `limit` with a 400."""


def first_request(convention: Convention, page_size: int | None) -> PageRequest:
    """The first page request of a list under `convention`: its page size, and no position
    (every service starts a list at its first offset or page, so none is named before a page
    has shown the parameter works)."""
    params: list[tuple[str, str]] = []
    if page_size is not None and convention.size_param:
        params.append((convention.size_param, str(page_size)))
    return PageRequest(params=tuple(params), convention=convention)


def next_position(
    convention: Convention,
    request: PageRequest,
    body: Any,
    count: int,
    total: int | None,
    pages: int | None = None,
) -> PageRequest | None:
    """The offset or page-number request after a non-empty page, or None at the proven end
    (`total` records, or `pages` pages, as the page announced them; see `announced_pages`)."""
    assert convention.param is not None
    requested = int_param(request.params, convention.param)
    served = int_at(body, convention.size_at)
    if convention.follow == "offset":
        offset = convention.first_offset if requested is None else requested
        check_echo(convention, body, offset)
        if total is not None:  # the total decides, whatever the page's length
            if offset - convention.first_offset + count >= total:
                return None
        elif served is not None and count < served:
            return None
        return with_position(convention, request, offset + count)
    page = convention.first_page if requested is None else requested
    check_echo(convention, body, page)
    number = page - convention.first_page + 1
    if pages is not None and number >= pages:
        return None
    size = served if served is not None else requested_size(convention, request)
    if total is not None and size is not None:  # the total decides, whatever the page's length
        if (number - 1) * size + count >= total:
            return None
    elif pages is None and served is not None and count < served:
        return None
    # Page boundaries depend on the size: ask for the size the service served, which differs
    # from the one asked when it did not read the first request's size parameter.
    return with_position(convention, request, page + 1, size)


def check_position(convention: Convention, request: PageRequest, body: Any) -> None:
    """Refuse a page whose echoed offset or page number is not the one `request` asked for."""
    assert convention.param is not None
    requested = int_param(request.params, convention.param)
    if requested is None:
        requested = (
            convention.first_offset if convention.follow == "offset" else convention.first_page
        )
    check_echo(convention, body, requested)


def check_echo(convention: Convention, body: Any, requested: int) -> None:
    """Refuse a page whose echoed position is not the one asked for."""
    echoed = int_at(body, convention.position_at)
    if echoed is not None and echoed != requested:
        what = "offset" if convention.follow == "offset" else "page"
        raise PagingFault(
            f"the service echoed {'.'.join(convention.position_at)} {echoed} for a request of "
            f"{what} {requested}: following it would skip or repeat records (its position is "
            "not the one served, or the list moved)"
        )


def keyset_next(convention: Convention, request: PageRequest, items: Sequence[Any]) -> PageRequest:
    """The request after a page of a keyset list: its last item's id in `param`."""
    key = item_id(items[-1])
    if not isinstance(key, str | int) or isinstance(key, bool):
        raise PagingFault("the list goes on after its last item, which has no id to continue after")
    return with_position(convention, request, str(key))


def predict_next(convention: Convention, request: PageRequest) -> PageRequest | None:
    """The request after `request` when the convention computes it (offset, page numbers)."""
    if convention.follow not in ("offset", "page") or not convention.param:
        return None
    size = requested_size(convention, request)
    current = int_param(request.params, convention.param)
    if convention.follow == "offset":
        if size is None:
            return None
        start = convention.first_offset if current is None else current
        return with_position(convention, request, start + size)
    page = convention.first_page if current is None else current
    return with_position(convention, request, page + 1)


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
    size = ListSize(result.total, announced_pages(convention, response))
    if convention.follow == "offset":
        if size.items is None:
            return None
        if result.next is None:
            return PagePlan((), size)
        start = int_param(result.next.params, convention.param)
        start = convention.first_offset if start is None else start
        end = size.items + convention.first_offset
        positions = planned_offsets(start, len(result.items), end, count)
    else:
        served = int_at(body, convention.size_at)
        page_size = served or requested_size(convention, request) or len(result.items)
        last = last_page_number(convention.first_page, size.pages, size.items, page_size)
        if last is None:
            return None
        if result.next is None:
            return PagePlan((), size)
        start = int_param(result.next.params, convention.param) or convention.first_page
        positions = planned_pages(start, last, count)
    following = result.next
    planned = [with_position(convention, following, at) for at in positions]
    if planned:  # the first is exactly the next request the page named (a guess's probe too)
        planned[0] = following
    return PagePlan(tuple(planned), size)


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


def with_position(
    convention: Convention,
    request: PageRequest,
    value: object,
    size: int | None = None,
    *,
    proof: Proof | None = None,
) -> PageRequest:
    """The request with the convention's parameter set to `value`, keeping the page size (or
    setting `size`); a request header instead where the convention sends it so. It carries
    `proof` (what a proven list's next request carries), and no probe."""
    assert convention.param is not None
    sized = _sized(convention, request, size)
    if convention.param_in == "header":
        return PageRequest(
            params=sized,
            headers=((convention.param, str(value)),),
            convention=convention,
            proof=proof,
        )
    return PageRequest(
        params=((convention.param, str(value)), *sized), convention=convention, proof=proof
    )


def _sized(
    convention: Convention, request: PageRequest, size: int | None
) -> tuple[tuple[str, str], ...]:
    """The page-size parameters of a request formed from `request`: the convention's own set to
    `size`, else to the size `request` asked for (its own parameter kept as it was sent when it
    already reads as that size: a list's every request after its first, a page at a time); with
    no size parameter of its own, the sizes the list's first request carried."""
    name = convention.size_param
    if not name:
        return tuple(pair for pair in request.params if pair[0] in CONTRACT_SIZE_PARAMS)
    if size is None:
        text = _param(request.params, name)
        if text is not None and text.isdigit() and str(int(text)) == text:
            return ((name, text),)
        size = requested_size(convention, request)
    return () if size is None else ((name, str(size)),)


def requested_size(convention: Convention, request: PageRequest) -> int | None:
    """The page size the list asked for, under this convention's name or the first request's.

    Where positions are page numbers, only the convention's own name counts: a size the service
    did not read on the first page must not change its page boundaries on the second.
    """
    params = request.params
    names: tuple[str | None, ...] = (convention.size_param,)
    if not _numbers_pages(convention):
        names += CONTRACT_SIZE_PARAMS
    for name in names:
        if name and (size := int_param(params, name)) is not None:
            return size
    return None


def _numbers_pages(convention: Convention) -> bool:
    """Whether the convention's positions are page numbers (in a parameter or a header)."""
    return convention.follow == "page" or (
        convention.follow == "token" and convention.param == "page"
    )


def announced_pages(convention: Convention, response: JSONResponse) -> int | None:
    """The list's page count as the page states it, where the convention reads it: a body path
    (an integer) or a header (digits); None when it states none."""
    if convention.pages_at:
        return int_at(response.body, convention.pages_at)
    if convention.pages_header:
        text = response.headers.get(convention.pages_header, "").strip()
        return int(text) if text.isdigit() else None
    return None


def int_at(body: Any, path: Path) -> int | None:
    """The integer at a body path (None when absent or null); WireFault for another value."""
    if not path:
        return None
    value = dig(body, path)
    if value is MISSING or value is None:
        return None
    if not isinstance(value, int) or isinstance(value, bool):
        raise WireFault("$." + ".".join(path), f"expected an integer, got {json_type_name(value)}")
    return value


def int_param(params: Sequence[tuple[str, str]], name: str) -> int | None:
    """A request parameter's integer value (its last one, as the service reads a repeated
    parameter), or None."""
    text = _param(params, name)
    return int(text) if text is not None and text.isdigit() else None


def _param(params: Sequence[tuple[str, str]], name: str) -> str | None:
    """A request parameter's text (its last one), or None: read from the pairs as they are
    sent, without making a dict of a page's two or three of them."""
    for key, text in reversed(params):
        if key == name:
            return text
    return None
