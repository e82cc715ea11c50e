"""The lazy result of a list call: iterate items or pages, collect them, or resume them.

The pager hands items (or pages) to the caller, building each record as it goes, and knows
nothing about any paging scheme: a `PageWalk` fetches and reads the pages, through the fetch
function it is given. The pager keeps the position of the last item handed to the caller, so
any stop (a break, an error, a crash after a checkpoint) can continue from a resume token with
nothing lost and nothing repeated.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterator, Callable, Mapping
from typing import Any, Generic, TypeVar

from attrs import field, frozen
from yarl import URL

from remedy_async._errors import DecodeError, RemedyError
from remedy_async._redact import redact, redact_headers
from remedy_async._wire._codec import fault_from
from remedy_async._wire._faults import WireFault, json_type_name
from remedy_async._wire._reader import wire_fault_error
from remedy_async._wire._records import RecordReader

from ._lookahead import FetchPage
from ._protocol import Convention, PageRequest, Paginator
from ._resume import ResumePoint, encode_token
from ._walk import PagePlace, PageWalk, PreparedPage, shown_url

T = TypeVar("T")


@frozen
class Page(Generic[T]):
    """One page of a list: its items, the response that carried them, and where to resume.

    `headers` and `url` are the response's own and stay out of the repr: a service may echo a
    secret into them (a cursor, a next link).
    """

    items: tuple[T, ...]
    status: int
    headers: Mapping[str, str] = field(repr=False)
    request_id: str | None
    url: str = field(repr=False)
    resume_token: str | None
    """Continues the list right after this page's last item; None when the list is complete."""
    items_path: str = "$.items"
    """Where in the body the items were found: `$.items`, `$.data.children`, `$` for an array."""


