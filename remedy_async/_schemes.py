"""The paging schemes: offset, page number, cursor, Link header, and auto-detection among them.

Each is a frozen class implementing the pure `Paginator` protocol, with its parameter and field
names configurable. `AutoPaginator` (the default) decides from each response which scheme is in
use, so one client works with any of them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal

from attrs import field, frozen
from yarl import URL

from ._codec import WireFault, json_type_name
from ._http import JSONResponse
from ._link import next_link, resolve
from ._paging import (
    ITEM_KEYS,
    PageRequest,
    PageResult,
    PagingFault,
    UnpagedPaginator,
    envelope_items,
)

_MISSING = object()


def _dig(body: Mapping[str, Any], dotted: str) -> Any:
    """Return the value at a dotted path such as `meta.nextCursor`, or _MISSING."""
    value: Any = body
    for key in dotted.split("."):
        if not isinstance(value, dict) or key not in value:
            return _MISSING
        value = value[key]
    return value


def _envelope(response: JSONResponse, keys: Sequence[str]) -> tuple[dict[str, Any], PageResult]:
    body = response.body
    if not isinstance(body, dict):
        raise WireFault("$", f"expected a paging envelope object, got {json_type_name(body)}")
    return body, envelope_items(body, keys)


def _int_from(body: Mapping[str, Any], key: str, params: Mapping[str, str]) -> int | None:
    """Read an int from the response body, else from the request's parameters, else None."""
    value = body.get(key)
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if value is not None:
        raise WireFault(f"$.{key}", f"expected an integer, got {json_type_name(value)}")
    text = params.get(key)
    return int(text) if text is not None and text.isdigit() else None


def _is_last_page(count: int, position: int, total: int | None, served_size: int | None) -> bool:
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


def _size_params(name: str, page_size: int | str | None) -> tuple[tuple[str, str], ...]:
    return () if page_size is None else ((name, str(page_size)),)


@frozen
class OffsetPaginator:
    """Offset paging: `?offset=N&limit=M`; ends at `total`, a short page, or an empty page."""

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
            params=((self.offset_param, "0"), *_size_params(self.limit_param, page_size))
        )

    def read(self, request: PageRequest, response: JSONResponse) -> PageResult:
        """Return the page's items and the request for the items after them."""
        body, page = _envelope(response, self.item_keys)
        params = dict(request.params)
        offset = _int_from(body, self.offset_param, params) or 0
        served = _int_from(body, self.limit_param, {})
        total = _int_from(body, self.total_field, {})
        following = offset + len(page.items)
        if _is_last_page(len(page.items), following, total, served):
            return PageResult(page.items, None, page.items_path)
        limit = params.get(self.limit_param)
        next_params = ((self.offset_param, str(following)), *_size_params(self.limit_param, limit))
        return PageResult(page.items, PageRequest(params=next_params), page.items_path)

    def predict_next(self, request: PageRequest) -> PageRequest | None:
        """Guess the request after `request` if its page comes back full (for fetching ahead)."""
        params = dict(request.params)
        offset, limit = params.get(self.offset_param), params.get(self.limit_param)
        if offset is None or limit is None or not (offset.isdigit() and limit.isdigit()):
            return None
        following = (self.offset_param, str(int(offset) + int(limit)))
        return PageRequest(params=(following, (self.limit_param, limit)))


@frozen
class PageNumberPaginator:
    """Page-number paging: `?page=N&pageSize=M`; ends at `totalPages`, a short or empty page."""

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
                *_size_params(self.size_param, page_size),
            )
        )

    def read(self, request: PageRequest, response: JSONResponse) -> PageResult:
        """Return the page's items and the request for the next page number."""
        body, page = _envelope(response, self.item_keys)
        params = dict(request.params)
        number = _int_from(body, self.page_param, params)
        number = self.first_page if number is None else number
        served = _int_from(body, self.size_param, {})
        total_pages = _int_from(body, self.total_pages_field, {})
        pages_done = number - self.first_page + 1
        if _is_last_page(len(page.items), pages_done, total_pages, served):
            return PageResult(page.items, None, page.items_path)
        size = params.get(self.size_param)
        next_params = ((self.page_param, str(number + 1)), *_size_params(self.size_param, size))
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
        return PageRequest(params=_size_params(self.limit_param, page_size))

    def read(self, request: PageRequest, response: JSONResponse) -> PageResult:
        """Return the page's items and the request carrying the next cursor."""
        body, page = _envelope(response, self.item_keys)
        following = _dig(body, self.next_field)
        if following is _MISSING or following is None:
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
        return PageRequest(params=_size_params(self.page_size_param, page_size))

    def read(self, request: PageRequest, response: JSONResponse) -> PageResult:
        """Return the page's items and the request following the next link, if any."""
        body = response.body
        if isinstance(body, list):
            page = PageResult(body, None)
        elif isinstance(body, dict):
            page = envelope_items(body, self.item_keys)
        else:
            raise WireFault("$", f"expected an array or an object, got {json_type_name(body)}")
        target = _next_link(response)
        if target is None:
            return page
        return PageResult(page.items, PageRequest(url=target), page.items_path)


