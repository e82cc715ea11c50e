"""The send loop over loopback: retries, hints, deadlines, the gate, caps, redirects, events."""

from __future__ import annotations

import asyncio
import gzip
import logging

import aiohttp
import pytest
from aiohttp import web
from multidict import CIMultiDict, CIMultiDictProxy
from yarl import URL

from remedy_async import (
    APIConnectionError,
    APIStatusError,
    ClientEvent,
    ConfigurationError,
    DecodeError,
    MockRequest,
    MockResponse,
    NotFoundError,
    RateLimitError,
    RemedyClient,
    RequestOptions,
    ResponseTooLargeError,
    RetryPolicy,
    ServerError,
)
from remedy_async._sending._sender import MAX_REDIRECTS
from remedy_async._sending._transport import TLS_FAILURES, safe_cause
from tests.fakes import FakeTime, endpoint_body, endpoint_record
from tests.loopback import ScriptedServer, Serve, http_response, serve_handler
from tests.mock_service import Route, Routes

pytestmark = pytest.mark.usefixtures("library_logging")

TOKEN = "canary-token-7f3e9a"
RECORD = endpoint_body("ep-1")


def client_for(url: str, time: FakeTime, **settings: object) -> RemedyClient:
    return RemedyClient(url, clock=time.clock, sleep=time.sleep, **settings)  # type: ignore[arg-type]


def ok() -> bytes:
    return http_response(200, RECORD, headers={"Content-Type": "application/json"})


def status(code: int, **headers: str) -> bytes:
    return http_response(
        code,
        b'{"error": "y"}',
        headers={"Content-Type": "application/json", **headers},
    )


async def test_transient_503s_are_retried_until_success() -> None:
    """Two 503s then a 200 succeed on the third attempt, after two backoff waits."""
    time = FakeTime()
    async with (
        ScriptedServer([status(503), status(503), ok()]) as server,
        client_for(server.url, time) as client,
    ):
        assert (await client.endpoints.get("ep-1")).id == "ep-1"
    assert len(server.requests) == 3
    assert len(time.waits) == 2
    assert 0 <= time.waits[0] <= 0.5
    assert 0 <= time.waits[1] <= 1.0


async def test_persistent_503_fails_after_the_configured_attempts() -> None:
    """A 503 on every attempt ends in ServerError recording exactly `attempts` attempts."""
    time = FakeTime()
    async with (
        ScriptedServer([status(503)] * 5) as server,
        client_for(server.url, time, retry=RetryPolicy(attempts=4)) as client,
    ):
        with pytest.raises(ServerError) as caught:
            await client.endpoints.get("ep-1")
    assert caught.value.attempts == 4
    assert len(server.requests) == 4


@pytest.mark.parametrize("code", [400, 401, 403, 404, 409, 422])
async def test_client_errors_are_not_retried(code: int) -> None:
    """4xx other than 408 and 429 fail on the first attempt."""
    time = FakeTime()
    async with (
        ScriptedServer([status(code), ok()]) as server,
        client_for(server.url, time) as client,
    ):
        with pytest.raises(APIStatusError) as caught:
            await client.endpoints.get("ep-1")
    assert caught.value.attempts == 1
    assert len(server.requests) == 1


async def test_invalid_json_in_a_complete_body_is_not_retried() -> None:
    """A whole 200 body that is not JSON raises DecodeError without a retry."""
    time = FakeTime()
    broken = http_response(200, b'{"id": "ep', headers={"Content-Type": "application/json"})
    async with ScriptedServer([broken, ok()]) as server, client_for(server.url, time) as client:
        with pytest.raises(DecodeError):
            await client.endpoints.get("ep-1")
    assert len(server.requests) == 1


