"""A token provider's credential: the token asked for and put in headers, the tokens known for
redaction, and a provider that fails or returns what cannot be sent."""

from __future__ import annotations

import traceback
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from remedy_async import TokenProviderError
from remedy_async._sending._credential import KEPT_TOKENS, Credential, KnownSecrets
from tests.loopback import CANARY

BASE = {"Accept": "application/json"}


def credential_of(provider: Callable[[], Any], scheme: str | None = "Bearer") -> Credential:
    return Credential(provider, "Authorization", scheme, KnownSecrets())


def tokens(*values: str) -> Callable[[], Awaitable[str]]:
    """A provider handing out `values` in turn."""
    given = iter(values)

    async def provider() -> str:
        return next(given)

    return provider


async def test_the_token_goes_in_the_credential_header_with_its_scheme() -> None:
    """`Authorization: Bearer <token>`, the other headers kept; without a scheme, bare."""
    assert await credential_of(tokens("t-1")).headers(BASE) == {
        "Accept": "application/json",
        "Authorization": "Bearer t-1",
    }
    assert (await credential_of(tokens("t-1"), None).headers(BASE))["Authorization"] == "t-1"


async def test_the_same_token_for_the_same_headers_is_the_same_mapping() -> None:
    """While the provider returns the same token, the headers are one mapping (the transport
    reuses what it made of them); a new token, or other headers, make a new one."""
    credential = credential_of(tokens("t-1", "t-1", "t-2", "t-2"))
    first = await credential.headers(BASE)
    assert await credential.headers(BASE) is first
    renewed = await credential.headers(BASE)
    assert renewed is not first
    assert renewed["Authorization"] == "Bearer t-2"
    assert await credential.headers(dict(BASE)) is not renewed


async def test_renewal_gives_headers_with_another_token_or_none() -> None:
    """After a refusal, the provider is asked again: headers carrying its new token, or None
    when it hands back the token refused."""
    credential = credential_of(tokens("old", "new", "new"))
    refused = await credential.headers(BASE)
    renewed = await credential.renewed(BASE, refused)
    assert renewed is not None
    assert renewed["Authorization"] == "Bearer new"
    assert await credential.renewed(BASE, renewed) is None


async def test_every_token_handed_out_is_known_newest_first() -> None:
    """The known secrets are the tokens handed out, newest first, each once."""
    credential = credential_of(tokens("a", "b", "a", "c"))
    for _ in range(4):
        await credential.token()
    assert list(credential.secrets) == ["c", "a", "b"]


def test_only_the_latest_tokens_are_kept_and_none_is_shown() -> None:
    """At most `KEPT_TOKENS` are kept, the oldest dropped; the repr counts them only."""
    known = KnownSecrets()
    for n in range(KEPT_TOKENS + 3):
        known.remember(f"{CANARY}-{n}")
    assert len(known) == KEPT_TOKENS
    assert known[0] == f"{CANARY}-{KEPT_TOKENS + 2}"
    assert f"{CANARY}-2" not in known
    assert repr(known) == f"<KnownSecrets {KEPT_TOKENS} tokens>"


async def test_a_provider_that_raises_is_a_token_provider_error_scrubbed_of_known_tokens() -> None:
    """A provider's exception is the cause of a TokenProviderError; one whose text holds a
    token handed out before is replaced by a stand-in with it redacted, traceback included."""
    calls = 0

    async def provider() -> str:
        nonlocal calls
        calls += 1
        if calls == 1:
            return CANARY
        raise RuntimeError(f"could not refresh {CANARY}")

    credential = credential_of(provider)
    await credential.token()
    with pytest.raises(TokenProviderError, match="raised RuntimeError") as caught:
        await credential.token()
    shown = "".join(traceback.format_exception(caught.value))
    assert CANARY not in shown
    assert "could not refresh [REDACTED]" in shown
    assert caught.value.__context__ is None


async def test_a_provider_s_own_error_is_kept_as_the_cause() -> None:
    """An exception that shows no token is the TokenProviderError's cause, as raised."""
    problem = ConnectionError("auth server down")

    async def provider() -> str:
        raise problem

    with pytest.raises(TokenProviderError) as caught:
        await credential_of(provider).token()
    assert caught.value.__cause__ is problem


@pytest.mark.parametrize(
    ("returned", "match"),
    [
        (None, "returned NoneType, not a token"),
        (b"bytes", "returned bytes, not a token"),
        ("", "returned an empty str"),
        (f"{CANARY}\r\nX-Evil: 1", "line break or NUL"),
    ],
)
async def test_what_is_not_a_token_is_refused_unshown(returned: object, match: str) -> None:
    """A provider returning something that cannot be sent is a TokenProviderError naming what
    was wrong, never the value."""

    async def provider() -> object:
        return returned

    with pytest.raises(TokenProviderError, match=match) as caught:
        await credential_of(provider).token()
    assert CANARY not in str(caught.value)


async def test_a_plain_function_is_refused_without_showing_what_it_returned() -> None:
    """A provider that is not async (returns the token itself) is refused, the token unshown."""
    with pytest.raises(TokenProviderError, match="must be an async callable") as caught:
        await credential_of(lambda: CANARY).token()
    assert CANARY not in str(caught.value)


async def test_a_provider_that_raises_when_called_is_caught_too() -> None:
    """A provider failing before it returns an awaitable is a TokenProviderError as well."""

    def provider() -> Awaitable[str]:
        raise KeyError("no key configured")

    with pytest.raises(TokenProviderError, match="raised KeyError"):
        await credential_of(provider).token()


def test_the_credential_shows_no_token() -> None:
    """A Credential's repr names the header, never a token."""
    assert repr(credential_of(tokens(CANARY))) == "<Credential Authorization from a token provider>"
