"""Checks resource ids and encodes each as exactly one URL path segment."""

from __future__ import annotations

import unicodedata
from urllib.parse import quote

MAX_ID_LENGTH = 1024


def id_segment(resource_id: str | int) -> str:
    """Return the id percent-encoded as one path segment, after checking it can be one.

    Ints are accepted and turned into their decimal string. Raises TypeError for other types and
    ValueError for an empty id, `.` or `..`, a control character, or more than 1024 characters.
    """
    if isinstance(resource_id, bool) or not isinstance(resource_id, str | int):
        raise TypeError(f"a resource id must be a str or int, not {type(resource_id).__name__}")
    text = str(resource_id)
    if not text:
        raise ValueError("a resource id must not be empty")
    if text in {".", ".."}:
        raise ValueError(f"{text!r} is not a valid resource id: it would change the URL path")
    if len(text) > MAX_ID_LENGTH:
        raise ValueError(
            f"a resource id must be at most {MAX_ID_LENGTH} characters, got {len(text)}"
        )
    if text.isprintable():  # the common case, checked in C: no control characters
        return quote(text, safe="")
    for position, char in enumerate(text):
        if unicodedata.category(char) == "Cc":
            raise ValueError(
                "a resource id must not contain control characters "
                f"(U+{ord(char):04X} at position {position})"
            )
    return quote(text, safe="")
