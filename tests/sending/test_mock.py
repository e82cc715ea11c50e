"""MockTransport and RemedyClient(transport=...): no socket, everything above the transport as
usual (retries, the gate, redirects, status errors, events, redaction, paging, downloads)."""

from __future__ import annotations

import asyncio
import io
import time
from collections.abc import Callable
from email.utils import formatdate
from pathlib import Path

import pytest
from yarl import URL

from remedy_async import (
    APIConnectionError,
    APITimeoutError,
    ClientEvent,
    ConfigurationError,
    MockRequest,
    MockResponse,
    MockTransport,
    NotFoundError,
    RemedyClient,
    ResponseTooLargeError,
    RetryPolicy,
    ServerError,
    Transport,
)
from remedy_async._sending import _transport
from tests.fakes import FakeTime, endpoint_record, page, scope_record

pytestmark = pytest.mark.usefixtures("library_logging")

BASE = "https://api.furl.ai"
TOKEN = "canary-token-7f3e9a"
FAKE_START = FakeTime().now

Handler = Callable[[MockRequest], MockResponse]


def mocked(handler: Handler, clock: FakeTime | None = None, **settings: object) -> RemedyClient:
    """A client whose requests go to `handler`, waiting on `clock` (a fresh FakeTime)."""
    clock = clock or FakeTime()
    return RemedyClient(
        BASE,
        token=TOKEN,
        transport=MockTransport(handler),
        clock=clock.clock,
        sleep=clock.sleep,
        **settings,  # type: ignore[arg-type]
    )


def scripted(*answers: MockResponse | BaseException) -> tuple[Handler, list[MockRequest]]:
    """A handler answering the given responses in turn (raising the exceptions); and what it saw."""
    seen: list[MockRequest] = []
    remaining = list(answers)

    def handler(request: MockRequest) -> MockResponse:
        seen.append(request)
        answer = remaining.pop(0)
        if isinstance(answer, BaseException):
            raise answer
        return answer

    return handler, seen


def record(id_: str = "ep-1") -> MockResponse:
    return MockResponse.json(200, endpoint_record(id_))


async def test_the_handler_sees_method_url_query_and_headers() -> None:
    """A handler reads the request's method, path, decoded query and every header sent."""
    handler, seen = scripted(MockResponse.json(200, page([])))
    async with mocked(handler) as client:
        await client.endpoints.list(os_family="macos", extra_params={"site": "a b"}).collect()
    (request,) = seen
    assert (request.method, request.path) == ("GET", "/v1/endpoints")
    assert (request.query["osFamily"], request.query["site"], request.query["limit"]) == (
        "macos",
        "a b",
        "100",
    )
    assert request.url.origin() == URL(BASE)
    assert request.headers["authorization"] == f"Bearer {TOKEN}"


async def test_a_json_answer_becomes_a_record() -> None:
    """MockResponse.json's body is decoded and structured like a service's."""
    handler, _ = scripted(MockResponse.json(200, endpoint_record("ep-1", hostname="web-1")))
    async with mocked(handler) as client:
        endpoint = await client.endpoints.get("ep-1")
    assert (endpoint.id, endpoint.hostname) == ("ep-1", "web-1")


async def test_an_async_handler_is_awaited() -> None:
    """A coroutine function works as a handler."""

    async def handler(request: MockRequest) -> MockResponse:
        await asyncio.sleep(0)
        return record(request.path.rsplit("/", 1)[1])

    async with RemedyClient(BASE, transport=MockTransport(handler)) as client:
        assert (await client.endpoints.get("ep-9")).id == "ep-9"


async def test_no_session_is_opened(monkeypatch: pytest.MonkeyPatch) -> None:
    """With a transport the client opens no aiohttp session at all."""

    def no_session(**_: object) -> None:
        raise AssertionError("an aiohttp session was opened")

    monkeypatch.setattr(_transport.aiohttp, "ClientSession", no_session)
    handler, _ = scripted(record())
    async with mocked(handler) as client:
        await client.endpoints.get("ep-1")


