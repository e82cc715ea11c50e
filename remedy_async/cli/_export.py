"""`export`: every record of some collections into one file each, atomically and resumably.

Resources export concurrently, page by page, in constant memory. See `_checkpoint` for the
files and the checkpoint; in short, each resource is written to `<name>.<format>.part`,
checkpointed as pages arrive (`_checkpoint`), and renamed to `<name>.<format>` once complete (a
Parquet file is written beside it as pages arrive, and completed then: `_parquet`). Records
are written as the service sent them once their model accepted them (`remedy_async.columnar.
checked_dicts`), respelt in snake_case, the contract's naming, when the service spells keys
otherwise. `--resume` continues an interrupted export exactly; without it, an unfinished
export in the directory is refused (exit 2) unless `--restart` discards it.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shlex
import traceback
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, BinaryIO

from attrs import evolve, frozen

from remedy_async import (
    RESOURCES,
    MissingDependencyError,
    Pager,
    RemedyClient,
    RemedyError,
    Resource,
    ResourceCollection,
    Shifts,
)
from remedy_async.columnar import checked_dicts

from ._checkpoint import (
    Checkpoint,
    Checkpointer,
    CheckpointError,
    ExportFiles,
    Selection,
    fsync_directory,
    read_checkpoint,
    write_checkpoint,
)
from ._connection import open_client
from ._errors import EXIT_OK, EXIT_PARTIAL, UsageError, describe, in_flags
from ._formats import EXPORT_FORMATS, LINE_END, LineEnd
from ._meters import Meter, Meters
from ._parquet import ArrowStreamEncoder, ParquetBeside
from ._progress import progress
from ._selection import columns_of, cutter, export_encoder, kept, selection_of
from ._server_filters import group_filters
from ._terminal import ProgressMode, Terminal

DEFAULT_FORMAT = "jsonl"


@frozen
class Job:
    """One resource's export as planned: its files, and the checkpoint it starts from."""

    resource: Resource[Any]
    files: ExportFiles
    format: str
    start: Checkpoint | None
    """Where to start; None when the file is already complete (a resumed export skips it)."""
    fresh: bool = False
    """Whether the .part file must be created (it holds nothing yet)."""


def _resumable(
    files: ExportFiles, file_format: str | None, selection: Selection
) -> Checkpoint | None:
    """Return the checkpoint to continue from, or None when there is nothing to continue."""
    try:
        checkpoint = read_checkpoint(files.checkpoint)
    except CheckpointError as error:
        raise UsageError(f"cannot resume: {error}; pass --restart to discard it") from None
    if checkpoint is None or not files.part(checkpoint.format).exists():
        return None
    if checkpoint.resource != files.resource or checkpoint.format not in EXPORT_FORMATS:
        raise UsageError(f"cannot resume: {files.checkpoint} is for another export")
    if file_format is not None and file_format != checkpoint.format:
        raise UsageError(
            f"the unfinished export of {files.resource} is {checkpoint.format}; resume it "
            f"with --format {checkpoint.format} (or without --format)"
        )
    if files.part(checkpoint.format).stat().st_size < checkpoint.length:
        raise UsageError(
            f"cannot resume {files.resource}: its .part file is shorter than its checkpoint "
            "says; pass --restart to start it again"
        )
    kept(files.resource, checkpoint.selection, selection)
    return checkpoint


def _finished_format(files: ExportFiles, file_format: str | None) -> str | None:
    """Return the format of a finished file with nothing unfinished beside it, if any."""
    if files.parts(EXPORT_FORMATS):
        return None
    for candidate in (file_format,) if file_format else EXPORT_FORMATS:
        if files.final(candidate).exists():
            return candidate
    return None


