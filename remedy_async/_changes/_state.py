"""The durable state of a change feed: what the previous passes listed, and the pass in
progress. One SQLite file per collection (see `_state_file` for its format)."""

from __future__ import annotations

import asyncio
import functools
import os
import sqlite3
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Concatenate, ParamSpec, TypeVar

import attrs
import orjson
from attrs import frozen

from remedy_async._errors import ChangeStateError

from . import _state_file as statements
from ._change import PassKind
from ._fingerprint import wrapped
from ._state_file import Known, Page, Row, StoredRecord, connect, lock, unlock

_FEED_COLUMNS = (
    "collection, filters, keep_records, pass_number, pass_kind, phase, resume_token, since, "
    "started_at, last_started_at, full_started_at, failures, listed, ordered, last_id, listed_sum"
)


@frozen
class FeedRow:
    """The state's feed row: what it follows and where its passes stand."""

    collection: str | None
    filters: str | None
    keep_records: bool
    pass_number: int
    pass_kind: PassKind
    phase: str
    """`listing` or `removing` while a pass is in progress, `done` between passes."""
    resume_token: str | None
    since: str | None
    started_at: float | None
    last_started_at: float | None
    full_started_at: float | None
    failures: int
    listed: int
    """Records the full pass in progress has listed, counted while its pages come in order."""
    ordered: bool
    """Whether the pass's pages have come in ascending id order (so no id came twice)."""
    last_id: str | None
    """The last id the pass listed, while its pages come in order."""
    listed_sum: int
    """The sum of the fingerprints of the records the full pass in progress has listed (as the
    state holds them once listed; a signed 64-bit integer, wrapping)."""


P = ParamSpec("P")
R = TypeVar("R")


def _guarded(
    method: Callable[Concatenate[ChangeState, P], R],
) -> Callable[Concatenate[ChangeState, P], R]:
    """Run a method holding the state's guard: gathering a pass's listed ids runs in a worker
    thread, and nothing else may use the connection then (a rollback waits for it)."""

    @functools.wraps(method)  # its signature and docstring too
    def guarded(self: ChangeState, /, *args: P.args, **kwargs: P.kwargs) -> R:
        with self._guard:
            return method(self, *args, **kwargs)

    return guarded


