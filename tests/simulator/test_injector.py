"""Fault injection, observed on the wire: every kind, routes, determinism, and retries."""

from __future__ import annotations

import asyncio
import json
from email.utils import parsedate_to_datetime
from typing import Any

import aiohttp
import pytest

from remedy_async.simulator import FaultSpec, Simulator, SimulatorConfig

from .helpers import FakeClock, GatedSleep, RecordingSleep, StartSimulator, get_json

LIST_URL = "/v1/endpoints"


async def faulty(serve: StartSimulator, *faults: FaultSpec, **options: Any) -> Simulator:
    return await serve(faults=faults, **options)


async def test_latency_waits_before_answering(
    serve: StartSimulator, session: aiohttp.ClientSession, fake_sleep: RecordingSleep
) -> None:
    """A latency fault sleeps latency_ms plus up to jitter_ms, then answers normally."""
    simulator = await faulty(serve, FaultSpec("latency", 1.0, latency_ms=250, jitter_ms=50))
    status, _, _ = await get_json(session, simulator.url + LIST_URL)
    assert status == 200
    assert len(fake_sleep.calls) == 1
    assert 0.25 <= fake_sleep.calls[0] <= 0.30


@pytest.mark.parametrize(
    ("kind", "status", "code", "message"),
    [
        ("http-500", 500, "internal_error", "Internal server error."),
        ("http-502", 502, "bad_gateway", "simulated 502 fault"),
        ("http-503", 503, "service_unavailable", "simulated 503 fault"),
        ("http-504", 504, "gateway_timeout", "simulated 504 fault"),
    ],
)
async def test_server_error_faults(
    serve: StartSimulator,
    session: aiohttp.ClientSession,
    kind: str,
    status: int,
    code: str,
    message: str,
) -> None:
    """http-5xx faults answer that status with an error body: the published one by default
    (`Internal server error.` for a 500), with a code in the `error` shape."""
    simulator = await faulty(serve, FaultSpec(kind, 1.0))
    got, body, headers = await get_json(session, simulator.url + LIST_URL)
    assert (got, body) == (status, {"error": message})
    assert headers["X-Request-Id"]
    coded = await faulty(serve, FaultSpec(kind, 1.0), error_format="error")
    got, body, _ = await get_json(session, coded.url + LIST_URL)
    assert (got, body) == (status, {"error": {"code": code, "message": message}})


async def test_429_fault_with_retry_after_seconds(
    serve: StartSimulator, session: aiohttp.ClientSession
) -> None:
    """http-429 answers 429 with Retry-After in seconds."""
    simulator = await faulty(serve, FaultSpec("http-429", 1.0, retry_after=7), error_format="error")
    status, body, headers = await get_json(session, simulator.url + LIST_URL)
    assert (status, body["error"]["code"], headers["Retry-After"]) == (429, "rate_limited", "7")


async def test_429_fault_with_retry_after_http_date(
    serve: StartSimulator, session: aiohttp.ClientSession, clock: FakeClock
) -> None:
    """With retry_after_format='http-date' Retry-After is an HTTP date that far ahead."""
    fault = FaultSpec("http-429", 1.0, retry_after=30, retry_after_format="http-date")
    simulator = await faulty(serve, fault)
    _, _, headers = await get_json(session, simulator.url + LIST_URL)
    assert parsedate_to_datetime(headers["Retry-After"]).timestamp() == clock.now + 30


async def test_reset_drops_the_connection(
    serve: StartSimulator, session: aiohttp.ClientSession
) -> None:
    """A reset fault makes the client see a connection error, with no response."""
    simulator = await faulty(serve, FaultSpec("reset", 1.0))
    with pytest.raises(aiohttp.ClientConnectionError):
        async with session.get(simulator.url + LIST_URL) as response:
            await response.read()
    assert simulator.counters.responses == {}


async def test_truncate_cuts_the_body_short(
    serve: StartSimulator, session: aiohttp.ClientSession
) -> None:
    """A truncated body announces more bytes than it sends: a payload error."""
    simulator = await faulty(serve, FaultSpec("truncate", 1.0))
    async with session.get(simulator.url + LIST_URL) as response:
        assert response.status == 200
        with pytest.raises(aiohttp.ClientPayloadError):
            await response.read()


async def test_truncate_cuts_a_streamed_array_short(
    serve: StartSimulator, session: aiohttp.ClientSession
) -> None:
    """A long bare array (chunked) also ends early: a payload error."""
    simulator = await faulty(serve, FaultSpec("truncate", 1.0), size=60, paging="none")
    async with session.get(f"{simulator.url}/v1/vulnerability-findings") as response:
        with pytest.raises(aiohttp.ClientPayloadError):
            await response.read()


