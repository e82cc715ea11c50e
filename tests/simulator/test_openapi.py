"""Each run's OpenAPI document: served at /openapi.json, valid 3.1, and what the run serves.

Every paging convention is served once, the namings and error shapes rotating over them (so
each naming and each shape is met too); real list pages (a first and a last), the gets their
links lead to and the errors of the run are validated against the run's own document.

A composed run's document is built from the composition it serves; for compositions drawn by
`tests.paging.compositions`, the document is valid OpenAPI 3.1 and every page of a complete walk
(headers and body, the empty page after the end included) fits it.
"""

from __future__ import annotations

import io
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import aiohttp
import orjson
import pytest
import yaml
from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st
from openapi_spec_validator import validate as validate_spec

import remedy_async
from remedy_async import CONVENTIONS
from remedy_async.cli import Terminal, run
from remedy_async.simulator import (
    ERROR_FORMATS,
    Composition,
    FaultSpec,
    SimulatorConfig,
    openapi_document,
)
from remedy_async.simulator.__main__ import main
from remedy_async.simulator._openapi import respelled
from tests.budget import examples
from tests.paging.compositions import ComposedService, compositions, serving_compositions

from .compose_walker import walk_composition
from .documents import Document
from .helpers import GET_PATHS, LIST_PATHS, RESOURCES, StartSimulator, get_json, record_url
from .test_composition import SMALL_SIZES, expected

PUBLISHED = Path(remedy_async.__file__).parent / "openapi.yaml"
NAMINGS = ("snake", "camel", "pascal", "kebab")
RUNS = [
    (paging, NAMINGS[index % len(NAMINGS)], ERROR_FORMATS[index % len(ERROR_FORMATS)])
    for index, paging in enumerate(CONVENTIONS)
]
"""Each convention once, with the namings and error shapes in turn (each met at least once)."""
UNTYPED = {
    "endpoints": "",
    "remediation-targets": "endpoint_id type name vendor version path package_manager",
    "scopes": "",
    "vulnerability-findings": "endpoint_id remediation_target_id finding_type severity cve_id "
    "title cvss_score kev",
}
"""The simulator's fields of each record that its schema leaves untyped (no field of targets and
findings is published but their pattern's); the description names them."""
EXTRA_FIELDS = ("risk_score", "labels")
"""The fields the simulator adds to some records with `extra_fields_rate` (none by default)."""
MISSING_ID = "00000000-0000-4000-8000-000000000000"
"""A well-formed id no record has."""


def untyped(resource: str, naming: str) -> set[str]:
    """The keys a record may carry beyond its schema's properties, as `naming` spells them."""
    return {respelled(key, naming) for key in (*UNTYPED[resource].split(), *EXTRA_FIELDS)}


async def served_document(session: aiohttp.ClientSession, url: str) -> Document:
    """The document a simulator serves, checked to be valid OpenAPI 3.1."""
    status, spec, headers = await get_json(session, f"{url}/openapi.json")
    assert (status, headers["Content-Type"].split(";")[0]) == (200, "application/json")
    validate_spec(spec)
    return Document(spec)


def pointed(body: Any, expression: str) -> Any:
    """What a link's `$response.body#/...` expression picks out of a body."""
    value = body
    for raw in expression.removeprefix("$response.body#/").split("/"):
        token = raw.replace("~1", "/").replace("~0", "~")
        value = value[int(token)] if isinstance(value, list) else value[token]
    return value


def test_the_default_runs_document_is_openapi_yaml() -> None:
    """The default configuration's document is the published file, exactly."""
    published = yaml.safe_load(PUBLISHED.read_text(encoding="utf-8"))
    assert openapi_document(SimulatorConfig()) == published


async def test_the_order_and_churn_leave_the_document_as_published(
    serve: Any, session: aiohttp.ClientSession
) -> None:
    """Sorting by update and churning between pages change no part of the contract (it has
    no sort parameter): the document built and served is openapi.yaml, exactly."""
    published = yaml.safe_load(PUBLISHED.read_text(encoding="utf-8"))
    options: dict[str, Any] = {"order": "updated", "churn_count": 2, "churn_every": 1}
    assert openapi_document(SimulatorConfig(**options)) == published
    assert openapi_document(SimulatorConfig(churn=0.01, churn_every=1)) == published
    sim = await serve(**options)
    assert (await served_document(session, sim.url)).spec == published


async def test_the_default_simulator_serves_openapi_yaml(
    sim: Any, session: aiohttp.ClientSession
) -> None:
    """`GET /openapi.json` of a default run is openapi.yaml."""
    document = await served_document(session, sim.url)
    assert document.spec == yaml.safe_load(PUBLISHED.read_text(encoding="utf-8"))