async def test_truncated_body_and_reset_are_retried() -> None:
    """A body cut short and a connection closed without an answer are both retried."""
    time = FakeTime()
    cut = http_response(200, RECORD[:5], content_length=len(RECORD))
    policy = RetryPolicy(attempts=4)
    async with (
        ScriptedServer([cut, b"", ok()]) as server,
        client_for(server.url, time, retry=policy) as client,
    ):
        assert (await client.endpoints.get("ep-1")).id == "ep-1"
    # aiohttp may itself resend an idempotent request once after a dropped connection, so the
    # server's count is the reliable one.
    assert len(server.requests) == 3
    assert time.waits


@pytest.mark.parametrize(
    ("headers", "at_least"),
    [({"Retry-After": "7"}, 7.0), ({"retry-after-ms": "2500", "Retry-After": "30"}, 2.5)],
)
async def test_retry_after_hints_are_honoured(headers: dict[str, str], at_least: float) -> None:
    """The wait before a retry is at least the service's hint (retry-after-ms first)."""
    time = FakeTime()
    async with (
        ScriptedServer([status(429, **headers), ok()]) as server,
        client_for(server.url, time) as client,
    ):
        await client.endpoints.get("ep-1")
    assert time.waits
    assert time.waits[0] >= at_least
    assert time.waits[0] < at_least + 0.5 or "retry-after-ms" not in headers


async def test_hint_over_the_cap_raises_at_once() -> None:
    """A Retry-After above max_retry_after raises RateLimitError with retry_after, no retry."""
    time = FakeTime()
    async with (
        ScriptedServer([status(429, **{"Retry-After": "3600"}), ok()]) as server,
        client_for(server.url, time) as client,
    ):
        with pytest.raises(RateLimitError) as caught:
            await client.endpoints.get("ep-1")
    assert caught.value.retry_after == 3600
    assert caught.value.attempts == 1
    assert time.waits == []


@pytest.mark.parametrize("hint", ["soon", "-5", "nan", "inf"])
async def test_unusable_hint_falls_back_to_backoff(hint: str) -> None:
    """A garbage, negative or non-finite Retry-After is ignored in favour of backoff."""
    time = FakeTime()
    async with (
        ScriptedServer([status(503, **{"Retry-After": hint}), ok()]) as server,
        client_for(server.url, time) as client,
    ):
        await client.endpoints.get("ep-1")
    assert len(time.waits) == 1
    assert 0 <= time.waits[0] <= 0.5


async def test_deadline_stops_retries_before_a_wait_would_pass_it() -> None:
    """With a 10 s deadline and 8 s hints, the client waits once, then gives up."""
    time = FakeTime()
    policy = RetryPolicy(attempts=10, deadline=10)
    async with (
        ScriptedServer([status(503, **{"Retry-After": "8"})] * 5) as server,
        client_for(server.url, time, retry=policy) as client,
    ):
        with pytest.raises(ServerError) as caught:
            await client.endpoints.get("ep-1")
    assert sum(time.waits) <= 10
    assert caught.value.attempts == 2


def too_many(retry_after: str) -> MockResponse:
    return MockResponse.json(
        429, {"error": "Too many requests."}, headers={"Retry-After": retry_after}
    )


async def test_a_429_pauses_every_other_request_of_the_client() -> None:
    """After one request gets 429 with Retry-After, the next request waits the pause first."""
    time = FakeTime()

    def limited(request: MockRequest, id: str) -> MockResponse:
        first = len(service.requests) == 1
        return too_many("5") if first else MockResponse.json(200, endpoint_record(id))

    service = Routes({"/v1/endpoints/{id}": limited})
    events: list[ClientEvent] = []
    async with (
        serve_handler(service) as url,
        client_for(url, time, retry=RetryPolicy(attempts=1), event_hooks=[events.append]) as client,
    ):
        with pytest.raises(RateLimitError):
            await client.endpoints.get("a")
        assert (await client.endpoints.get("b")).id == "b"
    assert time.waits == [5.0]
    assert [e.kind for e in events if e.kind == "wait"] == ["wait"]


