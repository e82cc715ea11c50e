"""What a dlt destination holds, compared with what the simulator serves."""

from __future__ import annotations

import typing
from datetime import datetime
from typing import Any

import attrs
import orjson

from remedy_async import RESOURCES
from remedy_async.dlt import DELETED_COLUMN
from remedy_async.simulator import Simulator

TABLES = {
    "endpoints": "endpoints",
    "remediation_targets": "remediation-targets",
    "scopes": "scopes",
    "vulnerability_findings": "vulnerability-findings",
}
"""Each table of the source, and the collection it holds."""


def _held(annotation: Any) -> type[Any] | None:
    """The model a field holds (`OperatingSystem`), if any."""
    for candidate in typing.get_args(annotation) or (annotation,):
        if isinstance(candidate, type) and attrs.has(candidate):
            return candidate
    return None


def _is_time(annotation: Any) -> bool:
    return datetime in (typing.get_args(annotation) or (annotation,))


def _timestamp(value: str) -> datetime:
    return datetime.fromisoformat(value.replace("Z", "+00:00"))


def expected_rows(simulator: Simulator, collection: str) -> list[dict[str, Any]]:
    """The simulator's records as rows, by id: the model's published fields (timestamps
    parsed, a nested object as its published fields), the rest in `extra` (at any depth, as
    served), nulls left out."""
    model = next(r.model for r in RESOURCES if r.segment == collection)
    fields = [field for field in attrs.fields(model) if field.name != "extra"]
    typed = {field.name: _held(field.type) for field in fields}
    times = {field.name for field in fields if _is_time(field.type)}
    rows = []
    for record in simulator.dataset.records(collection):
        row: dict[str, Any] = {}
        extra: dict[str, Any] = {}
        for key, served in record.items():
            if key not in typed:
                extra[key] = served
                continue
            value, nested = served, typed[key]
            if nested is not None and isinstance(served, dict):
                known = {field.name for field in attrs.fields(nested)}
                unknown = {name: item for name, item in served.items() if name not in known}
                if unknown:
                    extra[key] = unknown
                value = {name: item for name, item in served.items() if name in known}
            if value is not None:
                row[key] = _timestamp(value) if key in times else value
        if extra:
            row["extra"] = extra
        rows.append(row)
    return sorted(rows, key=lambda row: row["id"])  # as the tables are read: ORDER BY id


def table_rows(columns: list[str], rows: list[tuple[Any, ...]]) -> list[dict[str, Any]]:
    """A table's rows without dlt's columns or nulls; JSON columns read as values."""
    found = []
    for values in rows:
        row = {}
        for column, value in zip(columns, values, strict=True):
            if value is None or column.startswith("_dlt_") or column == DELETED_COLUMN:
                continue
            json_text = isinstance(value, str) and value[:1] in "[{"
            row[column] = orjson.loads(value) if json_text else value
        found.append(row)
    return found
