"""Authentication: bearer tokens, API-key headers, 401s, and never echoing the token."""

from __future__ import annotations

import aiohttp
import pytest

from remedy_async.simulator import Simulator

from .helpers import StartSimulator, get_json

TOKEN = "tok-3f9a-secret"


async def test_without_a_token_everything_is_open(
    sim: Simulator, session: aiohttp.ClientSession
) -> None:
    """When no token is configured no credential is needed."""
    assert (await get_json(session, f"{sim.url}/v1/endpoints"))[0] == 200


@pytest.mark.parametrize("scheme", ["Bearer", "bearer", "BEARER"])
async def test_bearer_token_is_accepted(
    serve: StartSimulator, session: aiohttp.ClientSession, scheme: str
) -> None:
    """`Authorization: Bearer <token>` passes; the scheme is case-insensitive."""
    simulator = await serve(token=TOKEN)
    headers = {"Authorization": f"{scheme} {TOKEN}"}
    assert (await get_json(session, f"{simulator.url}/v1/scopes", headers=headers))[0] == 200


@pytest.mark.parametrize(
    "headers",
    [{}, {"Authorization": "Bearer nope"}, {"Authorization": TOKEN}, {"Authorization": "Basic x"}],
    ids=["missing", "wrong-token", "no-scheme", "other-scheme"],
)
async def test_bad_credentials_are_401(
    serve: StartSimulator, session: aiohttp.ClientSession, headers: dict[str, str]
) -> None:
    """A missing or wrong credential gives 401 with the published body and message
    (`Missing or invalid API key.`, the same for both) and WWW-Authenticate."""
    simulator = await serve(token=TOKEN)
    status, body, response_headers = await get_json(
        session, f"{simulator.url}/v1/scopes", headers=headers
    )
    assert (status, body) == (401, {"error": "Missing or invalid API key."})
    assert response_headers["WWW-Authenticate"] == 'Bearer realm="remedy"'


async def test_api_key_header_without_scheme(
    serve: StartSimulator, session: aiohttp.ClientSession
) -> None:
    """With auth_header='X-API-Key' and no scheme, the bare token in that header passes."""
    simulator = await serve(token=TOKEN, auth_header="X-API-Key", auth_scheme=None)
    url = f"{simulator.url}/v1/scopes"
    assert (await get_json(session, url, headers={"X-API-Key": TOKEN}))[0] == 200
    status, _, headers = await get_json(session, url, headers={"Authorization": f"Bearer {TOKEN}"})
    assert status == 401
    assert headers["WWW-Authenticate"] == 'ApiKey realm="remedy", header="X-API-Key"'


async def test_health_needs_no_credential(
    serve: StartSimulator, session: aiohttp.ClientSession
) -> None:
    """The health check is open even when a token is required."""
    simulator = await serve(token=TOKEN)
    assert (await get_json(session, f"{simulator.url}/v1/health"))[0] == 200


@pytest.mark.parametrize(
    "path",
    [
        "/v1/endpoints",
        "/v1/endpoints/00000000-0000-4000-8000-000000000000",
        "/v1/endpoints/malformed",
        "/v1/agent-configuration",
    ],
)
async def test_every_other_route_needs_the_token(
    serve: StartSimulator, session: aiohttp.ClientSession, path: str
) -> None:
    """Lists, gets and the agent configuration all need the credential."""
    simulator = await serve(token=TOKEN)
    async with session.get(simulator.url + path) as response:
        assert response.status == 401


async def test_token_is_never_echoed(serve: StartSimulator, session: aiohttp.ClientSession) -> None:
    """Neither bodies nor headers ever contain the token, on success or failure."""
    simulator = await serve(token=TOKEN, error_format="problem")
    attempts = [
        {"Authorization": f"Bearer {TOKEN}"},
        {"Authorization": f"Bearer {TOKEN}x"},
        {"Authorization": f"Token {TOKEN}"},
    ]
    for headers in attempts:
        async with session.get(f"{simulator.url}/v1/scopes/x", headers=headers) as response:
            body = await response.text()
            assert TOKEN not in body
            assert all(TOKEN not in value for value in response.headers.values())
