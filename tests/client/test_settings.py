"""The client's settings checks (`_settings`): a bad base URL, path or origin is refused saying
what it looks like, never repeating a value that may be a secret; a token where the base URL
goes says so; a base URL ending in `/v1` is the service's root."""

from __future__ import annotations

import pytest

from remedy_async import ConfigurationError, MockResponse, RemedyClient
from tests.fakes import endpoint_record
from tests.mock_service import BASE_URL, Routes

SECRET = "furl_sk_live_4f9QpZ7xK2mW8vR3tY6u"
"""A key as the service hands them out: what a user pastes where the base URL goes."""


def refusal(**settings: object) -> str:
    """The message of the ConfigurationError a client made with `settings` raises."""
    with pytest.raises(ConfigurationError) as caught:
        RemedyClient(**settings)  # type: ignore[arg-type]
    return str(caught.value)


def test_a_token_given_as_the_base_url_is_named_a_token_and_not_shown() -> None:
    """RemedyClient("furl_sk_live_…") says it looks like a token, to pass as token=."""
    with pytest.raises(ConfigurationError) as caught:
        RemedyClient(SECRET)
    message = str(caught.value)
    assert "looks like a token" in message
    assert "token=" in message
    assert SECRET not in message
    assert SECRET[:12] not in repr(caught.value)


@pytest.mark.parametrize("secret", [f"Bearer {SECRET}", "0123456789abcdef0123456789abcdef"])
def test_other_token_shapes_given_as_the_base_url_are_named_tokens(secret: str) -> None:
    """A whole `Bearer ...` value and a hex key are taken for tokens as well."""
    message = refusal(base_url=secret)
    assert "looks like a token" in message
    assert secret not in message