async def test_malformed_body_is_complete_but_not_json(
    serve: StartSimulator, session: aiohttp.ClientSession
) -> None:
    """A malformed body has a matching Content-Length but does not parse as JSON."""
    simulator = await faulty(serve, FaultSpec("malformed", 1.0))
    async with session.get(simulator.url + LIST_URL) as response:
        body = await response.read()
        assert int(response.headers["Content-Length"]) == len(body)
        assert response.headers["Content-Type"] == "application/json"
    with pytest.raises(json.JSONDecodeError):
        json.loads(body)


async def test_malformed_streamed_array_is_not_json(
    serve: StartSimulator, session: aiohttp.ClientSession
) -> None:
    """A streamed bare array can be malformed too."""
    simulator = await faulty(serve, FaultSpec("malformed", 1.0), size=60, paging="none")
    async with session.get(f"{simulator.url}/v1/vulnerability-findings") as response:
        body = await response.read()
    with pytest.raises(json.JSONDecodeError):
        json.loads(body)


async def test_wrong_content_type_labels_json_as_html(
    serve: StartSimulator, session: aiohttp.ClientSession
) -> None:
    """The body is the right JSON, but labelled text/html."""
    simulator = await faulty(serve, FaultSpec("wrong-content-type", 1.0))
    async with session.get(simulator.url + LIST_URL) as response:
        assert response.headers["Content-Type"].startswith("text/html")
        body = json.loads(await response.read())
    assert [item["id"] for item in body["data"]] == list(simulator.dataset.ids("endpoints"))


async def test_stall_sends_headers_then_waits_before_the_body(
    session: aiohttp.ClientSession,
) -> None:
    """Headers arrive at once; the body only after the stall (here: a gate the test opens)."""
    sleep = GatedSleep()
    config = SimulatorConfig(size=5, faults=(FaultSpec("stall", 1.0, stall_seconds=9),))
    async with Simulator(config, sleep=sleep) as simulator:
        response = await session.get(simulator.url + LIST_URL)
        async with response:
            assert response.status == 200
            await sleep.until_waiting(1)
            assert not response.content.is_eof()
            sleep.gate.set()
            body = json.loads(await response.read())
    assert sleep.calls == [9]
    assert len(body["data"]) == 5


async def test_cursor_expiry_hits_only_requests_with_a_cursor(
    serve: StartSimulator, session: aiohttp.ClientSession
) -> None:
    """First pages pass; a request carrying a cursor gets 410 cursor_expired."""
    simulator = await faulty(
        serve, FaultSpec("cursor-expired", 1.0), paging="cursor", error_format="error"
    )
    url = simulator.url + LIST_URL
    status, body, _ = await get_json(session, url, {"limit": "5"})
    assert status == 200
    status, error, _ = await get_json(session, url, {"limit": "5", "cursor": body["nextCursor"]})
    assert (status, error["error"]["code"]) == (410, "cursor_expired")
    assert simulator.counters.faults == {"cursor-expired": 1}


async def test_faults_only_hit_their_routes(
    serve: StartSimulator, session: aiohttp.ClientSession
) -> None:
    """A fault scoped to list:endpoints leaves other routes alone."""
    simulator = await faulty(serve, FaultSpec("http-503", 1.0, "list:endpoints"))
    assert (await get_json(session, simulator.url + LIST_URL))[0] == 503
    endpoint = simulator.dataset.id_of("endpoints", 0)
    assert (await get_json(session, f"{simulator.url}/v1/endpoints/{endpoint}"))[0] == 200
    assert (await get_json(session, f"{simulator.url}/v1/scopes"))[0] == 200
    assert (await get_json(session, f"{simulator.url}/v1/health"))[0] == 200


async def statuses(simulator: Simulator, session: aiohttp.ClientSession, count: int) -> list[int]:
    return [(await get_json(session, simulator.url + LIST_URL))[0] for _ in range(count)]


async def test_fault_sequence_is_reproducible_from_the_seed(
    serve: StartSimulator, session: aiohttp.ClientSession
) -> None:
    """Two runs with one seed fault the same requests; another seed faults others."""
    fault = FaultSpec("http-500", 0.5)
    first = await statuses(await faulty(serve, fault, seed=11), session, 40)
    again = await statuses(await faulty(serve, fault, seed=11), session, 40)
    other = await statuses(await faulty(serve, fault, seed=12), session, 40)
    assert first == again
    assert first != other
    assert 10 < first.count(500) < 30


