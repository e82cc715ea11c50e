"""Derived clients: `client.with_options(timeout=, retry=, headers=)` sends with its own settings
and shares the rest with its parent: connections, in-flight slots, pauses, rate budget, token.

The budget is proven where the service counts it: a simulator with a rate limit per token,
stamping arrivals on the test's virtual clock, so a parent and its derived clients sending
together are seen at the service within the key's limit.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping

import aiohttp
import pytest
from aiohttp import web

from remedy_async import (
    ClientClosedError,
    ConfigurationError,
    MockRequest,
    MockResponse,
    MockTransport,
    RateLimit,
    RemedyClient,
    RetryPolicy,
    ServerError,
)
from remedy_async._wire._http import AttemptTimeout, Request, Response
from remedy_async.simulator import Simulator, SimulatorConfig
from tests.fakes import ENDPOINT_ID, FakeTime, endpoint_body, endpoint_record
from tests.loopback import CANARY, Serve, serve_handler
from tests.mock_service import BASE_URL, Routes, Script
from tests.sending.parked_time import ParkedTime, most_in_any_window


class Recording:
    """A transport answering every get with an endpoint, recording the headers and attempt
    timeout each request was sent with."""

    def __init__(self) -> None:
        self.sent: list[tuple[Mapping[str, str], AttemptTimeout]] = []

    async def send(
        self, request: Request, headers: Mapping[str, str], timeout: AttemptTimeout, max_body: int
    ) -> Response:
        self.sent.append((headers, timeout))
        return Response(request, 200, {"Content-Type": "application/json"}, endpoint_body())

    def stream(self, request: Request, headers: Mapping[str, str], timeout: AttemptTimeout):  # type: ignore[no-untyped-def]
        raise NotImplementedError


async def test_a_derived_client_sends_with_its_settings_and_the_parent_with_its_own() -> None:
    """The derived client's timeout and added headers go with its requests; the parent's
    requests keep the parent's, the token going with both."""
    transport = Recording()
    async with RemedyClient(BASE_URL, token=CANARY, transport=transport, timeout=30) as client:
        derived = client.with_options(timeout=5, headers={"X-Team": "blue"})
        await derived.endpoints.get(ENDPOINT_ID)
        await client.endpoints.get(ENDPOINT_ID)
    (derived_headers, derived_timeout), (parent_headers, parent_timeout) = transport.sent
    assert (derived_timeout.total, parent_timeout.total) == (5, 30)
    assert derived_headers["X-Team"] == "blue"
    assert "X-Team" not in parent_headers
    assert derived_headers["Authorization"] == parent_headers["Authorization"] == f"Bearer {CANARY}"


async def test_a_derived_client_s_retry_policy_is_its_own() -> None:
    """Against a service failing with 503, the derived client with one attempt sends once;
    the parent, with three, three times."""
    script = Script(MockResponse.json(503, {"error": "busy"}))
    time = FakeTime()
    async with script.client(clock=time.clock, sleep=time.sleep) as client:
        once = client.with_options(retry=RetryPolicy(attempts=1))
        with pytest.raises(ServerError):
            await once.endpoints.get(ENDPOINT_ID)
        assert len(script.requests) == 1
        with pytest.raises(ServerError):
            await client.endpoints.get(ENDPOINT_ID)
    assert len(script.requests) == 1 + 3


async def test_added_headers_replace_the_parent_s_in_any_letter_case() -> None:
    """`headers={"accept": ...}` replaces the client's `Accept`: one header, the new value."""
    transport = Recording()
    async with RemedyClient(BASE_URL, transport=transport) as client:
        await client.with_options(headers={"accept": "application/x"}).endpoints.get(ENDPOINT_ID)
    sent = transport.sent[0][0]
    assert [name for name in sent if name.lower() == "accept"] == ["accept"]
    assert sent["accept"] == "application/x"


async def test_a_client_derived_from_a_derived_one_stacks_their_settings() -> None:
    """Derived twice: both added headers, the latest timeout, and the parent's token."""
    transport = Recording()
    async with RemedyClient(BASE_URL, token=CANARY, transport=transport) as client:
        first = client.with_options(headers={"X-A": "1"}, timeout=9)
        second = first.with_options(headers={"X-B": "2"}, timeout=4)
        await second.endpoints.get(ENDPOINT_ID)
    headers, timeout = transport.sent[0]
    assert (headers["X-A"], headers["X-B"], timeout.total) == ("1", "2", 4)
    assert headers["Authorization"] == f"Bearer {CANARY}"


