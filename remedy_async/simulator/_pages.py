"""Serves list pages: a list request in, its page out, by its paging's composition.

`ListResponder` is the simulator's one page server. A request names its paging (the run's, or
the `X-Simulator-Paging` header's): a row of `remedy_async.CONVENTIONS` (`list_paging`), which is
a name for the composition that serves it (`_rows`: the row's items, signals and continuation
as composition axes, disguised if the run says so), or a composed mode `compose:...` (a
`Composition`). Every page is cut and written one way: the place the request wants (`_places`:
an offset, a page number, a signed cursor or the last id received, and the page size), the page
cut from the visible records, and the writing left to the composition's layout (`_layout`).

A list reads its place from `param` (a query parameter, or a request header with
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

from ._composition import PREFIX, Composition
from ._dataset import Dataset
from ._layout import PageLayout, PageValues
from ._matching import PAGING_PARAMETERS, Filters
from ._places import (
    CursorCodec,
    Place,
    check_contract_parameters,
    cursor_place,
    integer,
    keyset_place,
    offset_place,
    page_place,
)
from ._responses import Payload
from ._rows import served

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
"""Continuation kinds read as page numbers."""
_OFFSETS: Final = frozenset({"offset", "number"})
"""Continuation kinds read as offsets."""


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
    """Turns list requests into pages, by the composition of their paging, with the run's page
    sizes, items key and disguise."""

    dataset: Dataset = attrs.field(repr=False)
    cursors: CursorCodec = attrs.field(repr=False)
    items_key: str = "data"
    page_size: int = 50
    max_page_size: int = 100
    disguise: bool = False
    base_path: str = ""
    _rows: dict[tuple[str, str], PageLayout] = attrs.field(
        factory=dict, init=False, repr=False, eq=False
    )
    _layouts: dict[tuple[Composition, str], PageLayout] = attrs.field(
        factory=dict, init=False, repr=False, eq=False
    )

    def page(self, request: ListRequest) -> Payload:
        """The answer to `request`, laid out by its paging's composition."""
        layout = self._rows.get((request.convention.name, request.filters.resource))
        if layout is None or request.composition is not None:
            layout = self._layout(request)
        composition = layout.composition
        query, total = request.query, len(request.view)
        if composition.follow == "none":
            check_contract_parameters(request.convention, query, self.max_page_size)
            whole = PageValues(None, None, False, total, 1 if total else 0, 0, total)
            prefix, suffix, headers = layout.render(whole)
            return whole_list(self.dataset, request, (prefix, suffix), headers)
        size = self._size(request, layout.default_size, layout.max_size)
        start, position = self._place(request, composition.follow, size)
        check_contract_parameters(request.convention, query, self.max_page_size)
        stop = min(start + size, total)
        more = start + size < total
        reached = max(start, stop)
        token = None
        if layout.hands_out and (more or layout.keeps_end):
            token = self._token(request, composition, stop, reached, position)
        url = None
        if token is not None and layout.wants_url:
            url = self._url(request, size, str(token), composition.links)
        shown = position
        if composition.position_shows == "next":
            shown = position + 1 if composition.follow in _PAGES else reached
        first = None
        if composition.start is not None:
            first = self._url(request, size, None, composition.links)
        pages = -(-total // size)
        values = PageValues(token, url, more, total, pages, shown, size, None, None, first)
        if composition.prev is not None and start > 0:
            values = self._with_prev(request, composition, layout, values, start, position)
        prefix, suffix, headers = layout.render(values)
        body = b"".join((prefix, record_run(self.dataset, request, start, stop), suffix))
        return Payload(200, body, headers=headers)

    def _layout(self, request: ListRequest) -> PageLayout:
        """How the request's paging lays out pages of its resource (kept): a composed mode's
        composition, or the one a named convention stands for."""
        resource = request.filters.resource
        composition = request.composition
        if composition is not None:
            key = (composition, resource)
            layout = self._layouts.get(key)
            if layout is None:
                if len(self._layouts) >= KEPT_LAYOUTS:
                    self._layouts.clear()
                layout = self._layouts[key] = self._laid_out(composition, resource)
            return layout
        convention = request.convention
        layout = self._rows.get((convention.name, resource))
        if layout is None:
            how = served(convention, self.items_key, disguise=self.disguise)
            layout = self._laid_out(how.composition, resource, how.renamed_headers)
            self._rows[convention.name, resource] = layout
        return layout

    def _laid_out(
        self,
        composition: Composition,
        resource: str,
        renamed_headers: tuple[tuple[str, str], ...] = (),
    ) -> PageLayout:
        """The layout of `composition` for `resource`, with this run's page sizes."""
        maximum = max_size(composition, self.max_page_size)
        default = composition.default_size or min(self.page_size, maximum)
        return PageLayout.of(composition, resource, renamed_headers, sizes=(default, maximum))

    def _size(self, request: ListRequest, default: int, maximum: int) -> int:
        """The page size the request asks for in its `size_param`, within 1 to `maximum`."""
        size_param = request.convention.size_param
        if size_param is None:
            return default
        return integer(request.query, size_param, default, minimum=1, maximum=maximum)

    def _place(self, request: ListRequest, kind: str, size: int) -> Place:
        """Where the page starts, read as the continuation `kind` says:
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
        layout: PageLayout,
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
