"""The change state's file: its SQLite schema (format 3), opening it (a format-2 state is
migrated in place), the lock that keeps a second watcher out, and the SQL a pass runs on it,
one function per statement (or short group of them).

Format 3 (the `schema_version` table holds one row, `3`):

    feed     one row (id = 1): the collection and filters the state follows, whether it keeps
             records, and the pass in progress or last (number, kind, phase, resume token,
             since value, start times, failed attempts; records listed so far, the sum of their
             fingerprints, whether its pages came in id order, the last id listed)
    records  one row per record the state knows: id, fingerprint (a signed 64-bit integer) and
             the record's `updated_at` as served (NULL when it has none, or not yet read);
             written only when a record is added or modified, so an unchanged pass writes none
    details  one row per record: id, field checksums (JSON), and the record's JSON as served
             (when the state keeps records, else NULL)
    marks    one row per page the full pass in progress listed: its number and the ids (a
             JSON array); removals are the records no mark holds, once the list is complete

Format 3 differs from format 2 in `records` (format 2: the whole 128-bit digest as 32
hexadecimal digits, no `updated_at`) and in the feed's `listed_sum`. A format-2 state is
migrated when opened, in one transaction (a crash leaves it in format 2): each fingerprint
becomes its first 64 bits, exactly what this format computes, so no record is reported again;
`updated_at` is read on the first pass that trusts it. Format 1 (fingerprints of camelCase
records, which no record listed now can match, and whose records are not all kept) is refused
with StateVersionError, whose message says to delete it to start over (the next pass then
reports every record as added), and the file is left as it was.

The lock is an exclusive `flock` on `<state>.lock`, held while the state is open; the
operating system releases it when the holder's process ends, however it ends.

An unchanged record costs a pass no write: a page's ids are looked up (read only) and kept as
the page's marks, one row per page. After a full pass has listed everything, no record can be
missing when as many were listed as the state holds and either the pages came in ascending id
order or the listed fingerprints sum to the state's (an id listed twice, with another missing,
would change the sum but for a chance of 2**-64); otherwise the records it did not list are
found by comparing the records with the marks.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from collections.abc import Sequence
from typing import IO, Any, Final

import orjson
from attrs import frozen

from remedy_async._errors import ChangeStateError, StateInUseError, StateVersionError

from ._fingerprint import from_hex, wrapped

SCHEMA_VERSION: Final = 3
"""The format this version writes and reads."""

DIGEST_FORMAT: Final = 2
"""The format of the releases that kept whole 128-bit digests: migrated when opened."""

CACHE_KIB: Final = 16 * 1024
"""SQLite's page cache, in KiB (its default is 2 MiB): each page's look-up probes its ids all
over the `records` table, which a pass therefore reads many times; 16 MiB holds the table of
some 200,000 records, and bounds the memory a state takes whatever its size."""

CAMEL_FORMAT: Final = 1
"""The format of the releases whose fingerprints were computed on camelCase keys."""

_RECORDS: Final = """CREATE TABLE {name} (
        id TEXT PRIMARY KEY,
        fingerprint INTEGER NOT NULL,
        updated TEXT
    ) WITHOUT ROWID"""

_TABLES: Final = (
    "CREATE TABLE schema_version (version INTEGER NOT NULL)",
    """CREATE TABLE feed (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        collection TEXT,
        filters TEXT,
        keep_records INTEGER NOT NULL,
        pass_number INTEGER NOT NULL DEFAULT 0,
        pass_kind TEXT NOT NULL DEFAULT 'full',
        phase TEXT NOT NULL DEFAULT 'done',
        resume_token TEXT,
        since TEXT,
        started_at REAL,
        last_started_at REAL,
        full_started_at REAL,
        failures INTEGER NOT NULL DEFAULT 0,
        listed INTEGER NOT NULL DEFAULT 0,
        listed_sum INTEGER NOT NULL DEFAULT 0,
        ordered INTEGER NOT NULL DEFAULT 1,
        last_id TEXT
    )""",
    _RECORDS.format(name="records"),
    """CREATE TABLE details (
        id TEXT PRIMARY KEY,
        fields BLOB NOT NULL,
        record BLOB
    ) WITHOUT ROWID""",
    "CREATE TABLE marks (pass INTEGER NOT NULL, ids BLOB NOT NULL)",
)


def connect(path: str, keep_records: bool | None) -> sqlite3.Connection:
    """Open (creating it if new) the state at `path`, checked to be format 3 (a format-2
    state is migrated first).

    WAL journal, `synchronous=NORMAL` (a commit survives the process's crash; a power loss may
    take back the last commits, which the next pass then delivers again), a page cache of
    `CACHE_KIB`. Transactions are
    explicit (`BEGIN IMMEDIATE` ... `COMMIT`).
    """
    try:
        db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    except sqlite3.Error as error:
        raise ChangeStateError(f"cannot open change state {path}: {error}", path=path) from None
    try:
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=NORMAL")
        db.execute(f"PRAGMA cache_size=-{CACHE_KIB}")
        _prepare(db, path, keep_records)
    except sqlite3.DatabaseError as error:
        db.close()
        raise ChangeStateError(
            f"{path} is not a change state (SQLite: {error})", path=path
        ) from None
    except BaseException:
        db.close()
        raise
    return db


def _prepare(db: sqlite3.Connection, path: str, keep_records: bool | None) -> None:
    names = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    if not names:
        db.execute("BEGIN IMMEDIATE")
        for statement in _TABLES:
            db.execute(statement)
        db.execute("INSERT INTO schema_version VALUES (?)", (SCHEMA_VERSION,))
        db.execute("INSERT INTO feed (id, keep_records) VALUES (1, ?)", (bool(keep_records),))
        db.execute("COMMIT")
        return
    if "schema_version" not in names:
        raise ChangeStateError(
            f"{path} is an SQLite database but not a change state (no schema_version table)",
            path=path,
        )
    versions = [row[0] for row in db.execute("SELECT version FROM schema_version")]
    version = versions[0] if len(versions) == 1 else versions
    if version == CAMEL_FORMAT:
        raise StateVersionError(
            f"{path} is a change state in format {CAMEL_FORMAT}, written by an earlier release "
            "whose fingerprints were computed on camelCase keys; this release computes them on "
            f"snake_case keys, the published contract's, and reads formats {DIGEST_FORMAT} and "
            f"{SCHEMA_VERSION} only, so it would report every record as modified. Start over: "
            "delete "
            f"{path} (with its -wal, -shm and .lock files, if any) and run again; the first "
            "pass then reports every record as added",
            path=path,
            version=version,
        )
    if version == DIGEST_FORMAT:
        _migrate(db, path)
    elif version != SCHEMA_VERSION:
        raise StateVersionError(
            f"{path} is a change state in format {version!r}; this version of remedy_async "
            f"reads formats {DIGEST_FORMAT} (migrating it) and {SCHEMA_VERSION} only (a newer "
            "release wrote it: upgrade)",
            path=path,
            version=version,
        )
    kept = bool(db.execute("SELECT keep_records FROM feed").fetchone()[0])
    if keep_records is not None and keep_records != kept:
        raise ChangeStateError(
            f"{path} was created with keep_records={kept}; open it with that (or leave "
            "keep_records out), or start a new state",
            path=path,
        )


def _migrate(db: sqlite3.Connection, path: str) -> None:
    """Rewrite a format-2 state as format 3, in one transaction: each fingerprint becomes the
    first 64 bits of its digest (what format 3 computes); the pass in progress keeps its place
    (its listed fingerprints were not summed, so its removals are found from its marks). A
    migration that fails leaves the file in format 2 and raises ChangeStateError."""
    db.create_function("first_64_bits", 1, from_hex, deterministic=True)
    try:
        _rewrite(db)
    except sqlite3.Error as error:
        raise ChangeStateError(
            f"cannot migrate the change state {path} from format {DIGEST_FORMAT} to "
            f"{SCHEMA_VERSION} (SQLite: {error}); it is left in format {DIGEST_FORMAT}: run "
            "again once the cause is fixed (a file or folder this process cannot write, a full "
            "disk), or delete it (with its -wal, -shm and .lock files) to start over",
            path=path,
        ) from None


def _rewrite(db: sqlite3.Connection) -> None:
    db.execute("BEGIN IMMEDIATE")
    try:
        db.execute(_RECORDS.format(name="records_3"))
        db.execute(
            "INSERT INTO records_3 (id, fingerprint) SELECT id, first_64_bits(fingerprint) "
            "FROM records"
        )
        db.execute("DROP TABLE records")
        db.execute("ALTER TABLE records_3 RENAME TO records")
        db.execute("ALTER TABLE feed ADD COLUMN listed_sum INTEGER NOT NULL DEFAULT 0")
        db.execute("UPDATE feed SET ordered = 0 WHERE phase = 'listing'")
        db.execute("UPDATE schema_version SET version = ?", (SCHEMA_VERSION,))
    except BaseException:
        db.rollback()
        raise
    db.execute("COMMIT")


def lock(path: str) -> IO[str] | None:
    """Hold the state's lock file, or raise StateInUseError naming the holder's process.

    Returns the open lock file (closing it releases the lock); None where the platform has no
    `flock` (the state is then not guarded)."""
    try:
        import fcntl  # noqa: PLC0415 - POSIX only
    except ImportError:  # pragma: no cover - Windows
        return None
    lock_path = f"{path}.lock"
    try:
        file = open(lock_path, "a+", encoding="utf-8")  # noqa: SIM115 - held while open
    except OSError as error:
        raise ChangeStateError(
            f"cannot open the lock file {lock_path}: {error.strerror or error}", path=path
        ) from None
    try:
        fcntl.flock(file.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        file.seek(0)
        holder = file.read().strip() or "unknown"
        file.close()
        raise StateInUseError(
            f"change state {path} is in use by another watcher (process {holder}); one state "
            "serves one watcher at a time",
            path=path,
        ) from None
    file.seek(0)
    file.truncate()
    file.write(str(os.getpid()))
    file.flush()
    return file


def unlock(file: IO[str] | None) -> None:
    """Release the lock `lock` took (closing its file)."""
    if file is not None:
        with contextlib.suppress(OSError):
            file.close()


# the statements a pass runs -----------------------------------------------------------------

Known = dict[str, Any]
"""Stored values by id: fingerprints (int), or `updated_at` stamps (str or None)."""

Row = tuple[str, int, str | None, bytes, bytes | None]
"""A record to write: id, fingerprint, `updated_at` (or None), field checksums (JSON), record
JSON or None."""


@frozen
class Page:
    """What a page of a full pass listed: its ids (a JSON array), how many records, its first
    and last id, whether its ids ascend, the sum of the fingerprints the state holds for them
    once the page is committed, and whether it is the list's last."""

    ids: bytes
    listed: int
    first_id: str | None
    last_id: str | None
    ascending: bool
    total: int = 0
    last: bool = False

    def ordered(self, previous: str | None) -> bool:
        """Whether this page continues an ascending list after `previous`."""
        return self.ascending and (
            previous is None or self.first_id is None or self.first_id > previous
        )


