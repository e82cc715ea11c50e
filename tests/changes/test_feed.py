"""One pass of the change feed against a service the test controls: what it reports, when it
commits, and what it never does (invent a change, report a removal without a complete list)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

from remedy_async import (
    Change,
    ChangeKind,
    ChangeState,
    ContractDriftWarning,
    DecodeError,
    DuplicateItemWarning,
    Endpoint,
    MockRequest,
    MockResponse,
    RemedyClient,
    ServerError,
    to_wire,
)
from remedy_async._changes._fingerprint import canonical, fingerprints
from remedy_async._wire._fastpath import from_wire
from tests.changes.service import Service, camel, eid, endpoint, running

ADDED, MODIFIED, REMOVED = ChangeKind.ADDED, ChangeKind.MODIFIED, ChangeKind.REMOVED


async def one_pass(client: RemedyClient, state: Any, **settings: Any) -> list[Change[Any]]:
    """Every change of one pass."""
    return [change async for change in client.endpoints.changes(state, **settings)]


def kinds(changes: list[Change[Any]]) -> list[tuple[str, str]]:
    return [(change.kind.value, change.id) for change in changes]


@pytest.fixture
def service() -> Service:
    return Service([endpoint(n) for n in range(1, 8)])


async def test_a_first_pass_reports_every_record_as_added(service: Service, tmp_path: Path) -> None:
    """On an empty state every listed record is added, as a typed record, in list order."""
    async with running(service) as client:
        changes = await one_pass(client, tmp_path / "s.db")
    assert kinds(changes) == [("added", eid(n)) for n in range(1, 8)]
    assert all(isinstance(change.record, Endpoint) for change in changes)
    assert {change.pass_number for change in changes} == {1}


async def test_an_unchanged_collection_reports_nothing(service: Service, tmp_path: Path) -> None:
    """A second pass over the same records yields no change and says it was complete."""
    async with running(service) as client:
        await one_pass(client, tmp_path / "s.db")
        feed = client.endpoints.changes(tmp_path / "s.db")
        assert [change async for change in feed] == []
    assert feed.result is not None
    assert (feed.result.complete, feed.result.listed, feed.result.number) == (True, 7, 2)


async def test_key_order_and_key_spelling_are_no_modification(
    service: Service, tmp_path: Path
) -> None:
    """Records served with their keys reversed, then in camelCase, are not modified."""
    async with running(service) as client:
        await one_pass(client, tmp_path / "s.db")
        service.shape = lambda record: dict(reversed(record.items()))
        assert await one_pass(client, tmp_path / "s.db") == []
    service.shape = camel
    service.put(endpoint(3, updated_at="2024-06-01T00:00:00Z"))
    async with running(service) as client:
        with pytest.warns(ContractDriftWarning, match="camel"):  # the typed reader notices
            changes = await one_pass(client, tmp_path / "s.db")
    assert [(c.kind, c.id, c.changed) for c in changes] == [(MODIFIED, eid(3), ("updated_at",))]


async def test_a_modification_names_the_fields_that_changed(
    service: Service, tmp_path: Path
) -> None:
    """A record whose agent version changed and which gained a field is modified in those
    fields, named in snake_case."""
    async with running(service) as client:
        await one_pass(client, tmp_path / "s.db")
        service.put(endpoint(4, agent_version="2.2.0", risk_score=7))
        changes = await one_pass(client, tmp_path / "s.db")
    [change] = changes
    assert (change.kind, change.id, change.changed) == (
        MODIFIED,
        eid(4),
        ("agent_version", "risk_score"),
    )
    assert change.record is not None
    assert change.record.extra == {"risk_score": 7}
    assert change.previous is None  # the state keeps no records by default


async def test_a_state_that_keeps_records_gives_the_previous_one(
    service: Service, tmp_path: Path
) -> None:
    """With keep_records, a modification and a removal carry the record as it was."""
    async with running(service) as client:
        await one_pass(client, tmp_path / "s.db", keep_records=True)
        service.put(endpoint(2, agent_version="2.2.0"))
        service.drop(eid(5))
        changes = await one_pass(client, tmp_path / "s.db")
    modified, removed = changes
    assert modified.previous is not None
    assert modified.previous.agent_version == "2.1.0"
    assert removed.kind is REMOVED
    assert removed.previous is not None
    assert removed.previous.hostname == "host-5"


async def test_removals_follow_a_complete_list(service: Service, tmp_path: Path) -> None:
    """Records no longer listed are removed after the pass's other changes, by id."""
    async with running(service) as client:
        await one_pass(client, tmp_path / "s.db")
        service.drop(eid(2), eid(6))
        service.put(endpoint(9))
        changes = await one_pass(client, tmp_path / "s.db")
    assert kinds(changes) == [("added", eid(9)), ("removed", eid(2)), ("removed", eid(6))]
    assert changes[1].record is None


