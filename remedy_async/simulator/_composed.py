"""Serves one list request by a composed mode, a `Composition`.

Each continuation kind reads its place from `param` (a query parameter, or a request header
with `param=header:NAME`) and the page size from `size_param` (the composition's or the run's
default and maximum):

    none        the whole filtered list (streamed when long)
    url, token  an opaque signed cursor (`_cursors`): the page starts after the record it names
    number      an offset, handed out as the next page's (Pipedrive's `next_start`)
    page-token  a page number from `first_page`, handed out as the next page's (GitLab's)
    keyset      the id of the last record received
    offset      an offset the client computes
    page        a page number the client computes

While records follow, a handed-out kind gives the next page's value (a URL for `url`); on the
last page it is gone, unless the end keeps it (`flag`, `link-false`, `empty`), when it points
past the end, where every later page is empty and keeps pointing there. Totals, page counts,
offsets and page numbers count the visible records (`Dataset.hide`); cursors and keyset ids
resume after their place in list order. In echo mode the credential rides after every cursor
and in every URL. `_compose_layout` writes the values where the composition puts them.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from typing import Final

import attrs
from multidict import MultiDict, MultiMapping

from remedy_async import CONVENTIONS, Convention

from ._composition import COMPUTED, KEPT, PREFIX, Composition
from ._dataset import Dataset
from ._layout import ComposedLayout, PageValues
from ._listing import ListRequest, page_url, record_run, whole_list
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

END_INDEX: Final = 2**64 - 1
"""A cursor's place after every record: where the continuation of an empty list points."""
KEPT_LAYOUTS: Final = 4096
"""Layouts kept at most (a test run names a new composition per request, by header)."""
_PAGES: Final = frozenset({"page", "page-token"})
_OFFSETS: Final = frozenset({"offset", "number"})


def max_size(composition: Composition, run_maximum: int) -> int:
    """The largest page size a composed list serves: its own maximum, else the run's (or its
    own default, if that is larger)."""
    return composition.max_size or max(run_maximum, composition.default_size or 0)


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


@attrs.frozen
class ComposedPages:
    """Turns list requests into pages of their composition, with the run's page sizes."""

    dataset: Dataset = attrs.field(repr=False)
    cursors: CursorCodec = attrs.field(repr=False)
    page_size: int = 50
    max_page_size: int = 100
    base_path: str = ""
    _layouts: dict[tuple[Composition, str], ComposedLayout] = attrs.field(
        factory=dict, init=False, repr=False, eq=False
    )

    def page(self, request: ListRequest, composition: Composition) -> Payload:
        """The answer to `request` by `composition`."""
        layout = self.layout(composition, request.filters.resource)
        query, total = request.query, len(request.view)
        maximum = max_size(composition, self.max_page_size)
        if composition.follow == "none":
            check_contract_parameters(request.convention, query, self.max_page_size)
            whole = PageValues(None, None, False, total, 1 if total else 0, 0, total)
            prefix, suffix, headers = layout.render(whole)
            return whole_list(self.dataset, request, (prefix, suffix), headers)
        size = composition.default_size or min(self.page_size, maximum)
        if composition.size_param is not None:
            size = integer(query, composition.size_param, size, minimum=1, maximum=maximum)
        start, position = self._place(request, composition, size)
        check_contract_parameters(request.convention, query, self.max_page_size)
        stop = min(start + size, total)
        more = start + size < total
        reached = max(start, stop)
        token = None
        if composition.follow not in COMPUTED and (more or composition.ending in KEPT):
            token = self._token(request, composition, stop, reached, position)
        url = None
        if token is not None and layout.wants_url:
            url = self._url(request, composition, size, str(token))
        shown = position
        if composition.position_shows == "next":
            shown = position + 1 if composition.follow in _PAGES else reached
        values = PageValues(token, url, more, total, -(-total // size), shown, size)
        if composition.prev is not None and start > 0:
            values = self._with_prev(request, composition, layout, values, start, position)
        prefix, suffix, headers = layout.render(values)
        body = b"".join((prefix, record_run(self.dataset, request, start, stop), suffix))
        return Payload(200, body, headers=headers)

    def layout(self, composition: Composition, resource: str) -> ComposedLayout:
        """How `composition` lays out pages of `resource` (kept)."""
        key = (composition, resource)
        layout = self._layouts.get(key)
        if layout is None:
            if len(self._layouts) >= KEPT_LAYOUTS:
                self._layouts.clear()
            layout = self._layouts[key] = ComposedLayout.of(composition, resource)
        return layout

    def _place(self, request: ListRequest, composition: Composition, size: int) -> Place:
        convention, query, follow = request.convention, request.query, composition.follow
        if follow in _OFFSETS:
            return offset_place(convention, query)
        if follow in _PAGES:
            return page_place(convention, query, size)
        if follow == "keyset":
            return keyset_place(convention, query, self.dataset, request.filters, request.view)
        return cursor_place(convention, query, self.cursors, request.filters, request.view)

    def _token(
        self, request: ListRequest, composition: Composition, stop: int, reached: int, page: int
    ) -> str | int:
        """The next page's parameter value: a cursor after the last record served (or after
        the end), the next offset, or the next page number."""
        if composition.follow in _OFFSETS:
            return reached
        if composition.follow in _PAGES:
            return page + 1
        last = request.view[stop - 1] if stop > 0 else END_INDEX
        return self.cursors.encode(request.filters, last, request.echo)

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
            url = self._url(request, composition, size, None if target is None else str(target))
        return values._replace(prev_token=token, prev_url=url)

    def _marker(self, request: ListRequest, composition: Composition, index: int) -> str:
        """What names the place after record `index`: its cursor, or its id (keyset)."""
        if composition.follow == "keyset":
            return self.dataset.id_of(request.filters.resource, index)
        return self.cursors.encode(request.filters, index, request.echo)

    def _url(
        self, request: ListRequest, composition: Composition, size: int, value: str | None
    ) -> str:
        """The URL of the page `value` (in `param`) starts, in the composition's link form."""
        c = composition
        return page_url(
            request, c.param, c.size_param, size, value, links=c.links, base_path=self.base_path
        )