def test_session_and_transport_together_are_refused() -> None:
    """session= and transport= both say how requests go out: a ConfigurationError names it."""
    handler, _ = scripted()
    with pytest.raises(ConfigurationError, match="session="):
        RemedyClient(BASE, session=object(), transport=MockTransport(handler))  # type: ignore[arg-type]


def test_proxy_settings_beside_a_transport_are_refused() -> None:
    """A proxy (or TLS context) cannot apply to a transport that sends requests itself."""
    handler, _ = scripted()
    with pytest.raises(ConfigurationError, match=r"proxy=.*cannot apply"):
        RemedyClient(BASE, proxy="http://127.0.0.1:3128", transport=MockTransport(handler))


def test_mock_transport_is_a_transport() -> None:
    """MockTransport satisfies the Transport protocol the client takes."""
    handler, _ = scripted()
    transport: Transport = MockTransport(handler)
    assert "handler" in repr(transport)


async def test_a_5xx_is_retried_on_the_injected_clock() -> None:
    """A 503 then a 200: the retry waits on the client's clock, not for real."""
    clock = FakeTime()
    handler, seen = scripted(MockResponse.json(503, {}), record())
    async with mocked(handler, clock) as client:
        assert (await client.endpoints.get("ep-1")).id == "ep-1"
    assert len(seen) == 2
    assert len(clock.waits) == 1


async def test_a_429_pauses_for_its_retry_after() -> None:
    """A 429 with Retry-After: 7 makes the client wait 7 s (on its clock) before trying again."""
    clock = FakeTime()
    handler, _ = scripted(MockResponse.json(429, {}, headers={"Retry-After": "7"}), record())
    async with mocked(handler, clock) as client:
        await client.endpoints.get("ep-1")
    assert max(clock.waits) >= 7


async def test_a_retry_after_date_is_read_on_the_injected_clock() -> None:
    """A Retry-After date 10 s ahead of a server on the client's fake clock is a 10 s wait,
    however far that clock has moved from the real time."""
    clock = FakeTime()
    real_start = time.time()
    answered: list[MockRequest] = []

    def handler(request: MockRequest) -> MockResponse:
        answered.append(request)
        if len(answered) > 1:
            return record()
        clock.now += 30  # the fake clock moves on; the real time hardly does
        date = formatdate(real_start + clock.now - FAKE_START + 10, usegmt=True)
        return MockResponse.json(429, {}, headers={"Retry-After": date})

    async with mocked(handler, clock) as client:
        await client.endpoints.get("ep-1")
    assert 8.5 < clock.waits[0] <= 10


async def test_an_exhausted_budget_pauses_the_next_request() -> None:
    """X-RateLimit-Remaining: 0 with a reset 4 s away holds the next request for 4 s."""
    clock = FakeTime()
    spent = {"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": "4"}
    handler, _ = scripted(MockResponse.json(200, endpoint_record("a"), headers=spent), record("b"))
    async with mocked(handler, clock) as client:
        await client.endpoints.get("a")
        await client.endpoints.get("b")
    assert clock.waits == [4.0]


async def test_the_statuses_become_typed_errors() -> None:
    """A 404 answer raises NotFoundError carrying the status; a 500 after retries ServerError."""
    handler, _ = scripted(MockResponse.json(404, {"error": "Endpoint not found."}))
    async with mocked(handler) as client:
        with pytest.raises(NotFoundError, match=r"Endpoint not found\."):
            await client.endpoints.get("ep-1")
    handler, seen = scripted(*[MockResponse.text(500, "down")] * 3)
    async with mocked(handler) as client:
        with pytest.raises(ServerError):
            await client.endpoints.get("ep-1")
    assert len(seen) == 3


async def test_a_connection_error_is_retried_as_one() -> None:
    """A handler raising ConnectionResetError is a lost connection: retried, then answered."""
    clock = FakeTime()
    handler, seen = scripted(ConnectionResetError("peer reset"), record())
    async with mocked(handler, clock) as client:
        await client.endpoints.get("ep-1")
    assert len(seen) == 2


