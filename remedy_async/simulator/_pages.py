"""Serves list pages: a list request in, its page out, by a paging convention or a composed mode.

`ListResponder` is the simulator's one page server. A request names its paging (the run's, or
the `X-Simulator-Paging` header's): a row of `remedy_async.CONVENTIONS` (`list_paging`), or a
composed mode `compose:...` (a `Composition`). Both read where the request wants to be the same
way (`_places`: an offset, a page number, a signed cursor or the last id received, and the page
size), cut the page from the visible records, and leave the writing to a layout (`_layout`).

A named convention's `follow` kind reads its place from the row's `param` and page size from
`size_param`:

    none    the whole filtered list (streamed when long); no parameters
    offset  `param` is the offset from 0
    page    `param` is the page number, counted from the row's `first_page`
    url     `param` is an opaque cursor; the next page's absolute URL (the request's filters,
            the size and the cursor) goes at `next_at` or in `next_header` (for `Link`:
            rel="next", and rel="first" on every page)
    token   `param` is an opaque cursor, given at `next_at` or in `next_header`; a row whose
            `param` is `page` hands out page numbers instead, its header empty on the last page
    keyset  `param` is the id of the last record received; `more_at` says whether more follow

Every page also writes what the row reads: the filtered total, the page count, the position and
size served, `more_at` (false on the last page) and `last_at` (true on it). On the last page
`next_at` is null and a next header is left out.

A composed mode reads its place from `param` (a query parameter, or a request header with
`param=header:NAME`) and the page size from `size_param` (the composition's or the run's default
and maximum):

    none        the whole filtered list (streamed when long)
    url, token  an opaque signed cursor: the page starts after the record it names
    number      an offset, handed out as the next page's (Pipedrive's `next_start`)
    page-token  a page number from `first_page`, handed out as the next page's (GitLab's)
    keyset      the id of the last record received
    offset      an offset the client computes
    page        a page number the client computes

While records follow, a handed-out kind gives the next page's value (a URL for `url`); on the
last page it is gone, unless the end keeps it (`flag`, `link-false`, `empty`), when it points
past the end, where every later page is empty and keeps pointing there.

Pages are cut from the visible records (`Dataset.hide`/`show` make a list move mid-way):
totals, page counts, offsets and page numbers count those; a cursor or keyset id resumes after
the place in list order it names, so it neither repeats nor skips a visible record. Cursors are
signed, so a forged, garbled or re-targeted one is 400 invalid_cursor. In echo mode the
request's credential rides along: after every cursor, and as `echo=<credential>` in every page
URL handed out. A page URL keeps the request's filters (never its paging parameters or the
echoed credential), adds the mode's own paging parameters; it is absolute, or written from the
root (`/base/v1/...`), or from the run's base path (`/v1/...`) for composed modes that say so.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping, Sequence
from functools import lru_cache
from typing import Final, Literal
from urllib.parse import quote, urlencode

import attrs
from multidict import MultiDict, MultiMapping
from yarl import URL

from remedy_async import CONVENTIONS, Convention

from ._composition import COMPUTED, KEPT, PREFIX, Composition
from ._dataset import Dataset
from ._layout import ComposedLayout, PageLayout, PageValues, Signals
from ._matching import PAGING_PARAMETERS, Filters
from ._places import (
    CursorCodec,
    Place,
    Reading,
    check_contract_parameters,
    counts_pages,
    cursor_place,
    integer,
    keyset_place,
    offset_place,
    page_place,
    reading,
)
from ._responses import Payload

STREAM_BATCH: Final = 1000
"""Records per chunk when a whole list is streamed; shorter lists are sent in one piece."""
ECHO_PARAMETER: Final = "echo"
"""The query parameter that echo mode adds to page URLs and redirects (and then ignores)."""
NOT_CARRIED: Final = PAGING_PARAMETERS | {ECHO_PARAMETER}
"""Query parameters a page URL does not copy from the request."""
LinkForm = Literal["absolute", "root", "base"]
END_INDEX: Final = 2**64 - 1
"""A cursor's place after every record: where the continuation of an empty list points."""
KEPT_LAYOUTS: Final = 4096
"""Layouts kept at most (a test run names a new composition per request, by header)."""
_PAGES: Final = frozenset({"page", "page-token"})
"""Places read as page numbers (a composition's kinds, and a named row's readings)."""
_OFFSETS: Final = frozenset({"offset", "number"})
"""Places read as offsets (a composition's kinds, and a named row's reading)."""


