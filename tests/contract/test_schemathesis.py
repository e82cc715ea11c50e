"""schemathesis against the simulator: every check, a fixed seed, bounded examples, zero failures.

One run per paging convention, faults off, each against the document that run serves at
`/openapi.json` (the `offset` run, the published contract, against `openapi.yaml`, which is its
document);
the other runs take the namings and error shapes in turn, so each of those documents is fuzzed
too. Stateless: every operation, through schemathesis' pytest integration, in its examples,
coverage and fuzzing phases, positive and negative data, with every built-in check enabled (the
equivalent of `st run --checks all`); the default `offset` run with more examples, the others
with few.
Stateful: schemathesis' state machine follows each list's link to its get, so listed ids are
fetched back; its lists go unfiltered (random filters match nothing, leaving no id to fetch).

One refinement of `positive_data_acceptance`: a continuation token (a cursor, or the last id for
keyset paging) is opaque, so a schema-valid one this server never issued is rightly refused (a
400 for a cursor, a 422 for an id that is not in the list). Such a refusal passes only if the
same request without the token is accepted; any other refused valid request fails.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Final
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import hypothesis
import pytest
import requests
import schemathesis
from schemathesis.checks import CHECKS, load_all_checks
from schemathesis.specs.openapi.checks import positive_data_acceptance

import remedy_async
from remedy_async import CONVENTIONS
from remedy_async.simulator import ERROR_FORMATS, SimulatorConfig, openapi_document
from remedy_async.simulator._places import CONTINUING
from tests.conftest import CASES_PROPERTY

from .servers import BackgroundSimulators

SPEC_PATH: Final = Path(remedy_async.__file__).parent / "openapi.yaml"
SEED: Final = 20240601
TOKEN: Final = "contract-token"
AUTH: Final = {"Authorization": f"Bearer {TOKEN}"}
DEFAULT_RUN: Final = "offset"
NAMINGS: Final = ("snake", "camel", "pascal", "kebab")
REFUSED_CONTINUATION: Final = frozenset({400, 422})
"""How a run refuses a continuation token it did not issue."""
MAX_EXAMPLES: Final = {DEFAULT_RUN: 20}
OTHER_MAX_EXAMPLES: Final = 3
STATEFUL: Final = {DEFAULT_RUN: (12, 12)}
OTHER_STATEFUL: Final = (4, 6)
"""Examples and steps of the stateful runs."""
COVERED_LIST: Final = "/v1/scopes"
"""The list the runs but the default one take the coverage phase on (it has no filters)."""


def _configs() -> dict[str, SimulatorConfig]:
    configs = {DEFAULT_RUN: SimulatorConfig(size=20, seed=7, token=TOKEN)}
    others = [name for name in CONVENTIONS if name != DEFAULT_RUN]
    for index, paging in enumerate(others, start=1):
        configs[paging] = SimulatorConfig(
            size=20,
            seed=7,
            token=TOKEN,
            paging=paging,
            naming=NAMINGS[index % len(NAMINGS)],
            error_format=ERROR_FORMATS[index % len(ERROR_FORMATS)],
        )
    return configs


CONFIGS: Final = _configs()
"""The simulator of each run, by its paging convention."""


def label(run: str) -> str:
    """How the summary names a run."""
    config = CONFIGS[run]
    return f"{run} / {config.naming} / {config.error_format}"


def contract_config(run: str, *, stateful: bool = False) -> schemathesis.Config:
    """Every check, a fixed seed, deterministic generation, bounded examples, no database.

    The default run takes every phase on every operation; the others, to stay quick, skip the
    examples phase and run the coverage phase on the list with the fewest filters only (the
    paging parameters are the same on all four, the filters the same in every run). A stateful
    run generates valid data only (its lists' filters are dropped, see `unfiltered_lists`) and
    follows the document's links only. The stateless phases draw nothing from earlier responses
    (request ids and times differ between runs), so they generate the same cases every time; a
    stateful run feeds on responses by design, so its count may vary a little.
    """
    settings: dict[str, Any] = {
        "seed": SEED,
        "headers": AUTH,
        "generation": {
            "max-examples": MAX_EXAMPLES.get(run, OTHER_MAX_EXAMPLES),
            "deterministic": True,
            "database": "none",
        },
        "checks": {"positive_data_acceptance": {"enabled": False}},
    }
    closed = {"extra-data-sources": {"responses": False}}
    phases: dict[str, Any] = {"examples": closed, "coverage": dict(closed), "fuzzing": closed}
    if stateful:
        phases["stateful"] = {
            "generation": {"mode": "positive"},
            "inference": {"algorithms": []},
            "link-calibration": False,
        }
    elif run != DEFAULT_RUN:
        phases["examples"] = {"enabled": False}
        phases["coverage"]["enabled"] = False
        settings["operations"] = [
            {"include-path": COVERED_LIST, "phases": {"coverage": {"enabled": True}}}
        ]
    settings["phases"] = phases
    return schemathesis.Config.from_dict(settings)


def load(run: str, *, stateful: bool = False) -> schemathesis.BaseSchema:
    """The document of a run: openapi.yaml for the default one, else what it serves."""
    config = contract_config(run, stateful=stateful)
    if run == DEFAULT_RUN:
        return schemathesis.openapi.from_path(SPEC_PATH, config=config)
    return schemathesis.openapi.from_dict(openapi_document(CONFIGS[run]), config=config)


SCHEMAS: Final = {run: load(run) for run in CONFIGS}


def continuation(run: str) -> str | None:
    """The query parameter that carries a token an earlier page handed out, if any."""
    convention = CONVENTIONS[run]
    return convention.param if convention.follow in CONTINUING else None


def accepted_without(parameter: str | None) -> schemathesis.CheckFunction:
    """`positive_data_acceptance`, except for a refused unissued continuation token (see above)."""

    def positive_data_acceptance_but_unissued_continuations(
        ctx: schemathesis.CheckContext, response: schemathesis.Response, case: schemathesis.Case
    ) -> bool | None:
        refused = (
            parameter is not None
            and response.status_code in REFUSED_CONTINUATION
            and bool(case.query)
        )
        if refused and case.query.get(parameter) not in (None, ""):
            assert parameter is not None
            if _accepted_without(response, parameter):
                return None
        return positive_data_acceptance(ctx, response, case)

    return positive_data_acceptance_but_unissued_continuations


def _accepted_without(response: schemathesis.Response, parameter: str) -> bool:
    url = urlsplit(str(response.request.url))
    query = [(name, value) for name, value in parse_qsl(url.query) if name != parameter]
    again = urlunsplit(url._replace(query=urlencode(query)))
    headers = dict(response.request.headers)
    with requests.get(again, headers=headers, timeout=10) as retried:
        return retried.status_code < 400


def run_of(request: pytest.FixtureRequest) -> str:
    """The run a schemathesis test item belongs to (`test[<run>][<operation>]`)."""
    return request.node.name.split("[")[1].rstrip("]")


@pytest.fixture
def case_count(request: pytest.FixtureRequest) -> Iterator[list[int]]:
    """A counter the test bumps per case; its total is reported as a user property."""
    count = [0]
    yield count
    request.node.user_properties.append((CASES_PROPERTY, (label(run_of(request)), count[0])))


def test_each_run_serves_the_document_under_test(
    background_simulators: BackgroundSimulators,
) -> None:
    """What each run serves at /openapi.json is the document schemathesis fuzzes it with."""
    for run, config in CONFIGS.items():
        url = background_simulators.url(config) + "/openapi.json"
        with requests.get(url, timeout=10) as response:
            assert response.json() == SCHEMAS[run].raw_schema, run


SETTINGS: Final = hypothesis.settings(
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=list(hypothesis.HealthCheck),
)
"""What the tests' own settings say (schemathesis takes those that differ from Hypothesis' defaults,
or, in CI, from its `ci` profile): no deadline or health check on a server's time, no randomness."""


