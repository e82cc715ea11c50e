"""Fetches many records by id concurrently, one result per input id, in bounded memory."""

from __future__ import annotations

import asyncio
from collections import OrderedDict, deque
from collections.abc import (
    AsyncGenerator,
    AsyncIterable,
    AsyncIterator,
    Awaitable,
    Callable,
    Iterable,
    Iterator,
)
from typing import Generic, TypeVar

from attrs import frozen

from ._errors import RemedyError, check_count

T = TypeVar("T")

IdSource = Iterable[str | int] | AsyncIterable[str | int]
"""Ids to fetch: any iterable or async iterable of str or int ids, read lazily."""


@frozen
class GetResult(Generic[T]):
    """One answer of get_many: the id asked for, and its record or the error in its way."""

    id: str
    """The id asked for, as text."""
    value: T | None = None
    """The record, or None when `error` says why not."""
    error: Exception | None = None
    """NotFoundError for an unknown id, ValueError/TypeError for an invalid one, or the API
    error that remained after retries."""

    @property
    def ok(self) -> bool:
        """Whether the record was fetched."""
        return self.error is None

    def unwrap(self) -> T:
        """Return the record, or raise the error that prevented fetching it."""
        if self.error is not None:
            raise self.error
        assert self.value is not None
        return self.value


_END = object()


def _key(resource_id: object) -> str:
    return resource_id if isinstance(resource_id, str) else str(resource_id)


Fetch = tuple[str, str | int, "asyncio.Future[GetResult[T]]"]
"""A fetch waiting for a worker: the id's key, the id as given, and where its result goes."""