def test_a_token_in_remedy_base_url_says_to_set_remedy_api_token(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A token in REMEDY_BASE_URL is named by the variable, and REMEDY_API_TOKEN suggested."""
    monkeypatch.setenv("REMEDY_BASE_URL", SECRET)
    message = refusal()
    assert message.startswith("REMEDY_BASE_URL looks like a token")
    assert "set REMEDY_API_TOKEN to it" in message
    assert SECRET not in message


def test_a_host_without_a_scheme_is_shown_with_the_scheme_it_lacks() -> None:
    """`api.furl.ai/v1` is named by its host (a host is no secret) and the missing scheme."""
    message = refusal(base_url="api.furl.ai/v1")
    assert "got 'api.furl.ai/…', which has no scheme (such as https://)" in message


@pytest.mark.parametrize(
    ("given", "shown"),
    [
        (f"ftp://files.example.com/keys?key={SECRET}", "got 'ftp://files.example.com/…'"),
        (f"mailto:{SECRET}@example.com", "not a URL"),
        ("not a url", "got 9 characters that are not a URL"),
    ],
)
def test_a_base_url_that_is_no_http_url_shows_at_most_its_scheme_and_host(
    given: str, shown: str
) -> None:
    """The refusal names the scheme and host at most: never a path, query or user part."""
    message = refusal(base_url=given)
    assert message.startswith("base_url must be an absolute http(s) URL such as")
    assert shown in message
    assert SECRET not in message


def test_credentials_in_the_base_url_are_refused_without_showing_them() -> None:
    """`https://user:secret@host` is refused, pointing at token=, the password unshown."""
    message = refusal(base_url=f"https://me:{SECRET}@api.example.com")
    assert "must not contain credentials; pass token= instead" in message
    assert SECRET not in message


@pytest.mark.parametrize("given", ["https://api.furl.ai/v1", "https://api.furl.ai/v1/"])
def test_a_base_url_ending_in_v1_is_the_services_root(given: str) -> None:
    """A trailing /v1 is dropped: every path the client asks for carries it already."""
    client = RemedyClient(given)
    assert str(client.base_url) == "https://api.furl.ai"
    assert str(client.endpoints.url) == "https://api.furl.ai/v1/endpoints"


def test_a_prefix_before_v1_is_kept() -> None:
    """`https://gateway.example/remedy/v1` keeps its prefix: lists go to /remedy/v1/...."""
    client = RemedyClient("https://gateway.example/remedy/v1")
    assert str(client.base_url) == "https://gateway.example/remedy"
    assert str(client.scopes.url) == "https://gateway.example/remedy/v1/scopes"


def test_a_segment_merely_ending_in_v1_is_kept() -> None:
    """Only a whole /v1 segment is the version: `/apiv1` stays as given."""
    assert str(RemedyClient("https://api.example.com/apiv1").base_url).endswith("/apiv1")


async def test_a_base_url_ending_in_v1_gets_records_health_and_raw_paths() -> None:
    """Through a base URL ending in /v1 a get, health() and get_json() each ask /v1/... once
    (never /v1/v1/...)."""
    service = Routes(
        {
            "/v1/endpoints/{id}": lambda request, id: MockResponse.json(200, endpoint_record(id)),
            "/v1/health": lambda request: MockResponse.json(200, {"status": "ok"}),
            "/v1/scopes": lambda request: MockResponse.json(200, {"data": [], "total": 0}),
        }
    )
    async with service.client(f"{BASE_URL}/v1/") as client:
        await client.endpoints.get("ep-1")
        await client.health()
        await client.get_json("/v1/scopes")
    assert [request.path for request in service.requests] == [
        "/v1/endpoints/ep-1",
        "/v1/health",
        "/v1/scopes",
    ]


def test_a_path_with_a_query_is_refused_without_showing_the_query() -> None:
    """health_path with `?key=...` is refused naming the path, not what follows it."""
    message = refusal(base_url=BASE_URL, health_path=f"/v1/health?key={SECRET}")
    assert "got '/v1/health' followed by one" in message
    assert SECRET not in message


def test_a_path_given_as_a_url_is_refused_showing_its_host_only() -> None:
    """A whole URL in health_path is refused naming its scheme and host, not its query."""
    message = refusal(base_url=BASE_URL, health_path=f"https://api.furl.ai/v1/h?key={SECRET}")
    assert "must be a path starting with '/'" in message
    assert "got 'https://api.furl.ai/…'" in message
    assert SECRET not in message


def test_a_relative_path_is_shown_as_given() -> None:
    """A path that is no URL and no token is repeated, to show the missing slash."""
    assert "got 'v1/health'" in refusal(base_url=BASE_URL, health_path="v1/health")


def test_a_bad_trusted_origin_is_refused_without_showing_its_path() -> None:
    """trusted_origins entries are described by scheme and host, never their path or query."""
    message = refusal(
        base_url=BASE_URL, trusted_origins=[f"https://cdn.example.com/files?sig={SECRET}"]
    )
    assert "entries are origins like https://host, not 'https://cdn.example.com/…'" in message
    assert SECRET not in message


def test_a_token_among_trusted_origins_is_named_a_token() -> None:
    """A token pasted into trusted_origins is described as one, unshown."""
    message = refusal(base_url=BASE_URL, trusted_origins=[SECRET])
    assert "what looks like a token" in message
    assert SECRET not in message


def test_a_proxy_url_is_shown_without_its_path_or_query() -> None:
    """A proxy with a path is refused naming its scheme and host only."""
    message = refusal(base_url=BASE_URL, proxy=f"http://proxy:3128/x?key={SECRET}")
    assert "got 'http://proxy:3128/…'" in message
    assert SECRET not in message


def test_a_token_given_as_the_proxy_is_named_a_token() -> None:
    """A key where the proxy goes is refused as a token (it would pass for a host name)."""
    message = refusal(base_url=BASE_URL, proxy=SECRET)
    assert message.startswith("proxy looks like a token")
    assert SECRET not in message


def test_a_whole_authorization_value_as_auth_scheme_shows_its_first_word() -> None:
    """auth_scheme="Bearer <token>" is refused naming 'Bearer' and pointing at token=."""
    message = refusal(base_url=BASE_URL, auth_scheme=f"Bearer {SECRET}")
    assert "got 'Bearer' and more (the token goes in token=)" in message
    assert SECRET not in message


def test_a_header_line_given_as_a_header_name_shows_the_name_only() -> None:
    """`{"Authorization: Bearer <token>": ...}` is refused naming `Authorization` alone."""
    with pytest.raises(ValueError, match="header 'Authorization' has a name") as caught:
        RemedyClient(BASE_URL, headers={f"Authorization: Bearer {SECRET}": ""})
    assert SECRET not in str(caught.value)


@pytest.mark.parametrize(
    ("setting", "given", "shown"),
    [
        ("naming", SECRET, "got what looks like a token (33 characters)"),
        ("naming", "kebab-case", "got 'kebab-case'"),
        ("max_in_flight", 0, "got 0"),
        ("rate_limit", 10, "got 10"),
        ("telemetry", ["on"], "got a value of type list"),
    ],
)
def test_other_settings_show_a_value_only_when_it_cannot_be_a_secret(
    setting: str, given: object, shown: str
) -> None:
    """A number or short word is repeated; a token-like or unknown value is described."""
    message = refusal(base_url=BASE_URL, **{setting: given})
    assert shown in message
    assert SECRET not in message
