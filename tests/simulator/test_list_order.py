"""The order of the simulator's lists (`SimulatorConfig.order`): by creation, stable, or by last
change, where an update moves a record to the end; every convention's pages, totals, filters,
cursors and keyset ids follow it, on the data set and over real sockets."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import aiohttp
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from remedy_async.simulator import Composition, Dataset, Simulator

from .compose_walker import walk_composition
from .helpers import StartSimulator, get_json, list_all_ids, record_url

ENDPOINTS, SCOPES, FINDINGS = "endpoints", "scopes", "vulnerability-findings"
AT = 2_000_000_000.0
NOW = datetime(2026, 1, 1, tzinfo=UTC)
"""When the data sets are made: records compared across two of them are dated alike."""
ORDERS = ("created", "updated")


def test_an_update_moves_a_record_to_the_end_in_update_order_only() -> None:
    """`modify` moves a record to the end of the list by update, and leaves it in place in
    the list by creation; the record is the same in both."""
    created, updated = (Dataset(seed=4, size=20, order=order, now=NOW) for order in ORDERS)
    ids = list(created.ids(ENDPOINTS))
    assert list(updated.ids(ENDPOINTS)) == ids  # nothing changed yet: the same order
    for dataset in (created, updated):
        dataset.modify(ENDPOINTS, [ids[3]], at=AT)
    assert list(created.ids(ENDPOINTS)) == ids
    assert list(updated.ids(ENDPOINTS)) == [*ids[:3], *ids[4:], ids[3]]
    assert created.get(ENDPOINTS, ids[3]) == updated.get(ENDPOINTS, ids[3])
    assert [record["id"] for record in updated.records(ENDPOINTS)][-1] == ids[3]


def test_changed_records_follow_by_time_then_by_creation() -> None:
    """The changed records come after every unchanged one, by the time of their last change,
    ties by creation; a record changed again moves to the end again."""
    dataset = Dataset(seed=4, size=20, order="updated")
    ids = list(dataset.ids(ENDPOINTS))
    dataset.modify(ENDPOINTS, [ids[5]], at=AT + 2)
    dataset.modify(ENDPOINTS, [ids[7], ids[1]], at=AT + 1)
    unchanged = [record_id for record_id in ids if record_id not in {ids[1], ids[5], ids[7]}]
    assert list(dataset.ids(ENDPOINTS)) == [*unchanged, ids[1], ids[7], ids[5]]
    dataset.modify(ENDPOINTS, [ids[1]], at=AT + 3)
    assert list(dataset.ids(ENDPOINTS)) == [*unchanged, ids[7], ids[5], ids[1]]


def test_an_added_record_comes_at_the_end_in_update_order_and_at_its_place_by_creation() -> None:
    """A record held back and added comes back at its own place by creation, at the end by
    update; a hidden record `show` brings back is not changed, so it takes its place in both."""
    created, updated = (Dataset(seed=9, size=30, reserve=0.2, order=order) for order in ORDERS)
    every = list(Dataset(seed=9, size=30).ids(ENDPOINTS))
    added = created.add(ENDPOINTS, 2, at=AT)
    assert updated.add(ENDPOINTS, 2, at=AT) == added
    visible = set(created.ids(ENDPOINTS))
    assert list(created.ids(ENDPOINTS)) == [i for i in every if i in visible]
    assert list(updated.ids(ENDPOINTS))[-2:] == list(added)
    shown = updated.hidden(ENDPOINTS)[0]
    updated.show(ENDPOINTS, [shown])
    listed = list(updated.ids(ENDPOINTS))
    assert shown in listed
    assert listed == [i for i in every if i in set(listed) and i not in added] + list(added)


def test_filters_and_counts_follow_the_update_order() -> None:
    """A filtered list (range filters included) is the whole list's order, filtered; counts
    and `hidden` agree."""
    dataset = Dataset(seed=6, size=40, order="updated", range_filters=True)
    windows = list(dataset.ids(ENDPOINTS, {"osFamily": "windows"}))
    assert len(windows) > 4
    dataset.modify(ENDPOINTS, [windows[0]], at=AT + 1)
    dataset.modify(ENDPOINTS, [windows[2]], at=AT)
    whole = list(dataset.ids(ENDPOINTS))
    filtered = list(dataset.ids(ENDPOINTS, {"osFamily": "windows"}))
    assert filtered == [i for i in whole if i in set(windows)]
    assert filtered[-2:] == [windows[2], windows[0]]
    since = {"updatedAt[gte]": "2033-01-01T00:00:00Z"}
    assert list(dataset.ids(ENDPOINTS, since)) == [windows[2], windows[0]]
    assert dataset.count(ENDPOINTS, {"osFamily": "windows"}) == len(windows)
    dataset.hide(ENDPOINTS, [windows[0], windows[1]])
    assert dataset.hidden(ENDPOINTS) == (windows[1], windows[0])
    assert list(dataset.ids(ENDPOINTS, {"osFamily": "windows"})) == [*windows[3:], windows[2]]


def test_a_churn_step_picks_the_same_records_in_either_order() -> None:
    """The order changes where records stand, not which a seed's steps change."""
    created, updated = (Dataset(seed=2, size=40, reserve=0.2, order=o) for o in ORDERS)
    for step in range(4):
        first = created.churn(ENDPOINTS, rate=0.1, at=AT + step)
        second = updated.churn(ENDPOINTS, rate=0.1, at=AT + step)
        assert (first.added, first.modified) == (second.added, second.modified)
        assert set(first.removed) == set(second.removed)
    assert set(created.ids(ENDPOINTS)) == set(updated.ids(ENDPOINTS))
    assert list(created.ids(ENDPOINTS)) != list(updated.ids(ENDPOINTS))


