"""Keeps secrets out of everything the library shows: messages, excerpts, URLs, events and logs.

A token the service echoes back (in an error body, a cursor, a next link's path, host, user
information or fragment, a redirect, a header) is replaced by `[REDACTED]`, in every form an
echo takes: as is, in another letter case (hosts are lower-cased), JSON-escaped, or
percent-encoded character by character as URLs mix them (`/` kept, `+` and `=` encoded, either
hex case). Three choke points cover everything shown: `shown_url` for a URL in a message,
`scrub_error` for an error leaving the library, and `redact` for any other text (`redact_value`
for a parsed JSON value, such as the body an error keeps: `kept_body`).

A record holds no secret of the client's, but the service may send one of its own in a field:
`credential_key` says which keys are named like a credential, whose values a record's repr hides.
"""

from __future__ import annotations

import functools
import itertools
import json
import re
from collections.abc import Iterable, Mapping
from typing import Any

import orjson
from multidict import CIMultiDict, CIMultiDictProxy
from yarl import URL

from ._errors import BODY_LIMIT, APIError, APIStatusError, DecodeError, RemedyError, excerpt
from ._wire._json import NotJSON, loads

REDACTED = "[REDACTED]"


def redact(text: str, secrets: Iterable[str]) -> str:
    """Replace each secret in text, so a token the service echoes back never escapes.

    Also catches the forms an echo commonly takes (JSON-escaped, `\\/` for `/`, each character
    percent-encoded or not, `+` for a space) and a secret's beginning left at the very end of
    a body cut short.
    """
    for secret in secrets:
        if not secret:
            continue
        # What an earlier pass (or another secret) left is no echo: a short secret such as
        # `t` must not be found again inside `[REDACTED]`.
        echoes = _echoes(secret)
        text = REDACTED.join(echoes.sub(REDACTED, piece) for piece in text.split(REDACTED))
        for length in range(len(secret) - 1, min(len(secret), 4) - 1, -1):
            if text.endswith(secret[:length]) and not text.endswith(REDACTED):
                text = text[:-length] + REDACTED
                break
    return text


@functools.lru_cache(maxsize=16)
def _echoes(secret: str) -> re.Pattern[str]:
    """A pattern matching `secret` in any echoed form, decided character by character."""
    return re.compile("".join(_char_forms(char) for char in secret))


def _char_forms(char: str) -> str:
    """A pattern matching one character of a secret in each form an echo may give it
    (`_form_makers`), each form once, longest first. No two alternatives match the same text
    (as `(?i:a)` beside `A` and `a` did), so a text that nearly echoes a secret is refused in time
    linear in its length: with overlapping alternatives the engine tried every way of matching
    each character, and a host name holding a secret's lowered first 40 characters took it
    minutes."""
    forms = sorted(set(_form_makers(char)), key=lambda form: (-len(form), form))
    return "(?:" + "|".join(map(re.escape, forms)) + ")"


_SECRET_MARK = re.compile("\x1bsecret:([0-9]+):([0-9]*)\x1b")


def _form_makers(char: str) -> tuple[str, ...]:
    """Every form of one character an echo may take, in a fixed order (a form's code is its
    index here)."""
    data = char.encode()
    return (
        char,
        "".join(f"%{byte:02X}" for byte in data),
        "".join(f"%{byte:02x}" for byte in data),
        orjson.dumps(char).decode()[1:-1],
        json.dumps(char)[1:-1],
        json.dumps(char)[1:-1].upper().replace("\\U", "\\u"),
        "\\/" if char == "/" else char,
        "+" if char == " " else char,
        char.upper(),
        char.lower(),
    )


@functools.lru_cache(maxsize=16)
def _echo_parts(secret: str) -> re.Pattern[str]:
    """Like `_echoes`, with one group per character of the secret."""
    return re.compile("".join(f"({_char_forms(char)})" for char in secret))


