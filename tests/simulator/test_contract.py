"""Contract test: openapi.yaml is valid OpenAPI 3.1, and the default simulator's answers match it.

These tests pick specific wire shapes (records with extra fields and nulls, each error status,
faults) and check them with jsonschema (`documents`); the other runs' documents are checked in
`test_documents`, and the fuzzing against all of them is schemathesis' job, in `tests/contract`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import aiohttp
import orjson
import pytest
import yaml
from openapi_spec_validator import validate as validate_spec

import remedy_async
from remedy_async.simulator import FaultSpec, Simulator

from .documents import Document
from .helpers import GET_PATHS, LIST_PATHS, RESOURCES, StartSimulator, record_url

SPEC: dict[str, Any] = yaml.safe_load(
    (Path(remedy_async.__file__).parent / "openapi.yaml").read_text(encoding="utf-8")
)
DOCUMENT = Document(SPEC)
resolve = DOCUMENT.resolve
check_against_spec = DOCUMENT.check
fetch_and_check = DOCUMENT.fetch
PAGING_PARAMETERS = {"offset", "limit", "page", "pageSize", "cursor"}


def test_document_is_valid_openapi_3_1() -> None:
    """openapi.yaml passes openapi-spec-validator as OpenAPI 3.1."""
    assert SPEC["openapi"].startswith("3.1")
    validate_spec(SPEC)


def test_document_has_the_ten_operations() -> None:
    """The document describes exactly the ten GET operations."""
    operations = {(path, method) for path, item in SPEC["paths"].items() for method in item}
    expected = {(path, "get") for path in (*LIST_PATHS.values(), *GET_PATHS.values())}
    assert operations == expected | {("/v1/health", "get"), ("/v1/agent-configuration", "get")}


@pytest.mark.parametrize("resource", RESOURCES)
def test_documented_filters_are_the_simulators(sim: Simulator, resource: str) -> None:
    """Each list documents exactly the filters the simulator accepts."""
    parameters = [resolve(p)[0] for p in SPEC["paths"][LIST_PATHS[resource]]["get"]["parameters"]]
    documented = {p["name"] for p in parameters if p["in"] == "query"} - PAGING_PARAMETERS
    assert documented == set(sim.dataset.filter_names(resource))


@pytest.mark.parametrize("resource", RESOURCES)
async def test_list_pages_match_the_document(
    sim: Simulator, session: aiohttp.ClientSession, resource: str
) -> None:
    """A first and a last list page of every collection fit the document."""
    url = sim.url + LIST_PATHS[resource]
    status, first = await fetch_and_check(session, url, LIST_PATHS[resource], {"limit": "10"})
    assert (status, len(first["items"])) == (200, 10)
    params = {"limit": "1000", "cursor": first["nextCursor"]}
    status, last = await fetch_and_check(session, url, LIST_PATHS[resource], params)
    assert (status, last["nextCursor"]) == (200, None)


@pytest.mark.parametrize("resource", RESOURCES)
async def test_records_match_the_document(
    serve: StartSimulator, session: aiohttp.ClientSession, resource: str
) -> None:
    """Every record of a small run, extra fields and nulls included, fits its schema."""
    simulator = await serve(size=30)
    url = simulator.url + LIST_PATHS[resource]
    status, page = await fetch_and_check(session, url, LIST_PATHS[resource], {"limit": "1000"})
    assert status == 200
    records = page["items"]
    assert len(records) == simulator.dataset.count(resource)
    record_id = records[-1]["id"]
    url = record_url(simulator.url, resource, record_id)
    assert (await fetch_and_check(session, url, GET_PATHS[resource]))[0] == 200


async def test_health_matches_the_document(sim: Simulator, session: aiohttp.ClientSession) -> None:
    """The health answer fits the document."""
    status, document = await fetch_and_check(session, f"{sim.url}/v1/health", "/v1/health")
    assert (status, document["status"]) == (200, "ok")


async def test_agent_configuration_matches_the_document(
    sim: Simulator, session: aiohttp.ClientSession
) -> None:
    """The download and its 304 carry the documented media type and headers."""
    path = "/v1/agent-configuration"
    async with session.get(sim.url + path) as response:
        check_against_spec(path, response.status, response.headers, await response.read())
        etag = response.headers["ETag"]
    status, _ = await fetch_and_check(session, sim.url + path, path, None, {"If-None-Match": etag})
    assert status == 304


ERROR_CASES: list[tuple[str, Any, dict[str, str], int]] = [
    ("/v1/endpoints", {"bogus": "1"}, {}, 400),
    ("/v1/endpoints", {"limit": "0"}, {}, 400),
    ("/v1/endpoints", {"limit": "1001"}, {}, 400),
    ("/v1/endpoints", {"pageSize": "1001"}, {}, 400),
    ("/v1/remediation-targets", {"attempts": "1.5"}, {}, 400),
    ("/v1/endpoints", {"cursor": "x"}, {}, 400),
    ("/v1/scopes", {"enabled": "maybe"}, {}, 400),
    ("/v1/endpoints/{endpointId}", None, {}, 404),
    ("/v1/scopes/{scopeId}", None, {}, 404),
]


@pytest.mark.parametrize(("path", "params", "headers", "status"), ERROR_CASES)
async def test_client_errors_match_the_document(
    sim: Simulator,
    session: aiohttp.ClientSession,
    path: str,
    params: Any,
    headers: dict[str, str],
    status: int,
) -> None:
    """400 and 404 answers fit the document."""
    url = sim.url + path.replace("{endpointId}", "nope").replace("{scopeId}", "nope")
    got, document = await fetch_and_check(session, url, path, params, headers)
    assert got == status
    assert document


async def test_auth_and_rate_limit_errors_match_the_document(
    serve: StartSimulator, session: aiohttp.ClientSession
) -> None:
    """401 and 429 answers (with their required headers) fit the document."""
    simulator = await serve(token="t", rate_limit=1)
    path = "/v1/scopes"
    assert (await fetch_and_check(session, simulator.url + path, path))[0] == 401
    auth = {"Authorization": "Bearer t"}
    assert (await fetch_and_check(session, simulator.url + path, path, None, auth))[0] == 200
    assert (await fetch_and_check(session, simulator.url + path, path, None, auth))[0] == 429


@pytest.mark.parametrize(
    "kind", ["http-500", "http-502", "http-503", "http-504", "http-429", "cursor-expired"]
)
async def test_fault_answers_match_the_document(
    serve: StartSimulator, session: aiohttp.ClientSession, kind: str
) -> None:
    """Injected 5xx, 429 and 410 answers fit the document."""
    faults = (FaultSpec(kind, 1.0, "list:vulnerability-findings"),)
    simulator = await serve(faults=faults)
    path = LIST_PATHS["vulnerability-findings"]
    async with session.get(simulator.url + path, params={"limit": "5"}) as response:
        first = orjson.loads(await response.read())
    cursor = first.get("nextCursor") if isinstance(first, dict) else None
    params = {"limit": "5", "cursor": cursor} if cursor else {"limit": "5"}
    status, document = await fetch_and_check(session, simulator.url + path, path, params)
    assert status >= 400
    assert document


def test_simulator_only_names_are_not_in_the_document() -> None:
    """The published contract names no simulator-only knob (`X-Simulator-*`)."""
    text = (Path(remedy_async.__file__).parent / "openapi.yaml").read_text(encoding="utf-8")
    assert "X-Simulator-" not in text
    assert "x-simulator-" not in text.lower()


REFUSED = {"400", "414", "431"}
"""What any request may get before it reaches an operation: not HTTP, or too large."""
OPERATION_STATUSES = {
    "list": {"200", "400", "401", "410", "429", "5XX"} | REFUSED,
    "get": {"200", "401", "404", "429", "5XX"} | REFUSED,
    "/v1/health": {"200", "429", "5XX"} | REFUSED,
    "/v1/agent-configuration": {"200", "304", "401", "429", "5XX"} | REFUSED,
}


def test_every_operation_documents_the_statuses_it_can_answer() -> None:
    """Lists, gets, health and the download each document exactly what the simulator sends."""
    for path, item in SPEC["paths"].items():
        kind = "list" if path in LIST_PATHS.values() else "get" if "{" in path else path
        assert set(item["get"]["responses"]) == OPERATION_STATUSES[kind], path


@pytest.mark.parametrize("resource", RESOURCES)
def test_each_list_links_its_first_record_to_the_get(resource: str) -> None:
    """A list response's link names the get operation and fills its one path parameter."""
    response, _ = resolve(SPEC["paths"][LIST_PATHS[resource]]["get"]["responses"]["200"])
    get = SPEC["paths"][GET_PATHS[resource]]["get"]
    (link,) = response["links"].values()
    parameter = resolve(get["parameters"][0])[0]["name"]
    assert link["operationId"] == get["operationId"]
    assert link["parameters"] == {parameter: "$response.body#/items/0/id"}


def test_enum_filters_offer_exactly_the_known_values() -> None:
    """An enum filter takes any string, with the record field's enum as its examples."""
    records = {
        LIST_PATHS["endpoints"]: "Endpoint",
        LIST_PATHS["remediation-targets"]: "RemediationTarget",
        LIST_PATHS["scopes"]: "Scope",
        LIST_PATHS["vulnerability-findings"]: "VulnerabilityFinding",
    }
    checked = 0
    for path, record in records.items():
        properties = SPEC["components"]["schemas"][record]["properties"]
        for parameter in SPEC["paths"][path]["get"]["parameters"]:
            items = resolve(parameter)[0]["schema"].get("items", {})
            if "examples" not in items:
                continue
            field = resolve(properties[parameter["name"]])[0]
            assert (items["type"], items["examples"]) == ("string", field["enum"]), parameter
            checked += 1
    assert checked == 5
