"""A transport of one's own under the client's rate limit (the `Transport` protocol): one that
says `takes_turns = True` is given each request's turn at the wire (`request.turn`) and books it
with its connection in hand; any other is given requests without one, and the client takes
each turn just before calling it. Time is virtual (`ParkedTime`): connections the transport
opens take the virtual seconds the test asks for."""

from __future__ import annotations

import asyncio
import gzip
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from types import SimpleNamespace

import aiohttp
import orjson
import pytest
from multidict import CIMultiDict, CIMultiDictProxy
from yarl import URL

from remedy_async import (
    APITimeoutError,
    MockRequest,
    MockResponse,
    RateLimit,
    RemedyClient,
    RequestOptions,
    ResponseTooLargeError,
    RetryPolicy,
)
from remedy_async._sending._transport import (
    READ_CHUNK,
    PacedConnector,
    StreamedResponse,
    _AiohttpBody,
    read_in_chunks,
)
from remedy_async._wire._http import AttemptTimeout, Request, Response
from tests.fakes import endpoint_record
from tests.loopback import serve_handler
from tests.mock_service import Routes
from tests.sending.parked_time import ParkedTime, most_in_any_window

BASE = "https://api.test"
JSON = CIMultiDictProxy(CIMultiDict({"Content-Type": "application/json"}))


class Body:
    """A body in memory, for `StreamedResponse`."""

    def __init__(self, body: bytes) -> None:
        self.body = body

    async def chunks(self, size: int) -> AsyncIterator[bytes]:
        for start in range(0, len(self.body), size):
            yield self.body[start : start + size]

    async def read(self, limit: int) -> bytes:
        return self.body[:limit]


class Connections:
    """A transport written against the public protocol alone (not MockTransport), as a user
    would: a request that finds no idle connection opens one, which takes `opening[n]` virtual
    seconds; it then takes the request's turn, if it carries one, and stamps the request as
    sent. A path ending in `-moved` answers the endpoint; any other get of an endpoint, with
    `redirect`, sends it on there once."""

    def __init__(
        self,
        time: ParkedTime,
        *,
        takes_turns: bool,
        opening: Sequence[float] = (0.0,),
        redirect: bool = False,
    ) -> None:
        self.takes_turns = takes_turns
        self.time = time
        self.opening = tuple(opening)
        self.redirect = redirect
        self.opened = 0
        self.idle = 0
        self.called: list[float] = []
        """When each request was handed over."""
        self.stamps: list[float] = []
        """When each request went out."""
        self.turns: list[bool] = []
        """Whether each request handed over carried a turn."""

    async def _out(self, request: Request) -> None:
        """Get a connection (opening one takes time), take the turn, and send."""
        self.called.append(self.time.clock())
        self.turns.append(request.turn is not None)
        if self.idle:
            self.idle -= 1
        else:
            delay = self.opening[self.opened % len(self.opening)]
            self.opened += 1
            if delay:
                await self.time.hold(delay)
        try:
            if request.turn is not None:
                await request.turn(request.url)  # the connection in hand, right before sending
        except BaseException:
            self.idle += 1
            raise
        self.stamps.append(self.time.clock())

    def _answer(self, request: Request) -> tuple[int, Mapping[str, str], bytes]:
        self.idle += 1
        name = request.url.name
        if self.redirect and name.startswith("ep-") and not name.endswith("-moved"):
            return 307, {"Location": f"{request.url.path}-moved"}, b""
        if request.url.path.endswith("agent-configuration"):
            return 200, {"Content-Type": "text/plain"}, b"agent: {}\n"
        return 200, JSON, orjson.dumps(endpoint_record(name.removesuffix("-moved")))

    async def send(
        self, request: Request, headers: Mapping[str, str], timeout: AttemptTimeout, max_body: int
    ) -> Response:
        task = asyncio.current_task()
        assert task is not None
        self.time.flying.add(task)
        try:
            await self._out(request)
            status, response_headers, body = self._answer(request)
            return Response(request, status, response_headers, body)
        finally:
            self.time.flying.discard(task)

    @asynccontextmanager
    async def stream(
        self, request: Request, headers: Mapping[str, str], timeout: AttemptTimeout
    ) -> AsyncIterator[StreamedResponse]:
        await self._out(request)
        status, response_headers, body = self._answer(request)
        yield StreamedResponse(request, status, response_headers, Body(body))