async def test_rate_zero_never_fires(serve: StartSimulator, session: aiohttp.ClientSession) -> None:
    """A fault with rate 0 never hits."""
    simulator = await faulty(serve, FaultSpec("http-500", 0.0))
    assert set(await statuses(simulator, session, 20)) == {200}


async def test_retries_get_the_right_pages(
    serve: StartSimulator, session: aiohttp.ClientSession
) -> None:
    """Retrying faulted requests walks the exact same page sequence as a clean run."""
    faults = (FaultSpec("http-503", 0.3), FaultSpec("malformed", 0.2), FaultSpec("reset", 0.1))
    simulator = await faulty(serve, *faults)
    url = f"{simulator.url}/v1/vulnerability-findings"
    ids: list[str] = []
    offset = 0
    for _ in range(1000):
        params = {"limit": "25", "offset": str(offset)}
        try:
            async with session.get(url, params=params) as response:
                if response.status != 200:
                    continue
                body = json.loads(await response.read())
        except (aiohttp.ClientError, json.JSONDecodeError):
            continue
        ids += [item["id"] for item in body["data"]]
        offset += len(body["data"])
        if offset >= body["total"]:
            break
    assert ids == list(simulator.dataset.ids("vulnerability-findings"))
    assert simulator.counters.total_faults > 10


async def test_faults_are_counted_by_kind_and_route(
    serve: StartSimulator, session: aiohttp.ClientSession
) -> None:
    """Counters record each injected fault by kind, and by route then kind."""
    simulator = await faulty(serve, FaultSpec("latency", 1.0), FaultSpec("http-502", 1.0, "get:*"))
    await get_json(session, simulator.url + LIST_URL)
    await get_json(session, f"{simulator.url}/v1/scopes/sc-00000001")
    counters = simulator.counters
    assert counters.faults == {"latency": 2, "http-502": 1}
    assert counters.faults_by_route == {
        "list:endpoints": {"latency": 1},
        "get:scopes": {"latency": 1, "http-502": 1},
    }


async def test_first_firing_fault_wins(
    serve: StartSimulator, session: aiohttp.ClientSession
) -> None:
    """When several faults fire, the first configured one answers."""
    simulator = await faulty(serve, FaultSpec("http-504", 1.0), FaultSpec("http-500", 1.0))
    assert await statuses(simulator, session, 3) == [504, 504, 504]


async def test_faults_hit_the_agent_configuration(
    serve: StartSimulator, session: aiohttp.ClientSession
) -> None:
    """The download can be truncated like any other response."""
    simulator = await faulty(serve, FaultSpec("truncate", 1.0, "agent-configuration"))
    async with session.get(f"{simulator.url}/v1/agent-configuration") as response:
        with pytest.raises(aiohttp.ClientPayloadError):
            await response.read()


async def test_stop_cancels_a_stalled_request(session: aiohttp.ClientSession) -> None:
    """Stopping the simulator does not wait for a stall that never ends."""
    sleep = GatedSleep()
    config = SimulatorConfig(size=5, faults=(FaultSpec("stall", 1.0),))
    simulator = Simulator(config, sleep=sleep)
    await simulator.start()
    async with session.get(simulator.url + LIST_URL) as response:
        await sleep.until_waiting(1)
        await asyncio.wait_for(simulator.stop(), timeout=5)
        with pytest.raises(aiohttp.ClientPayloadError):
            await response.read()
    assert simulator.counters.in_flight == 0


async def test_first_fails_the_first_requests_then_none(
    serve: StartSimulator, session: aiohttp.ClientSession
) -> None:
    """`first=2` answers the first two requests with the fault and every later one normally,
    whatever the seed."""
    for seed in (1, 2, 3):
        simulator = await faulty(serve, FaultSpec("http-503", first=2), seed=seed)
        assert await statuses(simulator, session, 5) == [503, 503, 200, 200, 200]


async def test_nth_and_every_hit_exactly_the_requests_they_count(
    serve: StartSimulator, session: aiohttp.ClientSession
) -> None:
    """`nth=3` hits the third request only, `nth=(1, 4)` the first and fourth, `every=3` the
    third, sixth, ..."""
    third = await faulty(serve, FaultSpec("http-500", nth=3))
    assert await statuses(third, session, 6) == [200, 200, 500, 200, 200, 200]
    some = await faulty(serve, FaultSpec("http-500", nth=(1, 4)))
    assert await statuses(some, session, 6) == [500, 200, 200, 500, 200, 200]
    every = await faulty(serve, FaultSpec("http-500", every=3))
    assert await statuses(every, session, 7) == [200, 200, 500, 200, 200, 500, 200]


