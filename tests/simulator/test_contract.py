"""Contract test: openapi.yaml is valid OpenAPI 3.1, and the default simulator's answers match it.

The default simulator serves the service's published contract, which openapi.yaml describes
(its facts against the published reference are `tests/contract/test_published_contract`'s).

These tests pick specific wire shapes (records with extra fields and nulls, each error status,
faults) and check them with jsonschema (`documents`); the other runs' documents are checked in
`test_openapi`, and the fuzzing against all of them is schemathesis' job, in `tests/contract`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import aiohttp
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
MISSING_ID = "00000000-0000-4000-8000-000000000000"
"""A well-formed id no record has."""
MAX_LIMIT = 100


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
    """A first and a last list page of every collection fit the document: `data`, `total`,
    and the `limit` and `offset` served."""
    url = sim.url + LIST_PATHS[resource]
    status, first = await fetch_and_check(session, url, LIST_PATHS[resource], {"limit": "10"})
    assert (status, len(first["data"]), first["limit"], first["offset"]) == (200, 10, 10, 0)
    offset = max(first["total"] - 3, 0)
    params = {"limit": str(MAX_LIMIT), "offset": str(offset)}
    status, last = await fetch_and_check(session, url, LIST_PATHS[resource], params)
    assert (status, len(last["data"]), last["offset"]) == (200, first["total"] - offset, offset)


@pytest.mark.parametrize("resource", RESOURCES)
async def test_records_match_the_document(
    serve: StartSimulator, session: aiohttp.ClientSession, resource: str
) -> None:
    """Every record of a small run, extra fields and nulls included, fits its schema."""
    simulator = await serve(size=30, extra_fields_rate=0.5)
    url = simulator.url + LIST_PATHS[resource]
    records: list[Any] = []
    total = None
    while total is None or len(records) < total:
        params = {"limit": str(MAX_LIMIT), "offset": str(len(records))}
        status, page = await fetch_and_check(session, url, LIST_PATHS[resource], params)
        assert (status, page["offset"]) == (200, len(records))
        assert page["data"]
        records += page["data"]
        total = page["total"]
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


ERROR_CASES: list[tuple[str, Any, str, int, str]] = [
    ("/v1/endpoints", {"limit": "0"}, "", 422, "limit"),
    ("/v1/endpoints", {"limit": "101"}, "", 422, "limit"),
    ("/v1/endpoints", {"offset": "-1"}, "", 422, "offset"),
    ("/v1/endpoints", {"limit": "ten"}, "", 422, "limit"),
    ("/v1/endpoints", {"osFamily": "other"}, "", 422, "osFamily"),
    ("/v1/endpoints", {"hasAgent": "maybe"}, "", 422, "hasAgent"),
    ("/v1/scopes", {"limit": "101"}, "", 422, "limit"),
    ("/v1/endpoints/{endpointId}", None, "nope", 400, "Invalid endpoint ID format."),
    ("/v1/endpoints/{endpointId}", None, MISSING_ID, 404, "Endpoint not found."),
    ("/v1/scopes/{scopeId}", None, MISSING_ID, 404, "Scope not found."),
]
"""Requests the default run refuses: where, the query, the id, the status and what the
message says (the published message where one is published)."""


@pytest.mark.parametrize(("path", "params", "record_id", "status", "said"), ERROR_CASES)
async def test_client_errors_match_the_document(
    sim: Simulator,
    session: aiohttp.ClientSession,
    path: str,
    params: Any,
    record_id: str,
    status: int,
    said: str,
) -> None:
    """422, 400 and 404 answers fit the document; the body's one string says what is wrong."""
    url = sim.url + path.replace("{endpointId}", record_id).replace("{scopeId}", record_id)
    got, document = await fetch_and_check(session, url, path, params)
    assert got == status
    assert said in document["error"]


async def test_an_undeclared_query_parameter_is_ignored(
    sim: Simulator, session: aiohttp.ClientSession
) -> None:
    """A parameter a list does not declare changes nothing, as the service ignores it."""
    path = LIST_PATHS["endpoints"]
    _, plain = await fetch_and_check(session, sim.url + path, path, {"limit": "5"})
    _, typo = await fetch_and_check(session, sim.url + path, path, {"limit": "5", "os": "x"})
    assert typo == plain


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