@frozen
class StoredRecord:
    """What the state knows of one record: its fingerprint, field checksums and (when kept)
    its canonical JSON."""

    fingerprint: int
    fields: bytes
    record: bytes | None


def differing(db: sqlite3.Connection, page: bytes) -> Known:
    """Those of a page's records whose stored fingerprint is not the one given (a JSON object
    of id to fingerprint), with the stored one (None for a record the state does not know).

    SQLite compares, so an unchanged page returns nothing: no row reaches Python."""
    return dict(
        db.execute(
            "SELECT page.key, records.fingerprint FROM json_each(?) AS page "
            "LEFT JOIN records ON records.id = page.key "
            "WHERE records.fingerprint IS NOT page.value",
            (page,),
        ).fetchall()
    )


def stale(db: sqlite3.Connection, page: bytes) -> tuple[dict[str, tuple[Any, Any]], int]:
    """Those of a page's records whose stored `updated_at` is not the one given (a JSON object
    of id to `updated_at`), with the stored fingerprint and `updated_at` (None for a record
    the state does not know); and the sum of the stored fingerprints of the page's records."""
    high, low, found = db.execute(
        "SELECT coalesce(sum(records.fingerprint >> 32), 0), "
        "coalesce(sum(records.fingerprint & 4294967295), 0), "
        "json_group_array(json_array(page.key, records.fingerprint, records.updated)) "
        "FILTER (WHERE records.updated IS NOT page.value) "
        "FROM json_each(?) AS page LEFT JOIN records ON records.id = page.key",
        (page,),
    ).fetchone()  # one sweep: the sum of every stored fingerprint, and the stale records
    stale = {id_: (fingerprint, updated) for id_, fingerprint, updated in orjson.loads(found)}
    return stale, wrapped((high << 32) + low)