def test_an_unknown_order_is_refused() -> None:
    """A data set's order is `created` or `updated`."""
    with pytest.raises(ValueError, match="order must be one of created, updated; got 'newest'"):
        Dataset(size=3, order="newest")


CHANGES = st.lists(
    st.tuples(
        st.sampled_from(["modify", "remove", "add", "show"]),
        st.lists(st.integers(0, 29), min_size=1, max_size=4),
        st.integers(0, 3),
    ),
    max_size=12,
)


@settings(max_examples=60, deadline=None)
@given(changes=CHANGES)
def test_update_order_is_a_sort_by_last_change(changes: list[tuple[str, list[int], int]]) -> None:
    """Whatever was modified, removed, added or shown, in any order of times: the list holds
    every visible record once; first the never-changed ones by creation, then the others by
    (time of their last change, creation); a filtered list is the same order, filtered."""
    dataset = Dataset(seed=5, size=30, reserve=0.2, order="updated")
    every = [dataset.id_of(ENDPOINTS, index) for index in range(30)]
    last: dict[str, float] = {}
    for what, picks, moment in changes:
        ids = [every[pick] for pick in picks]
        if what == "modify":
            dataset.modify(ENDPOINTS, ids, at=AT + moment)
            last.update(dict.fromkeys(ids, AT + moment))
        elif what == "remove":
            dataset.remove(ENDPOINTS, ids)
        elif what == "show":
            dataset.show(ENDPOINTS, ids)
        else:
            added = dataset.add(ENDPOINTS, len(ids), at=AT + moment)
            last.update(dict.fromkeys(added, AT + moment))
    hidden = set(dataset.hidden(ENDPOINTS))
    visible = [record_id for record_id in every if record_id not in hidden]
    expected = [i for i in visible if i not in last] + sorted(
        (i for i in visible if i in last), key=lambda i: (last[i], every.index(i))
    )
    assert list(dataset.ids(ENDPOINTS)) == expected
    assert dataset.count(ENDPOINTS) == len(expected)
    linux = set(Dataset(seed=5, size=30).ids(ENDPOINTS, {"osFamily": "linux"}))
    assert list(dataset.ids(ENDPOINTS, {"osFamily": "linux"})) == [
        record_id for record_id in expected if record_id in linux
    ]


