"""The client's rate limit where the service counts: arrivals stamped at loopback servers, on
a virtual clock that lets new connections take time to open (a slow TLS handshake, a slow
proxy tunnel) while warm ones take none, so a turn taken before the connection would show."""

from __future__ import annotations

import asyncio
import ssl
from collections import defaultdict
from collections.abc import AsyncIterator
from dataclasses import dataclass

import aiohttp
import pytest
import trustme
from aiohttp import web

from remedy_async import (
    APITimeoutError,
    ClientEvent,
    ConnectionPool,
    MockRequest,
    MockResponse,
    MockTransport,
    RateLimit,
    RemedyClient,
    RequestOptions,
    RetryPolicy,
)
from tests.fakes import endpoint_record
from tests.loopback import serve_app
from tests.sending.parked_time import ParkedTime, SlowHandshakes, SlowTunnels, most_in_any_window


class Arrivals:
    """A service stamping each request's arrival on the test's virtual clock; `/v1/endpoints/
    {id}` answers the record, or (with `redirect`) sends it on once to `{id}-moved`. An aiohttp
    app of its own: served over TLS behind relays and tunnels that take virtual time to open,
    the moment a request arrives at the wire is what it stamps."""

    def __init__(self, time: ParkedTime, *, redirect: bool = False) -> None:
        self.time = time
        self.redirect = redirect
        self.stamps: list[float] = []
        self.paths: list[str] = []
        self.by_key: dict[str, list[float]] = defaultdict(list)

    async def handle(self, request: web.Request) -> web.StreamResponse:
        self.stamps.append(self.time.clock())
        self.paths.append(request.path)
        self.by_key[request.headers.get("Authorization", "")].append(self.time.clock())
        id = request.match_info["id"]
        if self.redirect and not id.endswith("-moved"):
            raise web.HTTPTemporaryRedirect(f"/v1/endpoints/{id}-moved")
        return web.json_response(endpoint_record(id))

    def app(self) -> web.Application:
        app = web.Application()
        app.router.add_get("/v1/endpoints/{id}", self.handle)
        return app


@dataclass
class Setting:
    """A test's clock, its CA and what the client needs to trust it."""

    time: ParkedTime
    authority: trustme.CA
    trusting: ssl.SSLContext


@pytest.fixture(scope="module")
def authority() -> trustme.CA:
    return trustme.CA()


@pytest.fixture
def setting(authority: trustme.CA) -> Setting:
    trusting = ssl.create_default_context()
    authority.configure_trust(trusting)
    return Setting(ParkedTime(), authority, trusting)


async def https_port(service: Arrivals, authority: trustme.CA, stack: list[web.AppRunner]) -> int:
    """Serve `service` over TLS on loopback (the test CA's certificate); its port."""
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    authority.issue_cert("127.0.0.1").configure_cert(context)
    runner = web.AppRunner(service.app(), access_log=None)
    await runner.setup()
    stack.append(runner)
    site = web.TCPSite(runner, "127.0.0.1", 0, ssl_context=context)
    await site.start()
    port: int = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    return port


@pytest.fixture
async def runners() -> AsyncIterator[list[web.AppRunner]]:
    started: list[web.AppRunner] = []
    yield started
    for runner in started:
        await runner.cleanup()


class Waits:
    """An event hook keeping each attempt's events in order, and the rate limit's waits."""

    def __init__(self) -> None:
        self.by_attempt: dict[tuple[int | None, int], list[ClientEvent]] = defaultdict(list)
        self.rate_limit: list[float] = []

    def __call__(self, event: ClientEvent) -> None:
        self.by_attempt[(event.call_id, event.attempt)].append(event)
        if event.kind == "wait" and event.detail == "rate limit":
            assert event.wait is not None
            self.rate_limit.append(event.wait)

    def at_the_wire(self) -> list[float]:
        """The rate limit's waits an attempt told of after its request went to the transport."""
        return [
            event.wait or 0.0
            for events in self.by_attempt.values()
            for index, event in enumerate(events)
            if event.kind == "wait" and any(e.kind == "request" for e in events[:index])
        ]


async def mixed_connections(
    setting: Setting, runners: list[web.AppRunner], **settings: object
) -> tuple[Arrivals, SlowHandshakes, bool]:
    """Two gets, then 25 ids at concurrency 25, under 10/s, over TLS connections that take
    0.5, 0.2 or 0.8 s to open: the service, the relay, and whether the client made events."""
    time = setting.time
    service = Arrivals(time)
    port = await https_port(service, setting.authority, runners)
    async with (
        SlowHandshakes(port, time, [0.5, 0.2, 0.8]) as relay,
        RemedyClient(
            f"https://127.0.0.1:{relay.port}",
            rate_limit=RateLimit(10, per=1.0),
            ssl_context=setting.trusting,
            clock=time.clock,
            sleep=time.sleep,
            trace_configs=[time.traced()],
            **settings,  # type: ignore[arg-type]
        ) as client,
    ):
        await client.endpoints.get("warm-1")
        await client.endpoints.get("warm-2")
        ids = [f"ep-{n}" for n in range(25)]
        results = [result async for result in client.endpoints.get_many(ids, concurrency=25)]
        evented = client._events.active
    assert all(result.ok for result in results)
    assert len(service.stamps) == 27
    assert 2 < relay.opened < 27, "new connections and warm ones, mixed"
    assert set(time.holds) == {0.5, 0.2, 0.8}
    return service, relay, evented