async def test_exhausted_rate_limit_budget_pauses_until_reset() -> None:
    """A response with X-RateLimit-Remaining: 0 and a reset in 3 s holds the next request 3 s."""
    time = FakeTime()
    spent = {"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": "3"}
    service = Routes(
        {
            "/v1/endpoints/{id}": lambda request, id: MockResponse.json(
                200, endpoint_record(id), headers=spent
            )
        }
    )
    async with serve_handler(service) as url, client_for(url, time) as client:
        await client.endpoints.get("a")
        await client.endpoints.get("b")
    assert time.waits == [3.0]
    assert [request.path for request in service.requests] == ["/v1/endpoints/a", "/v1/endpoints/b"]


async def test_max_in_flight_caps_concurrent_requests(serve: Serve) -> None:
    """However many tasks call at once, at most max_in_flight requests are on the wire."""
    in_flight = 0
    peak = 0
    release = asyncio.Event()
    arrived = asyncio.Condition()

    # An aiohttp handler: each answer is held back until released, the peak counted at the wire.
    async def held(request: web.Request) -> web.Response:
        nonlocal in_flight, peak
        in_flight += 1
        peak = max(peak, in_flight)
        async with arrived:
            arrived.notify_all()
        await asyncio.wait_for(release.wait(), 10)
        in_flight -= 1
        return web.json_response(endpoint_record(request.match_info["id"]))

    url = await serve({"/v1/endpoints/{id}": held})
    async with RemedyClient(url, max_in_flight=3) as client:
        calls = asyncio.gather(*(client.endpoints.get(f"e{i}") for i in range(12)))
        try:
            async with arrived:
                await asyncio.wait_for(arrived.wait_for(lambda: in_flight >= 3), 10)
            for _ in range(20):
                await asyncio.sleep(0)
        finally:
            release.set()
        assert len(await calls) == 12
    assert peak == 3


async def test_body_over_the_cap_is_refused_from_content_length() -> None:
    """A Content-Length above max_response_bytes raises ResponseTooLargeError, not retried."""
    big = http_response(200, b"x" * 5000, headers={"Content-Type": "application/json"})
    async with (
        ScriptedServer([big, ok()]) as server,
        RemedyClient(server.url, max_response_bytes=1000) as client,
    ):
        with pytest.raises(ResponseTooLargeError, match="Content-Length 5000"):
            await client.endpoints.get("ep-1")
    assert len(server.requests) == 1


async def test_decompressed_body_over_the_cap_is_refused() -> None:
    """A small gzip body that inflates past max_response_bytes is refused while reading (over
    loopback: aiohttp's own decoder inflates it)."""
    body = gzip.compress(b'{"id": "' + b"a" * 200_000 + b'"}')
    bomb = MockResponse(200, {"Content-Encoding": "gzip", "Content-Type": "application/json"}, body)
    service = Routes({"/v1/endpoints/{id}": lambda request, id: bomb})
    async with (
        serve_handler(service) as url,
        RemedyClient(url, max_response_bytes=50_000) as client,
    ):
        with pytest.raises(ResponseTooLargeError, match="decoded"):
            await client.endpoints.get("ep-1")


def redirect_to(location: str) -> Route:
    """A route answering 302 to `location`."""
    return lambda request, **segments: MockResponse(302, {"Location": location})


def headers_echo(request: MockRequest, **segments: str) -> MockResponse:
    """A route answering an endpoint whose `headers` are the ones the request arrived with."""
    record = endpoint_record("ep-1", hostname="echo", headers=dict(request.headers))
    return MockResponse.json(200, record)


async def test_redirects_are_not_followed_by_default() -> None:
    """A 302 raises APIStatusError naming the Location, and nothing else is requested."""
    service = Routes({"/v1/endpoints/{id}": redirect_to("/elsewhere")})
    async with serve_handler(service) as url, RemedyClient(url) as client:
        with pytest.raises(APIStatusError, match="redirect to /elsewhere not followed"):
            await client.endpoints.get("ep-1")
    assert [request.path for request in service.requests] == ["/v1/endpoints/ep-1"]


