"""The state file: one watcher at a time (a killed one blocks nobody), a versioned format that
refuses what it cannot read, and one state per collection and filters."""

from __future__ import annotations

import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from remedy_async import (
    ChangeState,
    ChangeStateError,
    StateInUseError,
    StateVersionError,
)
from tests.changes.service import Service, endpoint, running

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
    """A state whose schema_version is above 2 raises StateVersionError with that version."""
    path = tmp_path / "s.db"
    ChangeState(path).close()
    with sqlite3.connect(path) as db:
        db.execute("UPDATE schema_version SET version = 3")
    db.close()
    with pytest.raises(StateVersionError, match=r"format 3; .* reads format 2") as caught:
        ChangeState(path)
    assert caught.value.version == 3
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
        r"contract's, and reads format 2 only, .* Start over: delete "
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
    """Format 2 holds the tables and columns the docs describe, and says it is format 2."""
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
        assert list(db.execute("SELECT version FROM schema_version")) == [(2,)]
    db.close()
    assert tables["schema_version"] == ["version"]
    assert tables["records"] == ["id", "fingerprint"]
    assert tables["details"] == ["id", "fields", "record"]
    assert tables["marks"] == ["pass", "ids"]
    for name, columns in tables.items():
        assert f"`{name}`" in docs
        assert all(f"`{column}`" in docs for column in columns), name
