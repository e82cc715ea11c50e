"""The pure paging protocol: how a list call asks for pages and finds the next one.

A `Paginator` never does I/O. It says what the first request adds to the list call's filters,
and, given the decoded response to a page request, returns the page's raw items and the next
page request (or None at the end). A new paging scheme is one new class implementing it; the
pager, the collection and the client do not change.

A paginator may also expose `parameter_names`, the query parameters it sets, so that a filter of
the same name is refused before any request.

A paginator reports a body of the wrong shape with `WireFault` (a JSON path and a reason) and a
page sequence it cannot follow safely with `PagingFault`; the pager adds the HTTP context.
The schemes themselves live in `_schemes` and `_auto`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

from attrs import frozen
from yarl import URL

from remedy_async._http import JSONResponse


class PagingFault(Exception):
    """A page sequence that cannot be followed without losing or repeating items."""


@frozen
class PageRequest:
    """One page request: query parameters added to the list call's, or a URL to follow instead.

    `url`, when set, is followed as given (for schemes whose responses carry the next URL);
    the list call's filters are not added again.
    """

    params: tuple[tuple[str, str], ...] = ()
    url: URL | None = None


@frozen
class PageResult:
    """What a paginator read from one page: its raw items and the request for the next page."""

    items: Sequence[Any]
    next: PageRequest | None
    items_path: str = "$"
    """JSON path of the item array in the body, so a bad item is reported where it is."""


@runtime_checkable
class Paginator(Protocol):
    """A paging scheme: pure functions from page responses to items and the next request."""

    def first(self, page_size: int | None) -> PageRequest:
        """Return the first page request for a list call (page_size None: the service's default)."""
        ...

    def read(self, request: PageRequest, response: JSONResponse) -> PageResult:
        """Return the items of the page answering `request` and the next page request."""
        ...


@runtime_checkable
class PredictingPaginator(Paginator, Protocol):
    """A paginator that can also guess the next request before the current page arrives.

    Optional: with `prefetch`, the pager fetches predicted pages in parallel and uses one only
    when the real next request (read from the response) is exactly the predicted one.
    """

    def predict_next(self, request: PageRequest) -> PageRequest | None:
        """Return the request for the page after `request`, assuming that page is full."""
        ...
