"""Turns records (in wire form) into the bytes of each output format, a page at a time.

jsonl   one compact JSON object per line.
json    one JSON array, written as the records arrive: `[`, then one record per line.
parquet (export only) one Parquet file per resource, of the fixed Arrow schema of
        `remedy_async.columnar`; written as an Arrow stream while the export runs (`_parquet`).
csv     RFC 4180 quoting, rows ending in `\n` (as `cut`, `awk` and spreadsheets read them;
        RFC 4180's `\r\n` only where a resumed export began with it), with a fixed header per
        resource: the model's wire fields in declaration order, then `extra`, a JSON object
        of any keys the model does not know (empty when none). Nested values are compact
        JSON, booleans `true`/`false`, absent values empty. The header does not depend on
        the data, so pages and resumed exports line up.

Every encoder is pure: it returns bytes and never writes, so a caller can count and checkpoint
exactly what it wrote.
"""

from __future__ import annotations

import csv
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final, Literal, Protocol

import orjson

if TYPE_CHECKING:
    from remedy_async import Resource

FormatName = Literal["jsonl", "json", "csv", "table", "parquet"]
OUTPUT_FORMATS: Final[tuple[FormatName, ...]] = ("jsonl", "json", "csv", "table")
EXPORT_FORMATS: Final[tuple[FormatName, ...]] = ("jsonl", "csv", "parquet")

EXTRA_COLUMN: Final = "extra"

WireRecord = Mapping[str, Any]


def wire_fields(resource: Resource[Any]) -> tuple[str, ...]:
    """Return the wire names of a resource's model fields, in declaration order."""
    return resource.wire_fields


def csv_columns(resource: Resource[Any]) -> tuple[str, ...]:
    """Return the CSV header of a resource: its model's wire fields, then `extra`."""
    return (*wire_fields(resource), EXTRA_COLUMN)


def csv_cell(value: object) -> str:
    """Return one value as CSV text: strings as they are, None empty, anything else as JSON."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    return orjson.dumps(value).decode()


def csv_row(record: WireRecord, columns: Sequence[str]) -> list[str]:
    """Flatten a record to the cells of `columns`; keys outside them go to the extra column."""
    known = set(columns)
    extra = {key: value for key, value in record.items() if key not in known}
    cells = [csv_cell(record.get(column)) if column != EXTRA_COLUMN else "" for column in columns]
    if EXTRA_COLUMN in known and extra:
        cells[columns.index(EXTRA_COLUMN)] = csv_cell(extra)
    return cells


class Encoder(Protocol):
    """Produces the bytes of one output: a start, each batch of records, and an end."""

    def start(self) -> bytes:
        """Bytes before the first record (a header, an opening bracket)."""
        ...

    def records(self, records: Iterable[WireRecord]) -> bytes:
        """Bytes of a batch of records."""
        ...

    def end(self) -> bytes:
        """Bytes after the last record."""
        ...


class JsonLinesEncoder:
    """One compact JSON object per line."""

    def start(self) -> bytes:
        """Nothing: JSON lines have no header."""
        return b""

    def records(self, records: Iterable[WireRecord]) -> bytes:
        """Each record as one line."""
        return b"".join(
            orjson.dumps(record, option=orjson.OPT_APPEND_NEWLINE) for record in records
        )

    def end(self) -> bytes:
        """Nothing: JSON lines have no footer."""
        return b""


class JsonArrayEncoder:
    """One JSON array with a record per line, produced as the records arrive."""

    def __init__(self) -> None:
        self._count = 0

    def start(self) -> bytes:
        """The opening bracket."""
        return b"["

    def records(self, records: Iterable[WireRecord]) -> bytes:
        """Each record, separated from the previous one by a comma and a line break."""
        parts: list[bytes] = []
        for record in records:
            parts.append(b"\n" if self._count == 0 else b",\n")
            parts.append(orjson.dumps(record))
            self._count += 1
        return b"".join(parts)

    def end(self) -> bytes:
        """The closing bracket, on its own line after any records."""
        return b"\n]\n" if self._count else b"]\n"


LineEnd = Literal["\n", "\r\n"]
LINE_END: Final[LineEnd] = "\n"
"""How CSV rows end unless a resumed export began otherwise."""
LINE_ENDS: Final[tuple[LineEnd, ...]] = ("\n", "\r\n")


class CsvEncoder:
    """CSV with a fixed header (see `csv_columns`): RFC 4180 quoting, rows ending in
    `line_end` (`\n` unless a resumed export began with `\r\n`)."""

    def __init__(self, columns: Sequence[str], line_end: LineEnd = LINE_END) -> None:
        self.columns = tuple(columns)
        self.line_end = line_end

    def _rows(self, rows: Iterable[Sequence[str]]) -> bytes:
        # The writer ends rows in \r\n so that it quotes a cell holding either character (with
        # \n alone, Python before 3.13 leaves a lone \r unquoted, which readers take for a
        # line end); each row is written by one call, so its own end is its last two.
        lines: list[str] = []
        csv.writer(_Lines(lines), lineterminator="\r\n").writerows(rows)
        if self.line_end == "\r\n":
            return "".join(lines).encode()
        return "".join(line[:-2] + "\n" for line in lines).encode()

    def start(self) -> bytes:
        """The header line."""
        return self._rows([self.columns])

    def records(self, records: Iterable[WireRecord]) -> bytes:
        """One row per record."""
        return self._rows(csv_row(record, self.columns) for record in records)

    def end(self) -> bytes:
        """Nothing: CSV has no footer."""
        return b""


class _Lines:
    """A file for `csv.writer` that keeps each row it writes as a string of `lines`."""

    def __init__(self, lines: list[str]) -> None:
        self.write = lines.append


def encoder_for(name: str, resource: Resource[Any]) -> Encoder:
    """Return a fresh encoder for a byte format: jsonl, json, csv or parquet (an Arrow stream
    until the export completes; pyarrow is imported here); rich draws `table`."""
    if name == "parquet":
        from ._parquet import ArrowStreamEncoder  # noqa: PLC0415 - pyarrow only when chosen

        return ArrowStreamEncoder(resource)
    if name == "jsonl":
        return JsonLinesEncoder()
    if name == "json":
        return JsonArrayEncoder()
    if name == "csv":
        return CsvEncoder(csv_columns(resource))
    raise ValueError(f"{name!r} is not a byte format")


TABLE_COLUMNS: Final[Mapping[str, tuple[str, ...]]] = {
    "endpoints": ("id", "hostname", "os", "status", "agentVersion", "lastSeenAt"),
    "remediation-targets": ("id", "endpointId", "action", "status", "attempts", "updatedAt"),
    "scopes": ("id", "name", "enabled", "createdAt", "updatedAt"),
    "vulnerability-findings": ("id", "endpointId", "cveId", "severity", "cvssScore", "status"),
}
"""What the human-readable table shows of each resource (csv and json show everything)."""


def table_cell(value: object) -> str:
    """Return a value as table text: an operating system or package as its words."""
    if isinstance(value, Mapping) and value and all(isinstance(v, str) for v in value.values()):
        return " ".join(str(part) for part in value.values())
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        return ", ".join(value)
    return csv_cell(value)
