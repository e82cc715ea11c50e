"""Where `list`, `get` and `api --paginate` put records: encoded or drawn as a table, as they
come; to stdout or `--out-file FILE` (atomically), whole records, `--fields` or what `--query`
makes of them, in the chosen format; and what is left when the command fails midway."""

from __future__ import annotations

import argparse
import contextlib
import shutil
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, BinaryIO, Protocol

from remedy_async import Resource

from ._checkpoint import atomic_file
from ._errors import UsageError
from ._fields import Fields, parse_fields, select
from ._formats import (
    CsvEncoder,
    Encoder,
    FormatName,
    WireRecord,
    cell_value,
    encoder_for,
    table_cell,
    table_columns,
)
from ._query import Query, all_null_note, query_of


class Sink(Protocol):
    """Takes the records of a command, batch by batch."""

    def write(self, records: Sequence[WireRecord]) -> None:
        """Output a batch of records (into a JSON format, any JSON values: what `--query`
        made of each record)."""
        ...

    def close(self) -> None:
        """Finish the output after the last batch."""
        ...

    def abort(self) -> None:
        """Leave what was written well-formed when the command fails midway."""
        ...


class StreamSink:
    """Writes each batch to a binary stream as soon as it arrives, so memory stays flat.

    The format's start (a CSV header, `[`) is written with the first batch, so a command that
    fails before any record arrives leaves stdout empty.
    """

    def __init__(self, encoder: Encoder, stream: BinaryIO) -> None:
        self._encoder = encoder
        self._stream = stream
        self._started = False

    def _emit(self, data: bytes) -> None:
        if not self._started:
            self._started = True
            data = self._encoder.start() + data
        if data:
            self._stream.write(data)
            self._stream.flush()

    def write(self, records: Sequence[WireRecord]) -> None:
        """Encode and write the batch, then flush it to the reader."""
        self._emit(self._encoder.records(records))

    def close(self) -> None:
        """Write the format's ending (the closing bracket of a JSON array)."""
        self._emit(self._encoder.end())

    def abort(self) -> None:
        """Close what was started (a JSON array of the records so far); write nothing if no
        record was written, so a failed command's output is never a misleading `[]`."""
        if self._started:
            self.close()


class TableSink:
    """Writes a human-readable table as the records arrive: its columns (unless given) and
    their widths are set from the first batch (`table_columns`), to fit `width` characters;
    longer cells are cut with `…`."""

    def __init__(
        self,
        resource: Resource[Any],
        stream: BinaryIO,
        columns: Sequence[str] | None = None,
        width: int = 100,
    ) -> None:
        self._resource = resource
        self._columns = tuple(columns or ())
        self._stream = stream
        self._width = width
        self._widths: list[int] | None = None
        self._count = 0

    def write(self, records: Sequence[WireRecord]) -> None:
        """Write each record as a row (the header first, sized by this first batch)."""
        if not self._columns:
            self._columns = table_columns(self._resource, records)
        columns = self._columns
        rows = [
            [table_cell(cell_value(record, column)) for column in columns] for record in records
        ]
        lines = []
        if self._widths is None:
            self._widths = fit_widths(self._columns, rows, self._width)
            lines += [self._line(self._columns), self._line(["─" * w for w in self._widths])]
        lines += [self._line(row) for row in rows]
        self._count += len(rows)
        if lines:
            self._stream.write(("\n".join(lines) + "\n").encode())
            self._stream.flush()

    def _line(self, cells: Sequence[str]) -> str:
        assert self._widths is not None
        return "  ".join(
            _cut(" ".join(cell.split()), width).ljust(width)
            for cell, width in zip(cells, self._widths, strict=True)
        ).rstrip()

    def close(self) -> None:
        """Write the number of records below the table."""
        if self._widths is None:
            self.write([])
        self._stream.write(f"{self._count:,} record(s)\n".encode())
        self._stream.flush()

    def abort(self) -> None:
        """Leave the rows written so far; no total, since the list did not end."""


def fit_widths(columns: Sequence[str], rows: Sequence[Sequence[str]], width: int) -> list[int]:
    """Column widths for `width` characters (two between columns): each column as wide as its
    header and the sample's widest cell, narrowed until the row fits, widest first: the other
    columns down to their header, then down to `MIN_COLUMN`, then the other ids (`endpoint_id`)
    down to `MIN_COLUMN`. The `id` column, the one people copy, is never narrowed: a row that
    still does not fit is longer than the terminal, and the terminal (or the pager) wraps it."""
    widths = [
        max([len(column), *(len(" ".join(row[index].split())) for row in rows)])
        for index, column in enumerate(columns)
    ]
    room = width - 2 * (len(columns) - 1)
    kept = [column == ID_COLUMN for column in columns]
    ids = [is_id(column) for column in columns]
    headers = [max(MIN_COLUMN, len(column)) for column in columns]
    steps = (
        [0 if keep or id_ else floor for keep, id_, floor in zip(kept, ids, headers, strict=True)],
        [0 if keep or id_ else MIN_COLUMN for keep, id_ in zip(kept, ids, strict=True)],
        [0 if keep else MIN_COLUMN for keep in kept],
    )
    for floors in steps:
        while sum(widths) > room:
            slack = [w - floor if floor else 0 for w, floor in zip(widths, floors, strict=True)]
            if max(slack, default=0) <= 0:
                break
            widest = max(
                (index for index, give in enumerate(slack) if give > 0),
                key=lambda index: widths[index],
            )
            widths[widest] -= max(1, min(slack[widest], sum(widths) - room))
    return widths


