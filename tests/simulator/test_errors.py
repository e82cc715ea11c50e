"""Error bodies and request ids: JSON errors, problem+json, routes and methods; health and
the simulator's `now`."""

from __future__ import annotations

from datetime import UTC, datetime

import aiohttp
import orjson

from remedy_async.simulator import Simulator, SimulatorConfig

from .helpers import FakeClock, StartSimulator, get_json, record_url

UNKNOWN = "00000000-0000-4000-8000-000000000000"


async def test_errors_are_the_published_body(
    sim: Simulator, session: aiohttp.ClientSession
) -> None:
    """By default an error is `{"error": "<message>"}` as application/json, the published
    messages where published."""
    status, body, headers = await get_json(session, record_url(sim.url, "scopes", UNKNOWN))
    assert (status, body) == (404, {"error": "Scope not found."})
    assert headers["Content-Type"] == "application/json"
    status, body, _ = await get_json(session, record_url(sim.url, "scopes", "x"))
    assert (status, body) == (400, {"error": "Invalid scope ID format."})


async def test_the_error_format_has_a_code_and_a_message(
    serve: StartSimulator, session: aiohttp.ClientSession
) -> None:
    """With error_format='error' an error is {"error": {"code", "message"}}."""
    simulator = await serve(error_format="error")
    status, body, _ = await get_json(session, record_url(simulator.url, "scopes", UNKNOWN))
    assert (status, body) == (404, {"error": {"code": "not_found", "message": "Scope not found."}})
    status, body, _ = await get_json(session, record_url(simulator.url, "scopes", "x"))
    assert (status, body["error"]["code"]) == (400, "invalid_id")


async def test_problem_format_follows_rfc_7807(
    serve: StartSimulator, session: aiohttp.ClientSession
) -> None:
    """With error_format='problem' errors are application/problem+json."""
    simulator = await serve(error_format="problem")
    url = record_url(simulator.url, "scopes", UNKNOWN)
    status, body, headers = await get_json(session, url)
    assert status == 404
    assert headers["Content-Type"] == "application/problem+json"
    assert body["type"] == "urn:remedy:problem:not_found"
    assert (body["title"], body["status"], body["code"]) == ("Not Found", 404, "not_found")
    assert body["detail"] == "Scope not found."


async def test_every_response_has_a_unique_request_id(
    serve: StartSimulator, session: aiohttp.ClientSession
) -> None:
    """Successes, errors and auth failures all carry a distinct X-Request-Id."""
    simulator = await serve(token="t")
    urls = [
        f"{simulator.url}/v1/health",
        f"{simulator.url}/v1/health",
        f"{simulator.url}/v1/endpoints",
        f"{simulator.url}/nowhere",
    ]
    request_ids = []
    for url in urls:
        _, _, headers = await get_json(session, url)
        request_ids.append(headers["X-Request-Id"])
    assert all(request_ids)
    assert len(set(request_ids)) == len(urls)


async def test_unknown_path_is_404(sim: Simulator, session: aiohttp.ClientSession) -> None:
    """A path outside the contract gives 404 naming it."""
    for path in ("/", "/v2/endpoints", "/v1/devices", "/v1/endpoints/a/b"):
        status, body, _ = await get_json(session, sim.url + path)
        assert (status, body) == (404, {"error": f"no such route: {path}"}), path


async def test_writes_are_405(sim: Simulator, session: aiohttp.ClientSession) -> None:
    """The API is read-only: POST gives 405 with Allow: GET."""
    async with session.post(f"{sim.url}/v1/endpoints", data=b"{}") as response:
        assert response.status == 405
        assert response.headers["Allow"] == "GET"
        body = orjson.loads(await response.read())
    assert body == {"error": "this API is read-only: use GET"}


async def test_health_reports_ok_version_and_time(
    sim: Simulator, session: aiohttp.ClientSession
) -> None:
    """GET /v1/health answers status ok, a version and the (injected) time in UTC."""
    status, body, _ = await get_json(session, f"{sim.url}/v1/health")
    assert status == 200
    assert body["status"] == "ok"
    assert body["version"]
    assert body["time"] == "2024-06-01T00:00:00Z"


async def test_health_reports_the_configured_now_as_time_passes(
    serve: StartSimulator, session: aiohttp.ClientSession, clock: FakeClock
) -> None:
    """With `now` pinned, health reports it, then it plus the time passed on the clock."""
    simulator = await serve(now="2030-01-01T00:00:00Z")
    assert (await get_json(session, f"{simulator.url}/v1/health"))[1]["time"] == (
        "2030-01-01T00:00:00Z"
    )
    clock.advance(90)
    assert (await get_json(session, f"{simulator.url}/v1/health"))[1]["time"] == (
        "2030-01-01T00:01:30Z"
    )


def test_the_simulator_fills_in_now_from_its_clock(clock: FakeClock) -> None:
    """Left None, `now` becomes the simulator's clock when it is made, and dates its data."""
    simulator = Simulator(SimulatorConfig(size=2), clock=clock)
    expected = datetime.fromtimestamp(clock.now, UTC)
    assert simulator.config.now == expected
    assert simulator.dataset.now == expected


async def test_health_and_agent_paths_are_configurable(
    serve: StartSimulator, session: aiohttp.ClientSession
) -> None:
    """health_path and agent_configuration_path move those routes."""
    simulator = await serve(health_path="/status", agent_configuration_path="/agent/conf")
    assert (await get_json(session, f"{simulator.url}/status"))[0] == 200
    async with session.get(f"{simulator.url}/agent/conf") as response:
        assert response.status == 200
    assert (await get_json(session, f"{simulator.url}/v1/health"))[0] == 404
