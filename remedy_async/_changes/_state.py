"""The durable state of a change feed: what the previous passes listed, and the pass in
progress. One SQLite file per collection (see `_schema` for its format)."""

from __future__ import annotations

import os
import sqlite3
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Concatenate, ParamSpec, TypeVar

import attrs
import orjson
from attrs import frozen

from remedy_async._errors import ChangeStateError

from ._schema import connect, lock, unlock
from ._values import PassKind

_FEED_COLUMNS = (
    "collection, filters, keep_records, pass_number, pass_kind, phase, resume_token, since, "
    "started_at, last_started_at, full_started_at, failures"
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


@frozen
class StoredRecord:
    """What the state knows of one record: its fingerprint, field checksums and (when kept)
    its canonical JSON."""

    fingerprint: bytes
    fields: bytes
    record: bytes | None


P = ParamSpec("P")
R = TypeVar("R")
Row = tuple[str, bytes, bytes, bytes | None, int]
"""A record row to write: id, fingerprint, field checksums, record JSON or None, pass."""


def _guarded(
    method: Callable[Concatenate[ChangeState, P], R],
) -> Callable[Concatenate[ChangeState, P], R]:
    """Run a method holding the state's guard: a page's statements may run in a worker
    thread (SQLite works without the GIL), and nothing else may use the connection then."""

    def guarded(self: ChangeState, /, *args: P.args, **kwargs: P.kwargs) -> R:
        with self.guard:
            return method(self, *args, **kwargs)

    guarded.__doc__, guarded.__name__ = method.__doc__, method.__name__
    return guarded


class ChangeState:
    """The durable state of one collection's change feed: a SQLite file, opened and locked.

    Pass it (or just its path) to `collection.changes(state=...)` or `.watch(state=...)`. It
    holds each listed record's fingerprint (and, with `keep_records=True`, the record itself,
    for `Change.previous`) and the pass in progress with its resume token. A second watcher
    on the same file, in this process or another, gets StateInUseError until this one is
    closed or its process ends. A file in a newer format raises StateVersionError. Use it as
    a context manager, or `close()` it. Its format is documented in "Reacting to changes".
    """

    def __init__(self, path: str | os.PathLike[str], *, keep_records: bool | None = None) -> None:
        self.path = os.fspath(path)
        self.guard = threading.RLock()
        """Held by whatever uses the connection (a page's statements run in a worker thread)."""
        self._lock = lock(self.path)
        try:
            self._db: sqlite3.Connection | None = connect(self.path, keep_records)
        except BaseException:
            unlock(self._lock)
            raise
        self._feed = self._read_feed()

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
        values[2] = bool(values[2])
        return FeedRow(*values)

    def _write_feed(self, **changes: Any) -> None:
        """Update the feed row inside the current transaction (not committed here)."""
        feed = attrs.evolve(self._feed, **changes)
        assignments = ", ".join(f"{name} = ?" for name in changes)
        self._connection().execute(f"UPDATE feed SET {assignments}", tuple(changes.values()))
        self._feed = feed

    @_guarded
    def bind(self, collection: str, filters: str) -> None:
        """Tie a new state to a collection and filters; refuse a state tied to others."""
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
        """Begin pass number + 1 from the list's start."""
        self._transaction(
            lambda: self._write_feed(
                pass_number=self._feed.pass_number + 1,
                pass_kind=kind,
                phase="listing",
                resume_token=None,
                since=since,
                started_at=started_at,
                failures=0,
            )
        )

    @_guarded
    def restart_listing(self) -> None:
        """List the pass in progress again from the start (its resume token cannot be used)."""
        self._transaction(lambda: self._write_feed(resume_token=None))

    @_guarded
    def mark_listed(self, ids: Sequence[str]) -> dict[str, bytes]:
        """Begin a page's transaction: mark these ids listed by the pass in progress, and
        return the stored fingerprint of each one the state knows."""
        db = self._connection()
        db.execute("BEGIN IMMEDIATE")
        cursor = db.execute(
            "UPDATE records SET seen = ? WHERE id IN (SELECT value FROM json_each(?)) "
            "RETURNING id, fingerprint",
            (self._feed.pass_number, orjson.dumps(ids)),
        )
        return dict(cursor.fetchall())

    @_guarded
    def stored(self, ids: Iterable[str]) -> dict[str, StoredRecord]:
        """The stored field checksums and record of these ids (for modifications)."""
        rows = self._connection().execute(
            "SELECT records.id, fingerprint, fields, record FROM records JOIN details "
            "ON details.id = records.id WHERE records.id IN (SELECT value FROM json_each(?))",
            (orjson.dumps(list(ids)),),
        )
        return {row[0]: StoredRecord(row[1], row[2], row[3]) for row in rows}

    @_guarded
    def commit_page(self, rows: Sequence[Row], resume_token: str | None, *, last: bool) -> None:
        """Write a page's changed records and the pass's resume token; commit. After the
        last page of a full pass, the pass moves on to its removals."""
        db = self._connection()
        if not db.in_transaction:
            db.execute("BEGIN IMMEDIATE")
        self._upsert(rows)
        changes: dict[str, Any] = {"resume_token": resume_token}
        if last:
            changes["phase"] = "removing" if self._feed.pass_kind == "full" else "done"
            if self._feed.pass_kind == "since":
                changes.update(self._finished())
        self._write_feed(**changes)
        db.execute("COMMIT")

    def _upsert(self, rows: Sequence[Row]) -> None:
        if rows:
            db = self._connection()
            db.executemany(
                "INSERT INTO records (id, fingerprint, seen) VALUES (?, ?, ?) "
                "ON CONFLICT (id) DO UPDATE SET "
                "fingerprint = excluded.fingerprint, seen = excluded.seen",
                [(row[0], row[1], row[4]) for row in rows],
            )
            db.executemany(
                "INSERT OR REPLACE INTO details (id, fields, record) VALUES (?, ?, ?)",
                [(row[0], row[2], row[3]) for row in rows],
            )

    def _finished(self) -> Mapping[str, Any]:
        feed = self._feed
        done: dict[str, Any] = {"last_started_at": feed.started_at, "failures": 0}
        if feed.pass_kind == "full":
            done["full_started_at"] = feed.started_at
        return done

    @_guarded
    def unlisted(self, after: str, limit: int) -> list[tuple[str, bytes | None]]:
        """Up to `limit` records (id above `after`, in id order) that the full pass in progress
        did not list: its removals. Each with its kept record JSON, if any."""
        return (
            self._connection()
            .execute(
                "SELECT records.id, record FROM records LEFT JOIN details "
                "ON details.id = records.id WHERE records.id > ? AND seen < ? "
                "ORDER BY records.id LIMIT ?",
                (after, self._feed.pass_number, limit),
            )
            .fetchall()
        )

    @_guarded
    def settle(self, rows: Sequence[Row], gone: Sequence[str]) -> None:
        """Write what the removal check found (records the list missed, `rows` for those that
        changed) and delete the removed ones, once their changes were taken; commit."""
        db = self._connection()
        if not db.in_transaction:
            db.execute("BEGIN IMMEDIATE")
        self._upsert(rows)
        if gone:
            for table in ("records", "details"):
                db.execute(
                    f"DELETE FROM {table} WHERE id IN (SELECT value FROM json_each(?))",
                    (orjson.dumps(gone),),
                )
        db.execute("COMMIT")

    @_guarded
    def finish(self) -> None:
        """End the full pass in progress: complete."""
        self._transaction(lambda: self._write_feed(phase="done", **self._finished()))

    @_guarded
    def failed(self) -> None:
        """Count a failed attempt of the pass in progress (its resume token stays)."""
        self._transaction(lambda: self._write_feed(failures=self._feed.failures + 1))