async def check_lists_and_gets(
    session: aiohttp.ClientSession, url: str, document: Document, config: SimulatorConfig
) -> None:
    """For every collection: a first page and a last one fit the document, their records
    declare their keys, and the id the link points at is fetched back by the get."""
    size = CONVENTIONS[config.paging].size_param
    for resource in RESOURCES:
        path = LIST_PATHS[resource]
        (link,) = document.response(path, 200)[0]["links"].values()
        (expression,) = link["parameters"].values()
        get = document.operation(GET_PATHS[resource])["responses"]["200"]["content"]
        record_schema = document.resolve(get["application/json"]["schema"])[0]
        for page_size in ("3", str(config.max_page_size)):
            params = {size: page_size} if size else None
            status, page = await document.fetch(session, url + path, path, params)
            assert status == 200
            record = pointed(page, expression.rsplit("/", 1)[0])
            undeclared = set(record) - set(record_schema["properties"])
            assert undeclared <= untyped(resource, config.naming), undeclared
            record_url_ = record_url(url, resource, pointed(page, expression))
            assert (await document.fetch(session, record_url_, GET_PATHS[resource]))[0] == 200


async def check_errors(
    session: aiohttp.ClientSession, url: str, document: Document, config: SimulatorConfig
) -> None:
    """A 422 of a list, a 400 and a 404 of a get fit the document (media type and body); an
    undeclared query parameter is ignored (a 422 with `strict_params`)."""
    path = LIST_PATHS["scopes"]
    assert (await document.fetch(session, url + path, path, {"limit": "0"}))[0] == 422
    undeclared = 422 if config.strict_params else 200
    assert (await document.fetch(session, url + path, path, {"bogus": "1"}))[0] == undeclared
    malformed = record_url(url, "scopes", "nope")
    assert (await document.fetch(session, malformed, GET_PATHS["scopes"]))[0] == 400
    missing = record_url(url, "scopes", config.id_prefix + MISSING_ID)
    assert (await document.fetch(session, missing, GET_PATHS["scopes"]))[0] == 404


@pytest.mark.parametrize(("paging", "naming", "errors"), RUNS)
async def test_each_run_documents_what_it_serves(
    serve: StartSimulator, session: aiohttp.ClientSession, paging: str, naming: str, errors: str
) -> None:
    """A run's pages, gets and errors are what its own document describes."""
    simulator = await serve(paging=paging, naming=naming, error_format=errors)
    document = await served_document(session, simulator.url)
    assert document.spec == openapi_document(simulator.config)
    await check_lists_and_gets(session, simulator.url, document, simulator.config)
    await check_errors(session, simulator.url, document, simulator.config)


@pytest.mark.parametrize("errors", ERROR_FORMATS)
async def test_auth_and_rate_limit_errors_fit_each_shapes_document(
    serve: StartSimulator, session: aiohttp.ClientSession, errors: str
) -> None:
    """401 (with WWW-Authenticate) and 429 (with Retry-After) fit the run's document in every
    error shape; the document itself needs no credential."""
    simulator = await serve(error_format=errors, token="t", rate_limit=1)
    document = await served_document(session, simulator.url)
    path, url = LIST_PATHS["scopes"], simulator.url + LIST_PATHS["scopes"]
    assert (await document.fetch(session, url, path))[0] == 401
    auth = {"Authorization": "Bearer t"}
    assert (await document.fetch(session, url, path, None, auth))[0] == 200
    assert (await document.fetch(session, url, path, None, auth))[0] == 429


@pytest.mark.parametrize(
    "overrides",
    [
        {"auth_header": "X-API-Key", "auth_scheme": None, "token": "t"},
        {"auth_header": "Authorization", "auth_scheme": "Token", "token": "t"},
        {"page_size": 5, "max_page_size": 50, "paging": "page"},
        {"items_key": "data", "paging": "offset"},
        {"disguise_paging": True, "paging": "header-cursor"},
        {"disguise_paging": True, "paging": "hal"},
        {"health_path": "/healthz", "agent_configuration_path": "/agent.conf"},
        {"echo_token": True, "paging": "link", "token": "t"},
        {"id_prefix": "tenant/a b:", "naming": "pascal"},
        {"range_filters": True},
        {"strict_params": True},
    ],
    ids=[
        "api-key",
        "token-scheme",
        "page-sizes",
        "items-key",
        "disguised",
        "disguised-hal",
        "paths",
        "echo",
        "id-prefix",
        "range-filters",
        "strict-params",
    ],
)
async def test_configured_runs_document_what_they_serve(
    serve: StartSimulator, session: aiohttp.ClientSession, overrides: dict[str, Any]
) -> None:
    """Auth headers, page sizes, items keys, disguised signals, moved paths, echo mode, id
    prefixes and range filters are written into the document, and the run's answers fit it."""
    simulator = await serve(**overrides)
    config = simulator.config
    document = await served_document(session, simulator.url)
    (scheme,) = document.spec["components"]["securitySchemes"].values()
    credential = "t" if config.auth_scheme is None else f"{config.auth_scheme} t"
    assert scheme.get("name", "Authorization") == config.auth_header
    auth = {config.auth_header: credential} if config.token else {}
    if config.echo_token:
        getting = record_url(simulator.url, "scopes", simulator.dataset.id_of("scopes", 0))
        async with session.get(getting, headers=auth, allow_redirects=False) as response:
            body = await response.read()
            document.check(GET_PATHS["scopes"], response.status, response.headers, body)
            assert response.status == 307
    session.headers.update(auth)
    await check_lists_and_gets(session, simulator.url, document, config)
    await check_errors(session, simulator.url, document, simulator.config)
    if config.range_filters:
        path, since = LIST_PATHS["scopes"], {"updatedAt[gte]": "2020-01-01T00:00:00Z"}
        assert (await document.fetch(session, simulator.url + path, path, since))[0] == 200
    health = document.spec["paths"][config.health_path]["get"]
    assert health["operationId"] == "getHealth"
    assert config.agent_configuration_path in document.spec["paths"]


