"""Proxies over loopback: CONNECT tunnels to an https service (test CA), absolute-form http,
proxy authentication, the environment (only when trusted, never ~/.netrc), NO_PROXY, and
what a proxy could see: never the API token in clear, never the proxy's own password shown."""

from __future__ import annotations

import ssl
from collections.abc import AsyncIterator
from pathlib import Path
from urllib.parse import quote

import pytest
import trustme
from hypothesis import given
from hypothesis import strategies as st

from remedy_async import (
    ConfigurationError,
    MockRequest,
    MockResponse,
    ProxyError,
    RemedyClient,
    RetryPolicy,
)
from remedy_async._sending._proxies import ProxyRoutes, proxy_from
from tests.fakes import FakeTime, endpoint_record
from tests.loopback import CANARY, serve_handler
from tests.mock_service import Routes
from tests.proxy import ForwardProxy

USER = "proxy-user"


def endpoint(request: MockRequest, id: str) -> MockResponse:
    return MockResponse.json(200, endpoint_record(id))


def origin_routes() -> Routes:
    """The service behind the proxy; its `requests` are every request that reached it."""
    return Routes({"/v1/endpoints/{id}": endpoint})


@pytest.fixture(scope="module")
def authority() -> trustme.CA:
    return trustme.CA()


@pytest.fixture
def trusting(authority: trustme.CA) -> ssl.SSLContext:
    """A client SSL context that trusts the test CA."""
    context = ssl.create_default_context()
    authority.configure_trust(context)
    return context


@pytest.fixture
async def https_origin(authority: trustme.CA) -> AsyncIterator[tuple[Routes, str]]:
    """An https service on loopback with a certificate of the test CA."""
    service = origin_routes()
    server_context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    authority.issue_cert("127.0.0.1").configure_cert(server_context)
    async with serve_handler(service, server_context) as url:
        yield service, url


@pytest.fixture
async def http_origin() -> AsyncIterator[tuple[Routes, str]]:
    """A plain http service on loopback."""
    service = origin_routes()
    async with serve_handler(service) as url:
        yield service, url


async def test_an_https_service_is_reached_through_a_connect_tunnel(
    https_origin: tuple[Routes, str], trusting: ssl.SSLContext
) -> None:
    """Through the proxy the get succeeds; the proxy saw one CONNECT to the service and then
    only ciphertext: the token's bytes never crossed it in clear."""
    origin, url = https_origin
    async with ForwardProxy() as proxy:
        client = RemedyClient(url, token=CANARY, proxy=proxy.url, ssl_context=trusting)
        async with client:
            endpoint = await client.endpoints.get("ep-1")
    assert endpoint.id == "ep-1"
    assert proxy.connects == [url.removeprefix("https://")]
    assert CANARY.encode() not in proxy.seen
    assert b"Authorization" not in proxy.heads[0]
    assert origin.requests[0].headers["Authorization"] == f"Bearer {CANARY}"


async def test_proxy_credentials_go_on_the_connect_request_only(
    https_origin: tuple[Routes, str], trusting: ssl.SSLContext
) -> None:
    """Credentials from the proxy URL authenticate the CONNECT; the service never sees them,
    and the API token never goes in Proxy-Authorization."""
    origin, url = https_origin
    async with ForwardProxy(credentials=(USER, CANARY)) as proxy:
        proxied = f"http://{USER}:{CANARY}@{proxy.url.removeprefix('http://')}"
        async with RemedyClient(url, token="api-token", proxy=proxied, ssl_context=trusting) as c:
            await c.endpoints.get("ep-1")
    assert proxy.refused == 0
    assert b"Proxy-Authorization: Basic " in proxy.heads[0]
    assert b"api-token" not in proxy.seen
    assert "Proxy-Authorization" not in origin.requests[0].headers


async def test_explicit_proxy_auth_authenticates_too(
    https_origin: tuple[Routes, str], trusting: ssl.SSLContext
) -> None:
    """`proxy_auth=(user, password)` is the same as credentials in the proxy URL."""
    _, url = https_origin
    async with ForwardProxy(credentials=(USER, "pw")) as proxy:
        settings = {"proxy": proxy.url, "proxy_auth": (USER, "pw"), "ssl_context": trusting}
        async with RemedyClient(url, **settings) as client:  # type: ignore[arg-type]
            assert (await client.endpoints.get("ep-2")).id == "ep-2"


