"""Counters: requests per route, responses per status, in-flight maximum, reset."""

from __future__ import annotations

import asyncio

import aiohttp

from remedy_async.simulator import FaultSpec, Simulator, SimulatorConfig

from .helpers import GatedSleep, get_json


async def test_requests_are_counted_per_route(
    sim: Simulator, session: aiohttp.ClientSession
) -> None:
    """Each request is counted under its route name; strays under `unmatched`."""
    scope = sim.dataset.id_of("scopes", 0)
    for path in ("/v1/endpoints", "/v1/endpoints", f"/v1/scopes/{scope}", "/v1/health", "/x"):
        await get_json(session, sim.url + path)
    counters = sim.counters
    assert counters.requests == {
        "list:endpoints": 2,
        "get:scopes": 1,
        "health": 1,
        "unmatched": 1,
    }
    assert counters.total_requests == 5
    assert counters.responses == {200: 4, 404: 1}


async def test_max_in_flight_counts_concurrent_requests(session: aiohttp.ClientSession) -> None:
    """Ten requests held at once show as ten in flight, then none."""
    sleep = GatedSleep()
    config = SimulatorConfig(size=5, faults=(FaultSpec("latency", 1.0),))
    async with Simulator(config, sleep=sleep) as simulator:
        requests = [
            asyncio.ensure_future(get_json(session, f"{simulator.url}/v1/scopes"))
            for _ in range(10)
        ]
        await sleep.until_waiting(10)
        assert simulator.counters.in_flight == 10
        sleep.gate.set()
        results = await asyncio.gather(*requests)
        assert {status for status, _, _ in results} == {200}
        counters = simulator.counters
    assert (counters.in_flight, counters.max_in_flight) == (0, 10)


async def test_reset_counters_starts_from_zero(
    sim: Simulator, session: aiohttp.ClientSession
) -> None:
    """reset_counters() zeroes requests, responses, faults and the maximum."""
    await get_json(session, f"{sim.url}/v1/health")
    sim.reset_counters()
    counters = sim.counters
    assert (counters.requests, counters.responses, counters.faults) == ({}, {}, {})
    assert (counters.in_flight, counters.max_in_flight) == (0, 0)
    await get_json(session, f"{sim.url}/v1/health")
    assert sim.counters.requests == {"health": 1}


async def test_counters_are_snapshots(sim: Simulator, session: aiohttp.ClientSession) -> None:
    """A counters value does not change when later requests arrive."""
    before = sim.counters
    await get_json(session, f"{sim.url}/v1/health")
    assert before.total_requests == 0
    assert sim.counters.total_requests == 1


async def test_simulator_lifecycle(session: aiohttp.ClientSession) -> None:
    """start() binds a free port, url/repr show it, stop() is idempotent and frees it."""
    simulator = Simulator(SimulatorConfig(size=1))
    assert not simulator.running
    assert "not started" in repr(simulator)
    await simulator.start()
    try:
        assert simulator.running
        assert simulator.url == f"http://127.0.0.1:{simulator.port}"
        assert simulator.url in repr(simulator)
        assert (await get_json(session, f"{simulator.url}/v1/health"))[0] == 200
    finally:
        await simulator.stop()
        await simulator.stop()
    assert not simulator.running
