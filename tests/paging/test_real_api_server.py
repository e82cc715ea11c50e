"""The corpus's harness: it answers as a model at its base path, counts requests, stops a
looping client at its budget, and classes runs as the measurement reports them."""

from __future__ import annotations

import json

import pytest
from yarl import URL

from remedy_async import MockRequest
from tests.paging.real_api_server import RealApiService, classify, request_budget
from tests.paging.real_apis import CATALOGUE, RealApi, make_records
from tests.paging.real_apis.saas_enterprise import CONFLUENCE_CONTENT
from tests.paging.real_apis.security_vendors import SENTINELONE_AGENTS

ORIGIN = "http://127.0.0.1:8080"


def get(url: str) -> MockRequest:
    return MockRequest("GET", URL(url))


@pytest.mark.parametrize("api", [CONFLUENCE_CONTENT, SENTINELONE_AGENTS], ids=lambda api: api.name)
def test_the_harness_serves_the_model_under_its_base_path(api: RealApi) -> None:
    """The collection path is `{base_path}/v1/endpoints`, answered with the model's page; the
    same path without the base path is a 404; both requests are counted."""
    service = RealApiService(api, make_records(30), budget=5)
    served = service(get(f"{ORIGIN}{api.base_path}/v1/endpoints"))
    assert served.status == 200
    assert served.headers["Content-Type"] == "application/json"
    assert isinstance(json.loads(served.body), dict)
    assert service(get(f"{ORIGIN}/v1/endpoints")).status == 404
    assert service.requests == 2


def test_requests_past_the_budget_are_refused_with_410() -> None:
    """A client that keeps asking is answered 410 past the budget, and the service says so."""
    api = CATALOGUE[0]
    service = RealApiService(api, make_records(3), budget=2)
    url = f"{ORIGIN}{api.collection_path}"
    statuses = [service(get(url)).status for _ in range(3)]
    assert statuses == [200, 200, 410]
    assert service.exhausted


def test_the_budget_is_twenty_times_the_pages_needed_plus_twenty() -> None:
    """Pages are counted at the smallest page size in play: the API's default or the one asked."""
    api = SENTINELONE_AGENTS  # default page of 10
    assert request_budget(api, 237, None) == 20 * 24 + 20
    assert request_budget(api, 237, 7) == 20 * 34 + 20


@pytest.mark.parametrize(
    ("ids", "error", "looped", "outcome"),
    [
        (["a", "b"], False, False, "exact"),
        (["a"], True, False, "refused"),
        (["a"], False, False, "silent-loss"),
        (["a", "a", "b"], False, False, "duplicates"),
        (["b", "a"], False, False, "misordered"),
        (["a"], True, True, "loop"),
    ],
)
def test_runs_are_classed_by_what_the_client_delivered_and_how_it_ended(
    ids: list[str], error: bool, looped: bool, outcome: str
) -> None:
    """A loop wins over an error, an error over the ids; then duplicates, loss, order."""
    assert classify(ids, ["a", "b"], error=error, looped=looped) == outcome