async def test_same_origin_redirect_keeps_credentials() -> None:
    """With follow_redirects, a same-origin redirect is followed with the token."""
    service = Routes(
        {"/v1/endpoints/{id}": redirect_to("/moved/ep-1"), "/moved/{id}": headers_echo}
    )
    async with (
        serve_handler(service) as url,
        RemedyClient(url, token=TOKEN, follow_redirects=True) as client,
    ):
        headers = (await client.endpoints.get("ep-1")).extra["headers"]
    assert headers["Authorization"] == f"Bearer {TOKEN}"


async def test_endless_redirects_stop_at_the_limit_with_a_status_error() -> None:
    """A redirect loop is followed MAX_REDIRECTS times; the last redirect is the answer."""

    def loop(request: MockRequest, id: str) -> MockResponse:
        hops = len(service.requests)
        return MockResponse(302, {"Location": f"/v1/endpoints/ep-{hops}"})

    service = Routes({"/v1/endpoints/{id}": loop})
    async with serve_handler(service) as url, RemedyClient(url, follow_redirects=True) as client:
        with pytest.raises(APIStatusError) as caught:
            await client.endpoints.get("ep-0")
    assert caught.value.status == 302
    assert len(service.requests) == MAX_REDIRECTS + 1


@pytest.mark.parametrize(
    ("auth_header", "auth_scheme"), [("Authorization", "Bearer"), ("X-API-Key", None)]
)
async def test_cross_origin_redirect_drops_credentials(
    auth_header: str, auth_scheme: str | None
) -> None:
    """A redirect to another origin is followed without the credential header, whatever its name."""
    async with (
        serve_handler(Routes({"/landing/{id}": headers_echo})) as other,
        serve_handler(Routes({"/v1/endpoints/{id}": redirect_to(f"{other}/landing/ep-1")})) as url,
        RemedyClient(
            url,
            token=TOKEN,
            auth_header=auth_header,
            auth_scheme=auth_scheme,
            follow_redirects=True,
        ) as client,
    ):
        headers = (await client.endpoints.get("ep-1")).extra["headers"]
    assert auth_header not in headers
    assert TOKEN not in str(headers)


@pytest.mark.parametrize("url", ["http://api.example.com", "http://10.0.0.5:8080"])
def test_plain_http_to_another_host_is_refused(url: str) -> None:
    """http:// to a non-loopback host raises ConfigurationError unless explicitly allowed."""
    with pytest.raises(ConfigurationError, match="unencrypted"):
        RemedyClient(url)
    RemedyClient(url, allow_insecure_http=True)


@pytest.mark.parametrize("url", ["http://localhost:8080", "http://127.0.0.1", "http://[::1]:9000"])
def test_plain_http_to_loopback_is_allowed(url: str) -> None:
    """http:// to loopback addresses is accepted (tests, local simulators)."""
    RemedyClient(url)


