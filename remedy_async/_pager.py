"""The lazy result of a list call: iterate items or pages, or collect them.

The pager owns the loop (ask the paginator, fetch, read, structure, yield) and nothing about any
paging scheme; the fetch function it is given does the I/O.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable, Mapping, Sequence
from typing import Any, Generic, TypeVar

from attrs import frozen

from ._codec import WireFault, fault_from
from ._errors import PaginationError
from ._http import JSONResponse
from ._paging import PageRequest, PageResult, Paginator, PagingFault
from ._response import wire_fault_error

T = TypeVar("T")

FetchPage = Callable[[PageRequest], Awaitable[JSONResponse]]


@frozen
class Page(Generic[T]):
    """One page of a list: its items and the response that carried them."""

    items: tuple[T, ...]
    status: int
    headers: Mapping[str, str]
    request_id: str | None
    url: str


class Pager(Generic[T]):
    """Lists records lazily: `async for` items, `pages()`, `collect()` or `first()`.

    Nothing is fetched until you iterate. Each iteration starts from the first page again.
    `max_items` caps the items yielded and stops fetching once it is reached.
    """

    def __init__(
        self,
        *,
        fetch: FetchPage,
        paginator: Paginator,
        model: type[T],
        structure: Callable[[object, object], T],
        page_size: int | None,
        max_items: int | None,
        description: str,
    ) -> None:
        self._fetch = fetch
        self._paginator = paginator
        self._model = model
        self._structure = structure
        self._page_size = page_size
        self._max_items = max_items
        self._description = description

    def __repr__(self) -> str:
        return (
            f"<Pager {self._description} page_size={self._page_size} "
            f"max_items={self._max_items} paginator={type(self._paginator).__name__}>"
        )

    def __aiter__(self) -> AsyncIterator[T]:
        return self._iterate_items()

    async def _iterate_items(self) -> AsyncGenerator[T, None]:
        async for page in self.pages():
            for item in page.items:
                yield item

    async def pages(self) -> AsyncIterator[Page[T]]:
        """Yield the list page by page; the last page is cut short when max_items is reached."""
        remaining = self._max_items
        if remaining == 0:
            return
        request: PageRequest | None = self._paginator.first(self._page_size)
        while request is not None:
            response = await self._fetch(request)
            result = self._read(request, response)
            raw_items = result.items if remaining is None else result.items[:remaining]
            yield Page(
                items=self._structure_items(raw_items, result.items_path, response),
                status=response.status,
                headers=response.headers,
                request_id=response.request_id,
                url=str(response.url),
            )
            if remaining is not None:
                remaining -= len(raw_items)
                if remaining <= 0:
                    return
            request = result.next

    async def collect(self) -> list[T]:
        """Return every item (up to max_items) as a list."""
        return [item async for item in self]

    async def first(self) -> T | None:
        """Return the first item, or None when the list is empty; fetches one page at most."""
        iterator = self._iterate_items()
        try:
            async for item in iterator:
                return item
            return None
        finally:
            await iterator.aclose()

    def _read(self, request: PageRequest, response: JSONResponse) -> PageResult:
        try:
            return self._paginator.read(request, response)
        except WireFault as fault:
            raise wire_fault_error(fault, response) from None
        except PagingFault as fault:
            raise PaginationError(str(fault), method="GET", url=response.url) from None

    def _structure_items(
        self, raw_items: Sequence[Any], items_path: str, response: JSONResponse
    ) -> tuple[T, ...]:
        structure, model = self._structure, self._model
        try:
            return tuple([structure(raw, model) for raw in raw_items])
        except Exception:
            for index, raw in enumerate(raw_items):
                try:
                    structure(raw, model)
                except Exception as exc:
                    fault = fault_from(exc, f"{items_path}[{index}]", model)
                    raise wire_fault_error(fault, response) from exc
            raise
