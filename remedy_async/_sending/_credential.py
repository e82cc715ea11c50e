"""The credential of a client whose token comes from a provider: asked before each attempt, and
once more after a 401; and the tokens it handed out, which everything the client shows is
scrubbed of.

A static token needs none of this: its header is set once, with the client's other headers, when
the client is made. A provider (`RemedyClient(token=provider)`, an async callable returning the
token) is asked by the sender before every attempt, so a retried attempt carries a fresh token;
its caching is its own. `Credential.headers` puts the token in the attempt's headers, reusing
the merged mapping while the provider returns the same token for the same headers (so the
transport's per-mapping header cache keeps serving it). Each token handed out is remembered,
newest first, in the client's `KnownSecrets`, which its errors, events, logs, pages and resume
tokens read live: an echo of any recent token is redacted as a static token's is. A provider
that fails, or returns what cannot be sent, is a TokenProviderError showing neither.

Where the credential comes from (`CredentialSource`: the header it goes in, and the argument,
provider, environment variable or profile it was read from) travels with the client's secrets
(`StaticSecrets`, `KnownSecrets`), so a 401 can say whether a token was sent and from where,
never which; a token read from a variable or a file says where in itself (`TokenFrom`).
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Iterator, Mapping, Sequence
from types import CoroutineType
from typing import overload

from attrs import frozen

from remedy_async._errors import TokenProviderError
from remedy_async._redact import scrub_error

TokenProvider = Callable[[], Awaitable[str]]
"""What `token=` takes besides a string: an async callable returning the token to send."""

KEPT_TOKENS = 8
"""How many of the most recent tokens a provider handed out are redacted from what is shown."""


@frozen
class CredentialSource:
    """Which header carries a client's credential and where its token came from: what a 401
    says besides the service's own words (never the token).

    Args:
        header: The header the token goes in; None when no token is sent.
        origin: Where the token came from (`the token= argument`, `REMEDY_API_TOKEN`, ...), or
            for none, why there is none.
    """

    header: str | None
    origin: str

    def said(self) -> str:
        """The sentence a 401's message carries: whether a token was sent, in which header and
        from where (`a token was sent in Authorization, from REMEDY_API_TOKEN`)."""
        if self.header is None:
            return f"no token was sent: {self.origin}"
        return f"a token was sent in {self.header}, from {self.origin}"


class TokenFrom(str):
    """A token that says where it was read (an environment variable, a profile's `token_env`,
    a tenant's token file), so a client given it can tell a 401 where its token came from; it
    is sent as the str it is, and shows nothing more than one."""

    origin: str
    """Where the token was read, such as `ACME_TOKEN (token_env of remedy.toml [default])`."""

    def __new__(cls, token: str, origin: str) -> TokenFrom:
        made = super().__new__(cls, token)
        made.origin = origin
        return made

    def __reduce__(self) -> tuple[type[TokenFrom], tuple[str, str]]:
        return TokenFrom, (str(self), self.origin)


class StaticSecrets(tuple[str, ...]):
    """A client's token given as a string (or none): what its errors, events and logs are
    scrubbed of, and the `CredentialSource` a 401 names."""

    source: CredentialSource

    def __new__(cls, tokens: tuple[str, ...], source: CredentialSource) -> StaticSecrets:
        made = super().__new__(cls, tokens)
        made.source = source
        return made

    def __repr__(self) -> str:
        return f"<StaticSecrets {len(self)} tokens>"

    def __reduce__(self) -> tuple[type[StaticSecrets], tuple[tuple[str, ...], CredentialSource]]:
        return StaticSecrets, (tuple(self), self.source)


class KnownSecrets(Sequence[str]):
    """The tokens a client's provider has handed out, newest first (the last `KEPT_TOKENS`):
    what the client scrubs from its errors, events, logs and resume tokens.

    Read live by everything holding it, so a value made before a token was handed out is still
    scrubbed of it when it is shown later. Its repr shows how many, never which. `source` is
    the provider's `CredentialSource`, which a 401 names."""

    __slots__ = ("_tokens", "source")

    def __init__(self, source: CredentialSource | None = None) -> None:
        self._tokens: list[str] = []
        self.source = source

    def __repr__(self) -> str:
        return f"<KnownSecrets {len(self._tokens)} tokens>"

    def remember(self, token: str) -> None:
        """Put `token` first: the one sent now."""
        tokens = self._tokens
        if tokens and tokens[0] == token:
            return
        if token in tokens:
            tokens.remove(token)
        tokens.insert(0, token)
        del tokens[KEPT_TOKENS:]

    @overload
    def __getitem__(self, index: int) -> str: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[str]: ...

    def __getitem__(self, index: int | slice) -> str | Sequence[str]:
        return self._tokens[index]

    def __len__(self) -> int:
        return len(self._tokens)

    def __iter__(self) -> Iterator[str]:
        return iter(self._tokens)


class Credential:
    """Puts a token provider's token in each attempt's headers, as `header: scheme token`.

    Args:
        provider: The async callable returning the token.
        header: The header the token goes in (`Authorization`).
        scheme: The word before the token (`Bearer`), or None for the bare token.
        secrets: Where each token handed out is remembered, for redaction.
    """

    def __init__(
        self, provider: TokenProvider, header: str, scheme: str | None, secrets: KnownSecrets
    ) -> None:
        self._provider = provider
        self._header = header
        self._scheme = scheme
        self.secrets = secrets
        self._last: tuple[Mapping[str, str], str, Mapping[str, str]] | None = None
        """The headers most recently given, the token, and the two merged."""

    def __repr__(self) -> str:
        return f"<Credential {self._header} from a token provider>"

    async def token(self) -> str:
        """Ask the provider for the token and remember it; TokenProviderError when it fails or
        returns what cannot be sent (neither the token nor its value shown)."""
        failure: Exception | None = None
        awaited = False
        try:
            asked = self._provider()
            awaited = type(asked) is CoroutineType or inspect.isawaitable(asked)
            token: object = await asked if awaited else None
        except Exception as error:
            failure = error
        if failure is not None:  # raised outside the handler: no unscrubbed context chained
            raise self._failed(failure)
        last = self._last
        if last is not None and token == last[1]:  # the token handed out last: checked, known
            return last[1]
        if not awaited:
            raise TokenProviderError(
                "the token provider must be an async callable (async def) returning the token; "
                f"it returned a {type(asked).__name__} without awaiting anything"
            )
        if not isinstance(token, str) or not token:
            shown = "an empty str" if isinstance(token, str) else type(token).__name__
            raise TokenProviderError(f"the token provider returned {shown}, not a token")
        if any(char in token for char in "\r\n\0"):
            raise TokenProviderError(
                "the token provider returned a token with a line break or NUL, which cannot "
                "be sent in a header"
            )
        self.secrets.remember(token)
        return token

    def _failed(self, error: Exception) -> TokenProviderError:
        """The error of a provider that raised `error`: its cause, scrubbed of every token."""
        failed = TokenProviderError(
            f"the token provider raised {type(error).__name__}; no request was sent"
        )
        failed.__cause__ = error
        failed.__suppress_context__ = True
        scrub_error(failed, self.secrets)
        return failed

    def carrying(self, headers: Mapping[str, str], token: str) -> Mapping[str, str]:
        """`headers` with the credential header carrying `token`: the same mapping as last
        time while both are the same."""
        last = self._last
        if last is not None and last[0] is headers and last[1] == token:
            return last[2]
        value = f"{self._scheme} {token}" if self._scheme else token
        merged = {**headers, self._header: value}
        self._last = (headers, token, merged)
        return merged

    async def headers(self, headers: Mapping[str, str]) -> Mapping[str, str]:
        """`headers` with a token just asked of the provider."""
        return self.carrying(headers, await self.token())

    async def renewed(
        self, headers: Mapping[str, str], refused: Mapping[str, str]
    ) -> Mapping[str, str] | None:
        """After the service refused the token in `refused` (a 401): `headers` with the token
        the provider gives now, or None when it gives the refused one again."""
        token = await self.token()
        renewed = self.carrying(headers, token)
        if renewed.get(self._header) == refused.get(self._header):
            return None
        return renewed
