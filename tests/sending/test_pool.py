"""`ConnectionPool`: connections several clients share, each client keeping its own settings."""

from __future__ import annotations

import asyncio
from collections import Counter

import pytest
from aiohttp import web

from remedy_async import (
    ClientClosedError,
    ConfigurationError,
    ConnectionPool,
    MockResponse,
    MockTransport,
    RemedyClient,
)
from tests.fakes import endpoint_record
from tests.loopback import serve_app


class Keys:
    """A service noting each request's key and the connection it came on (an aiohttp handler:
    the connection, `request.transport`, is what it counts, and a MockRequest has none)."""

    def __init__(self) -> None:
        self.keys: Counter[str] = Counter()
        self.connections: set[object] = set()
        self.in_flight = 0
        self.most_in_flight = 0

    async def handle(self, request: web.Request) -> web.Response:
        self.keys[request.headers.get("Authorization", "")] += 1
        self.connections.add(request.transport)
        self.in_flight += 1
        self.most_in_flight = max(self.most_in_flight, self.in_flight)
        await asyncio.sleep(0)
        self.in_flight -= 1
        return web.json_response(endpoint_record(request.match_info["id"]))

    def app(self) -> web.Application:
        app = web.Application()
        app.router.add_get("/v1/endpoints/{id}", self.handle)
        return app


async def test_clients_of_a_pool_share_its_ceiling_and_keep_their_keys() -> None:
    """Three clients, 30 gets each at once, through a pool of 2: each request carries its own
    client's key, and the service never sees more than 2 at once or 2 connections."""
    service = Keys()
    async with serve_app(service.app()) as url, ConnectionPool(2) as pool:
        clients = [RemedyClient(url, token=f"key-{n}", pool=pool) for n in range(3)]
        await asyncio.gather(
            *(client.endpoints.get(f"ep-{n}") for client in clients for n in range(30))
        )
        for client in clients:
            await client.close()
    assert service.keys == {f"Bearer key-{n}": 30 for n in range(3)}
    assert service.most_in_flight <= 2
    assert len(service.connections) <= 2


async def test_closing_a_client_leaves_the_pool_open() -> None:
    """A client never closes the pool it shares; closing the pool stops every client of it."""
    service = Keys()
    async with serve_app(service.app()) as url:
        pool = ConnectionPool(4)
        first = RemedyClient(url, token="a", pool=pool)
        second = RemedyClient(url, token="b", pool=pool)
        await first.endpoints.get("ep-1")
        await first.close()
        await second.endpoints.get("ep-2")
        await pool.close()
        assert "closed" in repr(pool)
        with pytest.raises(ClientClosedError, match=r"ConnectionPool.*is closed"):
            await second.endpoints.get("ep-3")
        await second.close()


def test_a_pool_beside_a_session_or_transport_is_refused() -> None:
    """The pool holds the connections: a session, TLS settings or a transport beside it is a
    ConfigurationError before any request."""
    pool = ConnectionPool()
    with pytest.raises(ConfigurationError, match="pool= holds the connections"):
        RemedyClient("https://api.test", pool=pool, ssl_context=object())  # type: ignore[arg-type]
    transport = MockTransport(lambda request: MockResponse.json(200, {}))
    with pytest.raises(ConfigurationError, match="pool="):
        RemedyClient("https://api.test", pool=pool, transport=transport)


@pytest.mark.parametrize("count", [0, -1, True])
def test_a_pool_needs_a_positive_ceiling(count: int) -> None:
    """`max_connections` is an int of at least 1."""
    with pytest.raises((ValueError, TypeError), match="max_connections"):
        ConnectionPool(count)


def test_a_pool_stays_in_the_loop_it_opened_in() -> None:
    """A pool opened in one event loop refuses requests from another, saying why."""
    pool = ConnectionPool()

    async def open_it() -> None:
        pool._transport(None)

    asyncio.run(open_it())
    with pytest.raises(ClientClosedError, match="another event loop"):
        asyncio.run(open_it())
    asyncio.run(pool.close())