def paced(transport: Connections, limit: RateLimit, **settings: object) -> RemedyClient:
    time = transport.time
    return RemedyClient(
        BASE,
        transport=transport,
        rate_limit=limit,
        clock=time.clock,
        sleep=time.sleep,
        **settings,  # type: ignore[arg-type]
    )


async def two_gets_then_25_at_once(transport: Connections) -> None:
    """Two gets (warming a connection), then 25 ids at concurrency 25, all under 10/s."""
    async with paced(transport, RateLimit(10, per=1.0)) as client:
        await client.endpoints.get("warm-1")
        await client.endpoints.get("warm-2")
        ids = [f"ep-{n}" for n in range(25)]
        results = [result async for result in client.endpoints.get_many(ids, concurrency=25)]
    assert all(result.ok for result in results)


async def test_a_transport_that_takes_turns_books_each_with_its_connection_in_hand() -> None:
    """25 ids at concurrency 25 under 10/s, through a transport of one's own whose new
    connections take 0.2-0.8 s to open: every request it is given carries its turn, and taking
    it once the connection is in hand keeps what goes out within 10 in any second (and at 10)."""
    transport = Connections(ParkedTime(), takes_turns=True, opening=(0.5, 0.2, 0.8))
    await two_gets_then_25_at_once(transport)
    assert transport.turns == [True] * 27
    assert 2 < transport.opened < 27, "new connections and warm ones, mixed"
    assert most_in_any_window(transport.stamps, 1.0) == 10


async def test_a_transport_that_ignores_turns_has_the_client_take_them_before_each_call() -> None:
    """The same 27 gets through a transport that does not say it takes turns: it is given no
    turn, and the client takes each one just before calling it, so the calls keep within 10 in
    any second (and reach 10)."""
    transport = Connections(ParkedTime(), takes_turns=False, opening=(0.5, 0.2, 0.8))
    await two_gets_then_25_at_once(transport)
    assert transport.turns == [False] * 27
    assert most_in_any_window(transport.called, 1.0) == 10


@pytest.mark.parametrize("takes_turns", [True, False], ids=["takes-turns", "ignores-turns"])
async def test_every_redirect_hop_through_a_transport_of_ones_own_takes_a_turn(
    takes_turns: bool,
) -> None:
    """4 gets redirected once under 2/s, followed: the transport is given 8 requests, each
    hop's carrying its own turn when the transport takes turns, none otherwise, and they go
    out 2 in any second either way."""
    transport = Connections(ParkedTime(), takes_turns=takes_turns, redirect=True)
    async with paced(transport, RateLimit(2, per=1.0), follow_redirects=True) as client:
        found = await asyncio.gather(*(client.endpoints.get(f"ep-{n}") for n in range(4)))
    assert [endpoint.id for endpoint in found] == [f"ep-{n}" for n in range(4)]
    assert transport.turns == [takes_turns] * 8
    assert len(transport.stamps) == 8
    assert most_in_any_window(transport.stamps, 1.0) == 2


@pytest.mark.parametrize("takes_turns", [True, False], ids=["takes-turns", "ignores-turns"])
async def test_a_download_through_a_transport_of_ones_own_waits_its_turn(
    takes_turns: bool, tmp_path: Path
) -> None:
    """Two downloads under 1 per 10 s through `stream`: the second goes out 10.1 s after the
    first (the window and its margin), whether the transport takes the turn or the client
    takes it for it."""
    time = ParkedTime()
    transport = Connections(time, takes_turns=takes_turns)
    async with paced(transport, RateLimit(1, per=10.0)) as client:
        for name in ("first.conf", "second.conf"):
            await client.download_agent_configuration(tmp_path / name)
    assert transport.turns == [takes_turns] * 2
    first, second = transport.stamps
    assert second - first == pytest.approx(10.1)
    assert (tmp_path / "second.conf").read_bytes() == b"agent: {}\n"


async def test_a_turn_past_the_timeout_fails_in_the_transport_and_nothing_goes_out() -> None:
    """Under 2 per 10 s with a 5 s timeout: two gets whose connections took 4 s to open went
    at 4 s; a third, given its turn at 10.1 s on a warm connection, would have to wait at the
    wire until 14.1 s: the turn raises inside the transport, which sends nothing, and the get
    fails with APITimeoutError naming the rate limit."""
    time = ParkedTime()
    transport = Connections(time, takes_turns=True, opening=(4.0,))
    once = RequestOptions(retry=RetryPolicy(attempts=1))
    async with paced(transport, RateLimit(2, per=10.0), timeout=5.0) as client:
        start = time.clock()
        await asyncio.gather(client.endpoints.get("ep-1"), client.endpoints.get("ep-2"))
        await time.virtual.sleep(2.0)
        with pytest.raises(APITimeoutError, match=r"rate limit .* with its connection in hand"):
            await client.endpoints.get("ep-3", options=once)
    assert [stamp - start for stamp in transport.stamps] == pytest.approx([4.0, 4.0])
    assert transport.turns == [True] * 3
    assert transport.idle == 2, "the connection went back"


