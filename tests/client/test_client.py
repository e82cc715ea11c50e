"""RemedyClient: configuration, auth headers, lifecycle, health, transport errors.

What sits above the transport runs on a MockTransport; what is about connections (a given
aiohttp session, headers on the wire, a refused port, an event loop's pool) on loopback.
"""

from __future__ import annotations

import asyncio
import gc
import ssl
import warnings
from collections.abc import Iterator

import aiohttp
import pytest
from aioresponses import aioresponses
from hypothesis import given, settings
from hypothesis import strategies as st

from remedy_async import (
    APIConnectionError,
    APITimeoutError,
    ClientClosedError,
    ConfigurationError,
    DecodeError,
    HealthStatus,
    MockRequest,
    MockResponse,
    MockTransport,
    RemedyClient,
    RequestOptions,
    RetryPolicy,
    ServerError,
    __version__,
)
from tests.budget import examples
from tests.fakes import endpoint_record, page
from tests.loopback import serve_handler
from tests.mock_service import BASE_URL, Routes, mock_client
from tests.published import TOKEN as PUBLISHED_TOKEN
from tests.published import PublishedService

TOKEN = "canary-token-7f3e9a"


def mock_header_echo(request: MockRequest, id: str) -> MockResponse:
    """Answer a get with a published endpoint carrying the request's headers as an extra."""
    headers = {str(name): value for name, value in request.headers.items()}  # names are istr
    return MockResponse.json(200, endpoint_record(id, headers=headers))


HEADER_ECHO = Routes({"/v1/endpoints/{id}": mock_header_echo})


async def test_base_url_and_token_come_from_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Without arguments the client reads REMEDY_BASE_URL and REMEDY_API_TOKEN."""
    service = Routes({"/api/v1/endpoints/{id}": mock_header_echo})
    monkeypatch.setenv("REMEDY_BASE_URL", f"{BASE_URL}/api")
    monkeypatch.setenv("REMEDY_API_TOKEN", TOKEN)
    async with RemedyClient(transport=MockTransport(service)) as client:
        endpoint = await client.endpoints.get("ep-1")
    assert endpoint.extra["headers"]["Authorization"] == f"Bearer {TOKEN}"
    assert str(service.requests[0].url) == f"{BASE_URL}/api/v1/endpoints/ep-1"


@pytest.mark.parametrize("unset", [None, ""], ids=["unset", "empty"])
def test_the_service_is_the_default_base_url(
    monkeypatch: pytest.MonkeyPatch, unset: str | None
) -> None:
    """No argument and no REMEDY_BASE_URL (or an empty one): the service's own API,
    https://api.furl.ai, its collections under /v1."""
    if unset is None:
        monkeypatch.delenv("REMEDY_BASE_URL", raising=False)
    else:
        monkeypatch.setenv("REMEDY_BASE_URL", unset)
    client = RemedyClient()
    assert str(client.base_url) == "https://api.furl.ai"
    assert str(client.scopes.url) == "https://api.furl.ai/v1/scopes"