def _next_link(response: JSONResponse) -> URL | None:
    try:
        return next_link(_link_values(response.headers), response.url)
    except ValueError as exc:
        raise PagingFault(str(exc)) from None


def _link_values(headers: Mapping[str, str]) -> list[str]:
    getall = getattr(headers, "getall", None)
    if getall is not None:
        return list(getall("Link", []))
    value = headers.get("Link")
    return [value] if value is not None else []


@frozen
class AutoPaginator:
    """Detects the paging scheme from each response, so lists work whatever the service uses.

    Order of precedence, first match wins:
      1. a `Link` header with rel="next"            -> the Link-header scheme
      2. a bare JSON array                           -> unpaged (or the last Link page)
      3. an envelope with the cursor scheme's next field -> the cursor scheme
         (`nextCursor` unless configured; null ends the list)
      4. an envelope with an `offset` field          -> the offset scheme
      5. an envelope with a `page` field             -> the page-number scheme
      6. any other envelope                          -> unpaged (refused if another next
                                                        marker says there is more)

    The first request carries the page size under every scheme's name (`limit` and `pageSize`);
    fix the scheme with `paginator=` if the service rejects parameters it does not use.
    """

    offset: OffsetPaginator = field(factory=OffsetPaginator)
    page_number: PageNumberPaginator = field(factory=PageNumberPaginator)
    cursor: CursorPaginator = field(factory=CursorPaginator)
    link: LinkHeaderPaginator = field(factory=LinkHeaderPaginator)
    unpaged: UnpagedPaginator = field(factory=UnpagedPaginator)

    @property
    def parameter_names(self) -> frozenset[str]:
        """The query parameters any of the detectable schemes sets."""
        schemes = (self.offset, self.page_number, self.cursor, self.link)
        return frozenset().union(*(scheme.parameter_names for scheme in schemes))

    def first(self, page_size: int | None) -> PageRequest:
        """Ask for the first page with the page size named for every scheme."""
        names = dict.fromkeys(
            (
                self.offset.limit_param,
                self.page_number.size_param,
                self.cursor.limit_param,
                self.link.page_size_param,
            )
        )
        params = tuple(param for name in names for param in _size_params(name, page_size))
        return PageRequest(params=params)

    def read(self, request: PageRequest, response: JSONResponse) -> PageResult:
        """Read the page with the scheme the response shows."""
        return self.detect(response).read(request, response)

    def predict_next(self, request: PageRequest) -> PageRequest | None:
        """Guess the next request when `request` already shows an offset or page-number scheme."""
        names = {name for name, _ in request.params}
        if self.offset.offset_param in names:
            return self.offset.predict_next(request)
        if self.page_number.page_param in names:
            return self.page_number.predict_next(request)
        return None

    def detect(
        self, response: JSONResponse
    ) -> (
        OffsetPaginator
        | PageNumberPaginator
        | CursorPaginator
        | LinkHeaderPaginator
        | UnpagedPaginator
    ):
        """Return the scheme a response is paged with, by the documented order of precedence."""
        if _next_link(response) is not None:
            return self.link
        body = response.body
        if not isinstance(body, dict):
            return self.unpaged
        if _dig(body, self.cursor.next_field) is not _MISSING:
            return self.cursor
        if self.offset.offset_param in body:
            return self.offset
        if self.page_number.page_param in body:
            return self.page_number
        return self.unpaged