async def test_a_failed_pass_reports_no_removal_and_the_next_continues_it(
    service: Service, tmp_path: Path
) -> None:
    """A pass that fails mid-list removes nothing; the next one continues from its resume
    token (not from the start) and then reports the removal."""
    async with running(service) as client:
        await one_pass(client, tmp_path / "s.db")
        service.drop(eid(1))
        service.put(endpoint(7, agent_version="2.2.0"))
        service.fail_at = {3}
        feed = client.endpoints.changes(tmp_path / "s.db")
        seen: list[Change[Any]] = []
        with pytest.raises(ServerError):
            seen.extend([change async for change in feed])
        assert seen == []
        assert feed.result is not None
        assert not feed.result.complete
        assert isinstance(feed.result.error, ServerError)
        service.fail_at = set()
        service.requests.clear()
        changes = await one_pass(client, tmp_path / "s.db")
    assert kinds(changes) == [("modified", eid(7)), ("removed", eid(1))]
    assert service.requests[0].get("cursor") == "3"


async def test_a_change_not_taken_is_delivered_again(service: Service, tmp_path: Path) -> None:
    """Leaving a pass before asking past a page's last change re-delivers that page."""
    async with running(service) as client:
        await one_pass(client, tmp_path / "s.db")
        service.put(endpoint(1, agent_version="2.2.0"), endpoint(2, agent_version="2.2.0"))
        async for change in client.endpoints.changes(tmp_path / "s.db"):
            assert change.id == eid(1)
            break
        again = await one_pass(client, tmp_path / "s.db")
    assert kinds(again) == [("modified", eid(1)), ("modified", eid(2))]


async def test_a_batch_is_committed_when_the_next_is_asked_for(
    service: Service, tmp_path: Path
) -> None:
    """Once the batch after a page's changes is asked for, they are not delivered again."""
    service.put(endpoint(1, agent_version="2.2.0"), endpoint(5, agent_version="2.2.0"))
    async with running(service) as client:
        await one_pass(client, tmp_path / "s.db")
        service.put(endpoint(1, agent_version="2.3.0"), endpoint(5, agent_version="2.3.0"))
        batches = client.endpoints.changes(tmp_path / "s.db").batches()
        first = await anext(batches)
        second = await anext(batches)
        await batches.aclose()
        again = await one_pass(client, tmp_path / "s.db")
    assert [c.id for c in first] == [eid(1)]
    assert [c.id for c in second] == [eid(5)]
    assert kinds(again) == [("modified", eid(5))]


async def test_records_can_be_wire_dicts(service: Service, tmp_path: Path) -> None:
    """`as_dicts()` hands out records (and previous ones) as the dicts served."""
    service.shape = lambda record: {**record, "unknown_thing": 1}
    async with running(service) as client:
        feed = client.endpoints.changes(tmp_path / "s.db", keep_records=True).as_dicts()
        changes = [change async for change in feed]
    assert changes[0].record == {**endpoint(1), "unknown_thing": 1}


async def test_a_page_repeating_an_id_reports_it_once_per_content(
    service: Service, tmp_path: Path
) -> None:
    """An id twice on one page is added once (the list skips the repeat, and warns)."""
    service.shape = lambda record: record
    service.page_size = 10
    original = service.handle

    def doubled(request: MockRequest) -> MockResponse:
        response = original(request)
        body = response.body.replace(b'"items":[', b'"items":[' + orjson.dumps(endpoint(1)) + b",")
        return MockResponse(200, response.headers, body)

    service.handle = doubled  # type: ignore[method-assign]
    async with running(service) as client:
        with pytest.warns(DuplicateItemWarning):
            changes = await one_pass(client, tmp_path / "s.db")
    assert [c.id for c in changes].count(eid(1)) == 1


async def test_a_record_without_an_id_is_a_decode_error(tmp_path: Path) -> None:
    """A record the feed cannot follow by id stops the pass with DecodeError."""
    service = Service([endpoint(1)])
    service.shape = lambda record: {key: value for key, value in record.items() if key != "id"}
    async with running(service) as client:
        with pytest.raises(DecodeError, match="without an id"):
            await one_pass(client, tmp_path / "s.db")


async def test_a_refused_cursor_lists_the_pass_again_from_the_start(
    service: Service, tmp_path: Path
) -> None:
    """When the service refuses a resumed pass's cursor, the pass lists from the start."""
    async with running(service) as client:
        service.fail_at = {3}
        with pytest.raises(ServerError):
            await one_pass(client, tmp_path / "s.db")
        service.fail_at = set()
        service.refuse_cursors = True
        service.page_size = 10
        changes = await one_pass(client, tmp_path / "s.db")
    assert [c.id for c in changes] == [eid(n) for n in range(4, 8)]


async def test_an_open_state_serves_several_passes(service: Service, tmp_path: Path) -> None:
    """A ChangeState passed in stays open between passes and counts them."""
    with ChangeState(tmp_path / "s.db") as state:
        async with running(service) as client:
            await one_pass(client, state)
            await one_pass(client, state)
        assert (state.pass_number, state.pass_in_progress) == (2, False)
    assert "closed" in repr(state)


@pytest.mark.parametrize("naming", ["camel", "pascal", "kebab"])
def test_every_naming_is_fingerprinted_as_its_snake_case_spelling(naming: str) -> None:
    """A record spelt in camel, Pascal or kebab case, nested keys too, has the fingerprint of
    its snake_case spelling, the contract's: a service changing its spelling changes none."""
    record = endpoint(1, risk_score=3)
    spelt = to_wire(from_wire(Endpoint, record), naming)  # type: ignore[arg-type]
    assert spelt != record
    assert canonical([spelt], Endpoint) == [record]
    assert fingerprints(canonical([spelt], Endpoint)) == fingerprints([record])
