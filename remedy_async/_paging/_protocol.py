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
from typing import Any, Literal, Protocol, runtime_checkable

from attrs import frozen
from yarl import URL

from remedy_async._http import JSONResponse

Path = tuple[str, ...]
"""Keys into a JSON body, outermost first (a key may contain dots, as `@odata.nextLink` does)."""
BODY: Path = ()
"""The body itself is the array of items."""
RESOURCE = "{resource}"
"""Stands for the resource's own name in any spelling (`vulnerabilityFindings`, ...)."""
ONLY_ARRAY = "*"
"""Stands for the one array among an object's values (HAL's `_embedded`)."""

ITEM_KEYS: tuple[str, ...] = ("items", "data", "results")
"""The contract's envelope keys for the item array, in the order they are looked for."""
CONTRACT_ITEMS: tuple[Path, ...] = tuple((key,) for key in ITEM_KEYS)

Follow = Literal["none", "url", "token", "keyset", "offset", "page"]
"""How the next request is formed: follow a URL; send a token, the last item's id, the next
offset or the next page number in `param`; or none (the list comes whole)."""


@frozen(cache_hash=True)
class Convention:
    """One way a list API pages; pass it as `paginator=` to pin it instead of detecting it.

    `items` are the places the item array may be (tried in order). The continuation is read
    from `next_at` in the body or from the `next_header` response header (`Link` means its
    rel="next" target), and followed as `follow` says, with `param` carrying the token, offset,
    page number or last id (for `url`, the parameter the service's own links carry). The end is
    proven by no continuation at all, `more_at` false, `last_at` true, the total at `total_at`
    or the page count at `pages_at` reached, or an empty page. `position_at` is where the
    service echoes the offset or page number it served, and `size_at` the page size it served.
    """

    name: str
    summary: str
    example: str
    """A one-line example of a page, for the documentation."""
    follow: Follow = "none"
    items: tuple[Path, ...] = CONTRACT_ITEMS
    next_at: Path = ()
    next_header: str | None = None
    param: str | None = None
    size_param: str | None = None
    more_at: Path = ()
    last_at: Path = ()
    total_at: Path = ()
    pages_at: Path = ()
    position_at: Path = ()
    size_at: Path = ()
    first_page: int = 1

    def __str__(self) -> str:
        return f"{self.name}: {self.summary}"

    @property
    def signal_paths(self) -> tuple[Path, ...]:
        """Every body path this convention reads its paging from (not its items)."""
        paths = (
            self.next_at,
            self.more_at,
            self.last_at,
            self.total_at,
            self.pages_at,
            self.position_at,
            self.size_at,
        )
        return tuple(path for path in paths if path)

    @property
    def parameter_names(self) -> frozenset[str]:
        """The query parameters this convention sets (a filter may not use them)."""
        return frozenset(name for name in (self.param, self.size_param) if name)


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
    convention: str | None = None
    """The convention the list follows, once known (auto-detection keeps it for the list)."""


@frozen
class PageResult:
    """What a paginator read from one page: its raw items and the request for the next page."""

    items: Sequence[Any]
    next: PageRequest | None
    items_path: str = "$"
    """JSON path of the item array in the body, so a bad item is reported where it is."""
    convention: Convention | None = None
    """The convention the page was read by, when the paginator follows one."""


@frozen
class ListSize:
    """A list's size as one of its pages announces it: items, pages, or both."""

    items: int | None
    pages: int | None = None

    def __str__(self) -> str:
        parts = [f"{self.items} items"] if self.items is not None else []
        if self.pages is not None:
            parts.append(f"{self.pages} pages")
        return " in ".join(parts) or "no size"


@frozen
class PagePlan:
    """The requests of the pages after one page, planned from the size the list announces."""

    requests: tuple[PageRequest, ...]
    """Up to the number asked, in list order; empty when the page is the last."""
    size: ListSize
    """The size the page announced: every later page must announce the same."""


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


@runtime_checkable
class PlanningPaginator(Paginator, Protocol):
    """A paginator that can name later pages' requests from one page, for `list(concurrency=N)`.

    Optional: offset and page-number lists that announce their size (a total, a page count)
    let the client compute where every later page starts without waiting for the page before.
    The pager fetches planned pages at once and uses each only when it is exactly the request
    `read` gave for the page before it; a page announcing another size than the first stops
    the list with PaginationError (it moved while being listed).
    """

    def plan(
        self, request: PageRequest, response: JSONResponse, result: PageResult, count: int
    ) -> PagePlan | None:
        """Return the requests of up to `count` pages after this one and the announced size,
        or None when the page does not say enough to plan (no size, a cursor convention)."""
        ...
