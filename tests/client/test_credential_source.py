"""A 401 says whether the client sent a token, in which header and where it came from (the
argument, a provider, REMEDY_API_TOKEN, a profile's token_env, a tenant's), never which token;
other statuses' messages stay the service's own (`CredentialSource`, `_status`)."""

from __future__ import annotations

import pickle
from pathlib import Path

import pytest

from remedy_async import (
    APIStatusError,
    AuthenticationError,
    MockRequest,
    MockResponse,
    MockTransport,
    RemedyClient,
    Tenant,
    TenantClients,
)
from remedy_async._sending._credential import (
    CredentialSource,
    KnownSecrets,
    StaticSecrets,
    TokenFrom,
)
from tests.mock_service import mock_client
from tests.published import PublishedService

WRONG = "canary-token-7f3e9a"
"""A token the published service does not take (it wants its own): every call is a 401."""

SERVICE_WORDS = "Missing or invalid API key."


async def refusal(client: RemedyClient) -> AuthenticationError:
    """The AuthenticationError of one get through `client`."""
    async with client:
        with pytest.raises(AuthenticationError) as caught:
            await client.endpoints.get("00000000-0000-4000-8000-000000000001")
    return caught.value


async def test_a_401_names_the_token_argument_and_its_header() -> None:
    """token="..." : the service's words, then the header and `the token= argument`."""
    error = await refusal(mock_client(PublishedService().handler, token=WRONG))
    assert error.message == (
        f"{SERVICE_WORDS} (a token was sent in Authorization, from the token= argument)"
    )
    assert WRONG not in str(error)
    assert WRONG not in repr(error)


async def test_a_401_names_remedy_api_token(monkeypatch: pytest.MonkeyPatch) -> None:
    """A token read from REMEDY_API_TOKEN is named by the variable."""
    monkeypatch.setenv("REMEDY_API_TOKEN", WRONG)
    error = await refusal(mock_client(PublishedService().handler))
    assert error.message.endswith("(a token was sent in Authorization, from REMEDY_API_TOKEN)")


async def test_a_401_without_a_token_says_none_was_sent(monkeypatch: pytest.MonkeyPatch) -> None:
    """No token anywhere: the 401 says no token was sent, and where one would come from."""
    monkeypatch.delenv("REMEDY_API_TOKEN", raising=False)
    error = await refusal(mock_client(PublishedService().handler))
    assert error.message == (
        f"{SERVICE_WORDS} (no token was sent: none was given (token=) and REMEDY_API_TOKEN is "
        "not set)"
    )


async def test_a_401_after_an_empty_token_says_it_was_empty(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """token="" is told apart from no token= at all."""
    monkeypatch.delenv("REMEDY_API_TOKEN", raising=False)
    error = await refusal(mock_client(PublishedService().handler, token=""))
    assert "(no token was sent: token= was an empty string" in error.message


async def test_a_401_names_a_token_provider() -> None:
    """A token provider is named as such (the 401 comes after it was asked again)."""

    async def provider() -> str:
        return WRONG

    error = await refusal(mock_client(PublishedService().handler, token=provider))
    assert error.message.endswith(
        "(a token was sent in Authorization, from the token provider given as token=)"
    )
    assert WRONG not in str(error)


async def test_a_401_names_the_header_the_token_went_in() -> None:
    """auth_header="X-API-Key": the 401 names that header."""

    def handler(request: MockRequest) -> MockResponse:
        return MockResponse.json(401, {"error": "bad key"})

    error = await refusal(mock_client(handler, token=WRONG, auth_header="X-API-Key"))
    assert error.message == "bad key (a token was sent in X-API-Key, from the token= argument)"


async def test_a_401_names_a_profiles_token_env(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A client from a profile names the variable its token_env names, the file and profile."""
    path = tmp_path / "remedy.toml"
    path.write_text('[work]\nbase_url = "https://remedy.test"\ntoken_env = "WORK_TOKEN"\n')
    monkeypatch.setenv("WORK_TOKEN", WRONG)
    client = RemedyClient.from_config(
        path, profile="work", transport=MockTransport(PublishedService().handler)
    )
    error = await refusal(client)
    assert error.message.endswith(
        f"(a token was sent in Authorization, from WORK_TOKEN (token_env of {path} [work]))"
    )
    assert WRONG not in str(error)


async def test_a_401_names_the_remedy_api_token_a_profiles_environ_gave(
    tmp_path: Path,
) -> None:
    """from_config(environ=...) filling the token from its REMEDY_API_TOKEN names that variable."""
    path = tmp_path / "remedy.toml"
    path.write_text('[default]\nbase_url = "https://remedy.test"\n')
    client = RemedyClient.from_config(
        path,
        environ={"REMEDY_API_TOKEN": WRONG},
        transport=MockTransport(PublishedService().handler),
    )
    error = await refusal(client)
    assert error.message.endswith("(a token was sent in Authorization, from REMEDY_API_TOKEN)")


async def test_a_401_of_a_tenants_client_names_the_tenants_variable() -> None:
    """A tenant's client names the tenant and the variable holding its key."""
    tenant = Tenant("acme", token_env="ACME_TOKEN")
    clients = TenantClients(
        [tenant], environ={"ACME_TOKEN": WRONG}, transport=MockTransport(PublishedService().handler)
    )
    error = await refusal(clients["acme"])
    assert error.message.endswith(
        "(a token was sent in Authorization, from $ACME_TOKEN (tenant 'acme'))"
    )


@pytest.mark.parametrize(("status", "words"), [(403, "Forbidden."), (404, "Endpoint not found.")])
async def test_other_statuses_keep_the_services_words(status: int, words: str) -> None:
    """A 403 or 404 says what the service said, nothing about the token."""

    def handler(request: MockRequest) -> MockResponse:
        return MockResponse.json(status, {"error": words})

    async with mock_client(handler, token=WRONG) as client:
        with pytest.raises(APIStatusError) as caught:
            await client.endpoints.get("00000000-0000-4000-8000-000000000001")
    assert caught.value.status == status
    assert caught.value.message == words


def test_a_token_from_says_where_and_is_sent_as_its_text() -> None:
    """TokenFrom equals its text, formats as it, and survives pickling with its origin."""
    token = TokenFrom(WRONG, "WORK_TOKEN")
    assert token == WRONG
    assert f"Bearer {token}" == f"Bearer {WRONG}"
    copied = pickle.loads(pickle.dumps(token))
    assert (copied, copied.origin) == (WRONG, "WORK_TOKEN")


def test_the_secrets_show_how_many_never_which() -> None:
    """StaticSecrets and KnownSecrets repr a count; both carry their source."""
    source = CredentialSource("Authorization", "REMEDY_API_TOKEN")
    static = StaticSecrets((WRONG,), source)
    known = KnownSecrets(source)
    known.remember(WRONG)
    assert WRONG not in repr(static) + repr(known)
    assert static == (WRONG,)
    assert list(known) == [WRONG]
    assert static.source is known.source is source
    assert pickle.loads(pickle.dumps(static)).source == source
