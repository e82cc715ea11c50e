"""One generic collection of records, configured per resource by path segment and model type."""

from __future__ import annotations

import time
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable, Mapping, Sequence
from functools import partial
from typing import TYPE_CHECKING, Any, Generic, Literal, TypeVar, Unpack, overload

import orjson
from attrs import frozen
from yarl import URL

from ._errors import APIStatusError, DecodeError
from ._models import (
    LIST_KEYWORDS,
    Endpoint,
    EndpointFilters,
    RemediationTarget,
    RemediationTargetFilters,
    Resource,
    Scope,
    ScopeFilters,
    VulnerabilityFinding,
    VulnerabilityFindingFilters,
    check_filters,
)
from ._raw import RawResponse
from ._redact import shown_url
from ._sending._events import ClientEvent, Events
from ._sending._sender import Answer
from ._settings import MAX_PAGE_SIZE, RequestOptions, sized_page, with_headers
from ._wire._decode import decode_json
from ._wire._http import JSONResponse, Request, Response
from ._wire._naming import Naming
from ._wire._query import (
    ExtraParams,
    FilterValue,
    QueryParams,
    encode_extra_params,
    encode_filters,
)
from ._wire._record_reader import NamingSetting, RecordReader
from ._wire._urls import id_segment

if TYPE_CHECKING:
    from ._bulk import GetResult, IdSource
    from ._changes._change import PassResult
    from ._changes._feed import ChangeFeed, StateArg
    from ._changes._feed_settings import FeedSettings, Params
    from ._paging._call import ListCall, ListLimits
    from ._paging._pager import Pager
    from ._paging._paginators._proven import ShiftPolicy
    from ._paging._protocol import Convention, FetchPage, PageRequest, Paginator
    from ._paging._resume import ResumePoint

T = TypeVar("T")

Send = Callable[[Request, RequestOptions | None], Awaitable[Response]]
SendAnswer = Callable[[Request, RequestOptions | None], Awaitable[Answer]]
"""Sends as `Send` does; the response, and how long the exchange that answered took."""


@frozen
class ListQuery:
    """A list's arguments, checked: its limits, options and query parameters (filters, extra
    parameters, the options' own), and where it starts."""

    limits: ListLimits
    options: RequestOptions | None
    params: QueryParams
    start: ResumePoint
    first: PageRequest