def conceal(text: str, secrets: Iterable[str]) -> str:
    """Replace each echo of a secret by a mark saying which secret and in which form it was,
    never what it was, so `reveal` can put the secret back exactly as it was spelled."""
    for index, secret in enumerate(secrets):
        if not secret:
            continue

        def mark(match: re.Match[str], index: int = index, secret: str = secret) -> str:
            codes = "".join(
                str(_form_makers(char).index(found))
                for char, found in zip(secret, match.groups(), strict=True)
            )
            return f"\x1bsecret:{index}:{codes}\x1b"

        text = _echo_parts(secret).sub(mark, text)
    return text


def reveal(text: str, secrets: Iterable[str]) -> str:
    """Put the secrets back where `conceal` marked them, spelled as they were (ValueError when
    a marked secret is not among `secrets`)."""
    secrets = tuple(secrets)

    def unmark(match: re.Match[str]) -> str:
        index, codes = int(match.group(1)), match.group(2)
        if index >= len(secrets) or not secrets[index]:
            raise ValueError("it holds a credential the service echoed, and this client has none")
        secret = secrets[index]
        if len(codes) != len(secret):  # another credential now: spell it as the first char was
            codes = (codes[:1] or "0") * len(secret)
        return "".join(
            _form_makers(char)[int(code)] for char, code in zip(secret, codes, strict=True)
        )

    return _SECRET_MARK.sub(unmark, text)


def redact_headers(headers: Mapping[str, str], secrets: Iterable[str]) -> Mapping[str, str]:
    """Return the headers with every secret redacted from their values (the same object when
    there is no secret to look for)."""
    secrets = tuple(secret for secret in secrets if secret)
    if not secrets:
        return headers
    return CIMultiDictProxy(
        CIMultiDict((name, redact(value, secrets)) for name, value in headers.items())
    )


def shown_url(url: URL | str, secrets: Iterable[str] = (), *, query: bool = False) -> str:
    """A URL as messages show it: without user information or fragment, without its query
    unless `query` (a cursor or next link there may hold a secret in a form not recognised),
    and with every secret redacted from whatever part still holds one (path, host, query)."""
    try:
        parsed = url if isinstance(url, URL) else URL(url)
        parsed = parsed.with_user(None).with_fragment(None)
        if not query:
            parsed = parsed.with_query(None)
        text = str(parsed)
    except (ValueError, TypeError, UnicodeError):
        return "<unusable URL>"
    return redact(text, secrets)


def scrub_error(error: RemedyError, secrets: Iterable[str]) -> None:
    """Redact the secrets from every text an error shows, in place, whoever made the error.

    Its message, URL, request id, code, detail, excerpt, body and headers, and any exception it
    was raised from whose text holds a secret (replaced by a stand-in with the redacted text).
    """
    secrets = tuple(secret for secret in secrets if secret)
    if not secrets:
        return
    if isinstance(error, APIError):
        error.url = redact(error.url, secrets)
        message = redact(error.message, secrets)
        if message != error.message:
            error.message = message
            error.args = (message,)
    elif error.args and isinstance(error.args[0], str):
        error.args = (redact(error.args[0], secrets), *error.args[1:])
    if isinstance(error, APIStatusError | DecodeError):
        if error.request_id:
            error.request_id = redact(error.request_id, secrets)
        if error.body_excerpt:
            error.body_excerpt = redact(error.body_excerpt, secrets)
        if error.body is not None:
            error.body = redact_value(error.body, secrets)
    if isinstance(error, APIStatusError):
        error.code = redact(error.code, secrets) if error.code else error.code
        error.detail = redact(error.detail, secrets) if error.detail else error.detail
        error.headers = redact_headers(error.headers, secrets)
    _scrub_causes(error, secrets)


class EchoedSecretError(Exception):
    """Stands in for an exception whose text held a secret the service echoed."""


