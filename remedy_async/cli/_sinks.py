"""Where `list` and `get` put records: encoded onto stdout as they come, or a table at the end."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, BinaryIO, Protocol

from remedy_async import Resource

from ._formats import (
    TABLE_COLUMNS,
    CsvEncoder,
    Encoder,
    FormatName,
    WireRecord,
    encoder_for,
    table_cell,
)
from ._terminal import rich_missing


class Sink(Protocol):
    """Takes the records of a command, batch by batch."""

    def write(self, records: Sequence[WireRecord]) -> None:
        """Output a batch of records."""
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
    """Keeps the rows of a human-readable table, drawn with rich once all have arrived."""

    def __init__(
        self, resource: Resource[Any], stream: BinaryIO, columns: Sequence[str] | None = None
    ) -> None:
        try:
            from ._rich import print_table, stdout_console  # noqa: PLC0415 - rich is optional
        except ImportError as error:
            raise rich_missing(error) from None
        self._print_table = print_table
        self._stdout_console = stdout_console
        self._columns = tuple(columns or TABLE_COLUMNS[resource.segment])
        self._stream = stream
        self._rows: list[list[str]] = []

    def write(self, records: Sequence[WireRecord]) -> None:
        """Keep the table's cells of each record."""
        self._rows.extend(
            [table_cell(record.get(column)) for column in self._columns] for record in records
        )

    def close(self) -> None:
        """Draw the table on stdout, with the number of records below it."""
        with self._stdout_console(self._stream) as console:
            self._print_table(console, self._columns, self._rows)
            console.print(f"{len(self._rows):,} record(s)", highlight=False)

    def abort(self) -> None:
        """Draw the rows that arrived before the failure."""
        if self._rows:
            self.close()


def open_sink(
    name: FormatName,
    resource: Resource[Any],
    stream: BinaryIO,
    columns: Sequence[str] | None = None,
) -> Sink:
    """Return the sink of an output format; a table needs rich, checked here. `columns` are a
    table's or CSV's columns when `--fields` chose them."""
    if name == "table":
        return TableSink(resource, stream, columns)
    if name == "csv" and columns:
        return StreamSink(CsvEncoder(tuple(columns)), stream)
    return StreamSink(encoder_for(name, resource), stream)
