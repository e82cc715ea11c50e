"""Raw responses: `with_raw_response` on a collection's get, `health()` and `get_json()`.

The response a call got (status, headers, request id, elapsed, URL) and the value the plain
call returns, from `parse()`; what is about the wire (a rate limit's headers, an echoed token
in a redirect) against the simulator, the rest on a MockTransport.
"""

from __future__ import annotations

import pytest

from remedy_async import (
    ClientEvent,
    DecodeError,
    Endpoint,
    HealthStatus,
    JSONResponse,
    MockRequest,
    MockResponse,
    MockTransport,
    NotFoundError,
    RawResponse,
    RemedyClient,
    RequestOptions,
    RetryPolicy,
)
from remedy_async.simulator import Simulator, SimulatorConfig
from tests.fakes import ENDPOINT_ID, FakeTime, endpoint_record
from tests.loopback import CANARY
from tests.mock_service import Routes, Script

HEADERS = {"X-Request-Id": "req-7", "X-RateLimit-Remaining": "41", "ETag": '"v3"'}


def endpoint(request: MockRequest, id: str) -> MockResponse:
    return MockResponse.json(200, endpoint_record(id), headers=HEADERS)


SERVICE = Routes({"/v1/endpoints/{id}": endpoint})


async def test_a_raw_get_shows_the_response_and_parses_to_the_plain_record() -> None:
    """Status, headers, request id and URL of the response, and `parse()`: the record the
    plain get returns."""
    async with SERVICE.client() as client:
        raw = await client.endpoints.with_raw_response.get(ENDPOINT_ID)
        plain = await client.endpoints.get(ENDPOINT_ID)
    assert isinstance(raw, RawResponse)
    assert raw.status == 200
    assert raw.headers["X-RateLimit-Remaining"] == "41"
    assert raw.request_id == "req-7"
    assert raw.url == f"https://remedy.test/v1/endpoints/{ENDPOINT_ID}"
    assert isinstance(raw.parse(), Endpoint)
    assert raw.parse() == plain


async def test_the_record_is_built_once() -> None:
    """`parse()` builds the record on its first call and hands back the same one after."""
    async with SERVICE.client() as client:
        raw = await client.endpoints.with_raw_response.get(ENDPOINT_ID)
    assert raw.parse() is raw.parse()


async def test_headers_are_read_only_and_case_insensitive() -> None:
    """The headers read in any letter case and cannot be changed."""
    async with SERVICE.client() as client:
        raw = await client.endpoints.with_raw_response.get(ENDPOINT_ID)
    assert raw.headers["x-ratelimit-remaining"] == raw.headers["X-RATELIMIT-REMAINING"] == "41"
    with pytest.raises(TypeError):
        raw.headers["X-RateLimit-Remaining"] = "0"  # type: ignore[index]


async def test_a_body_that_does_not_fit_fails_on_parse_as_the_plain_get_fails() -> None:
    """A 2xx whose body is no record is returned; `parse()` raises the DecodeError the plain
    get raises, with the same message and JSON path."""
    script = Script(MockResponse.json(200, {"id": ENDPOINT_ID, "hostname": 7}))
    async with script.client() as client:
        raw = await client.endpoints.with_raw_response.get(ENDPOINT_ID)
        with pytest.raises(DecodeError) as plain:
            await client.endpoints.get(ENDPOINT_ID)
    assert raw.status == 200
    with pytest.raises(DecodeError) as parsed:
        raw.parse()
    assert str(parsed.value) == str(plain.value)
    assert parsed.value.path == plain.value.path


async def test_an_error_status_raises_its_typed_error() -> None:
    """A 404 is the NotFoundError the plain get raises, with its request id: no raw response."""
    script = Script(
        MockResponse.json(404, {"error": "Endpoint not found."}, headers={"X-Request-Id": "r-4"})
    )
    async with script.client() as client:
        with pytest.raises(NotFoundError) as caught:
            await client.endpoints.with_raw_response.get(ENDPOINT_ID)
    assert caught.value.request_id == "r-4"
    assert caught.value.message == "Endpoint not found."


async def test_elapsed_is_the_exchange_that_answered() -> None:
    """After a 503 that took a second and a backoff, `elapsed` is the answering exchange's
    time alone, as its `response` event says."""
    time = FakeTime()
    busy = MockResponse.json(503, {"error": "busy"})
    answers = iter([(1.0, busy), (0.25, MockResponse.json(200, endpoint_record("ep-9")))])

    async def slow(request: MockRequest) -> MockResponse:
        took, answer = next(answers)
        time.now += took
        return answer

    events: list[ClientEvent] = []
    async with RemedyClient(
        "https://remedy.test",
        transport=MockTransport(slow),
        clock=time.clock,
        sleep=time.sleep,
        event_hooks=[events.append],
    ) as client:
        raw = await client.endpoints.with_raw_response.get("ep-9")
    responses = [event for event in events if event.kind == "response"]
    assert [event.status for event in responses] == [503, 200]
    assert raw.elapsed == pytest.approx(0.25)
    assert raw.elapsed == responses[-1].elapsed
    assert time.waits, "the 503 was retried after a wait"


