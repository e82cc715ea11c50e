"""How the wire layer reports a value that does not fit: a JSON path and a reason."""

from __future__ import annotations


class WireFault(ValueError):
    """A wire value that does not fit the model; `path` is its JSON path, e.g. `$.os.family`."""

    def __init__(self, path: str, reason: str) -> None:
        super().__init__(f"{reason} at {path}")
        self.path = path
        self.reason = reason


def json_type_name(value: object) -> str:
    """Name a decoded JSON value's type the way JSON does (object, array, string, ...)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__