def plan_jobs(
    directory: Path,
    resources: Sequence[Resource[Any]],
    *,
    file_format: str | None,
    page_size: int,
    resume: bool,
    restart: bool,
    selections: Mapping[str, Selection] | None = None,
) -> list[Job]:
    """Decide, from the files in `directory`, where each resource's export starts.

    Without --resume or --restart, an unfinished export (a .part file) is refused. With
    --restart it is deleted. With --resume a checkpointed .part file continues in its own
    format and selection (`selections` by resource segment, none by default: everything); a
    resource with a finished file (in --format, or in any format when none is given) and
    nothing unfinished is skipped; anything else starts from the beginning.
    """
    selections = selections or {}
    all_files = [ExportFiles(directory, resource.segment) for resource in resources]
    unfinished = [files.resource for files in all_files if files.parts(EXPORT_FORMATS)]
    if unfinished and not (resume or restart):
        raise UsageError(
            f"{directory} holds an unfinished export of {', '.join(unfinished)}; pass "
            "--resume to continue it or --restart to discard it"
        )
    jobs: list[Job] = []
    for resource, files in zip(resources, all_files, strict=True):
        if restart:
            files.discard(EXPORT_FORMATS)
        selection = selections.get(resource.segment, Selection())
        checkpoint = _resumable(files, file_format, selection) if resume else None
        if checkpoint is not None:
            jobs.append(Job(resource, files, checkpoint.format, checkpoint))
            continue
        finished = _finished_format(files, file_format)
        files.discard(EXPORT_FORMATS)
        if resume and finished is not None:
            jobs.append(Job(resource, files, finished, None))
            continue
        chosen = file_format or DEFAULT_FORMAT
        header = len(_encoder(chosen, resource, selection).start())
        start = Checkpoint(
            resource.segment, chosen, page_size, records=0, length=header, selection=selection
        )
        jobs.append(Job(resource, files, chosen, start, fresh=True))
    return jobs


def _encoder(
    file_format: str,
    resource: Resource[Any],
    selection: Selection,
    line_end: LineEnd = LINE_END,
) -> Any:
    """The export encoder; a usage error when the format cannot be written (Parquet without
    pyarrow, or with --fields or --query: its schema is fixed, so choose columns when reading
    it)."""
    chosen = "--fields" if selection.fields else "--query" if selection.query else None
    if file_format == "parquet" and chosen is not None:
        raise UsageError(
            f"{chosen} cannot be used with --format parquet: its columns are fixed per "
            "collection (select columns when you read the file)"
        )
    try:
        return export_encoder(file_format, resource, columns_of(selection), line_end)
    except MissingDependencyError as error:
        raise UsageError(str(error)) from None


def _create_part(job: Job, header: bytes) -> None:
    assert job.start is not None
    with open(job.files.part(job.format), "wb") as file:
        file.write(header)
        file.flush()
        os.fsync(file.fileno())
    write_checkpoint(job.files.checkpoint, job.start)


def _open_part(job: Job, checkpoint: Checkpoint) -> BinaryIO:
    """Open the .part file for writing after the length the checkpoint covers."""
    file = open(job.files.part(job.format), "r+b")  # noqa: SIM115 - closed by the caller
    file.truncate(checkpoint.length)
    file.seek(checkpoint.length)
    return file


def _complete(job: Job) -> Path:
    final = job.files.final(job.format)
    if job.format == "parquet":  # the Parquet file is complete beside its stream
        job.files.part(job.format).unlink()
    else:
        os.replace(job.files.part(job.format), final)
    fsync_directory(final.parent)
    job.files.checkpoint.unlink(missing_ok=True)
    return final


@frozen
class Exported:
    """A resource's finished file, how many records it holds, and what proving its pages cost
    when the data moved while it was listed."""

    path: Path
    written: int
    shifts: Shifts


