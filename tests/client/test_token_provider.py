"""`RemedyClient(token=provider)`: an async callable asked for the token before each attempt,
and once more after a 401; its tokens never shown.

What the service sees runs against the simulator (which refuses any token but its own); the
rest on a MockTransport.
"""

from __future__ import annotations

import logging
import traceback
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path

import pytest

from remedy_async import (
    AuthenticationError,
    ClientEvent,
    ConfigurationError,
    MockRequest,
    MockResponse,
    MockTransport,
    NotFoundError,
    RemedyClient,
    RequestOptions,
    RetryPolicy,
    TokenProviderError,
)
from remedy_async._wire._http import AttemptTimeout, Request, Response
from remedy_async.simulator import Simulator, SimulatorConfig
from tests.fakes import ENDPOINT_ID, FakeTime, endpoint_body, endpoint_record
from tests.loopback import CANARY
from tests.mock_service import BASE_URL, Routes, Script


class Provider:
    """A token provider handing out `tokens` in turn (the last one again once they run out),
    counting how often it was asked."""

    def __init__(self, *tokens: str) -> None:
        self.tokens = list(tokens)
        self.asked = 0

    async def __call__(self) -> str:
        token = self.tokens[min(self.asked, len(self.tokens) - 1)]
        self.asked += 1
        return token


def sent_tokens(requests: list[MockRequest]) -> list[str]:
    return [request.headers["Authorization"] for request in requests]


def accepting(token: str) -> Callable[[MockRequest], MockResponse]:
    """A service answering a get with a record for `token` alone, else the published 401."""

    def answer(request: MockRequest) -> MockResponse:
        if request.headers.get("Authorization") != f"Bearer {token}":
            return MockResponse.json(401, {"error": "Missing or invalid API key."})
        return MockResponse.json(200, endpoint_record(request.url.name))

    return answer


async def test_each_attempt_asks_the_provider_first() -> None:
    """Two 503s then a record: three attempts, each with the token the provider gave just
    before it."""
    script = Script(
        MockResponse.json(503, {"error": "busy"}),
        MockResponse.json(503, {"error": "busy"}),
        MockResponse.json(200, endpoint_record()),
    )
    provider = Provider("t-1", "t-2", "t-3")
    time = FakeTime()
    async with script.client(token=provider, clock=time.clock, sleep=time.sleep) as client:
        await client.endpoints.get(ENDPOINT_ID)
    assert sent_tokens(script.requests) == ["Bearer t-1", "Bearer t-2", "Bearer t-3"]
    assert provider.asked == 3


async def test_a_refused_token_is_renewed_once_and_the_request_sent_again() -> None:
    """A 401 for an expired token: the provider is asked again and the request sent again at
    once with the new token, outside the retry policy (one attempt allowed)."""
    requests: list[MockRequest] = []
    service = accepting("fresh")

    def recorded(request: MockRequest) -> MockResponse:
        requests.append(request)
        return service(request)

    provider = Provider("expired", "fresh")
    time = FakeTime()
    async with RemedyClient(
        BASE_URL,
        token=provider,
        transport=MockTransport(recorded),
        retry=RetryPolicy(attempts=1),
        clock=time.clock,
        sleep=time.sleep,
    ) as client:
        record = await client.endpoints.get(ENDPOINT_ID)
    assert record.id == ENDPOINT_ID
    assert sent_tokens(requests) == ["Bearer expired", "Bearer fresh"]
    assert time.waits == []


async def test_the_same_token_again_after_a_401_is_not_sent_again() -> None:
    """When the provider hands back the token just refused, the AuthenticationError is raised
    without sending it again."""
    script = Script(MockResponse.json(401, {"error": "Missing or invalid API key."}))
    provider = Provider("stale")
    async with script.client(token=provider) as client:
        with pytest.raises(AuthenticationError) as caught:
            await client.endpoints.get(ENDPOINT_ID)
    assert len(script.requests) == 1
    assert provider.asked == 2
    assert caught.value.attempts == 1


