"""Lists that move mid-way: Dataset.hide and show, over real sockets, in several conventions."""

from __future__ import annotations

from typing import Any

import aiohttp
import pytest

from remedy_async.simulator import Dataset, Simulator

from .helpers import StartSimulator, get_json, list_all_ids, record_url

SCOPES = "scopes"
ENDPOINTS = "endpoints"
FINDINGS = "vulnerability-findings"


async def page(
    session: aiohttp.ClientSession,
    sim: Simulator,
    scheme: str,
    params: dict[str, str] | list[tuple[str, str]],
    resource: str = SCOPES,
) -> Any:
    """One page of `resource` in `scheme` (forced by header); asserts a 200."""
    url = f"{sim.url}/v1/{resource}"
    status, body, _ = await get_json(session, url, params, {"X-Simulator-Paging": scheme})
    assert status == 200, body
    return body


def ids_of(records: list[dict[str, Any]]) -> list[str]:
    return [record["id"] for record in records]


def test_hide_and_show_change_counts_ids_and_gets() -> None:
    """Hidden records leave counts, ids, records and get; shown ones come back in place."""
    dataset = Dataset(seed=5, size=20)
    ids = list(dataset.ids(SCOPES))
    dataset.hide(SCOPES, [ids[3], ids[-1]])
    assert dataset.count(SCOPES) == len(ids) - 2
    assert list(dataset.ids(SCOPES)) == ids[:3] + ids[4:-1]
    assert [record["id"] for record in dataset.records(SCOPES)] == ids[:3] + ids[4:-1]
    assert dataset.get(SCOPES, ids[3]) is None
    assert dataset.index_of(SCOPES, ids[3]) is None
    assert dataset.index_of(SCOPES, ids[3], include_hidden=True) == 3
    assert dataset.hidden(SCOPES) == (ids[3], ids[-1])
    dataset.show(SCOPES, [ids[-1], ids[3]])
    assert list(dataset.ids(SCOPES)) == ids
    assert dataset.hidden(SCOPES) == ()


def test_hide_and_show_are_idempotent_and_check_ids() -> None:
    """Hiding twice or showing a visible record does nothing; an unknown id hides nothing."""
    dataset = Dataset(seed=5, size=20)
    first, second = list(dataset.ids(SCOPES))[:2]
    dataset.hide(SCOPES, first)  # one id alone is one record, not its characters
    dataset.hide(SCOPES, [first])
    dataset.show(SCOPES, [second])
    assert dataset.hidden(SCOPES) == (first,)
    with pytest.raises(ValueError, match="not the id of a record of scopes"):
        dataset.hide(SCOPES, [second, dataset.id_of(ENDPOINTS, 0)])
    assert dataset.hidden(SCOPES) == (first,)
    with pytest.raises(ValueError, match="unknown resource"):
        dataset.hide("widgets", [first])


def test_filtered_views_leave_hidden_records_out() -> None:
    """Hidden records are out of filtered lists and counts too."""
    dataset = Dataset(seed=5, size=20)
    wanted = {"osFamily": ["windows", "linux"]}
    matching = list(dataset.ids(ENDPOINTS, wanted))
    assert len(matching) > 3
    dataset.hide(ENDPOINTS, matching[::2])
    assert list(dataset.ids(ENDPOINTS, wanted)) == matching[1::2]
    assert dataset.count(ENDPOINTS, wanted) == len(matching[1::2])
    dataset.show(ENDPOINTS, matching)
    assert list(dataset.ids(ENDPOINTS, wanted)) == matching


@pytest.mark.parametrize(
    ("scheme", "params", "totals"),
    [
        ("offset", {"limit": "5"}, {"total": 20}),
        ("page", {"pageSize": "5"}, {"total": 20, "totalPages": 4}),
        ("spring", {"size": "5"}, {"totalElements": 20, "totalPages": 4}),
        ("next-url", {"page_size": "5"}, {"count": 20}),
        ("odata", {"$top": "5"}, {"@odata.count": 20}),
    ],
)
async def test_totals_count_the_visible_records(
    sim: Simulator,
    session: aiohttp.ClientSession,
    scheme: str,
    params: dict[str, str],
    totals: dict[str, int],
) -> None:
    """Every convention's totals drop when records are hidden and rise when shown."""
    ids = list(sim.dataset.ids(SCOPES))
    sim.dataset.hide(SCOPES, ids[-4:])
    body = await page(session, sim, scheme, params)
    assert {name: body[name] for name in totals} == totals
    sim.dataset.show(SCOPES, ids[-4:])
    body = await page(session, sim, scheme, params)
    assert all(body[name] > value for name, value in totals.items())


async def test_a_hidden_record_is_404_and_comes_back(
    sim: Simulator, session: aiohttp.ClientSession
) -> None:
    """A get of a hidden record is 404 `Endpoint not found.`; once shown it is 200 again."""
    record_id = list(sim.dataset.ids("endpoints"))[7]
    sim.dataset.hide("endpoints", [record_id])
    status, body, _ = await get_json(session, record_url(sim.url, "endpoints", record_id))
    assert (status, body) == (404, {"error": "Endpoint not found."})
    sim.dataset.show("endpoints", [record_id])
    status, body, _ = await get_json(session, record_url(sim.url, "endpoints", record_id))
    assert (status, body["id"]) == (200, record_id)


async def test_a_page_asked_again_after_hiding_is_cut_afresh(
    sim: Simulator, session: aiohttp.ClientSession
) -> None:
    """The same page request answers the visible records, not a page cached before hiding."""
    ids = list(sim.dataset.ids(SCOPES))
    params = {"offset": "0", "limit": "5"}
    assert ids_of((await page(session, sim, "offset", params))["data"]) == ids[:5]
    sim.dataset.hide(SCOPES, [ids[1]])
    assert ids_of((await page(session, sim, "offset", params))["data"]) == ids[:1] + ids[2:6]
    sim.dataset.show(SCOPES, [ids[1]])
    assert ids_of((await page(session, sim, "offset", params))["data"]) == ids[:5]