# Over the wire.


async def offset_pages(
    session: aiohttp.ClientSession, sim: Simulator, resource: str, limit: int
) -> list[dict[str, Any]]:
    """Every offset page of `resource` (the published paging), until an empty one."""
    pages = []
    for number in range(1000):
        params = {"offset": str(number * limit), "limit": str(limit)}
        status, body, _ = await get_json(session, f"{sim.url}/v1/{resource}", params)
        assert status == 200, body
        pages.append(body)
        if not body["data"]:
            return pages
    raise AssertionError("too many pages")


@pytest.mark.parametrize("order", ORDERS)
async def test_offset_pages_of_one_snapshot_serve_each_record_once(
    serve: StartSimulator, session: aiohttp.ClientSession, order: str
) -> None:
    """With records modified, removed and added before the walk, offset pages of one
    snapshot serve the list in its order, each record once, every total the count."""
    # churn that never comes in this walk, for the records it holds back (to add)
    sim = await serve(size=30, order=order, churn_count=1, churn_every=10_000)
    dataset = sim.dataset
    ids = list(dataset.ids(ENDPOINTS))
    dataset.modify(ENDPOINTS, [ids[0], ids[9]], at=AT)
    dataset.remove(ENDPOINTS, [ids[4]])
    dataset.add(ENDPOINTS, 2, at=AT + 1)
    pages = await offset_pages(session, sim, ENDPOINTS, 7)
    served = [record["id"] for body in pages for record in body["data"]]
    assert served == list(dataset.ids(ENDPOINTS))
    assert len(served) == len(set(served)) == dataset.count(ENDPOINTS)
    assert {body["total"] for body in pages} == {len(served)}
    assert (served[-4:-2] == [ids[0], ids[9]]) == (order == "updated")


@pytest.mark.parametrize("order", ORDERS)
async def test_an_update_between_offset_pages_shifts_them_only_in_update_order(
    serve: StartSimulator, session: aiohttp.ClientSession, order: str
) -> None:
    """A record of page 1 updated before page 2 is asked: by creation nothing moves; by update
    it moves to the end, so page 2 starts one record later than it would have (the record
    that slid back over the boundary is skipped) and the moved one is served twice, with the
    total unchanged: what a client must detect by itself."""
    sim = await serve(order=order)
    ids = list(sim.dataset.ids(SCOPES))
    url = f"{sim.url}/v1/{SCOPES}"
    _, first, _ = await get_json(session, url, {"offset": "0", "limit": "5"})
    sim.dataset.modify(SCOPES, [ids[1]], at=AT)
    _, second, _ = await get_json(session, url, {"offset": "5", "limit": "5"})
    assert first["total"] == second["total"] == len(ids)
    if order == "created":
        assert [record["id"] for record in second["data"]] == ids[5:10]
    else:
        assert [record["id"] for record in second["data"]] == ids[6:11]
        _, last, _ = await get_json(session, url, {"offset": str(len(ids) - 1), "limit": "5"})
        assert [record["id"] for record in last["data"]] == [ids[1]]


@pytest.mark.parametrize("scheme", ["none", "offset", "page", "cursor", "link"])
async def test_every_convention_walks_the_update_order(
    serve: StartSimulator, session: aiohttp.ClientSession, scheme: str
) -> None:
    """Walked in any convention, filtered or not, a list by update is the data set's order."""
    sim = await serve(order="updated")
    dataset = sim.dataset
    filters = [("osFamily", "windows"), ("osFamily", "linux")]
    wanted = {"osFamily": ["windows", "linux"]}
    matching = list(dataset.ids(ENDPOINTS, wanted))
    dataset.modify(ENDPOINTS, [matching[0], matching[3]], at=AT)
    dataset.modify(ENDPOINTS, [matching[1]], at=AT - 1)
    expected = list(dataset.ids(ENDPOINTS, wanted))
    assert expected[-3:] == [matching[1], matching[0], matching[3]]
    listed = await list_all_ids(session, sim.url, ENDPOINTS, scheme, size=3, filters=filters)
    assert listed == expected
    every = await list_all_ids(session, sim.url, ENDPOINTS, scheme, size=4)
    assert every == list(dataset.ids(ENDPOINTS))


