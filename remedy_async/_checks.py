"""Checks of arguments that every layer shares, raising before any I/O."""

from __future__ import annotations


def check_count(name: str, value: int | None, minimum: int) -> None:
    """ValueError unless `value` is None or an int of at least `minimum` (bools are not)."""
    if value is not None and (
        isinstance(value, bool) or not isinstance(value, int) or value < minimum
    ):
        raise ValueError(f"{name} must be an int >= {minimum} or None, got {value!r}")
