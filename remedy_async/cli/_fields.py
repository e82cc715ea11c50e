"""Dotted paths into wire records (`os.family`), as `--fields` and `--where` name them.

A path is checked against the contract's records level by level, `os.family` as a field of
endpoints' `os`; a name the records lack is a usage error naming the closest ones. A field
outside the contract (one the service adds, kept in the model's `extra`) is marked as such:
`extra.riskScore` is the record's own `riskScore`, `os.extra.kernel` the `kernel` of its `os`,
and nothing after the mark is checked.
"""

from __future__ import annotations

import difflib
import typing
from collections.abc import Mapping, Sequence
from typing import Any, Final

import attrs

from remedy_async import Resource

from ._errors import UsageError
from ._formats import WireRecord

Fields = tuple[str, ...]
"""Dotted paths into a wire record (`os.family`), in the order the user gave them."""

EXTRA: Final = "extra"
"""The mark of a field outside the contract: `extra.riskScore`, `os.extra.kernel`."""


def wire_keys(path: str) -> list[str]:
    """The keys a path follows in a wire record: the path without its `extra` mark."""
    keys = path.split(".")
    if EXTRA in keys:
        keys.remove(EXTRA)
    return keys


def _nested_model(annotation: Any) -> type[Any] | None:
    """The model a field holds (`OperatingSystem` for `OperatingSystem | None`), if any."""
    for candidate in typing.get_args(annotation) or (annotation,):
        if isinstance(candidate, type) and attrs.has(candidate):
            return candidate
    return None


def _fields_of(model: type[Any]) -> dict[str, type[Any] | None]:
    """A model's fields by wire name, each with the model it holds (None for a value)."""
    # Resource.wire_fields spells any model's fields as the contract does, in their order.
    names = Resource(model.__name__, model.__name__, model).wire_fields
    held = [_nested_model(field.type) for field in attrs.fields(model) if field.name != EXTRA]
    return dict(zip(names, held, strict=True))


def check_path(resource: Resource[Any], path: str, given: str) -> None:
    """Check that a dotted path names a field of the resource's records, level by level, up
    to an `extra` mark; `given` is what the user typed, for the usage error's message."""
    model: type[Any] | None = resource.model
    keys = path.split(".")
    for depth, key in enumerate(keys):
        if key == EXTRA:
            if depth == len(keys) - 1:
                raise UsageError(f"{given}: write extra.NAME for a field outside the contract")
            return
        above = ".".join(keys[:depth])
        owner = f"{resource.segment} records" + (f"' {above}" if above else "")
        if model is None:
            raise UsageError(f"{given}: {owner} is a value, without fields")
        fields = _fields_of(model)
        if key not in fields:
            close = difflib.get_close_matches(key, list(fields), n=2)
            hint = f" (did you mean {' or '.join(map(repr, close))}?)" if close else ""
            raise UsageError(
                f"{given}: {owner} {'has' if above else 'have'} no field {key!r}{hint}; the "
                f"fields are {', '.join(fields)}; mark a field outside the contract as "
                f"{'.'.join([*keys[:depth], EXTRA, *keys[depth:]])}"
            )
        model = fields[key]


def parse_fields(text: str, resource: Resource[Any]) -> Fields:
    """Read `--fields`: comma-separated dotted paths into the resource's records (checked, with
    the closest names suggested)."""
    paths = tuple(dict.fromkeys(part.strip() for part in text.split(",") if part.strip()))
    if not paths:
        raise UsageError("--fields names no field; e.g. --fields id,hostname,os.family")
    for path in paths:
        if not all(path.split(".")):
            raise UsageError(f"--fields {path}: a dotted path has a name between its dots")
        check_path(resource, path, f"--fields {path}")
    return paths


def value_at(record: WireRecord, path: str) -> Any:
    """The value at a dotted path, or None where the record has nothing there."""
    value: Any = record
    for key in wire_keys(path):
        if not isinstance(value, Mapping):
            return None
        value = value.get(key)
    return value


def nested(record: WireRecord, fields: Fields) -> dict[str, Any]:
    """The record cut to the fields, keeping its shape (`{"os": {"family": ...}}`)."""
    kept: dict[str, Any] = {}
    for path in fields:
        *parents, last = wire_keys(path)
        place = kept
        for key in parents:
            place = place.setdefault(key, {})
        place[last] = value_at(record, path)
    return kept


def flat(record: WireRecord, fields: Fields) -> dict[str, Any]:
    """The record as one value per field, keyed by the dotted path (for CSV and tables)."""
    return {path: value_at(record, path) for path in fields}


def select(records: Sequence[WireRecord], fields: Fields, *, flatten: bool) -> list[WireRecord]:
    """The records cut to the fields: nested, or flattened to one value per dotted path."""
    cut = flat if flatten else nested
    return [cut(record, fields) for record in records]
