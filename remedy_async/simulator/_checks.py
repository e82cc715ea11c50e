"""Checks and conversions of configuration values that need no simulator names.

Each check is an attrs validator (`(instance, attribute, value)`, raising ValueError or
TypeError naming the field); each conversion an attrs converter. `_config` uses them for
SimulatorConfig's and FaultSpec's fields.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Any

import attrs

HEADER_NAME = re.compile(r"^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")
"""An HTTP header name (an RFC 9110 token)."""


def to_routes(value: str | Iterable[str] | None) -> tuple[str, ...] | None:
    if value is None:
        return None
    if isinstance(value, str):
        return tuple(part for part in value.split(",") if part)
    return tuple(value)


def fraction(_: object, attribute: attrs.Attribute[Any], value: float) -> None:
    if not 0.0 <= value <= 1.0:
        raise ValueError(f"{attribute.name} must be between 0 and 1, got {value!r}")


def non_negative(_: object, attribute: attrs.Attribute[Any], value: float) -> None:
    if value < 0:
        raise ValueError(f"{attribute.name} must not be negative, got {value!r}")


def one_of(choices: tuple[str, ...]) -> Any:
    def check(_: object, attribute: attrs.Attribute[Any], value: str) -> None:
        if value not in choices:
            raise ValueError(f"{attribute.name} must be one of {', '.join(choices)}; got {value!r}")

    return check


def integer(_: object, attribute: attrs.Attribute[Any], value: object) -> None:
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError(f"{attribute.name} must be an int, got {value!r}")


def positive(_: object, attribute: attrs.Attribute[Any], value: float) -> None:
    if value <= 0:
        raise ValueError(f"{attribute.name} must be positive, got {value!r}")


def port(_: object, attribute: attrs.Attribute[Any], value: int) -> None:
    if not 0 <= value <= 65535:
        raise ValueError(f"{attribute.name} must be between 0 and 65535, got {value!r}")


def token(_: object, attribute: attrs.Attribute[Any], value: str | None) -> None:
    if value is not None and (not value or any(char in value for char in "\r\n\0")):
        raise ValueError(f"{attribute.name} must be a non-empty single-line string, or None")


def header_name(_: object, attribute: attrs.Attribute[Any], value: str) -> None:
    if not HEADER_NAME.match(value):
        raise ValueError(f"{attribute.name} must be an HTTP header name, got {value!r}")


def scheme(_: object, attribute: attrs.Attribute[Any], value: str | None) -> None:
    if value is not None and not HEADER_NAME.match(value):
        raise ValueError(f"{attribute.name} must be a single word such as 'Bearer', or None")


def to_now(value: datetime | str | None) -> datetime | None:
    """`now` in UTC: an aware datetime, or an ISO 8601 string (read as UTC without an offset)."""
    if value is None:
        return None
    if isinstance(value, str):
        try:
            moment = datetime.fromisoformat(value)
        except ValueError:
            raise ValueError(
                f"now must be an ISO 8601 date-time such as 2024-06-01T00:00:00Z, got {value!r}"
            ) from None
        value = moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)
    if not isinstance(value, datetime):
        raise TypeError(f"now must be a datetime (or an ISO 8601 string), got {value!r}")
    if value.tzinfo is None:
        raise ValueError(
            f"now must be timezone-aware, such as datetime(2024, 6, 1, tzinfo=UTC); got {value!r}"
        )
    return value.astimezone(UTC)


def masked(token: str | None) -> str:
    return "None" if token is None else "'***'"
