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

from .helpers import StartSimulator, get_json, message_of
from .walker import camel, walk

FINDINGS = "vulnerability-findings"
ENDPOINTS = "endpoints"
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
    filters = [("osFamily", "windows"), ("osFamily", "linux"), ("hasAgent", "true")]
    expected = list(
        sim.dataset.ids(ENDPOINTS, {"osFamily": ["windows", "linux"], "hasAgent": "true"})
    )
    assert 3 < len(expected) < sim.dataset.count(ENDPOINTS)
    walked = await walk(
        session, sim.url, ENDPOINTS, row, expected_total=len(expected), size=3, filters=filters
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
        ("pagination-url", ("data",)),
        ("stripe", ("data",)),
        ("google", ("vulnerabilityFindings",)),
        ("aws", ("Items",)),
        ("cursor", ("data",)),
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
    assert len(body[camel(resource)]) == min(50, sim.dataset.count(resource))


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
@pytest.mark.parametrize("bad", ["0", "101", "-1", "ten"])
async def test_page_sizes_out_of_range_are_422_in_every_convention(
    sim: Simulator, session: aiohttp.ClientSession, row: Convention, bad: str
) -> None:
    """The row's size parameter takes 1..max_page_size (100 by default); anything else is a
    422 naming the parameter and its bounds, in the run's error body."""
    assert row.size_param is not None
    headers = {"X-Simulator-Paging": row.name}
    url = f"{sim.url}/v1/endpoints"
    status, body, _ = await get_json(session, url, {row.size_param: bad}, headers)
    assert status == 422
    assert f"{row.size_param} must be" in message_of(body)
    assert "between 1 and 100." in message_of(body)
    status, _, _ = await get_json(session, url, {row.size_param: "100"}, headers)
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
    assert status == 422


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
    assert status == 400
    assert message_of(body).startswith("invalid cursor")


@pytest.mark.parametrize(
    ("name", "params"),
    [
        ("stripe", {"starting_after": "00000000-0000-4000-8000-000000000000"}),
        ("stripe", {"starting_after": "nonsense"}),
        ("header-page", {"page": "0"}),
        ("header-page", {"page": "two"}),
        ("spring", {"page": "-1"}),
        ("page", {"page": "0"}),
        ("offset", {"offset": "-1"}),
        ("aws", [("NextToken", "a"), ("NextToken", "b")]),
    ],
)
async def test_bad_positions_are_422_invalid_parameter(
    serve: StartSimulator, session: aiohttp.ClientSession, name: str, params: object
) -> None:
    """Unknown ids, pages before the first, negative offsets and repeated tokens are refused."""
    simulator = await serve(error_format="error")
    headers = {"X-Simulator-Paging": name}
    status, body, _ = await get_json(session, f"{simulator.url}/v1/endpoints", params, headers)
    assert (status, body["error"]["code"]) == (422, "invalid_parameter")


async def test_keyset_refuses_an_id_outside_the_filtered_list(
    sim: Simulator, session: aiohttp.ClientSession
) -> None:
    """`starting_after` must name a record of the list as filtered, not just any record."""
    mac = next(sim.dataset.ids(ENDPOINTS, {"osFamily": "macos"}))
    params = {"osFamily": "windows", "starting_after": mac}
    headers = {"X-Simulator-Paging": "stripe"}
    status, body, _ = await get_json(session, f"{sim.url}/v1/{ENDPOINTS}", params, headers)
    assert status == 422
    assert message_of(body).startswith("starting_after must be the id of a record of this list")


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
        if name and name not in ("limit", "offset")
    }
    status, body, _ = await get_json(session, f"{sim.url}/v1/endpoints", params)
    assert status == 200, body
    assert [item["id"] for item in body["data"]] == list(sim.dataset.ids("endpoints"))


CONTINUING = [row for row in ROWS if row.follow in ("url", "token", "keyset")]


@pytest.mark.parametrize("row", CONTINUING, ids=names(CONTINUING))
async def test_cursor_expiry_hits_continuations_of_every_convention(
    serve: StartSimulator, session: aiohttp.ClientSession, row: Convention
) -> None:
    """cursor-expired faults answer 410 to requests that carry the row's continuation only."""
    simulator = await serve(
        paging=row.name, faults=[FaultSpec("cursor-expired", 1.0)], error_format="error"
    )
    with pytest.raises(AssertionError, match="cursor_expired"):
        await walk(session, simulator.url, "endpoints", row, expected_total=20, size=5)
    assert simulator.counters.responses == {200: 1, 410: 1}