class ResourceCollection(Generic[T]):
    """Reads one kind of record: `get` one by id, `list` many lazily, follow their `changes`.

    The client makes one per collection (`client.endpoints`, `client.scopes`, ...), with its
    settings; you never make your own.

    Type checkers see each collection's published filters on `list()`, `changes()` and
    `watch()` (`client.endpoints.list(os_family="macos")` is checked, a misspelt filter is an
    error), and see code generic over `ResourceCollection[T]` get `Pager[T]` and
    `ChangeFeed[T]`; there, where the collection is not known, no filter keyword is known
    either: pass filters as `**filters` of a `dict[str, Any]`, checked when called.
    """

    def __init__(
        self,
        resource: Resource[T],
        *,
        base_url: URL,
        send: Send,
        answer: SendAnswer,
        secrets: Sequence[str],
        paginator: Paginator | None,
        events: Events | None = None,
        trusted_origins: frozenset[str] = frozenset(),
        naming: NamingSetting = "auto",
        since_filter: str | None = None,
        max_page_size: int = MAX_PAGE_SIZE,
    ) -> None:
        self.resource = resource
        """Which collection this is: its path segment, record model and filters."""
        self.since_filter = since_filter
        """The update-time range filter `changes()` narrows passes with (None: full passes)."""
        self.max_page_size = max_page_size
        """The largest page a list asks for, and its default page size (the client's
        `max_page_size`)."""
        self.url = base_url.joinpath("v1", resource.segment)
        """Where the collection lives: the base URL, then `/v1/<segment>`."""
        self._url_text = str(self.url)
        self._base_url = base_url
        self._paginator = paginator
        self._send = send
        self._secrets = secrets
        self._events = events
        self._trusted_origins = trusted_origins
        self._reader = RecordReader(resource.model, naming, resource.attribute)
        self._answer = answer
        self._get_name = f"{resource.attribute}.get"
        self._list_name = f"{resource.attribute}.list"
        self._page_name = f"{resource.attribute}.page"

    @property
    def paginator(self) -> Paginator:
        """How the collection's lists page: the client's `paginator` or `paginators` setting,
        else an `AutoPaginator` (made by the first list, so a program that only gets records
        never loads the paging code)."""
        paginator = self._paginator
        if paginator is None:
            from ._paging._paginators._auto import AutoPaginator  # noqa: PLC0415 - lists only

            paginator = self._paginator = AutoPaginator()
        return paginator

    @property
    def naming(self) -> Naming:
        """How this resource's records spell their keys: snake_case by contract until records
        in another naming have been read (with `naming="auto"`), or the pinned naming."""
        return self._reader.naming

    def __repr__(self) -> str:
        model = self.resource.model.__name__
        return f"<ResourceCollection {self.resource.attribute} of {model} at {self.url}>"

    async def get(self, resource_id: str | int, *, options: RequestOptions | None = None) -> T:
        """Return the record with this id; raises NotFoundError when there is none.

        Args:
            resource_id: The record's id, sent as exactly one percent-encoded path segment,
                whatever it contains.
            options: Settings for this call, overriding the client's.
        """
        url = self._record_url(resource_id, options)
        events = self._events
        if events is not None and events.active:
            return await events.call(
                self._get_name, "GET", self._shown(url), self._read(url, options)
            )
        response = await self._send(Request("GET", url), options)  # as _read, one frame less
        return self._decode(response)

    async def _read(self, url: URL, options: RequestOptions | None) -> T:
        """A get's request and the record it answers with."""
        response = await self._send(Request("GET", url), options)
        return self._decode(response)

    def _decode(self, response: Response) -> T:
        """A get's record of its response: the plain get's and the raw one's."""
        return self._reader.record(response, secrets=self._secrets)

    def _record_url(self, resource_id: str | int, options: RequestOptions | None) -> URL:
        """Where a record is fetched by id: one path segment, and the options' extra params."""
        url = self.url  # no query: the base URL has none; its path replaced, not parsed again
        url = url.with_path(f"{url.raw_path}/{id_segment(resource_id)}", encoded=True)
        if options is not None and options.extra_params:
            url = url.extend_query(options.extra_params)
        return url

    @property
    def with_raw_response(self) -> RawCollection[T]:
        """This collection's `get`, returning the RawResponse that answered it (status,
        headers, request id, time, URL), whose `parse()` is the record:
        `await client.endpoints.with_raw_response.get(id)`. A list's responses are its pages
        (`list(...).pages()`)."""
        return RawCollection(self)

    async def _raw_get(
        self, resource_id: str | int, options: RequestOptions | None
    ) -> RawResponse[T]:
        """`get`, as the RawResponse that answered it."""
        url = self._record_url(resource_id, options)
        events = self._events
        if events is not None and events.active:
            return await events.call(
                self._get_name, "GET", self._shown(url), self._answered(url, options)
            )
        return await self._answered(url, options)

    async def _answered(self, url: URL, options: RequestOptions | None) -> RawResponse[T]:
        """A get's request and the response it got, the record made on `parse()`."""
        response, elapsed = await self._answer(Request("GET", url), options)
        return RawResponse(response.status, elapsed, response, self._secrets, self._decode)

    def _shown(self, url: URL) -> str:
        return shown_url(url, self._secrets, query=True)

    def get_many(
        self,
        ids: IdSource,
        *,
        concurrency: int = 16,
        ordered: bool = True,
        dedupe_window: int = 256,
        options: RequestOptions | None = None,
    ) -> AsyncIterator[GetResult[T]]:
        """Fetch many records by id concurrently; yields one GetResult per input id.

        An unknown id gives a result holding NotFoundError; an invalid one, its ValueError or
        TypeError. Leaving the loop or cancelling cancels the fetches in flight.

        Args:
            ids: Any iterable or async iterable of ids, read lazily, so memory stays bounded
                by twice `concurrency` (in order, answers that came in before an earlier
                one's wait for it while `concurrency` gets go on), plus `dedupe_window` recent
                results; an error the input raises is raised in its place, after the results
                before it.
            concurrency: How many gets run at once; in order, a get that ends starts the next
                id's at once, so a slow answer does not hold back the gets behind it.
            ordered: Yield results in the order of `ids`; False yields them as they complete.
            dedupe_window: How many recent results a repeated id is answered from: an id is
                fetched once while in flight or among them. Each one kept is a whole record
                held in memory; raise it for ids that repeat far apart, 0 keeps none.
            options: Settings for each get, overriding the client's.
        """
        from ._bulk import get_many  # noqa: PLC0415 - loaded by the first get_many

        get = self.get if options is None else partial(self.get, options=options)
        results = get_many(get, ids, concurrency, ordered=ordered, dedupe_window=dedupe_window)
        events = self._events
        if events is not None and events.active:
            name = f"{self.resource.attribute}.get_many"
            return events.iteration(name, "GET", self._url_text, results)
        return results

    @overload
    def list(
        self: ResourceCollection[T],
        *,
        page_size: int | None = None,
        max_items: int | None = None,
        resume_token: str | None = None,
        prefetch: int | Literal["auto"] = "auto",
        concurrency: int = 1,
        on_shift: ShiftPolicy = "raise",
        options: RequestOptions | None = None,
        extra_params: ExtraParams | None = None,
    ) -> Pager[T]: ...

    @overload
    def list(
        self: ResourceCollection[Endpoint],
        *,
        page_size: int | None = None,
        max_items: int | None = None,
        resume_token: str | None = None,
        prefetch: int | Literal["auto"] = "auto",
        concurrency: int = 1,
        on_shift: ShiftPolicy = "raise",
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
        prefetch: int | Literal["auto"] = "auto",
        concurrency: int = 1,
        on_shift: ShiftPolicy = "raise",
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
        prefetch: int | Literal["auto"] = "auto",
        concurrency: int = 1,
        on_shift: ShiftPolicy = "raise",
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
        prefetch: int | Literal["auto"] = "auto",
        concurrency: int = 1,
        on_shift: ShiftPolicy = "raise",
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
        prefetch: int | Literal["auto"] = "auto",
        concurrency: int = 1,
        on_shift: ShiftPolicy = "raise",
        options: RequestOptions | None = None,
        extra_params: ExtraParams | None = None,
        **filters: FilterValue,
    ) -> Pager[Any]:
        """Return a lazy Pager over the records matching the filters; nothing is fetched until
        it is iterated, or awaited for its first page alone (`page = await
        collection.list()`). Bad filters, sizes, caps and tokens raise here, before any I/O.

        Args:
            page_size: Records per page asked of the service, 1 to the client's
                `max_page_size` (the published maximum, 100, by default), which is also the
                default: fewer requests. A larger one is a ValueError naming the bound.
            max_items: Stop after this many records. Default: all of them.
            resume_token: Continue right after the last item delivered: a token from
                `Page.resume_token`, `Pager.resume_token` or a failed iteration's error, from
                this collection with the same filters.
            prefetch: How many pages are fetched ahead of the one your loop reads, so the
                service answers the next while you work on this one. `"auto"` (the
                default): one, once your loop has read two pages (a loop that stops within
                them never caused a request it did not use); 0: each page when your loop
                reaches it; N: N pages from the first.
            concurrency: Fetch up to this many pages at once where the list's convention lets
                their requests be computed (offsets or page numbers, with a total or page count
                announced); items still come in order, exactly once, with exact resume tokens,
                and a list whose announced size changes mid-way raises PaginationError. Cursor,
                link and keyset lists stay sequential: each page names the next.
            on_shift: What an offset list does when records added or removed while it is read
                leave a page that cannot be proven to continue it (or the order itself moved,
                as under a sort by `updated_at`): `"raise"` a PaginationError with a resume
                token (the default), or `"restart"` from the first page, delivering only the
                records not delivered yet (it then remembers every id it delivered, so its
                memory grows with the list; up to 3 restarts). Either way a record that exists
                throughout is delivered exactly once.
            options: Settings for every page request, overriding the client's.
            extra_params: Query parameters sent as given, unchecked (`{"region": "eu"}`), for
                filters the service has and the contract lacks.
            **filters: The collection's published server-side filters (`EndpointFilters`:
                type checkers see them; the other lists publish none), sent as query
                parameters as the reference spells them (`os_family="macos"` is
                `osFamily=macos`), one value each. A misspelt one is a TypeError naming the
                closest, a value the reference does not list a ValueError.
        """
        from ._paging._pager import Pager  # noqa: PLC0415 - loaded by the first list

        query = self._query(
            page_size=page_size,
            max_items=max_items,
            resume_token=resume_token,
            prefetch=prefetch,
            concurrency=concurrency,
            on_shift=on_shift,
            options=options,
            extra_params=extra_params,
            filters=filters,
        )
        return Pager(self._call(query))

    def _query(
        self,
        *,
        page_size: int | None,
        max_items: int | None,
        resume_token: str | None,
        prefetch: int | Literal["auto"],
        concurrency: int,
        options: RequestOptions | None,
        extra_params: ExtraParams | None,
        filters: Mapping[str, FilterValue],
        on_shift: ShiftPolicy = "raise",
        keywords: tuple[str, ...] = LIST_KEYWORDS,
    ) -> ListQuery:
        """A list's arguments checked (sizes, caps, filters, token): `list()`'s, raising
        before any I/O. `keywords` are the call's own, suggested for a misspelt filter."""
        from ._paging._call import ListLimits  # noqa: PLC0415 - loaded by the first list
        from ._paging._resume import list_start  # noqa: PLC0415

        page_size = sized_page(page_size, self.max_page_size)
        limits = ListLimits(page_size, max_items, prefetch, concurrency, on_shift)
        check_filters(self.resource.attribute, filters, keywords)
        params = encode_filters(filters) + encode_extra_params(extra_params)
        if options is not None:
            params += options.extra_params
        start, first = list_start(
            self.paginator, page_size, params, resume_token,
            self.resource.segment, self._secrets,
        )  # fmt: skip
        return ListQuery(limits, options, params, start, first)

    def _call(self, query: ListQuery) -> ListCall[T]:
        """The list call of checked arguments: its pages fetched through the client."""
        from ._paging._call import ListCall  # noqa: PLC0415 - loaded by the first list
        from ._paging._walk._ahead import let_requests_out  # noqa: PLC0415

        options, filter_params = query.options, query.params

        secrets = self._secrets

        def fetcher(decode: Callable[[Response], JSONResponse]) -> FetchPage:
            async def read(
                url: URL, sent: RequestOptions | None, answered: Callable[[], None] | None
            ) -> JSONResponse:
                response = await self._send(Request("GET", url), sent)
                if answered is not None:
                    answered()
                    await let_requests_out()  # what it started is sent before this page is read
                return decode(response)

            async def fetch(
                page: PageRequest, answered: Callable[[], None] | None = None
            ) -> JSONResponse:
                if page.url is not None:
                    url = page.url
                else:
                    url = self.url.with_query(filter_params + page.params)
                sent = options if not page.headers else with_headers(options, page.headers)
                events = self._events
                if events is not None and events.active:
                    shown = self._shown(url)
                    return await events.call(
                        self._page_name, "GET", shown, read(url, sent, answered)
                    )
                response = await self._send(Request("GET", url), sent)  # as read, inline
                if answered is not None:
                    answered()
                    await let_requests_out()  # what it started is sent before this page is read
                return decode(response)

            return fetch

        reader = self._reader
        return ListCall(
            fetch=fetcher(partial(decode_json, secrets=secrets)),
            fetch_records=fetcher(partial(reader.page, secrets=secrets)),
            paginator=self.paginator,
            reader=self._reader,
            start=query.start,
            first=query.first,
            base_url=self._base_url,
            description=self.resource.attribute,
            limits=query.limits,
            trusted_origins=self._trusted_origins,
            secrets=self._secrets,
            on_convention=self._announce_convention,
            on_shifts=self._announce_shifts,
            observe=self._observe,
        )

    def _observe(self, steps: AsyncGenerator[Any, None]) -> AsyncGenerator[Any, None]:
        """A list's iteration, as one logical call when anyone listens to the events."""
        events = self._events
        if events is None or not events.active:
            return steps
        return events.iteration(self._list_name, "GET", self._url_text, steps)

    @overload
    def changes(
        self: ResourceCollection[T],
        state: StateArg,
        *,
        keep_records: bool | None = None,
        confirm_removals: bool | None = None,
        trust_updated_at: bool = False,
        since_filter: str | None = None,
        overlap: float = 300.0,
        resync: float = 3600.0,
        page_size: int | None = None,
        concurrency: int = 1,
        options: RequestOptions | None = None,
        extra_params: ExtraParams | None = None,
        wall_clock: Callable[[], float] = time.time,
    ) -> ChangeFeed[T]: ...

    @overload
    def changes(
        self: ResourceCollection[Endpoint],
        state: StateArg,
        *,
        keep_records: bool | None = None,
        confirm_removals: bool | None = None,
        trust_updated_at: bool = False,
        since_filter: str | None = None,
        overlap: float = 300.0,
        resync: float = 3600.0,
        page_size: int | None = None,
        concurrency: int = 1,
        options: RequestOptions | None = None,
        extra_params: ExtraParams | None = None,
        wall_clock: Callable[[], float] = time.time,
        **filters: Unpack[EndpointFilters],
    ) -> ChangeFeed[Endpoint]: ...

    @overload
    def changes(
        self: ResourceCollection[RemediationTarget],
        state: StateArg,
        *,
        keep_records: bool | None = None,
        confirm_removals: bool | None = None,
        trust_updated_at: bool = False,
        since_filter: str | None = None,
        overlap: float = 300.0,
        resync: float = 3600.0,
        page_size: int | None = None,
        concurrency: int = 1,
        options: RequestOptions | None = None,
        extra_params: ExtraParams | None = None,
        wall_clock: Callable[[], float] = time.time,
        **filters: Unpack[RemediationTargetFilters],
    ) -> ChangeFeed[RemediationTarget]: ...

    @overload
    def changes(
        self: ResourceCollection[Scope],
        state: StateArg,
        *,
        keep_records: bool | None = None,
        confirm_removals: bool | None = None,
        trust_updated_at: bool = False,
        since_filter: str | None = None,
        overlap: float = 300.0,
        resync: float = 3600.0,
        page_size: int | None = None,
        concurrency: int = 1,
        options: RequestOptions | None = None,
        extra_params: ExtraParams | None = None,
        wall_clock: Callable[[], float] = time.time,
        **filters: Unpack[ScopeFilters],
    ) -> ChangeFeed[Scope]: ...

    @overload
    def changes(
        self: ResourceCollection[VulnerabilityFinding],
        state: StateArg,
        *,
        keep_records: bool | None = None,
        confirm_removals: bool | None = None,
        trust_updated_at: bool = False,
        since_filter: str | None = None,
        overlap: float = 300.0,
        resync: float = 3600.0,
        page_size: int | None = None,
        concurrency: int = 1,
        options: RequestOptions | None = None,
        extra_params: ExtraParams | None = None,
        wall_clock: Callable[[], float] = time.time,
        **filters: Unpack[VulnerabilityFindingFilters],
    ) -> ChangeFeed[VulnerabilityFinding]: ...

    def changes(
        self,
        state: StateArg,
        *,
        keep_records: bool | None = None,
        confirm_removals: bool | None = None,
        trust_updated_at: bool = False,
        since_filter: str | None = None,
        overlap: float = 300.0,
        resync: float = 3600.0,
        page_size: int | None = None,
        concurrency: int = 1,
        options: RequestOptions | None = None,
        extra_params: ExtraParams | None = None,
        wall_clock: Callable[[], float] = time.time,
        **filters: FilterValue,
    ) -> ChangeFeed[Any]:
        """Return one pass of the change feed: what was added, modified and removed since
        the previous pass on `state`.

        The pass relists the collection and diffs it with the state page by page; a first pass
        yields every record as added. Removals come only after a list read to its end without
        error; a failed pass reports none, and the next continues it. See "Reacting to changes".

        Args:
            state: A `ChangeState`, or the path of its SQLite file.
            keep_records: Keep whole records in a new state, for `Change.previous`. Default:
                as the state was made (no, for a new one).
            confirm_removals: Confirm each removal by a get's 404 or 410. Default: unless the
                feed is filtered.
            trust_updated_at: Take a record whose `updated_at` is the one the state holds as
                unchanged, without comparing its content: faster, but blind to a change that
                does not move `updated_at` (see "Reacting to changes"). Default: compare.
            since_filter: A query parameter taking an RFC 3339 time, such as `updatedAt[gte]`,
                to narrow passes to records changed since the previous pass began (less
                `overlap`). Default: the client's `since_filters` for this collection.
            overlap: Seconds a narrowed pass reaches back before the previous one began.
            resync: Seconds between full passes when passes are narrowed.
            page_size: As for `list()`.
            concurrency: As for `list()`.
            options: As for `list()`.
            extra_params: As for `list()`.
            wall_clock: The time passes are dated with, in Unix seconds.
            **filters: As for `list()`; a state serves the filters it was first used with.
        """
        from ._changes._feed_settings import FeedSettings  # noqa: PLC0415 - the feed's modules on use

        settings = FeedSettings(
            since_filter=self.since_filter if since_filter is None else since_filter,
            overlap=overlap,
            resync=resync,
            keep_records=keep_records,
            confirm_removals=confirm_removals,
            trust_updated_at=trust_updated_at,
            wall_clock=wall_clock,
        )
        return self._feed(state, settings, page_size, concurrency, options, extra_params, filters)

    @overload
    def watch(
        self: ResourceCollection[T],
        state: StateArg,
        *,
        interval: float = 60.0,
        jitter: float = 0.1,
        max_failures: int = 3,
        sleep: Callable[[float], Awaitable[None]] | None = None,
        on_pass: Callable[[PassResult], None] | None = None,
        keep_records: bool | None = None,
        confirm_removals: bool | None = None,
        trust_updated_at: bool = False,
        since_filter: str | None = None,
        overlap: float = 300.0,
        resync: float = 3600.0,
        page_size: int | None = None,
        concurrency: int = 1,
        options: RequestOptions | None = None,
        extra_params: ExtraParams | None = None,
        wall_clock: Callable[[], float] = time.time,
    ) -> ChangeFeed[T]: ...

    @overload
    def watch(
        self: ResourceCollection[Endpoint],
        state: StateArg,
        *,
        interval: float = 60.0,
        jitter: float = 0.1,
        max_failures: int = 3,
        sleep: Callable[[float], Awaitable[None]] | None = None,
        on_pass: Callable[[PassResult], None] | None = None,
        keep_records: bool | None = None,
        confirm_removals: bool | None = None,
        trust_updated_at: bool = False,
        since_filter: str | None = None,
        overlap: float = 300.0,
        resync: float = 3600.0,
        page_size: int | None = None,
        concurrency: int = 1,
        options: RequestOptions | None = None,
        extra_params: ExtraParams | None = None,
        wall_clock: Callable[[], float] = time.time,
        **filters: Unpack[EndpointFilters],
    ) -> ChangeFeed[Endpoint]: ...

    @overload
    def watch(
        self: ResourceCollection[RemediationTarget],
        state: StateArg,
        *,
        interval: float = 60.0,
        jitter: float = 0.1,
        max_failures: int = 3,
        sleep: Callable[[float], Awaitable[None]] | None = None,
        on_pass: Callable[[PassResult], None] | None = None,
        keep_records: bool | None = None,
        confirm_removals: bool | None = None,
        trust_updated_at: bool = False,
        since_filter: str | None = None,
        overlap: float = 300.0,
        resync: float = 3600.0,
        page_size: int | None = None,
        concurrency: int = 1,
        options: RequestOptions | None = None,
        extra_params: ExtraParams | None = None,
        wall_clock: Callable[[], float] = time.time,
        **filters: Unpack[RemediationTargetFilters],
    ) -> ChangeFeed[RemediationTarget]: ...

    @overload
    def watch(
        self: ResourceCollection[Scope],
        state: StateArg,
        *,
        interval: float = 60.0,
        jitter: float = 0.1,
        max_failures: int = 3,
        sleep: Callable[[float], Awaitable[None]] | None = None,
        on_pass: Callable[[PassResult], None] | None = None,
        keep_records: bool | None = None,
        confirm_removals: bool | None = None,
        trust_updated_at: bool = False,
        since_filter: str | None = None,
        overlap: float = 300.0,
        resync: float = 3600.0,
        page_size: int | None = None,
        concurrency: int = 1,
        options: RequestOptions | None = None,
        extra_params: ExtraParams | None = None,
        wall_clock: Callable[[], float] = time.time,
        **filters: Unpack[ScopeFilters],
    ) -> ChangeFeed[Scope]: ...

    @overload
    def watch(
        self: ResourceCollection[VulnerabilityFinding],
        state: StateArg,
        *,
        interval: float = 60.0,
        jitter: float = 0.1,
        max_failures: int = 3,
        sleep: Callable[[float], Awaitable[None]] | None = None,
        on_pass: Callable[[PassResult], None] | None = None,
        keep_records: bool | None = None,
        confirm_removals: bool | None = None,
        trust_updated_at: bool = False,
        since_filter: str | None = None,
        overlap: float = 300.0,
        resync: float = 3600.0,
        page_size: int | None = None,
        concurrency: int = 1,
        options: RequestOptions | None = None,
        extra_params: ExtraParams | None = None,
        wall_clock: Callable[[], float] = time.time,
        **filters: Unpack[VulnerabilityFindingFilters],
    ) -> ChangeFeed[VulnerabilityFinding]: ...

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
        trust_updated_at: bool = False,
        since_filter: str | None = None,
        overlap: float = 300.0,
        resync: float = 3600.0,
        page_size: int | None = None,
        concurrency: int = 1,
        options: RequestOptions | None = None,
        extra_params: ExtraParams | None = None,
        wall_clock: Callable[[], float] = time.time,
        **filters: FilterValue,
    ) -> ChangeFeed[Any]:
        """Return the change feed as `changes()` does, its passes repeated every `interval`
        until the iteration is cancelled or left: cleanly, mid-pass too. A failed pass is
        retried after the interval, continuing where it stopped.

        Args:
            state: As for `changes()`.
            interval: Seconds between passes.
            jitter: How much the interval varies, as a share of it (0.1: give or take 10%).
            max_failures: Failed passes in a row tolerated; one more raises the last error.
            sleep: How the feed waits between passes. Default: `asyncio.sleep`.
            on_pass: Called with each pass's PassResult, to hear how it went.
            keep_records: As for `changes()`.
            confirm_removals: As for `changes()`.
            trust_updated_at: As for `changes()`.
            since_filter: As for `changes()`.
            overlap: As for `changes()`.
            resync: As for `changes()`.
            page_size: As for `list()`.
            concurrency: As for `list()`.
            options: As for `list()`.
            extra_params: As for `list()`.
            wall_clock: As for `changes()`.
            **filters: As for `list()`.
        """
        from ._changes._feed_settings import FeedSettings  # noqa: PLC0415 - the feed's modules on use

        settings = FeedSettings(
            since_filter=self.since_filter if since_filter is None else since_filter,
            overlap=overlap,
            resync=resync,
            keep_records=keep_records,
            confirm_removals=confirm_removals,
            trust_updated_at=trust_updated_at,
            interval=interval,
            jitter=jitter,
            max_failures=max_failures,
            sleep=sleep,
            wall_clock=wall_clock,
            on_pass=on_pass,
        )
        return self._feed(state, settings, page_size, concurrency, options, extra_params, filters)

    def _feed(
        self,
        state: StateArg,
        settings: FeedSettings,
        page_size: int | None,
        concurrency: int,
        options: RequestOptions | None,
        extra_params: ExtraParams | None,
        filters: Mapping[str, FilterValue],
    ) -> ChangeFeed[T]:
        """The change feed of `changes()` or `watch()`: its list checked now, before any I/O,
        as `list()` checks it; each pass lists it again (from a resume token, or narrowed)."""
        from ._changes._feed import ChangeFeed  # noqa: PLC0415 - sqlite3 only when used
        from ._changes._feed_settings import GONE, LISTING, PREFETCH, FeedSource  # noqa: PLC0415
        from ._paging._call import WIRE_OBJECTS  # noqa: PLC0415
        from ._paging._pager import Pager  # noqa: PLC0415

        listing = partial(
            self._query,
            page_size=page_size,
            max_items=None,
            prefetch=PREFETCH,
            concurrency=concurrency,
            options=options,
            filters=filters,
            keywords=LISTING,
        )
        checked = listing(resume_token=None, extra_params=extra_params)
        extra = dict(extra_params or {})

        def open_list(resume_token: str | None, since: Params) -> Pager[dict[str, Any]]:
            narrowed = {**extra, **dict(since)} or None
            query = listing(resume_token=resume_token, extra_params=narrowed)
            return Pager(self._call(query).reading(WIRE_OBJECTS))

        async def fetch(record_id: str) -> dict[str, Any] | None:
            url = self._record_url(record_id, options)
            try:
                response = await self._send(Request("GET", url), options)
            except APIStatusError as error:
                if error.status in GONE:
                    return None
                raise
            body = decode_json(response, secrets=self._secrets).body
            if not isinstance(body, dict):
                raise DecodeError(
                    "a record fetched by id is not a JSON object", method="GET", url=str(url)
                )
            return body

        confirm = settings.confirm_removals
        source: FeedSource[T] = FeedSource(
            collection=self.resource.segment,
            model=self.resource.model,
            read=self._reader.read,
            open_list=open_list,
            filters=orjson.dumps(sorted(checked.params)).decode(),
            fetch=fetch if (not checked.params if confirm is None else confirm) else None,
        )
        return ChangeFeed(source, state, settings)

    def _announce_shifts(self, shifts: str, url: str) -> None:
        """Tell the log (at INFO) and the event hooks what proving a page cost when the data
        moved under the list (`Shifts`, as text)."""
        events = self._events
        if events is not None and events.noting:
            events.emit(ClientEvent("shift", "GET", url, 0, detail=shifts))

    def _announce_convention(self, convention: Convention, url: str) -> None:
        """Tell the DEBUG log and the event hooks which convention a list follows."""
        events = self._events
        if events is not None and events.active:
            events.emit(ClientEvent("paging", "GET", url, 0, detail=str(convention)))


class RawCollection(Generic[T]):
    """`collection.with_raw_response`: the collection's `get`, sent as the plain `get` is and
    returning the RawResponse that answered it; `parse()` gives the record."""

    def __init__(self, collection: ResourceCollection[T]) -> None:
        self._collection = collection

    def __repr__(self) -> str:
        return f"<RawCollection of {self._collection!r}>"

    async def get(
        self, resource_id: str | int, *, options: RequestOptions | None = None
    ) -> RawResponse[T]:
        """Fetch the record with this id as `get` does; the response that answered, its
        `parse()` the record. An error status raises its typed error (NotFoundError, ...).

        Args:
            resource_id: As for `get`.
            options: Settings for this call, overriding the client's.
        """
        return await self._collection._raw_get(resource_id, options)
