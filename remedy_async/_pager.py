"""The lazy result of a list call: iterate items or pages, collect them, or resume them.

The pager owns the loop (ask the paginator, check the target, fetch, read, structure, yield) and
knows nothing about any paging scheme; the fetch function it is given does the I/O. It keeps the
position of the last item handed to the caller, so any stop (a break, an error, a crash after a
checkpoint) can continue from a resume token with nothing lost and nothing repeated.
"""

from __future__ import annotations

import asyncio
import warnings
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Mapping, Sequence
from contextlib import asynccontextmanager, suppress
from typing import Any, Generic, TypeVar

from attrs import frozen
from yarl import URL

from ._codec import WireFault, fault_from, json_type_name
from ._delivery import RecentIds
from ._errors import DecodeError, DuplicateItemWarning, PaginationError, RemedyError
from ._http import JSONResponse
from ._lookahead import FetchPage, LookAhead
from ._paging import PageRequest, PageResult, Paginator, PagingFault
from ._response import wire_fault_error
from ._resume import ResumePoint, encode_token

T = TypeVar("T")


@frozen
class Page(Generic[T]):
    """One page of a list: its items, the response that carried them, and where to resume."""

    items: tuple[T, ...]
    status: int
    headers: Mapping[str, str]
    request_id: str | None
    url: str
    resume_token: str | None
    """Continues the list right after this page's last item; None when the list is complete."""


@frozen
class _Place:
    """Where a delivered page sits in the list: what resuming needs, without the items.

    Positions count the raw items of the page consumed so far (delivered or skipped), one
    position per delivered item.
    """

    request: PageRequest
    start: int
    positions: Sequence[int]
    end: int
    whole: bool
    next: PageRequest | None


@frozen
class _Prepared:
    """A fetched page, cut to what the caller gets, and its place in the list."""

    items: Sequence[Any]
    response: JSONResponse
    items_path: str
    all_objects: bool
    place: _Place