@attrs.frozen
class ListRequest:
    """A list request with its convention chosen, its filters parsed and its matches found.

    For a composed mode, `composition` is set and `convention` is its `Composition.convention`.
    """

    convention: Convention
    filters: Filters
    view: Sequence[int] = attrs.field(repr=lambda view: f"<{len(view)} matches>")
    query: MultiMapping[str] = attrs.field(repr=False)
    url: URL
    echo: str | None = attrs.field(default=None, repr=False)
    """The credential to echo into cursors and page URLs (echo mode), or None."""
    composition: Composition | None = None


@lru_cache(maxsize=256)
def composition_of(name: str) -> Composition | None:
    """The composition a paging name stands for (`compose:...`), or None for another name;
    ValueError naming the bad part of a bad spec."""
    return Composition.parse(name) if name.startswith(PREFIX) else None


ListPaging = tuple[Convention, Composition | None, MultiMapping[str]]
"""How a list request is paged: the convention that reads it, its composition (None for a named
convention), and its query as that paging reads it."""


def list_paging(name: str, query: MultiMapping[str], headers: Mapping[str, str]) -> ListPaging:
    """How a request naming paging `name` (a convention of `remedy_async.CONVENTIONS`, or
    `compose:...`) is paged; ValueError for a name that is neither, naming the bad part."""
    convention = CONVENTIONS.get(name)
    if convention is not None:
        return convention, None, query
    composition = composition_of(name)
    if composition is None:
        known = ", ".join(CONVENTIONS)
        raise ValueError(f"must be one of {known} or compose:...; got {name!r}")
    return composition.convention, composition, composed_query(composition, query, headers)


def composed_query(
    composition: Composition, query: MultiMapping[str], headers: Mapping[str, str]
) -> MultiMapping[str]:
    """The request's query as a composition reads it: with `param=header:NAME`, the request
    header's value stands in the query under NAME (and a query parameter of that name does
    not count)."""
    param = composition.param
    if composition.param_in != "header" or param is None:
        return query
    merged = MultiDict(query)
    merged.popall(param, None)
    value = headers.get(param)
    if value is not None:
        merged.add(param, value)
    return merged


def max_size(composition: Composition, run_maximum: int) -> int:
    """The largest page size a composed list serves: its own maximum, else the run's (or its
    own default, if that is larger)."""
    return composition.max_size or max(run_maximum, composition.default_size or 0)


def page_layout(
    convention: Convention, resource: str, items_key: str, *, disguise: bool = False
) -> PageLayout:
    """How the pages of `resource` are laid out by `convention` (what the responder writes,
    and what the run's OpenAPI document describes)."""
    return PageLayout.of(
        convention, resource, items_key, disguise=disguise, blank_at_end=counts_pages(convention)
    )


def page_url(
    request: ListRequest,
    param: str | None,
    size_param: str | None,
    size: int,
    value: str | None,
    *,
    links: LinkForm = "absolute",
    base_path: str = "",
) -> str:
    """The URL of the page `value` (in `param`) starts: the request's filters (never a paging
    parameter), the page size in `size_param`, the value, and the echoed credential in echo
    mode; written as `links` says (`base`: relative to the run's `base_path`)."""
    own = (param, size_param)
    pairs = [
        (name, given)
        for name, given in request.query.items()
        if name not in NOT_CARRIED and name not in own
    ]
    if size_param is not None:
        pairs.append((size_param, str(size)))
    if value is not None and param is not None:
        pairs.append((param, value))
    if request.echo is not None:
        pairs.append((ECHO_PARAMETER, request.echo))
    url = request.url.with_query(None).with_fragment(None)
    if links == "absolute":
        base = str(url)
    elif links == "root" or not base_path:
        base = url.raw_path
    else:
        base = url.raw_path.removeprefix(base_path)
    return f"{base}?{urlencode(pairs, quote_via=quote, safe='')}"


def whole_list(
    dataset: Dataset,
    request: ListRequest,
    wrapping: tuple[bytes, bytes],
    headers: Mapping[str, str],
) -> Payload:
    """Every record of the list between `wrapping`'s prefix and suffix, streamed when long."""
    view, filters = request.view, request.filters
    prefix, suffix = wrapping
    total = len(view)
    if total <= STREAM_BATCH:
        run = dataset.encode_run(filters, view, 0, total)
        return Payload(200, b"".join((prefix, run, suffix)), headers=headers)

    def chunks() -> Iterator[bytes]:
        encode, resource = dataset.encode, filters.resource
        yield prefix
        for start in range(0, total, STREAM_BATCH):
            batch = [encode(resource, index) for index in view[start : start + STREAM_BATCH]]
            yield (b"," if start else b"") + b",".join(batch)
        yield suffix

    return Payload(200, chunks=chunks, headers=headers)


