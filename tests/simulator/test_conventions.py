"""Every paging convention of `remedy_async.CONVENTIONS`, served over real sockets.

Each row is walked by hand (`walker`), by the row's own documented rules, and must give exactly
the data set's ids in order, with truthful signals on every page.
"""

from __future__ import annotations

import math

import aiohttp
import pytest

from remedy_async import CONVENTIONS, Convention
from remedy_async.simulator import PAGING_CONVENTIONS, FaultSpec, Simulator, SimulatorConfig

from .helpers import StartSimulator, get_json
from .walker import camel, walk

FINDINGS = "vulnerability-findings"
ROWS = list(CONVENTIONS.values())
SIZED = [row for row in ROWS if row.size_param]
CURSORS = [row for row in ROWS if row.follow in ("url", "token") and row.param != "page"]


def names(rows: list[Convention]) -> list[str]:
    return [row.name for row in rows]


def test_every_convention_is_a_paging_scheme() -> None:
    """The simulator serves exactly the client's table, in its order, and accepts every name."""
    assert tuple(CONVENTIONS) == PAGING_CONVENTIONS
    for name in CONVENTIONS:
        assert SimulatorConfig(paging=name).paging == name


@pytest.mark.parametrize("row", ROWS, ids=names(ROWS))
async def test_every_convention_lists_every_finding_once_in_order(
    sim: Simulator, session: aiohttp.ClientSession, row: Convention
) -> None:
    """A few hundred findings in pages of 100: exactly the data set's ids, in order."""
    expected = list(sim.dataset.ids(FINDINGS))
    assert 300 < len(expected) < 1000
    walked = await walk(session, sim.url, FINDINGS, row, expected_total=len(expected))
    assert walked.ids == expected
    assert walked.pages == (1 if row.follow == "none" else math.ceil(len(expected) / 100))


@pytest.mark.parametrize("row", ROWS, ids=names(ROWS))
async def test_every_convention_pages_through_a_filtered_list(
    sim: Simulator, session: aiohttp.ClientSession, row: Convention
) -> None:
    """Filters stay on every page (in next links too) and the totals are the filtered ones."""
    filters = [("severity", "critical"), ("severity", "high"), ("status", "open")]
    expected = list(sim.dataset.ids(FINDINGS, {"severity": ["critical", "high"], "status": "open"}))
    walked = await walk(
        session, sim.url, FINDINGS, row, expected_total=len(expected), size=7, filters=filters
    )
    assert walked.ids == expected


@pytest.mark.parametrize("row", ROWS, ids=names(ROWS))
async def test_the_run_convention_applies_without_the_header(
    serve: StartSimulator, session: aiohttp.ClientSession, row: Convention
) -> None:
    """`paging=<name>` makes a run speak that convention to requests without the header."""
    simulator = await serve(paging=row.name)
    params = {row.size_param: "10"} if row.size_param else {}
    _, by_config, _ = await get_json(session, f"{simulator.url}/v1/scopes", params)
    headers = {"X-Simulator-Paging": row.name}
    _, by_header, _ = await get_json(session, f"{simulator.url}/v1/scopes", params, headers)
    assert by_config == by_header


@pytest.mark.parametrize(
    ("name", "where"),
    [
        ("link", ()),
        ("odata", ("value",)),
        ("hal", ("_embedded", "vulnerabilityFindings")),
        ("json-api", ("data",)),
        ("salesforce", ("records",)),
        ("next-url", ("results",)),
        ("pagination-url", ("items",)),
        ("stripe", ("data",)),
        ("google", ("vulnerabilityFindings",)),
        ("aws", ("Items",)),
        ("cursor", ("items",)),
        ("header-page", ()),
        ("spring", ("content",)),
        ("none", ()),
    ],
)
async def test_items_sit_where_the_row_keeps_them(
    sim: Simulator, session: aiohttp.ClientSession, name: str, where: tuple[str, ...]
) -> None:
    """`()` is a bare array; `{resource}` and HAL's `*` are the camelCase resource name."""
    headers = {"X-Simulator-Paging": name}
    _, body, _ = await get_json(session, f"{sim.url}/v1/{FINDINGS}", None, headers)
    for key in where:
        body = body[key]
    assert isinstance(body, list)
    assert body[0]["id"] == next(sim.dataset.ids(FINDINGS))


@pytest.mark.parametrize("resource", ["endpoints", "remediation-targets", "scopes"])
async def test_resource_names_are_camel_case(
    sim: Simulator, session: aiohttp.ClientSession, resource: str
) -> None:
    """google keeps `remediationTargets`, `endpoints`, `scopes` under their own names."""
    headers = {"X-Simulator-Paging": "google"}
    _, body, _ = await get_json(session, f"{sim.url}/v1/{resource}", None, headers)
    assert camel(resource) in body
    assert len(body[camel(resource)]) == min(100, sim.dataset.count(resource))


@pytest.mark.parametrize("items_key", ["data", "results"])
@pytest.mark.parametrize(
    "row", [row for row in ROWS if row.items == (("items",), ("data",), ("results",))], ids=str
)
async def test_generic_rows_use_the_run_items_key(
    serve: StartSimulator, session: aiohttp.ClientSession, row: Convention, items_key: str
) -> None:
    """Rows keeping items where the contract does follow the run's `items_key`."""
    simulator = await serve(items_key=items_key)
    expected = list(simulator.dataset.ids("scopes"))
    walked = await walk(
        session, simulator.url, "scopes", row, expected_total=len(expected), size=5,
        items_key=items_key,
    )  # fmt: skip
    assert walked.ids == expected


