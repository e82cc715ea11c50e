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
from typing import Any, Generic, TypeVar

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

Answer = GetResult[T] | asyncio.Future[GetResult[T]]
"""An id's answer as the iteration holds it: its result, or the future of its fetch."""


def _key(resource_id: object) -> str:
    return resource_id if isinstance(resource_id, str) else str(resource_id)


class BulkGet(Generic[T]):
    """Runs one get_many: `concurrency` workers each take the next input id, fetch it, and take
    the next one as soon as it is done, so a request goes out the moment one ends, whether or
    not the loop has taken the answers before it.

    An id already in flight shares that fetch; one among the last `dedupe_window` results is
    answered from it. Memory holds the fetches in flight (at most `concurrency`), the answers
    waiting for the loop (at most `concurrency` more) and the recent results: the input is
    read that far ahead of the loop, never whole.
    """

    def __init__(
        self,
        get: Callable[[str | int], Awaitable[T]],
        ids: IdSource,
        *,
        concurrency: int,
        dedupe_window: int,
        ordered: bool,
    ) -> None:
        if isinstance(ids, str | bytes):
            raise TypeError("ids must be an iterable of ids, not a single string")
        self._get = get
        self._sync_ids: Iterator[str | int] | None = None
        self._async_ids: AsyncIterator[str | int] | None = None
        self._taking: asyncio.Lock | None = None
        """Held by the worker awaiting an async input's next id, so ids are taken in order."""
        if isinstance(ids, AsyncIterable):
            self._async_ids = aiter(ids)
            self._taking = asyncio.Lock()
        else:
            self._sync_ids = iter(ids)
        self._concurrency = concurrency
        self._dedupe_window = dedupe_window
        self._ordered = ordered
        self._held = 2 * concurrency if ordered else concurrency
        """The most answers the loop has not taken (ordered: the fetches in flight included)."""
        self._answers: deque[Answer[T]] = deque()
        """Ordered: the answer of every id taken and not yet handed over, in input order.
        Unordered: the answers finished and not yet handed over, as they finished."""
        self._in_flight: dict[str, asyncio.Future[GetResult[T]]] = {}
        self._copies: dict[str, int] = {}
        """Unordered: how many more times each id in flight was asked for."""
        self._recent: OrderedDict[str, GetResult[T]] = OrderedDict()
        self._ended = False
        """The input is used up (or failed): no worker takes another id."""
        self._workers: set[asyncio.Task[None]] = set()
        self._wanted: asyncio.Future[None] | None = None
        """The loop waiting for an answer to hand over."""
        self._room: deque[asyncio.Future[None]] = deque()
        """Workers waiting for the loop to take answers before they take another id."""

    async def results(self) -> AsyncGenerator[GetResult[T], None]:
        """Yield one result per input id: in input order, or (unordered) as fetches finish."""
        loop = asyncio.get_running_loop()
        answers = self._answers
        try:
            for _ in range(self._concurrency):
                self._workers.add(loop.create_task(self._fetch()))
            while True:
                while answers:
                    head = answers[0]
                    if isinstance(head, asyncio.Future):
                        if not head.done():
                            break
                        head = head.result()  # raises an error that is no answer for an id
                    answers.popleft()
                    self._make_room()
                    yield head
                if self._ended and not answers and not self._in_flight:
                    return
                self._wanted = loop.create_future()
                try:
                    await self._wanted
                finally:
                    self._wanted = None
        finally:
            await self._cancel()

    async def _fetch(self) -> None:
        """A worker: takes the next id, answers it (fetching it, or from a fetch in flight or a
        recent result), and takes the next, until the input is used up."""
        loop = asyncio.get_running_loop()
        while True:
            while len(self._answers) >= self._held:
                room = loop.create_future()
                self._room.append(room)
                await room
            if self._ended:
                return
            try:
                resource_id = await self._next_id() if self._taking else self._next_sync_id()
            except Exception as error:  # the input failed: the loop raises it in its place
                self._ended = True
                self._hand_over(_failed(loop, error))
                return
            if resource_id is _END:
                self._ended = True
                self._wake()
                return
            key = _key(resource_id)
            if self._answered_already(key):
                continue
            answer: asyncio.Future[GetResult[T]] = loop.create_future()
            self._in_flight[key] = answer
            if self._ordered:
                self._answers.append(answer)
            try:
                # One turn of the loop first: the workers freed in one turn send their requests
                # together in the next, as a task per id would, which costs the loop and the
                # socket less than sending each the moment its worker is free (measured).
                await asyncio.sleep(0)
                result = await self._result(key, resource_id)  # type: ignore[arg-type]
            except Exception as error:  # no answer for the id: the loop raises it
                _fail(answer, error)
            else:
                self._remember(key, result)
                if not answer.done():  # cancelled when the iteration was
                    answer.set_result(result)
            finally:
                del self._in_flight[key]
            if not self._ordered:
                self._answers.extend([answer] * (1 + self._copies.pop(key, 0)))
            self._wake()

    def _answered_already(self, key: str) -> bool:
        """Answer an id from a recent result or the fetch in flight for it, if there is one
        (unordered, an id in flight is counted and handed over again when that fetch ends)."""
        recent = self._recent.get(key)
        if recent is not None:
            self._recent.move_to_end(key)
            self._hand_over(recent)
            return True
        shared = self._in_flight.get(key)
        if shared is None:
            return False
        if self._ordered:
            self._hand_over(shared)
        else:
            self._copies[key] = self._copies.get(key, 0) + 1
        return True

    async def _result(self, key: str, resource_id: str | int) -> GetResult[T]:
        try:
            return GetResult(key, value=await self._get(resource_id))
        except (RemedyError, ValueError, TypeError) as error:
            return GetResult(key, error=error)

    def _remember(self, key: str, result: GetResult[T]) -> None:
        if self._dedupe_window:
            self._recent[key] = result
            if len(self._recent) > self._dedupe_window:
                self._recent.popitem(last=False)

    def _hand_over(self, answer: Answer[T]) -> None:
        self._answers.append(answer)
        self._wake()

    def _wake(self) -> None:
        """Let the loop look at the answers again."""
        wanted = self._wanted
        if wanted is not None and not wanted.done():
            wanted.set_result(None)

    def _make_room(self) -> None:
        """Let one worker waiting for room take another id."""
        room = self._room
        while room:
            waiting = room.popleft()
            if not waiting.done():
                waiting.set_result(None)
                return

    def _next_sync_id(self) -> str | int | object:
        """The next id of a plain iterable (no await: it never waits), or _END."""
        assert self._sync_ids is not None
        return next(self._sync_ids, _END)

    async def _next_id(self) -> str | int | object:
        """The next id of an async iterable, or _END, taken by one worker at a time."""
        assert self._taking is not None
        assert self._async_ids is not None
        async with self._taking:
            if self._ended:
                return _END
            return await anext(self._async_ids, _END)

    async def _cancel(self) -> None:
        """End the workers (cancelling the fetches in flight) and wait until they have."""
        self._ended = True
        workers, self._workers = self._workers, set()
        for worker in workers:
            worker.cancel()
        await asyncio.gather(*workers, return_exceptions=True)
        for answer in self._answers:  # never handed over: their errors are nobody's now
            if isinstance(answer, asyncio.Future) and answer.done() and not answer.cancelled():
                answer.exception()
        self._answers.clear()
        self._room.clear()


def _failed(loop: asyncio.AbstractEventLoop, error: Exception) -> asyncio.Future[Any]:
    """An answer that raises `error` when the loop reaches it."""
    answer = loop.create_future()
    answer.set_exception(error)
    return answer


def _fail(answer: asyncio.Future[Any], error: BaseException) -> None:
    """Resolve a fetch's answer with an error that is no result for its id."""
    if answer.done():
        return
    if isinstance(error, asyncio.CancelledError):
        answer.cancel()
    else:
        answer.set_exception(error)


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
    bulk = BulkGet(get, ids, concurrency=concurrency, dedupe_window=dedupe_window, ordered=ordered)
    return bulk.results()
