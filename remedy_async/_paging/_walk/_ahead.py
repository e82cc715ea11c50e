"""Fetches later pages ahead of the walk, handing each over only when it is exactly the page asked.

Two users: prefetch guesses the next requests (offsets, page numbers) assuming full pages, and
`concurrency` fetches the pages a list's announced size plans. Either way a page fetched ahead is
used only when the walk asks for exactly its request, so a wrong guess or a stale plan costs a
request but never an item.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Collection, Hashable
from contextvars import Context, copy_context
from functools import partial

from remedy_async._paging._protocol import FetchPage, PageRequest, request_key
from remedy_async._wire._http import JSONResponse

PAGE_TASK = "remedy-page"
"""The name of every task fetching a page ahead of the walk."""


class PagesAhead:
    """The page fetches started ahead of the walk, by request as the service sees it
    (`request_key`: what a request carries to read its page by is no part of it).

    `fetch` hands over the one for the request asked (fetching it on the spot, and cancelling
    every other, when it was not started ahead); `want` keeps exactly the fetches of the given
    requests running. Cancelled fetches have their errors discarded.
    """

    def __init__(
        self, fetch: FetchPage, answered: Callable[[PageRequest], None] | None = None
    ) -> None:
        self._fetch = fetch
        self._answered = answered
        """Told of each request whose answer is in, before the answer is read."""
        self._ahead: dict[Hashable, asyncio.Task[JSONResponse]] = {}
        self.context: Context | None = None
        """The context each fetch started runs in (a copy each): the walk's, as it last asked
        for a page, so a fetch started by another's answer is no part of that page's call
        (its events' parent, its telemetry span). None: the context current when it starts."""

    def __len__(self) -> int:
        return len(self._ahead)

    async def fetch(
        self, request: PageRequest, answered: Callable[[], None] | None = None
    ) -> JSONResponse:
        """Return the response to `request`, from a fetch started ahead if there is one."""
        response = await _awaited(self.take(request))
        if answered is not None:
            answered()
        return response

    def take(self, request: PageRequest) -> asyncio.Task[JSONResponse]:
        """The fetch of `request`, started now (and every other dropped) if not started ahead."""
        task = self._ahead.pop(request_key(request), None)
        if task is None:
            self.want(())
            task = self._start(request)
        return task

    def want(self, requests: Collection[PageRequest]) -> None:
        """Keep exactly these requests' fetches running: start the missing, cancel the others."""
        wanted = {request_key(request): request for request in requests}
        for unwanted in [key for key in self._ahead if key not in wanted]:
            task = self._ahead.pop(unwanted)
            task.cancel()
            task.add_done_callback(_discard_outcome)
        for key, request in wanted.items():
            if key not in self._ahead:
                self._ahead[key] = self._start(request)

    def _start(self, request: PageRequest) -> asyncio.Task[JSONResponse]:
        context = None if self.context is None else self.context.copy()
        if self._answered is None:
            fetching = self._fetch(request)
        else:
            fetching = self._fetch(request, partial(self._answered, request))
        return asyncio.create_task(fetching, name=PAGE_TASK, context=context)

    async def close(self) -> None:
        """Cancel every fetch still ahead and wait until they have ended."""
        tasks = list(self._ahead.values())
        self.want(())
        await asyncio.gather(*tasks, return_exceptions=True)


class Prefetch:
    """The guesser of the pages after the one fetched: fetches the predicted next pages through
    `PagesAhead`, as many as `room()` allows.

    In parallel (`prefetch=N`), the guesses go out with the request fetched. `answered_first`,
    they go out once the service has answered it, before its answer is read: the service sees
    one request at a time, in the list's order, and answers the next while the client reads
    this one.
    """

    def __init__(
        self,
        fetch: FetchPage,
        predict: Callable[[PageRequest], PageRequest | None],
        room: Callable[[], int],
        *,
        answered_first: bool = False,
    ) -> None:
        self._ahead = PagesAhead(fetch, self._answered if answered_first else None)
        self._predict = predict
        self._room = room
        self._answered_first = answered_first
        self._awaited_key: Hashable | None = None
        """Answered first: the request fetched, until its answer is in."""
        self._guesses: list[PageRequest] = []
        """The last request fetched, then the requests guessed to follow it, in order."""

    async def fetch(
        self, request: PageRequest, answered: Callable[[], None] | None = None
    ) -> JSONResponse:
        """Return the response to `request`, keeping the pages after it guessed."""
        self._ahead.context = copy_context()
        task = self._ahead.take(request)
        if not self._answered_first:
            self._guess_after(request)
            response = await _awaited(task)
        else:
            self._guesses = []  # nothing is guessed while the request fetched is unanswered
            self._awaited_key = request_key(request)
            try:
                response = await _awaited(task)
            finally:
                self._awaited_key = None
            if not self._guesses:  # answered before it was asked for (a guess), or read otherwise
                self._guess_after(request)
                if self._ahead:  # their requests go out before this page is read
                    await let_requests_out()
        if answered is not None:
            answered()
        return response

    def _answered(self, request: PageRequest) -> None:
        """A fetch's answer is in: when it answers the request fetched, guess the next ones."""
        if self._awaited_key is not None and request_key(request) == self._awaited_key:
            self._awaited_key = None
            self._guess_after(request)

    def _guess_after(self, request: PageRequest) -> None:
        """Guess afresh the pages after `request`, the one fetched."""
        self._guesses = [request]
        self._guess()

    def refill(self) -> None:
        """Use room the caller just freed to guess further ahead."""
        if self._guesses:
            self._guess()

    def _guess(self) -> None:
        """Guess as many pages after the last fetched as there is room for: the guesses made
        already are kept (each from the one before), only the missing ones are made."""
        guesses, room = self._guesses, self._room()
        del guesses[room + 1 :]
        while len(guesses) <= room:
            guess = self._predict(guesses[-1])
            if guess is None:
                break
            guesses.append(guess)
        self._ahead.want(guesses[1:])

    async def close(self) -> None:
        await self._ahead.close()


async def _awaited(task: asyncio.Task[JSONResponse]) -> JSONResponse:
    try:
        return await task
    except asyncio.CancelledError:
        task.cancel()
        raise


def _discard_outcome(task: asyncio.Task[JSONResponse]) -> None:
    if not task.cancelled():
        task.exception()


LOOP_TURNS_TO_SEND = 1
"""Turns of the event loop a fetch just started ahead takes to put its request on a pooled
connection: one, since nothing on the way waits (aiohttp hands over a pooled connection at
once). A fetch that must wait (a new connection, a rate limit's pause) sends its request at
the caller's next await instead: later, never lost. Each turn more cost about 1% of a typed
list's time at zero latency."""


async def let_requests_out() -> None:
    """Let the fetches started ahead send their requests before a page is handed over.

    A caller reading a page's items awaits nothing between them, so without this a fetch ahead
    would only start once the caller asks for the next page, and prefetching would overlap
    nothing; this way the service answers it while the caller reads.
    """
    for _ in range(LOOP_TURNS_TO_SEND):
        await asyncio.sleep(0)
