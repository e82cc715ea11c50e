"""Keeps secrets out of everything the library shows: messages, excerpts, events and logs.

A token the service echoes back (in an error body, a cursor, a next link) is replaced by
`[REDACTED]`, including the forms an echo commonly takes.
"""

from __future__ import annotations

from collections.abc import Iterable
from urllib.parse import quote

import orjson

from ._errors import excerpt

REDACTED = "[REDACTED]"


def redact(text: str, secrets: Iterable[str]) -> str:
    """Replace each secret in text, so a token the service echoes back never escapes.

    Also catches the forms an echo commonly takes (JSON-escaped, `\\/` for `/`,
    percent-encoded) and a secret's beginning left at the very end of a body cut short.
    """
    for secret in secrets:
        if not secret:
            continue
        for form in _echoed_forms(secret):
            text = text.replace(form, REDACTED)
        for length in range(len(secret) - 1, min(len(secret), 4) - 1, -1):
            if text.endswith(secret[:length]):
                text = text[:-length] + REDACTED
                break
    return text


def _echoed_forms(secret: str) -> list[str]:
    forms = [
        secret,
        orjson.dumps(secret).decode()[1:-1],
        secret.replace("/", "\\/"),
        quote(secret, safe=""),
    ]
    return sorted(set(forms), key=len, reverse=True)


def body_excerpt(body: bytes, secrets: Iterable[str]) -> str | None:
    """Return a short, redacted excerpt of a body for an error message (None when blank)."""
    text = redact(body.decode("utf-8", errors="replace"), secrets).strip()
    return excerpt(text) if text else None