async def test_a_tunnel_without_credentials_is_a_407_proxy_error_not_retried(
    https_origin: tuple[Routes, str], trusting: ssl.SSLContext
) -> None:
    """An authenticating proxy refuses the CONNECT: ProxyError(status=407) after one attempt,
    naming the proxy."""
    _, url = https_origin
    async with (
        ForwardProxy(credentials=(USER, "pw")) as proxy,
        RemedyClient(url, proxy=proxy.url, ssl_context=trusting) as client,
    ):
        with pytest.raises(ProxyError) as caught:
            await client.endpoints.get("ep-1")
        shown = proxy.url
    assert (caught.value.status, caught.value.attempts) == (407, 1)
    assert caught.value.proxy == shown
    assert shown in str(caught.value)


async def test_plain_http_goes_to_the_proxy_in_absolute_form(
    http_origin: tuple[Routes, str],
) -> None:
    """An http request (no token) goes to the proxy as `GET http://host:port/path`; proxy
    credentials ride on it (the proxy drops them before the service)."""
    origin, url = http_origin
    async with (
        ForwardProxy(credentials=(USER, "pw")) as proxy,
        RemedyClient(url, proxy=proxy.url, proxy_auth=(USER, "pw")) as client,
    ):
        await client.endpoints.get("ep-3")
    assert proxy.heads[0].startswith(f"GET {url}/v1/endpoints/ep-3 HTTP/1.1".encode())
    assert b"Proxy-Authorization: Basic " in proxy.heads[0]
    assert "Proxy-Authorization" not in origin.requests[0].headers


async def test_plain_http_without_credentials_is_a_407_proxy_error(
    http_origin: tuple[Routes, str],
) -> None:
    """The proxy's 407 to an absolute-form request is a ProxyError too, not a status error."""
    _, url = http_origin
    async with (
        ForwardProxy(credentials=(USER, "pw")) as proxy,
        RemedyClient(url, proxy=proxy.url) as client,
    ):
        with pytest.raises(ProxyError, match="wants credentials") as caught:
            await client.endpoints.get("ep-1")
    assert caught.value.status == 407


def test_a_token_over_plain_http_through_a_proxy_is_refused() -> None:
    """A token would cross the proxy in clear over http: refused unless allow_insecure_http."""
    with pytest.raises(ConfigurationError, match="through the proxy"):
        RemedyClient("http://127.0.0.1:9", token="t", proxy="http://127.0.0.1:8")
    RemedyClient(
        "http://127.0.0.1:9", token="t", proxy="http://127.0.0.1:8", allow_insecure_http=True
    )


async def test_an_unreachable_proxy_is_a_proxy_error_without_its_password(
    https_origin: tuple[Routes, str],
) -> None:
    """A proxy that refuses connections is a ProxyError, retried like any connection failure;
    neither its message nor its repr shows the proxy's password."""
    _, url = https_origin
    async with ForwardProxy() as closed:
        gone = closed.url
    time = FakeTime()
    proxied = gone.replace("http://", f"http://{USER}:{CANARY}@")
    client = RemedyClient(url, proxy=proxied, clock=time.clock, sleep=time.sleep)
    async with client:
        with pytest.raises(ProxyError, match="cannot connect to the proxy") as caught:
            await client.endpoints.get("ep-1")
    assert caught.value.attempts == RetryPolicy().attempts
    assert caught.value.status is None
    assert CANARY not in str(caught.value) + repr(caught.value) + caught.value.proxy
    assert CANARY not in repr(client)


@pytest.mark.parametrize("trust_env", [False, True])
async def test_https_proxy_is_read_only_when_the_environment_is_trusted(
    https_origin: tuple[Routes, str],
    trusting: ssl.SSLContext,
    monkeypatch: pytest.MonkeyPatch,
    trust_env: bool,
) -> None:
    """HTTPS_PROXY routes an https service's requests with trust_env=True, and is ignored
    (straight to the service) by default."""
    _, url = https_origin
    async with ForwardProxy() as proxy:
        monkeypatch.setenv("HTTPS_PROXY", proxy.url)
        async with RemedyClient(url, ssl_context=trusting, trust_env=trust_env) as client:
            await client.endpoints.get("ep-1")
    assert proxy.connects == ([url.removeprefix("https://")] if trust_env else [])