async def test_a_second_401_is_raised() -> None:
    """The renewal happens once per call: refused again with the new token, the call raises
    AuthenticationError after two requests."""
    script = Script(MockResponse.json(401, {"error": "Missing or invalid API key."}))
    provider = Provider("one", "two", "three")
    async with script.client(token=provider) as client:
        with pytest.raises(AuthenticationError, match="Missing or invalid API key"):
            await client.endpoints.get(ENDPOINT_ID)
    assert sent_tokens(script.requests) == ["Bearer one", "Bearer two"]


async def test_a_provider_that_fails_sends_nothing_and_is_not_retried() -> None:
    """A provider raising is a TokenProviderError before any request, not retried."""
    script = Script(MockResponse.json(200, endpoint_record()))

    async def broken() -> str:
        raise OSError("vault unreachable")

    async with script.client(token=broken) as client:
        with pytest.raises(TokenProviderError, match="raised OSError") as caught:
            await client.endpoints.get(ENDPOINT_ID)
    assert script.requests == []
    assert isinstance(caught.value.__cause__, OSError)


async def test_every_request_of_a_list_carries_the_provider_s_token() -> None:
    """Each page of a list is its own request, with the token asked for before it."""
    pages = Routes(
        {
            "/v1/endpoints": lambda request: MockResponse.json(
                200,
                {
                    "data": [endpoint_record(f"ep-{request.query.get('offset', '0')}")],
                    "total": 2,
                    "limit": 1,
                    "offset": int(request.query.get("offset", "0")),
                },
            )
        }
    )
    provider = Provider("a", "b")
    async with pages.client(token=provider) as client:
        records = await client.endpoints.list(page_size=1).collect()
    assert len(records) == 2
    assert sent_tokens(pages.requests) == ["Bearer a", "Bearer b"]


class Recording:
    """A transport answering every get with an endpoint, recording the headers it was given."""

    def __init__(self) -> None:
        self.headers: list[Mapping[str, str]] = []

    async def send(
        self, request: Request, headers: Mapping[str, str], timeout: AttemptTimeout, max_body: int
    ) -> Response:
        self.headers.append(headers)
        return Response(request, 200, {"Content-Type": "application/json"}, endpoint_body())

    def stream(self, request: Request, headers: Mapping[str, str], timeout: AttemptTimeout):  # type: ignore[no-untyped-def]
        raise NotImplementedError


@pytest.mark.parametrize("token", [CANARY, Provider(CANARY)], ids=["str", "provider"])
async def test_an_unchanged_token_reaches_the_transport_as_one_header_mapping(
    token: str | Callable[[], Awaitable[str]],
) -> None:
    """A string token's headers are made once; a provider returning the same token hands the
    transport the same mapping too, so what the transport makes of it is reused."""
    transport = Recording()
    async with RemedyClient(BASE_URL, token=token, transport=transport) as client:
        for _ in range(3):
            await client.endpoints.get(ENDPOINT_ID)
    assert transport.headers[0]["Authorization"] == f"Bearer {CANARY}"
    assert transport.headers[1] is transport.headers[0]
    assert transport.headers[2] is transport.headers[0]


async def test_a_derived_client_sends_the_provider_s_token() -> None:
    """`with_options` keeps the provider: the derived client's requests carry its token."""
    script = Script(MockResponse.json(200, endpoint_record()))
    provider = Provider("t-1", "t-2")
    async with script.client(token=provider) as client:
        derived = client.with_options(headers={"X-Team": "blue"})
        await derived.endpoints.get(ENDPOINT_ID)
        await client.endpoints.get(ENDPOINT_ID)
    assert sent_tokens(script.requests) == ["Bearer t-1", "Bearer t-2"]
    assert script.requests[0].headers["X-Team"] == "blue"


def test_the_client_shows_no_token_of_a_provider() -> None:
    """The repr says a provider gives the token, and shows neither provider nor token."""
    provider = Provider(CANARY)
    client = RemedyClient(BASE_URL, token=provider, transport=MockTransport(accepting(CANARY)))
    assert repr(client) == f"<RemedyClient {BASE_URL!r} Authorization=*** (provider) open>"