@pytest.mark.parametrize("row", SIZED, ids=names(SIZED))
@pytest.mark.parametrize("bad", ["0", "1001", "-1", "ten"])
async def test_page_sizes_out_of_range_are_400_in_every_convention(
    sim: Simulator, session: aiohttp.ClientSession, row: Convention, bad: str
) -> None:
    """The row's size parameter takes 1..max_page_size; anything else is invalid_parameter."""
    assert row.size_param is not None
    headers = {"X-Simulator-Paging": row.name}
    url = f"{sim.url}/v1/endpoints"
    status, body, _ = await get_json(session, url, {row.size_param: bad}, headers)
    assert (status, body["error"]["code"]) == (400, "invalid_parameter")
    assert repr(row.size_param) in body["error"]["message"]
    status, _, _ = await get_json(session, url, {row.size_param: "1000"}, headers)
    assert status == 200


@pytest.mark.parametrize("row", SIZED, ids=names(SIZED))
async def test_configured_page_sizes_apply_in_every_convention(
    serve: StartSimulator, session: aiohttp.ClientSession, row: Convention
) -> None:
    """page_size is the default of every row's size parameter, max_page_size its limit."""
    assert row.size_param is not None
    simulator = await serve(page_size=10, max_page_size=20)
    headers = {"X-Simulator-Paging": row.name}
    url = f"{simulator.url}/v1/endpoints"
    walked = await walk(session, simulator.url, "endpoints", row, expected_total=20, size=10)
    assert walked.pages == 2
    status, _, _ = await get_json(session, url, {row.size_param: "21"}, headers)
    assert status == 400


@pytest.mark.parametrize("row", CURSORS, ids=names(CURSORS))
@pytest.mark.parametrize("cursor", ["not a cursor!", "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"])
async def test_bad_cursors_are_400_invalid_cursor_in_every_convention(
    sim: Simulator, session: aiohttp.ClientSession, row: Convention, cursor: str
) -> None:
    """A cursor the run did not issue is refused wherever the row carries it."""
    assert row.param is not None
    headers = {"X-Simulator-Paging": row.name}
    url = f"{sim.url}/v1/endpoints"
    status, body, _ = await get_json(session, url, {row.param: cursor}, headers)
    assert (status, body["error"]["code"]) == (400, "invalid_cursor")


@pytest.mark.parametrize(
    ("name", "params"),
    [
        ("stripe", {"starting_after": "ep-99999999"}),
        ("stripe", {"starting_after": "nonsense"}),
        ("header-page", {"page": "0"}),
        ("header-page", {"page": "two"}),
        ("spring", {"page": "-1"}),
        ("page", {"page": "0"}),
        ("offset", {"offset": "-1"}),
        ("aws", [("NextToken", "a"), ("NextToken", "b")]),
    ],
)
async def test_bad_positions_are_400_invalid_parameter(
    sim: Simulator, session: aiohttp.ClientSession, name: str, params: object
) -> None:
    """Unknown ids, pages before the first, negative offsets and repeated tokens are refused."""
    headers = {"X-Simulator-Paging": name}
    status, body, _ = await get_json(session, f"{sim.url}/v1/endpoints", params, headers)
    assert (status, body["error"]["code"]) == (400, "invalid_parameter")


async def test_keyset_refuses_an_id_outside_the_filtered_list(
    sim: Simulator, session: aiohttp.ClientSession
) -> None:
    """`starting_after` must name a record of the list as filtered, not just any record."""
    closed = next(sim.dataset.ids(FINDINGS, {"status": "resolved"}))
    params = {"status": "open", "starting_after": closed}
    headers = {"X-Simulator-Paging": "stripe"}
    status, body, _ = await get_json(session, f"{sim.url}/v1/{FINDINGS}", params, headers)
    assert (status, body["error"]["code"]) == (400, "invalid_parameter")


async def test_spring_is_zero_based(sim: Simulator, session: aiohttp.ClientSession) -> None:
    """Spring's page 0 is the first page, echoed as `number`."""
    headers = {"X-Simulator-Paging": "spring"}
    url = f"{sim.url}/v1/scopes"
    _, first, _ = await get_json(session, url, {"page": "0", "size": "10"}, headers)
    _, second, _ = await get_json(session, url, {"page": "1", "size": "10"}, headers)
    ids = list(sim.dataset.ids("scopes"))
    assert [item["id"] for item in first["content"]] == ids[:10]
    assert [item["id"] for item in second["content"]] == ids[10:20]
    assert (second["number"], second["size"], second["totalElements"]) == (1, 10, len(ids))
    assert (second["totalPages"], second["last"]) == (3, False)


async def test_other_rows_paging_parameters_are_never_filters(
    sim: Simulator, session: aiohttp.ClientSession
) -> None:
    """Every row's parameter names are ignored by the others, never taken for filters."""
    params = {
        name: "5"
        for row in ROWS
        for name in (row.param, row.size_param)
        if name and name not in ("limit", "cursor")
    }
    status, body, _ = await get_json(session, f"{sim.url}/v1/endpoints", params)
    assert status == 200, body
    assert [item["id"] for item in body["items"]] == list(sim.dataset.ids("endpoints"))


CONTINUING = [row for row in ROWS if row.follow in ("url", "token", "keyset")]


@pytest.mark.parametrize("row", CONTINUING, ids=names(CONTINUING))
async def test_cursor_expiry_hits_continuations_of_every_convention(
    serve: StartSimulator, session: aiohttp.ClientSession, row: Convention
) -> None:
    """cursor-expired faults answer 410 to requests that carry the row's continuation only."""
    simulator = await serve(paging=row.name, faults=[FaultSpec("cursor-expired", 1.0)])
    with pytest.raises(AssertionError, match="cursor_expired"):
        await walk(session, simulator.url, "endpoints", row, expected_total=20, size=5)
    assert simulator.counters.responses == {200: 1, 410: 1}
