"""Looks things up in a list response without judging them: body paths and Link values.

A body path is a tuple of keys, outermost first; a step `[rel=next]` picks, in an array, the
object whose `rel` is `next` (links given as `[{"rel": "next", "href": ...}]`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

MISSING = object()
"""What `dig` returns for a path the body does not have (null is a value: None)."""


def dig(body: Any, path: tuple[str, ...]) -> Any:
    """Return the value at a body path, or MISSING."""
    value = body
    for key in path:
        if isinstance(value, dict):
            if key not in value:
                return MISSING
            value = value[key]
        elif isinstance(value, list) and key.startswith("[rel=") and key.endswith("]"):
            rel = key[5:-1]
            value = next(
                (entry for entry in value if isinstance(entry, dict) and entry.get("rel") == rel),
                MISSING,
            )
            if value is MISSING:
                return MISSING
        else:
            return MISSING
    return value


def link_values(headers: Mapping[str, str]) -> list[str]:
    """Every value of the response's Link headers (a header may be repeated)."""
    getall = getattr(headers, "getall", None)
    if getall is not None:
        return list(getall("Link", []))
    value = headers.get("Link")
    return [value] if value is not None else []