async def test_a_raw_get_is_the_same_logical_call_as_a_get() -> None:
    """Hooks see a raw get framed as `endpoints.get`, as they see a get."""
    events: list[ClientEvent] = []
    async with SERVICE.client(event_hooks=[events.append]) as client:
        await client.endpoints.with_raw_response.get(ENDPOINT_ID)
    calls = [(event.kind, event.operation) for event in events if event.kind in ("call", "end")]
    assert calls == [("call", "endpoints.get"), ("end", "endpoints.get")]


async def test_options_apply_to_a_raw_get() -> None:
    """A raw get's options reach its request: extra parameters and headers."""
    async with SERVICE.client() as client:
        options = RequestOptions(headers={"X-Trace": "t-1"}, extra_params={"fields": "all"})
        raw = await client.endpoints.with_raw_response.get(ENDPOINT_ID, options=options)
    sent = SERVICE.requests[-1]
    assert sent.headers["X-Trace"] == "t-1"
    assert sent.query["fields"] == "all"
    assert raw.url.endswith("?fields=all")


async def test_an_echoed_token_is_redacted_from_what_a_raw_response_shows() -> None:
    """A token the service echoes into a header or the request id is `[REDACTED]` there, as
    in a page's headers."""

    def echo(request: MockRequest, id: str) -> MockResponse:
        said = request.headers["Authorization"]
        return MockResponse.json(
            200, endpoint_record(id), headers={"X-Echo": said, "X-Request-Id": f"r-{CANARY}"}
        )

    async with Routes({"/v1/endpoints/{id}": echo}).client(token=CANARY) as client:
        raw = await client.endpoints.with_raw_response.get(ENDPOINT_ID)
    assert raw.headers["X-Echo"] == "Bearer [REDACTED]"
    assert raw.request_id == "r-[REDACTED]"
    assert CANARY not in repr(raw)


async def test_health_and_get_json_have_raw_forms() -> None:
    """`with_raw_response.health()` parses to the HealthStatus, `.get_json(path)` to the
    JSONResponse, each as the plain call returns it."""
    service = Routes(
        {
            "/v1/health": lambda request: MockResponse.json(
                200, {"status": "ok"}, headers={"X-Request-Id": "h-1"}
            ),
            "/v1/endpoints/{id}/software": lambda request, id: MockResponse.json(200, [id]),
        }
    )
    async with service.client() as client:
        health = await client.with_raw_response.health()
        software = await client.with_raw_response.get_json(
            f"/v1/endpoints/{ENDPOINT_ID}/software", params={"limit": 5}
        )
        plain = await client.health()
    assert (health.status, health.request_id) == (200, "h-1")
    assert isinstance(health.parse(), HealthStatus)
    assert health.parse() == plain
    assert isinstance(software.parse(), JSONResponse)
    assert software.parse().body == [ENDPOINT_ID]
    assert software.url.endswith("/software?limit=5")


async def test_the_rate_limit_left_is_read_after_a_get() -> None:
    """Against a service with a rate limit, a raw get shows `X-RateLimit-Remaining` going
    down from one get to the next (the service's clock stands still: nothing refills)."""
    async with (
        Simulator(
            SimulatorConfig(size=5, rate_limit=100), clock=lambda: 1_700_000_000.0
        ) as service,
        RemedyClient(service.url) as client,
    ):
        record = service.dataset.id_of("endpoints", 0)
        first = await client.endpoints.with_raw_response.get(record)
        second = await client.endpoints.with_raw_response.get(record)
    left = [int(raw.headers["X-RateLimit-Remaining"]) for raw in (first, second)]
    assert left[1] < left[0]
    assert first.request_id
    assert first.parse().id == record


async def test_a_redirect_s_echo_of_the_token_is_redacted_from_the_url() -> None:
    """A simulator in echo mode redirects every get to a URL carrying the token: the raw
    response's URL is the one that answered, the token redacted, and it parses."""
    config = SimulatorConfig(size=3, echo_token=True)
    async with (
        Simulator(config) as service,
        RemedyClient(service.url, token=CANARY, follow_redirects=True) as client,
    ):
        record = service.dataset.id_of("endpoints", 1)
        raw = await client.endpoints.with_raw_response.get(
            record, options=RequestOptions(retry=RetryPolicy(attempts=1))
        )
    assert "echo=" in raw.url
    assert "[REDACTED]" in raw.url
    assert CANARY not in raw.url
    assert raw.parse().id == record
