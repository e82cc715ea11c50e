"""Fetches later pages ahead of the walk, handing each over only when it is exactly the page asked.

Two users: prefetch guesses the next requests (offsets, page numbers) assuming full pages, and
`concurrency` fetches the pages a list's announced size plans. Either way a page fetched ahead is
used only when the walk asks for exactly its request, so a wrong guess or a stale plan costs a
request but never an item.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Collection, Hashable

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

    def __init__(self, fetch: FetchPage) -> None:
        self._fetch = fetch
        self._ahead: dict[Hashable, asyncio.Task[JSONResponse]] = {}

    def __len__(self) -> int:
        return len(self._ahead)

    async def fetch(self, request: PageRequest) -> JSONResponse:
        """Return the response to `request`, from a fetch started ahead if there is one."""
        return await _awaited(self.take(request))

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
        return asyncio.create_task(self._fetch(request), name=PAGE_TASK)

    async def close(self) -> None:
        """Cancel every fetch still ahead and wait until they have ended."""
        tasks = list(self._ahead.values())
        self.want(())
        await asyncio.gather(*tasks, return_exceptions=True)


class Prefetch:
    """The `prefetch=` guesser: fetches the predicted next pages through `PagesAhead`, as many
    as `room()` allows."""

    def __init__(
        self,
        fetch: FetchPage,
        predict: Callable[[PageRequest], PageRequest | None],
        room: Callable[[], int],
    ) -> None:
        self._ahead = PagesAhead(fetch)
        self._predict = predict
        self._room = room
        self._guesses: list[PageRequest] = []
        """The last request fetched, then the requests guessed to follow it, in order."""

    async def fetch(self, request: PageRequest) -> JSONResponse:
        """Return the response to `request`, then keep guessing the pages after it."""
        task = self._ahead.take(request)
        self._guesses = [request]
        self._guess()
        return await _awaited(task)

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
