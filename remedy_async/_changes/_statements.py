"""The SQL a pass runs on the state, one function per statement (or short group of them).

An unchanged record costs a pass no write: a page's ids are looked up (read only) and kept as
the page's marks, one row per page. Only after a full pass has listed everything are the
records it did not list found, by comparing the records with the marks.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

import orjson
from attrs import frozen

Row = tuple[str, str, bytes, bytes | None]
"""A record to write: id, fingerprint, field checksums (JSON), record JSON or None."""


@frozen
class Page:
    """What a page of a full pass listed: its ids (a JSON array), how many distinct records,
    its first and last id, whether its ids ascend, and whether it is the list's last."""

    ids: bytes
    listed: int
    first_id: str | None
    last_id: str | None
    ascending: bool
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

    fingerprint: str
    fields: bytes
    record: bytes | None


def lookup(db: sqlite3.Connection, ids: bytes) -> dict[str, str]:
    """The stored fingerprint of each of these ids (a JSON array) the state knows.

    Read as one JSON object made by SQLite, not row by row: a statement run in a worker
    thread then takes the GIL once, not once a row."""
    found = db.execute(
        "SELECT json_group_object(id, fingerprint) FROM records "
        "WHERE id IN (SELECT value FROM json_each(?))",
        (ids,),
    ).fetchone()[0]
    return dict(orjson.loads(found))


def lookup_range(db: sqlite3.Connection, first: str, last: str, most: int) -> dict[str, str] | None:
    """The stored fingerprints of every id from `first` to `last`, read in one sweep of the
    table (for a page whose ids ascend); None when there are more than `most` (then look the
    page's ids up one by one)."""
    count, found = db.execute(
        "SELECT count(*), json_group_object(id, fingerprint) FROM (SELECT id, fingerprint "
        "FROM records WHERE id >= ? AND id <= ? LIMIT ?)",
        (first, last, most + 1),
    ).fetchone()
    return None if count > most else dict(orjson.loads(found))


def details(db: sqlite3.Connection, ids: bytes) -> list[tuple[str, str, bytes, bytes | None]]:
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
        "INSERT INTO records (id, fingerprint) VALUES (?, ?) "
        "ON CONFLICT (id) DO UPDATE SET fingerprint = excluded.fingerprint",
        [(row[0], row[1]) for row in rows],
    )
    db.executemany(
        "INSERT OR REPLACE INTO details (id, fields, record) VALUES (?, ?, ?)",
        [(row[0], row[2], row[3]) for row in rows],
    )


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


def count(db: sqlite3.Connection) -> int:
    """How many records the state holds."""
    return int(db.execute("SELECT count(*) FROM records").fetchone()[0])


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
