"""`--fields id,hostname,os.family`: which parts of each record the output keeps."""

from __future__ import annotations

import difflib
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ._errors import UsageError
from ._formats import WireRecord

if TYPE_CHECKING:
    from remedy_async import Resource

Fields = tuple[str, ...]
"""Dotted paths into a wire record (`os.family`), in the order the user gave them."""


def parse_fields(text: str, resource: Resource[Any]) -> Fields:
    """Read `--fields`: comma-separated dotted paths whose first part is a field of the
    resource's records (checked, with the closest names suggested)."""
    paths = tuple(dict.fromkeys(part.strip() for part in text.split(",") if part.strip()))
    if not paths:
        raise UsageError("--fields names no field; e.g. --fields id,hostname,os.family")
    known = resource.wire_fields
    for path in paths:
        head = path.split(".", 1)[0]
        if head not in known or not all(path.split(".")):
            close = difflib.get_close_matches(head, known, n=2)
            hint = f" (did you mean {' or '.join(map(repr, close))}?)" if close else ""
            raise UsageError(
                f"--fields {path}: {resource.segment} records have no field {head!r}{hint}; "
                f"their fields are {', '.join(known)}"
            )
    return paths


def value_at(record: WireRecord, path: str) -> Any:
    """The value at a dotted path, or None where the record has nothing there."""
    value: Any = record
    for key in path.split("."):
        if not isinstance(value, Mapping):
            return None
        value = value.get(key)
    return value


def nested(record: WireRecord, fields: Fields) -> dict[str, Any]:
    """The record cut to the fields, keeping its shape (`{"os": {"family": ...}}`)."""
    kept: dict[str, Any] = {}
    for path in fields:
        *parents, last = path.split(".")
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