class Pager(Generic[T]):
    """Lists records lazily: `async for` items, `pages()`, `collect()` or `first()`.

    Nothing is fetched until you iterate, and each iteration starts again from where the list
    call began. `max_items` caps the items and stops fetching once reached; `prefetch=N` keeps
    up to N pages in flight ahead of you; `concurrency=N` fetches up to N pages at once when
    the list's size plans them. `resume_token` says where the latest iteration stopped (None
    once the list is complete).
    """

    def __init__(
        self,
        *,
        fetch: FetchPage,
        paginator: Paginator,
        model: type[T],
        structure: Callable[[object, object], T],
        reader: RecordReader[T] | None = None,
        start: ResumePoint,
        base_url: URL,
        page_size: int | None,
        max_items: int | None,
        prefetch: int,
        concurrency: int = 1,
        description: str,
        trusted_origins: frozenset[str] = frozenset(),
        on_convention: Callable[[Convention, str], None] | None = None,
        secrets: tuple[str, ...] = (),
    ) -> None:
        self._fetch = fetch
        self._paginator = paginator
        self._model = model
        self._structure = structure
        self._reader = reader
        self._start = start
        self._base_url = base_url
        self._page_size = page_size
        self._max_items = max_items
        self._prefetch = prefetch
        self._concurrency = concurrency
        self._description = description
        self._trusted_origins = trusted_origins
        self._on_convention = on_convention
        self._secrets = secrets
        self._at_page: PagePlace | None = None
        self._at_count = 0
        self._convention: Convention | None = None

    def __repr__(self) -> str:
        return (
            f"<Pager {self._description} page_size={self._page_size} "
            f"max_items={self._max_items} prefetch={self._prefetch} "
            f"concurrency={self._concurrency} "
            f"paginator={type(self._paginator).__name__}>"
        )

    def as_dicts(self) -> Pager[dict[str, Any]]:
        """Return the same list yielding each record as its wire dict, not as a model.

        For throughput when you only pass records on (to a file, a queue, another service):
        paging, resume tokens, safety checks and retries are unchanged; only building the
        model is skipped. Each item is still checked to be a JSON object.
        """
        return Pager(
            fetch=self._fetch,
            paginator=self._paginator,
            model=dict,
            structure=_wire_object,
            start=self._start,
            base_url=self._base_url,
            page_size=self._page_size,
            max_items=self._max_items,
            prefetch=self._prefetch,
            concurrency=self._concurrency,
            description=self._description,
            trusted_origins=self._trusted_origins,
            on_convention=self._on_convention,
        )

    @property
    def convention(self) -> Convention | None:
        """The paging convention the list follows, known once its first page has been read.

        Pass it as `paginator=` (to the client, or per collection) to pin it.
        """
        return self._convention

    def _entered(self, prepared: PreparedPage) -> None:
        """Note the page now being handed over, and the convention it was read by."""
        convention = prepared.convention
        if convention is not None and convention != self._convention:
            self._convention = convention
            if self._on_convention is not None:
                # The list's URL without the page's query, which may hold an echoed secret.
                self._on_convention(convention, str(prepared.response.url.with_query(None)))

    @property
    def resume_token(self) -> str | None:
        """Token continuing right after the last item handed out; None when the list is done."""
        point = self._resume_point()
        return None if point is None else encode_token(point, self._secrets)

    def __aiter__(self) -> AsyncIterator[T]:
        return self._iterate_items()

    async def _iterate_items(self) -> AsyncGenerator[T, None]:
        # Records are built one at a time as they are handed over rather than a page at a
        # time, so a record the caller drops is freed at once instead of ageing into the
        # garbage collector's older generations (that cost a typed list a third of its speed).
        structure, model, reader = self._structure, self._model, self._reader
        self._at_page, self._at_count = None, 0
        delivered = 0
        try:
            async with self._walk().pages() as prepared_pages:
                async for prepared in prepared_pages:
                    self._entered(prepared)
                    if reader is not None:
                        structure = reader.hook_for(prepared.items)
                    delivered += self._at_count
                    self._at_page, self._at_count = prepared.place, 0
                    ready = structure is _wire_object and prepared.all_objects
                    for count, raw in enumerate(prepared.items, 1):
                        if ready:
                            item = raw
                        else:
                            try:
                                item = structure(raw, model)
                            except Exception as exc:
                                raise self._decode_error(prepared, count - 1, exc) from exc
                        # The position moves before the hand-over: a caller that stops after
                        # this item resumes after it.
                        self._at_count = count
                        yield item
                    del prepared  # not kept alive while the next page is fetched and decoded
        except RemedyError as error:
            self._mark(error, delivered + self._at_count)
            raise

    async def pages(self) -> AsyncGenerator[Page[T], None]:
        """Yield the list page by page; the last page is cut short when max_items is reached."""
        self._at_page, self._at_count = None, 0
        yielded = 0
        try:
            async with self._walk().pages() as prepared_pages:
                async for prepared in prepared_pages:
                    self._entered(prepared)
                    items = self._structure_items(prepared)
                    self._at_page, self._at_count = prepared.place, len(items)
                    yielded += len(items)
                    yield Page(
                        items=items,
                        status=prepared.response.status,
                        headers=redact_headers(prepared.response.headers, self._secrets),
                        request_id=prepared.response.request_id,
                        url=redact(str(prepared.response.url), self._secrets),
                        resume_token=self.resume_token,
                        items_path=prepared.items_path,
                    )
                    del prepared, items  # the caller holds the page if it wants it
        except RemedyError as error:
            self._mark(error, yielded)
            raise

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

    def _walk(self) -> PageWalk:
        return PageWalk(
            fetch=self._fetch,
            paginator=self._paginator,
            request=self._start.request,
            skip=self._start.skip,
            base_url=self._base_url,
            max_items=self._max_items,
            prefetch=self._prefetch,
            concurrency=self._concurrency,
            description=self._description,
            from_start=self._start.skip == 0
            and self._start.request == self._paginator.first(self._page_size),
            trusted_origins=self._trusted_origins,
        )

    def _mark(self, error: RemedyError, yielded: int) -> None:
        error.resume_token = self.resume_token
        error.items_yielded = yielded

    def _resume_point(self) -> ResumePoint | None:
        page, count = self._at_page, self._at_count
        if page is None:
            return self._start
        if count < len(page.positions):
            consumed = page.start if count == 0 else page.positions[count - 1]
            return self._point(page.request, consumed)
        if not page.whole:
            return self._point(page.request, page.end)
        return None if page.next is None else self._point(page.next, 0)

    def _point(self, request: PageRequest, skip: int) -> ResumePoint:
        start = self._start
        return ResumePoint(start.collection, start.filters, start.scheme, request, skip)

    def _structure_items(self, prepared: PreparedPage) -> tuple[T, ...]:
        structure, model = self._structure, self._model
        if self._reader is not None:
            structure = self._reader.hook_for(prepared.items)
        if structure is _wire_object and prepared.all_objects:
            return tuple(prepared.items)
        try:
            return tuple([structure(raw, model) for raw in prepared.items])
        except Exception:
            for count, raw in enumerate(prepared.items):
                try:
                    structure(raw, model)
                except Exception as exc:
                    raise self._decode_error(prepared, count, exc) from exc
            raise

    def _decode_error(self, prepared: PreparedPage, count: int, exc: Exception) -> DecodeError:
        """The DecodeError for the `count`-th delivered item of a page, with its JSON path."""
        positions = prepared.place.positions
        index = (positions[count] - 1) if positions else count
        path = f"{prepared.items_path}[{index}]"
        if self._reader is not None:
            fault = self._reader.fault(exc, path)
        else:
            fault = fault_from(exc, path, self._model)
        return wire_fault_error(fault, prepared.response, url=shown_url(prepared.response.url))


def _wire_object(item: object, _: object) -> dict[str, Any]:
    if item.__class__ is dict:
        return item
    raise WireFault("$", f"expected an object, got {json_type_name(item)}")
