"""A composed run's OpenAPI document describes its pages: every page of a walk fits it.

The document of a run is built from the composition it serves (`_spec_composed`); for
compositions drawn by `tests.paging.compositions`, the document is valid OpenAPI 3.1 and every
page of a complete walk (headers and body, the empty page after the end included) fits it.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

import aiohttp
import pytest
from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st
from openapi_spec_validator import validate as validate_spec

from remedy_async.simulator import Composition, SimulatorConfig, openapi_document
from tests.budget import examples
from tests.paging.compositions import ComposedService, compositions, serving_compositions

from .compose_walker import walk_composition
from .documents import Document
from .helpers import LIST_PATHS, StartSimulator
from .test_compose import SMALL_SIZES, expected

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