async def test_the_in_flight_slots_are_shared() -> None:
    """A parent with `max_in_flight=2` and a client derived from it never have more than two
    requests in flight together."""
    release = asyncio.Event()
    in_flight = most = 0

    async def held(request: MockRequest) -> MockResponse:
        nonlocal in_flight, most
        in_flight += 1
        most = max(most, in_flight)
        await release.wait()
        in_flight -= 1
        return MockResponse.json(200, endpoint_record())

    async with RemedyClient(BASE_URL, transport=MockTransport(held), max_in_flight=2) as client:
        derived = client.with_options(timeout=60)
        gets = [
            asyncio.create_task(one.endpoints.get(ENDPOINT_ID))
            for one in (client, derived, derived, client)
        ]
        for _ in range(20):
            await asyncio.sleep(0)
        assert in_flight == 2
        release.set()
        await asyncio.gather(*gets)
    assert most == 2


async def test_a_pause_the_service_asks_for_holds_the_derived_client_too() -> None:
    """After the parent's 429 with `Retry-After: 7`, the derived client's next request waits
    the pause out before it goes."""
    answers = iter(
        [
            MockResponse.json(429, {"error": "slow down"}, headers={"Retry-After": "7"}),
            MockResponse.json(200, endpoint_record()),
        ]
    )
    time = FakeTime()
    async with RemedyClient(
        BASE_URL,
        transport=MockTransport(lambda request: next(answers)),
        clock=time.clock,
        sleep=time.sleep,
        retry=RetryPolicy(attempts=1),
    ) as client:
        derived = client.with_options(retry=RetryPolicy(attempts=2))
        with pytest.raises(Exception, match="slow down"):
            await client.endpoints.get(ENDPOINT_ID)
        await derived.endpoints.get(ENDPOINT_ID)
    assert time.waits == [pytest.approx(7.0)]


async def test_a_derived_client_sends_over_the_parent_s_connections(serve: Serve) -> None:
    """Over loopback: the derived client opens no session of its own, and its request reuses
    the connection the parent's request left open (one peer port at the server)."""
    ports: list[int] = []

    # An aiohttp handler: the peer port of each request's connection is what it reads.
    async def answer(request: web.Request) -> web.Response:
        ports.append(request.transport.get_extra_info("peername")[1])  # type: ignore[union-attr]
        return web.json_response(endpoint_record(request.match_info["id"]))

    url = await serve({"/v1/endpoints/{id}": answer})
    async with RemedyClient(url) as client:
        await client.endpoints.get("ep-1")
        derived = client.with_options(headers={"X-Team": "blue"})
        await derived.endpoints.get("ep-2")
        assert derived._owned_session is None
        assert isinstance(client._owned_session, aiohttp.ClientSession)
    assert len(ports) == 2
    assert ports[0] == ports[1]


async def test_closing_a_derived_client_leaves_its_parent_open() -> None:
    """A closed derived client refuses to send; its parent and its connections go on."""
    async with Routes({"/v1/endpoints/{id}": endpoint}).client() as client:
        derived = client.with_options(timeout=5)
        async with derived:
            await derived.endpoints.get(ENDPOINT_ID)
        with pytest.raises(ClientClosedError, match="is closed"):
            await derived.endpoints.get(ENDPOINT_ID)
        assert (await client.endpoints.get(ENDPOINT_ID)).id == ENDPOINT_ID
        assert "closed, derived" in repr(derived)


async def test_closing_the_parent_closes_every_client_derived_from_it() -> None:
    """Once the parent is closed (its session with it), a derived client, and one derived from
    that, raise ClientClosedError saying so. Over loopback: the parent's aiohttp session is
    the point."""
    service = Routes({"/v1/endpoints/{id}": endpoint})
    async with serve_handler(service) as url:
        client = RemedyClient(url)
        derived = client.with_options(timeout=5)
        deeper = derived.with_options(timeout=3)
        await deeper.endpoints.get("ep-1")
        session = client._owned_session
        await client.close()
        assert session is not None
        assert session.closed
        for closed in (derived, deeper):
            with pytest.raises(ClientClosedError, match="derived from a client that is closed"):
                await closed.endpoints.get("ep-1")
    assert len(service.requests) == 1


def endpoint(request: MockRequest, id: str) -> MockResponse:
    return MockResponse.json(200, endpoint_record(id))


