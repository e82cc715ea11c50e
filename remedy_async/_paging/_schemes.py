"""The paging schemes: offset, page number, cursor, Link header, and lists served whole.

Each is a frozen class implementing the pure `Paginator` protocol, with its parameter and field
names configurable. `AutoPaginator` (in `_auto`) chooses among them from the responses.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Literal

from attrs import frozen

from remedy_async._http import JSONResponse
from remedy_async._wire._faults import WireFault, json_type_name

from ._auto import recognises
from ._conventions import CONVENTIONS
from ._envelope import (
    MISSING,
    dig,
    envelope,
    envelope_items,
    int_from,
    is_last_page,
    last_page_number,
    next_link_of,
    planned_offsets,
    planned_pages,
    size_params,
)
from ._links import resolve
from ._protocol import ITEM_KEYS, ListSize, PagePlan, PageRequest, PageResult, PagingFault
from ._signals import refuse_unread_signals


@frozen
class OffsetPaginator:
    """Offset paging: `?offset=N&limit=M`; ends at `total`, an empty page, or a page shorter
    than the `limit` the service says it served (shorter than the size asked proves nothing)."""

    offset_param: str = "offset"
    limit_param: str = "limit"
    total_field: str = "total"
    item_keys: tuple[str, ...] = ITEM_KEYS

    @property
    def parameter_names(self) -> frozenset[str]:
        """The query parameters this scheme sets (a filter may not use them)."""
        return frozenset({self.offset_param, self.limit_param})

    def first(self, page_size: int | None) -> PageRequest:
        """Start at offset 0, with the page size as the limit when given."""
        return PageRequest(
            params=((self.offset_param, "0"), *size_params(self.limit_param, page_size))
        )

    def read(self, request: PageRequest, response: JSONResponse) -> PageResult:
        """Return the page's items and the request for the items after them."""
        fields = (self.offset_param, self.limit_param, self.total_field)
        return checked(self, response, lambda: self._read(request, response), fields)

    def _read(self, request: PageRequest, response: JSONResponse) -> PageResult:
        body, page = envelope(response, self.item_keys)
        params = dict(request.params)
        offset = int_from(body, self.offset_param, params) or 0
        served = int_from(body, self.limit_param, {})
        total = int_from(body, self.total_field, {})
        following = offset + len(page.items)
        if is_last_page(len(page.items), following, total, served):
            return PageResult(page.items, None, page.items_path)
        limit = params.get(self.limit_param)
        next_params = ((self.offset_param, str(following)), *size_params(self.limit_param, limit))
        return PageResult(page.items, PageRequest(params=next_params), page.items_path)

    def predict_next(self, request: PageRequest) -> PageRequest | None:
        """Guess the request after `request` if its page comes back full (for fetching ahead)."""
        params = dict(request.params)
        offset, limit = params.get(self.offset_param), params.get(self.limit_param)
        if offset is None or limit is None or not (offset.isdigit() and limit.isdigit()):
            return None
        following = (self.offset_param, str(int(offset) + int(limit)))
        return PageRequest(params=(following, (self.limit_param, limit)))

    def plan(
        self, request: PageRequest, response: JSONResponse, result: PageResult, count: int
    ) -> PagePlan | None:
        """The requests of up to `count` pages after this one, when the page states `total`."""
        body = response.body if isinstance(response.body, dict) else {}
        total = int_from(body, self.total_field, {})
        if total is None:
            return None
        size = ListSize(total)
        if result.next is None:
            return PagePlan((), size)
        params = dict(result.next.params)
        limit = params.get(self.limit_param)
        offsets = planned_offsets(int(params[self.offset_param]), len(result.items), total, count)
        requests = tuple(
            PageRequest(
                params=((self.offset_param, str(offset)), *size_params(self.limit_param, limit))
            )
            for offset in offsets
        )
        return PagePlan(requests, size)


