"""`export --to duckdb:PATH`: each collection upserted by id into a table of a DuckDB file.

Each collection gets a table named by its client attribute (`vulnerability_findings`), with the
fixed columns of `remedy_async.columnar` and `id` as its primary key. Every page is upserted
(`INSERT OR REPLACE`) in one transaction with the export's own row in `_remedy_export`, which
holds the resume token after that page: so rerunning gives the same table, a stopped export
continues exactly with `--resume`, and the table and its position never disagree. Records
removed from the service stay in the table (an upsert adds and replaces, it never deletes).
"""

from __future__ import annotations

import argparse
import asyncio
from pathlib import Path
from typing import Any

from remedy_async import (
    RESOURCES,
    MissingDependencyError,
    RemedyError,
    Resource,
    ResourceCollection,
)
from remedy_async.columnar import arrow_schema, checked_dicts, record_batch

from ._connection import open_client
from ._errors import EXIT_OK, EXIT_PARTIAL, UsageError, describe, in_flags
from ._meters import Meter, Meters
from ._progress import progress
from ._selection import cutter, selection_of
from ._server_filters import group_filters
from ._terminal import ProgressMode, Terminal

SCHEME = "duckdb:"
STATE_TABLE = "_remedy_export"


def duckdb_path(target: str) -> Path:
    """The database file of `--to duckdb:PATH`; a usage error for any other target."""
    if not target.startswith(SCHEME) or not target[len(SCHEME) :]:
        raise UsageError(f"--to must be duckdb:PATH (a DuckDB database file), not {target!r}")
    return Path(target[len(SCHEME) :])


def _connect(path: Path) -> Any:
    try:
        import duckdb  # noqa: PLC0415 - only for this target
    except ImportError:
        raise UsageError(
            "--to duckdb: needs duckdb, which is not installed: pip install 'remedy-async[duckdb]'"
        ) from None
    try:
        arrow_schema(RESOURCES[0])
    except MissingDependencyError as error:
        raise UsageError(str(error)) from None
    return duckdb.connect(str(path))


def _prepare(connection: Any, resource: Resource[Any]) -> None:
    """Create the resource's table (typed by its Arrow schema, keyed by id) if it is missing."""
    table = resource.attribute
    empty = arrow_schema(resource).empty_table()
    connection.register("remedy_empty", empty)
    connection.execute(f'CREATE TABLE IF NOT EXISTS "{table}" AS SELECT * FROM remedy_empty')
    connection.unregister("remedy_empty")
    keyed = connection.execute(
        "SELECT count(*) FROM duckdb_constraints() WHERE table_name = ? "
        "AND constraint_type = 'PRIMARY KEY'",
        [table],
    ).fetchone()
    if not keyed[0]:
        connection.execute(f'ALTER TABLE "{table}" ADD PRIMARY KEY (id)')
    connection.execute(
        f"CREATE TABLE IF NOT EXISTS {STATE_TABLE} "
        "(resource VARCHAR PRIMARY KEY, resume_token VARCHAR, records BIGINT)"
    )


def _position(connection: Any, resource: Resource[Any]) -> tuple[str | None, int]:
    """Where an unfinished export of the resource stopped (token, records), if one did."""
    row = connection.execute(
        f"SELECT resume_token, records FROM {STATE_TABLE} WHERE resource = ?",
        [resource.segment],
    ).fetchone()
    return (None, 0) if row is None else (row[0], row[1])


def _upsert(connection: Any, table: str, batch: Any, state: tuple[str, str | None, int]) -> None:
    """Upsert one page and record the position after it, in one transaction."""
    connection.execute("BEGIN TRANSACTION")
    try:
        if batch is not None:
            connection.register("remedy_page", batch)
            connection.execute(f'INSERT OR REPLACE INTO "{table}" SELECT * FROM remedy_page')
            connection.unregister("remedy_page")
        connection.execute(f"INSERT OR REPLACE INTO {STATE_TABLE} VALUES (?, ?, ?)", list(state))
        connection.execute("COMMIT")
    except BaseException:
        connection.execute("ROLLBACK")
        raise


async def _export(
    connection: Any,
    collection: ResourceCollection[Any],
    options: argparse.Namespace,
    start: tuple[str | None, int],
    meter: Meter,
) -> int:
    resource = collection.resource
    selection = selection_of(options, resource)
    token, records = start
    cut = cutter(selection, "jsonl", resource)
    filters: dict[str, Any] = group_filters(selection.filters)
    try:
        pager = collection.list(
            page_size=options.page_size,
            resume_token=token,
            concurrency=options.concurrency,
            extra_params=group_filters(selection.params),
            **filters,
        )
    except ValueError as error:
        raise UsageError(in_flags(str(error))) from None
    written = 0
    async for page in checked_dicts(pager).pages():
        kept = cut(list(page.items))
        batch = record_batch(resource, kept) if kept else None
        records += len(page.items)
        written += len(kept)
        state = (resource.segment, page.resume_token, records)
        await asyncio.to_thread(_upsert, connection, resource.attribute, batch, state)
        meter.add(len(page.items), total=page.total)
    return written


async def run_duckdb_export(options: argparse.Namespace, terminal: Terminal) -> int:
    """Upsert the chosen collections into the DuckDB file of --to; see the module doc."""
    path = duckdb_path(options.to)
    resources = list(dict.fromkeys(options.resources)) or list(RESOURCES)
    for flag, given in (("--fields", "fields"), ("--query", "query")):
        if getattr(options, given, None):
            raise UsageError(f"{flag} cannot be used with --to duckdb: its columns are fixed")
    connection = await asyncio.to_thread(_connect, path)
    meters = Meters(terminal.clock)
    failed = False
    try:
        for resource in resources:
            await asyncio.to_thread(_prepare, connection, resource)
        async with open_client(
            options, terminal.env, [meters.on_event], terminal.transport
        ) as client:
            mode: ProgressMode = options.progress
            with progress(
                meters, mode, terminal, data_on_stdout=False, every=options.progress_every
            ):
                for resource in resources:
                    collection: ResourceCollection[Any] = getattr(client, resource.attribute)
                    start = _position(connection, resource) if options.resume else (None, 0)
                    meter = meters.add(resource.segment, (resource.segment, "list"), done=start[1])
                    try:
                        written = await _export(connection, collection, options, start, meter)
                    except (OSError, RemedyError) as error:
                        meter.finish(failed=True)
                        failed = True
                        terminal.say(f"{resource.segment}: stopped: {describe(error)}")
                        continue
                    meter.finish()
                    terminal.say(
                        f"{resource.segment}: {written:,} records upserted into "
                        f"{path}:{resource.attribute} ({meter.seconds:.2f} s)"
                    )
    finally:
        connection.close()
    if failed:
        terminal.say("run the same command with --resume to continue where it stopped")
        return EXIT_PARTIAL
    return EXIT_OK