class ChangeState:
    """The durable state of one collection's change feed: a SQLite file, opened and locked.

    Pass it (or just its path) to `collection.changes(state=...)` or `.watch(state=...)`. It
    holds each listed record's fingerprint (and, with `keep_records=True`, the record itself,
    for `Change.previous`) and the pass in progress with its resume token. A second watcher
    on the same file, in this process or another, gets StateInUseError until this one is
    closed or its process ends. A format-2 file (the previous releases') is migrated to format
    3 when opened; one in format 1, or in a newer format, raises StateVersionError. Use it as
    a context manager, or `close()` it. Its format is documented in "Reacting to changes".
    Its other methods are what a feed calls, pass by pass; an integration needs none of them.

    Args:
        path: The SQLite file, made when missing.
        keep_records: For a new file, whether to keep whole records, not just fingerprints.
            An existing file keeps what it was made with (another value raises
            ChangeStateError). Default: as the file says, or no for a new one.
    """

    def __init__(self, path: str | os.PathLike[str], *, keep_records: bool | None = None) -> None:
        self.path = os.fspath(path)
        """The state file's path."""
        self._guard = threading.RLock()
        """Held by whatever uses the connection (one statement runs in a worker thread)."""
        self._lock = lock(self.path)
        try:
            self._db: sqlite3.Connection | None = connect(self.path, keep_records)
        except BaseException:
            unlock(self._lock)
            raise
        self._feed = self._read_feed()
        self._gathered = -1
        """The pass whose listed ids are gathered in this connection's temporary table."""

    def __repr__(self) -> str:
        state = "closed" if self._db is None else f"pass {self._feed.pass_number}"
        return f"<ChangeState {self.path!r} {state}>"

    def __enter__(self) -> ChangeState:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    @_guarded
    def close(self) -> None:
        """Close the file and release the lock; safe to call twice. Anything uncommitted (a
        page whose changes were not all taken) is rolled back, to be delivered again."""
        db, self._db = self._db, None
        if db is not None:
            if db.in_transaction:
                db.rollback()
            db.close()
        lock, self._lock = self._lock, None
        unlock(lock)

    @property
    def keep_records(self) -> bool:
        """Whether the state keeps each record (for `Change.previous`), not just its digest."""
        return self._feed.keep_records

    @property
    def pass_number(self) -> int:
        """The number of the pass in progress or, between passes, of the last one (0: none)."""
        return self._feed.pass_number

    @property
    def pass_in_progress(self) -> bool:
        """Whether a pass stopped before its end; the next pass continues it."""
        return self._feed.phase != "done"

    # used by the feed -----------------------------------------------------------------------

    @property
    def feed(self) -> FeedRow:
        """The feed row as last read or written."""
        return self._feed

    def _connection(self) -> sqlite3.Connection:
        if self._db is None:
            raise ChangeStateError(f"change state {self.path} is closed", path=self.path)
        return self._db

    def _read_feed(self) -> FeedRow:
        row = self._connection().execute(f"SELECT {_FEED_COLUMNS} FROM feed").fetchone()
        values = list(row)
        values[2], values[13] = bool(values[2]), bool(values[13])
        return FeedRow(*values)

    def _write_feed(self, **changes: Any) -> None:
        """Update the feed row inside the current transaction (not committed here)."""
        feed = attrs.evolve(self._feed, **changes)
        assignments = ", ".join(f"{name} = ?" for name in changes)
        self._connection().execute(f"UPDATE feed SET {assignments}", tuple(changes.values()))
        self._feed = feed

    @_guarded
    def bind(self, collection: str, filters: str) -> None:
        """Tie a new state to a collection and filters; refuse a state tied to others.

        Args:
            collection: The collection's path segment.
            filters: The fingerprint of the list's filters.
        """
        feed = self._feed
        if feed.collection is None:
            self._transaction(lambda: self._write_feed(collection=collection, filters=filters))
            return
        if (feed.collection, feed.filters) != (collection, filters):
            raise ChangeStateError(
                f"change state {self.path} follows {feed.collection} with filters "
                f"{feed.filters}, not {collection} with filters {filters}; use one state per "
                "collection and filters",
                path=self.path,
            )

    def _transaction(self, work: Any) -> None:
        db = self._connection()
        db.execute("BEGIN IMMEDIATE")
        try:
            work()
        except BaseException:
            self.rollback()
            raise
        db.execute("COMMIT")

    @_guarded
    def rollback(self) -> None:
        """Undo the uncommitted work of the current page, if any (and reread the feed row)."""
        db = self._db
        if db is not None and db.in_transaction:
            db.rollback()
            self._feed = self._read_feed()

    @_guarded
    def start_pass(self, kind: PassKind, started_at: float, since: str | None) -> None:
        """Begin pass number + 1 from the list's start.

        Args:
            kind: `full`, or `since` for a pass narrowed to recent changes.
            started_at: When the pass began, in Unix seconds.
            since: The time a narrowed pass lists changes from (RFC 3339), else None.
        """

        def start() -> None:
            statements.forget_marks(self._connection())
            self._write_feed(
                pass_number=self._feed.pass_number + 1,
                pass_kind=kind,
                phase="listing",
                resume_token=None,
                since=since,
                started_at=started_at,
                failures=0,
                listed=0,
                listed_sum=0,
                ordered=True,
                last_id=None,
            )

        self._transaction(start)

    @_guarded
    def restart_listing(self) -> None:
        """List the pass in progress again from the start (its resume token cannot be used);
        its pages will repeat ids, so they no longer count as in order."""
        self._transaction(lambda: self._write_feed(resume_token=None, ordered=False))

    @_guarded
    def differing(self, page: bytes) -> Known:
        """Those of a page's records whose stored fingerprint is not the one given, with the
        stored one (None for a record the state does not know).

        Args:
            page: A JSON object, each id's fingerprint.
        """
        return statements.differing(self._connection(), page)

    @_guarded
    def stale(self, page: bytes) -> tuple[dict[str, tuple[int | None, str | None]], int]:
        """Those of a page's records whose stored `updated_at` is not the one given, with the
        stored fingerprint and `updated_at` (None for a record the state does not know), and
        the sum of the stored fingerprints of the page's records (as `wrapped`).

        Args:
            page: A JSON object, each id's `updated_at`.
        """
        return statements.stale(self._connection(), page)

    @_guarded
    def lookup(self, ids: bytes) -> Known:
        """The stored fingerprints of these ids (a JSON array) the state knows.

        Args:
            ids: The ids.
        """
        return statements.lookup(self._connection(), ids)

    @_guarded
    def stored(self, ids: Iterable[str]) -> dict[str, StoredRecord]:
        """The stored field checksums and record of these ids (for modifications).

        Args:
            ids: The records' ids.
        """
        rows = statements.details(self._connection(), orjson.dumps(list(ids)))
        return {row[0]: StoredRecord(row[1], row[2], row[3]) for row in rows}

    @_guarded
    def commit_page(
        self,
        rows: Sequence[Row],
        resume_token: str | None,
        page: Page,
        stamps: Sequence[tuple[str, str]] = (),
    ) -> None:
        """Write a page's changed records, its marks and the pass's resume token; commit.
        After the last page, a full pass moves on to its removals, unless it listed as many
        records as the state holds and either its pages came in id order or their
        fingerprints sum to the state's (then none can be missing).

        Args:
            rows: The page's added and modified records.
            resume_token: Where the list continues after the page.
            page: What the page listed.
            stamps: (updated_at, id) of unchanged records whose stamp the state lacked.
        """
        db = self._connection()
        feed = self._feed
        db.execute("BEGIN IMMEDIATE")
        try:
            statements.upsert(db, rows)
            statements.stamp(db, stamps)
            changes: dict[str, Any] = {"resume_token": resume_token}
            if feed.pass_kind == "full" and page.ids:
                statements.mark(db, feed.pass_number, page.ids)
                ordered = feed.ordered and page.ordered(feed.last_id)
                changes |= {"listed": feed.listed + page.listed, "ordered": ordered}
                changes["listed_sum"] = wrapped(feed.listed_sum + page.total)
                changes["last_id"] = page.last_id
            if page.last:
                self._write_feed(**changes)
                changes = self._ended_listing()
            self._write_feed(**changes)
        except BaseException:
            db.rollback()
            self._feed = self._read_feed()
            raise
        db.execute("COMMIT")

    def _ended_listing(self) -> dict[str, Any]:
        feed = self._feed
        if feed.pass_kind == "full":
            held, total = statements.count(self._connection())
            if not (feed.listed == held and (feed.ordered or feed.listed_sum == total)):
                return {"phase": "removing"}
            statements.forget_marks(self._connection())
        return {"phase": "done", **self._finished()}

    def _finished(self) -> Mapping[str, Any]:
        feed = self._feed
        done: dict[str, Any] = {"last_started_at": feed.started_at, "failures": 0}
        if feed.pass_kind == "full":
            done["full_started_at"] = feed.started_at
        return done

    async def unlisted(self, after: str, limit: int) -> list[tuple[str, bytes | None]]:
        """Up to `limit` records (id above `after`, in id order) that the full pass in progress
        did not list: its removals. Each with its kept record JSON, if any.

        The first call of a pass gathers what it listed into an index (one insert per record
        listed: a second or so at a million), in a worker thread, so the event loop goes on.

        Args:
            after: The id to continue after ("" for the first call).
            limit: The most records returned.
        """
        if self._gathered != self._feed.pass_number:
            await asyncio.to_thread(self._gather)
        return self._unlisted(after, limit)

    @_guarded
    def _gather(self) -> None:
        statements.gather_listed(self._connection(), self._feed.pass_number)
        self._gathered = self._feed.pass_number

    @_guarded
    def _unlisted(self, after: str, limit: int) -> list[tuple[str, bytes | None]]:
        return statements.unlisted(self._connection(), after, limit)

    @_guarded
    def settle(self, rows: Sequence[Row], gone: Sequence[str], kept: Sequence[str]) -> None:
        """Write what the removal check found (records the list missed: `kept`, and `rows`
        for those that changed) and delete the removed ones, once their changes were taken;
        commit.

        Args:
            rows: The records a get found changed.
            gone: The ids of the removed records.
            kept: The ids of the records the list missed but a get found.
        """
        db = self._connection()
        db.execute("BEGIN IMMEDIATE")
        try:
            statements.upsert(db, rows)
            if gone:
                statements.delete(db, orjson.dumps(gone))
            if kept:
                statements.mark(db, self._feed.pass_number, orjson.dumps(kept))
                statements.also_listed(db, orjson.dumps(kept))
        except BaseException:
            db.rollback()
            raise
        db.execute("COMMIT")

    @_guarded
    def finish(self) -> None:
        """End the full pass in progress: complete."""

        def end() -> None:
            statements.forget_marks(self._connection())
            self._write_feed(phase="done", **self._finished())

        self._transaction(end)

    @_guarded
    def failed(self) -> None:
        """Count a failed attempt of the pass in progress (its resume token stays)."""
        self._transaction(lambda: self._write_feed(failures=self._feed.failures + 1))
