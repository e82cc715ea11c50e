"""The pure paging protocol: how a list call asks for pages and finds the next one.

A `Paginator` never does I/O. It says what the first request adds to the list call's filters,
and, given the decoded response to a page request, returns the page's raw items and the next
page request (or None at the end). A new paging scheme is one new class implementing it; the
pager, the collection and the client do not change.

A paginator may also expose `parameter_names`, the query parameters it sets, so that a filter of
the same name is refused before any request.

A paginator reports a body of the wrong shape with `WireFault` (a JSON path and a reason) and a
page sequence it cannot follow safely with `PagingFault`; the pager adds the HTTP context.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol, runtime_checkable

from attrs import frozen
from yarl import URL

from ._codec import WireFault, json_type_name
from ._http import JSONResponse
from ._link import parse_link_header

ITEM_KEYS: tuple[str, ...] = ("items", "data", "results")
"""Keys an envelope may use for its array of items, in the order they are looked for."""

NEXT_MARKERS: tuple[str, ...] = (
    "nextCursor",
    "next_cursor",
    "nextPageToken",
    "next_page_token",
    "nextToken",
    "next",
    "nextLink",
    "nextUrl",
    "hasMore",
    "has_more",
)
"""Envelope keys that, when set, say there is another page."""


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
        body = response.body
        if has_link_next(response.headers):
            raise PagingFault(
                'the response has a Link rel="next" header, but this list is read unpaged; '
                "use a paginator that follows links"
            )
        if isinstance(body, list):
            return PageResult(items=body, next=None)
        if not isinstance(body, dict):
            raise WireFault("$", f"expected an array or an object, got {json_type_name(body)}")
        for marker in NEXT_MARKERS:
            if body.get(marker) not in (None, False, ""):
                raise PagingFault(
                    f"the response says there are more pages ({marker!r} is set), but this "
                    "list is read unpaged; use a paginator for the service's paging scheme"
                )
        return envelope_items(body)
