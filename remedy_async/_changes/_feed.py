"""The change feed a collection's `changes()` and `watch()` return: one pass, or passes
repeated every interval until cancelled."""

from __future__ import annotations

import asyncio
import os
import random
from collections.abc import AsyncGenerator, AsyncIterator, Callable
from typing import Any, Generic, TypeVar

from remedy_async._errors import ChangeStateError, RemedyError

from ._pass import Batch, Pass
from ._settings import FeedSettings, FeedSource
from ._state import ChangeState
from ._values import Change, PassResult

T = TypeVar("T")

StateArg = ChangeState | str | os.PathLike[str]
"""A change state, or the path of its file (opened for the feed's iteration, then closed)."""


def _as_is(raw: dict[str, Any]) -> dict[str, Any]:
    return raw


class ChangeFeed(Generic[T]):
    """What changed in a collection since the state's previous pass, as `Change` values.

    `async for change in feed` runs one pass (`changes()`) or a pass every interval until
    cancelled (`watch()`). Nothing is fetched until you iterate. The state commits a page once
    you have taken every change of it (when you ask for the change after its last, or the
    pass ends); a crash, an error, a `break` or a cancellation re-delivers at most the
    uncommitted changes, next time. `batches()` hands out each commit's changes together (a
    page's, or up to 1000 removals), committed when you ask for the next batch, for a sink
    that writes them at once. `as_dicts()` gives records as the wire dicts the service sent.
    `result` says how the latest pass went.
    """

    def __init__(
        self,
        source: FeedSource[T],
        state: StateArg,
        settings: FeedSettings,
        make: Callable[[dict[str, Any]], T] | None = None,
    ) -> None:
        self._source = source
        self._state = state
        self._settings = settings
        self._make: Callable[[dict[str, Any]], T] = source.read if make is None else make
        self.result: PassResult | None = None
        """How the latest pass went (None before the first one ends)."""

    def __repr__(self) -> str:
        what = "watch" if self._settings.interval is not None else "changes"
        return f"<ChangeFeed {what} of {self._source.collection} into {self._state!r}>"

    def as_dicts(self) -> ChangeFeed[dict[str, Any]]:
        """The same feed, its records (and previous records) as the wire dicts served."""
        return ChangeFeed(self._source, self._state, self._settings, _as_is)  # type: ignore[arg-type]

    def __aiter__(self) -> AsyncIterator[Change[T]]:
        return self._changes()

    async def _changes(self) -> AsyncGenerator[Change[T], None]:
        batches = self.batches()
        try:
            async for batch in batches:
                for change in batch:
                    yield change
        finally:
            await batches.aclose()

    async def batches(self) -> AsyncGenerator[Batch[T], None]:
        """Yield the changes a commit covers, together; the next request commits them."""
        state, owned = self._open()
        settings = self._settings
        sleep = settings.sleep or asyncio.sleep
        failures = 0
        try:
            while True:
                one = Pass(self._source, state, settings, self._make)
                batches = one.batches()
                try:
                    async for batch in batches:
                        yield batch
                except RemedyError as error:
                    self._ended(one)
                    if settings.interval is None or isinstance(error, ChangeStateError):
                        raise
                    failures += 1
                    if failures > settings.max_failures:
                        raise
                else:
                    failures = 0
                    self._ended(one)
                    if settings.interval is None:
                        return
                finally:
                    await batches.aclose()
                await sleep(self._delay())
        finally:
            if owned:
                state.close()

    def _open(self) -> tuple[ChangeState, bool]:
        given = self._state
        if isinstance(given, ChangeState):
            keep = self._settings.keep_records
            if keep is not None and keep != given.keep_records:
                raise ChangeStateError(
                    f"{given.path} was created with keep_records={given.keep_records}",
                    path=given.path,
                )
            return given, False
        return ChangeState(given, keep_records=self._settings.keep_records), True

    def _ended(self, one: Pass[T]) -> None:
        if one.result is None:
            return
        self.result = one.result
        report = self._settings.on_pass
        if report is not None:
            report(one.result)

    def _delay(self) -> float:
        settings = self._settings
        assert settings.interval is not None
        spread = settings.jitter * (2 * random.random() - 1)
        return settings.interval * (1 + spread)
