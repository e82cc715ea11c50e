"""The state file: one watcher at a time (a killed one blocks nobody), a versioned format that
refuses what it cannot read, and one state per collection and filters."""

from __future__ import annotations

import hashlib
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from remedy_async import (
    ChangeState,
    ChangeStateError,
    StateInUseError,
    StateVersionError,
)
from remedy_async._changes._fingerprint import SORTED, as_text
from tests.changes.service import Service, eid, endpoint, running

HOLD = """
import sys
from remedy_async import ChangeState
state = ChangeState(sys.argv[1])
print("holding", flush=True)
sys.stdin.read()
"""


def test_a_second_watcher_is_refused_until_the_first_closes(tmp_path: Path) -> None:
    """Opening a state that is open elsewhere raises StateInUseError naming the holder."""
    path = tmp_path / "s.db"
    in_use = r"in use by another watcher \(process \d+\)"
    with ChangeState(path), pytest.raises(StateInUseError, match=in_use):
        ChangeState(path)
    ChangeState(path).close()


def test_a_killed_watcher_blocks_nobody(tmp_path: Path) -> None:
    """A process holding the state and killed with SIGKILL leaves it free for the next one."""
    path = tmp_path / "s.db"
    with subprocess.Popen(
        [sys.executable, "-c", HOLD, str(path)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    ) as holder:
        try:
            assert holder.stdout is not None
            assert holder.stdout.readline() == "holding\n"
            with pytest.raises(StateInUseError, match=f"process {holder.pid}"):
                ChangeState(path)
        finally:
            holder.send_signal(signal.SIGKILL)
            holder.wait(timeout=30)
    with ChangeState(path) as state:
        assert state.pass_number == 0


def test_a_newer_format_is_refused_by_number(tmp_path: Path) -> None:
    """A state whose schema_version is above 3 raises StateVersionError with that version."""
    path = tmp_path / "s.db"
    ChangeState(path).close()
    with sqlite3.connect(path) as db:
        db.execute("UPDATE schema_version SET version = 4")
    db.close()
    said = r"format 4; .* reads formats 2 \(migrating it\) and 3 only \(a newer release"
    with pytest.raises(StateVersionError, match=said) as caught:
        ChangeState(path)
    assert caught.value.version == 4
    assert caught.value.path == str(path)


def _contents(path: Path) -> list[list[tuple[object, ...]]]:
    with sqlite3.connect(path) as db:
        tables = ("schema_version", "feed", "records", "details", "marks")
        contents = [sorted(db.execute(f"SELECT * FROM {table}")) for table in tables]
    db.close()
    return contents


async def test_a_camel_case_state_is_refused_saying_how_to_start_over(tmp_path: Path) -> None:
    """A format-1 state (fingerprints of camelCase records) raises StateVersionError saying
    why and to delete it; neither opening it nor a pass on it changes a row, so nothing of
    the old digests is mixed with new ones; deleted, the next pass adds every record."""
    path = tmp_path / "s.db"
    service = Service([endpoint(1), endpoint(2)])
    async with running(service) as client:
        assert len([change async for change in client.endpoints.changes(path)]) == 2
    with sqlite3.connect(path) as db:
        db.execute("UPDATE schema_version SET version = 1")
        db.execute("UPDATE records SET fingerprint = '00000000000000000000000000000000'")
    db.close()
    before = _contents(path)
    said = (
        rf"{path} is a change state in format 1, written by an earlier release whose "
        r"fingerprints were computed on camelCase keys; .* snake_case keys, the published "
        r"contract's, and reads formats 2 and 3 only, .* Start over: delete "
        rf"{path} \(with its -wal, -shm and \.lock files, if any\) and run again; the first "
        r"pass then reports every record as added"
    )
    with pytest.raises(StateVersionError, match=said) as caught:
        ChangeState(path)
    assert caught.value.version == 1
    service.requests.clear()
    async with running(service) as client:
        with pytest.raises(StateVersionError, match="Start over"):
            async for _ in client.endpoints.changes(path):
                pass
    assert service.requests == []
    assert _contents(path) == before
    for leftover in tmp_path.glob("s.db*"):
        leftover.unlink()
    async with running(service) as client:
        changes = [change async for change in client.endpoints.changes(path)]
    assert [change.kind.value for change in changes] == ["added", "added"]


def test_a_file_that_is_no_state_is_refused(tmp_path: Path) -> None:
    """Another SQLite database, or a file that is no database, raises ChangeStateError."""
    other = tmp_path / "other.db"
    with sqlite3.connect(other) as db:
        db.execute("CREATE TABLE t (x)")
    db.close()
    with pytest.raises(ChangeStateError, match="not a change state"):
        ChangeState(other)
    text = tmp_path / "notes.txt"
    text.write_text("hello, this is not a database at all, not even close to one\n" * 20)
    with pytest.raises(ChangeStateError, match="not a change state"):
        ChangeState(text)


def test_keep_records_is_fixed_when_the_state_is_made(tmp_path: Path) -> None:
    """A state made without records refuses keep_records=True, and says how it was made."""
    path = tmp_path / "s.db"
    ChangeState(path).close()
    with pytest.raises(ChangeStateError, match="keep_records=False"):
        ChangeState(path, keep_records=True)
    with ChangeState(path) as state:
        assert not state.keep_records


async def test_a_state_follows_one_collection_with_one_set_of_filters(tmp_path: Path) -> None:
    """A state used for some filters refuses other filters, naming both."""
    service = Service([endpoint(1)])
    async with running(service) as client:
        async for _ in client.endpoints.changes(tmp_path / "s.db", has_agent=True):
            pass
        with pytest.raises(ChangeStateError, match="follows endpoints with filters"):
            async for _ in client.endpoints.changes(tmp_path / "s.db", os_family="linux"):
                pass


def test_the_format_is_the_one_documented(tmp_path: Path) -> None:
    """Format 3 holds the tables and columns the docs describe, and says it is format 3."""
    path = tmp_path / "s.db"
    ChangeState(path).close()
    with sqlite3.connect(path) as db:
        tables = {
            name: [column[1] for column in db.execute(f"PRAGMA table_info({name})")]
            for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
        }
    db.close()
    docs = (Path(__file__).parents[2] / "docs" / "changes.md").read_text(encoding="utf-8")
    with sqlite3.connect(path) as db:
        assert list(db.execute("SELECT version FROM schema_version")) == [(3,)]
    db.close()
    assert tables["schema_version"] == ["version"]
    assert tables["records"] == ["id", "fingerprint", "updated"]
    assert "listed_sum" in tables["feed"]
    assert tables["details"] == ["id", "fields", "record"]
    assert tables["marks"] == ["pass", "ids"]
    for name, columns in tables.items():
        assert f"`{name}`" in docs
        assert all(f"`{column}`" in docs for column in columns), name


FORMAT_2_RECORDS = """CREATE TABLE records (
    id TEXT PRIMARY KEY,
    fingerprint TEXT NOT NULL
) WITHOUT ROWID"""
"""Format 2's `records`, as its releases made it."""


def as_format_2(path: Path, records: list[dict[str, object]]) -> None:
    """Rewrite a state as a format-2 release left it: `records` holding each record's whole
    128-bit digest in hexadecimal (computed as format 2 did), no `updated` stamps, and a
    feed row without `listed_sum`."""
    digests = [
        (str(record["id"]), hashlib.blake2b(orjson.dumps(record, option=SORTED), digest_size=16))
        for record in records
    ]
    with sqlite3.connect(path) as db:
        db.execute("DROP TABLE records")
        db.execute(FORMAT_2_RECORDS)
        db.executemany(
            "INSERT INTO records VALUES (?, ?)", [(i, d.hexdigest()) for i, d in digests]
        )
        db.execute("ALTER TABLE feed DROP COLUMN listed_sum")
        db.execute("UPDATE schema_version SET version = 2")
    db.close()


async def test_a_format_2_state_is_migrated_and_nothing_is_reported_again(
    tmp_path: Path,
) -> None:
    """A format-2 state opens as format 3, each fingerprint the first 64 bits of its digest:
    an unchanged pass reports nothing, and a modification names its fields (the field
    checksums kept), a removal and an addition are reported as before."""
    path = tmp_path / "s.db"
    records = [endpoint(n) for n in range(1, 6)]
    service = Service(records)
    async with running(service) as client:
        assert len([change async for change in client.endpoints.changes(path)]) == 5
    as_format_2(path, records)
    with sqlite3.connect(path) as db:
        old = dict(db.execute("SELECT id, fingerprint FROM records"))
    db.close()
    with ChangeState(path) as state:
        assert state.pass_number == 1
    with sqlite3.connect(path) as db:
        assert list(db.execute("SELECT version FROM schema_version")) == [(3,)]
        migrated = {i: (f, u) for i, f, u in db.execute("SELECT * FROM records")}
    db.close()
    assert {i: as_text(f) for i, (f, _) in migrated.items()} == {
        i: digest[:16] for i, digest in old.items()
    }
    assert {stamp for _, stamp in migrated.values()} == {None}
    async with running(service) as client:
        assert [change async for change in client.endpoints.changes(path)] == []
        service.put(endpoint(2, agent_version="2.2.0"), endpoint(9))
        service.drop(eid(4))
        changes = [change async for change in client.endpoints.changes(path)]
    assert [(c.kind.value, c.id, c.changed) for c in changes] == [
        ("modified", eid(2), ("agent_version",)),
        ("added", eid(9), ()),
        ("removed", eid(4), ()),
    ]


async def test_a_migrated_state_learns_the_stamps_on_its_first_trusting_pass(
    tmp_path: Path,
) -> None:
    """A migrated state holds no `updated_at`: the first pass trusting it compares every
    record and keeps their stamps (reporting nothing), so the next one trusts them."""
    path = tmp_path / "s.db"
    records = [endpoint(n) for n in range(1, 6)]
    service = Service(records)
    async with running(service) as client:
        assert len([change async for change in client.endpoints.changes(path)]) == 5
        as_format_2(path, records)
        feed = client.endpoints.changes(path, trust_updated_at=True)
        assert [change async for change in feed] == []
    with sqlite3.connect(path) as db:
        stamps = dict(db.execute("SELECT id, updated FROM records"))
    db.close()
    assert stamps == {str(record["id"]): record["updated_at"] for record in records}


def test_a_format_2_state_whose_migration_fails_is_left_as_it_was(tmp_path: Path) -> None:
    """A format-2 state whose migration fails (here: SQLite refuses a statement of it) raises
    ChangeStateError saying why, that it is left in format 2 and what to do; nothing of it
    changed."""
    path = tmp_path / "s.db"
    ChangeState(path).close()
    as_format_2(path, [endpoint(1)])
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE records_3 (x)")  # in the migration's way
    db.close()
    before = _contents(path)
    said = (
        r"cannot migrate the change state .* from format 2 to 3 \(SQLite: table records_3 "
        r"already exists\); it is left in format 2: run again once the cause is fixed"
    )
    with pytest.raises(ChangeStateError, match=said) as caught:
        ChangeState(path)
    assert not isinstance(caught.value, StateVersionError)
    assert _contents(path) == before