async def test_a_cursor_keeps_its_place_when_its_record_moves(
    serve: StartSimulator, session: aiohttp.ClientSession
) -> None:
    """A cursor names its record's place when it was issued (its change time and creation),
    as a database cursor over (updated_at, id) does: the record updated since moves to the
    end and is served again there, and nothing between is skipped."""
    sim = await serve(order="updated")
    ids = list(sim.dataset.ids(SCOPES))
    headers = {"X-Simulator-Paging": "cursor"}
    url = f"{sim.url}/v1/{SCOPES}"
    sim.dataset.modify(SCOPES, [ids[0]], at=AT)  # the list now starts at ids[1]
    _, first, _ = await get_json(session, url, {"limit": "5"}, headers)
    assert [record["id"] for record in first["data"]] == ids[1:6]
    sim.dataset.modify(SCOPES, [ids[5]], at=AT + 1)
    seen, cursor = [record["id"] for record in first["data"]], first["nextCursor"]
    for _ in range(len(ids)):
        if cursor is None:
            break
        _, body, _ = await get_json(session, url, {"limit": "5", "cursor": cursor}, headers)
        seen += [record["id"] for record in body["data"]]
        cursor = body["nextCursor"]
    assert seen == [*ids[1:6], *ids[6:], ids[0], ids[5]]


async def test_a_keyset_id_resumes_where_its_record_stands_now(
    serve: StartSimulator, session: aiohttp.ClientSession
) -> None:
    """A keyset id is placed where its record stands now, as a service given only an id must
    place it: once that record moved to the end, the list resumes after it (the rest is lost,
    which only a client's own checks can notice)."""
    sim = await serve(order="updated")
    ids = list(sim.dataset.ids(SCOPES))
    headers = {"X-Simulator-Paging": "stripe"}
    url = f"{sim.url}/v1/{SCOPES}"
    _, first, _ = await get_json(session, url, {"limit": "5"}, headers)
    assert [record["id"] for record in first["data"]] == ids[:5]
    _, second, _ = await get_json(session, url, {"limit": "5", "starting_after": ids[4]}, headers)
    assert [record["id"] for record in second["data"]] == ids[5:10]
    sim.dataset.modify(SCOPES, [ids[4]], at=AT)
    _, moved, _ = await get_json(session, url, {"limit": "5", "starting_after": ids[4]}, headers)
    assert (moved["data"], moved["has_more"]) == ([], False)
    sim.dataset.modify(SCOPES, [ids[9]], at=AT + 1)
    sim.dataset.hide(SCOPES, [ids[4]])  # hidden since: still marks its (new) place
    _, after, _ = await get_json(session, url, {"limit": "5", "starting_after": ids[4]}, headers)
    assert [record["id"] for record in after["data"]] == [ids[9]]


async def test_a_moved_record_is_still_got_by_its_id(
    serve: StartSimulator, session: aiohttp.ClientSession
) -> None:
    """Moving in the list changes nothing of a get: the record, as changed."""
    sim = await serve(order="updated")
    record_id = list(sim.dataset.ids(ENDPOINTS))[2]
    sim.dataset.modify(ENDPOINTS, [record_id], at=AT)
    status, body, _ = await get_json(session, record_url(sim.url, ENDPOINTS, record_id))
    assert (status, body["id"], body["updated_at"]) == (200, record_id, "2033-05-18T03:33:20Z")


async def test_a_streamed_whole_list_follows_the_update_order(
    serve: StartSimulator, session: aiohttp.ClientSession
) -> None:
    """A list long enough to be streamed in chunks is in update order too."""
    sim = await serve(size=60, order="updated")
    ids = list(sim.dataset.ids(FINDINGS))
    assert len(ids) > 1000  # STREAM_BATCH
    sim.dataset.modify(FINDINGS, [ids[10], ids[-5]], at=AT)
    listed = await list_all_ids(session, sim.url, FINDINGS, "none")
    assert listed == [i for i in ids if i not in {ids[10], ids[-5]}] + [ids[10], ids[-5]]