async def test_the_document_is_served_despite_auth_faults_and_methods(
    serve: StartSimulator, session: aiohttp.ClientSession
) -> None:
    """`/openapi.json` needs no credential and no fault reaches it; only GET is allowed."""
    faults = (FaultSpec("http-503", 1.0), FaultSpec("reset", 1.0))
    simulator = await serve(token="t", faults=faults)
    document = await served_document(session, simulator.url)
    assert document.spec == openapi_document(simulator.config)
    async with session.post(f"{simulator.url}/openapi.json") as response:
        assert (response.status, response.headers["Allow"]) == (405, "GET")


def test_no_path_may_hide_the_document() -> None:
    """The health or agent configuration path cannot be `/openapi.json`."""
    with pytest.raises(ValueError, match="OpenAPI document"):
        SimulatorConfig(health_path="/openapi.json")


def test_print_spec_writes_the_runs_document(capsys: pytest.CaptureFixture[str]) -> None:
    """`python -m remedy_async.simulator --print-spec` writes the run's document, exits 0."""
    assert main(["--paging", "odata", "--naming", "snake", "--print-spec"]) == 0
    printed = orjson.loads(capsys.readouterr().out)
    assert printed == openapi_document(SimulatorConfig(paging="odata", naming="snake"))


async def test_remedy_async_serve_print_spec_writes_the_runs_document() -> None:
    """`remedy-async serve --print-spec` writes the same document and exits 0."""
    stdout, stderr = io.BytesIO(), io.StringIO()
    terminal = Terminal(stdout=stdout, stderr=stderr, stdin=io.StringIO(), env={})
    argv = ["serve", "--errors", "problem", "--print-spec"]
    assert await run(argv, terminal) == 0, stderr.getvalue()
    printed = orjson.loads(stdout.getvalue())
    assert printed == openapi_document(SimulatorConfig(error_format="problem"))
    assert printed["components"]["responses"]["EndpointNotFound"]["content"] == {
        "application/problem+json": {"schema": {"$ref": "#/components/schemas/Error"}}
    }


BASE_PATH = "/rest/api/3"
CASES = (
    ("scopes", ()),
    ("endpoints", (("osFamily", "macos"), ("hasAgent", "true"))),
    ("remediation-targets", ()),
    ("vulnerability-findings", ()),
)
"""Lists to walk: whole collections, and the endpoints filtered by the published filters."""


@pytest.fixture(scope="module")
def service() -> Iterator[ComposedService]:
    """A simulator under a base path, serving every composition named in a header."""
    with serving_compositions(base_path=BASE_PATH) as composed:
        yield composed


@given(
    composition=compositions(SMALL_SIZES),
    case=st.sampled_from(CASES),
)
@settings(
    max_examples=examples(30),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
def test_every_page_of_a_composed_run_fits_its_document(
    service: ComposedService,
    composition: Composition,
    case: tuple[str, tuple[tuple[str, str], ...]],
) -> None:
    """The run's document is valid OpenAPI; each page of a walk fits its list response."""
    config = SimulatorConfig(paging=str(composition), base_path=BASE_PATH)
    spec = openapi_document(config)
    validate_spec(spec)
    assert spec["servers"][0]["url"].endswith(BASE_PATH)
    document = Document(spec)
    resource, filters = case
    note(f"{composition} on {resource}")
    ids = expected(service, resource, filters)
    responses: list[tuple[Mapping[str, str], bytes]] = []

    async def scenario() -> list[str]:
        async with aiohttp.ClientSession() as session:
            walk = await walk_composition(
                session, service.url, resource, composition, expected_total=len(ids),
                size=3, filters=filters, responses=responses,
            )  # fmt: skip
            return walk.ids

    assert service.run(scenario()) == ids
    for headers, body in responses:
        document.check(LIST_PATHS[resource], 200, headers, body)


async def test_a_composed_run_serves_its_document(
    serve: StartSimulator, session: aiohttp.ClientSession
) -> None:
    """`GET /openapi.json` under the base path is the composed run's document."""
    spec = "compose:follow=page-token,items=data,next=header:X-Next-Page,param=page,end=blank"
    simulator = await serve(paging=spec, base_path=BASE_PATH)
    async with session.get(f"{simulator.url}/openapi.json") as response:
        served = await response.json()
    assert served == openapi_document(simulator.config)
    header = served["components"]["responses"]["ScopeList"]["headers"]["X-Next-Page"]
    assert header["required"] is True
