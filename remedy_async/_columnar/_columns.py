"""The fixed columns of each resource, read from its model: what Arrow, Parquet and dlt get.

Every published field of the model is a column under its wire (snake_case) name, typed by the
contract:

    str, an enum (open: unknown values kept)   -> string
    datetime                                   -> timestamp[us, UTC]
    float / int / bool                         -> float64 / int64 / bool
    a tuple of strings or of enum values       -> list<string>
    a nested model (`operating_system`, a
    scope's `subject_filter`, `endpoint_filter`,
    `finding_filter`)                          -> struct of its own fields, typed the same way
    anything else                              -> string holding the value as JSON
    keys the model does not know, at any depth -> `extra`: one JSON object of the same shape

Nested models are structs, not flattened columns: Arrow, Parquet and DuckDB read a struct's
fields by a dotted name (`operating_system.family` in DuckDB SQL, `pyarrow.compute.
struct_field`), and a struct keeps a record one row whatever its shape. The fields a model does
not type (every field of remediation targets and findings but `id`, `created_at` and
`updated_at`, whose schemas are unpublished) are in `extra`, reachable with DuckDB's
`json_extract_string(extra, '$.severity')` or `extra->>'severity'`.

The columns depend on the model only, never on the data, so every page (and every resumed
export) has the same schema. A field that is absent and one that is null are both null.
`unknown_keys` finds what of a record goes to `extra`.
"""

from __future__ import annotations

import enum
import typing
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any, Final, Literal

import attrs
from attrs import frozen

from remedy_async._wire._naming import wire_names
from remedy_async._wire._types import open_enum_of, union_members

Kind = Literal["string", "timestamp", "float", "int", "bool", "strings", "struct", "json"]

EXTRA_COLUMN: Final = "extra"
"""The column of the keys a model does not know, as a JSON object (null when none)."""


@frozen
class Column:
    """One column: its wire name, its kind, and for a struct the columns inside it."""

    name: str
    kind: Kind
    children: tuple[Column, ...] = ()

    @property
    def known(self) -> frozenset[str]:
        """The wire names a struct's fields take (empty for any other kind)."""
        return frozenset(child.name for child in self.children)


def _kind(type_: Any) -> tuple[Kind, tuple[Column, ...]]:
    """The kind of a field's type (and a nested model's columns)."""
    if open_enum_of(type_) is not None:
        return "string", ()
    members = [m for m in union_members(type_) if m is not type(None)] or [type_]
    inner = members[0] if len(members) == 1 else type_
    simple: dict[Any, Kind] = {
        str: "string",
        datetime: "timestamp",
        float: "float",
        int: "int",
        bool: "bool",
    }
    if inner in simple:
        return simple[inner], ()
    if isinstance(inner, type) and issubclass(inner, enum.Enum):
        return "string", ()
    if isinstance(inner, type) and attrs.has(inner):
        return "struct", model_columns(inner)
    if typing.get_origin(inner) is tuple and _is_text(typing.get_args(inner)[0]):
        return "strings", ()
    return "json", ()


def _is_text(type_: Any) -> bool:
    """Whether values of a type are written as text: a string, an enum, an open enum."""
    if type_ is str or open_enum_of(type_) is not None:
        return True
    return isinstance(type_, type) and issubclass(type_, enum.Enum)


def model_columns(model: type[Any]) -> tuple[Column, ...]:
    """The columns of a model's fields (not `extra`), in declaration order."""
    hints = {f.name: f.type for f in attrs.fields(attrs.resolve_types(model))}
    names = wire_names(model)
    columns = []
    for attribute in attrs.fields(model):
        if attribute.name == "extra":
            continue
        kind, children = _kind(hints[attribute.name])
        columns.append(Column(names[attribute.name], kind, children))
    return tuple(columns)


def record_columns(model: type[Any]) -> tuple[Column, ...]:
    """The columns of a resource's records: its model's fields, then `extra`."""
    return (*model_columns(model), Column(EXTRA_COLUMN, "json"))


Nested = tuple[tuple[str, frozenset[str], tuple[Any, ...]], ...]
"""The struct columns of a level: name, the keys they hold, and their own struct columns."""


def nested_columns(columns: Sequence[Column]) -> Nested:
    """The struct columns among `columns`, as `unknown_keys` walks them."""
    return tuple(
        (column.name, column.known, nested_columns(column.children))
        for column in columns
        if column.kind == "struct"
    )


def unknown_keys(
    record: Mapping[str, Any], known: frozenset[str], nested: Nested
) -> dict[str, Any]:
    """The keys of a record (and of its nested objects) that its columns do not hold."""
    extra: dict[str, Any] = {}
    if not record.keys() <= known:
        extra = {key: value for key, value in record.items() if key not in known}
    for name, inner_known, inner_nested in nested:
        value = record.get(name)
        if value.__class__ is dict and not value.keys() <= inner_known:
            inner = unknown_keys(value, inner_known, inner_nested)
            if inner:
                extra[name] = inner
    return extra
