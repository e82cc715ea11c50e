"""Records as the columnar outputs give them back: what a test compares them with."""

from __future__ import annotations

import typing
from typing import Any

import attrs

from remedy_async import RESOURCES


def model_of(name: str) -> type[Any]:
    """The model of a collection, by client attribute or path segment."""
    return next(r.model for r in RESOURCES if name in (r.attribute, r.segment))


def _held(annotation: Any) -> type[Any] | None:
    for candidate in typing.get_args(annotation) or (annotation,):
        if isinstance(candidate, type) and attrs.has(candidate):
            return candidate
    return None


def read_back(record: dict[str, Any], model: type[Any]) -> dict[str, Any]:
    """A wire record as Arrow, Parquet and DuckDB give it back: its typed fields (nested ones
    too) left out when null, since a null column and an absent field are one; the fields the
    model does not type (`extra`) as sent, nulls kept."""
    fields = {field.name: field for field in attrs.fields(model) if field.name != "extra"}
    kept: dict[str, Any] = {}
    for key, value in record.items():
        field = fields.get(key)
        if field is None:
            kept[key] = value
        elif value is not None:
            nested = _held(field.type)
            kept[key] = read_back(value, nested) if nested and isinstance(value, dict) else value
    return kept
