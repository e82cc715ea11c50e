"""The paginators one pins by hand: offset, page number, cursor, Link header, and lists served
whole, each a thin constructor over a `Convention` (the one value every paginator follows).

They keep their names and settings (`OffsetPaginator(offset_param="start")`), and read pages
exactly as `paginator=Convention(...)` would: through the same reader, with the same end rules
and refusals. `convention` shows the value each builds.
"""

from __future__ import annotations

from typing import Literal

from attrs import frozen

from remedy_async._paging._protocol import (
    BODY,
    ITEM_KEYS,
    Convention,
    PagePlan,
    PageRequest,
    PageResult,
)
from remedy_async._wire._http import JSONResponse

from ._convention import ConventionPaginator


def _items(keys: tuple[str, ...]) -> tuple[tuple[str, ...], ...]:
    return tuple((key,) for key in keys)


class _FollowsConvention:
    """Delegates the paginator protocol to the convention a class builds."""

    @property
    def convention(self) -> Convention:
        raise NotImplementedError

    @property
    def _follower(self) -> ConventionPaginator:
        return ConventionPaginator(self.convention)

    @property
    def parameter_names(self) -> frozenset[str]:
        """The query parameters it sets (a filter may not use them)."""
        return self.convention.parameter_names

    def first(self, page_size: int | None) -> PageRequest:
        """The list's first request, with the page size when given."""
        return self._follower.first(page_size)

    def read(self, request: PageRequest, response: JSONResponse) -> PageResult:
        """The page's items and the next request, by the convention."""
        return self._follower.read(request, response)

    def predict_next(self, request: PageRequest) -> PageRequest | None:
        """The request after `request` if its page comes back full (for fetching ahead)."""
        return self._follower.predict_next(request)

    def plan(
        self, request: PageRequest, response: JSONResponse, result: PageResult, count: int
    ) -> PagePlan | None:
        """The requests of up to `count` later pages, when the page states the list's size."""
        return self._follower.plan(request, response, result, count)


@frozen
class OffsetPaginator(_FollowsConvention):
    """Offset paging: `?offset=N&limit=M`; ends at `total`, an empty page, or a page shorter
    than the `limit` the service says it served (shorter than the size asked proves nothing).
    An echoed offset must be the one asked for."""

    offset_param: str = "offset"
    """The query parameter of the offset; the service may echo it in the body."""
    limit_param: str = "limit"
    """The query parameter of the page size; the service may echo it in the body."""
    total_field: str = "total"
    """The body field of the list's total, dotted when nested (`meta.total`)."""
    item_keys: tuple[str, ...] = ITEM_KEYS
    """The body keys the item array may be under, tried in order."""

    @property
    def convention(self) -> Convention:
        """The convention this paginator follows."""
        return Convention(
            name="OffsetPaginator", follow="offset", items=_items(self.item_keys),
            param=self.offset_param, size_param=self.limit_param,
            position_at=(self.offset_param,), size_at=(self.limit_param,),
            total_at=tuple(self.total_field.split(".")),
        )  # fmt: skip


@frozen
class PageNumberPaginator(_FollowsConvention):
    """Page-number paging: `?page=N&pageSize=M`; ends at `totalPages`, `total`, an empty page,
    or a page shorter than the `pageSize` the service says it served."""

    page_param: str = "page"
    """The query parameter of the page number; the service may echo it in the body."""
    size_param: str = "pageSize"
    """The query parameter of the page size; the service may echo it in the body."""
    total_pages_field: str = "totalPages"
    """The body field of the number of pages, dotted when nested."""
    first_page: int = 1
    """The number of the first page."""
    item_keys: tuple[str, ...] = ITEM_KEYS
    """The body keys the item array may be under, tried in order."""

    @property
    def convention(self) -> Convention:
        """The convention this paginator follows."""
        return Convention(
            name="PageNumberPaginator", follow="page", items=_items(self.item_keys),
            param=self.page_param, size_param=self.size_param, position_at=(self.page_param,),
            size_at=(self.size_param,), pages_at=tuple(self.total_pages_field.split(".")),
            total_at=("total",), first_page=self.first_page,
        )  # fmt: skip


@frozen
class CursorPaginator(_FollowsConvention):
    """Cursor paging: `?cursor=C&limit=M` in, the next cursor read from a response field.

    `next_field` may be nested (`meta.nextCursor`). With `next_kind="url"` the field holds the
    next page's URL instead (`links.next`), resolved against the request URL. A null, absent or
    empty next value ends the list.
    """

    cursor_param: str = "cursor"
    """The query parameter the next cursor is sent in."""
    limit_param: str = "limit"
    """The query parameter of the page size."""
    next_field: str = "nextCursor"
    """The body field of the next cursor (or URL), dotted when nested."""
    next_kind: Literal["cursor", "url"] = "cursor"
    """What that field holds: a `cursor` to send, or the next page's `url`."""
    item_keys: tuple[str, ...] = ITEM_KEYS
    """The body keys the item array may be under, tried in order."""

    @property
    def convention(self) -> Convention:
        """The convention this paginator follows."""
        return Convention(
            name="CursorPaginator", follow="url" if self.next_kind == "url" else "token",
            items=_items(self.item_keys), next_at=tuple(self.next_field.split(".")),
            param=self.cursor_param, size_param=self.limit_param,
        )  # fmt: skip


@frozen
class LinkHeaderPaginator(_FollowsConvention):
    """RFC 8288 paging: follows the `Link: <url>; rel="next"` header until there is none.

    The body is a bare array or an envelope. Relative links resolve against the request URL.
    """

    page_size_param: str = "limit"
    """The query parameter of the page size."""
    item_keys: tuple[str, ...] = ITEM_KEYS
    """The body keys the item array may be under, tried in order. The body may also be the array
    itself."""

    @property
    def convention(self) -> Convention:
        """The convention this paginator follows."""
        return Convention(
            name="LinkHeaderPaginator", follow="url", items=(BODY, *_items(self.item_keys)),
            next_header="Link", size_param=self.page_size_param,
        )  # fmt: skip


@frozen
class UnpagedPaginator(_FollowsConvention):
    """For lists the service returns whole: a bare JSON array, or an envelope with no next page.

    Refuses, with a PaginationError, a response that says more pages exist (a next cursor or
    link), rather than silently returning only the first page.
    """

    @property
    def convention(self) -> Convention:
        """The convention this paginator follows."""
        return Convention(name="UnpagedPaginator", items=(BODY, *_items(ITEM_KEYS)))