@pytest.mark.parametrize("kind", ["http-500", "http-502", "http-503", "http-504", "http-429"])
async def test_fault_answers_match_the_document(
    serve: StartSimulator, session: aiohttp.ClientSession, kind: str
) -> None:
    """Injected 5xx and 429 answers fit the document."""
    faults = (FaultSpec(kind, 1.0, "list:vulnerability-findings"),)
    simulator = await serve(faults=faults)
    path = LIST_PATHS["vulnerability-findings"]
    status, document = await fetch_and_check(session, simulator.url + path, path, {"limit": "5"})
    assert status == int(kind.removeprefix("http-"))
    assert document["error"]


async def test_a_get_faults_500_is_the_published_one(
    serve: StartSimulator, session: aiohttp.ClientSession
) -> None:
    """An injected 500 of a get fits getEndpoint's published 500."""
    simulator = await serve(faults=(FaultSpec("http-500", 1.0, "get:endpoints"),))
    path = GET_PATHS["endpoints"]
    url = record_url(simulator.url, "endpoints", simulator.dataset.id_of("endpoints", 0))
    status, document = await fetch_and_check(session, url, path)
    assert (status, document) == (500, {"error": "Internal server error."})


def test_simulator_only_names_are_not_in_the_document() -> None:
    """The published contract names no simulator-only knob (`X-Simulator-*`)."""
    text = (Path(remedy_async.__file__).parent / "openapi.yaml").read_text(encoding="utf-8")
    assert "X-Simulator-" not in text
    assert "x-simulator-" not in text.lower()


REFUSED = {"400", "414", "431"}
"""What any request may get before it reaches an operation: not HTTP, or too large."""
OPERATION_STATUSES = {
    "list": {"200", "401", "422", "429", "5XX"} | REFUSED,
    "get": {"200", "401", "404", "429", "5XX"} | REFUSED,
    "/v1/health": {"200", "429", "5XX"} | REFUSED,
    "/v1/agent-configuration": {"200", "304", "401", "429", "5XX"} | REFUSED,
}
OWN_500 = {"/v1/endpoints/{endpointId}", "/v1/scopes/{scopeId}"}
"""The operations whose 500 is documented on its own, with its message (published for
endpoints, by that pattern for scopes); the others' is in their 5XX."""


def test_every_operation_documents_the_statuses_it_can_answer() -> None:
    """Lists, gets, health and the download each document exactly what the simulator sends."""
    for path, item in SPEC["paths"].items():
        kind = "list" if path in LIST_PATHS.values() else "get" if "{" in path else path
        expected = OPERATION_STATUSES[kind] | ({"500"} if path in OWN_500 else set())
        assert set(item["get"]["responses"]) == expected, path


@pytest.mark.parametrize("resource", RESOURCES)
def test_each_list_links_its_first_record_to_the_get(resource: str) -> None:
    """A list response's link names the get operation and fills its one path parameter."""
    response, _ = resolve(SPEC["paths"][LIST_PATHS[resource]]["get"]["responses"]["200"])
    get = SPEC["paths"][GET_PATHS[resource]]["get"]
    (link,) = response["links"].values()
    parameter = resolve(get["parameters"][0])[0]["name"]
    assert link["operationId"] == get["operationId"]
    assert link["parameters"] == {parameter: "$response.body#/data/0/id"}


@pytest.mark.parametrize("family", ["macos", "windows", "linux"])
async def test_the_os_family_filter_takes_each_documented_family(
    sim: Simulator, session: aiohttp.ClientSession, family: str
) -> None:
    """Each family the `osFamily` filter documents is one the records carry, and it selects
    exactly the endpoints of that family."""
    path = LIST_PATHS["endpoints"]
    parameters = [resolve(p)[0] for p in SPEC["paths"][path]["get"]["parameters"]]
    (documented,) = (p["schema"]["enum"] for p in parameters if p["name"] == "osFamily")
    assert family in documented
    params = {"osFamily": family, "limit": str(MAX_LIMIT)}
    status, page = await fetch_and_check(session, sim.url + path, path, params)
    assert status == 200
    assert {record["operating_system"]["family"] for record in page["data"]} == {family}
    assert page["total"] == sim.dataset.count("endpoints", {"osFamily": family})