async def export_one(job: Job, pager: Pager[Any], meter: Meter) -> Exported:
    """Write one resource's records to its .part file, checkpointed as pages arrive; rename it
    at the end (a Parquet export's file is written beside it, `_parquet`).

    A record that --where leaves out still counts as fetched, and the checkpoint's resume token
    moves past it like past any other, so a resume neither repeats nor skips a record."""
    assert job.start is not None
    encoder = _encoder(job.format, job.resource, job.start.selection, job.start.line_end)
    cut = cutter(job.start.selection, job.format, job.resource)
    checkpoint = job.start
    shifts = Shifts()
    parquet: ParquetBeside | None = None
    try:
        if job.fresh:
            await asyncio.to_thread(_create_part, job, encoder.start())
        file = await asyncio.to_thread(_open_part, job, checkpoint)
        if isinstance(encoder, ArrowStreamEncoder):
            parquet = ParquetBeside(job.files.final(job.format), encoder.schema)
            await asyncio.to_thread(parquet.start, job.files.part(job.format), checkpoint.length)
        with file:
            saver = Checkpointer(file, job.files.checkpoint, lambda: write_checkpoint)
            try:
                async for page in checked_dicts(pager).pages():
                    kept = cut(list(page.items))
                    data = encoder.records(kept)
                    file.write(data)
                    if parquet is not None and data:
                        parquet.add(encoder.last_batch)
                    checkpoint = evolve(
                        checkpoint,
                        records=checkpoint.records + len(page.items),
                        written=checkpoint.written + len(kept),
                        length=checkpoint.length + len(data),
                        resume_token=page.resume_token,
                    )
                    meter.add(len(page.items), total=page.total)
                    shifts += page.shifts
                    if page.resume_token is not None:
                        saver.note(checkpoint)
            finally:
                await saver.settle()
            file.write(encoder.end())
            file.flush()
            await asyncio.to_thread(os.fsync, file.fileno())
        if parquet is not None:
            await asyncio.to_thread(parquet.finish)
        final = await asyncio.to_thread(_complete, job)
    except BaseException:
        if parquet is not None:
            await asyncio.to_thread(parquet.abandon)
        meter.finish(failed=True)
        raise
    meter.finish()
    return Exported(final, checkpoint.written, shifts)


def _unique(resources: Sequence[Resource[Any]]) -> list[Resource[Any]]:
    return list(dict.fromkeys(resources))


def chosen_resources(options: argparse.Namespace) -> list[Resource[Any]]:
    """The collections an export names, each once (all four when it names none)."""
    return _unique(options.resources) or list(RESOURCES)


def make_directory(directory: Path) -> None:
    """Create an export's directory (and those above it); a usage error when it cannot be."""
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except (FileExistsError, NotADirectoryError):
        raise UsageError(f"--out {directory} is not a directory") from None
    except OSError as error:
        raise UsageError(f"--out {directory}: {error.strerror or error}") from None


def plan_directory(
    options: argparse.Namespace, directory: Path, *, resume: bool, restart: bool
) -> list[Job]:
    """The jobs of the export's collections into `directory` (created if need be)."""
    resources = chosen_resources(options)
    selections = {resource.segment: selection_of(options, resource) for resource in resources}
    make_directory(directory)
    return plan_jobs(
        directory,
        resources,
        file_format=options.format,
        page_size=options.page_size,
        resume=resume,
        restart=restart,
        selections=selections,
    )


def _plan(options: argparse.Namespace) -> list[Job]:
    return plan_directory(
        options, Path(options.out), resume=options.resume, restart=options.restart
    )


def job_pager(client: RemedyClient, job: Job, options: argparse.Namespace) -> Pager[Any]:
    """The list a job reads, from its checkpoint's token; a usage error for a bad filter, or a
    token that no longer fits (`--restart` starts the job again)."""
    assert job.start is not None
    collection: ResourceCollection[Any] = getattr(client, job.resource.attribute)
    chosen = job.start.selection
    filters: dict[str, Any] = group_filters(chosen.filters)
    try:
        return collection.list(
            page_size=job.start.page_size,
            resume_token=job.start.resume_token,
            concurrency=options.concurrency,
            extra_params=group_filters(chosen.params),
            **filters,
        )
    except ValueError as error:
        if job.start.resume_token is None:
            raise UsageError(in_flags(str(error))) from None
        raise UsageError(
            f"cannot resume {job.resource.segment}: {error}; pass --restart to start it again"
        ) from None


