"""One generic collection of records, configured per resource by path segment and model type."""

from __future__ import annotations

import time
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable
from functools import partial
from typing import TYPE_CHECKING, Any, Generic, TypeVar, Unpack, overload

import attrs
from yarl import URL

from ._bulk import BulkGet, GetResult, IdSource
from ._filters import (
    EndpointFilters,
    RemediationTargetFilters,
    ScopeFilters,
    VulnerabilityFindingFilters,
    check_filters,
)
from ._http import JSONResponse, Request, Response
from ._models import Endpoint, RemediationTarget, Scope, VulnerabilityFinding
from ._options import RequestOptions
from ._paging._call import ListCall, ListLimits, check_count
from ._paging._follow import paginator_name
from ._paging._pager import Pager
from ._paging._protocol import Convention, PageRequest, Paginator
from ._paging._resume import ResumePoint, decode_token, filters_fingerprint
from ._redact import shown_url
from ._resources import Resource
from ._sending._events import ClientEvent, Events
from ._wire._ids import id_segment
from ._wire._json import decode_json
from ._wire._naming import Naming
from ._wire._query import ExtraParams, FilterValue, encode_extra_params, encode_filters
from ._wire._record_reader import NamingSetting, RecordReader
from ._wire._to_model import record_from

if TYPE_CHECKING:
    from ._changes._feed import ChangeFeed, StateArg
    from ._changes._values import PassResult

T = TypeVar("T")

Send = Callable[[Request, RequestOptions | None], Awaitable[Response]]


LIST_KEYWORDS = (
    "page_size",
    "max_items",
    "resume_token",
    "prefetch",
    "concurrency",
    "options",
    "extra_params",
)
"""`list()`'s own keywords, suggested when a misspelt filter is closest to one of them."""