def lookup(db: sqlite3.Connection, ids: bytes) -> Known:
    """The stored fingerprint of each of these ids (a JSON array) the state knows."""
    found = db.execute(
        "SELECT json_group_object(id, fingerprint) FROM records "
        "WHERE id IN (SELECT value FROM json_each(?))",
        (ids,),
    ).fetchone()[0]
    return dict(orjson.loads(found))


def details(db: sqlite3.Connection, ids: bytes) -> list[tuple[str, int, bytes, bytes | None]]:
    """(id, fingerprint, field checksums, record JSON or None) of these ids (a JSON array)."""
    return db.execute(
        "SELECT records.id, fingerprint, fields, record FROM records JOIN details "
        "ON details.id = records.id WHERE records.id IN (SELECT value FROM json_each(?))",
        (ids,),
    ).fetchall()


def upsert(db: sqlite3.Connection, rows: Sequence[Row]) -> None:
    """Write records that were added or modified."""
    if not rows:
        return
    db.executemany(
        "INSERT OR REPLACE INTO records (id, fingerprint, updated) VALUES (?, ?, ?)",
        [row[:3] for row in rows],
    )
    db.executemany(
        "INSERT OR REPLACE INTO details (id, fields, record) VALUES (?, ?, ?)",
        [(row[0], row[3], row[4]) for row in rows],
    )