async def test_new_and_warm_connections_arrive_within_the_budget(
    setting: Setting, runners: list[web.AppRunner], library_logging: str
) -> None:
    """25 ids at concurrency 25 under 10/s, over TLS connections that take 0.2-0.8 s to open
    (one warmed first): the service never sees more than 10 in any second, and does see 10;
    with events and without (the sender's fast path)."""
    service, _, evented = await mixed_connections(setting, runners, telemetry=False)
    assert evented == (library_logging == "logged")
    assert most_in_any_window(service.stamps, 1.0) == 10


async def test_the_rate_limits_waits_are_told_as_they_are_made(
    setting: Setting, runners: list[web.AppRunner]
) -> None:
    """Every wait for the rate limit, up front or at the wire, is a `wait` event saying how
    long, and no wait goes untold."""
    waits = Waits()
    await mixed_connections(setting, runners, event_hooks=[waits])
    assert sorted(waits.rate_limit) == pytest.approx(sorted(setting.time.sleeps))
    assert waits.at_the_wire(), "some requests waited at the wire, connection in hand"


async def test_a_proxy_tunnel_that_takes_time_to_open_keeps_the_budget(
    setting: Setting, runners: list[web.AppRunner], library_logging: str
) -> None:
    """Through a proxy whose CONNECT takes 0.7 s, 15 ids at concurrency 15 under 5/s after
    two warm-up gets: never more than 5 arrivals in any second at the service."""
    time = setting.time
    service = Arrivals(time)
    port = await https_port(service, setting.authority, runners)
    async with (
        SlowTunnels(time, 0.7) as proxy,
        RemedyClient(
            f"https://127.0.0.1:{port}",
            proxy=proxy.url,
            rate_limit=RateLimit(5, per=1.0),
            ssl_context=setting.trusting,
            clock=time.clock,
            sleep=time.sleep,
            trace_configs=[time.traced()],
            telemetry=False,
        ) as client,
    ):
        await client.endpoints.get("warm-1")
        await client.endpoints.get("warm-2")
        ids = [f"ep-{n}" for n in range(15)]
        results = [result async for result in client.endpoints.get_many(ids, concurrency=15)]
    assert all(result.ok for result in results)
    assert len(service.stamps) == 17
    assert 1 < len(proxy.connects) < 17, "tunnels opened and reused"
    assert most_in_any_window(service.stamps, 1.0) == 5


async def test_every_redirect_hop_counts_as_an_arrival(setting: Setting) -> None:
    """With redirects followed, each hop reaches the service and counts: 9 gets redirected
    once under 3/s arrive 18 times, never more than 3 in any second."""
    time = setting.time
    service = Arrivals(time, redirect=True)
    async with (
        serve_app(service.app()) as url,
        RemedyClient(
            url,
            rate_limit=RateLimit(3, per=1.0),
            follow_redirects=True,
            clock=time.clock,
            sleep=time.sleep,
            trace_configs=[time.traced()],
        ) as client,
    ):
        ids = [f"ep-{n}" for n in range(9)]
        results = [result async for result in client.endpoints.get_many(ids, concurrency=9)]
    assert all(result.ok for result in results)
    assert len(service.stamps) == 18
    assert sum(path.endswith("-moved") for path in service.paths) == 9
    assert most_in_any_window(service.stamps, 1.0) == 3


async def test_a_session_of_ones_own_has_each_hop_take_its_turn(setting: Setting) -> None:
    """Through an aiohttp session of the user's own (its own connector, which cannot take
    turns), the client takes each request's turn just before handing it over, redirect hops
    included: 9 gets redirected once under 3/s arrive 18 times, never more than 3 in any
    second."""
    time = setting.time
    service = Arrivals(time, redirect=True)
    async with (
        serve_app(service.app()) as url,
        aiohttp.ClientSession(trace_configs=[time.traced()]) as session,
        RemedyClient(
            url,
            session=session,
            rate_limit=RateLimit(3, per=1.0),
            follow_redirects=True,
            clock=time.clock,
            sleep=time.sleep,
        ) as client,
    ):
        ids = [f"ep-{n}" for n in range(9)]
        results = [result async for result in client.endpoints.get_many(ids, concurrency=9)]
    assert all(result.ok for result in results)
    assert len(service.stamps) == 18
    assert most_in_any_window(service.stamps, 1.0) == 3


