"""What a change feed is built from: the collection's side (`FeedSource`) and the caller's
choices (`FeedSettings`), each one value passed down whole, both made by the collection."""

from __future__ import annotations

import math
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Generic, TypeVar

import attrs
from attrs import frozen

from ._change import PassResult

if TYPE_CHECKING:
    from remedy_async._paging._pager import Pager

T = TypeVar("T")

Params = tuple[tuple[str, str], ...]

GONE = frozenset({404, 410})
"""Statuses of a get that prove a record was removed."""
PREFETCH = 1
"""Pages a pass fetches ahead, so the next page is on its way while one is diffed."""
LISTING = ("page_size", "concurrency", "options", "extra_params")
"""The keywords of `changes()` and `watch()` that go to their list, as `list()`'s do."""

OpenList = Callable[[str | None, Params], "Pager[dict[str, Any]]"]
"""Lists the collection as wire dicts: (resume token or None, extra query parameters)."""


@frozen
class FeedSource(Generic[T]):
    """The collection a feed follows: its path segment, model, how one record is built, how
    its list is opened, and the filters the state is tied to (as text)."""

    collection: str
    model: type[Any]
    read: Callable[[Any], T] = attrs.field(repr=False)
    open_list: OpenList = attrs.field(repr=False)
    filters: str
    fetch: Callable[[str], Awaitable[dict[str, Any] | None]] | None = attrs.field(
        default=None, repr=False
    )
    """Gets a record by id as its wire dict (None when it is gone), to confirm removals;
    None: removals are not confirmed."""


def _non_negative(_: object, attribute: attrs.Attribute[Any], value: float) -> None:
    if not (isinstance(value, int | float) and 0 <= value < math.inf):
        raise ValueError(f"{attribute.name} must be a number of seconds >= 0, got {value!r}")


def _positive_or_none(_: object, attribute: attrs.Attribute[Any], value: float | None) -> None:
    if value is not None and not (isinstance(value, int | float) and 0 < value < math.inf):
        raise ValueError(f"{attribute.name} must be a number of seconds > 0, got {value!r}")


def _jitter(_: object, attribute: attrs.Attribute[Any], value: float) -> None:
    if not (isinstance(value, int | float) and 0 <= value <= 1):
        raise ValueError(f"{attribute.name} must be between 0 and 1, got {value!r}")


def _failures(_: object, attribute: attrs.Attribute[Any], value: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"{attribute.name} must be an int >= 0, got {value!r}")


def _since_filter(_: object, attribute: attrs.Attribute[Any], value: str | None) -> None:
    if value is not None and (not isinstance(value, str) or not value.strip()):
        raise ValueError(f"{attribute.name} must be a query parameter name, got {value!r}")


@frozen(kw_only=True)
class FeedSettings:
    """How a feed runs its passes: narrowing, state, repetition, time and reporting."""

    since_filter: str | None = attrs.field(default=None, validator=_since_filter)
    overlap: float = attrs.field(default=300.0, validator=_non_negative)
    resync: float = attrs.field(default=3600.0, validator=_non_negative)
    keep_records: bool | None = None
    confirm_removals: bool | None = None
    """Confirm each removal with a get (None: when the feed has no filters)."""
    trust_updated_at: bool = attrs.field(
        default=False, validator=attrs.validators.instance_of(bool)
    )
    """Take a record whose `updated_at` is the one the state holds as unchanged, without
    comparing its content (what this can miss: "Reacting to changes")."""
    interval: float | None = attrs.field(default=None, validator=_positive_or_none)
    """Seconds between passes (watch); None runs one pass."""
    jitter: float = attrs.field(default=0.1, validator=_jitter)
    max_failures: int = attrs.field(default=3, validator=_failures)
    sleep: Callable[[float], Awaitable[None]] | None = attrs.field(default=None, repr=False)
    wall_clock: Callable[[], float] = attrs.field(default=time.time, repr=False)
    on_pass: Callable[[PassResult], None] | None = attrs.field(default=None, repr=False)
