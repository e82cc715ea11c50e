"""Walks the pages of one list: checks each next request, fetches, reads and trims each page.

Given where to start, it yields each page cut to the items the caller is owed (the records the
paginator chose, or repeats of ids just delivered skipped; `max_items` applied) with its place
in the list, fetched in step with the caller, `prefetch` pages ahead, or `concurrency` planned
pages at once. It refuses a next page that leaves the API or repeats a request already
followed, so a broken page sequence never loops or leaks credentials. The list's paginator is
wrapped once per walk in the offset proof (`ProvenPaginator`), which decides every page of an
offset list that announces its total: one path for every list. A list whose announced size
changes while its planned pages are fetched is refused (a proven one proves each page
instead), so parallel pages never skip or repeat an item. What it makes a page (`PagePlace`,
`PreparedPage`) is frozen msgspec `Struct`s (see docs/architecture.md).
"""

from __future__ import annotations

import asyncio
import warnings
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Collection, Sequence
from contextlib import asynccontextmanager, suppress
from functools import partial
from typing import Any, TypeVar

from msgspec import Struct
from yarl import URL

from remedy_async._errors import ContractDriftWarning, DuplicateItemWarning, PaginationError
from remedy_async._paging._call import AUTO, ListCall
from remedy_async._paging._paginators._proven import ProvenPaginator
from remedy_async._paging._protocol import (
    NO_SHIFTS,
    Convention,
    FallingBackPaginator,
    FetchPage,
    ListSize,
    PagePlan,
    PageRequest,
    PageResult,
    PagingFault,
    PlanningPaginator,
    PredictingPaginator,
    Shifts,
    request_identity,
)
from remedy_async._paging._read._page import announced_total
from remedy_async._paging._walk._ahead import PagesAhead, Prefetch, let_requests_out
from remedy_async._paging._walk._dedupe import RecentIds
from remedy_async._paging._walk._fetching import fetch_first, fetch_guess
from remedy_async._redact import redact, scrub_error, shown_url
from remedy_async._wire._decode import wire_fault_error
from remedy_async._wire._http import JSONResponse
from remedy_async._wire._types import WireFault
from remedy_async._wire._urls import url_problem

T = TypeVar("T")
READ_AHEAD_AFTER = 2
"""Pages a loop reads in step before `prefetch="auto"` reads ahead of it: a loop that stops
within them never caused a request it did not use."""
READ_AHEAD_PAGES = 1
"""Pages `prefetch="auto"` then holds ahead of the loop, fetched one after the other: the
service answers the next page while the loop works on this one, and requests reach it in the
order the list asks them. On an offset list that announces its total, the next page's request
goes out (predicted) as soon as the service has answered the one the loop waits for, before
that answer is decoded, and the walk goes on in step with the loop (no producer task, no
queue: a page held ahead is read when the loop reaches it): still one request at a time, in
order, none past the total, and none guessed while the list moves; the service's time for a
page overlaps all the client's work on the one before, decoding included. (Requests predicted
and sent in parallel, as `prefetch=2` does, let the service see two of a list's requests at
once, in either order.)"""
MAX_EMPTY_PAGES = 10
"""Empty pages in a row that may still hand out a way forward before the list is refused."""


class PagePlace(Struct, frozen=True):
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
    resume: Callable[[int], tuple[PageRequest, int] | None] | None = None
    """Where the list continues after some of the page's raw items, when its paginator says
    (`PageResult.resume`)."""

    def after(self, count: int) -> tuple[PageRequest, int] | None:
        """The request and the items of its page to skip that continue the list after the
        page's first `count` delivered items (at least one is left, or a next page); None:
        where the list call began."""
        if count < len(self.positions):
            consumed = self.start if count == 0 else self.positions[count - 1]
        elif not self.whole or self.resume is not None:
            consumed = self.end
        else:
            assert self.next is not None
            return self.next, 0
        if self.resume is None:
            return self.request, consumed
        return self.resume(consumed)

    @property
    def last(self) -> bool:
        """Whether the page, delivered whole, ends the list."""
        return self.whole and self.next is None