def record_run(dataset: Dataset, request: ListRequest, start: int, stop: int) -> bytes:
    """The records `start` to `stop` of the list, comma-separated (empty past the end)."""
    if start >= stop:
        return b""
    return dataset.encode_run(request.filters, request.view, start, stop)


@attrs.frozen
class ListResponder:
    """Turns list requests into pages, by their convention or their composition, with the
    run's page sizes, items key and disguise."""

    dataset: Dataset = attrs.field(repr=False)
    cursors: CursorCodec = attrs.field(repr=False)
    items_key: str = "data"
    page_size: int = 50
    max_page_size: int = 100
    disguise: bool = False
    base_path: str = ""
    _plans: dict[tuple[str, str], tuple[PageLayout, Reading]] = attrs.field(
        factory=dict, init=False, repr=False, eq=False
    )
    _layouts: dict[tuple[Composition, str], ComposedLayout] = attrs.field(
        factory=dict, init=False, repr=False, eq=False
    )

    def page(self, request: ListRequest) -> Payload:
        """The answer to `request` by its convention, or by its composition."""
        if request.composition is not None:
            return self._composed_page(request, request.composition)
        convention = request.convention
        plan = self._plans.get((convention.name, request.filters.resource))
        layout, how = plan if plan is not None else self._plan(request)
        if how == "whole":
            check_contract_parameters(convention, request.query, self.max_page_size)
            return self._everything(request, layout)
        size = self._size(request, self.page_size, self.max_page_size)
        start, position = self._place(request, how, size)
        check_contract_parameters(convention, request.query, self.max_page_size)
        total = len(request.view)
        stop = min(start + size, total)
        more = start + size < total
        after = self._after(request, how, position, size, stop) if more else None
        signals = Signals(after, more, total, -(-total // size), position, size)
        prefix, suffix = layout.wrap(signals)
        body = b"".join((prefix, record_run(self.dataset, request, start, stop), suffix))
        if layout.header is None:
            return Payload(200, body)
        first = self._url(request, size, None) if layout.link else None
        return Payload(200, body, headers=layout.headers(signals, first))

    def _size(self, request: ListRequest, default: int, maximum: int) -> int:
        """The page size the request asks for in its `size_param`, within 1 to `maximum`."""
        size_param = request.convention.size_param
        if size_param is None:
            return default
        return integer(request.query, size_param, default, minimum=1, maximum=maximum)

    def _place(self, request: ListRequest, kind: str, size: int) -> Place:
        """Where the page starts, read as `kind` says (a row's reading, a composition's kind):
        an offset, a page number, the last id received, or else a cursor."""
        convention, query = request.convention, request.query
        if kind in _OFFSETS:
            return offset_place(convention, query)
        if kind in _PAGES:
            return page_place(convention, query, size)
        filters, view = request.filters, request.view
        order = self.dataset.order_key(filters.resource)
        if kind == "keyset":
            return keyset_place(convention, query, self.dataset, filters, view, order)
        return cursor_place(convention, query, self.cursors, filters, view, order)

    def _cursor(self, request: ListRequest, index: int) -> str:
        """The cursor that resumes after record `index` (END_INDEX: after every record), with
        the time of the record's last change in update order."""
        order = self.dataset.order_key(request.filters.resource)
        if order is None:
            return self.cursors.encode(request.filters, index, request.echo)
        stamp = math.inf if index == END_INDEX else order(index)[0]
        return self.cursors.encode(request.filters, index, request.echo, stamp=stamp)

    def _url(
        self, request: ListRequest, size: int, value: str | None, links: LinkForm = "absolute"
    ) -> str:
        """The URL of the page `value` (in the convention's `param`) starts: the request's
        filters, the page size and the value (and the echoed credential, in echo mode)."""
        convention = request.convention
        return page_url(
            request,
            convention.param,
            convention.size_param,
            size,
            value,
            links=links,
            base_path=self.base_path,
        )

    # A named convention's pages.

    def _plan(self, request: ListRequest) -> tuple[PageLayout, Reading]:
        """How `request`'s convention lays out and reads pages of its resource (kept)."""
        convention, resource = request.convention, request.filters.resource
        layout = page_layout(convention, resource, self.items_key, disguise=self.disguise)
        plan = self._plans[convention.name, resource] = (layout, reading(convention))
        return plan

    def _after(
        self, request: ListRequest, how: Reading, position: int, size: int, stop: int
    ) -> str | int:
        """What the page after this one is asked by: a token, URL, offset, page number or id."""
        if how == "cursor":
            return self._cursor(request, request.view[stop - 1])
        if how == "url":
            cursor = self._cursor(request, request.view[stop - 1])
            return self._url(request, size, cursor)
        if how == "offset":
            return stop
        if how == "page":
            return position + 1
        if how == "page-token":
            return str(position + 1)
        return self.dataset.id_of(request.filters.resource, request.view[stop - 1])

    def _everything(self, request: ListRequest, layout: PageLayout) -> Payload:
        total = len(request.view)
        signals = Signals(None, False, total, 1 if total else 0, 0, total)
        return whole_list(self.dataset, request, layout.wrap(signals), layout.headers(signals))

    # A composed mode's pages.

    def _composed_page(self, request: ListRequest, composition: Composition) -> Payload:
        """The answer to `request` by `composition`."""
        layout = self._composed_layout(composition, request.filters.resource)
        query, total = request.query, len(request.view)
        maximum = max_size(composition, self.max_page_size)
        if composition.follow == "none":
            check_contract_parameters(request.convention, query, self.max_page_size)
            whole = PageValues(None, None, False, total, 1 if total else 0, 0, total)
            prefix, suffix, headers = layout.render(whole)
            return whole_list(self.dataset, request, (prefix, suffix), headers)
        size = self._size(
            request, composition.default_size or min(self.page_size, maximum), maximum
        )
        start, position = self._place(request, composition.follow, size)
        check_contract_parameters(request.convention, query, self.max_page_size)
        stop = min(start + size, total)
        more = start + size < total
        reached = max(start, stop)
        token = None
        if composition.follow not in COMPUTED and (more or composition.ending in KEPT):
            token = self._token(request, composition, stop, reached, position)
        url = None
        if token is not None and layout.wants_url:
            url = self._url(request, size, str(token), composition.links)
        shown = position
        if composition.position_shows == "next":
            shown = position + 1 if composition.follow in _PAGES else reached
        values = PageValues(token, url, more, total, -(-total // size), shown, size)
        if composition.prev is not None and start > 0:
            values = self._with_prev(request, composition, layout, values, start, position)
        prefix, suffix, headers = layout.render(values)
        body = b"".join((prefix, record_run(self.dataset, request, start, stop), suffix))
        return Payload(200, body, headers=headers)

    def _composed_layout(self, composition: Composition, resource: str) -> ComposedLayout:
        """How `composition` lays out pages of `resource` (kept)."""
        key = (composition, resource)
        layout = self._layouts.get(key)
        if layout is None:
            if len(self._layouts) >= KEPT_LAYOUTS:
                self._layouts.clear()
            layout = self._layouts[key] = ComposedLayout.of(composition, resource)
        return layout

    def _token(
        self, request: ListRequest, composition: Composition, stop: int, reached: int, page: int
    ) -> str | int:
        """The next page's parameter value: a cursor after the last record served (or after
        the end), the next offset, or the next page number."""
        if composition.follow in _OFFSETS:
            return reached
        if composition.follow in _PAGES:
            return page + 1
        return self._cursor(request, request.view[stop - 1] if stop > 0 else END_INDEX)

    def _with_prev(
        self,
        request: ListRequest,
        composition: Composition,
        layout: ComposedLayout,
        values: PageValues,
        start: int,
        page: int,
    ) -> PageValues:
        """`values` with the backward continuation of a page after the first: the bare value
        marks where this page starts (a cursor or id of the record before it, the previous
        offset or page number); the URL asks for the previous page."""
        follow, view, size = composition.follow, request.view, values.size
        before = max(0, start - size)
        if follow in _PAGES:
            token: str | int = page - 1
            target: str | int | None = page - 1
        elif follow in _OFFSETS:
            token = target = before
        else:
            token = self._marker(request, composition, view[start - 1])
            target = self._marker(request, composition, view[before - 1]) if before else None
        url = None
        if layout.wants_prev_url:
            value = None if target is None else str(target)
            url = self._url(request, size, value, composition.links)
        return values._replace(prev_token=token, prev_url=url)

    def _marker(self, request: ListRequest, composition: Composition, index: int) -> str:
        """What names the place after record `index`: its cursor, or its id (keyset)."""
        if composition.follow == "keyset":
            return self.dataset.id_of(request.filters.resource, index)
        return self._cursor(request, index)
