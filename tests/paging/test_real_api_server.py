"""The corpus's loopback harness: it serves a model at its base path, counts requests, stops a
looping client at its budget, and classes runs as the measurement reports them."""

from __future__ import annotations

import aiohttp
import pytest

from tests.paging.real_api_server import RealApiServer, classify, request_budget
from tests.paging.real_apis import CATALOGUE, RealApi, make_records
from tests.paging.real_apis.saas_enterprise import CONFLUENCE_CONTENT
from tests.paging.real_apis.security_vendors import SENTINELONE_AGENTS


@pytest.mark.parametrize("api", [CONFLUENCE_CONTENT, SENTINELONE_AGENTS], ids=lambda api: api.name)
async def test_the_harness_serves_the_model_under_its_base_path(api: RealApi) -> None:
    """The collection path is `{base_path}/v1/endpoints`, answered with the model's page."""
    server = RealApiServer(api, make_records(30), budget=5)
    async with server.running(), aiohttp.ClientSession() as session:
        async with session.get(f"{server.base_url}/v1/endpoints") as response:
            assert response.status == 200
            body = await response.json()
        async with session.get(f"{server.origin}/v1/endpoints") as response:
            assert response.status == 404
    assert isinstance(body, dict)
    assert server.base_url == server.origin + api.base_path
    assert server.requests == 2


async def test_requests_past_the_budget_are_refused_with_410() -> None:
    """A client that keeps asking is answered 410 past the budget, and the server says so."""
    server = RealApiServer(CATALOGUE[0], make_records(3), budget=2)
    statuses = []
    async with server.running(), aiohttp.ClientSession() as session:
        for _ in range(3):
            async with session.get(f"{server.base_url}/v1/endpoints") as response:
                statuses.append(response.status)
    assert statuses == [200, 200, 410]
    assert server.exhausted


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
