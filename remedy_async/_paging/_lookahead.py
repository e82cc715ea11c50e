"""Fetches predicted next pages in parallel for prefetch, using a guess only when it was right."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from typing import Any

from remedy_async._http import JSONResponse

from ._protocol import PageRequest

FetchPage = Callable[[PageRequest], Coroutine[Any, Any, JSONResponse]]


class LookAhead:
    """Fetches predicted next pages in parallel, handing each over only if it was the right guess.

    A request that was not predicted is fetched on the spot, and every outstanding guess is
    cancelled. Guesses whose result nobody wants are cancelled and their errors discarded, so a
    wrong guess costs a request but never an item.
    """

    def __init__(
        self,
        fetch: FetchPage,
        predict: Callable[[PageRequest], PageRequest | None],
        room: Callable[[], int],
    ) -> None:
        self._fetch = fetch
        self._predict = predict
        self._room = room
        self._ahead: dict[PageRequest, asyncio.Task[JSONResponse]] = {}
        self._latest: PageRequest | None = None

    async def fetch(self, request: PageRequest) -> JSONResponse:
        task = self._ahead.pop(request, None)
        if task is None:
            self._drop(list(self._ahead))
            task = asyncio.create_task(self._fetch(request))
        self._latest = request
        self._guess_after(request)
        try:
            return await task
        except asyncio.CancelledError:
            task.cancel()
            raise

    def refill(self) -> None:
        """Use room the caller just freed to guess further ahead."""
        if self._latest is not None:
            self._guess_after(self._latest)

    def _guess_after(self, request: PageRequest) -> None:
        wanted: list[PageRequest] = []
        current = request
        for _ in range(self._room()):
            guess = self._predict(current)
            if guess is None:
                break
            wanted.append(guess)
            current = guess
        self._drop([guess for guess in self._ahead if guess not in wanted])
        for guess in wanted:
            if guess not in self._ahead:
                self._ahead[guess] = asyncio.create_task(self._fetch(guess))

    def _drop(self, guesses: list[PageRequest]) -> None:
        for guess in guesses:
            task = self._ahead.pop(guess)
            task.cancel()
            task.add_done_callback(_discard_outcome)

    async def close(self) -> None:
        tasks = list(self._ahead.values())
        self._drop(list(self._ahead))
        await asyncio.gather(*tasks, return_exceptions=True)


def _discard_outcome(task: asyncio.Task[JSONResponse]) -> None:
    if not task.cancelled():
        task.exception()
