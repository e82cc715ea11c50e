"""What a change feed hands out: one `Change` per record added, modified or removed, and a
`PassResult` per pass."""

from __future__ import annotations

import enum
from typing import Generic, Literal, TypeVar

import attrs
from attrs import frozen

from remedy_async._errors import RemedyError

T = TypeVar("T")

PassKind = Literal["full", "since"]
"""A full pass relists the whole collection; a `since` pass only what changed since a time."""


class ChangeKind(enum.StrEnum):
    """What happened to a record between two passes: added, modified or removed."""

    ADDED = "added"
    """Listed now, and not by the passes before (every record, on a state's first pass)."""
    MODIFIED = "modified"
    """Listed before and now, with different content."""
    REMOVED = "removed"
    """Listed before, and not by a pass that listed the whole collection without error."""


@frozen
class Change(Generic[T]):
    """One record added, modified or removed since the state's previous pass.

    A change may be delivered again after a crash (at least once): apply changes by `id`.
    """

    kind: ChangeKind
    """Added, modified or removed."""
    id: str
    """The record's id, as text: apply changes by id and they are idempotent."""
    record: T | None = attrs.field(repr=False)
    """The record as listed now (a model, or a dict from `as_dicts()`); None when removed."""
    previous: T | None = attrs.field(default=None, repr=False)
    """The record as the state kept it, for a modification or removal when the state keeps records
    (`keep_records=True`); else None."""
    changed: tuple[str, ...] = ()
    """For a modification, the top-level fields whose content differs, in the contract's
    snake_case (`updated_at`), sorted."""
    fingerprint: str | None = None
    """A digest of the new content (None when removed): with `id`, it tells a change delivered again
    from a new one."""
    pass_number: int = 0
    """The state's number of the pass that found the change (1 for a state's first pass)."""


@frozen
class PassResult:
    """How one pass went: its number and kind, whether it listed the whole collection without
    error, and what it found.

    An incomplete pass reported no removals; the next pass on the same state continues its
    list from where it stopped.
    """

    number: int
    """The state's number of the pass (1 for its first)."""
    kind: PassKind
    """`full` (the whole collection listed) or `since` (narrowed to recent changes)."""
    complete: bool
    """Whether the pass listed everything without error (only then are removals reported)."""
    listed: int = 0
    """Records this run of the pass listed (a resumed pass counts from where it continued)."""
    added: int = 0
    """Records it reported added."""
    modified: int = 0
    """Records it reported modified."""
    removed: int = 0
    """Records it reported removed."""
    resumed: bool = False
    """Whether it continued a pass that stopped before."""
    error: RemedyError | None = attrs.field(default=None, eq=False)
    """What stopped an incomplete pass; None for a complete one."""