async def test_a_wait_at_the_wire_past_the_timeout_fails_unsent(
    setting: Setting, runners: list[web.AppRunner]
) -> None:
    """Under 2 per 10 s with a 5 s timeout: two gets whose connections took 4 s to open went
    at 4 s; a third, whose turn came at 10.1 s on a warm connection, would have to wait at the
    wire until 14.1 s, past its timeout: it fails unsent, naming the rate limit, and its
    connection goes back to the pool for the next request."""
    time = setting.time
    service = Arrivals(time)
    port = await https_port(service, setting.authority, runners)
    once = RequestOptions(retry=RetryPolicy(attempts=1))
    async with (
        SlowHandshakes(port, time, [4.0]) as relay,
        RemedyClient(
            f"https://127.0.0.1:{relay.port}",
            rate_limit=RateLimit(2, per=10.0),
            timeout=5.0,
            ssl_context=setting.trusting,
            clock=time.clock,
            sleep=time.sleep,
            trace_configs=[time.traced()],
        ) as client,
    ):
        start = time.clock()
        await asyncio.gather(client.endpoints.get("ep-1"), client.endpoints.get("ep-2"))
        await time.virtual.sleep(2.0)
        with pytest.raises(APITimeoutError, match="with its connection in hand"):
            await client.endpoints.get("ep-3", options=once)
        assert time.clock() - start == pytest.approx(10.1)
        await time.virtual.sleep(20.0)
        await client.endpoints.get("ep-4")
    assert [stamp - start for stamp in service.stamps] == pytest.approx([4.0, 4.0, 30.1])
    assert relay.opened == 2


async def test_a_mock_transport_counts_each_hop_before_its_handler() -> None:
    """A MockTransport takes each request's turn just before its handler, as a connection
    would: 4 gets redirected once under 2/s reach the handler 8 times, 2 in any second."""
    time = ParkedTime()
    stamps: list[float] = []

    def handler(request: MockRequest) -> MockResponse:
        stamps.append(time.clock())
        if not request.path.endswith("-moved"):
            return MockResponse(307, {"Location": f"{request.path}-moved"})
        return MockResponse.json(200, endpoint_record(request.path.rsplit("/", 1)[1]))

    async with RemedyClient(
        "https://api.test",
        transport=MockTransport(handler),
        rate_limit=RateLimit(2, per=1.0),
        follow_redirects=True,
        clock=time.clock,
        sleep=time.sleep,
        event_hooks=[time],
    ) as client:
        await asyncio.gather(*(client.endpoints.get(f"ep-{n}") for n in range(4)))
    assert len(stamps) == 8
    assert most_in_any_window(stamps, 1.0) == 2


async def test_another_clients_transport_inside_an_attempt_takes_no_turn() -> None:
    """A handler that calls a second client (no rate limit) inside the first one's attempt:
    the second client's requests do not take the first one's turn at the wire."""
    time = ParkedTime()
    inner = RemedyClient(
        "https://inner.test",
        transport=MockTransport(lambda request: MockResponse.json(200, endpoint_record("in"))),
        clock=time.clock,
        sleep=time.sleep,
    )

    async def handler(request: MockRequest) -> MockResponse:
        found = [await inner.endpoints.get(f"in-{n}") for n in range(3)]
        return MockResponse.json(200, endpoint_record("out", hostname=str(len(found))))

    async with (
        inner,
        RemedyClient(
            "https://api.test",
            transport=MockTransport(handler),
            rate_limit=RateLimit(1, per=10.0),
            clock=time.clock,
            sleep=time.sleep,
            event_hooks=[time],
        ) as client,
    ):
        endpoint = await client.endpoints.get("out")
    assert endpoint.hostname == "3"
    assert time.sleeps == []


async def test_clients_sharing_a_pool_each_keep_their_own_budget(
    setting: Setting, runners: list[web.AppRunner]
) -> None:
    """Two clients of one pool (two keys, 4/s and 6/s), 20 gets each at once over TLS
    connections that take 0.2-0.8 s to open and are shared between them: the service never
    sees more than each key's own limit in any second, and does see it."""
    time = setting.time
    service = Arrivals(time)
    port = await https_port(service, setting.authority, runners)
    async with (
        SlowHandshakes(port, time, [0.5, 0.2, 0.8]) as relay,
        ConnectionPool(4, ssl_context=setting.trusting, trace_configs=[time.traced()]) as pool,
    ):
        clients = [
            RemedyClient(
                f"https://127.0.0.1:{relay.port}", token=f"key-{limit}", pool=pool,
                rate_limit=RateLimit(limit, per=1.0), clock=time.clock, sleep=time.sleep,
            )
            for limit in (4, 6)
        ]  # fmt: skip
        ids = [f"ep-{n}" for n in range(20)]
        results = await asyncio.gather(
            *(collect(client.endpoints.get_many(ids, concurrency=20)) for client in clients)
        )
        for client in clients:
            await client.close()
    assert all(result.ok for found in results for result in found)
    assert most_in_any_window(service.by_key["Bearer key-4"], 1.0) == 4
    assert most_in_any_window(service.by_key["Bearer key-6"], 1.0) == 6
    assert relay.opened <= 4, "one ceiling of connections for both clients"


async def collect(results: object) -> list[object]:
    return [result async for result in results]  # type: ignore[attr-defined]
