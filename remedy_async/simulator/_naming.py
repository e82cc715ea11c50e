"""Respells record keys for a run that serves another naming than the contract's snake_case.

Records are built with snake_case keys, as the service publishes them. `--naming camel` serves
`mac_address` as `macAddress`, `pascal` as `MacAddress`, `kebab` as `mac-address`, every key at
every depth, so clients can be tested against services that differ only in spelling.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache
from typing import Any, Final

CONTRACT_NAMING: Final = "snake"
"""The spelling of record keys the service publishes."""

_BOUNDARY = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|[_\-\s]+")


@lru_cache(maxsize=4096)
def spelled(key: str, naming: str) -> str:
    """A key, written in any of the namings, as `naming` spells it: `mac_address` (or
    `macAddress`) -> `macAddress` (camel), `MacAddress` (pascal), `mac-address` (kebab)."""
    words = [word.lower() for word in _BOUNDARY.split(key) if word]
    if not words:
        return key
    if naming == "snake":
        return "_".join(words)
    if naming == "kebab":
        return "-".join(words)
    capitalised = [word[:1].upper() + word[1:] for word in words]
    if naming == "camel":
        return words[0] + "".join(capitalised[1:])
    return "".join(capitalised)  # pascal


def respeller(naming: str) -> Callable[[Any], Any]:
    """A function that respells every key of a record (identity for the contract's naming)."""
    if naming == CONTRACT_NAMING:
        return lambda record: record

    def respell(value: Any) -> Any:
        if isinstance(value, dict):
            return {spelled(key, naming): respell(inner) for key, inner in value.items()}
        if isinstance(value, list):
            return [respell(item) for item in value]
        return value

    return respell