async def test_a_connection_error_that_lasts_is_api_connection_error() -> None:
    """Every attempt failing to connect ends in APIConnectionError with the attempts made."""
    handler, _ = scripted(*[ConnectionRefusedError("refused")] * 3)
    async with mocked(handler) as client:
        with pytest.raises(APIConnectionError, match="refused") as caught:
            await client.endpoints.get("ep-1")
    assert caught.value.attempts == 3


async def test_a_timeout_error_is_api_timeout_error() -> None:
    """A handler raising TimeoutError stands for a timed-out attempt."""
    handler, _ = scripted(TimeoutError())
    async with mocked(handler, retry=RetryPolicy(attempts=1)) as client:
        with pytest.raises(APITimeoutError):
            await client.endpoints.get("ep-1")


async def test_an_async_handler_past_the_timeout_is_cancelled() -> None:
    """An async handler still running when the attempt's timeout ends is APITimeoutError."""

    async def hangs(request: MockRequest) -> MockResponse:
        await asyncio.Event().wait()
        raise AssertionError("not reached")

    client = RemedyClient(
        BASE, transport=MockTransport(hangs), timeout=0.01, retry=RetryPolicy(attempts=1)
    )
    async with client:
        with pytest.raises(APITimeoutError):
            await client.endpoints.get("ep-1")


async def test_a_body_over_the_limit_is_refused() -> None:
    """A body over max_response_bytes raises ResponseTooLargeError, as from the network."""
    handler, _ = scripted(MockResponse(200, {"Content-Type": "application/json"}, b"1" * 2000))
    async with mocked(handler, max_response_bytes=1000) as client:
        with pytest.raises(ResponseTooLargeError, match="1000"):
            await client.endpoints.get("ep-1")


async def test_a_handler_must_return_a_mock_response() -> None:
    """Returning anything else is a TypeError naming what was returned."""
    handler, _ = scripted(endpoint_record("ep-1"))  # type: ignore[arg-type]
    async with mocked(handler) as client:
        with pytest.raises(TypeError, match="must return a MockResponse"):
            await client.endpoints.get("ep-1")


async def test_paging_is_detected_from_mock_answers() -> None:
    """The published envelope is followed by its offsets, and a cursor envelope (a service
    drifting from it) is detected and followed, across mock pages."""
    records = [endpoint_record(name) for name in "abc"]

    def published(request: MockRequest) -> MockResponse:
        offset = int(request.query.get("offset", "0"))
        return MockResponse.json(200, page(records[offset : offset + 2], 3, offset, 2))

    async with RemedyClient(BASE, transport=MockTransport(published)) as client:
        assert [e.id async for e in client.endpoints.list(page_size=2)] == ["a", "b", "c"]

    pages = {
        None: {"items": records[:2], "nextCursor": "c2"},
        "c2": {"items": records[2:], "nextCursor": None},
    }

    def drifted(request: MockRequest) -> MockResponse:
        return MockResponse.json(200, pages[request.query.get("cursor")])

    async with RemedyClient(BASE, transport=MockTransport(drifted)) as client:
        assert [e.id async for e in client.endpoints.list()] == ["a", "b", "c"]


async def test_link_headers_are_followed() -> None:
    """Headers given as pairs reach the client: a Link rel=next pages a bare array."""

    def handler(request: MockRequest) -> MockResponse:
        if request.query.get("page") == "2":
            return MockResponse.json(200, [scope_record("b")])
        link = ("Link", f'<{BASE}/v1/scopes?page=2>; rel="next"')
        return MockResponse.json(200, [scope_record("a")], headers=[link])

    async with RemedyClient(BASE, transport=MockTransport(handler)) as client:
        assert [s.id async for s in client.scopes.list()] == ["a", "b"]


async def test_redirects_are_followed_when_enabled() -> None:
    """A 307 to another path of the origin is followed by the client, through the handler."""
    moved = MockResponse(307, {"Location": f"{BASE}/v1/endpoints/ep-2"})
    handler, seen = scripted(moved, record("ep-2"))
    async with mocked(handler, follow_redirects=True) as client:
        assert (await client.endpoints.get("ep-1")).id == "ep-2"
    assert [request.path for request in seen] == ["/v1/endpoints/ep-1", "/v1/endpoints/ep-2"]


