"""List filters over real sockets: equality, OR, AND, typed values and unknown names."""

from __future__ import annotations

import aiohttp
import pytest

from remedy_async.simulator import Simulator

from .helpers import get_json

FINDINGS = "vulnerability-findings"


async def listed_ids(
    simulator: Simulator, session: aiohttp.ClientSession, resource: str, params: object
) -> list[str]:
    headers = {"X-Simulator-Paging": "none"}
    status, body, _ = await get_json(session, f"{simulator.url}/v1/{resource}", params, headers)
    assert status == 200, body
    return [item["id"] for item in body]


async def test_single_value_filter(sim: Simulator, session: aiohttp.ClientSession) -> None:
    """`severity=critical` lists only critical findings, all of them."""
    ids = await listed_ids(sim, session, FINDINGS, {"severity": "critical"})
    assert ids
    assert ids == list(sim.dataset.ids(FINDINGS, {"severity": "critical"}))


async def test_repeated_parameter_means_or(sim: Simulator, session: aiohttp.ClientSession) -> None:
    """`status=failed&status=cancelled` lists targets in either status."""
    params = [("status", "failed"), ("status", "cancelled")]
    ids = await listed_ids(sim, session, "remediation-targets", params)
    statuses = {sim.dataset.get("remediation-targets", i)["status"] for i in ids}  # type: ignore[index]
    assert statuses == {"failed", "cancelled"}
    assert len(ids) == sim.dataset.count("remediation-targets", {"status": ["failed", "cancelled"]})


async def test_different_parameters_mean_and(
    sim: Simulator, session: aiohttp.ClientSession
) -> None:
    """Two different filters must both match."""
    params = {"severity": "high", "scanner": "qualys"}
    ids = await listed_ids(sim, session, FINDINGS, params)
    for record_id in ids:
        record = sim.dataset.get(FINDINGS, record_id)
        assert record is not None
        assert (record["severity"], record["scanner"]) == ("high", "qualys")
    assert ids == list(sim.dataset.ids(FINDINGS, params))


@pytest.mark.parametrize("value", ["true", "false"])
async def test_boolean_filter(sim: Simulator, session: aiohttp.ClientSession, value: str) -> None:
    """`enabled=true|false` matches the boolean field."""
    ids = await listed_ids(sim, session, "scopes", {"enabled": value})
    assert ids
    expected = [s["id"] for s in sim.dataset.records("scopes") if s["enabled"] == (value == "true")]
    assert ids == expected


async def test_endpoint_filter_on_findings(sim: Simulator, session: aiohttp.ClientSession) -> None:
    """`endpointId=...` lists that endpoint's findings."""
    ids = await listed_ids(sim, session, FINDINGS, {"endpointId": "ep-00000007"})
    assert ids
    assert all(sim.dataset.get(FINDINGS, i)["endpointId"] == "ep-00000007" for i in ids)  # type: ignore[index]


async def test_null_matches_null(sim: Simulator, session: aiohttp.ClientSession) -> None:
    """`remediationTargetId=null` lists findings no target covers."""
    ids = await listed_ids(sim, session, FINDINGS, {"remediationTargetId": "null"})
    assert ids
    assert all(sim.dataset.get(FINDINGS, i)["remediationTargetId"] is None for i in ids)  # type: ignore[index]


async def test_numbers_compare_numerically(sim: Simulator, session: aiohttp.ClientSession) -> None:
    """`cvssScore=9.80` matches findings scored 9.8."""
    score = next(sim.dataset.records(FINDINGS))["cvssScore"]
    ids = await listed_ids(sim, session, FINDINGS, {"cvssScore": f"{score:.2f}"})
    assert ids == list(sim.dataset.ids(FINDINGS, {"cvssScore": str(score)}))
    assert ids


async def test_timestamps_compare_as_instants(
    sim: Simulator, session: aiohttp.ClientSession
) -> None:
    """A timestamp filter matches whether written with Z or +00:00."""
    enrolled = next(sim.dataset.records("endpoints"))["enrolledAt"]
    with_offset = enrolled.replace("Z", "+00:00")
    ids = await listed_ids(sim, session, "endpoints", {"enrolledAt": with_offset})
    assert ids[0] == "ep-00000001"


async def test_unknown_enum_value_matches_nothing(
    sim: Simulator, session: aiohttp.ClientSession
) -> None:
    """An enum value the service does not know is not an error; it matches nothing."""
    assert await listed_ids(sim, session, FINDINGS, {"severity": "catastrophic"}) == []


async def test_unknown_parameter_is_400_naming_it(
    sim: Simulator, session: aiohttp.ClientSession
) -> None:
    """An unknown query parameter gives 400 unknown_filter and names the parameter."""
    params = {"sevrity": "high"}
    status, body, _ = await get_json(session, f"{sim.url}/v1/{FINDINGS}", params)
    assert status == 400
    assert body["error"]["code"] == "unknown_filter"
    assert "'sevrity'" in body["error"]["message"]


@pytest.mark.parametrize(
    ("resource", "params"),
    [
        ("scopes", {"enabled": "yes"}),
        ("remediation-targets", {"attempts": "two"}),
        (FINDINGS, {"cvssScore": "nan"}),
        ("endpoints", {"enrolledAt": "last tuesday"}),
        ("remediation-targets", {"attempts": "1_0"}),
        ("remediation-targets", {"attempts": " 1"}),
        (FINDINGS, {"cvssScore": "infinity"}),
        (FINDINGS, {"cvssScore": "+9.8"}),
        ("endpoints", {"enrolledAt": "2024-05-01"}),
        ("endpoints", {"enrolledAt": "2024-05-01T10:00:00"}),
        ("endpoints", {"enrolledAt": "20240501T100000Z"}),
    ],
)
async def test_malformed_values_are_400_invalid_filter(
    sim: Simulator, session: aiohttp.ClientSession, resource: str, params: dict[str, str]
) -> None:
    """A value of the wrong type gives 400 invalid_filter."""
    status, body, _ = await get_json(session, f"{sim.url}/v1/{resource}", params)
    assert (status, body["error"]["code"]) == (400, "invalid_filter")


async def test_nested_fields_are_not_filters(
    sim: Simulator, session: aiohttp.ClientSession
) -> None:
    """Only top-level scalar fields filter: `os` or `tags` are unknown filters."""
    for name in ("os", "tags", "ipAddresses"):
        status, body, _ = await get_json(session, f"{sim.url}/v1/endpoints", {name: "x"})
        assert (status, body["error"]["code"]) == (400, "unknown_filter")