# The aiohttp transport gives every connection back ----------------------------------------


async def test_a_refused_body_gives_its_connection_back_for_the_next_request() -> None:
    """A body refused as too large (from Content-Length, or counted while it inflates) frees
    its connection: with one connection in all, the gets after it are answered."""
    big = MockResponse(200, {"Content-Type": "application/json"}, b"x" * 5_000_000)
    bomb = MockResponse(
        200,
        {"Content-Encoding": "gzip", "Content-Type": "application/json"},
        gzip.compress(b'{"id": "' + b"a" * 200_000 + b'"}'),
    )
    answers = {"big": big, "bomb": bomb}

    def answer(request: MockRequest, id: str) -> MockResponse:
        return answers.get(id) or MockResponse.json(200, endpoint_record(id))

    service = Routes({"/v1/endpoints/{id}": answer})
    async with (
        serve_handler(service) as url,
        RemedyClient(url, max_in_flight=1, max_response_bytes=1000) as client,
    ):
        async with asyncio.timeout(10):
            for refused in ("big", "bomb"):
                with pytest.raises(ResponseTooLargeError):
                    await client.endpoints.get(refused)
                assert (await client.endpoints.get("ep-1")).id == "ep-1"


# The aiohttp transport reads in chunks of READ_CHUNK -------------------------------------


async def test_a_new_plain_connection_reads_at_most_read_chunk_bytes_at_a_time() -> None:
    """asyncio's 256 KiB read buffer is set to READ_CHUNK on every connection the connector
    opens, so a small response never costs a buffer the size of a mapping. (The body is
    large so that the connection is still the response's when it is looked at.)"""
    body = b"x" * (4 * READ_CHUNK)
    service = Routes({"/v1/endpoints/{id}": lambda request, id: MockResponse(200, {}, body)})
    async with (
        serve_handler(service) as url,
        aiohttp.ClientSession(connector=PacedConnector()) as session,
        session.get(f"{url}/v1/endpoints/ep-1") as response,
    ):
        assert response.connection is not None
        assert getattr(response.connection.transport, "max_size", None) == READ_CHUNK
        assert await response.read() == body


async def test_a_body_larger_than_a_read_chunk_arrives_whole() -> None:
    """A body of several chunks is read in full, byte for byte."""
    title = "t" * (3 * READ_CHUNK + 17)

    def answer(request: MockRequest, id: str) -> MockResponse:
        return MockResponse.json(200, endpoint_record(id) | {"title": title})

    async with (
        serve_handler(Routes({"/v1/endpoints/{id}": answer})) as url,
        RemedyClient(url) as client,
    ):
        endpoint = await client.endpoints.get("ep-1")
    assert endpoint.extra["title"] == title


def test_a_transport_without_a_read_size_keeps_its_own() -> None:
    """A transport that has no asyncio read size (a TLS connection's, uvloop's) is left as
    it is, without an error."""

    class SlottedTransport(asyncio.BaseTransport):
        __slots__ = ()

    read_in_chunks(SlottedTransport())
    read_in_chunks(None)


async def test_an_error_body_is_read_to_its_limit_when_it_arrives_in_pieces() -> None:
    """A streamed body that comes a few bytes at a time is read on to the limit asked (or
    its end), not cut where the first piece stops."""

    class Trickle:
        def __init__(self, body: bytes) -> None:
            self.left = body

        async def read(self, n: int) -> bytes:
            part, self.left = self.left[: min(n, 10)], self.left[min(n, 10) :]
            return part

    def body_of(data: bytes) -> _AiohttpBody:
        response = SimpleNamespace(content=Trickle(data))
        return _AiohttpBody(Request("GET", URL("http://x.test/")), response)  # type: ignore[arg-type]

    assert await body_of(b"E" * 95).read(42) == b"E" * 42
    assert await body_of(b"short").read(42) == b"short"
    assert await body_of(b"").read(42) == b""
