"""Removals: only after a complete list, each confirmed by a get unless the feed is filtered;
a record the list missed is kept (and compared as the get returns it); a pass stopped during
its removals finishes them first; lists in any order."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from remedy_async import Change, ChangeState, MockRequest, MockResponse, RemedyClient, ServerError
from tests.changes.service import Service, eid, endpoint, running


async def one_pass(client: RemedyClient, path: Path, **settings: Any) -> list[Change[Any]]:
    """Every change of one pass."""
    return [change async for change in client.endpoints.changes(path, **settings)]


def kinds(changes: list[Change[Any]]) -> list[tuple[str, str]]:
    return [(change.kind.value, change.id) for change in changes]


@pytest.fixture
def service() -> Service:
    return Service([endpoint(n) for n in range(1, 8)])


async def test_a_record_the_list_missed_is_kept_and_compared(
    service: Service, tmp_path: Path
) -> None:
    """A record left out of a complete list that a get still finds is not removed; if the get
    shows it changed, it is modified."""
    async with running(service) as client:
        await one_pass(client, tmp_path / "s.db")
        service.unlisted = {eid(3), eid(5)}
        service.put(endpoint(5, agent_version="2.2.0"))
        service.drop(eid(6))
        changes = await one_pass(client, tmp_path / "s.db")
        service.unlisted = set()
        again = await one_pass(client, tmp_path / "s.db")
    assert kinds(changes) == [("modified", eid(5)), ("removed", eid(6))]
    assert sorted(service.gets) == [eid(3), eid(5), eid(6)]
    assert again == []


async def test_a_filtered_feed_removes_without_asking_unless_told(tmp_path: Path) -> None:
    """With filters, a record gone from the list is removed without a get; with
    confirm_removals=True a get that finds it keeps it."""
    service = Service([endpoint(n) for n in range(1, 5)])
    async with running(service) as client:
        await one_pass(client, tmp_path / "a.db", has_agent=True)
        await one_pass(client, tmp_path / "b.db", has_agent=True, confirm_removals=True)
        service.unlisted = {eid(2)}
        plain = await one_pass(client, tmp_path / "a.db", has_agent=True)
        assert service.gets == []
        confirmed = await one_pass(client, tmp_path / "b.db", has_agent=True, confirm_removals=True)
    assert kinds(plain) == [("removed", eid(2))]
    assert confirmed == []
    assert service.gets == [eid(2)]


async def test_a_pass_stopped_during_its_removals_finishes_them_first(
    service: Service, tmp_path: Path
) -> None:
    """A get failing while removals are confirmed stops the pass; the next pass lists nothing
    and reports the removal, as a continued pass."""
    async with running(service) as client:
        await one_pass(client, tmp_path / "s.db")
        service.drop(eid(4))
        service.fail_gets = True
        feed = client.endpoints.changes(tmp_path / "s.db")
        with pytest.raises(ServerError):
            await anext(aiter(feed))
        assert feed.result is not None
        assert not feed.result.complete
        service.fail_gets = False
        service.requests.clear()
        feed = client.endpoints.changes(tmp_path / "s.db")
        changes = [change async for change in feed]
    assert kinds(changes) == [("removed", eid(4))]
    assert service.requests == []
    assert feed.result is not None
    assert (feed.result.resumed, feed.result.number) == (True, 2)


async def test_a_list_in_any_order_finds_its_removals(service: Service, tmp_path: Path) -> None:
    """Pages whose ids descend are diffed the same way: an unchanged pass reports nothing,
    a removal and an addition are found."""
    service.reverse = True
    async with running(service) as client:
        first = await one_pass(client, tmp_path / "s.db")
        assert await one_pass(client, tmp_path / "s.db") == []
        service.drop(eid(2))
        service.put(endpoint(9))
        changes = await one_pass(client, tmp_path / "s.db")
    assert len(first) == 7
    assert kinds(changes) == [("added", eid(9)), ("removed", eid(2))]


async def test_an_unchanged_ordered_pass_asks_for_nothing(service: Service, tmp_path: Path) -> None:
    """When the pages come in id order and list every record the state holds, no record is
    asked for by id."""
    async with running(service) as client:
        await one_pass(client, tmp_path / "s.db")
        assert await one_pass(client, tmp_path / "s.db") == []
    assert service.gets == []


async def test_removals_come_in_batches_of_a_thousand(tmp_path: Path) -> None:
    """1,500 removals arrive as two batches, each committed when the next is asked for."""
    service = Service([endpoint(n) for n in range(1, 1502)], page_size=500)
    async with running(service) as client:
        await one_pass(client, tmp_path / "s.db", confirm_removals=False)
        service.drop(*(eid(n) for n in range(2, 1502)))
        feed = client.endpoints.changes(tmp_path / "s.db", confirm_removals=False)
        sizes = [len(batch) async for batch in feed.batches()]
    assert sizes == [1000, 500]


async def test_a_complete_list_of_every_record_scans_for_no_removal(
    service: Service, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A list out of id order that listed as many records as the state holds, their
    fingerprints summing to the state's, has none missing: its removals are not scanned for
    (no ids gathered, no get)."""
    gathered: list[int] = []
    monkeypatch.setattr(ChangeState, "_gather", lambda state: gathered.append(1))
    service.reverse = True
    async with running(service) as client:
        await one_pass(client, tmp_path / "s.db")
        service.put(endpoint(4, agent_version="2.2.0"))
        changes = await one_pass(client, tmp_path / "s.db")
    assert kinds(changes) == [("modified", eid(4))]
    assert gathered == []
    assert service.gets == []


async def test_a_record_missing_while_another_is_listed_twice_is_still_removed(
    service: Service, tmp_path: Path
) -> None:
    """As many records listed as the state holds, but one twice (pages apart, as a record
    that moved along the list) and one not at all: the sum of the listed fingerprints is not
    the state's, so the missing one is looked for and, its get answering 404, removed."""
    async with running(service) as client:
        await one_pass(client, tmp_path / "s.db")
    listed = [eid(n) for n in (7, 6, 5, 4, 3, 2, 7)]

    def scripted(request: MockRequest) -> MockResponse:
        position = int(request.query.get("cursor", "0"))
        page = listed[position : position + service.page_size]
        after = position + len(page)
        body = {
            "items": [service.records[record_id] for record_id in page],
            "nextCursor": str(after) if after < len(listed) else None,
        }
        return MockResponse.json(200, body)

    service.handle = scripted  # type: ignore[method-assign]
    service.drop(eid(1))
    async with running(service) as client:
        changes = await one_pass(client, tmp_path / "s.db")
    assert kinds(changes) == [("removed", eid(1))]
    assert service.gets == [eid(1)]