async def run_export(options: argparse.Namespace, terminal: Terminal) -> int:
    """Export the chosen collections (all four by default) into --out; see the module doc.
    With `--to duckdb:PATH` instead, they are upserted into a DuckDB file (`_duckdb`)."""
    if (options.out is None) == (getattr(options, "to", None) is None):
        raise UsageError("export needs one of --out DIR or --to duckdb:PATH")
    if options.out is None:
        from ._duckdb import run_duckdb_export  # noqa: PLC0415 - only for that target

        return await run_duckdb_export(options, terminal)
    meters = Meters(terminal.clock)
    client = open_client(options, terminal.env, [meters.on_event], terminal.transport)
    jobs = await asyncio.to_thread(_plan, options)
    async with client:
        runs: list[tuple[Job, Pager[Any], Meter]] = []
        for job in jobs:
            segment = job.resource.segment
            if job.start is None:
                terminal.note(f"{segment}: already complete in {job.files.final(job.format)}")
                continue
            pager = job_pager(client, job, options)
            runs.append(
                (job, pager, meters.add(segment, (segment, "list"), done=job.start.records))
            )
        try:
            mode: ProgressMode = options.progress if runs else "never"
            with progress(
                meters, mode, terminal, data_on_stdout=False, every=options.progress_every
            ):
                outcomes = await asyncio.gather(
                    *(export_one(job, pager, meter) for job, pager, meter in runs),
                    return_exceptions=True,
                )
        except asyncio.CancelledError:
            terminal.say(resume_hint(options))
            raise
    return _report(runs, outcomes, terminal, options)


def resume_hint(options: argparse.Namespace) -> str:
    """The command that continues this export where it stopped (never with the token)."""
    given: list[str] = list(getattr(options, "argv", ()))
    if not given:
        return "run the same command with --resume to continue where it stopped"
    argv, token_given, skip = [], False, False
    for arg in given:
        if skip:
            skip = False
        elif arg == "--token":
            token_given = skip = True
        elif arg.startswith("--token="):
            token_given = True
        elif arg not in ("--restart", "--resume"):
            argv.append(arg)
    hint = f"to continue where it stopped, run: {shlex.join(['remedy-async', *argv, '--resume'])}"
    return hint + (" (with your --token again)" if token_given else "")


def _report(
    runs: Sequence[tuple[Job, Pager[Any], Meter]],
    outcomes: Sequence[Exported | BaseException],
    terminal: Terminal,
    options: argparse.Namespace,
) -> int:
    failed = False
    for (job, _, meter), outcome in zip(runs, outcomes, strict=True):
        segment = job.resource.segment
        if isinstance(outcome, Exported):
            retries = f", {meter.retries} retries" if meter.retries else ""
            if outcome.shifts:  # records were added or removed while it was listed
                retries += f", data moved: {outcome.shifts}"
            count = f"{meter.records:,} records"
            if outcome.written != meter.records:
                count = f"{outcome.written:,} of {count} (--where)"
            terminal.note(f"{segment}: {count} in {outcome.path} ({meter.seconds:.2f} s{retries})")
            continue
        if isinstance(outcome, UsageError) and job.fresh:
            # A field the first page's records lack (`SeenCheck`): the export never began
            # for this selection, so nothing of it is left to resume.
            job.files.discard(EXPORT_FORMATS)
        if not isinstance(outcome, RemedyError | OSError):
            raise outcome
        failed = True
        if options.debug:
            traceback.print_exception(outcome, file=terminal.stderr)
        said = describe(outcome, token_sent=options.token_sent)
        terminal.say(f"{segment}: stopped after {meter.records:,} records: {said}")
    if failed:
        terminal.say(resume_hint(options))
        return EXIT_PARTIAL
    return EXIT_OK