async def test_events_see_each_mock_exchange() -> None:
    """Event hooks get the request and response of an exchange with the handler."""
    events: list[ClientEvent] = []
    handler, _ = scripted(record())
    async with mocked(handler, event_hooks=[events.append]) as client:
        await client.endpoints.get("ep-1")
    exchange = [event for event in events if event.kind in {"request", "response"}]
    assert [(event.kind, event.status) for event in exchange] == [
        ("request", None),
        ("response", 200),
    ]


async def test_an_echoed_token_is_redacted() -> None:
    """A handler echoing the credential into an error body does not put it in the error."""
    body = {"error": f"Endpoint not found for {TOKEN}."}
    handler, _ = scripted(MockResponse.json(404, body))
    async with mocked(handler) as client:
        with pytest.raises(NotFoundError) as caught:
            await client.endpoints.get("ep-1")
    assert TOKEN not in str(caught.value)


async def test_a_download_streams_through_the_mock() -> None:
    """The agent configuration downloads from a mock answer, in chunks, bytes intact."""
    payload = bytes(range(256)) * 1000
    handler, _ = scripted(MockResponse(200, {"Content-Type": "application/octet-stream"}, payload))
    target = io.BytesIO()
    async with mocked(handler) as client:
        result = await client.download_agent_configuration(target)
    assert (result.bytes_written, target.getvalue()) == (len(payload), payload)


async def test_a_rate_limited_download_is_retried(tmp_path: Path) -> None:
    """A 429 to a download to a path is retried after its pause; the answer then downloads."""
    clock = FakeTime()
    limited = MockResponse.json(429, {}, headers={"Retry-After": "3"})
    handler, _ = scripted(limited, MockResponse(200, body=b"conf"))
    async with mocked(handler, clock) as client:
        await client.download_agent_configuration(tmp_path / "agent.conf")
    assert (tmp_path / "agent.conf").read_bytes() == b"conf"
    assert max(clock.waits) >= 3


async def test_a_download_error_status_is_typed() -> None:
    """A 404 to a download raises NotFoundError with the service's explanation."""
    handler, _ = scripted(MockResponse.json(404, {"error": "none"}))
    async with mocked(handler) as client:
        with pytest.raises(NotFoundError, match="none"):
            await client.download_agent_configuration(io.BytesIO())


def test_json_answers_are_labelled_and_keep_given_headers() -> None:
    """MockResponse.json sets Content-Type and keeps the headers given, case-insensitively."""
    answer = MockResponse.json(201, {"a": 1}, headers={"x-request-id": "r1"})
    assert (answer.status, answer.body) == (201, b'{"a":1}')
    assert answer.headers["content-type"] == "application/json"
    assert answer.headers["X-Request-Id"] == "r1"


async def test_a_json_answer_can_echo_the_request_headers() -> None:
    """MockResponse.json writes a request's header names (`istr`, not plain `str`) as strings,
    so a handler can answer with the headers it was sent."""

    def echo(request: MockRequest) -> MockResponse:
        return MockResponse.json(200, dict(request.headers))

    async with RemedyClient(
        base_url="https://remedy.test", token="t0k3n", transport=MockTransport(echo)
    ) as client:
        sent = await client.get_json("/v1/health")
    assert sent.body["Authorization"] == "Bearer t0k3n"


def test_json_answers_write_keys_that_are_not_strings_as_strings() -> None:
    """Number keys are written as strings, as `json.dumps` writes them."""
    assert MockResponse.json(200, {1: "a"}).body == b'{"1":"a"}'


def test_text_answers_are_utf8() -> None:
    """MockResponse.text encodes UTF-8 and says so."""
    answer = MockResponse.text(503, "indisponible é")
    assert answer.body == "indisponible é".encode()
    assert answer.headers["Content-Type"] == "text/plain; charset=utf-8"
