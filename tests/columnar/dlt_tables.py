"""What a dlt destination holds, compared with what the simulator serves."""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

import orjson

from remedy_async.dlt import DELETED_COLUMN
from remedy_async.simulator import Simulator

TABLES = {
    "endpoints": "endpoints",
    "remediation_targets": "remediation-targets",
    "scopes": "scopes",
    "vulnerability_findings": "vulnerability-findings",
}
"""Each table of the source, and the collection it holds."""

_BOUNDARY = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


def snake(name: str) -> str:
    """A wire name as dlt's default naming spells its column (`lastSeenAt` -> `last_seen_at`)."""
    return _BOUNDARY.sub("_", name).lower()


def _timestamp(value: str) -> datetime:
    return datetime.fromisoformat(value.replace("Z", "+00:00"))


def expected_rows(simulator: Simulator, collection: str) -> list[dict[str, Any]]:
    """The simulator's records as rows: snake_case columns, timestamps parsed, nulls left out."""
    rows = []
    for record in simulator.dataset.records(collection):
        row = {}
        for key, value in record.items():
            if value is None:
                continue
            timestamp = isinstance(value, str) and key.endswith("At")
            row[snake(key)] = _timestamp(value) if timestamp else value
        rows.append(row)
    return rows


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
