"""One collection listed across many tenants at once: `TenantPager`, and what it yields.

Each tenant's list is today's `Pager` (its paging, overlap proof, retries, resume tokens), read
by a task of its own that hands whole pages over a queue; the caller takes them as they come,
tenant by tenant interleaved, so a slow or rate-limited tenant never holds the others back.
Where each tenant stands is read from the pages handed out, never from the pagers (which run
ahead): after item k of a page, `Page.resume_token_after(k)`. A tenant that fails does not stop
the others; once they are done, `TenantErrors` names every failure with every tenant's resume
token, so nothing is silently missing.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Mapping
from typing import Any, Generic, TypeVar

from attrs import frozen

from remedy_async._columnar._arrow import BatchBuilder
from remedy_async._columnar._checked import checked_dicts
from remedy_async._errors import RemedyError, TenantErrors
from remedy_async._models import Resource
from remedy_async._paging._pager import Page, Pager

from ._columns import with_tenant

T = TypeVar("T")
X = TypeVar("X")


@frozen
class TenantRecord(Generic[T]):
    """One record of a list over many tenants, and the tenant it belongs to."""

    tenant: str
    """The tenant's name."""
    record: T
    """The record, as the tenant's list reads it (a model, or a dict with `as_dicts()`)."""


@frozen
class TenantPage(Generic[T]):
    """One page of one tenant's list, in a list over many tenants."""

    tenant: str
    """The tenant's name."""
    page: Page[T]
    """The page, with its items and the resume token of the tenant's list after it."""


class _Ended:
    """A tenant's pages are over (listed to their end, or failed)."""

    __slots__ = ("tenant",)

    def __init__(self, tenant: str) -> None:
        self.tenant = tenant


class _Broken:
    """A tenant's task failed with something other than the library's errors (a bug)."""

    __slots__ = ("error",)

    def __init__(self, error: BaseException) -> None:
        self.error = error


class TenantPager(Generic[T]):
    """Lists one collection across many tenants at once: `async for item in pager` gives
    `TenantRecord`s, `pages()` gives `TenantPage`s, `arrow_batches()` Arrow record batches with
    a `tenant` column; each tenant's records in its list's order, the tenants interleaved as
    their pages arrive. Nothing is fetched until you iterate.

    A tenant whose list fails (after its client's retries) is recorded in `failures` while the
    others go on; at the end of the iteration `TenantErrors` names each failure. `resume_tokens`
    says where every tenant stands, after the last record handed out (None for a tenant listed
    to its end): pass it to `TenantClients.list(..., resume_tokens=...)` to continue exactly.
    """

    def __init__(
        self,
        resource: Resource[T],
        pagers: Mapping[str, Pager[T]],
        complete: tuple[str, ...] = (),
        *,
        pages_ahead: int = 2,
    ) -> None:
        self._resource = resource
        self._pagers = dict(pagers)
        self._complete = complete
        self._pages_ahead = pages_ahead
        self._starts = {name: pager.resume_token for name, pager in self._pagers.items()}
        self._places: dict[str, Callable[[], str | None]] = {}
        self.failures: dict[str, RemedyError] = {}
        """Each tenant whose list failed in the latest iteration, by name: its error."""

    def __repr__(self) -> str:
        return (
            f"<TenantPager {self._resource.attribute} tenants={len(self._pagers)} "
            f"complete={len(self._complete)} failed={len(self.failures)}>"
        )

    @property
    def tenants(self) -> tuple[str, ...]:
        """The tenants listed, in order (those given as complete left out)."""
        return tuple(self._pagers)

    @property
    def resume_tokens(self) -> dict[str, str | None]:
        """Where each tenant stands after the records handed out: a token continuing its list,
        or None for a tenant listed to its end (and for those given as complete)."""
        tokens: dict[str, str | None] = dict.fromkeys(self._complete)
        for name, start in self._starts.items():
            place = self._places.get(name)
            tokens[name] = start if place is None else place()
        return tokens

    def __aiter__(self) -> AsyncIterator[TenantRecord[T]]:
        return self._records()

    async def _records(self) -> AsyncGenerator[TenantRecord[T], None]:
        async for name, page in self._merged(lambda pager: pager.pages()):
            items = page.items
            for count, item in enumerate(items, 1):
                # The tenant's place moves before the hand-over: a caller that stops after this
                # record continues after it.
                self._places[name] = _after(page, count)
                yield TenantRecord(name, item)
            self._places[name] = _after(page, len(items))

    def pages(self) -> AsyncGenerator[TenantPage[T], None]:
        """Yield each tenant's pages as they arrive, tagged with the tenant."""
        return self._pages()

    async def _pages(self) -> AsyncGenerator[TenantPage[T], None]:
        async for name, page in self._merged(lambda pager: pager.pages()):
            self._places[name] = _after(page, len(page.items))
            yield TenantPage(name, page)

    def arrow_batches(self) -> AsyncGenerator[Any, None]:
        """Yield a `pyarrow.RecordBatch` per page: the resource's fixed columns (as
        `remedy_async.columnar` types them) after a `tenant` column holding the tenant's name;
        each record checked against its model first. Needs pyarrow (the `arrow` extra)."""
        return self._batches()

    async def _batches(self) -> AsyncGenerator[Any, None]:
        builder = BatchBuilder(self._resource.model)
        async for name, page in self._merged(lambda pager: checked_dicts(pager).pages()):
            self._places[name] = _after(page, len(page.items))
            if page.items:
                yield with_tenant(builder.build(page.items), name)

    async def collect(self) -> list[TenantRecord[T]]:
        """Return every record of every tenant (raising `TenantErrors` if any tenant failed)."""
        return [record async for record in self]

    async def _merged(
        self, pages_of: Callable[[Pager[T]], AsyncIterator[Page[X]]]
    ) -> AsyncGenerator[tuple[str, Page[X]], None]:
        """Every tenant's pages, as they arrive: one task per tenant fills a queue holding a
        few pages per tenant; a failed tenant is recorded, the rest go on."""
        self.failures = {}
        self._places = {}
        queue: asyncio.Queue[tuple[str, Page[X]] | _Ended | _Broken] = asyncio.Queue(
            maxsize=max(1, self._pages_ahead * len(self._pagers))
        )

        async def pump(name: str, pager: Pager[T]) -> None:
            try:
                async for page in pages_of(pager):
                    await queue.put((name, page))
            except RemedyError as error:
                error.add_note(f"tenant: {name}")
                error.tenant = name
                self.failures[name] = error
            except asyncio.CancelledError:
                raise
            except BaseException as error:  # a bug: stop everything and show it
                await queue.put(_Broken(error))
                return
            await queue.put(_Ended(name))

        tasks = [
            asyncio.create_task(pump(name, pager), name=f"remedy tenant {name}")
            for name, pager in self._pagers.items()
        ]
        running = len(tasks)
        try:
            while running:
                item = await queue.get()
                if isinstance(item, _Ended):
                    running -= 1
                elif isinstance(item, _Broken):
                    raise item.error
                else:
                    yield item
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
        if self.failures:
            raise TenantErrors(
                f"{len(self.failures)} of {len(self._pagers)} tenants failed: "
                + ", ".join(sorted(self.failures)),
                self.failures,
                self.resume_tokens,
            )


def _after(page: Page[Any], count: int) -> Callable[[], str | None]:
    """Where a tenant stands after `count` items of `page`, computed only when asked."""
    return lambda: page.resume_token_after(count)