def test_remedy_base_url_wins_over_the_default_and_the_argument_over_both(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """REMEDY_BASE_URL replaces the default; a base_url argument replaces REMEDY_BASE_URL."""
    monkeypatch.setenv("REMEDY_BASE_URL", "https://remedy.internal.example/api")
    assert str(RemedyClient().base_url) == "https://remedy.internal.example/api"
    assert str(RemedyClient("https://eu.api.furl.ai").base_url) == "https://eu.api.furl.ai"


def test_an_empty_base_url_argument_is_a_configuration_error() -> None:
    """base_url="" is no URL: ConfigurationError naming the default, never a silent default."""
    with pytest.raises(ConfigurationError, match=r"empty base URL.*https://api\.furl\.ai"):
        RemedyClient("")


@pytest.mark.parametrize("bad", [0, -1, True, 10.0, "100", None])
def test_a_bad_max_page_size_is_a_configuration_error(bad: object) -> None:
    """max_page_size takes a positive int; anything else fails at construction."""
    with pytest.raises(ConfigurationError, match="max_page_size"):
        RemedyClient("https://api.furl.ai", max_page_size=bad)  # type: ignore[arg-type]


async def test_max_page_size_bounds_and_defaults_every_list() -> None:
    """max_page_size is every list's default page size and its bound: a larger page_size is
    refused before any request by default, and goes through with a larger max_page_size."""
    seen: list[str | None] = []

    def listing(request: MockRequest) -> MockResponse:
        seen.append(request.query.get("limit"))
        return MockResponse.json(200, page([endpoint_record()], limit=int(request.query["limit"])))

    service = Routes({"/v1/endpoints": listing})
    async with service.client() as default:
        with pytest.raises(ValueError, match="page_size must be at most 100, got 250"):
            default.endpoints.list(page_size=250)
        assert seen == []
        await default.endpoints.list().collect()
    async with service.client(max_page_size=500) as larger:
        await larger.endpoints.list(page_size=250).collect()
        await larger.endpoints.list().collect()
        with pytest.raises(ValueError, match="at most 500"):
            larger.scopes.list(page_size=501)
    assert seen == ["100", "250", "500"]


@pytest.mark.parametrize(
    "base_url",
    [
        "api.example.com",
        "ftp://api.example.com",
        "https://user:pw@api.example.com",
        "https://h/?q=1",
    ],
)
def test_unusable_base_url_is_a_configuration_error(base_url: str) -> None:
    """A relative, non-http, credential-bearing or query-bearing base URL is refused."""
    with pytest.raises(ConfigurationError):
        RemedyClient(base_url)


def test_token_with_a_line_break_is_refused() -> None:
    """A token that would split the header block is refused before any request."""
    with pytest.raises(ConfigurationError, match="line break"):
        RemedyClient("https://api.example.com", token="abc\r\nX-Evil: 1")


def test_auth_header_given_twice_is_refused() -> None:
    """Setting the auth header in headers and passing a token is ambiguous, so refused."""
    with pytest.raises(ConfigurationError, match="Authorization"):
        RemedyClient("https://h", token=TOKEN, headers={"authorization": "Basic x"})


def test_repr_shows_base_url_and_never_the_token() -> None:
    """repr(client) names the base URL and hides the token."""
    client = RemedyClient("https://api.example.com/", token=TOKEN)
    text = repr(client)
    assert "https://api.example.com" in text
    assert TOKEN not in text


async def test_default_headers_carry_bearer_token_and_user_agent() -> None:
    """Requests carry Authorization: Bearer, Accept: JSON and User-Agent remedy-async/<version>."""
    async with HEADER_ECHO.client(token=TOKEN, headers={"X-Team": "sec"}) as client:
        headers = (await client.endpoints.get("ep-1")).extra["headers"]
    assert headers["Authorization"] == f"Bearer {TOKEN}"
    assert headers["User-Agent"] == f"remedy-async/{__version__}"
    assert headers["Accept"] == "application/json"
    assert headers["X-Team"] == "sec"


async def test_api_key_header_without_scheme() -> None:
    """auth_header='X-API-Key', auth_scheme=None sends the bare token and no Authorization."""
    api_key = HEADER_ECHO.client(token=TOKEN, auth_header="X-API-Key", auth_scheme=None)
    async with api_key as client:
        headers = (await client.endpoints.get("ep-1")).extra["headers"]
    assert headers["X-API-Key"] == TOKEN
    assert "Authorization" not in headers


async def test_per_call_headers_are_added_to_that_call_only() -> None:
    """RequestOptions headers apply to the one call they are given to."""
    async with HEADER_ECHO.client() as client:
        options = RequestOptions(headers={"X-Trace": "t-1"})
        with_option = (await client.endpoints.get("ep-1", options=options)).extra["headers"]
        without = (await client.endpoints.get("ep-1")).extra["headers"]
    assert with_option["X-Trace"] == "t-1"
    assert "X-Trace" not in without


def header_list_echo(request: MockRequest, id: str) -> MockResponse:
    """Answer a get with a published endpoint carrying every header line as it arrived."""
    lines = [[str(name), value] for name, value in request.headers.items()]
    return MockResponse.json(200, endpoint_record(id, headers=lines))


@pytest.mark.parametrize("own_session", [True, False], ids=["client's session", "given session"])
async def test_every_header_is_sent_once_and_per_call_headers_override(own_session: bool) -> None:
    """Default, credential and per-call headers each reach the wire once; per-call ones win.

    Over a loopback socket: the header lines aiohttp writes, through either session, are the
    point."""
    session = None if own_session else aiohttp.ClientSession()
    try:
        async with (
            serve_handler(Routes({"/v1/endpoints/{id}": header_list_echo})) as url,
            RemedyClient(url, token=TOKEN, headers={"X-Team": "sec"}, session=session) as c,
        ):
            options = RequestOptions(headers={"Accept": "application/x-ndjson", "X-Trace": "t"})
            plain = (await c.endpoints.get("ep-1")).extra["headers"]
            overridden = (await c.endpoints.get("ep-1", options=options)).extra["headers"]
    finally:
        if session is not None:
            await session.close()

    def values(sent: list[list[str]], name: str) -> list[str]:
        return [value for key, value in sent if key.lower() == name.lower()]

    for name, expected in [
        ("Authorization", f"Bearer {TOKEN}"),
        ("Accept", "application/json"),
        ("User-Agent", f"remedy-async/{__version__}"),
        ("X-Team", "sec"),
    ]:
        assert values(plain, name) == [expected]
    assert values(overridden, "Accept") == ["application/x-ndjson"]
    assert values(overridden, "X-Trace") == ["t"]
    assert values(overridden, "Authorization") == [f"Bearer {TOKEN}"]


async def test_close_is_idempotent_and_a_closed_client_refuses_work() -> None:
    """close() twice is fine; any call afterwards raises ClientClosedError, before I/O."""
    service = Routes({})
    client = service.client()
    async with client:
        pass
    await client.close()
    with pytest.raises(ClientClosedError, match="closed"):
        await client.endpoints.get("ep-1")
    with pytest.raises(ClientClosedError):
        await client.__aenter__()
    assert not service.requests


async def test_dropped_unclosed_client_warns() -> None:
    """A client that opened a connection pool and is dropped unclosed emits ResourceWarning."""
    client = RemedyClient("https://api.example.com")
    await client.__aenter__()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        del client
        gc.collect()
    ours = [w for w in caught if "RemedyClient" in str(w.message)]
    assert len(ours) == 1
    assert ours[0].category is ResourceWarning
    assert "not closed" in str(ours[0].message)


async def test_closed_or_unused_client_does_not_warn() -> None:
    """A closed client, or one that never opened a connection, is dropped silently."""
    async with RemedyClient("https://api.example.com") as client:
        pass
    unused = RemedyClient("https://api.example.com")
    del client, unused
    gc.collect()


async def test_injected_session_is_used_and_never_closed() -> None:
    """An injected aiohttp session carries the requests and stays open after close().

    Over a loopback socket: only a real connection goes through the given session."""
    async with (
        serve_handler(HEADER_ECHO) as url,
        aiohttp.ClientSession(headers={"X-From-Session": "yes"}) as session,
    ):
        async with RemedyClient(url, session=session) as client:
            headers = (await client.endpoints.get("ep-1")).extra["headers"]
        assert not session.closed
    assert headers["X-From-Session"] == "yes"


async def test_health_returns_typed_status() -> None:
    """health() returns HealthStatus with unknown fields kept in extra."""

    def health(request: MockRequest) -> MockResponse:
        return MockResponse.json(200, {"status": "ok", "version": "1.2"})

    async with Routes({"/v1/health": health}).client() as client:
        status = await client.health()
    assert status == HealthStatus(status="ok", extra={"version": "1.2"})
    assert status.ok


async def test_health_path_is_configurable_and_errors_are_typed() -> None:
    """A custom health path is used, and a 503 from it raises ServerError."""

    def down(request: MockRequest) -> MockResponse:
        return MockResponse.json(503, {"status": "down"})

    service = Routes({"/status/live": down})
    async with service.client(health_path="/status/live", retry=RetryPolicy(attempts=1)) as client:
        with pytest.raises(ServerError) as caught:
            await client.health()
    assert caught.value.status == 503


async def test_health_body_that_is_not_an_object_is_a_decode_error() -> None:
    """A health body that is a JSON array raises DecodeError at path $."""

    def health(request: MockRequest) -> MockResponse:
        return MockResponse.json(200, ["ok"])

    async with Routes({"/v1/health": health}).client() as client:
        with pytest.raises(DecodeError) as caught:
            await client.health()
    assert caught.value.path == "$"


async def test_base_url_path_prefix_is_kept() -> None:
    """A base URL with a path prefix puts /v1/... under that prefix."""
    service = Routes({"/gateway/v1/endpoints/{id}": mock_header_echo})
    async with service.client(BASE_URL + "/gateway/") as client:
        assert (await client.endpoints.get("ep-1")).id == "ep-1"


async def test_refused_connection_is_an_api_connection_error() -> None:
    """Nothing listening on the port raises APIConnectionError naming the request.

    A raw server opened and closed at once: a port known to refuse is the point."""
    server = await asyncio.start_server(lambda r, w: None, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    server.close()
    await server.wait_closed()
    async with RemedyClient(f"http://127.0.0.1:{port}", retry=RetryPolicy(attempts=1)) as client:
        with pytest.raises(APIConnectionError) as caught:
            await client.endpoints.get("ep-1")
    assert caught.value.method == "GET"
    assert caught.value.url.endswith("/v1/endpoints/ep-1")


@pytest.mark.parametrize("exception", [TimeoutError(), aiohttp.ServerTimeoutError()])
async def test_timeouts_are_api_timeout_errors(exception: Exception) -> None:
    """A request that times out raises APITimeoutError (aioresponses: how the aiohttp transport
    maps aiohttp's own timeout exceptions is the point)."""
    async with RemedyClient("https://api.example.com", retry=RetryPolicy(attempts=1)) as client:
        with aioresponses() as mocked:
            mocked.get("https://api.example.com/v1/endpoints/ep-1", exception=exception)
            with pytest.raises(APITimeoutError):
                await client.endpoints.get("ep-1")


def test_invalid_timeout_is_refused() -> None:
    """A zero or negative timeout is refused at construction."""
    with pytest.raises(ValueError, match="timeout"):
        RemedyClient("https://api.example.com", timeout=0)


async def test_get_json_reads_any_path_under_the_base_url() -> None:
    """get_json sends the client's auth to a path under the base URL and decodes the body."""
    service = PublishedService()
    async with mock_client(service.handler, BASE_URL + "/", token=PUBLISHED_TOKEN) as client:
        response = await client.get_json("/v1/scopes", params={"limit": 2})
        assert response.status == 200
        assert len(response.body["data"]) == 2
        assert response.body["limit"] == 2
        assert str(response.url).endswith("/v1/scopes?limit=2")
        with pytest.raises(ValueError, match="path must be a path starting with '/'"):
            await client.get_json("https://elsewhere.example.com/v1/scopes")


def test_a_client_used_from_a_second_event_loop_says_why_it_cannot_be() -> None:
    """A client whose connections were opened in one event loop raises ClientClosedError
    naming the other loop when used from another (a second asyncio.run), before any I/O.

    Over a loopback socket: the connections a loop opened are the point."""
    service = Routes({"/v1/endpoints/{id}": mock_header_echo})
    with asyncio.Runner() as first, asyncio.Runner() as second:
        server = serve_handler(service)
        url = first.run(server.__aenter__())
        client = RemedyClient(url)
        assert first.run(client.endpoints.get("ep-1")).id == "ep-1"
        with pytest.raises(ClientClosedError, match=r"another event loop.*asyncio\.run"):
            second.run(client.endpoints.get("ep-2"))
        first.run(client.close())
        first.run(server.__aexit__(None, None, None))
    assert [request.path for request in service.requests] == ["/v1/endpoints/ep-1"]


@pytest.fixture(scope="module")
def listening_client() -> Iterator[tuple[asyncio.Runner, RemedyClient, Routes]]:
    """An open client on a MockTransport recording every request it gets."""
    with asyncio.Runner() as runner:
        service = Routes({})
        client = service.client(token="t0k", retry=RetryPolicy(attempts=1))
        runner.run(client.__aenter__())
        yield runner, client, service
        runner.run(client.close())


NOT_A_PATH_UNDER_THE_BASE_URL = st.one_of(
    st.sampled_from(
        ["https://other.example/v1/x", "//other.example/v1/x", "/\\other.example/x", "v1/x", ""]
    ),
    st.text().filter(lambda path: not path.startswith("/")),
    st.text().map(lambda rest: "//" + rest),
)


@given(path=NOT_A_PATH_UNDER_THE_BASE_URL)
@settings(max_examples=examples(100), deadline=None)
def test_get_json_refuses_what_is_not_a_path_under_the_base_url(
    listening_client: tuple[asyncio.Runner, RemedyClient, Routes], path: str
) -> None:
    """A URL, `//host/...` or a path without its leading `/` is a ConfigurationError (a
    ValueError) saying the path is appended to the base URL, before any request."""
    runner, client, service = listening_client
    with pytest.raises(ConfigurationError, match="appended to the base URL"):
        runner.run(client.get_json(path))
    assert service.requests == []


def test_a_plain_with_over_a_client_says_to_use_async_with() -> None:
    """`with RemedyClient(...)` raises TypeError naming `async with`, and opens nothing."""
    client = RemedyClient(BASE_URL, transport=MockTransport(lambda request: None))
    refusal = r"use 'async with RemedyClient\(\.\.\.\) as client'"
    with pytest.raises(TypeError, match=refusal), client:
        pass  # pragma: no cover - never entered
    assert client._owned_session is None


async def _answer_in_plain_http(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    """Answer whatever arrives (a TLS ClientHello) as a plain HTTP server would: a 400.

    A raw server: the bytes answering a TLS handshake are the point, below any HTTP handler."""
    await reader.read(512)
    writer.write(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
    await writer.drain()
    writer.close()


async def test_https_to_a_plain_http_port_names_plain_http() -> None:
    """An https URL on a port speaking plain HTTP is an APIConnectionError asking whether the
    URL is http://, once (it is not retried), not OpenSSL's WRONG_VERSION_NUMBER."""
    server = await asyncio.start_server(_answer_in_plain_http, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    trusting = ssl.create_default_context()
    trusting.check_hostname = False
    trusting.verify_mode = ssl.CERT_NONE  # no certificate could be the problem
    slept: list[float] = []

    async def sleep(seconds: float) -> None:
        slept.append(seconds)

    try:
        async with RemedyClient(
            f"https://127.0.0.1:{port}", ssl_context=trusting, sleep=sleep
        ) as client:
            with pytest.raises(APIConnectionError) as caught:
                await client.health()
    finally:
        server.close()
        await server.wait_closed()
    message = str(caught.value)
    assert message.startswith(
        f"the server at 127.0.0.1:{port} answered plain HTTP to a TLS handshake: is the URL "
        f"http://127.0.0.1:{port}?"
    )
    assert "WRONG_VERSION_NUMBER" not in message
    assert slept == []