async def test_debug_log_records_requests_and_redacts_the_token(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """At DEBUG the client logs request and response events, with the credential redacted."""
    with caplog.at_level(logging.DEBUG, logger="remedy_async"):
        async with (
            serve_handler(Routes({"/v1/endpoints/{id}": headers_echo})) as url,
            RemedyClient(url, token=TOKEN) as client,
        ):
            await client.endpoints.get("ep-1")
    messages = [record.getMessage() for record in caplog.records if record.name == "remedy_async"]
    assert any(m.startswith("request GET") for m in messages)
    assert any(m.startswith("response GET") and "status=200" in m for m in messages)
    assert any("[REDACTED]" in m for m in messages)
    assert all(TOKEN not in m for m in messages)


async def test_event_hooks_see_retries_and_a_failing_hook_is_contained(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Hooks receive a call's request, response and retry events framed by its call and end
    events; a hook that raises is only logged."""
    time = FakeTime()
    events: list[ClientEvent] = []

    def broken(event: ClientEvent) -> None:
        raise RuntimeError("metrics down")

    async with (
        ScriptedServer([status(503), ok()]) as server,
        client_for(server.url, time, event_hooks=[events.append, broken]) as client,
    ):
        await client.endpoints.get("ep-1")
    assert [e.kind for e in events] == [
        "call", "request", "response", "retry", "request", "response", "end"
    ]  # fmt: skip
    assert events[3].status == 503
    assert events[3].wait == time.waits[0]
    assert events[0].operation == "endpoints.get"
    assert events[-1].error is None
    assert "event hook" in caplog.text


async def test_trace_configs_reach_the_session() -> None:
    """aiohttp trace configs given to the client see its requests."""
    started: list[str] = []

    async def on_start(
        session: object, context: object, params: aiohttp.TraceRequestStartParams
    ) -> None:
        started.append(str(params.url))

    trace = aiohttp.TraceConfig()
    trace.on_request_start.append(on_start)
    async with (
        serve_handler(Routes({"/v1/endpoints/{id}": headers_echo})) as url,
        RemedyClient(url, trace_configs=[trace]) as client,
    ):
        await client.endpoints.get("ep-1")
    assert started == [f"{url}/v1/endpoints/ep-1"]


async def test_connection_errors_after_retries_record_attempts() -> None:
    """A server that always drops the connection fails with APIConnectionError after 3 attempts."""
    time = FakeTime()
    async with ScriptedServer([b""] * 10) as server, client_for(server.url, time) as client:
        with pytest.raises(APIConnectionError) as caught:
            await client.endpoints.get("ep-1")
    assert caught.value.attempts == 3
    assert isinstance(caught.value.__cause__, aiohttp.ClientError)


async def test_not_found_is_final() -> None:
    """A 404 is raised on the first attempt."""
    missing = MockResponse.json(404, {"error": "Endpoint not found."})
    service = Routes({"/v1/endpoints/{id}": lambda request, id: missing})
    async with serve_handler(service) as url, RemedyClient(url) as client:
        with pytest.raises(NotFoundError) as caught:
            await client.endpoints.get("x")
    assert caught.value.attempts == 1
    assert len(service.requests) == 1


async def test_a_pause_past_the_deadline_fails_without_sending() -> None:
    """When the client-wide pause outlasts a call's deadline, the call fails before sending."""
    time = FakeTime()
    service = Routes({"/v1/endpoints/{id}": lambda request, id: too_many("30")})
    async with (
        serve_handler(service) as url,
        client_for(url, time, retry=RetryPolicy(attempts=1)) as client,
    ):
        with pytest.raises(RateLimitError):
            await client.endpoints.get("a")
        short = RequestOptions(retry=RetryPolicy(deadline=10))
        with pytest.raises(
            RateLimitError, match="longer than this attempt's timeout, the call's deadline"
        ) as caught:
            await client.endpoints.get("b", options=short)
    assert len(service.requests) == 1
    assert caught.value.retry_after == 30
    assert caught.value.attempts == 0
    assert time.waits == []


def test_a_chained_aiohttp_error_never_shows_the_credential_header() -> None:
    """An aiohttp error carrying request headers is chained without them."""
    info = aiohttp.RequestInfo(
        URL("https://h/x"),
        "GET",
        CIMultiDictProxy(CIMultiDict({"Authorization": "Bearer canary-secret"})),
        URL("https://h/x"),
    )
    failure = aiohttp.ClientResponseError(info, (), status=502, message="Bad Gateway")
    assert "canary-secret" in repr(failure)
    cause = safe_cause(failure)
    assert "canary-secret" not in repr(cause) + str(cause)
    assert "502 Bad Gateway" in str(cause)
    plain = aiohttp.ServerDisconnectedError()
    assert safe_cause(plain) is plain
    assert not isinstance(cause, TLS_FAILURES)
