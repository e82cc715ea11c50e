"""A shard read into Arrow blocks, exactly once across retries: what an engine's worker runs.

`BlockReader` reads one shard's tenants of one collection in an event loop of its own (a thread
beside the engine's, which keeps fetching while a block is handed over), as Arrow tables of the
collection's columns after a `tenant` column, one every `block_rows` rows or `block_seconds`.
Before handing a block over it commits it to the run's `Ledger` with every tenant's resume
token after it; a retry of the shard hands every committed block over again, in order, and
resumes from those tokens (see `_ledger`), and first waits one rate-limit window so that the
dead attempt's requests and its own never share a window at the service. Engines differ only
in where the ledger lives, how a call reaches it and where it keeps the blocks
(`LedgerCalls`): on Ray, an actor keeping them in the object store.
"""

from __future__ import annotations

import asyncio
import math
import queue
import threading
import time
from collections.abc import AsyncGenerator, Awaitable, Callable, Iterator, Mapping, Sequence
from contextlib import suppress
from typing import Any, Protocol

from attrs import frozen

from remedy_async._columnar._extras import require

from ._clients import TenantClients, resource_named
from ._columns import PURPOSE, tenant_schema
from ._ledger import ShardState
from ._plan import Shard
from ._tenant import TenantKey, longest_window

DEFAULT_BLOCK_ROWS = 10_000
DEFAULT_BLOCK_SECONDS = 2.0


class LedgerCalls(Protocol):
    """How a worker reaches its run's `Ledger` (directly, or through an engine's actor)."""

    def begin(self, index: int) -> ShardState:
        """Start an attempt of a shard."""
        ...

    def commit(
        self, index: int, place: int, block: Any, progress: Mapping[str, str | None]
    ) -> None:
        """Record a block about to be handed over, and where every tenant stands after it."""
        ...

    def finish(self, index: int) -> None:
        """Record that a shard handed everything over."""
        ...

    def block(self, kept: Any) -> Any:
        """A committed block as `begin` gave it back, as a table again."""
        ...


@frozen
class Block:
    """An Arrow table of a shard's records, and every tenant's resume token after it."""

    table: Any
    progress: Mapping[str, str | None]


@frozen
class BlockReader:
    """Reads one shard of a run into blocks (see the module); `blocks(ledger)` runs it."""

    shard: Shard
    keys: Sequence[TenantKey]
    collection: str
    list_options: Mapping[str, Any]
    client_options: Mapping[str, Any]
    max_connections: int
    block_rows: int = DEFAULT_BLOCK_ROWS
    block_seconds: float = DEFAULT_BLOCK_SECONDS
    sleep: Callable[[float], Awaitable[object]] = asyncio.sleep
    """How a retry waits its rate-limit window (tests pass one that returns at once)."""

    @property
    def schema(self) -> Any:
        """The blocks' Arrow schema: `tenant`, then the collection's columns."""
        return tenant_schema(resource_named(self.collection).model)

    def blocks(self, ledger: LedgerCalls) -> Iterator[Any]:
        """Hand over the shard's blocks, committing each to `ledger` first: those earlier
        attempts handed over, again and in order, then the rest, from where they left each
        tenant."""
        index = self.shard.index
        state = ledger.begin(index)
        yield from map(ledger.block, state.blocks)
        if state.finished:
            return
        place = len(state.blocks)
        retried = state.attempt > 1
        wait = longest_window(self.keys, self.client_options.get("rate_limit")) if retried else 0.0
        for block in self._read(state.progress, wait):
            ledger.commit(index, place, block.table, block.progress)
            place += 1
            yield block.table
        ledger.finish(index)

    def _read(self, progress: Mapping[str, str | None], wait: float) -> Iterator[Block]:
        """The shard's blocks from `progress` on, made by an event loop in a thread of its own
        and handed over here one at a time (at most two ahead). Closing this generator early
        (the engine stops reading) cancels that loop's work and waits for the thread."""
        handed: queue.Queue[Block | BaseException | None] = queue.Queue(maxsize=2)
        stop = threading.Event()
        running: list[tuple[asyncio.AbstractEventLoop, asyncio.Task[Any]]] = []

        def put(item: Block | BaseException | None) -> None:
            while not stop.is_set():
                try:
                    handed.put(item, timeout=0.1)
                    return
                except queue.Full:
                    continue

        async def produce() -> None:
            task = asyncio.current_task()
            assert task is not None
            running.append((asyncio.get_running_loop(), task))
            if stop.is_set():
                return
            if wait:
                await self.sleep(wait)
            async for block in self._made(progress):
                await asyncio.to_thread(put, block)

        def run() -> None:
            try:
                asyncio.run(produce())
            except asyncio.CancelledError:
                put(None)
            except BaseException as error:  # handed to the engine's thread, raised there
                put(error)
            else:
                put(None)

        thread = threading.Thread(target=run, name=f"remedy shard {self.shard.index}", daemon=True)
        thread.start()
        try:
            while True:
                item = handed.get()
                if item is None:
                    return
                if isinstance(item, BaseException):
                    raise item
                yield item
        finally:
            stop.set()
            for loop, task in running:
                with suppress(RuntimeError):  # the loop may have closed already
                    loop.call_soon_threadsafe(task.cancel)
            thread.join()

    async def _made(self, progress: Mapping[str, str | None]) -> AsyncGenerator[Block, None]:
        pa = require("pyarrow", PURPOSE)
        schema = self.schema
        clients = TenantClients._of_keys(
            self.keys, max_connections=self.max_connections, **self.client_options
        )
        async with clients:
            pager = clients.list(
                self.collection,
                tenants=self.shard.tenants,
                resume_tokens=progress,
                **self.list_options,
            )
            batches: list[Any] = []
            rows, began = 0, math.inf
            clock: Callable[[], float] = time.monotonic
            async for batch in pager.arrow_batches():
                if not batches:
                    began = clock()
                batches.append(batch)
                rows += batch.num_rows
                if rows >= self.block_rows or clock() - began >= self.block_seconds:
                    yield Block(pa.Table.from_batches(batches, schema), pager.resume_tokens)
                    batches, rows = [], 0
            if batches:
                yield Block(pa.Table.from_batches(batches, schema), pager.resume_tokens)
