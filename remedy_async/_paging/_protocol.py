"""The pure paging protocol: how a list call asks for pages and finds the next one.

A `Paginator` never does I/O. It says what the first request adds to the list call's filters,
and, given the decoded response to a page request, returns the page's raw items and the next
page request (or None at the end). A new way of paging is one new class implementing it; the
pager, the collection and the client do not change.

A paginator may have optional abilities, each a checked Protocol the pager tests it against:
`NamingPaginator` names the query parameters it sets, so that a filter of the same name is
refused before any request; `FallingBackPaginator` has first requests to try when the service
refuses the first; `PredictingPaginator` guesses the next request (for prefetch);
`PlanningPaginator` plans later pages from a list's announced size (for concurrency).

A paginator reports a body of the wrong shape with `WireFault` (a JSON path and a reason) and a
page sequence it cannot follow safely with `PagingFault`; the pager adds the HTTP context. What a
paginator keeps from page to page rides on the requests it forms (`PageRequest.convention`,
`probe`, `proof`), never on the paginator: one paginator serves any number of lists at once.
Paginators (`_paginators`) follow a `Convention`, given or detected from a first page (`_detect`).
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine, Hashable, Sequence
from typing import Any, Final, Literal, Protocol, runtime_checkable

import attrs
from attrs import frozen
from msgspec import Struct
from msgspec.structs import replace
from yarl import URL

from remedy_async._wire._http import JSONResponse

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
FOLLOWS: tuple[str, ...] = ("none", "url", "token", "keyset", "offset", "page")
ParamIn = Literal["query", "header"]
LinksFrom = Literal["request", "base"]


def _path(value: object) -> Path:
    """A body path from a tuple or list of keys (a lone string is one key)."""
    if isinstance(value, str):
        return (value,) if value else ()
    if not isinstance(value, tuple | list) or not all(isinstance(key, str) for key in value):
        raise TypeError(f"a body path is a tuple of keys, got {value!r}")
    return tuple(value)


def _paths(value: object) -> tuple[Path, ...]:
    if isinstance(value, str) or not isinstance(value, tuple | list):
        raise TypeError(f"expected a tuple of body paths, got {value!r}")
    return tuple(_path(path) for path in value)


def _names(value: object) -> tuple[str, ...]:
    if isinstance(value, str):
        return (value,)
    if not isinstance(value, tuple | list) or not all(isinstance(name, str) for name in value):
        raise TypeError(f"expected a tuple of header names, got {value!r}")
    return tuple(value)


def _one_of(choices: tuple[str, ...]) -> Callable[[object, attrs.Attribute[Any], object], None]:
    def check(_: object, attribute: attrs.Attribute[Any], value: object) -> None:
        if value not in choices:
            raise ValueError(f"{attribute.name} must be one of {', '.join(choices)}; got {value!r}")

    return check


@frozen(cache_hash=True, repr=False)
class Convention:
    """How a list API pages, axis by axis; pass it as `paginator=` to pin it.

    Detection composes one from what a first page shows (`pager.convention` says which; the
    named presets of `CONVENTIONS` are shortcuts for common ones), and one can be written by
    hand, in code or in a configuration file. Body paths are tuples of keys, outermost first.
    A list ends on no continuation (null, absent or `""`), `more_at` false, `last_at` true, the
    total or page count reached, or an empty page; where several are present they must agree,
    and a list that ends short of its announced total is refused. Backward cursors (`prev`,
    `before`, ...) are never read as a way forward.
    """

    name: str = "composed"
    """Its name: a preset's key in `CONVENTIONS`, or `composed` for one detected or written by
    hand."""
    summary: str = ""
    """What its pages look like, in a few words (for `str()` and the documentation)."""
    example: str = ""
    """A one-line example of a page, for the documentation."""
    follow: Follow = attrs.field(default="none", validator=_one_of(FOLLOWS))
    """How the next request is formed: `url` follows a URL; `token`, `keyset` (the last item's id),
    `offset` or `page` send the next value in `param`; `none`: the list comes whole."""
    items: tuple[Path, ...] = attrs.field(default=CONTRACT_ITEMS, converter=_paths)
    """Where the item array may be, tried in order: `()` is the body itself, `"{resource}"` a key
    naming the resource in any spelling, `"*"` the one array among an object's values."""
    next_at: Path = attrs.field(default=(), converter=_path)
    """The body path of the continuation, at any depth (`("meta", "nextCursor")`)."""
    next_header: str | None = None
    """The response header holding the continuation instead; `Link` means its rel="next" target."""
    param: str | None = None
    """The request parameter the next token, id, offset or page number is sent in."""
    param_in: ParamIn = attrs.field(default="query", validator=_one_of(("query", "header")))
    """Where `param` goes: a `query` parameter, or a request `header`."""
    size_param: str | None = None
    """The request parameter for the page size."""
    more_at: Path = attrs.field(default=(), converter=_path)
    """A body path whose false value ends the list (`hasMore`)."""
    last_at: Path = attrs.field(default=(), converter=_path)
    """A body path whose true value ends the list (`isLast`)."""
    total_at: Path = attrs.field(default=(), converter=_path)
    """A body path of the list's total number of items."""
    total_header: str | None = None
    """A response header holding that total instead (`X-Total-Count`)."""
    pages_at: Path = attrs.field(default=(), converter=_path)
    """A body path of the list's number of pages."""
    pages_header: str | None = None
    """A response header holding that number instead."""
    position_at: Path = attrs.field(default=(), converter=_path)
    """Where the service echoes the offset or page number it served; it must equal the one asked."""
    size_at: Path = attrs.field(default=(), converter=_path)
    """Where the service echoes the page size it served."""
    first_page: int = 1
    """The number of the first page."""
    first_offset: int = 0
    """The offset of the first item (1 for SCIM's `startIndex`)."""
    ignore: tuple[Path, ...] = attrs.field(default=(), converter=_paths)
    """Body paths of continuation-like signals that are not this list's way forward (a second,
    redundant continuation), so they are not refused as unread."""
    ignore_headers: tuple[str, ...] = attrs.field(default=(), converter=_names)
    """Response headers of such signals."""
    links_from: LinksFrom = attrs.field(default="request", validator=_one_of(("request", "base")))
    """What a relative URL resolves against: the `request`'s URL, or the client's `base` URL (for
    services whose links are relative to their base path)."""

    def __str__(self) -> str:
        return f"{self.name}: {self.summary}" if self.summary else self.name

    def __repr__(self) -> str:
        """The Convention(...) expression that builds this value (fields left at their default
        are left out), so a printed convention can be pasted into code."""
        shown = [
            f"{field.name}={getattr(self, field.name)!r}"
            for field in attrs.fields(Convention)
            if field.name == "name" or getattr(self, field.name) != field.default
        ]
        return f"Convention({', '.join(shown)})"

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
    def read_headers(self) -> tuple[str, ...]:
        """Every response header this convention reads (continuation, total, page count)."""
        headers = (self.next_header, self.total_header, self.pages_header)
        return tuple(header for header in headers if header)

    @property
    def parameter_names(self) -> frozenset[str]:
        """The query parameters this convention sets (a filter may not use them)."""
        names = (self.param if self.param_in == "query" else None, self.size_param)
        return frozenset(name for name in names if name)


class PagingFault(Exception):
    """A page sequence that cannot be followed without losing or repeating items."""

    advice: str | None = None
    """What to pin so that the list can be followed, once told (it ends the message), or that
    nothing will; None while no advice has been given."""
    suggestion: Convention | None = None
    """The convention the advice names, when it names one (`PaginationError.suggestion`)."""


class Proof:
    """What a list proven page by page carries from one request to the next (the proof's state,
    or what a resume token kept of it): never sent, and no part of the request's identity.
    `ProvenPaginator` (`_paginators._proven`) makes and reads it."""

    __slots__ = ()


@frozen
class Shifts:
    """What proving an offset list's pages cost: how often the data moved under it.

    A list whose pages overlap (offset paging with a total) checks that each page continues
    the one before. All zero when the data did not change while the list was read.

    Args:
        realignments: Pages that did not start where expected but showed where the list
            stood (records were added or removed before them).
        rereads: Pages that did not, so the list read again from further back.
        restarts: Restarts from the first page (`on_shift="restart"`).
    """

    realignments: int = 0
    """Pages that did not start where expected but showed where the list stood."""
    rereads: int = 0
    """Pages that showed no record delivered before, so the list read again from further back."""
    restarts: int = 0
    """Restarts from the first page (`on_shift="restart"`)."""

    def __add__(self, other: Shifts) -> Shifts:
        return Shifts(
            self.realignments + other.realignments,
            self.rereads + other.rereads,
            self.restarts + other.restarts,
        )

    def __sub__(self, other: Shifts) -> Shifts:
        return Shifts(
            self.realignments - other.realignments,
            self.rereads - other.rereads,
            self.restarts - other.restarts,
        )

    def __bool__(self) -> bool:
        return bool(self.realignments or self.rereads or self.restarts)

    def __str__(self) -> str:
        parts = [
            (self.realignments, "realigned"),
            (self.rereads, "re-read"),
            (self.restarts, "restarted"),
        ]
        shown = [f"{count} {what}" for count, what in parts if count]
        return ", ".join(shown) or "no shift"


NO_SHIFTS: Final = Shifts()
"""The data did not move under the list (or it is not proven)."""


@frozen
class PageRequest:
    """One page request: query parameters added to the list call's, or a URL to follow instead.

    `url` serves conventions whose responses carry the next page's URL. `proof` is no part of
    a request's equality: it changes how its page is read, not what is sent.
    """

    params: tuple[tuple[str, str], ...] = ()
    """Query parameters added to the list call's filters."""
    url: URL | None = None
    """A URL to follow as given instead (the list call's filters are not added again)."""
    convention: Convention | None = None
    """The convention the list follows, once known (detection keeps it for the whole list)."""
    headers: tuple[tuple[str, str], ...] = ()
    """Request headers carrying the continuation (a convention with `param_in="header"`)."""
    probe: Probe | None = None
    """Set when this request tries a guess that the page it brings must confirm."""
    proof: Proof | None = attrs.field(default=None, eq=False, repr=False)
    """Set on the requests of a list proven page by page: where the proof stands."""


def request_key(request: PageRequest) -> Hashable:
    """A page request as the server sees it: fragment dropped, query order ignored."""
    url = request.url
    if url is None:
        return (request.convention, tuple(sorted(request.params)), request.headers)
    query = tuple(sorted(url.query.items()))
    return (url.scheme, url.host, url.port, url.path, query)


def request_identity(request: PageRequest) -> int:
    """A hash of a page request as the server sees it (`request_key`)."""
    return hash(request_key(request))


class FetchPage(Protocol):
    """How a list call gets one page: the response to a page request (the collection builds it
    from the sending layer; paging only calls it).

    `answered`, when given, is called once the service's answer is in, before it is read (a
    list reading ahead starts its next request then); the fetch then lets the loop turn
    (`let_requests_out`) so that request is sent while this page is decoded.
    """

    def __call__(
        self, request: PageRequest, answered: Callable[[], None] | None = None, /
    ) -> Coroutine[Any, Any, JSONResponse]: ...


class Probe(Struct, frozen=True):
    """A guess being tried by a page request: kept only if the page starts with a record the
    list's first page did not hold (a service that ignores the parameter answers with its first
    page; one that reads it otherwise, say a page number as an offset, with part of it), or
    echoes the very position the guess asked for (then a repeat is a list that moved, and the
    walk drops it). A kept offset or page-number guess is confirmed by the page after (see
    `confirming`): a page size of 2 reads page 2 and offset 2 alike.

    When it fails, `others` are tried in turn; when none is left, the list ends with what it
    has (`refusal` None: nothing announced more, as for a list of a round size with no paging
    signal) or stops with `refusal` as its PaginationError.
    """

    first_id: str
    """The id of the first record of the list's first page."""
    others: tuple[PageRequest, ...] = ()
    refusal: str | None = None
    unannounced: bool = False
    """The list's first page announced no paging: keeping a guess is told as a warning."""
    first_ids: tuple[str, ...] = ()
    """The ids of the page before, in order (not kept in resume tokens: a resumed probe knows
    only `first_id`)."""
    confirming: bool = False
    """This probe checks a kept offset or page-number guess on the page after the one that kept
    it: a page starting with a record of the page before refutes it for good (`refusal`), even
    one echoing its position (the echo says the service read the parameter, not how)."""
    announced_more: bool = False
    """The page before said more records follow (a more flag, a last flag, a total beyond it):
    an empty page the guess brings then refutes the guess instead of ending the list."""

    def refuted_by(self, record_id: str | None, *, position_echoed: bool) -> bool:
        """Whether a page the guess brought, starting with this record, shows the guess wrong."""
        if record_id == self.first_id:
            return True
        return record_id in self.first_ids and (self.confirming or not position_echoed)

    def next_try(self) -> PageRequest | None:
        """The request of the next guess, carrying the guesses after it; None when none is left
        (the list then ends, or stops with `refusal`)."""
        if not self.others:
            return None
        return attrs.evolve(self.others[0], probe=replace(self, others=self.others[1:]))


class Detection(Struct, frozen=True):
    """What the first page of a list shows about its paging."""

    convention: Convention
    """How page 1 is read (and the list followed, when nothing needs verifying)."""
    guesses: tuple[Convention, ...] = ()
    """Conventions to try in turn for page 2, each kept only if it brings new records."""
    unannounced: bool = False
    """Page 1 announced nothing: when no guess brings new records, the list ends there."""
    refusal: str | None = None
    """What to say when every guess fails (a continuation no parameter was found for)."""


@frozen
class PageResult:
    """What a paginator read from one page: its raw items and the request for the next page."""

    items: Sequence[Any]
    """The page's raw items (decoded JSON values), in order."""
    next: PageRequest | None
    """The request of the next page; None at the end of the list."""
    items_path: str = "$"
    """JSON path of the item array in the body, so a bad item is reported where it is."""
    convention: Convention | None = None
    """The convention the page was read by, when the paginator follows one."""
    total: int | None = None
    """The list's total number of items, when the page announces it (a list ending short of it
    is refused)."""
    notice: str | None = None
    """Something the client found out about the service's paging, told once as a warning."""
    deliver: Sequence[int] | None = None
    """Positions in `items` of the records the caller is owed, in order, when the paginator
    chose them (a proven page: the records that continue the list); None: every item, repeats
    of the ids of the page before skipped."""
    again: bool = False
    """The page shows nothing to deliver and the list reads `next` instead (a proven page read
    again from further back): nothing of it is handed over."""
    checked: bool = False
    """The paginator checked the page against the list itself and formed `next` from where the
    list stands (a proven page): `next` is not compared with the requests followed, nor the
    list's end with its total."""
    resume: Callable[[int], tuple[PageRequest, int] | None] | None = attrs.field(
        default=None, eq=False, repr=False
    )
    """Where the list continues after the page's first `consumed` raw items (from 0 to all),
    as a request and the items of its page to skip; None returned: where the list call began.
    None: at this page's request, those items skipped (at `next` once all are consumed)."""
    shifts: Shifts = NO_SHIFTS
    """What proving the page cost since the page before (a proven list)."""


class ListSize(Struct, frozen=True):
    """A list's size as one of its pages announces it: items, pages, or both."""

    items: int | None
    pages: int | None = None

    def __str__(self) -> str:
        parts = [f"{self.items} items"] if self.items is not None else []
        if self.pages is not None:
            parts.append(f"{self.pages} pages")
        return " in ".join(parts) or "no size"


class PagePlan(Struct, frozen=True):
    """The requests of the pages after one page, planned from the size the list announces."""

    requests: tuple[PageRequest, ...]
    """Up to the number asked, in list order; empty when the page is the last."""
    size: ListSize | None
    """The size the page announced: every later page must announce the same (None: the
    paginator proves each page continues the list itself, whatever its size)."""


@runtime_checkable
class Paginator(Protocol):
    """How a list is paged: pure functions from page responses to items and the next request."""

    def first(self, page_size: int | None) -> PageRequest:
        """Return the first page request of a list call.

        Args:
            page_size: Records per page to ask for; None: the service's default.
        """
        ...

    def read(self, request: PageRequest, response: JSONResponse) -> PageResult:
        """Return the items of the page answering `request` and the next page request.

        Args:
            request: The request the page answers.
            response: The page's decoded response.
        """
        ...


@runtime_checkable
class NamingPaginator(Paginator, Protocol):
    """A paginator that names the query parameters it sets, so that a filter of the same name is
    refused before any request."""

    @property
    def parameter_names(self) -> frozenset[str]:
        """The query parameters the paginator sets."""
        ...


@runtime_checkable
class FallingBackPaginator(Paginator, Protocol):
    """A paginator with first requests to try in turn when the service refuses the first one (a
    400 for a page-size parameter it does not know)."""

    def fallbacks(self, request: PageRequest) -> tuple[PageRequest, ...]:
        """Return the first requests to try, in turn, after `request` is refused."""
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
