"""The change feed a collection's `changes()` and `watch()` return: one pass, or passes
repeated every interval until cancelled.

An iteration is an object (`FeedRun`), not a bare async generator, so that leaving it with
`break` releases the state at once: Python closes an abandoned async generator only later, on
the event loop, and a state opened by path would stay locked (and a page's transaction open)
until then. The pass's own generator, closed later, no longer touches the state.
"""

from __future__ import annotations

import asyncio
import os
import random
from collections.abc import AsyncGenerator, AsyncIterator, Callable
from typing import Any, Generic, TypeVar

from remedy_async._errors import ChangeStateError, RemedyError

from ._change import Change, PassResult
from ._feed_settings import FeedSettings, FeedSource
from ._pass import Batch, Pass
from ._state import ChangeState

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
        return Changes(self.batches())

    def batches(self) -> FeedRun[T]:
        """Iterate the changes a commit covers, together; asking for the next commits them."""
        return FeedRun(self)

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


class _Holding(Generic[T]):
    """What an iteration holds: the state (and whether it opened it) and the current pass.
    Shared by the run and its generator, so the generator holds no reference to the run (a
    cycle would keep a dropped run alive until the garbage collector found it)."""

    def __init__(self) -> None:
        self.state: ChangeState | None = None
        self.owned = False
        self.current: Pass[T] | None = None

    def release(self) -> None:
        """Detach the current pass, roll back what was not committed, close an owned state."""
        one, self.current = self.current, None
        if one is not None:
            one.detach()
        state, self.state = self.state, None
        if state is not None:
            state.rollback()
            if self.owned:
                state.close()


class FeedRun(Generic[T]):
    """One iteration of a feed, batch by batch; leaving it (`break`, `aclose()`, dropping it)
    rolls back what was not committed and closes a state it opened."""

    def __init__(self, feed: ChangeFeed[T]) -> None:
        self._holding: _Holding[T] = _Holding()
        self._done = False
        self._batches = _run(feed, self._holding)

    def __aiter__(self) -> FeedRun[T]:
        return self

    async def __anext__(self) -> Batch[T]:
        try:
            return await self._batches.__anext__()
        except BaseException:
            self._done = True
            raise

    async def aclose(self) -> None:
        """Stop the iteration: roll back what was not committed, close a state it opened."""
        self._done = True
        self._holding.release()
        await self._batches.aclose()

    def __del__(self) -> None:
        if not self._done:
            self._holding.release()


async def _run(feed: ChangeFeed[T], holding: _Holding[T]) -> AsyncGenerator[Batch[T], None]:
    settings = feed._settings
    sleep = settings.sleep or asyncio.sleep
    state, holding.owned = feed._open()
    holding.state = state
    failures = 0
    try:
        while True:
            one = holding.current = Pass(feed._source, state, settings, feed._make)
            batches = one.batches()
            try:
                async for batch in batches:
                    yield batch
            except RemedyError as error:
                feed._ended(one)
                if settings.interval is None or isinstance(error, ChangeStateError):
                    raise
                failures += 1
                if failures > settings.max_failures:
                    raise
            else:
                failures = 0
                feed._ended(one)
                if settings.interval is None:
                    return
            finally:
                await batches.aclose()
            await sleep(feed._delay())
    finally:
        if holding.state is not None and holding.owned:
            holding.state.close()
        holding.state = holding.current = None


class Changes(Generic[T]):
    """A feed's changes one at a time, from its batches."""

    def __init__(self, run: FeedRun[T]) -> None:
        self._run = run
        self._batch: Batch[T] = ()
        self._next = 0

    def __aiter__(self) -> Changes[T]:
        return self

    async def __anext__(self) -> Change[T]:
        while self._next >= len(self._batch):
            self._batch, self._next = await self._run.__anext__(), 0
        change = self._batch[self._next]
        self._next += 1
        return change

    async def aclose(self) -> None:
        """Stop: roll back what was not committed, close a state the feed opened."""
        await self._run.aclose()
