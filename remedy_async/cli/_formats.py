"""Turns records (in wire form) into the bytes of each output format, a page at a time.

jsonl   one compact JSON object per line.
json    one JSON array, written as the records arrive: `[`, then one record per line.
parquet (export only) one Parquet file per resource, of the fixed Arrow schema of
        `remedy_async.columnar`; written as an Arrow stream while the export runs (`_parquet`).
csv     RFC 4180 quoting, rows ending in `\n` (as `cut`, `awk` and spreadsheets read them;
        RFC 4180's `\r\n` only where a resumed export began with it), with a fixed header per
        resource: the model's published fields in declaration order, a nested object's fields
        flattened to dotted columns (`operating_system.name`, `operating_system.family`, ...),
        then `extra`, a JSON object of every key the model does not type, at any depth
        (`{"severity": "high"}`; empty when none): every field of remediation targets and
        findings but `id`, `created_at` and `updated_at` is there, since their schemas are
        unpublished; `--fields` makes any of them a column of its own (`--fields
        id,severity,cve_id`). Lists and objects are compact JSON, booleans `true`/`false`,
        absent values empty. The header does not depend on the data, so pages and resumed
        exports line up.

Every encoder is pure: it returns bytes and never writes, so a caller can count and checkpoint
exactly what it wrote. Numbers are written exactly as the service sent them: integers of any
size (a record holding one past 64 bits, which orjson refuses, is written by msgspec) and
floats as read.
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


EXTRA_MARK: Final = "extra"
"""The mark of a field not to be checked in a dotted path (`extra.severity`); see `_fields`."""


def wire_keys(path: str) -> list[str]:
    """The keys a dotted path follows in a wire record: the path without its `extra` mark."""
    keys = path.split(".")
    if EXTRA_MARK in keys:
        keys.remove(EXTRA_MARK)
    return keys


def value_at(record: WireRecord, path: str) -> Any:
    """The value at a dotted path, or None where the record has nothing there."""
    value: Any = record
    for key in wire_keys(path):
        if not isinstance(value, Mapping):
            return None
        value = value.get(key)
    return value


def wire_fields(resource: Resource[Any]) -> tuple[str, ...]:
    """Return a resource's published fields as flat columns, in declaration order: a nested
    object's fields as dotted names (`operating_system.family`)."""
    return resource.field_paths


def csv_columns(resource: Resource[Any]) -> tuple[str, ...]:
    """Return the CSV header of a resource: its published fields, flat, then `extra`."""
    return (*wire_fields(resource), EXTRA_COLUMN)


Tree = dict[str, "Tree"]
"""The keys columns hold, level by level (`{"operating_system": {"name": {}, ...}}`)."""


def _tree(columns: Iterable[str]) -> Tree:
    tree: Tree = {}
    for column in columns:
        place = tree
        for key in wire_keys(column):
            place = place.setdefault(key, {})
    return tree


def _unknown(record: WireRecord, tree: Tree) -> dict[str, Any]:
    """The keys of a record (and of its nested objects) that no column holds, in their shape."""
    extra = {key: value for key, value in record.items() if key not in tree}
    for key, inner in tree.items():
        value = record.get(key)
        if inner and isinstance(value, Mapping):
            found = _unknown(value, inner)
            if found:
                extra[key] = found
    return extra


def json_bytes(value: object) -> bytes:
    """Return a value as compact JSON, every number exact: as orjson writes it, or as msgspec
    does for a value orjson refuses (one holding an integer past 64 bits)."""
    try:
        return orjson.dumps(value)
    except TypeError:
        import msgspec  # noqa: PLC0415 - only a value orjson refuses pays for it

        return msgspec.json.encode(value)


def csv_cell(value: object) -> str:
    """Return one value as CSV text: strings as they are, None empty, anything else as JSON."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    return json_bytes(value).decode()


def cell_value(record: WireRecord, column: str) -> Any:
    """A column's value in a record: the key itself (a record cut by `--fields` is keyed by
    dotted paths), else the value at the dotted path."""
    if column in record:
        return record[column]
    return value_at(record, column) if "." in column else None


def csv_row(record: WireRecord, columns: Sequence[str], tree: Tree | None = None) -> list[str]:
    """Flatten a record to the cells of `columns`; keys no column holds, at any depth, go to
    the extra column (`tree`: the columns' keys, computed when not given)."""
    cells = [csv_cell(cell_value(record, column)) for column in columns]
    if EXTRA_COLUMN in columns:
        extra = _unknown(record, _tree(columns) if tree is None else tree)
        cells[columns.index(EXTRA_COLUMN)] = csv_cell(extra) if extra else ""
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
        dumps, newline = orjson.dumps, orjson.OPT_APPEND_NEWLINE
        lines: list[bytes] = []
        for record in records:
            try:
                lines.append(dumps(record, option=newline))
            except TypeError:  # an integer past 64 bits: written exactly
                lines.append(json_bytes(record) + b"\n")
        return b"".join(lines)

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
        dumps = orjson.dumps
        for record in records:
            parts.append(b"\n" if self._count == 0 else b",\n")
            try:
                parts.append(dumps(record))
            except TypeError:  # an integer past 64 bits: written exactly
                parts.append(json_bytes(record))
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
        self._tree = _tree(column for column in self.columns if column != EXTRA_COLUMN)

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
        return self._rows(csv_row(record, self.columns, self._tree) for record in records)

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
    "endpoints": ("id", "hostname", "operating_system.name", "agent_version", "updated_at"),
    "scopes": ("id", "name", "status", "description"),
}
"""What the human-readable table shows of the resources with a published schema (csv and json
show everything)."""

TABLE_EXTRA_COLUMNS: Final = 4
"""How many of the first records' other fields the table of a resource with an unpublished
schema shows (remediation targets, findings), between `id` and `updated_at`."""


def table_columns(resource: Resource[Any], records: Sequence[WireRecord]) -> tuple[str, ...]:
    """The table's columns: the chosen published fields; for a resource whose schema is
    unpublished, `id`, the first fields the first records have beyond the typed ones, in the
    order they come (`endpoint_id`, `type`, `name`, ...), and `updated_at`."""
    chosen = TABLE_COLUMNS.get(resource.segment)
    if chosen is not None:
        return chosen
    typed = set(resource.wire_fields)
    seen: dict[str, None] = {}
    for record in records:
        seen.update(dict.fromkeys(key for key in record if key not in typed))
    return ("id", *list(seen)[:TABLE_EXTRA_COLUMNS], "updated_at")


def table_cell(value: object) -> str:
    """Return a value as table text: a list of words as words, anything else as CSV does."""
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        return ", ".join(value)
    return csv_cell(value)
