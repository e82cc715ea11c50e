"""Respells record keys for a run that serves another naming than the contract's camelCase.

`--naming snake` serves `last_seen_at`, `pascal` `LastSeenAt`, `kebab` `last-seen-at`, every key
at every depth, so clients can be tested against services that differ only in spelling.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache
from typing import Any

_BOUNDARY = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


@lru_cache(maxsize=4096)
def spelled(key: str, naming: str) -> str:
    """A camelCase key as `naming` spells it: `lastSeenAt` -> `last_seen_at` (snake)."""
    if naming == "camel":
        return key
    words = _BOUNDARY.sub(" ", key).lower().split()
    if naming == "snake":
        return "_".join(words)
    if naming == "kebab":
        return "-".join(words)
    return "".join(word[:1].upper() + word[1:] for word in words)  # pascal


def respeller(naming: str) -> Callable[[Any], Any]:
    """A function that respells every key of a record (identity for camelCase)."""
    if naming == "camel":
        return lambda record: record

    def respell(value: Any) -> Any:
        if isinstance(value, dict):
            return {spelled(key, naming): respell(inner) for key, inner in value.items()}
        if isinstance(value, list):
            return [respell(item) for item in value]
        return value

    return respell