async def test_no_proxy_bypasses_the_environment_proxy(
    https_origin: tuple[Routes, str], trusting: ssl.SSLContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A host listed in NO_PROXY is reached directly even though HTTPS_PROXY is set."""
    _, url = https_origin
    async with ForwardProxy() as proxy:
        monkeypatch.setenv("https_proxy", proxy.url)
        monkeypatch.setenv("NO_PROXY", "example.com, 127.0.0.0/8")
        async with RemedyClient(url, ssl_context=trusting, trust_env=True) as client:
            await client.endpoints.get("ep-1")
    assert proxy.heads == []


async def test_trust_env_never_reads_netrc(
    https_origin: tuple[Routes, str],
    trusting: ssl.SSLContext,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    """A ~/.netrc with entries for the proxy and the service adds no credential anywhere: the
    proxy sees no Proxy-Authorization, the service only the client's own header."""
    origin, url = https_origin
    netrc = tmp_path / "netrc"
    netrc.write_text("machine 127.0.0.1 login someone password netrc-secret\n")
    netrc.chmod(0o600)
    monkeypatch.setenv("NETRC", str(netrc))
    monkeypatch.setenv("HOME", str(tmp_path))
    async with ForwardProxy() as proxy:
        monkeypatch.setenv("HTTPS_PROXY", proxy.url)
        async with RemedyClient(url, token="t", ssl_context=trusting, trust_env=True) as client:
            await client.endpoints.get("ep-1")
    assert b"netrc-secret" not in proxy.seen
    assert b"Proxy-Authorization" not in proxy.heads[0]
    assert origin.requests[0].headers["Authorization"] == "Bearer t"


async def test_an_https_proxy_is_reached_over_tls(
    authority: trustme.CA, https_origin: tuple[Routes, str], trusting: ssl.SSLContext
) -> None:
    """An https:// proxy is itself reached over TLS, the service's TLS tunnelled inside."""
    _, url = https_origin
    proxy_context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    authority.issue_cert("127.0.0.1").configure_cert(proxy_context)
    async with (
        ForwardProxy(ssl=proxy_context) as proxy,
        RemedyClient(url, token=CANARY, proxy=proxy.url, ssl_context=trusting) as client,
    ):
        assert (await client.endpoints.get("ep-9")).id == "ep-9"
    assert proxy.connects == [url.removeprefix("https://")]
    assert CANARY.encode() not in proxy.seen


@given(
    user=st.text(
        st.characters(exclude_characters=":\r\n\0", exclude_categories=["Cs"]), min_size=1
    ),
    password=st.text(st.characters(exclude_characters="\r\n\0", exclude_categories=["Cs"])),
    port=st.integers(1024, 65535),
)
def test_proxy_credentials_are_read_from_the_url_and_never_shown(
    user: str, password: str, port: int
) -> None:
    """Any user and password percent-encoded in the proxy URL are its credentials, and the
    proxy's shown form and repr never hold them."""
    proxy = proxy_from(f"http://{quote(user, safe='')}:{quote(password, safe='')}@proxy:{port}")
    assert proxy.shown == f"http://proxy:{port}"
    assert proxy == proxy_from(f"http://proxy:{port}", (user, password))
    bare = proxy_from(f"http://proxy:{port}")
    if len(password) > 3 and password not in repr(bare) + bare.shown:  # not 'Prox' of 'Proxy'
        assert password not in repr(proxy) + proxy.shown


@given(st.text())
def test_any_proxy_setting_is_a_proxy_or_a_value_error_without_its_password(text: str) -> None:
    """Whatever the text, reading it as a proxy gives a Proxy or a ValueError whose message
    does not show what followed a ':' in its user information."""
    setting = f"http://u:{CANARY}@{text}"
    try:
        shown = repr(proxy_from(setting))
    except ValueError as error:
        shown = str(error)
    assert CANARY not in shown


LABEL = st.from_regex(r"[a-z][a-z0-9]{0,8}", fullmatch=True)


@given(labels=st.lists(LABEL, min_size=1, max_size=4), extra=st.lists(LABEL, max_size=2))
def test_no_proxy_names_match_themselves_and_their_subdomains(
    labels: list[str], extra: list[str]
) -> None:
    """A NO_PROXY name (bare or with a leading dot) covers the host and every subdomain, and
    nothing that merely ends with the same letters."""
    name = ".".join(labels)
    host = ".".join([*extra, name])
    for entry in (name, f".{name}", f"*.{name}"):
        routes = ProxyRoutes(proxy=proxy_from("http://p:1"), no_proxy=f"other.test,{entry}")
        assert routes.bypasses(host, 443)
        assert not routes.bypasses(f"x{name}", 443)


@pytest.mark.parametrize(
    ("entry", "host", "port", "bypassed"),
    [
        ("*", "anything", 1, True),
        ("10.0.0.0/8", "10.2.3.4", 443, True),
        ("10.0.0.0/8", "11.0.0.1", 443, False),
        ("::1", "[::1]", 443, True),
        ("[::1]:8443", "::1", 443, False),
        ("api.test:8443", "api.test", 8443, True),
        ("api.test:8443", "api.test", 443, False),
    ],
)
def test_no_proxy_entries(entry: str, host: str, port: int, bypassed: bool) -> None:
    """Wildcards, CIDR ranges, IPv6 addresses and host:port entries of NO_PROXY."""
    routes = ProxyRoutes(proxy=proxy_from("http://p:1"), no_proxy=entry)
    assert routes.bypasses(host, port) is bypassed


@pytest.mark.parametrize(
    ("setting", "message"),
    [
        ("ftp://proxy:21", "http:// or https://"),
        ("http://proxy:3128/path", "just scheme://host:port"),
        ("http://:3128", "not a usable URL|with a host"),
    ],
)
def test_a_proxy_that_is_no_forward_proxy_url_is_a_configuration_error(
    setting: str, message: str
) -> None:
    """Other schemes, paths and missing hosts fail at construction, saying what is expected."""
    with pytest.raises(ConfigurationError, match=message):
        RemedyClient("https://api.test", proxy=setting)


def test_credentials_given_twice_or_without_a_proxy_are_refused() -> None:
    """Credentials both in the URL and in proxy_auth, or proxy_auth alone, are mistakes."""
    with pytest.raises(ConfigurationError, match="given twice"):
        RemedyClient("https://api.test", proxy="http://u:p@proxy:1", proxy_auth=("u", "p"))
    with pytest.raises(ConfigurationError, match="without a proxy"):
        RemedyClient("https://api.test", proxy_auth=("u", "p"))


def test_a_scheme_less_proxy_is_http() -> None:
    """`proxy:3128` means http://proxy:3128, as curl reads it."""
    assert proxy_from("proxy:3128").shown == "http://proxy:3128"


def test_upper_case_http_proxy_is_ignored_in_a_cgi_script() -> None:
    """With REQUEST_METHOD set, HTTP_PROXY may come from a request header: it is ignored."""
    environ = {"HTTP_PROXY": "http://evil:1", "REQUEST_METHOD": "GET"}
    assert ProxyRoutes.from_settings(None, None, True, environ) is None


def test_a_configuration_file_sets_the_proxy_but_never_its_password(tmp_path: Path) -> None:
    """`proxy` and `trust_env` are profile settings; credentials in a file's proxy URL are not."""
    config = tmp_path / "remedy.toml"
    config.write_text('[default]\nproxy = "http://proxy.test:3128"\ntrust_env = true\n')
    client = RemedyClient.from_config(config, base_url="https://api.test")
    assert client._proxies is not None
    assert client._proxies.for_url(client.base_url) == proxy_from("http://proxy.test:3128")
    config.write_text('[default]\nproxy = "http://u:pw@proxy.test:3128"\n')
    with pytest.raises(ConfigurationError, match="do not belong in a file"):
        RemedyClient.from_config(config, base_url="https://api.test")