def test_a_token_that_is_neither_text_nor_callable_is_refused() -> None:
    """`token=` takes a str or an async callable; anything else fails at construction."""
    with pytest.raises(ConfigurationError, match="token must be a str or an async callable"):
        RemedyClient(BASE_URL, token=12345)  # type: ignore[arg-type]


def test_headers_may_not_set_the_provider_s_header() -> None:
    """As with a string token, `headers=` cannot set the header the provider's token goes in."""
    with pytest.raises(ConfigurationError, match="token also sets"):
        RemedyClient(BASE_URL, token=Provider("t"), headers={"authorization": "Bearer x"})


def test_plain_http_through_a_proxy_is_refused_with_a_provider_too() -> None:
    """A provider's token is a token: not sent in clear through a proxy."""
    with pytest.raises(ConfigurationError, match="through the proxy"):
        RemedyClient("http://127.0.0.1:9", token=Provider("t"), proxy="http://proxy.test:3128")


async def test_the_simulator_refuses_a_stale_token_and_serves_the_renewed_one() -> None:
    """Over loopback, a service with one valid token: the provider's stale one is refused
    (401), the renewed one served, in one call."""
    async with Simulator(SimulatorConfig(size=5, token=CANARY)) as service:
        record = service.dataset.id_of("endpoints", 2)
        provider = Provider(f"{CANARY}-old", CANARY)
        async with RemedyClient(service.url, token=provider) as client:
            endpoint = await client.endpoints.get(record)
        served = service.counters
    assert endpoint.id == record
    assert provider.asked == 2
    assert served.responses == {401: 1, 200: 1}


async def test_tokens_a_service_echoes_never_show(caplog: pytest.LogCaptureFixture) -> None:
    """A simulator echoing the credential into redirects and error bodies: with a provider's
    tokens, rotated, nothing the client logs, raises or returns shows one."""
    caplog.set_level(logging.DEBUG, logger="remedy_async")
    events: list[ClientEvent] = []
    config = SimulatorConfig(size=3, token=CANARY, echo_token=True)
    async with Simulator(config) as service:
        record = service.dataset.id_of("endpoints", 0)
        provider = Provider(f"{CANARY}-old", CANARY)
        async with RemedyClient(
            service.url, token=provider, follow_redirects=True, event_hooks=[events.append]
        ) as client:
            raw = await client.endpoints.with_raw_response.get(record)
            with pytest.raises(NotFoundError) as caught:
                await client.endpoints.get(
                    "00000000-0000-4000-8000-000000000000",
                    options=RequestOptions(retry=RetryPolicy(attempts=1)),
                )
            shown = [repr(client), raw.url, repr(raw), *map(str, raw.headers.values())]
    shown += [str(caught.value), repr(caught.value), str(caught.value.body_excerpt)]
    shown += ["".join(traceback.format_exception(caught.value))]
    shown += [repr(event) for event in events] + [record.getMessage() for record in caplog.records]
    assert "echo=" in raw.url
    assert caught.value.body_excerpt
    assert "[REDACTED]" in caught.value.body_excerpt
    assert [text for text in shown if CANARY in text] == []


async def test_a_download_renews_a_refused_token_too(tmp_path: Path) -> None:
    """The agent configuration's download goes through the same attempts: refused with the
    expired token, it is sent again with the renewed one and written."""

    def configuration(request: MockRequest) -> MockResponse:
        if request.headers.get("Authorization") != "Bearer fresh":
            return MockResponse.json(401, {"error": "Missing or invalid API key."})
        return MockResponse(200, {"Content-Type": "application/octet-stream"}, b"agent: on\n")

    service = Routes({"/v1/agent-configuration": configuration})
    async with service.client(token=Provider("expired", "fresh")) as client:
        result = await client.download_agent_configuration(str(tmp_path / "agent.conf"))
    assert (tmp_path / "agent.conf").read_bytes() == b"agent: on\n"
    assert result.bytes_written == 10
    assert sent_tokens(service.requests) == ["Bearer expired", "Bearer fresh"]