class ResourceCollection(Generic[T]):
    """Reads one kind of record: `get` one by id, `list` many lazily."""

    def __init__(
        self,
        resource: Resource[T],
        *,
        base_url: URL,
        send: Send,
        secrets: tuple[str, ...],
        paginator: Paginator,
        events: Events | None = None,
        trusted_origins: frozenset[str] = frozenset(),
        naming: NamingSetting = "auto",
        since_filter: str | None = None,
    ) -> None:
        self.resource = resource
        self.since_filter = since_filter
        """The update-time range filter `changes()` narrows passes with (None: full passes)."""
        self.url = base_url.joinpath("v1", resource.segment)
        self._url_text = str(self.url)
        self._base_url = base_url
        self.paginator = paginator
        self._send = send
        self._secrets = secrets
        self._events = events
        self._trusted_origins = trusted_origins
        self._reader = RecordReader(resource.model, naming, resource.attribute)
        self._get_name = f"{resource.attribute}.get"
        self._list_name = f"{resource.attribute}.list"
        self._page_name = f"{resource.attribute}.page"

    @property
    def naming(self) -> Naming:
        """How this resource's records spell their keys: camelCase by contract until records
        in another naming have been read (with `naming="auto"`), or the pinned naming."""
        return self._reader.naming

    def __repr__(self) -> str:
        model = self.resource.model.__name__
        return f"<ResourceCollection {self.resource.attribute} of {model} at {self.url}>"

    async def get(self, resource_id: str | int, *, options: RequestOptions | None = None) -> T:
        """Return the record with this id; raises NotFoundError when there is none.

        The id is sent as exactly one percent-encoded path segment, whatever it contains.
        """
        url = URL(f"{self._url_text}/{id_segment(resource_id)}", encoded=True)
        if options is not None and options.extra_params:
            url = url.extend_query(options.extra_params)
        events = self._events
        if events is not None and events.active:
            return await events.call(
                self._get_name, "GET", self._shown(url), self._read(url, options)
            )
        response = await self._send(Request("GET", url), options)  # as _read, one frame less
        return record_from(
            self.resource.model, response, secrets=self._secrets, read=self._reader.read
        )

    async def _read(self, url: URL, options: RequestOptions | None) -> T:
        """A get's request and the record it answers with."""
        response = await self._send(Request("GET", url), options)
        return record_from(
            self.resource.model, response, secrets=self._secrets, read=self._reader.read
        )

    def _shown(self, url: URL) -> str:
        return shown_url(url, self._secrets, query=True)

    def get_many(
        self,
        ids: IdSource,
        *,
        concurrency: int = 16,
        ordered: bool = True,
        dedupe_window: int = 10_000,
        options: RequestOptions | None = None,
    ) -> AsyncIterator[GetResult[T]]:
        """Fetch many records by id concurrently; yields one GetResult per input id.

        `ids` may be any iterable or async iterable and is read lazily, so memory stays bounded
        by `concurrency` (plus `dedupe_window` recent results). A duplicated id is fetched once
        while in flight or among the recent results. An unknown id gives a result holding
        NotFoundError; an invalid one, its ValueError or TypeError. `ordered=False` yields
        results as they complete. Leaving the loop or cancelling cancels the fetches in flight.
        """
        check_count("concurrency", concurrency, 1)
        check_count("dedupe_window", dedupe_window, 0)
        bulk: BulkGet[T] = BulkGet(
            partial(self.get, options=options),
            ids,
            concurrency=concurrency,
            dedupe_window=dedupe_window,
        )
        results = bulk.ordered() if ordered else bulk.as_completed()
        events = self._events
        if events is not None and events.active:
            name = f"{self.resource.attribute}.get_many"
            return events.iteration(name, "GET", self._url_text, results)
        return results

    @overload
    def list(
        self: ResourceCollection[Endpoint],
        *,
        page_size: int | None = None,
        max_items: int | None = None,
        resume_token: str | None = None,
        prefetch: int = 0,
        concurrency: int = 1,
        options: RequestOptions | None = None,
        extra_params: ExtraParams | None = None,
        **filters: Unpack[EndpointFilters],
    ) -> Pager[Endpoint]: ...

    @overload
    def list(
        self: ResourceCollection[RemediationTarget],
        *,
        page_size: int | None = None,
        max_items: int | None = None,
        resume_token: str | None = None,
        prefetch: int = 0,
        concurrency: int = 1,
        options: RequestOptions | None = None,
        extra_params: ExtraParams | None = None,
        **filters: Unpack[RemediationTargetFilters],
    ) -> Pager[RemediationTarget]: ...

    @overload
    def list(
        self: ResourceCollection[Scope],
        *,
        page_size: int | None = None,
        max_items: int | None = None,
        resume_token: str | None = None,
        prefetch: int = 0,
        concurrency: int = 1,
        options: RequestOptions | None = None,
        extra_params: ExtraParams | None = None,
        **filters: Unpack[ScopeFilters],
    ) -> Pager[Scope]: ...

    @overload
    def list(
        self: ResourceCollection[VulnerabilityFinding],
        *,
        page_size: int | None = None,
        max_items: int | None = None,
        resume_token: str | None = None,
        prefetch: int = 0,
        concurrency: int = 1,
        options: RequestOptions | None = None,
        extra_params: ExtraParams | None = None,
        **filters: Unpack[VulnerabilityFindingFilters],
    ) -> Pager[VulnerabilityFinding]: ...

    def list(
        self,
        *,
        page_size: int | None = None,
        max_items: int | None = None,
        resume_token: str | None = None,
        prefetch: int = 0,
        concurrency: int = 1,
        options: RequestOptions | None = None,
        extra_params: ExtraParams | None = None,
        **filters: FilterValue,
    ) -> Pager[Any]:
        """Return a lazy Pager over the records matching the filters.

        Filters are the collection's server-side filters (`EndpointFilters`, ...: type checkers
        see them; a misspelt one is a TypeError naming the closest, an enum value the contract
        lacks a ValueError) and become query parameters (`endpoint_id="ep-1"` ->
        `endpointId=ep-1`; see `encode_filters`). `extra_params={"region": "eu"}` (and
        `RequestOptions.extra_params`) sends parameters as given, unchecked, for filters the
        service has and the contract lacks. `resume_token` (from `Page.resume_token`,
        `Pager.resume_token` or a failed iteration's error) continues right after the last item
        delivered; it must come from this collection with the same filters. `prefetch=N`
        fetches up to N pages ahead. `concurrency=N` fetches up to N pages at once where the
        list's convention lets their requests be computed (offsets or page numbers, with a total
        or page count announced); items still come in order, exactly once, with exact resume
        tokens, and a list whose announced size changes mid-way raises PaginationError. Cursor,
        link and keyset lists stay sequential: each page names the next. Bad filters, sizes,
        caps and tokens raise here, before any I/O.
        """
        limits = ListLimits(page_size, max_items, prefetch, concurrency)
        check_filters(self.resource.attribute, filters, LIST_KEYWORDS)
        filter_params = encode_filters(filters) + encode_extra_params(extra_params)
        if options is not None:
            filter_params += options.extra_params
        first = self.paginator.first(page_size)
        owned = {name for name, _ in first.params} | set(
            getattr(self.paginator, "parameter_names", ())
        )
        clashes = {name for name, _ in filter_params} & owned
        if clashes:
            raise ValueError(
                f"filter(s) {sorted(clashes)} are paging parameters of "
                f"{type(self.paginator).__name__}; use page_size instead"
            )
        fingerprint = filters_fingerprint(filter_params)
        paginator = paginator_name(self.paginator)
        if resume_token is None:
            start = ResumePoint(self.resource.segment, fingerprint, paginator, first)
        else:
            start = decode_token(
                resume_token,
                collection=self.resource.segment,
                filters=fingerprint,
                paginator=paginator,
                secrets=self._secrets,
            )

        async def read(url: URL, sent: RequestOptions | None) -> JSONResponse:
            response = await self._send(Request("GET", url), sent)
            return decode_json(response, secrets=self._secrets)

        async def fetch(page: PageRequest) -> JSONResponse:
            if page.url is not None:
                url = page.url
            else:
                url = self.url.with_query(filter_params + page.params)
            sent = options if not page.headers else _with_headers(options, page.headers)
            events = self._events
            if events is not None and events.active:
                return await events.call(self._page_name, "GET", self._shown(url), read(url, sent))
            response = await self._send(Request("GET", url), sent)  # as read, one frame less
            return decode_json(response, secrets=self._secrets)

        return Pager(
            ListCall(
                fetch=fetch,
                paginator=self.paginator,
                reader=self._reader,
                start=start,
                first=first,
                base_url=self._base_url,
                description=self.resource.attribute,
                limits=limits,
                trusted_origins=self._trusted_origins,
                secrets=self._secrets,
                on_convention=self._announce_convention,
                observe=self._observe,
            )
        )

    def _observe(self, steps: AsyncGenerator[Any, None]) -> AsyncGenerator[Any, None]:
        """A list's iteration, as one logical call when anyone listens to the events."""
        events = self._events
        if events is None or not events.active:
            return steps
        return events.iteration(self._list_name, "GET", self._url_text, steps)

    def changes(
        self,
        state: StateArg,
        *,
        keep_records: bool | None = None,
        confirm_removals: bool | None = None,
        since_filter: str | None = None,
        overlap: float = 300.0,
        resync: float = 3600.0,
        page_size: int | None = None,
        concurrency: int = 1,
        options: RequestOptions | None = None,
        extra_params: ExtraParams | None = None,
        wall_clock: Callable[[], float] = time.time,
        **filters: FilterValue,
    ) -> ChangeFeed[T]:
        """Return one pass of the change feed: what was added, modified and removed since
        the previous pass on `state` (a `ChangeState` or its SQLite file's path).

        The pass relists the collection (these filters and list keywords) and diffs it with the
        state page by page; a first pass yields every record as added. Removals come only
        after a list read to its end without error, each confirmed by a get's 404
        (`confirm_removals`; default: unless filtered). A failed pass reports none; the next
        continues it. `keep_records=True` (for a new state) keeps records for
        `Change.previous`. `since_filter` (default: the client's `since_filters`), a parameter
        taking an RFC 3339 time such as `updatedAt[gte]`, narrows passes to records changed
        since the previous pass began less `overlap` seconds; a full pass runs every `resync`
        seconds. `wall_clock` (Unix seconds) times passes. See "Reacting to changes".
        """
        given = dict(locals())  # the arguments, before the import below adds a name
        from ._changes._source import feed_of  # noqa: PLC0415 - sqlite3 only when used

        return feed_of(self, given)

    def watch(
        self,
        state: StateArg,
        *,
        interval: float = 60.0,
        jitter: float = 0.1,
        max_failures: int = 3,
        sleep: Callable[[float], Awaitable[None]] | None = None,
        on_pass: Callable[[PassResult], None] | None = None,
        keep_records: bool | None = None,
        confirm_removals: bool | None = None,
        since_filter: str | None = None,
        overlap: float = 300.0,
        resync: float = 3600.0,
        page_size: int | None = None,
        concurrency: int = 1,
        options: RequestOptions | None = None,
        extra_params: ExtraParams | None = None,
        wall_clock: Callable[[], float] = time.time,
        **filters: FilterValue,
    ) -> ChangeFeed[T]:
        """Return the change feed as `changes()` does, its passes repeated every `interval`
        seconds (give or take `jitter`, a share of it) until the iteration is cancelled or
        left: cleanly, mid-pass too. A failed pass is retried after the interval, continuing
        where it stopped; more than `max_failures` in a row raise the last error. `sleep`
        (default asyncio.sleep) waits between passes; `on_pass` hears how each pass went.
        """
        given = dict(locals())  # the arguments, before the import below adds a name
        from ._changes._source import feed_of  # noqa: PLC0415 - sqlite3 only when used

        return feed_of(self, given)

    def _announce_convention(self, convention: Convention, url: str) -> None:
        """Tell the DEBUG log and the event hooks which convention a list follows."""
        events = self._events
        if events is not None and events.active:
            events.emit(ClientEvent("paging", "GET", url, 0, detail=str(convention)))


def _with_headers(
    options: RequestOptions | None, headers: tuple[tuple[str, str], ...]
) -> RequestOptions:
    """The call's options with a page's own request headers (a header-borne continuation)."""
    if options is None:
        return RequestOptions(headers=dict(headers))
    return attrs.evolve(options, headers={**options.headers, **dict(headers)})
