"""List filters over real sockets, as published: `osFamily` and `hasAgent` on endpoints only,
OR within one, AND between them; bad values are 422, undeclared parameters ignored (or refused
with `strict_params`)."""

from __future__ import annotations

from typing import Any

import aiohttp
import pytest

from remedy_async.simulator import Simulator

from .helpers import RESOURCES, StartSimulator, get_json

FAMILIES = ("macos", "windows", "linux")


async def listed(
    simulator: Simulator, session: aiohttp.ClientSession, resource: str, params: object
) -> list[dict[str, Any]]:
    """Every record of a filtered list, in one response."""
    headers = {"X-Simulator-Paging": "none"}
    status, body, _ = await get_json(session, f"{simulator.url}/v1/{resource}", params, headers)
    assert status == 200, body
    return list(body)


@pytest.fixture
async def big(serve: StartSimulator) -> Simulator:
    """A run of 200 endpoints: every family and both agent states are there."""
    return await serve(size=200)


@pytest.mark.parametrize("family", FAMILIES)
async def test_os_family_lists_exactly_the_endpoints_of_that_family(
    big: Simulator, session: aiohttp.ClientSession, family: str
) -> None:
    """`osFamily=X` lists every endpoint whose `operating_system.family` is X, and no other."""
    records = await listed(big, session, "endpoints", {"osFamily": family})
    every = list(big.dataset.records("endpoints"))
    expected = [r["id"] for r in every if r["operating_system"]["family"] == family]
    assert expected
    assert [record["id"] for record in records] == expected
    status, body, _ = await get_json(
        session, f"{big.url}/v1/endpoints", {"osFamily": family, "limit": "1"}
    )
    assert (status, body["total"]) == (200, len(expected))


@pytest.mark.parametrize("value", ["true", "false"])
async def test_has_agent_lists_exactly_the_endpoints_with_or_without_one(
    big: Simulator, session: aiohttp.ClientSession, value: str
) -> None:
    """`hasAgent=true` lists the endpoints with an `agent_id`, `false` those without."""
    records = await listed(big, session, "endpoints", {"hasAgent": value})
    every = list(big.dataset.records("endpoints"))
    expected = [r["id"] for r in every if (r["agent_id"] is not None) == (value == "true")]
    assert expected
    assert [record["id"] for record in records] == expected


async def test_filters_combine_with_and(big: Simulator, session: aiohttp.ClientSession) -> None:
    """`osFamily` and `hasAgent` together: both must match."""
    records = await listed(big, session, "endpoints", {"osFamily": "linux", "hasAgent": "false"})
    every = list(big.dataset.records("endpoints"))
    expected = [
        r["id"]
        for r in every
        if r["operating_system"]["family"] == "linux" and r["agent_id"] is None
    ]
    assert [record["id"] for record in records] == expected
    assert 0 < len(expected) < len([r for r in every if r["agent_id"] is None])


async def test_a_repeated_filter_means_any_of_its_values(
    big: Simulator, session: aiohttp.ClientSession
) -> None:
    """`osFamily=macos&osFamily=linux` lists the endpoints of either family."""
    params = [("osFamily", "macos"), ("osFamily", "linux")]
    records = await listed(big, session, "endpoints", params)
    assert {r["operating_system"]["family"] for r in records} == {"macos", "linux"}
    assert len(records) == big.dataset.count("endpoints", {"osFamily": ["macos", "linux"]})


async def test_endpoints_of_the_other_family_are_listed_but_not_filterable(
    big: Simulator, session: aiohttp.ClientSession
) -> None:
    """A few endpoints are of family `other` (published as a value of the field, not of the
    filter): an unfiltered list has them, no `osFamily` value selects them."""
    every = list(big.dataset.records("endpoints"))
    others = [r["id"] for r in every if r["operating_system"]["family"] == "other"]
    assert others
    filtered = await listed(big, session, "endpoints", [("osFamily", f) for f in FAMILIES])
    assert len(filtered) == len(every) - len(others)


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"osFamily": "other"}, "osFamily must be one of macos, windows, linux."),
        ({"osFamily": "MacOS"}, "osFamily must be one of macos, windows, linux."),
        ({"osFamily": ""}, "osFamily must be one of macos, windows, linux."),
        ({"hasAgent": "yes"}, "hasAgent must be true or false."),
        ({"hasAgent": "True"}, "hasAgent must be true or false."),
    ],
)
async def test_bad_filter_values_are_422_with_the_published_body(
    sim: Simulator, session: aiohttp.ClientSession, params: dict[str, str], message: str
) -> None:
    """A value the filter does not take (`other` included) is a 422, `{"error": ...}`."""
    status, body, _ = await get_json(session, f"{sim.url}/v1/endpoints", params)
    assert (status, body) == (422, {"error": message})


@pytest.mark.parametrize("resource", RESOURCES)
async def test_unknown_parameters_are_ignored_by_default(
    sim: Simulator, session: aiohttp.ClientSession, resource: str
) -> None:
    """A misspelt or unpublished filter is silently ignored, as the service does: the whole
    list comes back (the other lists publish no filter at all)."""
    params = [("os_family", "macos"), ("severity", "critical"), ("status", "active")]
    records = await listed(sim, session, resource, params)
    assert [record["id"] for record in records] == list(sim.dataset.ids(resource))


@pytest.mark.parametrize("resource", RESOURCES)
async def test_strict_params_refuses_an_undeclared_parameter_naming_it(
    serve: StartSimulator, session: aiohttp.ClientSession, resource: str
) -> None:
    """With `strict_params`, an undeclared parameter is a 422 that names it; the declared
    filters and paging parameters still work."""
    simulator = await serve(strict_params=True)
    url = f"{simulator.url}/v1/{resource}"
    status, body, _ = await get_json(session, url, {"os_family": "macos"})
    assert status == 422
    assert body["error"].startswith("Unknown query parameter: os_family ")
    status, _, _ = await get_json(session, url, {"limit": "5", "offset": "1"})
    assert status == 200
    if resource == "endpoints":
        status, _, _ = await get_json(session, url, {"osFamily": "linux", "hasAgent": "true"})
        assert status == 200


async def test_filters_of_endpoints_are_not_filters_of_other_lists(
    serve: StartSimulator, session: aiohttp.ClientSession
) -> None:
    """`osFamily` is undeclared on findings: ignored, or refused with `strict_params`."""
    loose, strict = await serve(), await serve(strict_params=True)
    findings = "vulnerability-findings"
    records = await listed(loose, session, findings, {"osFamily": "macos"})
    assert len(records) == loose.dataset.count(findings)
    status, body, _ = await get_json(session, f"{strict.url}/v1/{findings}", {"osFamily": "x"})
    assert status == 422
    assert "osFamily" in body["error"]


async def test_dataset_filter_names_are_the_published_ones(sim: Simulator) -> None:
    """Only endpoints have filters, and they are the published two."""
    assert sim.dataset.filter_names("endpoints") == ("hasAgent", "osFamily")
    for resource in RESOURCES[1:]:
        assert sim.dataset.filter_names(resource) == ()