@frozen
class PageNumberPaginator:
    """Page-number paging: `?page=N&pageSize=M`; ends at `totalPages`, an empty page, or a page
    shorter than the `pageSize` the service says it served."""

    page_param: str = "page"
    size_param: str = "pageSize"
    total_pages_field: str = "totalPages"
    first_page: int = 1
    item_keys: tuple[str, ...] = ITEM_KEYS

    @property
    def parameter_names(self) -> frozenset[str]:
        """The query parameters this scheme sets (a filter may not use them)."""
        return frozenset({self.page_param, self.size_param})

    def first(self, page_size: int | None) -> PageRequest:
        """Start at the first page, with the page size when given."""
        return PageRequest(
            params=(
                (self.page_param, str(self.first_page)),
                *size_params(self.size_param, page_size),
            )
        )

    def read(self, request: PageRequest, response: JSONResponse) -> PageResult:
        """Return the page's items and the request for the next page number."""
        fields = (self.page_param, self.size_param, self.total_pages_field, "total")
        return checked(self, response, lambda: self._read(request, response), fields)

    def _read(self, request: PageRequest, response: JSONResponse) -> PageResult:
        body, page = envelope(response, self.item_keys)
        params = dict(request.params)
        number = int_from(body, self.page_param, params)
        number = self.first_page if number is None else number
        served = int_from(body, self.size_param, {})
        total_pages = int_from(body, self.total_pages_field, {})
        pages_done = number - self.first_page + 1
        if is_last_page(len(page.items), pages_done, total_pages, served):
            return PageResult(page.items, None, page.items_path)
        size = params.get(self.size_param)
        next_params = ((self.page_param, str(number + 1)), *size_params(self.size_param, size))
        return PageResult(page.items, PageRequest(params=next_params), page.items_path)

    def predict_next(self, request: PageRequest) -> PageRequest | None:
        """Guess the request for the page after `request` (for fetching ahead)."""
        params = dict(request.params)
        number, size = params.get(self.page_param), params.get(self.size_param)
        if number is None or size is None or not number.isdigit():
            return None
        return PageRequest(
            params=((self.page_param, str(int(number) + 1)), (self.size_param, size))
        )

    def plan(
        self, request: PageRequest, response: JSONResponse, result: PageResult, count: int
    ) -> PagePlan | None:
        """The requests of up to `count` pages after this one, when the page states
        `totalPages`, or `total` and the page size."""
        body = response.body if isinstance(response.body, dict) else {}
        total, pages = int_from(body, "total", {}), int_from(body, self.total_pages_field, {})
        size = int_from(body, self.size_param, dict(request.params))
        last = last_page_number(self.first_page, pages, total, size or len(result.items))
        if last is None:
            return None
        listed = ListSize(total, pages)
        if result.next is None:
            return PagePlan((), listed)
        params = dict(result.next.params)
        page_size = params.get(self.size_param)
        numbers = planned_pages(int(params[self.page_param]), last, count)
        requests = tuple(
            PageRequest(
                params=((self.page_param, str(number)), *size_params(self.size_param, page_size))
            )
            for number in numbers
        )
        return PagePlan(requests, listed)


@frozen
class CursorPaginator:
    """Cursor paging: `?cursor=C&limit=M` in, the next cursor read from a response field.

    `next_field` may be nested (`meta.nextCursor`). With `next_kind="url"` the field holds the
    next page's URL instead (`links.next`), resolved against the request URL. A null or absent
    next value ends the list; an empty one is refused, since it cannot mean "more".
    """

    cursor_param: str = "cursor"
    limit_param: str = "limit"
    next_field: str = "nextCursor"
    next_kind: Literal["cursor", "url"] = "cursor"
    item_keys: tuple[str, ...] = ITEM_KEYS

    @property
    def parameter_names(self) -> frozenset[str]:
        """The query parameters this scheme sets (a filter may not use them)."""
        return frozenset({self.cursor_param, self.limit_param})

    def first(self, page_size: int | None) -> PageRequest:
        """Start without a cursor, with the page size as the limit when given."""
        return PageRequest(params=size_params(self.limit_param, page_size))

    def read(self, request: PageRequest, response: JSONResponse) -> PageResult:
        """Return the page's items and the request carrying the next cursor."""
        fields = (self.next_field,)
        return checked(self, response, lambda: self._read(request, response), fields)

    def _read(self, request: PageRequest, response: JSONResponse) -> PageResult:
        body, page = envelope(response, self.item_keys)
        following = dig(body, self.next_field)
        if following is MISSING or following is None:
            return PageResult(page.items, None, page.items_path)
        if not isinstance(following, str):
            raise WireFault(
                f"$.{self.next_field}", f"expected a string, got {json_type_name(following)}"
            )
        if not following.strip():
            raise PagingFault(f"the response's {self.next_field!r} is empty, yet not null")
        if self.next_kind == "url":
            try:
                target = resolve(response.url, following)
            except ValueError as exc:
                raise WireFault(f"$.{self.next_field}", str(exc)) from None
            return PageResult(page.items, PageRequest(url=target), page.items_path)
        limit = dict(request.params).get(self.limit_param)
        params = ((self.cursor_param, following), *(((self.limit_param, limit),) if limit else ()))
        return PageResult(page.items, PageRequest(params=params), page.items_path)


