"""Serves one list request by a paging convention, a row of `remedy_async.CONVENTIONS`.

Each `follow` kind reads its place from the row's `param` and page size from `size_param`:

    none    the whole filtered list (streamed when long); no parameters
    offset  `param` is the offset from 0
    page    `param` is the page number, counted from the row's `first_page`
    url     `param` is an opaque cursor; the next page's absolute URL (the request's filters,
            the size and the cursor) goes at `next_at` or in `next_header` (for `Link`:
            rel="next", and rel="first" on every page)
    token   `param` is an opaque cursor, given at `next_at` or in `next_header`; a row whose
            `param` is `page` hands out page numbers instead, its header empty on the last page
    keyset  `param` is the id of the last record received; `more_at` says whether more follow

Every page also writes what the row reads (see `_layout`): the filtered total, the page count,
the position and size served, `more_at` (false on the last page) and `last_at` (true on it).
On the last page `next_at` is null and a next header is left out. Cursors are signed
(`_cursors`), so a forged, garbled or re-targeted one is 400 invalid_cursor. In echo mode
the request's credential rides along: after every cursor, and as `echo=<credential>` in every
page URL handed out.

Pages are cut from the visible records (`Dataset.hide`/`show` make a list move mid-way):
totals, page counts, offsets and page numbers count those; a cursor or keyset id resumes after
the place in list order it names, so it neither repeats nor skips a visible record.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Final
from urllib.parse import quote, urlencode

import attrs
from multidict import MultiMapping
from yarl import URL

from remedy_async import Convention

from ._cursors import CursorCodec
from ._dataset import Dataset
from ._filters import PAGING_PARAMETERS, Filters
from ._layout import PageLayout, Signals
from ._positions import (
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
_NOT_CARRIED: Final = PAGING_PARAMETERS | {ECHO_PARAMETER}
"""Query parameters a page URL does not copy from the request."""


def page_layout(
    convention: Convention, resource: str, items_key: str, *, disguise: bool = False
) -> PageLayout:
    """How the pages of `resource` are laid out by `convention` (what the responder writes,
    and what the run's OpenAPI document describes)."""
    return PageLayout.of(
        convention, resource, items_key, disguise=disguise, blank_at_end=counts_pages(convention)
    )


@attrs.frozen
class ListRequest:
    """A list request with its convention chosen, its filters parsed and its matches found."""

    convention: Convention
    filters: Filters
    view: Sequence[int] = attrs.field(repr=lambda view: f"<{len(view)} matches>")
    query: MultiMapping[str] = attrs.field(repr=False)
    url: URL
    echo: str | None = attrs.field(default=None, repr=False)
    """The credential to echo into cursors and page URLs (echo mode), or None."""


@attrs.frozen
class ListResponder:
    """Turns list requests into pages, with the run's page sizes, items key and disguise."""

    dataset: Dataset = attrs.field(repr=False)
    cursors: CursorCodec = attrs.field(repr=False)
    items_key: str = "items"
    page_size: int = 100
    max_page_size: int = 1000
    disguise: bool = False
    _plans: dict[tuple[str, str], tuple[PageLayout, Reading]] = attrs.field(
        factory=dict, init=False, repr=False, eq=False
    )

    def page(self, request: ListRequest) -> Payload:
        """The answer to `request` by its convention."""
        convention = request.convention
        plan = self._plans.get((convention.name, request.filters.resource))
        layout, how = plan if plan is not None else self._plan(request)
        if how == "whole":
            check_contract_parameters(convention, request.query, self.max_page_size)
            return self._everything(request, layout)
        size = self.page_size
        if convention.size_param is not None:
            size = integer(
                request.query, convention.size_param, size, minimum=1, maximum=self.max_page_size
            )
        start, position = self._place(request, how, size)
        check_contract_parameters(convention, request.query, self.max_page_size)
        total = len(request.view)
        stop = min(start + size, total)
        more = start + size < total
        after = self._after(request, how, position, size, stop) if more else None
        signals = Signals(after, more, total, -(-total // size), position, size)
        prefix, suffix = layout.wrap(signals)
        body = b"".join((prefix, self._run(request, start, stop), suffix))
        if layout.header is None:
            return Payload(200, body)
        first = self._url(request, size, None) if layout.link else None
        return Payload(200, body, headers=layout.headers(signals, first))

    def _plan(self, request: ListRequest) -> tuple[PageLayout, Reading]:
        """How `request`'s convention lays out and reads pages of its resource (kept)."""
        convention, resource = request.convention, request.filters.resource
        layout = page_layout(convention, resource, self.items_key, disguise=self.disguise)
        plan = self._plans[convention.name, resource] = (layout, reading(convention))
        return plan

    def _place(self, request: ListRequest, how: Reading, size: int) -> Place:
        convention, query = request.convention, request.query
        if how in ("cursor", "url"):
            return cursor_place(convention, query, self.cursors, request.filters, request.view)
        if how == "offset":
            return offset_place(convention, query)
        if how == "keyset":
            return keyset_place(convention, query, self.dataset, request.filters, request.view)
        return page_place(convention, query, size)

    def _after(
        self, request: ListRequest, how: Reading, position: int, size: int, stop: int
    ) -> str | int:
        """What the page after this one is asked by: a token, URL, offset, page number or id."""
        if how == "cursor":
            return self.cursors.encode(request.filters, request.view[stop - 1], request.echo)
        if how == "url":
            cursor = self.cursors.encode(request.filters, request.view[stop - 1], request.echo)
            return self._url(request, size, cursor)
        if how == "offset":
            return stop
        if how == "page":
            return position + 1
        if how == "page-token":
            return str(position + 1)
        return self.dataset.id_of(request.filters.resource, request.view[stop - 1])

    def _everything(self, request: ListRequest, layout: PageLayout) -> Payload:
        view, filters = request.view, request.filters
        total = len(view)
        signals = Signals(None, False, total, 1 if total else 0, 0, total)
        prefix, suffix = layout.wrap(signals)
        headers = layout.headers(signals)
        if total <= STREAM_BATCH:
            run = self.dataset.encode_run(filters, view, 0, total)
            return Payload(200, b"".join((prefix, run, suffix)), headers=headers)

        def chunks() -> Iterator[bytes]:
            encode, resource = self.dataset.encode, filters.resource
            yield prefix
            for start in range(0, total, STREAM_BATCH):
                batch = [encode(resource, index) for index in view[start : start + STREAM_BATCH]]
                yield (b"," if start else b"") + b",".join(batch)
            yield suffix

        return Payload(200, chunks=chunks, headers=headers)

    def _run(self, request: ListRequest, start: int, stop: int) -> bytes:
        if start >= stop:
            return b""
        return self.dataset.encode_run(request.filters, request.view, start, stop)

    def _url(self, request: ListRequest, size: int, cursor: str | None) -> str:
        """The absolute URL of a page: the request's filters, the page size and the cursor
        (and the echoed credential, in echo mode)."""
        convention = request.convention
        pairs = [(name, value) for name, value in request.query.items() if name not in _NOT_CARRIED]
        if convention.size_param is not None:
            pairs.append((convention.size_param, str(size)))
        if cursor is not None and convention.param is not None:
            pairs.append((convention.param, cursor))
        if request.echo is not None:
            pairs.append((ECHO_PARAMETER, request.echo))
        base = str(request.url.with_query(None).with_fragment(None))
        return f"{base}?{urlencode(pairs, quote_via=quote, safe='')}"
