"""Trusting `updated_at` (`trust_updated_at=True`): a record stamped as the state holds it is
taken as unchanged without its content compared; every other record is compared as usual, so
the kinds are those of a comparing pass but for what an unmoved stamp hides."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest

from remedy_async import Change, RemedyClient
from tests.changes.service import Service, eid, endpoint, running

LATER = "2024-06-01T00:00:00Z"


async def one_pass(client: RemedyClient, path: Path, dicts: bool = False) -> list[Change[Any]]:
    """Every change of one pass trusting `updated_at` (records as wire dicts with `dicts`)."""
    feed = client.endpoints.changes(path, trust_updated_at=True)
    return [change async for change in (feed.as_dicts() if dicts else feed)]


def described(changes: list[Change[Any]]) -> list[tuple[str, str, tuple[str, ...]]]:
    return [(change.kind.value, change.id, change.changed) for change in changes]


def stamps(path: Path) -> dict[str, str | None]:
    """The `updated_at` the state holds by id, read from its documented format."""
    with sqlite3.connect(path) as db:
        held = dict(db.execute("SELECT id, updated FROM records"))
    db.close()
    return held


@pytest.fixture
def service() -> Service:
    return Service([endpoint(n) for n in range(1, 8)])


async def test_added_modified_and_removed_are_reported_as_when_comparing(
    service: Service, tmp_path: Path
) -> None:
    """A record added, one modified with its stamp moved, one removed: the same changes, with
    the same changed fields, as a pass comparing every record reports on a twin state."""
    async with running(service) as client:
        first = await one_pass(client, tmp_path / "t.db")
        await client_pass(client, tmp_path / "c.db")
        service.put(endpoint(9), endpoint(3, agent_version="2.2.0", updated_at=LATER))
        service.drop(eid(5))
        trusted = await one_pass(client, tmp_path / "t.db")
        compared = await client_pass(client, tmp_path / "c.db")
    assert [change.kind.value for change in first] == ["added"] * 7
    assert described(trusted) == [
        ("modified", eid(3), ("agent_version", "updated_at")),
        ("added", eid(9), ()),
        ("removed", eid(5), ()),
    ]
    assert described(compared) == described(trusted)
    assert [change.fingerprint for change in compared] == [c.fingerprint for c in trusted]


async def client_pass(client: RemedyClient, path: Path) -> list[Change[Any]]:
    """Every change of one pass comparing every record (the default)."""
    return [change async for change in client.endpoints.changes(path)]


async def test_a_change_that_does_not_move_updated_at_is_missed(
    service: Service, tmp_path: Path
) -> None:
    """What trusting the stamp costs: a record whose content changed under the same
    `updated_at` is not reported, where a comparing pass reports it; once its stamp moves, it
    is modified in every field that changed since."""
    async with running(service) as client:
        await one_pass(client, tmp_path / "t.db")
        service.put(endpoint(4, hostname="renamed"))
        assert await one_pass(client, tmp_path / "t.db") == []
        assert described(await client_pass(client, tmp_path / "t.db")) == [
            ("modified", eid(4), ("hostname",))
        ]
        service.put(endpoint(2, agent_version="2.2.0"))
        assert await one_pass(client, tmp_path / "t.db") == []
        service.put(endpoint(2, agent_version="2.3.0", updated_at=LATER))
        changes = await one_pass(client, tmp_path / "t.db")
    assert described(changes) == [("modified", eid(2), ("agent_version", "updated_at"))]


async def test_a_moved_stamp_on_the_same_content_is_no_change_and_is_kept(
    service: Service, tmp_path: Path
) -> None:
    """A record whose `updated_at` moved back and forth but whose content is the state's is
    reported only for what differs: its stamp is a field like any other."""
    async with running(service) as client:
        await one_pass(client, tmp_path / "t.db")
        service.put(endpoint(6, updated_at=LATER))
        changes = await one_pass(client, tmp_path / "t.db")
        assert described(changes) == [("modified", eid(6), ("updated_at",))]
        assert stamps(tmp_path / "t.db")[eid(6)] == LATER
        assert await one_pass(client, tmp_path / "t.db") == []


async def test_records_without_a_stamp_are_compared(tmp_path: Path) -> None:
    """A page with a record whose `updated_at` is not text (null here; records as dicts, as
    the model wants a time) is compared whole, as without trust: nothing is taken on an
    absent stamp's word."""
    service = Service([endpoint(1), endpoint(2, updated_at=None), endpoint(3)])
    async with running(service) as client:
        await one_pass(client, tmp_path / "t.db", dicts=True)
        assert stamps(tmp_path / "t.db") == {
            eid(1): endpoint(1)["updated_at"],
            eid(2): None,
            eid(3): endpoint(3)["updated_at"],
        }
        service.put(endpoint(2, updated_at=None, hostname="renamed"))
        service.put(endpoint(3, hostname="renamed"))  # same stamp, on the same page
        changes = await one_pass(client, tmp_path / "t.db", dicts=True)
    assert described(changes) == [
        ("modified", eid(2), ("hostname",)),
        ("modified", eid(3), ("hostname",)),
    ]
