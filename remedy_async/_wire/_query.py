"""Turns list filters given as keyword arguments into query parameters, before any I/O."""

from __future__ import annotations

import enum
import math
from collections.abc import Iterable, Mapping, Set
from datetime import date, datetime

from ._naming import to_camel
from ._types import format_timestamp

QueryParams = tuple[tuple[str, str], ...]

Scalar = str | int | float | bool | enum.Enum | datetime | date
FilterValue = Scalar | Iterable[Scalar] | None
"""A filter: a scalar, several scalars (sent as repeated parameters), or None (left out)."""


def encode_filters(filters: Mapping[str, FilterValue], *, respell: bool = True) -> QueryParams:
    """Return query parameters for list filters.

    Names go from snake_case to camelCase (`os_family` -> `osFamily`) unless `respell` is
    false; values: str, int and
    float as they are, bool as `true`/`false`, enums by value, datetimes as ISO 8601 (they must
    be aware), dates as ISO 8601, sequences as repeated parameters, None left out. Anything
    else is a TypeError; an empty sequence or a non-finite float is a ValueError, since neither
    has a faithful query form.
    """
    params: list[tuple[str, str]] = []
    for name, value in filters.items():
        if value is None:
            continue
        wire_name = to_camel(name) if respell else name
        if isinstance(value, str | bytes | bytearray) or not isinstance(value, Iterable):
            params.append((wire_name, _scalar(name, value)))
            continue
        if isinstance(value, Mapping):
            raise TypeError(f"filter {name!r} cannot be a mapping")
        values = sorted(value, key=str) if isinstance(value, Set) else list(value)
        if not values:
            raise ValueError(
                f"filter {name!r} is an empty sequence: it would match nothing, yet leaving it "
                "out would match everything; pass None to leave the filter out"
            )
        params.extend((wire_name, _scalar(name, item)) for item in values)
    return tuple(params)


def _scalar(name: str, value: object) -> str:
    if isinstance(value, enum.Enum):
        value = value.value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return value
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"filter {name!r} must be a finite number, got {value!r}")
        return repr(value)
    if isinstance(value, datetime):
        if value.utcoffset() is None:
            raise ValueError(
                f"filter {name!r} is a naive datetime; give it a time zone (e.g. tzinfo=UTC)"
            )
        return format_timestamp(value)
    if isinstance(value, date):
        return value.isoformat()
    raise TypeError(
        f"filter {name!r} has unsupported type {type(value).__name__}; use str, int, float, "
        "bool, an enum, a datetime or date, or a sequence of those"
    )


ExtraParams = Mapping[str, Scalar | Iterable[Scalar]]
"""Query parameters sent as given: wire names, each with one value or several."""


def encode_extra_params(params: ExtraParams | QueryParams | None) -> QueryParams:
    """Return `extra_params` as query parameters: names exactly as given, values as filters'.

    Unlike filters they are not checked against the contract, nor respelled: they are for
    parameters the real service has and the contract lacks.
    """
    if not params:
        return ()
    if isinstance(params, tuple):
        return params
    for name in params:
        if not isinstance(name, str) or not name:
            raise TypeError(f"extra_params names must be non-empty strings, got {name!r}")
    return encode_filters(params, respell=False)
