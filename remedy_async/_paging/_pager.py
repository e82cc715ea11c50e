"""The lazy result of a list call: iterate items or pages, collect them, or resume them.

The pager hands items (or pages) to the caller, building each record as it goes, and knows
nothing about any paging convention: a `PageWalk` fetches and reads the pages, through the fetch
function it is given. The pager keeps the position of the last item handed to the caller, so
any stop (a break, an error, a crash after a checkpoint) can continue from a resume token with
nothing lost and nothing repeated.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterator, Callable, Generator, Mapping, Sequence
from functools import partial
from typing import TYPE_CHECKING, Any, Generic, Literal, NoReturn, TypeVar, cast

from attrs import field, frozen
from msgspec.structs import replace

from remedy_async._errors import DecodeError, RemedyError
from remedy_async._redact import redact, redact_headers, scrub_error, shown_url
from remedy_async._wire._decode import wire_fault_error

from ._call import WIRE_OBJECTS, ListCall, wire_object
from ._protocol import NO_SHIFTS, Convention, PageRequest, Shifts
from ._resume import ResumePoint, encode_token
from ._walk._page_walk import PagePlace, PageWalk, PreparedPage

T = TypeVar("T")
U = TypeVar("U")


class _Later:
    """A page's value made only when first read (`Page.headers`, `url`, `resume_token`): a
    list read page by page for its items pays for none of them."""

    __slots__ = ("make",)

    def __init__(self, make: Callable[[], Any]) -> None:
        self.make = make


def _resolved(page: Any, name: str) -> Any:
    value = getattr(page, name)
    if value.__class__ is _Later:
        value = value.make()
        object.__setattr__(page, name, value)
    return value


@frozen
class Page(Generic[T]):
    """One page of a list: its items, the response that carried them, and where to resume.

    `headers` and `url` stay out of the repr: a service may echo a secret into them (a cursor,
    a next link). Two pages are equal when their items, status, request id, items path, total
    and shifts are.
    """

    items: tuple[T, ...]
    """The page's records, as the list reads them."""
    status: int
    """The response's HTTP status."""
    _headers: Any = field(repr=False, eq=False, alias="headers")
    request_id: str | None
    """The service's id of the request (`X-Request-Id`), when it sent one."""
    _url: Any = field(repr=False, eq=False, alias="url")
    _resume_token: Any = field(repr=False, eq=False, alias="resume_token")
    items_path: str = "$.items"
    """Where in the body the items were found: `$.items`, `$.data.children`, `$` for an array."""
    total: int | None = None
    """The number of items in the whole list, when the service announces it on this page (the
    list's convention reads it: `total`, `X-Total-Count`, ...); None when it does not."""
    shifts: Shifts = NO_SHIFTS
    """What proving this page cost when records were added or removed before it since the page
    before (offset lists): realignments, re-reads and restarts; all zero when none were."""
    _token_after: Callable[[int], str | None] | None = field(
        default=None, init=False, repr=False, eq=False
    )

    @property
    def headers(self) -> Mapping[str, str]:
        """The response's headers (a secret the service echoed into one redacted)."""
        headers: Mapping[str, str] = _resolved(self, "_headers")
        return headers

    @property
    def url(self) -> str:
        """The URL the page came from (a secret the service echoed into it redacted)."""
        url: str = _resolved(self, "_url")
        return url

    @property
    def resume_token(self) -> str | None:
        """Continues the list right after this page's last item; None when the list is
        complete."""
        token: str | None = _resolved(self, "_resume_token")
        return token

    def resume_token_after(self, count: int) -> str | None:
        """A token continuing the list right after the first `count` items of this page (all
        of them: `resume_token`), for a consumer that stops part-way through a page.

        Args:
            count: How many of the page's items were handled, from 0 to `len(items)`.
        """
        if (
            isinstance(count, bool)
            or not isinstance(count, int)
            or not 0 <= count <= len(self.items)
        ):
            raise ValueError(f"count must be an int from 0 to {len(self.items)}, got {count!r}")
        if count == len(self.items) or self._token_after is None:
            if count != len(self.items):
                raise ValueError("this page was not made by a Pager, so it knows no other place")
            return self.resume_token
        return self._token_after(count)