class Pager(Generic[T]):
    """Lists records lazily: `async for` items, `pages()`, `collect()` or `first()`.

    Nothing is fetched until you iterate, and each iteration starts again from where the list
    call began. `max_items` caps the items and stops fetching once reached; `prefetch=N` keeps
    up to N pages in flight ahead of you. `resume_token` says where the latest iteration
    stopped (None once the list is complete).
    """

    def __init__(
        self,
        *,
        fetch: FetchPage,
        paginator: Paginator,
        model: type[T],
        structure: Callable[[object, object], T],
        start: ResumePoint,
        base_url: URL,
        page_size: int | None,
        max_items: int | None,
        prefetch: int,
        description: str,
    ) -> None:
        self._fetch = fetch
        self._paginator = paginator
        self._model = model
        self._structure = structure
        self._start = start
        self._base_url = base_url
        self._page_size = page_size
        self._max_items = max_items
        self._prefetch = prefetch
        self._description = description
        self._at_page: _Place | None = None
        self._at_count = 0

    def __repr__(self) -> str:
        return (
            f"<Pager {self._description} page_size={self._page_size} "
            f"max_items={self._max_items} prefetch={self._prefetch} "
            f"paginator={type(self._paginator).__name__}>"
        )

    def as_dicts(self) -> Pager[dict[str, Any]]:
        """Return the same list yielding each record as its wire dict, not as a model.

        For throughput when you only pass records on (to a file, a queue, another service):
        paging, resume tokens, safety checks and retries are unchanged; only building the
        model is skipped. Each item is still checked to be a JSON object.
        """
        return Pager(
            fetch=self._fetch,
            paginator=self._paginator,
            model=dict,
            structure=_wire_object,
            start=self._start,
            base_url=self._base_url,
            page_size=self._page_size,
            max_items=self._max_items,
            prefetch=self._prefetch,
            description=self._description,
        )

    @property
    def resume_token(self) -> str | None:
        """Token continuing right after the last item handed out; None when the list is done."""
        point = self._resume_point()
        return None if point is None else encode_token(point)

    def __aiter__(self) -> AsyncIterator[T]:
        return self._iterate_items()

    async def _iterate_items(self) -> AsyncGenerator[T, None]:
        # Records are built one at a time as they are handed over rather than a page at a
        # time, so a record the caller drops is freed at once instead of ageing into the
        # garbage collector's older generations (that cost a typed list a third of its speed).
        structure, model = self._structure, self._model
        self._at_page, self._at_count = None, 0
        delivered = 0
        try:
            async with self._prepared_pages() as prepared_pages:
                async for prepared in prepared_pages:
                    delivered += self._at_count
                    self._at_page, self._at_count = prepared.place, 0
                    ready = structure is _wire_object and prepared.all_objects
                    for count, raw in enumerate(prepared.items, 1):
                        if ready:
                            item = raw
                        else:
                            try:
                                item = structure(raw, model)
                            except Exception as exc:
                                raise self._decode_error(prepared, count - 1, exc) from exc
                        # The position moves before the hand-over: a caller that stops after
                        # this item resumes after it.
                        self._at_count = count
                        yield item
                    del prepared  # not kept alive while the next page is fetched and decoded
        except RemedyError as error:
            self._mark(error, delivered + self._at_count)
            raise

    async def pages(self) -> AsyncGenerator[Page[T], None]:
        """Yield the list page by page; the last page is cut short when max_items is reached."""
        self._at_page, self._at_count = None, 0
        yielded = 0
        try:
            async with self._prepared_pages() as prepared_pages:
                async for prepared in prepared_pages:
                    items = self._structure_items(prepared)
                    self._at_page, self._at_count = prepared.place, len(items)
                    yielded += len(items)
                    yield Page(
                        items=items,
                        status=prepared.response.status,
                        headers=prepared.response.headers,
                        request_id=prepared.response.request_id,
                        url=str(prepared.response.url),
                        resume_token=self.resume_token,
                    )
                    del prepared, items  # the caller holds the page if it wants it
        except RemedyError as error:
            self._mark(error, yielded)
            raise

    async def collect(self) -> list[T]:
        """Return every item (up to max_items) as a list."""
        return [item async for item in self]

    async def first(self) -> T | None:
        """Return the first item, or None when the list is empty; fetches one page at most."""
        iterator = self._iterate_items()
        try:
            async for item in iterator:
                return item
            return None
        finally:
            await iterator.aclose()

    def _mark(self, error: RemedyError, yielded: int) -> None:
        error.resume_token = self.resume_token
        error.items_yielded = yielded

    def _resume_point(self) -> ResumePoint | None:
        page, count = self._at_page, self._at_count
        if page is None:
            return self._start
        if count < len(page.positions):
            consumed = page.start if count == 0 else page.positions[count - 1]
            return self._point(page.request, consumed)
        if not page.whole:
            return self._point(page.request, page.end)
        return None if page.next is None else self._point(page.next, 0)

    def _point(self, request: PageRequest, skip: int) -> ResumePoint:
        start = self._start
        return ResumePoint(start.collection, start.filters, start.scheme, request, skip)

    @asynccontextmanager
    async def _prepared_pages(self) -> AsyncIterator[AsyncIterator[_Prepared]]:
        """Provide the prepared pages, fetched in step with the caller or `prefetch` ahead.

        With prefetch, a producer task fetches pages into a queue, holding at most `prefetch`
        pages the caller has not taken. When the paginator can predict next requests (offset
        and page-number schemes) and no max_items is set, the free part of that allowance is
        fetched in parallel.
        """
        if self._prefetch == 0:
            pages = self._fetch_pages(self._fetch)
            try:
                yield pages
            finally:
                await pages.aclose()
            return
        queue: asyncio.Queue[_Prepared | BaseException | None] = asyncio.Queue()
        slots = asyncio.Semaphore(self._prefetch)
        predict = getattr(self._paginator, "predict_next", None)
        look_ahead = None
        if predict is not None and self._max_items is None:
            look_ahead = LookAhead(
                self._fetch, predict, lambda: max(0, self._prefetch - queue.qsize() - 1)
            )
        pages = self._fetch_pages(look_ahead.fetch if look_ahead else self._fetch)

        async def produce() -> None:
            try:
                while True:
                    await slots.acquire()
                    prepared = await anext(pages, None)
                    queue.put_nowait(prepared)
                    if prepared is None:
                        return
                    del prepared
            except Exception as error:  # handed to the consumer, raised where it belongs
                queue.put_nowait(error)
            finally:
                await pages.aclose()

        async def consume() -> AsyncIterator[_Prepared]:
            while (got := await queue.get()) is not None:
                if isinstance(got, BaseException):
                    raise got
                slots.release()
                if look_ahead is not None:
                    look_ahead.refill()
                yield got
                del got

        producer = asyncio.create_task(produce(), name=f"remedy-prefetch-{self._description}")
        try:
            yield consume()
        finally:
            producer.cancel()
            with suppress(asyncio.CancelledError):
                await producer
            if look_ahead is not None:
                await look_ahead.close()

    async def _fetch_pages(self, fetch: FetchPage) -> AsyncGenerator[_Prepared, None]:
        remaining = self._max_items
        if remaining == 0:
            return
        request, skip = self._start.request, self._start.skip
        # Every request followed, to refuse a cycle before it repeats items. Kept as hashes (an
        # int each, not the request with its cursor), so a long list costs little memory.
        seen = {hash(request)}
        recent = RecentIds()
        while True:
            self._check_target(request)
            prepared = self._prepare(request, await fetch(request), skip, remaining, recent)
            yield prepared
            following, url = prepared.place.next, prepared.response.url
            if remaining is not None:
                remaining -= len(prepared.items)
            del prepared  # not kept alive while the next page is fetched and decoded
            if following is None or remaining == 0:
                return
            if hash(following) in seen:
                raise PaginationError(
                    "the service sent a next-page request already followed in this list "
                    f"({_describe(following)}); stopping rather than repeating items",
                    method="GET",
                    url=url,
                )
            seen.add(hash(following))
            request, skip = following, 0

    def _prepare(
        self,
        request: PageRequest,
        response: JSONResponse,
        skip: int,
        remaining: int | None,
        recent: RecentIds,
    ) -> _Prepared:
        """Read a fetched page and cut it to the new items the caller is owed."""
        result = self._read(request, response)
        delivery = recent.deliver(result.items, skip, remaining)
        if delivery.repeats:
            warnings.warn(
                DuplicateItemWarning(
                    f"{delivery.repeats} item(s) of the page at {response.url} repeat ids "
                    "delivered just before; the repeats were skipped"
                ),
                stacklevel=3,
            )
        positions = delivery.positions
        stopped_early = delivery.stopped_early
        place = _Place(
            request=request,
            start=skip,
            positions=positions,
            end=positions[-1] if stopped_early and positions else len(result.items),
            whole=not stopped_early,
            next=None if stopped_early else result.next,
        )
        return _Prepared(
            items=delivery.items,
            response=response,
            items_path=result.items_path,
            all_objects=delivery.all_objects,
            place=place,
        )

    def _check_target(self, request: PageRequest) -> None:
        """Refuse, before sending, a next-page URL that leaves the API's origin or base path."""
        url = request.url
        if url is None:
            return
        base = self._base_url
        if url.origin() != base.origin():
            raise PaginationError(
                f"the next page is on another origin ({url.origin()}); credentials are only "
                f"sent to {base.origin()}",
                method="GET",
                url=url.with_query(None),
            )
        prefix = base.path.rstrip("/") + "/"
        if not url.path.startswith(prefix):
            raise PaginationError(
                f"the next page is outside the API's base path {prefix!r}",
                method="GET",
                url=url.with_query(None),
            )

    def _read(self, request: PageRequest, response: JSONResponse) -> PageResult:
        try:
            return self._paginator.read(request, response)
        except WireFault as fault:
            raise wire_fault_error(fault, response) from None
        except PagingFault as fault:
            raise PaginationError(str(fault), method="GET", url=response.url) from None

    def _structure_items(self, prepared: _Prepared) -> tuple[T, ...]:
        structure, model = self._structure, self._model
        if structure is _wire_object and prepared.all_objects:
            return tuple(prepared.items)
        try:
            return tuple([structure(raw, model) for raw in prepared.items])
        except Exception:
            for count, raw in enumerate(prepared.items):
                try:
                    structure(raw, model)
                except Exception as exc:
                    raise self._decode_error(prepared, count, exc) from exc
            raise

    def _decode_error(self, prepared: _Prepared, count: int, exc: Exception) -> DecodeError:
        """The DecodeError for the `count`-th delivered item of a page, with its JSON path."""
        positions = prepared.place.positions
        index = (positions[count] - 1) if positions else count
        fault = fault_from(exc, f"{prepared.items_path}[{index}]", self._model)
        return wire_fault_error(fault, prepared.response)


def _wire_object(item: object, _: object) -> dict[str, Any]:
    if item.__class__ is dict:
        return item
    raise WireFault("$", f"expected an object, got {json_type_name(item)}")


def _describe(request: PageRequest) -> str:
    if request.url is not None:
        return str(request.url.with_query(None)) + " with the same query"
    return "&".join(f"{name}=..." for name, _ in request.params) or "no parameters"
