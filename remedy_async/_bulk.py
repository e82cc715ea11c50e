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
"""The input is used up."""
_AWAITED = object()
"""The input's next id is to be awaited (an async iterable's)."""


def _key(resource_id: object) -> str:
    return resource_id if isinstance(resource_id, str) else str(resource_id)


REORDER_WINDOWS = 2
"""How many times `concurrency` the ids an ordered get_many holds between the next result to
yield and the last id read: results that came in before one read earlier wait there, while
new fetches keep `concurrency` in flight (a window of `concurrency` alone would let one slow
answer hold back the fetches behind it)."""


class BulkGet(Generic[T]):
    """Runs one get_many: reads ids lazily, keeps at most `concurrency` fetches in flight.

    An id already in flight shares that fetch; one among the last `dedupe_window` results is
    answered from it. Memory holds the in-flight fetches, the reorder window (ordered mode, at
    most `REORDER_WINDOWS` times `concurrency` entries) and the recent results, never the whole id
    stream. Ordered, with ids from a plain iterable, a fetch that ends starts the next id's
    at once, as a worker would, not when the loop next takes a result.
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
        self._in_flight: dict[str, asyncio.Task[GetResult[T]]] = {}
        self._window: deque[GetResult[T] | asyncio.Task[GetResult[T]]] | None = None
        """Ordered: the ids read and not yet yielded, in input order; None otherwise, and once
        the fetches are being cancelled."""
        self._recent: OrderedDict[str, GetResult[T]] = OrderedDict()
        self._failure: Exception | None = None
        """The error the input raised, once it did."""

    async def _fetch(self, key: str, resource_id: str | int) -> GetResult[T]:
        try:
            try:
                result = GetResult(key, value=await self._get(resource_id))
            except (RemedyError, ValueError, TypeError) as error:
                result = GetResult(key, error=error)
        finally:
            del self._in_flight[key]
        if self._dedupe_window:
            self._recent[key] = result
            if len(self._recent) > self._dedupe_window:
                self._recent.popitem(last=False)
        if self._window is not None:
            self._admit(self._window)
        return result

    def _next_id(self) -> str | int | object:
        """Return the next input id of a plain iterable (no coroutine: it never waits), _END
        once the input is used up (or raised: `_input_failed`), or _AWAITED when the input is
        an async iterable, whose next id `_next_awaited` gives."""
        if self._sync_ids is not None:
            try:
                return next(self._sync_ids, _END)
            except Exception as error:
                return self._input_failed(error)
        return _END if self._async_ids is None else _AWAITED

    async def _next_awaited(self) -> str | int | object:
        """Return the next id of an async iterable input, or _END once it is used up."""
        assert self._async_ids is not None
        try:
            resource_id = await anext(self._async_ids, _END)
        except Exception as error:
            return self._input_failed(error)
        if resource_id is _END:
            self._async_ids = None
        return resource_id

    def _input_failed(self, error: Exception) -> object:
        """End the input where it raised, keeping its error for the loop to raise in its
        place, after the results of the ids read before it; _END."""
        self._sync_ids = self._async_ids = None
        self._failure = error
        return _END

    def _answer(self, resource_id: object) -> GetResult[T] | asyncio.Task[GetResult[T]]:
        """Return a known result for the id, or the fetch (shared or new) that will give it."""
        key = _key(resource_id)
        if key in self._recent:
            self._recent.move_to_end(key)
            return self._recent[key]
        task = self._in_flight.get(key)
        if task is None:
            # The loop's own create_task: asyncio.create_task adds a call per id around it.
            loop = asyncio.get_running_loop()
            task = loop.create_task(self._fetch(key, resource_id))  # type: ignore[arg-type]
            self._in_flight[key] = task
        return task

    def _admit(self, window: deque[GetResult[T] | asyncio.Task[GetResult[T]]]) -> bool:
        """Read ids into the reorder window while fewer than `concurrency` fetches are in
        flight and it has room; True when the next id is to be awaited (`_next_awaited`)."""
        room = self._concurrency * REORDER_WINDOWS
        while len(self._in_flight) < self._concurrency and len(window) < room:
            rid = self._next_id()
            if rid is _AWAITED:
                return True
            if rid is _END:
                break
            window.append(self._answer(rid))
        return False

    async def ordered(self) -> AsyncGenerator[GetResult[T], None]:
        """Yield results in input order."""
        window: deque[GetResult[T] | asyncio.Task[GetResult[T]]] = deque()
        self._window = window
        try:
            while True:
                while self._admit(window):
                    rid = await self._next_awaited()
                    if rid is _END:
                        break
                    window.append(self._answer(rid))
                if not window:
                    self._raise_failure()
                    return
                head = window.popleft()
                yield head if isinstance(head, GetResult) else await head
        finally:
            await self._cancel()

    async def as_completed(self) -> AsyncGenerator[GetResult[T], None]:
        """Yield results as their fetches finish."""
        waiting: dict[asyncio.Task[GetResult[T]], int] = {}
        try:
            while True:
                while len(waiting) < self._concurrency:
                    if (rid := self._next_id()) is _AWAITED:
                        rid = await self._next_awaited()
                    if rid is _END:
                        break
                    answer = self._answer(rid)
                    if isinstance(answer, GetResult):
                        yield answer
                    else:
                        waiting[answer] = waiting.get(answer, 0) + 1
                if not waiting:
                    self._raise_failure()
                    return
                done, _ = await asyncio.wait(waiting, return_when=asyncio.FIRST_COMPLETED)
                for task in done:
                    for _ in range(waiting.pop(task)):
                        yield task.result()
        finally:
            await self._cancel()

    def _raise_failure(self) -> None:
        """Raise the input's error, once every id read before it was answered."""
        if self._failure is not None:
            raise self._failure

    async def _cancel(self) -> None:
        self._window = None  # a fetch cancelled now starts no other
        tasks = list(self._in_flight.values())
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


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