TOKEN_KEPT = (
    "compose:follow=token,items=data,next=meta.next,param=after,size=limit,end=empty,prev=meta.prev"
)
COMPOSED = (
    TOKEN_KEPT,
    "compose:follow=keyset,items=data,param=after_id,size=limit,more=has_more,prev=meta.prev",
    "compose:follow=url,items=data,next=links.next,param=cursor,size=limit,end=flag,"
    "more=has_more,prev=links.prev",
    "compose:follow=number,items=data,next=meta.next,param=start,size=limit,total=meta.total",
)


@pytest.mark.parametrize("spec", COMPOSED, ids=["token", "keyset", "url", "number"])
async def test_composed_modes_walk_the_update_order(
    serve: StartSimulator, session: aiohttp.ClientSession, spec: str
) -> None:
    """A composed list, walked by its own rules with its signals checked on every page, is the
    data set's order by update."""
    sim = await serve(order="updated")
    ids = list(sim.dataset.ids(SCOPES))
    sim.dataset.modify(SCOPES, [ids[2], ids[0]], at=AT)
    expected = list(sim.dataset.ids(SCOPES))
    assert expected[-2:] == [ids[0], ids[2]]
    composition = Composition.parse(spec)
    walk = await walk_composition(
        session, sim.url, SCOPES, composition, expected_total=len(ids), size=4
    )
    assert walk.ids == expected


async def test_a_composed_cursor_marks_its_page_and_the_end_in_update_order(
    serve: StartSimulator, session: aiohttp.ClientSession
) -> None:
    """In update order, the backward cursor of every page asks for that page again (moved
    records before it included), and the continuation a kept end hands out past the last
    page stays past every record."""
    sim = await serve(order="updated")
    ids = list(sim.dataset.ids(SCOPES))
    sim.dataset.modify(SCOPES, ids[:7], at=AT)
    headers = {"X-Simulator-Paging": TOKEN_KEPT}
    url = f"{sim.url}/v1/{SCOPES}"
    pages: list[Any] = []
    after: dict[str, str] = {}
    while not pages or pages[-1]["data"]:
        _, body, _ = await get_json(session, url, {"limit": "3", **after}, headers)
        pages.append(body)
        after = {"after": body["meta"]["next"]}
        assert len(pages) <= len(ids)
    served = [record["id"] for body in pages for record in body["data"]]
    assert served == [*ids[7:], *ids[:7]]
    for body in pages[1:-1]:
        params = {"limit": "3", "after": body["meta"]["prev"]}
        _, again, _ = await get_json(session, url, params, headers)
        assert again["data"] == body["data"]
    _, still, _ = await get_json(session, url, {"limit": "3", **after}, headers)
    assert still["data"] == []


async def test_the_continuation_of_an_empty_list_stays_past_every_record(
    serve: StartSimulator, session: aiohttp.ClientSession
) -> None:
    """The continuation a kept end hands out on an empty list points past every record, in
    update order too: records that match later, moved to the end, are not behind it."""
    sim = await serve(order="updated", range_filters=True)
    headers = {"X-Simulator-Paging": TOKEN_KEPT}
    url = f"{sim.url}/v1/{ENDPOINTS}"
    since = {"updatedAt[gte]": "2033-01-01T00:00:00Z", "limit": "4"}
    _, empty, _ = await get_json(session, url, since, headers)
    assert empty["data"] == []
    record_id = list(sim.dataset.ids(ENDPOINTS))[3]
    sim.dataset.modify(ENDPOINTS, [record_id], at=AT)
    _, fresh, _ = await get_json(session, url, since, headers)
    assert [record["id"] for record in fresh["data"]] == [record_id]
    _, past, _ = await get_json(session, url, {**since, "after": empty["meta"]["next"]}, headers)
    assert past["data"] == []