class Pager(Generic[T]):
    """Lists records lazily: `async for` items, `pages()`, `collect()` or `first()`; or
    `await` it for the first page alone.

    Nothing is fetched until you iterate, and each iteration starts again from where the list
    call began. `max_items` caps the items and stops fetching once reached; `prefetch=N` keeps
    up to N pages in flight ahead of you; `concurrency=N` fetches up to N pages at once when
    the list's size plans them. `resume_token` says where the latest iteration stopped (None
    once the list is complete).

    `page = await collection.list(...)` fetches exactly one page, the list's first (or the one
    its `resume_token` continues), and returns it as a `Page`; `page.resume_token` lists the
    next one. A pager is either awaited, once, or iterated, any number of times: awaiting it
    again, awaiting one already iterated, or iterating one already awaited raises RuntimeError
    before any request, since each would hand over the first page's items again instead of
    the ones after them.
    """

    def __init__(self, call: ListCall[T]) -> None:
        self._call = call
        self._use: Literal["awaited", "iterated"] | None = None
        self._at_page: PagePlace | None = None
        self._at_count = 0
        self._convention: Convention | None = None
        self._total: int | None = None
        self._shifts = Shifts()

    def __repr__(self) -> str:
        call, limits = self._call, self._call.limits
        return (
            f"<Pager {call.description} page_size={limits.page_size} "
            f"max_items={limits.max_items} prefetch={limits.prefetch} "
            f"concurrency={limits.concurrency} "
            f"paginator={type(call.paginator).__name__}>"
        )

    def as_dicts(self) -> Pager[dict[str, Any]]:
        """Return the same list yielding each record as its wire dict, not as a model.

        For throughput when you only pass records on (to a file, a queue, another service):
        paging, resume tokens, safety checks, secrets and retries are unchanged; only building
        the model is skipped. Each item is still checked to be a JSON object.
        """
        return Pager(self._call.reading(WIRE_OBJECTS))

    @property
    def convention(self) -> Convention | None:
        """The paging convention the list follows, known once its first page has been read.

        Pass it as `paginator=` (to the client, or per collection) to pin it.
        """
        return self._convention

    def _entered(self, prepared: PreparedPage) -> None:
        """Note the page now being handed over, and the convention it was read by."""
        if prepared.total is not None:
            self._total = prepared.total
        if prepared.shifts:
            self._shifts += prepared.shifts
            told = self._call.on_shifts
            if told is not None:
                told(str(prepared.shifts), shown_url(prepared.response.url, self._call.secrets))
        convention = prepared.convention
        if convention is None or convention is self._convention:  # the same as the page before
            return
        if convention != self._convention:
            self._convention = convention
            announce = self._call.on_convention
            if announce is not None:
                announce(convention, shown_url(prepared.response.url, self._call.secrets))

    @property
    def total(self) -> int | None:
        """The number of items in the whole list, as the latest page read announced it (None
        before the first page, or when the service announces none): for progress and ETAs."""
        return self._total

    @property
    def shifts(self) -> Shifts:
        """What proving the latest iteration's pages cost, so far: on an offset list, how many
        pages were realigned or re-read (or the list restarted) because records were added or
        removed before them while it was read. Each record that existed throughout is still
        delivered exactly once; zero counts mean the data did not move under the list."""
        return self._shifts

    @property
    def resume_token(self) -> str | None:
        """Token continuing right after the last item handed out; None when the list is done."""
        point = self._resume_point()
        return None if point is None else encode_token(point, self._call.secrets)

    def __aiter__(self) -> AsyncIterator[T]:
        return self._iterated(self._iterate_items())

    if not TYPE_CHECKING:  # a type checker keeps refusing `for` over a pager as it is

        def __iter__(self) -> NoReturn:
            """TypeError saying to use `async for`: a pager fetches its pages with asyncio, and
            has no blocking form. Raised before any request."""
            raise TypeError(
                f"a Pager of {self._call.description} is asynchronous: iterate it with 'async "
                "for item in pager' inside an async function run by asyncio.run() (or take "
                "every item with 'await pager.collect()'), not 'for'"
            )

    def __await__(self) -> Generator[Any, None, Page[T]]:
        """Fetch exactly one page, the list's first or the one `resume_token` continues, and
        return it: `page = await client.endpoints.list(page_size=50)`.

        The page is cut to `max_items`; its `resume_token` continues the list after it (None
        when the list is complete), and so does the pager's. `prefetch` and `concurrency` do
        not apply: one request is sent (more only where the list's convention needs them to
        read one page, as a proven offset list re-reading a page that moved). An empty list
        gives its one page, without items. When no page is read at all (`max_items=0`, or a
        list resumed where it turned out to end), the page has no items, status 204 (no
        content), no headers and no URL.

        Raises:
            RuntimeError: The pager was awaited or iterated before (see the class), raised
                before any request.
        """
        if self._use is not None:
            why = (
                "awaiting it again would fetch the same first page, not the next"
                if self._use == "awaited"
                else "awaiting it would fetch its first page, items the iteration handed over"
            )
            raise RuntimeError(
                f"this Pager of {self._call.description} was already {self._use}: {why}; for "
                "the page after a page, list with resume_token=page.resume_token"
            )
        self._use = "awaited"
        return self._first_page().__await__()

    async def _first_page(self) -> Page[T]:
        """The list's first page, read by a walk that fetches no page ahead of it."""
        limits = self._call.limits
        one_page = replace(self._call, limits=replace(limits, prefetch=0, concurrency=1))
        pages = self._observed(self._iterate_pages(PageWalk(one_page)))
        try:
            async for page in pages:
                return page
        finally:
            await pages.aclose()
        # No page was read: max_items=0 asked for none (the list continues where it began), or
        # the list ended where it was resumed (every guess at a next page refused).
        return Page(
            items=(),
            status=204,
            headers={},
            request_id=None,
            url="",
            resume_token=self.resume_token if limits.max_items == 0 else None,
        )

    def _observed(self, steps: AsyncGenerator[U, None]) -> AsyncGenerator[U, None]:
        """An iteration as the call's `observe` hook (if any) wraps it."""
        observe = self._call.observe
        return steps if observe is None else cast(AsyncGenerator[U, None], observe(steps))

    def _iterated(self, steps: AsyncGenerator[U, None]) -> AsyncGenerator[U, None]:
        """An iteration of the caller's, observed; refused on a pager already awaited."""
        if self._use == "awaited":
            raise RuntimeError(
                f"this Pager of {self._call.description} was awaited for its first page: "
                "iterating it would hand over that page's items again; for the rest, list "
                "with resume_token=page.resume_token, or iterate a pager not awaited"
            )
        self._use = "iterated"
        return self._observed(steps)

    async def _iterate_items(self) -> AsyncGenerator[T, None]:
        # Records are built one at a time as they are handed over rather than a page at a
        # time, so a record the caller drops is freed at once instead of ageing into the
        # garbage collector's older generations (that cost a typed list a third of its speed).
        reader = self._call.reader
        model = reader.model
        self._at_page, self._at_count = None, 0
        self._shifts = Shifts()
        delivered = 0
        try:
            async with self._walk().pages() as prepared_pages:
                async for prepared in prepared_pages:
                    self._entered(prepared)
                    structure = reader.hook_for(prepared.items)
                    delivered += self._at_count
                    self._at_page, self._at_count = prepared.place, 0
                    if structure is wire_object and _json_objects(prepared):
                        for count, item in enumerate(prepared.items, 1):
                            # The position moves before the hand-over: a caller that stops
                            # after this item resumes after it.
                            self._at_count = count
                            yield item
                    else:
                        for count, raw in enumerate(prepared.items, 1):
                            try:
                                item = structure(raw, model)
                            except Exception as exc:
                                raise self._decode_error(prepared, count - 1, exc) from exc
                            self._at_count = count
                            yield item
                    del prepared  # not kept alive while the next page is fetched and decoded
        except RemedyError as error:
            self._mark(error, delivered + self._at_count)
            raise

    def pages(self) -> AsyncGenerator[Page[T], None]:
        """Yield the list page by page; the last page is cut short when max_items is reached."""
        return self._iterated(self._iterate_pages(self._walk()))

    async def _iterate_pages(self, walk: PageWalk) -> AsyncGenerator[Page[T], None]:
        self._at_page, self._at_count = None, 0
        self._shifts = Shifts()
        secrets = self._call.secrets
        yielded = 0
        try:
            async with walk.pages() as prepared_pages:
                async for prepared in prepared_pages:
                    self._entered(prepared)
                    items = self._structure_items(prepared)
                    self._at_page, self._at_count = prepared.place, len(items)
                    yielded += len(items)
                    response = prepared.response
                    page = Page(
                        items=items,
                        status=response.status,
                        headers=_Later(partial(redact_headers, response.headers, secrets)),
                        request_id=_redacted(response.request_id, secrets),
                        url=_Later(partial(shown_url, response.url, secrets, query=True)),
                        resume_token=_Later(partial(self._token_after, prepared.place, len(items))),
                        items_path=prepared.items_path,
                        total=prepared.total,
                        shifts=prepared.shifts,
                    )
                    # Where the page's k-th item sits, for `Page.resume_token_after` (not an
                    # argument: only a pager knows its places).
                    object.__setattr__(
                        page, "_token_after", partial(self._token_after, prepared.place)
                    )
                    yield page
                    del prepared, items, page, response  # the caller holds the page if it wants
        except RemedyError as error:
            self._mark(error, yielded)
            raise

    async def collect(self) -> list[T]:
        """Return every item (up to max_items) as a list."""
        return [item async for item in self]

    async def first(self) -> T | None:
        """Return the first item, or None when the list is empty; fetches one page at most."""
        iterator = self._iterated(self._iterate_items())
        try:
            async for item in iterator:
                return item
            return None
        finally:
            await iterator.aclose()

    def _walk(self) -> PageWalk:
        return PageWalk(self._call)

    def _mark(self, error: RemedyError, yielded: int) -> None:
        """Say where the list stopped, and keep the call's secrets out of what the error shows."""
        scrub_error(error, self._call.secrets)
        error.resume_token = self.resume_token
        error.items_yielded = yielded

    def _token_after(self, page: PagePlace, count: int) -> str | None:
        """The token continuing right after the first `count` items of a page handed out."""
        point = self._point_after(page, count)
        return None if point is None else encode_token(point, self._call.secrets)

    def _resume_point(self) -> ResumePoint | None:
        return self._point_after(self._at_page, self._at_count)

    def _point_after(self, page: PagePlace | None, count: int) -> ResumePoint | None:
        start = self._call.start
        if page is None:
            return start
        if count >= len(page.positions) and page.last:
            return None
        after = page.after(count)
        if after is None:  # nothing delivered yet: where the list call began continues it
            return start
        return self._point(*after)

    def _point(self, request: PageRequest, skip: int) -> ResumePoint:
        start = self._call.start
        return ResumePoint(start.collection, start.filters, start.paginator, request, skip)

    def _structure_items(self, prepared: PreparedPage) -> tuple[T, ...]:
        reader = self._call.reader
        structure, model = reader.hook_for(prepared.items), reader.model
        if structure is wire_object and _json_objects(prepared):
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
        fault = self._call.reader.fault(exc, path)
        secrets = self._call.secrets
        shown = shown_url(prepared.response.url, secrets)
        return wire_fault_error(fault, prepared.response, url=shown, secrets=secrets)


def _json_objects(prepared: PreparedPage) -> bool:
    """Whether every item of a page is known to be a JSON object, so `as_dicts()` hands them
    over unchecked: records with ids, not typed views (a page is decoded whole, one way or
    the other, so its first item says which)."""
    items = prepared.items
    return prepared.all_objects and (not items or items[0].__class__ is dict)


def _redacted(text: str | None, secrets: Sequence[str]) -> str | None:
    return None if text is None else redact(text, secrets)
