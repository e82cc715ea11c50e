"""Keeps secrets out of everything the library shows: messages, excerpts, URLs, events and logs.

A token the service echoes back (in an error body, a cursor, a next link, a redirect) is
replaced by `[REDACTED]`, in every form an echo takes: as is, JSON-escaped, or percent-encoded
character by character as URLs mix them (`/` kept, `+` and `=` encoded, either hex case).
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Iterable, Mapping

import orjson
from multidict import CIMultiDict, CIMultiDictProxy

from ._errors import APIError, excerpt

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
        text = _echoes(secret).sub(REDACTED, text)
        for length in range(len(secret) - 1, min(len(secret), 4) - 1, -1):
            if text.endswith(secret[:length]):
                text = text[:-length] + REDACTED
                break
    return text


@functools.lru_cache(maxsize=16)
def _echoes(secret: str) -> re.Pattern[str]:
    """A pattern matching `secret` in any echoed form, decided character by character."""
    return re.compile("".join(_char_forms(char) for char in secret))


def _char_forms(char: str) -> str:
    forms = {
        re.escape(char),
        "(?i:" + "".join(f"%{byte:02x}" for byte in char.encode()) + ")",
        re.escape(orjson.dumps(char).decode()[1:-1]),
        "(?i:" + re.escape(json.dumps(char)[1:-1]) + ")",
    }
    if char == "/":
        forms.add(re.escape("\\/"))
    if char == " ":
        forms.add(re.escape("+"))
    return "(?:" + "|".join(sorted(forms, key=lambda form: (-len(form), form))) + ")"


def redact_headers(headers: Mapping[str, str], secrets: Iterable[str]) -> Mapping[str, str]:
    """Return the headers with every secret redacted from their values (the same object when
    there is no secret to look for)."""
    secrets = tuple(secret for secret in secrets if secret)
    if not secrets:
        return headers
    return CIMultiDictProxy(
        CIMultiDict((name, redact(value, secrets)) for name, value in headers.items())
    )


def redact_error(error: APIError, secrets: Iterable[str]) -> None:
    """Redact the secrets from an error's URL and message, in place, whoever made the error."""
    secrets = tuple(secret for secret in secrets if secret)
    if not secrets:
        return
    error.url = redact(error.url, secrets)
    message = redact(error.message, secrets)
    if message != error.message:
        error.message = message
        error.args = (message,)


def body_excerpt(body: bytes, secrets: Iterable[str]) -> str | None:
    """Return a short, redacted excerpt of a body for an error message (None when blank)."""
    text = redact(body.decode("utf-8", errors="replace"), secrets).strip()
    return excerpt(text) if text else None