@schemathesis.pytest.parametrize(**SCHEMAS)
@SETTINGS
def test_each_run_honours_its_document(
    case: schemathesis.Case,
    case_count: list[int],
    background_simulators: BackgroundSimulators,
    request: pytest.FixtureRequest,
) -> None:
    """Every generated request gets an answer the document allows, and every check passes."""
    run = run_of(request)
    case_count[0] += 1
    case.call_and_validate(
        base_url=background_simulators.url(CONFIGS[run]),
        headers=AUTH,
        excluded_checks=[positive_data_acceptance],
        additional_checks=[accepted_without(continuation(run))],
    )


def unfiltered_lists(size: str | None) -> Any:
    """A `map_query` hook: a list's query without its filters and place (so its first record
    exists to fetch), its page size kept."""

    def map_query(
        context: schemathesis.HookContext, query: dict[str, Any] | None
    ) -> dict[str, Any] | None:
        operation = context.operation
        if operation is None or "{" in operation.path or query is None:
            return query
        return {name: value for name, value in query.items() if name == size}

    return map_query


@pytest.mark.parametrize("run", CONFIGS)
def test_each_runs_listed_ids_are_fetched_back(
    run: str, background_simulators: BackgroundSimulators, request: pytest.FixtureRequest
) -> None:
    """A stateful run follows the list -> get links with every check, and every get it makes
    from a listed id finds the record. (Which links a run follows depends on what schemathesis
    draws; that each collection's link leads to its record is `test_documents`' business.)"""
    counted = [0]
    followed: Counter[str] = Counter()
    check = accepted_without(continuation(run))
    schema = load(run, stateful=True)
    schema.hook("map_query")(unfiltered_lists(CONVENTIONS[run].size_param))
    schema.config.update(base_url=background_simulators.url(CONFIGS[run]))
    Machine: Any = schema.as_state_machine()

    class Workflow(Machine):  # type: ignore[misc, valid-type]
        def step(self, input: Any) -> Any:
            output = super().step(input)
            counted[0] += 1
            link = input.transition
            if link is not None and not link.is_inferred and input.is_applied:
                assert output.response.status_code == 200, link.id
                followed[link.id.split(" -> ")[1].split()[-1]] += 1
            return output

        def validate_response(
            self, response: schemathesis.Response, case: schemathesis.Case, **kwargs: Any
        ) -> None:
            case.validate_response(
                response, excluded_checks=[positive_data_acceptance], additional_checks=[check]
            )

    examples, steps = STATEFUL.get(run, OTHER_STATEFUL)
    settings = hypothesis.settings(SETTINGS, max_examples=examples, stateful_step_count=steps)
    Workflow.run(settings=settings)
    request.node.user_properties.append((CASES_PROPERTY, (f"{label(run)}, stateful", counted[0])))
    assert followed, "no list -> get link was followed"


def test_every_check_runs() -> None:
    """All of schemathesis' checks are on, `positive_data_acceptance` through the refinement."""
    load_all_checks()
    for schema in SCHEMAS.values():
        operation = next(iter(schema.get_all_operations())).ok()
        config = schema.config.checks_config_for(operation=operation, phase=None)
        enabled = {name for name in CHECKS.get_all_names() if config.get_by_name(name=name).enabled}
        assert set(CHECKS.get_all_names()) - enabled == {"positive_data_acceptance"}