def stamp(db: sqlite3.Connection, stamps: Sequence[tuple[str, str]]) -> None:
    """Keep the `updated_at` of unchanged records whose stamp the state did not hold yet
    (after a migration): (updated_at, id) pairs."""
    if stamps:
        db.executemany("UPDATE records SET updated = ? WHERE id = ?", stamps)


def mark(db: sqlite3.Connection, number: int, ids: bytes) -> None:
    """Keep these ids (a JSON array) as listed by pass `number`."""
    db.execute("INSERT INTO marks (pass, ids) VALUES (?, ?)", (number, ids))


def forget_marks(db: sqlite3.Connection) -> None:
    """Drop every pass's marks (a pass starts, or has ended)."""
    db.execute("DELETE FROM marks")


def delete(db: sqlite3.Connection, ids: bytes) -> None:
    """Delete records (removed) by id (a JSON array)."""
    for table in ("records", "details"):
        db.execute(f"DELETE FROM {table} WHERE id IN (SELECT value FROM json_each(?))", (ids,))


def count(db: sqlite3.Connection) -> tuple[int, int]:
    """How many records the state holds, and the sum of their fingerprints (as `wrapped`)."""
    held, high, low = db.execute(
        "SELECT count(*), coalesce(sum(fingerprint >> 32), 0), "
        "coalesce(sum(fingerprint & 4294967295), 0) FROM records"
    ).fetchone()  # two sums of 32-bit halves: no overflow below 2**31 records
    return int(held), wrapped((int(high) << 32) + int(low))


def gather_listed(db: sqlite3.Connection, number: int) -> None:
    """Collect the ids pass `number` listed into the temporary table `listed`, indexed (on
    SQLite's own temporary storage, so memory stays bounded)."""
    db.execute("CREATE TEMP TABLE IF NOT EXISTS listed (id TEXT PRIMARY KEY) WITHOUT ROWID")
    db.execute("DELETE FROM temp.listed")
    db.execute(
        "INSERT OR IGNORE INTO temp.listed SELECT value FROM marks, json_each(marks.ids) "
        "WHERE marks.pass = ?",
        (number,),
    )


def also_listed(db: sqlite3.Connection, ids: bytes) -> None:
    """Add ids (a JSON array) to `listed` (records a get found after the list missed them)."""
    db.execute("INSERT OR IGNORE INTO temp.listed SELECT value FROM json_each(?)", (ids,))


def unlisted(db: sqlite3.Connection, after: str, limit: int) -> list[tuple[str, bytes | None]]:
    """Up to `limit` records, in id order after `after`, not in `listed`: each id with its
    kept record JSON, if any."""
    return db.execute(
        "SELECT records.id, record FROM records LEFT JOIN details ON details.id = records.id "
        "WHERE records.id > ? AND records.id NOT IN (SELECT id FROM temp.listed) "
        "ORDER BY records.id LIMIT ?",
        (after, limit),
    ).fetchall()
