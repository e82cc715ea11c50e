"""schemathesis against the simulator: every check, a fixed seed, bounded examples, zero failures.

Stateless: every operation of the document, through schemathesis' pytest integration, in its
examples, coverage and fuzzing phases, positive and negative data, with every built-in check
enabled (the equivalent of `st run --checks all`). Stateful: schemathesis' state machine follows
the document's links, so ids a list returns are fetched back by the get operation; its lists go
unfiltered (random filters match nothing, leaving no id to fetch), the stateless run fuzzes them.

One refinement of `positive_data_acceptance`: a continuation token (a cursor) is opaque, so a
schema-valid one this server never issued is rightly `400 invalid_cursor`. Such a refusal passes
only if the same request without the token is accepted; any other refused valid request fails.
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
from remedy_async.simulator import SimulatorConfig

from .conftest import CASES_PROPERTY
from .servers import BackgroundSimulators

SPEC_PATH: Final = Path(remedy_async.__file__).parent / "openapi.yaml"
SEED: Final = 20240601
TOKEN: Final = "contract-token"
AUTH: Final = {"Authorization": f"Bearer {TOKEN}"}
MAX_EXAMPLES: Final = 25
STATEFUL_STEPS: Final = 12
STATEFUL_EXAMPLES: Final = 15
CONTINUATION: Final = "cursor"
"""The default contract's continuation parameter."""
SIZE_PARAMETERS: Final = frozenset({"limit"})


def simulator_config() -> SimulatorConfig:
    """The simulator the contract runs against: faults off, a credential required."""
    return SimulatorConfig(size=20, seed=7, token=TOKEN)


def contract_config(max_examples: int) -> schemathesis.Config:
    """Every check, a fixed seed, deterministic generation, bounded examples, no database."""
    return schemathesis.Config.from_dict(
        {
            "seed": SEED,
            "headers": AUTH,
            "generation": {
                "max-examples": max_examples,
                "deterministic": True,
                "database": "none",
            },
            "checks": {"positive_data_acceptance": {"enabled": False}},
        }
    )


def accepted_without(continuation: str | None) -> schemathesis.CheckFunction:
    """`positive_data_acceptance`, except for a refused unissued continuation token (see above)."""

    def positive_data_acceptance_but_unissued_continuations(
        ctx: schemathesis.CheckContext, response: schemathesis.Response, case: schemathesis.Case
    ) -> bool | None:
        refused = continuation is not None and response.status_code == 400 and case.query
        if refused and case.query.get(continuation) not in (None, ""):
            assert continuation is not None
            if _accepted_without(response, continuation):
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


SCHEMAS: Final = {
    "cursor": schemathesis.openapi.from_path(SPEC_PATH, config=contract_config(MAX_EXAMPLES))
}
"""The documents under test, by the run they describe."""


def run_of(request: pytest.FixtureRequest) -> str:
    """The run a schemathesis test item belongs to (`test[<run>][<operation>]`)."""
    return request.node.name.split("[")[1].rstrip("]")


@pytest.fixture
def case_count(request: pytest.FixtureRequest) -> Iterator[list[int]]:
    """A counter the test bumps per case; its total is reported as a user property."""
    count = [0]
    yield count
    request.node.user_properties.append((CASES_PROPERTY, (run_of(request), count[0])))


@schemathesis.pytest.parametrize(**SCHEMAS)
@hypothesis.settings(suppress_health_check=[hypothesis.HealthCheck.function_scoped_fixture])
def test_the_simulator_honours_its_document(
    case: schemathesis.Case,
    case_count: list[int],
    background_simulators: BackgroundSimulators,
) -> None:
    """Every generated request gets an answer the document allows, and every check passes."""
    case_count[0] += 1
    case.call_and_validate(
        base_url=background_simulators.url(simulator_config()),
        headers=AUTH,
        excluded_checks=[positive_data_acceptance],
        additional_checks=[accepted_without(CONTINUATION)],
    )


def unfiltered_lists(context: schemathesis.HookContext, query: dict[str, Any]) -> dict[str, Any]:
    """A list's query without its filters and cursor (so its first record exists to fetch)."""
    operation = context.operation
    if operation is None or "{" in operation.path:
        return query
    return {name: value for name, value in query.items() if name in SIZE_PARAMETERS}


@pytest.mark.parametrize("run", SCHEMAS)
def test_listed_ids_are_fetched_back(
    run: str, background_simulators: BackgroundSimulators, request: pytest.FixtureRequest
) -> None:
    """A stateful run follows the list -> get links with every check, every get it makes
    from a listed id finds the record, and every collection's link is followed."""
    counted = [0]
    followed: Counter[str] = Counter()
    check = accepted_without(CONTINUATION)
    schema = schemathesis.openapi.from_path(SPEC_PATH, config=contract_config(MAX_EXAMPLES))
    schema.hook("map_query")(unfiltered_lists)
    schema.config.update(base_url=background_simulators.url(simulator_config()))
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
                response,
                excluded_checks=[positive_data_acceptance],
                additional_checks=[check],
            )

    settings = hypothesis.settings(
        max_examples=STATEFUL_EXAMPLES,
        stateful_step_count=STATEFUL_STEPS,
        derandomize=True,
        database=None,
        deadline=None,
        suppress_health_check=list(hypothesis.HealthCheck),
    )
    Workflow.run(settings=settings)
    request.node.user_properties.append((CASES_PROPERTY, (f"{run}, stateful", counted[0])))
    assert set(followed) == {
        "GetEndpoint",
        "GetRemediationTarget",
        "GetScope",
        "GetVulnerabilityFinding",
    }


def test_every_check_runs() -> None:
    """All of schemathesis' checks are on, `positive_data_acceptance` through the refinement."""
    load_all_checks()
    for schema in SCHEMAS.values():
        operation = next(iter(schema.get_all_operations())).ok()
        config = schema.config.checks_config_for(operation=operation, phase=None)
        enabled = {name for name in CHECKS.get_all_names() if config.get_by_name(name=name).enabled}
        assert set(CHECKS.get_all_names()) - enabled == {"positive_data_acceptance"}