@frozen
class LinkHeaderPaginator:
    """RFC 8288 paging: follows the `Link: <url>; rel="next"` header until there is none.

    The body is a bare array or an envelope. Relative links resolve against the request URL.
    """

    page_size_param: str = "limit"
    item_keys: tuple[str, ...] = ITEM_KEYS

    @property
    def parameter_names(self) -> frozenset[str]:
        """The query parameters this scheme sets (a filter may not use them)."""
        return frozenset({self.page_size_param})

    def first(self, page_size: int | None) -> PageRequest:
        """Start with the page size parameter when given."""
        return PageRequest(params=size_params(self.page_size_param, page_size))

    def read(self, request: PageRequest, response: JSONResponse) -> PageResult:
        """Return the page's items and the request following the next link, if any."""
        return checked(self, response, lambda: self._read(response), (), header="Link")

    def _read(self, response: JSONResponse) -> PageResult:
        body = response.body
        if isinstance(body, list):
            page = PageResult(body, None)
        elif isinstance(body, dict):
            page = envelope_items(body, self.item_keys)
        else:
            raise WireFault("$", f"expected an array or an object, got {json_type_name(body)}")
        target = next_link_of(response)
        if target is None:
            return page
        return PageResult(page.items, PageRequest(url=target), page.items_path)


@frozen
class UnpagedPaginator:
    """For lists the service returns whole: a bare JSON array, or an envelope with no next page.

    Refuses, with a PagingFault, a response that says more pages exist (a next cursor or link),
    rather than silently returning only the first page.
    """

    def first(self, page_size: int | None) -> PageRequest:
        """Ask for the list with no paging parameters; an unpaged list has no page size."""
        return PageRequest()

    def read(self, request: PageRequest, response: JSONResponse) -> PageResult:
        """Return every item of the response, checking that no further page is advertised."""
        return checked(self, response, lambda: self._read(response), ())

    def _read(self, response: JSONResponse) -> PageResult:
        body = response.body
        if isinstance(body, list):
            return PageResult(items=body, next=None)
        if not isinstance(body, dict):
            raise WireFault("$", f"expected an array or an object, got {json_type_name(body)}")
        return envelope_items(body)


def checked(
    scheme: object,
    response: JSONResponse,
    read: Callable[[], PageResult],
    fields: Iterable[str],
    *,
    header: str | None = None,
) -> PageResult:
    """Read a page with a fixed scheme, then refuse any continuation signal it did not read.

    Items missing where the scheme looks for them, in a response that a known convention
    recognises, are a PagingFault naming that convention rather than a decoding error.
    """
    name = type(scheme).__name__
    try:
        result = read()
    except WireFault as fault:
        if fault.path != "$":  # a value of the wrong type, not a body of another shape
            raise
        raise foreign_convention(name, response) or fault from None
    items_path = tuple(result.items_path.split(".")[1:])
    read_paths = tuple(tuple(field.split(".")) for field in fields)
    refuse_unread_signals(response, items_path, read_paths, header, name)
    return result


def foreign_convention(reader: str, response: JSONResponse) -> PagingFault | None:
    """A PagingFault naming the convention a response shows, if a known one recognises it."""
    shown = next((row for row in CONVENTIONS.values() if recognises(row, response)), None)
    if shown is None:
        return None
    return PagingFault(
        f"the response does not have the shape {reader} reads; it looks like the "
        f"{shown.name!r} convention ({shown.summary}): pin it with "
        f"paginator=remedy_async.CONVENTIONS[{shown.name!r}]"
    )