async def test_a_certain_fault_counts_the_requests_of_all_its_routes_together(
    serve: StartSimulator, session: aiohttp.ClientSession
) -> None:
    """The count runs over the requests the fault applies to, in arrival order across its
    routes; requests of other routes do not count."""
    simulator = await faulty(serve, FaultSpec("http-503", nth=2, routes="list:*"))
    base = simulator.url
    got = [
        (await get_json(session, base + path))[0]
        for path in ("/v1/health", "/v1/endpoints", "/v1/health", "/v1/scopes", "/v1/endpoints")
    ]
    assert got == [200, 200, 200, 503, 200]
    assert simulator.counters.faults_by_route == {"list:scopes": {"http-503": 1}}


async def test_a_certain_cursor_expiry_counts_only_requests_with_a_cursor(
    serve: StartSimulator, session: aiohttp.ClientSession
) -> None:
    """`cursor-expired` applies to requests carrying a cursor, so `first=1` expires the first
    cursor, not the first request."""
    simulator = await faulty(serve, FaultSpec("cursor-expired", first=1), paging="cursor")
    url = simulator.url + LIST_URL
    status, body, _ = await get_json(session, url, {"limit": "5"})
    assert status == 200
    cursor = {"limit": "5", "cursor": body["nextCursor"]}
    assert (await get_json(session, url, cursor))[0] == 410
    assert (await get_json(session, url, cursor))[0] == 200


async def test_a_certain_latency_fault_delays_the_requests_it_counts(
    serve: StartSimulator, session: aiohttp.ClientSession, fake_sleep: RecordingSleep
) -> None:
    """A latency fault with `every=2` delays the second and fourth requests only."""
    simulator = await faulty(serve, FaultSpec("latency", every=2, latency_ms=300))
    assert await statuses(simulator, session, 4) == [200] * 4
    assert fake_sleep.calls == [0.3, 0.3]


async def test_a_rate_fault_rolls_as_before_beside_a_certain_one(
    serve: StartSimulator, session: aiohttp.ClientSession
) -> None:
    """Adding certain faults leaves the seeded rolls of a fault by rate as they were: a run's
    requests hit by chance are the same with or without them (latency, here, changes no
    status)."""
    alone = await statuses(await faulty(serve, FaultSpec("http-500", 0.5), seed=11), session, 30)
    beside = await faulty(serve, FaultSpec("http-500", 0.5), FaultSpec("latency", every=2), seed=11)
    assert await statuses(beside, session, 30) == alone
    assert 5 < alone.count(500) < 25


async def test_fault_counts_say_what_each_fault_hit(
    serve: StartSimulator, session: aiohttp.ClientSession
) -> None:
    """`fault_counts` gives each configured fault, in order, the requests it applied to and
    those it hit; a fault outranked by an earlier one on the same request hits nothing."""
    faults = (
        FaultSpec("http-503", first=2, routes="list:endpoints"),
        FaultSpec("http-500", nth=1),
        FaultSpec("http-504", 0.0),
        FaultSpec("reset", first=1, routes="get:*"),
    )
    simulator = await faulty(serve, *faults)
    assert await statuses(simulator, session, 3) == [503, 503, 200]
    counts = simulator.fault_counts
    assert [(c.fault, c.requests, c.hits) for c in counts] == [
        (faults[0], 3, 2),
        (faults[1], 3, 0),
        (faults[2], 3, 0),
        (faults[3], 0, 0),
    ]
    assert str(counts[0]) == "http-503:first=2:list:endpoints hit 2 of the 3 requests it applied to"


async def test_fault_counts_outlive_reset_counters(
    serve: StartSimulator, session: aiohttp.ClientSession
) -> None:
    """`reset_counters` zeroes the counters but not a certain fault's count, which goes on."""
    simulator = await faulty(serve, FaultSpec("http-503", nth=3))
    assert await statuses(simulator, session, 2) == [200, 200]
    simulator.reset_counters()
    assert await statuses(simulator, session, 2) == [503, 200]
    assert simulator.counters.faults == {"http-503": 1}
    assert [(c.requests, c.hits) for c in simulator.fault_counts] == [(4, 1)]