class BulkGet(Generic[T]):
    """Runs one get_many: reads ids lazily, keeps at most `concurrency` fetches in flight.

    The fetches run in at most `concurrency` worker tasks, started as needed and kept until
    the iteration ends: each takes the next id waiting, or waits for one. An id already in
    flight shares that fetch; one among the last `dedupe_window` results is answered from it.
    Memory holds the in-flight fetches, the reorder window (ordered mode, at most
    `concurrency` entries) and the recent results, never the whole id stream.
    """

    def __init__(
        self,
        get: Callable[[str | int], Awaitable[T]],
        ids: IdSource,
        *,
        concurrency: int,
        dedupe_window: int,
    ) -> None:
        if isinstance(ids, str | bytes):
            raise TypeError("ids must be an iterable of ids, not a single string")
        self._get = get
        self._sync_ids: Iterator[str | int] | None = None
        self._async_ids: AsyncIterator[str | int] | None = None
        if isinstance(ids, AsyncIterable):
            self._async_ids = aiter(ids)
        else:
            self._sync_ids = iter(ids)
        self._concurrency = concurrency
        self._dedupe_window = dedupe_window
        self._in_flight: dict[str, asyncio.Future[GetResult[T]]] = {}
        self._recent: OrderedDict[str, GetResult[T]] = OrderedDict()
        self._waiting: deque[Fetch[T]] = deque()
        """Fetches no worker has taken yet."""
        self._idle: deque[asyncio.Future[None]] = deque()
        """What each idle worker waits on, to be woken when a fetch is waiting."""
        self._workers: list[asyncio.Task[None]] = []
        self._finished: deque[asyncio.Future[GetResult[T]]] | None = None
        """Unordered mode: the fetches done and not yet yielded, in the order they finished."""
        self._woken: asyncio.Future[None] | None = None
        """Unordered mode: what the iteration waits on until a fetch finishes."""

    async def _work(self) -> None:
        """Run waiting fetches one after the other; wait for more when there are none."""
        waiting, idle = self._waiting, self._idle
        loop = asyncio.get_running_loop()
        while True:
            if not waiting:
                wake: asyncio.Future[None] = loop.create_future()
                idle.append(wake)
                await wake
                continue
            key, resource_id, future = waiting.popleft()
            try:
                try:
                    result = GetResult(key, value=await self._get(resource_id))
                except (RemedyError, ValueError, TypeError) as error:
                    result = GetResult(key, error=error)
            except Exception as error:  # not an answer for the id: the iteration raises it
                del self._in_flight[key]
                future.set_exception(error)
                self._done(future)
                continue
            except BaseException:  # cancelled (the iteration ended), or the process stops
                del self._in_flight[key]
                future.cancel()
                raise
            del self._in_flight[key]
            if self._dedupe_window:
                self._recent[key] = result
                if len(self._recent) > self._dedupe_window:
                    self._recent.popitem(last=False)
            future.set_result(result)
            self._done(future)

    def _done(self, future: asyncio.Future[GetResult[T]]) -> None:
        """Unordered mode: hand a finished fetch to the iteration, waking it if it waits."""
        finished = self._finished
        if finished is not None:
            finished.append(future)
            woken = self._woken
            if woken is not None and not woken.done():
                woken.set_result(None)

    async def _next_id(self) -> str | int | object:
        """Return the next input id, or _END once the input is used up."""
        if self._sync_ids is not None:
            return next(self._sync_ids, _END)  # no await: a plain iterable never waits
        if self._async_ids is None:
            return _END
        resource_id = await anext(self._async_ids, _END)
        if resource_id is _END:
            self._async_ids = None
        return resource_id

    def _answer(self, resource_id: object) -> GetResult[T] | asyncio.Future[GetResult[T]]:
        """Return a known result for the id, or the fetch (shared or new) that will give it."""
        key = _key(resource_id)
        if key in self._recent:
            self._recent.move_to_end(key)
            return self._recent[key]
        future = self._in_flight.get(key)
        if future is None:
            future = asyncio.get_running_loop().create_future()
            self._in_flight[key] = future
            self._waiting.append((key, resource_id, future))  # type: ignore[arg-type]
            if self._idle:
                self._idle.popleft().set_result(None)
            elif len(self._workers) < self._concurrency:
                self._workers.append(asyncio.create_task(self._work()))
        return future

    async def ordered(self) -> AsyncGenerator[GetResult[T], None]:
        """Yield results in input order."""
        window: deque[GetResult[T] | asyncio.Future[GetResult[T]]] = deque()
        concurrency, ids = self._concurrency, self._sync_ids
        try:
            while True:
                if ids is not None:  # a plain iterable: read without a coroutine per id
                    while len(window) < concurrency and (rid := next(ids, _END)) is not _END:
                        window.append(self._answer(rid))
                while len(window) < concurrency and (rid := await self._next_id()) is not _END:
                    window.append(self._answer(rid))
                if not window:
                    return
                head = window.popleft()
                yield head if isinstance(head, GetResult) else await head
        finally:
            await self._cancel()

    async def as_completed(self) -> AsyncGenerator[GetResult[T], None]:
        """Yield results as their fetches finish."""
        waiting: dict[asyncio.Future[GetResult[T]], int] = {}
        finished = self._finished = deque()
        loop = asyncio.get_running_loop()
        try:
            while True:
                while (
                    len(waiting) < self._concurrency and (rid := await self._next_id()) is not _END
                ):
                    answer = self._answer(rid)
                    if isinstance(answer, GetResult):
                        yield answer
                    else:
                        waiting[answer] = waiting.get(answer, 0) + 1
                if not waiting:
                    return
                while not finished:
                    self._woken = loop.create_future()
                    await self._woken
                future = finished.popleft()
                for _ in range(waiting.pop(future)):
                    yield future.result()
        finally:
            await self._cancel()

    async def _cancel(self) -> None:
        """Stop the workers, and let them go: a worker refers to this runner, so one kept
        here would keep every recent result alive until the garbage collector found both."""
        workers, self._workers = self._workers, []
        for task in workers:
            task.cancel()
        await asyncio.gather(*workers, return_exceptions=True)


def get_many(
    get: Callable[[str | int], Awaitable[T]],
    ids: IdSource,
    concurrency: int,
    *,
    ordered: bool,
    dedupe_window: int,
) -> AsyncGenerator[GetResult[T], None]:
    """The results of `get_many`, its counts checked now: in the order of `ids`, or as done."""
    check_count("concurrency", concurrency, 1)
    check_count("dedupe_window", dedupe_window, 0)
    bulk = BulkGet(get, ids, concurrency=concurrency, dedupe_window=dedupe_window)
    return bulk.ordered() if ordered else bulk.as_completed()
