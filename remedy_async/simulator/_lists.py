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

A composed mode (`Composition`, `paging="compose:..."`) is served by `_composed` instead.

Pages are cut from the visible records (`Dataset.hide`/`show` make a list move mid-way):
totals, page counts, offsets and page numbers count those; a cursor or keyset id resumes after
the place in list order it names, so it neither repeats nor skips a visible record.
"""

from __future__ import annotations

import attrs

from remedy_async import Convention

from ._composed import ComposedPages
from ._dataset import Dataset
from ._layout import PageLayout, Signals
from ._listing import ECHO_PARAMETER, ListRequest, page_url, record_run, whole_list
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

__all__ = ["ECHO_PARAMETER", "ListRequest", "ListResponder", "page_layout"]


def page_layout(
    convention: Convention, resource: str, items_key: str, *, disguise: bool = False
) -> PageLayout:
    """How the pages of `resource` are laid out by `convention` (what the responder writes,
    and what the run's OpenAPI document describes)."""
    return PageLayout.of(
        convention, resource, items_key, disguise=disguise, blank_at_end=counts_pages(convention)
    )


@attrs.frozen
class ListResponder:
    """Turns list requests into pages, with the run's page sizes, items key and disguise."""

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
    _composed: ComposedPages = attrs.field(init=False, repr=False, eq=False)

    @_composed.default
    def _composed_pages(self) -> ComposedPages:
        return ComposedPages(
            self.dataset, self.cursors, self.page_size, self.max_page_size, self.base_path
        )

    def page(self, request: ListRequest) -> Payload:
        """The answer to `request` by its convention, or by its composition."""
        if request.composition is not None:
            return self._composed.page(request, request.composition)
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
        body = b"".join((prefix, record_run(self.dataset, request, start, stop), suffix))
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
        total = len(request.view)
        signals = Signals(None, False, total, 1 if total else 0, 0, total)
        return whole_list(self.dataset, request, layout.wrap(signals), layout.headers(signals))

    def _url(self, request: ListRequest, size: int, cursor: str | None) -> str:
        """The absolute URL of a page: the request's filters, the page size and the cursor
        (and the echoed credential, in echo mode)."""
        convention = request.convention
        return page_url(request, convention.param, convention.size_param, size, cursor)