ID_COLUMN = "id"
"""The column a table never narrows: the records' ids, which people copy whole."""


def is_id(column: str) -> bool:
    """Whether a column holds ids (`id`, `endpoint_id`, `target.id`), narrowed last."""
    last = column.rsplit(".", 1)[-1]
    return last == ID_COLUMN or last.endswith("_id")


def _cut(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


MIN_COLUMN = 6
"""The narrowest a column gets when the table is squeezed into the terminal's width."""


def open_sink(
    name: FormatName,
    resource: Resource[Any],
    stream: BinaryIO,
    columns: Sequence[str] | None = None,
) -> Sink:
    """Return the sink of an output format; a table needs rich, checked here. `columns` are a
    table's or CSV's columns when `--fields` chose them."""
    if name == "table":
        return TableSink(resource, stream, columns, shutil.get_terminal_size((100, 24)).columns)
    if name == "csv" and columns:
        return StreamSink(CsvEncoder(tuple(columns)), stream)
    return StreamSink(encoder_for(name, resource), stream)


@contextlib.contextmanager
def finished(sink: Sink) -> Iterator[None]:
    """Close the sink after the block; if the block fails, leave what was written well-formed
    (a JSON array closed, or nothing at all) and let the error through."""
    try:
        yield
    except BaseException:
        with contextlib.suppress(OSError):
            sink.abort()
        raise
    sink.close()


class FieldsSink:
    """Cuts each record to the `--fields` before the format's sink writes it."""

    def __init__(self, sink: Sink, fields: Fields, *, flatten: bool) -> None:
        self._sink = sink
        self._fields = fields
        self._flatten = flatten

    def write(self, records: Sequence[WireRecord]) -> None:
        """Write the records, cut to the fields."""
        self._sink.write(select(records, self._fields, flatten=self._flatten))

    def close(self) -> None:
        """Finish the output."""
        self._sink.close()

    def abort(self) -> None:
        """Leave what was written well-formed."""
        self._sink.abort()


class QuerySink:
    """Writes what `--query` makes of each record through the format's sink: the values
    themselves into JSON, rows of the query's columns into CSV and tables (`Query.rows`).

    When every record of the first batch holding any gives null, `note` says so once.
    """

    def __init__(
        self, sink: Sink, query: Query, *, tabular: bool, note: Callable[[str], None]
    ) -> None:
        self._sink = sink
        self._query = query
        self._tabular = tabular
        self._note: Callable[[str], None] | None = note

    def write(self, records: Sequence[WireRecord]) -> None:
        """Write the query's value for each record (null included: one output per record)."""
        results = self._query.apply(records)
        if self._note is not None and results:
            if all(result is None for result in results):
                self._note(all_null_note(self._query, len(results)))
            self._note = None
        self._sink.write(self._query.rows(results) if self._tabular else results)

    def close(self) -> None:
        """Finish the output."""
        self._sink.close()

    def abort(self) -> None:
        """Leave what was written well-formed."""
        self._sink.abort()


def format_for(options: argparse.Namespace, *, stdout_tty: bool) -> FormatName:
    """The format to write: `--format` when given; else (`list`) a table for a person reading
    a terminal, as gh does, and JSON lines for a program (a pipe, a file, `--out-file FILE`)."""
    if options.format is not None:
        chosen: FormatName = options.format
        return chosen
    on_terminal = stdout_tty and options.out_file in (None, "-")
    return "table" if on_terminal else "jsonl"


@contextlib.contextmanager
def output(
    options: argparse.Namespace,
    resource: Resource[Any],
    stdout: BinaryIO,
    *,
    stdout_tty: bool = False,
    note: Callable[[str], None] = lambda _: None,
) -> Iterator[Sink]:
    """The sink of the command's output, closed after the block; in the format `format_for`
    chooses (`stdout_tty`: whether stdout is a terminal), of whole records, their `--fields`
    or what `--query` makes of them (`note` tells the user when that is null throughout).

    If the block fails, what was written stays well-formed (a JSON array closed, or nothing at
    all) and the error goes on; `--out-file FILE` appears only once complete, never half-written.
    """
    query = query_of(options)
    fields = parse_fields(options.fields, resource) if options.fields else None
    name = format_for(options, stdout_tty=stdout_tty)
    tabular = name in ("csv", "table")
    columns = query.columns if query is not None else fields
    with _destination(options.out_file, stdout) as stream:
        sink = open_sink(name, resource, stream, columns if tabular else None)
        if fields is not None:
            sink = FieldsSink(sink, fields, flatten=tabular)
        if query is not None:
            sink = QuerySink(sink, query, tabular=tabular, note=note)
        with finished(sink):
            yield sink


@contextlib.contextmanager
def _destination(path: str | None, stdout: BinaryIO) -> Iterator[BinaryIO]:
    if path is None or path == "-":
        yield stdout
        return
    target = Path(path)
    if target.is_dir() or not target.parent.is_dir():
        problem = "is a directory" if target.is_dir() else f"{target.parent} is not a directory"
        raise UsageError(f"--out-file {path}: {problem}")
    with atomic_file(target) as file:
        yield file