@pytest.mark.parametrize(
    ("settings", "error", "match"),
    [
        ({"timeout": -1}, ValueError, "timeout must be a positive number"),
        ({"timeout": "fast"}, ValueError, "timeout must be a positive number"),
        ({"headers": {"X-Bad": "a\r\nb"}}, ValueError, "not allowed"),
        ({"headers": {"X-Bad": 1}}, TypeError, "must be str"),
        ({"retry": "twice"}, ConfigurationError, "retry must be a RetryPolicy"),
        ({"headers": {"authorization": "Bearer other"}}, ConfigurationError, "token also sets"),
    ],
)
def test_a_bad_setting_raises_as_the_constructor_raises_it(
    settings: dict[str, object], error: type[Exception], match: str
) -> None:
    """Each bad setting fails `with_options` before any I/O with the constructor's error."""
    client = RemedyClient(BASE_URL, token=CANARY, transport=MockTransport(lambda r: None))  # type: ignore[arg-type,return-value]
    with pytest.raises(error, match=match):
        client.with_options(**settings)  # type: ignore[arg-type]
    with pytest.raises(error, match=match):
        RemedyClient(BASE_URL, token=CANARY, transport=MockTransport(lambda r: None), **settings)  # type: ignore[arg-type,return-value]


# The rate budget, where the service counts it ------------------------------------------------

LIMIT = 5
"""Requests per second the simulator allows each token, and the clients' budget."""
EPOCH = 1_700_000_000.0
"""Where the virtual clock starts: a Unix time, so the simulator's `X-RateLimit-Reset` (a date
on its clock) and the client's reading of it agree."""


async def _gets(client: RemedyClient, ids: list[str]) -> int:
    results = [result async for result in client.endpoints.get_many(ids, concurrency=len(ids))]
    return sum(result.ok for result in results)


def _limited() -> SimulatorConfig:
    return SimulatorConfig(tenants=1, size=30, tenant_rate_limit=LIMIT, tenant_rate_window=1.0)


def _client(url: str, token: str, time: ParkedTime, limit: RateLimit) -> RemedyClient:
    return RemedyClient(
        url,
        token=token,
        rate_limit=limit,
        clock=time.clock,
        sleep=time.sleep,
        trace_configs=[time.traced()],
        telemetry=False,
    )


async def test_a_parent_and_its_derived_clients_keep_the_key_s_limit_together() -> None:
    """A parent, a client derived from it and one derived from that, each fetching 10 records
    at once under one `RateLimit(5)`: the service counts 30 arrivals, never more than 5 in any
    second, and refuses none."""
    time = ParkedTime(EPOCH)
    async with Simulator(_limited(), clock=time.clock) as service:
        tenant = service.tenants[0]
        ids = [tenant.dataset.id_of("endpoints", n) for n in range(30)]
        async with _client(service.url, tenant.token, time, RateLimit(LIMIT)) as client:
            derived = client.with_options(timeout=60)
            deeper = derived.with_options(headers={"X-Team": "blue"})
            done = await asyncio.gather(
                _gets(client, ids[:10]), _gets(derived, ids[10:20]), _gets(deeper, ids[20:])
            )
        arrivals = service.arrivals(tenant.name)
        refused = service.counters.tenants[tenant.name].rate_limited
    assert list(done) == [10, 10, 10]
    assert len(arrivals) == 30
    assert most_in_any_window(arrivals, 1.0) <= LIMIT
    assert refused == 0


async def test_clients_given_one_rate_limit_value_share_its_budget() -> None:
    """Two clients made apart, given the same `RateLimit` instance, stay within it together at
    the service; given two equal values instead, they exceed it."""
    time = ParkedTime(EPOCH)
    async with Simulator(_limited(), clock=time.clock) as service:
        tenant = service.tenants[0]
        ids = [tenant.dataset.id_of("endpoints", n) for n in range(30)]
        shared = RateLimit(LIMIT)
        async with (
            _client(service.url, tenant.token, time, shared) as one,
            _client(service.url, tenant.token, time, shared) as other,
        ):
            await asyncio.gather(_gets(one, ids[:10]), _gets(other, ids[10:20]))
        together = service.arrivals(tenant.name)
        refused = service.counters.tenants[tenant.name].rate_limited
        service.reset_counters()
        async with (
            _client(service.url, tenant.token, time, RateLimit(LIMIT)) as one,
            _client(service.url, tenant.token, time, RateLimit(LIMIT)) as other,
        ):
            await asyncio.gather(_gets(one, ids[:10]), _gets(other, ids[10:20]))
        apart = service.arrivals(tenant.name)
    assert len(together) == 20
    assert most_in_any_window(together, 1.0) <= LIMIT
    assert refused == 0
    assert most_in_any_window(apart, 1.0) > LIMIT