def _scrub_causes(error: BaseException, secrets: tuple[str, ...]) -> None:
    seen: set[int] = set()
    current: BaseException = error
    while id(current) not in seen:
        seen.add(id(current))
        for link in ("__cause__", "__context__"):
            cause = getattr(current, link)
            if cause is None or isinstance(cause, RemedyError):
                continue
            text = f"{type(cause).__name__}: {cause}"
            shown = redact(text, secrets)
            if shown != text or redact(repr(cause), secrets) != repr(cause):
                stand_in = EchoedSecretError(shown)
                stand_in.__traceback__ = cause.__traceback__
                setattr(current, link, stand_in)
        following = current.__cause__ or current.__context__
        if following is None:
            return
        if isinstance(following, RemedyError):
            scrub_error(following, secrets)  # which goes on down the chain
            return
        current = following


def body_excerpt(body: bytes, secrets: Iterable[str]) -> str | None:
    """Return a short, redacted excerpt of a body for an error message (None when blank)."""
    text = redact(body.decode("utf-8", errors="replace"), secrets).strip()
    return excerpt(text) if text else None


def kept_body(body: bytes, secrets: Iterable[str], content_type: str = "") -> tuple[object, bool]:
    """Return the body an error keeps, and whether it was cut: its parsed JSON (numbers exact)
    when it is JSON, else its text, with every secret redacted wherever it appears.

    A body is read as JSON when its content type says so (`application/json`, `...+json`) or
    its text begins with `{` or `[`, and it parses; one over `BODY_LIMIT` bytes is kept as the
    text of its first `BODY_LIMIT` bytes (cut: True). An empty body is None.

    Args:
        body: The response body's bytes.
        secrets: What to redact (the client's token).
        content_type: The response's media type, lower-cased.
    """
    if not body:
        return None, False
    secrets = tuple(secrets)
    cut = len(body) > BODY_LIMIT
    if cut:
        body = body[:BODY_LIMIT]
    text = body.decode("utf-8", errors="replace")
    if not cut and ("json" in content_type or text.lstrip()[:1] in ("{", "[")):
        try:
            value = loads(body)
        except NotJSON:  # not JSON after all, or nested deeper than the parser goes: the text
            pass
        else:
            return redact_value(value, secrets), False
    return redact(text, secrets), cut


def redact_value(value: object, secrets: Iterable[str]) -> object:
    """Return a parsed JSON value with every secret redacted from its strings, keys included
    (a number that spells one becomes the text `[REDACTED]`), however deep; the value itself
    when there is no secret to look for."""
    secrets = tuple(secret for secret in secrets if secret)
    if not secrets:
        return value
    top: list[object] = [None]
    # (where the copy goes, under which key or index, what to copy): a loop, not recursion,
    # so no depth of nesting the parser accepted can fail here
    todo: list[tuple[Any, Any, object]] = [(top, 0, value)]
    while todo:
        into, at, item = todo.pop()
        if isinstance(item, str):
            into[at] = redact(item, secrets)
        elif isinstance(item, dict):
            copy: dict[object, object] = {}
            into[at] = copy
            for key, inner in item.items():
                shown = redact(key, secrets) if isinstance(key, str) else key
                copy[shown] = None  # its place, in the order sent
                todo.append((copy, shown, inner))
        elif isinstance(item, list | tuple):
            items: list[object] = [None] * len(item)
            into[at] = items
            todo.extend((items, index, inner) for index, inner in enumerate(item))
        elif isinstance(item, int | float) and not isinstance(item, bool):
            spelt = repr(item) if not isinstance(item, int) or item.bit_length() < 4000 else ""
            into[at] = REDACTED if spelt and redact(spelt, secrets) != spelt else item
        else:
            into[at] = item
    return top[0]


CREDENTIAL_WORDS = frozenset(
    {
        "password",
        "passwd",
        "passphrase",
        "secret",
        "token",
        "apikey",
        "credential",
        "credentials",
        "authorization",
        "cookie",
    }
)
"""Words that make a key a credential's, wherever they stand in it (`csrf_token`, `apiToken`,
`client-secret`); `api_key`, `access_key` and `private_key` count too (`CREDENTIAL_PAIRS`)."""

CREDENTIAL_PAIRS = frozenset({("api", "key"), ("access", "key"), ("private", "key")})
"""Two words that together make a key a credential's (`api_key`, `AccessKey`)."""

