"""Where and how `list` and `get` write: stdout or `--output FILE` (atomically), whole records
or `--fields`, in the chosen format; and what is left when the command fails midway."""

from __future__ import annotations

import argparse
import contextlib
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, BinaryIO

from remedy_async import Resource

from ._checkpoint import atomic_file
from ._errors import UsageError
from ._fields import Fields, parse_fields, select
from ._formats import FormatName, WireRecord
from ._sinks import Sink, finished, open_sink


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


def format_for(options: argparse.Namespace, *, stdout_tty: bool) -> FormatName:
    """The format to write: `--format` when given; else (`list`) a table for a person reading
    a terminal, as gh does, and JSON lines for a program (a pipe, a file, `--output FILE`)."""
    if options.format is not None:
        chosen: FormatName = options.format
        return chosen
    on_terminal = stdout_tty and options.output in (None, "-")
    return "table" if on_terminal else "jsonl"


@contextlib.contextmanager
def output(
    options: argparse.Namespace,
    resource: Resource[Any],
    stdout: BinaryIO,
    *,
    stdout_tty: bool = False,
) -> Iterator[Sink]:
    """The sink of the command's output, closed after the block; in the format `format_for`
    chooses (`stdout_tty`: whether stdout is a terminal).

    If the block fails, what was written stays well-formed (a JSON array closed, or nothing at
    all) and the error goes on; `--output FILE` appears only once complete, never half-written.
    """
    fields = parse_fields(options.fields, resource) if options.fields else None
    name = format_for(options, stdout_tty=stdout_tty)
    tabular = name in ("csv", "table")
    with _destination(options.output, stdout) as stream:
        sink = open_sink(name, resource, stream, fields if tabular else None)
        if fields is not None:
            sink = FieldsSink(sink, fields, flatten=tabular)
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
        raise UsageError(f"--output {path}: {problem}")
    with atomic_file(target) as file:
        yield file
