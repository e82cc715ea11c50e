"""What an export keeps of each collection, and how a resume keeps it the same.

The selection (server-side filters, `--param`, `--where`, `--fields`, `--query`) is read from
the command line and checked against each exported collection when an export starts, then
stored in its checkpoint (`Selection`). A resume goes on with the stored one: given again, it
must be the same, and a change is a usage error naming the flag, since the file would mix two
selections.
"""

from __future__ import annotations

import argparse
import shlex
from collections.abc import Callable, Sequence
from typing import Any

from remedy_async import Resource

from ._checkpoint import Selection
from ._errors import UsageError
from ._fields import SeenCheck, parse_fields, select
from ._formats import LINE_END, CsvEncoder, Encoder, LineEnd, WireRecord, csv_columns, encoder_for
from ._query import parse_query, query_of
from ._server_filters import filter_flag, filter_pairs
from ._where import check_conditions, keep, parse_where, where_paths


def columns_of(selection: Selection) -> tuple[str, ...]:
    """The columns a selection chooses for CSV: its `--fields`, or its `--query`'s columns;
    none when it keeps whole records."""
    if selection.query is not None:
        return parse_query(selection.query).columns
    return selection.fields


def export_encoder(
    file_format: str,
    resource: Resource[Any],
    columns: Sequence[str],
    line_end: LineEnd = LINE_END,
) -> Encoder:
    """The encoder of an export's file: CSV columns are the chosen ones (`columns_of`) when
    any, and its rows end as the export began (`Checkpoint.line_end`)."""
    if file_format == "csv":
        return CsvEncoder(tuple(columns) or csv_columns(resource), line_end)
    return encoder_for(file_format, resource)


def selection_of(options: argparse.Namespace, resource: Resource[Any]) -> Selection:
    """What the command line selects of a resource, checked against it (usage errors name the
    flag): filters, --param, --where, and --fields or --query."""
    where = check_conditions(resource, options.where)
    query = query_of(options)
    return Selection(
        filters=tuple(filter_pairs(resource, options.filter, options.filter_flags, "export")),
        params=tuple(options.param),
        where=tuple(condition.text for condition in where),
        fields=parse_fields(options.fields, resource) if options.fields else (),
        query=None if query is None else query.text,
    )


def _filter_flags(pairs: Sequence[tuple[str, str]]) -> str:
    return shlex.join(word for name, value in pairs for word in (filter_flag(name), value))


def _param_flags(pairs: Sequence[tuple[str, str]]) -> str:
    return shlex.join(word for pair in pairs for word in ("--param", "=".join(pair)))


def _where_flags(conditions: Sequence[str]) -> str:
    return shlex.join(word for condition in conditions for word in ("--where", condition))


def _fields_flag(fields: Sequence[str]) -> str:
    return f"--fields {','.join(fields)}"


def _query_flag(query: str) -> str:
    return shlex.join(["--query", query])


_KEPT: tuple[tuple[str, str, Callable[[Any], str], bool], ...] = (
    ("filters", "filters", _filter_flags, False),
    ("params", "--param", _param_flags, False),
    ("where", "--where", _where_flags, False),
    ("fields", "--fields", _fields_flag, True),
    ("query", "--query", _query_flag, True),
)
"""What a resume keeps of the selection: its attribute, the flag to name, how the flags spell
it, and whether the order counts (the columns of --fields)."""


def kept(segment: str, started: Selection, given: Selection) -> Selection:
    """The selection a resumed export goes on with: the one it started with. Given again it must
    be the same; a change is a usage error naming the flag (it would mix two selections)."""
    for attribute, flag, spelt, ordered in _KEPT:
        before, now = getattr(started, attribute), getattr(given, attribute)
        same = before == now if ordered else sorted(before) == sorted(now)
        if now and not same:
            was = spelt(before) if before else f"no {flag}"
            raise UsageError(
                f"the unfinished export of {segment} was started with {was}, not "
                f"{spelt(now)}; resume it with the same {flag}, or without any to keep them "
                "(or pass --restart to start it again)"
            )
    return started


def cutter(
    chosen: Selection, file_format: str, resource: Resource[Any]
) -> Callable[[list[WireRecord]], list[WireRecord]]:
    """What of each page goes to the file: the records meeting --where, cut to --fields or
    made into what --query makes of each (rows of its columns in CSV). The first page holding
    records is checked for the fields the paths name beyond the published ones (`SeenCheck`):
    one that none of its records has stops the export (a usage error) before anything of it is
    written."""
    conditions = [parse_where(text) for text in chosen.where]
    flatten = file_format == "csv"
    fields = [(path, f"--fields {path}") for path in chosen.fields]
    seen = SeenCheck(resource, [*fields, *where_paths(conditions)])
    query = None if chosen.query is None else parse_query(chosen.query)

    def cut(records: list[WireRecord]) -> list[WireRecord]:
        seen.check(records)
        meeting = keep(records, conditions) if conditions else records
        if query is not None:
            results = query.apply(meeting)  # JSON values: a JSON lines file takes any
            return list(query.rows(results)) if flatten else results
        return select(meeting, chosen.fields, flatten=flatten) if chosen.fields else meeting

    return cut