_WORD = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")


def credential_key(name: object) -> bool:
    """Whether a key is named like a credential (`password`, `token`, `secret`, `api_key`,
    `Authorization`, ...; see `CREDENTIAL_WORDS`), in any naming: its value may be one."""
    if not isinstance(name, str):
        return False
    words = [word.lower() for word in _WORD.findall(name)]
    return any(word in CREDENTIAL_WORDS for word in words) or any(
        pair in CREDENTIAL_PAIRS for pair in itertools.pairwise(words)
    )


# A setting's value in a message -------------------------------------------------------------

_TOKEN_WORD = re.compile(r"[A-Za-z0-9._~+/=-]{16,}")
"""One word of the characters API keys and tokens are made of (base64, base64url, hex, JWT)."""

_HOST = re.compile(
    r"(?:localhost|(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z]{2,63}"
    r"|\d{1,3}(?:\.\d{1,3}){3}|\[[0-9A-F:.]+\])\.?(?::\d{1,5})?",
    re.IGNORECASE,
)
"""A host name with a dot and an alphabetic top-level label, localhost or an IPv4 address, and
an optional port (or a bracketed IPv6 address): what a URL without its scheme starts with
(`api.furl.ai:443`)."""

_LABEL = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?::\d{1,5})?")
"""A host name of one label (`proxy:3128`), which a URL with a scheme may name."""

_AUTH_WORDS = ("bearer ", "basic ", "token ", "apikey ")


def looks_like_token(text: str) -> bool:
    """Whether `text`, given where a URL or name goes, looks like an API key or token: one word
    of at least 16 token characters with letters and digits that is no host name, or a whole
    `Bearer ...` header value."""
    text = text.strip()
    if text.lower().startswith(_AUTH_WORDS):
        return True
    if not _TOKEN_WORD.fullmatch(text) or _HOST.fullmatch(text.split("/", 1)[0]):
        return False
    return any(char.isdigit() for char in text) and any(char.isalpha() for char in text)


def described_url(value: object) -> str:
    """A URL setting's value as a message may show it: its scheme and host at most (never its
    user information, path, query or fragment, where a secret may be), or what it looks like
    (a token pasted where the URL goes) when it is not a URL."""
    if isinstance(value, URL):
        value = str(value)
    if not isinstance(value, str):
        return f"a value of type {type(value).__name__}"
    text = value.strip()
    if not text:
        return "an empty string"
    if looks_like_token(text):
        return f"what looks like a token ({len(text)} characters), not a URL"
    if "://" not in text:
        host, _, rest = text.partition("/")
        if _HOST.fullmatch(host):
            more = "/…" if rest else ""
            return f"'{host}{more}', which has no scheme (such as https://)"
        return f"{len(text)} characters that are not a URL"
    scheme, _, after = text.partition("://")
    host = after.split("/", 1)[0].split("?", 1)[0].split("#", 1)[0].rpartition("@")[2]
    named = _HOST.fullmatch(host) or (_LABEL.fullmatch(host) and not looks_like_token(host))
    if not scheme.isascii() or not scheme.isalnum() or (host and not named):
        return f"a {len(text)}-character URL whose scheme or host is not usable"
    rest = after.removeprefix(after.split("/", 1)[0].split("?", 1)[0].split("#", 1)[0])
    return f"'{scheme.lower()}://{host}{'/…' if rest.strip('/') else ''}'"


def shown_value(value: object) -> str:
    """A setting's value as a message may show it: as it is when it cannot hold a secret (a
    number, a boolean, None, a short word), else by its type or as `described_url` does."""
    if value is None or isinstance(value, int | float):  # bool too
        return repr(value)
    if isinstance(value, str):
        if looks_like_token(value):
            return f"what looks like a token ({len(value.strip())} characters)"
        if "://" in value:
            return described_url(value)
        return repr(value) if len(value) <= 40 else f"a text of {len(value)} characters"
    return f"a value of type {type(value).__name__}"