class PreparedPage(Struct, frozen=True):
    """A fetched page, cut to what the caller gets, and its place in the list."""

    items: Sequence[Any]
    response: JSONResponse
    items_path: str
    all_objects: bool
    place: PagePlace
    raw_count: int = 0
    """Items the page carried from where the list resumed in it (repeats included)."""
    convention: Convention | None = None
    total: int | None = None
    """The list's total as this page announces it, if it does."""
    shifts: Shifts = NO_SHIFTS
    """What proving this page cost (realignments, re-reads, restarts since the page before)."""


class PageWalk:
    """One pass over a list call's pages from its start; `pages()` provides them in order."""

    __slots__ = ("call", "paginator")

    def __init__(self, call: ListCall[Any]) -> None:
        self.call = call
        self.paginator = ProvenPaginator.around(
            call.paginator, call.first, call.limits.on_shift, from_start=call.from_start
        )
        """The list's paginator, in the offset proof (which passes any other list through)."""

    @property
    def fetch(self) -> FetchPage:
        call = self.call
        return call.fetch if call.fetch_records is None else call.fetch_records

    @property
    def concurrency(self) -> int:
        return self.call.limits.concurrency

    @property
    def max_items(self) -> int | None:
        return self.call.limits.max_items

    def _shown(self, url: URL) -> str:
        """A page's URL as errors and warnings show it (no query, fragment or secret)."""
        return shown_url(url, self.call.secrets)

    def _reading_ahead(self, planned: _Planned | None) -> tuple[int, int]:
        """How many pages the walk holds ahead of the caller, and after how many pages read in
        step it starts: `prefetch=N` from the first page, `"auto"` `READ_AHEAD_PAGES` once the
        caller has read `READ_AHEAD_AFTER` (none where planned pages are already fetched
        ahead)."""
        prefetch = self.call.limits.prefetch
        if prefetch != AUTO:
            return prefetch, 0
        return (0, 0) if planned is not None else (READ_AHEAD_PAGES, READ_AHEAD_AFTER)

    @asynccontextmanager
    async def pages(self) -> AsyncIterator[AsyncIterator[PreparedPage]]:
        """Provide the prepared pages, fetched in step with the caller or some pages ahead.

        With `concurrency` above 1 and a paginator that plans (offsets or page numbers with a
        known size), up to that many planned pages are fetched at once. Reading ahead (see
        `_reading_ahead` and `_ReadAhead`), at most that many pages the caller has not taken
        are held: with `prefetch="auto"` on a list whose next request can be predicted, the
        walk goes on in step, each next request sent as soon as the one awaited is answered;
        otherwise a producer task fetches pages into a queue, and when the paginator can
        predict next requests, no max_items is set and more than one page is held, the free
        part of that allowance is fetched in parallel.
        """
        planned = None
        if self.concurrency > 1 and isinstance(self.call.paginator, PlanningPaginator):
            planned = _Planned(PagesAhead(self.fetch), self.paginator.plan)
        ahead, in_step = self._reading_ahead(planned)
        try:
            if ahead == 0:
                fetch = planned.ahead.fetch if planned else self.fetch
                pages = self._pages_from(fetch, planned)
                try:
                    yield pages
                finally:
                    await pages.aclose()
            else:
                async with self._read_ahead(planned, ahead, in_step) as read:
                    yield read
        finally:
            if planned is not None:
                await planned.ahead.close()

    @asynccontextmanager
    async def _read_ahead(
        self, planned: _Planned | None, ahead: int, in_step: int
    ) -> AsyncIterator[AsyncIterator[PreparedPage]]:
        """The pages, the first `in_step` fetched as the caller reaches them, then up to
        `ahead` held ahead of it (`_ReadAhead`: in step, or by a producer task)."""
        predict: Callable[[PageRequest], PageRequest | None] | None = None
        answered_first = self.call.limits.prefetch == AUTO
        if planned is None and self.max_items is None:
            if answered_first:  # one request at a time: guessed only where the list goes on
                predict = self.paginator.predict_within_total
            elif ahead > 1 and isinstance(self.call.paginator, PredictingPaginator):
                predict = self.paginator.predict_next
        reader = _ReadAhead(
            partial(self._pages_from, planned=planned),
            planned.ahead.fetch if planned is not None else self.fetch,
            predict,
            ahead,
            f"remedy-prefetch-{self.call.description}",
            answered_first=answered_first,
        )
        try:
            yield reader.pages(in_step)
        finally:
            await reader.close()

    async def _pages_from(
        self, fetch: FetchPage, planned: _Planned | None = None
    ) -> AsyncGenerator[PreparedPage, None]:
        remaining = self.max_items
        if remaining == 0:
            return
        request, skip = self.call.start.request, self.call.start.skip
        # Every request followed, to refuse a cycle before it repeats items. Kept as hashes (an
        # int each, not the request with its cursor), so a long list costs little memory.
        seen = {request_identity(request)}
        read = empty = 0
        recent = RecentIds()
        from_start = self.call.from_start
        # The list's own first request may fall back to others the service accepts.
        opening = from_start and isinstance(self.call.paginator, FallingBackPaginator)
        while True:
            self._check_target(request)
            request, response = await self._fetched(fetch, request, opening=opening)
            opening = False
            if response is None:  # every guess was refused, and nothing announced more
                return
            result = self._read(request, response)
            if result.notice is not None:
                warnings.warn(ContractDriftWarning(self._redacted(result.notice)), stacklevel=3)
            empty = empty + 1 if not result.items and _continues(result) else 0
            if empty > MAX_EMPTY_PAGES:
                raise PaginationError(
                    f"the service handed out a way forward on {empty} empty pages in a row "
                    f"({self._describe(request)}): stopping rather than following it forever",
                    method="GET",
                    url=self._shown(response.url),
                )
            if result.again and result.next is not None:  # nothing here: read `next` instead
                request = result.next
                continue
            prepared = self._prepare(request, response, result, skip, remaining, recent)
            if planned is not None:
                left = None if remaining is None else remaining - len(prepared.items)
                self._plan_after(planned, request, response, result, left)
            read += prepared.raw_count
            checked = result.checked  # a checked page's end meets its total, as its paginator says
            if not checked and prepared.place.last and from_start:
                self._check_complete(prepared.response, result.total, read)
            yield prepared
            following, url = prepared.place.next, prepared.response.url
            if remaining is not None:
                remaining -= len(prepared.items)
            del prepared, response, result  # not kept alive while the next page is fetched
            if following is None or remaining == 0:
                return
            if not checked:  # a checked page's `next` is formed from where the list stands
                identity = request_identity(following)
                if identity in seen:
                    raise PaginationError(
                        "the service sent a next-page request already followed in this list "
                        f"({self._describe(following)}); stopping rather than repeating items",
                        method="GET",
                        url=self._shown(url),
                    )
                seen.add(identity)
            request, skip = following, 0

    def _prepare(
        self,
        request: PageRequest,
        response: JSONResponse,
        result: PageResult,
        skip: int,
        remaining: int | None,
        recent: RecentIds,
    ) -> PreparedPage:
        """Cut a page read from a response to the new items the caller is owed."""
        delivery = recent.deliver(result.items, skip, remaining, result.deliver)
        if delivery.repeats and not delivery.items and not delivery.stopped_early:
            raise PaginationError(
                f"every item of the page at {self._shown(response.url)} repeats an id "
                "delivered just before: the service seems to ignore this list's paging "
                f"parameters ({self._describe(request)}); the paginator does not match its "
                "convention",
                method="GET",
                url=self._shown(response.url),
            )
        if delivery.repeats:
            warnings.warn(
                DuplicateItemWarning(
                    f"{delivery.repeats} item(s) of the page at {self._shown(response.url)} repeat "
                    "ids delivered just before; the repeats were skipped"
                ),
                stacklevel=3,
            )
        positions = delivery.positions
        stopped_early = delivery.stopped_early
        place = PagePlace(
            request=request,
            start=skip,
            positions=positions,
            end=positions[-1] if stopped_early and positions else len(result.items),
            whole=not stopped_early,
            next=None if stopped_early else result.next,
            resume=result.resume,
        )
        return PreparedPage(
            items=delivery.items,
            response=response,
            items_path=result.items_path,
            all_objects=delivery.all_objects,
            place=place,
            raw_count=len(result.items) - skip,
            convention=result.convention,
            total=result.total,
            shifts=result.shifts,
        )

    def _check_target(self, request: PageRequest) -> None:
        """Refuse, before sending, a next-page URL that is unsafe to send credentials to."""
        url = request.url
        if url is None:
            return
        problem = target_problem(url, self.call.base_url, self.call.trusted_origins)
        if problem is not None:
            raise PaginationError(problem, method="GET", url=self._shown(url))

    async def _fetched(
        self, fetch: FetchPage, request: PageRequest, *, opening: bool
    ) -> tuple[PageRequest, JSONResponse | None]:
        """The response to a page request, the request it answers, with the ways around a
        refused guess or (`opening`) the list's own first request (`_fetching`); None when
        every guess was refused."""
        if request.probe is not None:
            return await fetch_guess(fetch, request, self.call.secrets)
        if not opening:
            return request, await fetch(request)
        return await fetch_first(fetch, request, self.paginator.fallbacks(request))

    def _check_complete(self, response: JSONResponse, total: int | None, read: int) -> None:
        """Refuse an end of list that comes before the total the service announced."""
        if total is None:
            total = announced_total(None, response)
        if total is not None and read < total:
            raise PaginationError(
                f"the list ended after {read} items, but the service announced {total}: a "
                "continuation the paginator does not follow, or a list that shrank while it was "
                "listed; pin the service's convention with paginator=, or list it again",
                method="GET",
                url=self._shown(response.url),
            )

    def _redacted(self, text: str) -> str:
        return redact(text, self.call.secrets)

    def _plan_after(
        self,
        planned: _Planned,
        request: PageRequest,
        response: JSONResponse,
        result: PageResult,
        left: int | None,
    ) -> None:
        """Start the pages this page plans, or stop the list if its announced size changed."""
        count = self._plan_count(left, result)
        plan = self._checked(response, lambda: planned.plan(request, response, result, count))
        if plan is None:
            planned.ahead.want(())
            return
        if plan.size is None:  # the paginator proves each page itself, whatever the size
            planned.ahead.want(plan.requests)
            return
        if planned.size is not None and plan.size != planned.size:
            raise PaginationError(
                f"the list changed while its pages were fetched in parallel: it announced "
                f"{planned.size} before and {plan.size} at {self._shown(response.url)} "
                f"({self._describe(request)}), so its items may have moved between pages; stopping "
                "rather than skipping or repeating any (list it again for a consistent copy)",
                method="GET",
                url=self._shown(response.url),
            )
        planned.size = plan.size
        planned.ahead.want(plan.requests)

    def _plan_count(self, left: int | None, result: PageResult) -> int:
        """How many pages to fetch at once: `concurrency`, or fewer when `left` items remain."""
        count = self.concurrency
        if left is not None:
            count = min(count, -(-left // max(1, len(result.items))))
        return count

    def _describe(self, request: PageRequest) -> str:
        """A page request as messages show it: its URL without query, or its parameter names."""
        if request.url is not None:
            return self._shown(request.url) + " with the same query"
        return "&".join(f"{name}=..." for name, _ in request.params) or "no parameters"

    def _read(self, request: PageRequest, response: JSONResponse) -> PageResult:
        return self._checked(response, lambda: self.paginator.read(request, response))

    def _checked(self, response: JSONResponse, read: Callable[[], T]) -> T:
        """Run a paginator's reading of a response, giving its faults the HTTP context."""
        try:
            return read()
        except WireFault as fault:
            secrets = self.call.secrets
            shown = self._shown(response.url)
            raise wire_fault_error(fault, response, url=shown, secrets=secrets) from None
        except PagingFault as fault:
            error = PaginationError(str(fault), method="GET", url=self._shown(response.url))
            error.suggestion = fault.suggestion
            scrub_error(error, self.call.secrets)
            raise error from None


class _Planned:
    """The pages a list's announced size plans, fetched ahead, and the size first announced."""

    def __init__(
        self,
        ahead: PagesAhead,
        plan: Callable[[PageRequest, JSONResponse, PageResult, int], PagePlan | None],
    ) -> None:
        self.ahead = ahead
        self.plan = plan
        self.size: ListSize | None = None


def _continues(result: PageResult) -> bool:
    """Whether a page names a next page that is not a guess being tried."""
    return result.next is not None and result.next.probe is None


def target_problem(url: URL, base: URL, trusted_origins: Collection[str]) -> str | None:
    """Why a next-page URL must not be fetched, or None when it is safe to send credentials to."""
    problem = url_problem(url)
    if problem is not None:
        return f"the next-page link {problem}"
    origin = str(url.origin())
    if origin != str(base.origin()) and origin not in trusted_origins:
        return (
            f"the next page is on another origin ({origin}); credentials are only sent to "
            f"{base.origin()} (add it to trusted_origins to follow it)"
        )
    prefix = base.path.rstrip("/") + "/"
    if origin == str(base.origin()) and not url.path.startswith(prefix):
        return f"the next page is outside the API's base path {prefix!r}"
    return None


class _ReadAhead:
    """Pages read ahead of the caller, once it has read its pages in step.

    A producer task fetches them into a queue, holding at most `ahead` the caller has not
    taken. With `predict`, the requests it predicts for the free part of that allowance go out
    in parallel, or (`answered_first`) each as soon as the request before is answered
    (`Prefetch`). Answered first on a list whose next request can be predicted, no producer is
    needed: the walk goes on in step with the caller, and the `ahead` pages after the one it
    awaits are asked for as soon as that one is answered, before it is read; a page fetched
    ahead is read when the caller reaches it.
    """

    def __init__(
        self,
        pages_from: Callable[[FetchPage], AsyncGenerator[PreparedPage, None]],
        fetch: FetchPage,
        predict: Callable[[PageRequest], PageRequest | None] | None,
        ahead: int,
        name: str,
        *,
        answered_first: bool = False,
    ) -> None:
        self._queue: asyncio.Queue[PreparedPage | BaseException | None] = asyncio.Queue()
        self._ahead = ahead
        self._answered_first = answered_first
        self._slots = asyncio.Semaphore(ahead)
        self._prefetching = None
        self._predict = predict
        if predict is not None:
            self._prefetching = Prefetch(fetch, predict, self.room, answered_first=answered_first)
            fetch = self._prefetching.fetch  # the guessed pages' requests go out ahead
        self._pages = pages_from(fetch)
        self._name = name
        self._producer: asyncio.Task[None] | None = None
        self._reading_ahead = False

    def room(self) -> int:
        """How many pages may be guessed beyond the one fetched: none until the reading ahead
        starts (the pages read in step cause no request the caller does not read), then the
        whole allowance when the walk goes on in step (it holds no page while it awaits one),
        else what the pages held leave of it, the page fetched counted while it is in flight
        (answered first, guesses are made once it is not)."""
        if not self._reading_ahead:
            return 0
        if self._producer is None:  # in step: the walk holds no page while it awaits one
            return self._ahead
        in_flight = 0 if self._answered_first else 1
        return max(0, self._ahead - self._queue.qsize() - in_flight)

    async def _produce(self) -> None:
        pages, queue, slots = self._pages, self._queue, self._slots
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

    async def pages(self, in_step: int) -> AsyncIterator[PreparedPage]:
        """The caller's pages: `in_step` fetched as it reaches them, then the ones read ahead."""
        following = None
        for _ in range(in_step):
            prepared = await anext(self._pages, None)
            if prepared is None:
                return
            following = prepared.place.next
            yield prepared
            del prepared
        self._reading_ahead = True
        if self._answered_first and self._predictable(following):
            async for prepared in self._pages:
                yield prepared
                del prepared
            return
        self._producer = asyncio.create_task(self._produce(), name=self._name)
        prefetching = self._prefetching
        while (got := await self._queue.get()) is not None:
            if isinstance(got, BaseException):
                raise got
            self._slots.release()
            if prefetching is not None:
                prefetching.refill()
            await let_requests_out()
            yield got
            del got

    def _predictable(self, following: PageRequest | None) -> bool:
        """Whether the page after the last one read in step can be guessed from its request, so
        the walk may go on in step, its next requests guessed ahead of it."""
        return (
            following is not None
            and self._predict is not None
            and (self._predict(following) is not None)
        )

    async def close(self) -> None:
        """Stop reading ahead, with nothing left running."""
        producer = self._producer
        if producer is None:
            await self._pages.aclose()
        else:
            producer.cancel()
            with suppress(asyncio.CancelledError):
                await producer
        if self._prefetching is not None:
            await self._prefetching.close()
