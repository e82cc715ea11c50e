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

    `id` is the record's id (as text): apply changes by id and they are idempotent, since a
    change may be delivered again after a crash (at least once). `record` is the record as
    listed now (None when removed). `previous` is the record as the state kept it, for
    modifications and removals, when the state keeps records (`keep_records=True`), else None.
    `changed` names, for a modification, the top-level fields whose content differs, in the
    contract's camelCase spelling, sorted. `fingerprint` identifies the new content (None when
    removed): with `id`, a key that tells a re-delivered change from a new one.
    """

    kind: ChangeKind
    id: str
    record: T | None = attrs.field(repr=False)
    previous: T | None = attrs.field(default=None, repr=False)
    changed: tuple[str, ...] = ()
    fingerprint: str | None = None
    pass_number: int = 0
    """The state's number of the pass that found the change (1 for a state's first pass)."""


@frozen
class PassResult:
    """How one pass went: its number and kind, whether it listed the whole collection without
    error, and what it found.

    An incomplete pass (`complete=False`, `error` set) reported no removals; the next pass on
    the same state continues its list from where it stopped. `resumed` says this pass
    continued one that stopped before.
    """

    number: int
    kind: PassKind
    complete: bool
    listed: int = 0
    """Records this run of the pass listed (a resumed pass counts from where it continued)."""
    added: int = 0
    modified: int = 0
    removed: int = 0
    resumed: bool = False
    error: RemedyError | None = attrs.field(default=None, eq=False)
