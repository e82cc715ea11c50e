"""The wire's rules for types the models use: timestamps as the service writes them and as
they are read, `X | Y` unions, enums open to unknown values, JSON's names for its types, and
`WireFault`, how a value that does not fit is reported (a JSON path and a reason). Shared by the
converter, the fast path, the typed views, the query encoder, the Arrow schema and the page
readers, and importing nothing of theirs."""

from __future__ import annotations

import enum
import types
import typing
from datetime import UTC, datetime
from typing import Any

import attrs

from ._json import msgspec_module


def format_timestamp(value: datetime) -> str:
    """Write a datetime as ISO 8601, with `Z` for UTC as the service does."""
    text = value.isoformat()
    return text[:-6] + "Z" if text.endswith("+00:00") else text


def read_timestamp(text: str) -> datetime:
    """Read a wire timestamp as an aware datetime (UTC when it names no offset), as every way
    of reading a record reads it.

    RFC 3339 text is read as msgspec reads it, which is how the typed views decode it in C:
    `T`/`t` and `Z`/`z` in either case, a fraction finer than a microsecond rounded to the
    nearest one. Other ISO 8601 text (a date alone, a time without seconds, an offset with
    seconds) is read by `datetime.fromisoformat`. ValueError for text neither reads.
    """
    msgspec = msgspec_module()
    try:
        parsed: datetime = msgspec.convert(text, datetime)
    except msgspec.ValidationError:
        parsed = datetime.fromisoformat(text)
    return parsed if parsed.tzinfo is not None else parsed.replace(tzinfo=UTC)


SEVENTH_FRACTION_DIGIT = 26
"""Where RFC 3339 text holds the seventh digit of a second (`2026-03-01T12:00:00.1234567Z`).
Text shorter than that, or without a digit there, has no digit finer than a microsecond, and
`fromisoformat` reads it as `read_timestamp` does, so the fast path calls it directly."""


def union_members(type_: Any) -> tuple[Any, ...]:
    """The members of a `X | Y` union type; () for any other type."""
    return typing.get_args(type_) if isinstance(type_, types.UnionType) else ()


def open_enum_of(type_: Any) -> type[enum.Enum] | None:
    """Return E for `E | str` or `E | str | None` (an enum open to unknown values), else None."""
    members = [member for member in union_members(type_) if member is not type(None)]
    enums = [m for m in members if isinstance(m, type) and issubclass(m, enum.Enum)]
    if len(members) == 2 and len(enums) == 1 and str in members:
        return enums[0]
    return None


class TypedItem:
    """A list item the decode engine read straight into its record's typed view, in C (a page
    whose records carry exactly the model's fields), instead of a JSON object: the paging
    layer reads its id as `item.id` where it reads `item["id"]` of a JSON object. It is turned
    into the record (`Endpoint`, ...) by the resource's reader when it is handed over; nothing
    outside the library sees one."""

    __slots__ = ()

    id: str


def item_id(item: object) -> object:
    """The id a list item carries: `item["id"]` of a JSON object, `item.id` of a TypedItem;
    None for an item with none (a JSON object without `id`, or any other JSON value)."""
    if item.__class__ is dict:
        return item.get("id")
    if isinstance(item, TypedItem):
        return item.id
    return None


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


def model_in(type_: Any) -> type[Any] | None:
    """Return the attrs class of a field type, looking inside `Model | None`."""
    for candidate in (type_, *union_members(type_)):
        if isinstance(candidate, type) and attrs.has(candidate):
            return candidate
    return None