async def test_offsets_index_the_visible_records(
    sim: Simulator, session: aiohttp.ClientSession
) -> None:
    """A record hidden before the next offset shifts the rest back: sequential offset paging
    then misses one record, and the total says the list moved."""
    ids = list(sim.dataset.ids(SCOPES))
    first = await page(session, sim, "offset", {"offset": "0", "limit": "5"})
    assert ids_of(first["data"]) == ids[:5]
    sim.dataset.hide(SCOPES, [ids[2]])
    second = await page(session, sim, "offset", {"offset": "5", "limit": "5"})
    assert ids_of(second["data"]) == ids[6:11]
    assert second["total"] == first["total"] - 1


async def test_page_numbers_grow_with_records_shown(
    sim: Simulator, session: aiohttp.ClientSession
) -> None:
    """A list that starts with its tail hidden grows when it is shown: more pages, all records."""
    ids = list(sim.dataset.ids(SCOPES))
    sim.dataset.hide(SCOPES, ids[10:])
    first = await page(session, sim, "page", {"page": "1", "pageSize": "5"})
    assert (first["total"], first["totalPages"]) == (10, 2)
    sim.dataset.show(SCOPES, ids[10:])
    seen = ids_of(first["data"])
    for number in range(2, 100):
        body = await page(session, sim, "page", {"page": str(number), "pageSize": "5"})
        if not body["data"]:
            break
        seen += ids_of(body["data"])
    assert (body["total"], seen) == (len(ids), ids)


async def test_a_cursor_neither_repeats_nor_skips_a_visible_record(
    sim: Simulator, session: aiohttp.ClientSession
) -> None:
    """Hiding the cursor's own record and the next ones, and showing records behind and ahead
    of it, leaves the rest of the list exactly as it now stands after the cursor."""
    ids = list(sim.dataset.ids(SCOPES))
    sim.dataset.hide(SCOPES, [ids[2], ids[12]])
    first = await page(session, sim, "cursor", {"limit": "5"})
    assert ids_of(first["data"]) == ids[:2] + ids[3:6]
    sim.dataset.hide(SCOPES, [ids[5], ids[6], ids[7]])  # the cursor's own record, and ahead
    sim.dataset.show(SCOPES, [ids[2], ids[12]])  # one behind the cursor, one ahead
    seen, cursor = ids_of(first["data"]), first["nextCursor"]
    while cursor is not None:
        body = await page(session, sim, "cursor", {"limit": "5", "cursor": cursor})
        seen += ids_of(body["data"])
        cursor = body["nextCursor"]
    assert seen == ids[:2] + ids[3:6] + ids[8:]


async def test_a_keyset_id_hidden_since_still_marks_its_place(
    sim: Simulator, session: aiohttp.ClientSession
) -> None:
    """Keyset paging resumes after a last id whose record was hidden after it was delivered."""
    ids = list(sim.dataset.ids(SCOPES))
    first = await page(session, sim, "stripe", {"limit": "5"})
    assert ids_of(first["data"]) == ids[:5]
    sim.dataset.hide(SCOPES, [ids[4], ids[5]])
    body = await page(session, sim, "stripe", {"limit": "5", "starting_after": ids[4]})
    assert ids_of(body["data"]) == ids[6:11]


async def test_a_keyset_id_of_another_list_is_still_refused(
    sim: Simulator, session: aiohttp.ClientSession
) -> None:
    """A hidden record that the filtered list never held is no place to resume from."""
    dataset = sim.dataset
    outside = next(iter(dataset.ids(ENDPOINTS, {"osFamily": "macos"})))
    dataset.hide(ENDPOINTS, [outside])
    params = [("osFamily", "windows"), ("limit", "5"), ("starting_after", outside)]
    url = f"{sim.url}/v1/{ENDPOINTS}"
    status, body, _ = await get_json(session, url, params, {"X-Simulator-Paging": "stripe"})
    assert status == 422
    assert body["error"].startswith("starting_after must be the id of a record of this list")


@pytest.mark.parametrize("scheme", ["none", "offset", "page", "cursor", "link"])
async def test_filtered_lists_leave_hidden_records_out(
    sim: Simulator, session: aiohttp.ClientSession, scheme: str
) -> None:
    """Walking a filtered list in any convention gives only its visible matches."""
    filters = [("osFamily", "windows"), ("osFamily", "linux")]
    wanted = {"osFamily": ["windows", "linux"]}
    matching = list(sim.dataset.ids(ENDPOINTS, wanted))
    assert len(matching) > 6
    sim.dataset.hide(ENDPOINTS, matching[1::3])
    listed = await list_all_ids(session, sim.url, ENDPOINTS, scheme, size=3, filters=filters)
    assert listed == [record_id for i, record_id in enumerate(matching) if i % 3 != 1]


async def test_a_streamed_whole_list_leaves_hidden_records_out(
    serve: StartSimulator, session: aiohttp.ClientSession
) -> None:
    """A list long enough to be streamed in chunks leaves hidden records out too."""
    simulator = await serve(size=60)
    ids = list(simulator.dataset.ids(FINDINGS))
    assert len(ids) - 3 > 1000  # STREAM_BATCH
    simulator.dataset.hide(FINDINGS, ids[999:1002])
    listed = await list_all_ids(session, simulator.url, FINDINGS, "none")
    assert listed == ids[:999] + ids[1002:]
