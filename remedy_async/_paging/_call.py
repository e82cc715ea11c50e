"""One list call, as a value: everything its pages are fetched, read, limited and shown by.

The collection builds a `ListCall` once; the pager, each of its variants (`as_dicts()`) and
every walk over its pages are made from that one value, never from arguments copied by hand, so
no variant can be built without what the call carries (its secrets above all). A variant that
differs in one respect is the same value with that field replaced (`ListCall.reading`).
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Callable, Sequence
from typing import Any, Final, Generic, Literal, Protocol, TypeVar

from msgspec import Struct
from msgspec.structs import replace
from yarl import URL

from remedy_async._errors import check_count
from remedy_async._wire._types import WireFault, json_type_name

from ._paginators._proven import SHIFT_POLICIES, ShiftPolicy
from ._protocol import Convention, FetchPage, PageRequest, Paginator
from ._resume import ResumePoint

T = TypeVar("T")
T_co = TypeVar("T_co", covariant=True)
U = TypeVar("U")

Observe = Callable[[AsyncGenerator[Any, None]], AsyncGenerator[Any, None]]
"""Wraps an iteration of a list call, yielding what it yields (`ListCall.observe`)."""

Structure = Callable[[object, object], T]
"""Builds one item from its raw JSON value (cattrs' structure-hook signature)."""


class ItemReader(Protocol[T_co]):
    """Turns a page's raw items into what a list yields, and says where one does not fit."""

    @property
    def model(self) -> type[T_co]:
        """What each item becomes."""
        ...

    def hook_for(self, items: Sequence[Any]) -> Callable[[object, object], T_co]:
        """The function building each item of this page (naming may be decided on it)."""
        ...

    def fault(self, exc: BaseException, path: str) -> WireFault:
        """Describe why the item at `path` could not be built."""
        ...


def wire_object(item: object, _: object) -> dict[str, Any]:
    """An item as its wire dict, checked to be a JSON object."""
    if item.__class__ is dict:
        return item
    raise WireFault("$", f"expected an object, got {json_type_name(item)}")


class WireObjects:
    """Yields each item as the JSON object it arrived as (`Pager.as_dicts()`)."""

    model: type[dict[str, Any]] = dict

    def __repr__(self) -> str:
        return "<WireObjects>"

    def hook_for(self, items: Sequence[Any]) -> Callable[[object, object], dict[str, Any]]:
        """Every page's items pass as they are, each checked to be an object."""
        return wire_object

    def fault(self, exc: BaseException, path: str) -> WireFault:
        """An item that is not a JSON object, at its path."""
        reason = exc.reason if isinstance(exc, WireFault) else str(exc)
        return WireFault(path, reason)


WIRE_OBJECTS = WireObjects()


AUTO: Final = "auto"
"""`prefetch="auto"`: read one page ahead once the loop has read a few in step (the walk's
`READ_AHEAD_AFTER`)."""

Prefetch = int | Literal["auto"]
"""How far a list reads ahead of its loop: a number of pages, or `"auto"`."""


class ListLimits(Struct, frozen=True):
    """How much of a list is fetched, and how: page size, item cap, pages ahead, pages at once,
    and what a list that cannot be proven to continue does. Each is checked when made."""

    page_size: int | None = None
    max_items: int | None = None
    prefetch: Prefetch = AUTO
    concurrency: int = 1
    on_shift: ShiftPolicy = "raise"

    def __post_init__(self) -> None:
        check_count("page_size", self.page_size, 1)
        check_count("max_items", self.max_items, 0)
        if self.prefetch != AUTO:
            if self.prefetch is None:
                raise ValueError("prefetch must be 'auto' or an int >= 0, got None")
            check_count("prefetch", self.prefetch, 0)
        check_count("concurrency", self.concurrency, 1)
        if self.on_shift not in SHIFT_POLICIES:
            raise ValueError(f"on_shift must be one of {SHIFT_POLICIES}, not {self.on_shift!r}")


class ListCall(Struct, Generic[T], frozen=True):
    """A list call: where it starts, how pages are fetched and read, its limits and secrets."""

    fetch: FetchPage
    paginator: Paginator
    reader: ItemReader[T]
    start: ResumePoint
    first: PageRequest
    """The list's own first request (for its page size), to tell a fresh start from a resume."""
    base_url: URL
    description: str
    limits: ListLimits = ListLimits()
    trusted_origins: frozenset[str] = frozenset()
    secrets: Sequence[str] = ()
    on_convention: Callable[[Convention, str], None] | None = None
    on_shifts: Callable[[str, str], None] | None = None
    """Told, with the page's URL, what proving a page of an offset list cost when the data
    moved under it (`Shifts`, as text); None: nobody listens."""
    observe: Observe | None = None
    """Wraps each iteration (items or pages) of the call, from its first step to its end: the
    hook the client's events (and so its telemetry) see a whole list through; None: none."""
    fetch_records: FetchPage | None = None
    """As `fetch`, for a call whose reader builds records: a page shaped exactly as an earlier
    one is read straight into typed views (its items TypedItems, which the reader turns into
    records). None: every page is read as JSON. `reading` another reader drops it."""

    def __repr__(self) -> str:
        """The call as a log shows it: never its secrets, callables or requests."""
        return (
            f"ListCall(paginator={self.paginator!r}, reader={self.reader!r}, "
            f"description={self.description!r}, limits={self.limits!r}, "
            f"trusted_origins={self.trusted_origins!r})"
        )

    @property
    def from_start(self) -> bool:
        """Whether the call begins at the list's first page (not from a resume token)."""
        start = self.start
        return start.skip == 0 and start.request.proof is None and start.request == self.first

    def reading(self, reader: ItemReader[U]) -> ListCall[U]:
        """The same call, its items built by `reader` instead."""
        return replace(self, reader=reader, fetch_records=None)  # type: ignore[arg-type]
