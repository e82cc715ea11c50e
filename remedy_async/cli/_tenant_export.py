"""`export --tenants FILE`: every tenant's collections into files of its own, resumably, in
one process or on Ray (`--engine ray`).

    DIR/manifest.jsonl                     one line per finished unit (tenant and collection)
    DIR/tenant=<name>/<resource>.<format>  each tenant's files, as `export` writes one
                                           organisation's (its .part and checkpoint meanwhile)
    DIR/tenant=<name>/.reading             while a run reads that tenant's key

A unit is one tenant's list of one collection, exported as `export` exports a collection
(`_export.export_one`: checkpointed pages, renamed when complete), so `--resume` after a crash,
a kill or Ctrl-C skips finished units, continues each unfinished one from its checkpoint, and
repeats nothing in the files. The manifest gains a line when a unit finishes (on Ray, when its
task returns); a run finds any finished file the manifest lacks (a stop between the two) and
adds its line. Each tenant's key is held by one process (one client per tenant, one pool of
connections): its `rate_limit` holds at the service. A run that finds a tenant's `.reading`
left behind (a run or a Ray task killed while reading it) waits one rate-limit window before
that key's first request, so the dead one's requests and its own never share a window.

With `--engine ray` (`pip install 'remedy-async[ray]'`; `--address` for an existing cluster),
the tenants are cut into shards of whole tenants, one Ray task each, writing into DIR, which
every worker must see (a local cluster, or a shared file system); a task whose worker died is
run again by Ray and resumes from the checkpoints.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import time
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from functools import partial
from pathlib import Path
from typing import Any, Final

import orjson
from attrs import frozen

from remedy_async import (
    ConfigurationError,
    MissingDependencyError,
    RemedyError,
    Shard,
    Tenant,
    TenantClients,
    load_tenants,
    plan_shards,
    plan_units,
)

from ._checkpoint import ExportFiles, fsync_directory, replace_file
from ._connection import client_settings
from ._errors import EXIT_OK, EXIT_PARTIAL, UsageError, describe, in_flags
from ._export import (
    Exported,
    Job,
    chosen_resources,
    export_one,
    job_pager,
    make_directory,
    plan_directory,
    resume_hint,
)
from ._formats import EXPORT_FORMATS
from ._meters import Meter, Meters
from ._progress import progress
from ._terminal import Terminal

MANIFEST: Final = "manifest.jsonl"
READING: Final = ".reading"

Report = Callable[[str, int], None]
"""Tells the command how many records a unit (`tenant/collection`) has delivered so far."""


def _segment(collection: str) -> str:
    """A collection's path segment (the manifest names collections by client attribute)."""
    return collection.replace("_", "-")


def tenant_directory(directory: Path, tenant: str) -> Path:
    """Where a tenant's files go: `DIR/tenant=<name>`, a partition a reader can name."""
    return directory / f"tenant={tenant}"


@frozen
class Finished:
    """A unit whose file is complete: a line of the manifest."""

    tenant: str
    collection: str
    path: str
    records: int
    written: int
    format: str

    def line(self) -> bytes:
        """The manifest's line for it."""
        return orjson.dumps(
            {
                "tenant": self.tenant,
                "collection": self.collection,
                "path": self.path,
                "records": self.records,
                "written": self.written,
                "format": self.format,
                "finished_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            },
            option=orjson.OPT_APPEND_NEWLINE,
        )


@frozen
class Stopped:
    """A unit that stopped before its end, and why (its checkpoint continues it)."""

    tenant: str
    collection: str
    records: int
    error: str


Outcome = Finished | Stopped


class Manifest:
    """`DIR/manifest.jsonl`: one line per finished unit, appended (and fsynced) by the one
    process that runs the command; a unit already in it is never added twice."""

    def __init__(self, directory: Path) -> None:
        self.path = directory / MANIFEST
        self._units: set[tuple[str, str]] = set()
        try:
            lines = self.path.read_bytes().splitlines()
        except FileNotFoundError:
            lines = []
        for line in lines:
            try:
                entry = orjson.loads(line)
                self._units.add((entry["tenant"], entry["collection"]))
            except (orjson.JSONDecodeError, KeyError, TypeError):
                continue  # a line cut by a crash: the unit is added again when found

    def __contains__(self, unit: tuple[str, str]) -> bool:
        return unit in self._units

    def forget(self, units: set[tuple[str, str]]) -> None:
        """Rewrite the manifest without these units' lines (`--restart`), atomically."""
        try:
            lines = self.path.read_bytes().splitlines(keepends=True)
        except FileNotFoundError:
            return
        kept = []
        for line in lines:
            try:
                entry = orjson.loads(line)
                unit = (entry["tenant"], _segment(entry["collection"]))
            except (orjson.JSONDecodeError, KeyError, TypeError):
                continue
            if unit not in units:
                kept.append(line)
        replace_file(self.path, b"".join(kept))
        self._units = {(t, c) for t, c in self._units if (t, _segment(c)) not in units}

    def add(self, finished: Finished) -> None:
        """Append a finished unit's line, unless it is there already."""
        unit = (finished.tenant, finished.collection)
        if unit in self._units:
            return
        descriptor = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            os.write(descriptor, finished.line())
            os.fsync(descriptor)
        finally:
            os.close(descriptor)
        self._units.add(unit)


@frozen
class Plan:
    """What a run over many tenants exports: its tenants, its directory, the options."""

    tenants: tuple[Tenant, ...]
    directory: Path
    options: argparse.Namespace

    @property
    def collections(self) -> list[str]:
        return [resource.attribute for resource in chosen_resources(self.options)]


def plan_run(options: argparse.Namespace, terminal: Terminal) -> Plan:
    """Read the tenants file and prepare DIR: every token checked, an unfinished export
    refused without `--resume` or `--restart` (discarded with `--restart`); a usage error for
    what cannot run, before any request."""
    if getattr(options, "to", None) is not None:
        raise UsageError("--tenants writes files: give --out DIR, not --to")
    if options.out is None:
        raise UsageError("export --tenants needs --out DIR")
    if options.token is not None:
        raise UsageError("--tenants reads each tenant's token from the tenants file: drop --token")
    if options.engine != "ray" and (options.address is not None or options.shards is not None):
        raise UsageError("--address and --shards are Ray's: give --engine ray too")
    try:
        tenants = load_tenants(options.tenants, environ=terminal.env)
    except ConfigurationError as error:
        raise UsageError(str(error)) from None
    directory = Path(options.out)
    make_directory(directory)
    units = [
        (f"{tenant.name}/{files.resource}", files)
        for tenant in tenants
        for files in _files(directory, tenant.name, options)
    ]
    unfinished = [name for name, files in units if files.parts(EXPORT_FORMATS)]
    finished = [name for name, files in units if _finished_file(files) is not None]
    if (unfinished or finished) and not (options.resume or options.restart):
        raise UsageError(
            f"{directory} holds {'an unfinished' if unfinished else 'a finished'} export of "
            f"{_some(unfinished or finished)}; pass --resume to "
            f"{'continue it' if unfinished else 'finish only what is missing'} or --restart "
            "to export again (a new --out keeps it)"
        )
    if options.restart:
        _discard(directory, [files for _, files in units])
    for tenant in tenants:  # checks each tenant's selection
        plan_directory(
            options, tenant_directory(directory, tenant.name), resume=True, restart=False
        )
    return Plan(tenants, directory, options)


def _some(names: Sequence[str]) -> str:
    return ", ".join(names[:5]) + (" and more" if len(names) > 5 else "")


def _finished_file(files: ExportFiles) -> Path | None:
    return next((files.final(name) for name in EXPORT_FORMATS if files.final(name).exists()), None)


def _discard(directory: Path, units: Sequence[ExportFiles]) -> None:
    """`--restart`: delete what an earlier run left of these units, finished files too, and
    their lines in the manifest."""
    for files in units:
        files.discard(EXPORT_FORMATS)
        for name in EXPORT_FORMATS:
            files.final(name).unlink(missing_ok=True)
    Manifest(directory).forget(
        {(files.directory.name.removeprefix("tenant="), files.resource) for files in units}
    )


def _files(directory: Path, tenant: str, options: argparse.Namespace) -> list[ExportFiles]:
    place = tenant_directory(directory, tenant)
    return [ExportFiles(place, resource.segment) for resource in chosen_resources(options)]


def unit_name(tenant: str, collection: str) -> str:
    return f"{tenant}/{collection}"


class ReportingMeter(Meter):
    """A unit's meter that reports its count as it grows."""

    def __init__(self, name: str, report: Report, *, done: int) -> None:
        super().__init__(name, done=done)
        self._report = report
        report(name, done)

    def add(self, records: int, *, pages: int = 1, total: int | None = None) -> None:
        super().add(records, pages=pages, total=total)
        self._report(self.name, self.records)


async def export_units(
    plan: Plan,
    clients: TenantClients,
    shard: Shard,
    report: Report,
    *,
    sleep: Callable[[float], Awaitable[None]] | None = None,
) -> list[Outcome]:
    """Export a shard's units (every collection of some tenants) at once, each from where the
    files on disk leave it; the outcome of each unit. Runs where the tenants' keys are: this
    process, or a Ray task (`run_shards`)."""
    options = plan.options
    jobs: list[tuple[str, Job]] = []
    for tenant in shard.tenants:
        place = tenant_directory(plan.directory, tenant)
        jobs += [
            (tenant, job) for job in plan_directory(options, place, resume=True, restart=False)
        ]
    markers = [tenant_directory(plan.directory, tenant) / READING for tenant in shard.tenants]
    left = [
        tenant for tenant, marker in zip(shard.tenants, markers, strict=True) if marker.exists()
    ]
    for marker in markers:
        marker.touch()
    try:
        wait = clients.rate_window(left)
        if wait:
            await (sleep or asyncio.sleep)(wait)
        outcomes = await asyncio.gather(
            *(_export_unit(tenant, job, clients, options, report) for tenant, job in jobs)
        )
    finally:
        for marker in markers:
            marker.unlink(missing_ok=True)
    return list(outcomes)


async def _export_unit(
    tenant: str, job: Job, clients: TenantClients, options: argparse.Namespace, report: Report
) -> Outcome:
    name = unit_name(tenant, job.resource.attribute)
    path = job.files.final(job.format)
    if job.start is None:
        records = _records_in(job)
        report(name, records)
        return Finished(tenant, job.resource.attribute, str(path), records, records, job.format)
    meter = ReportingMeter(name, report, done=job.start.records)
    try:
        pager = job_pager(clients[tenant], job, options)
        exported: Exported = await export_one(job, pager, meter)
    except (RemedyError, OSError, UsageError) as error:
        said = describe(error) if not isinstance(error, UsageError) else in_flags(str(error))
        return Stopped(tenant, job.resource.attribute, meter.records, said)
    return Finished(
        tenant,
        job.resource.attribute,
        str(exported.path),
        meter.records,
        exported.written,
        job.format,
    )


def _records_in(job: Job) -> int:
    """How many records a finished file holds (lines of JSON lines; rows of CSV; Parquet's
    own count), for a unit a run finds finished."""
    path = job.files.final(job.format)
    if job.format == "parquet":
        from pyarrow import parquet  # noqa: PLC0415 - only for a finished Parquet file

        rows: int = parquet.ParquetFile(path).metadata.num_rows
        return rows
    with open(path, "rb") as file:
        lines = sum(1 for _ in file)
    return lines - 1 if job.format == "csv" else lines


class TenantProgress:
    """The command's meters, one per tenant, fed by its units' reports."""

    def __init__(self, tenants: Iterable[str], meters: Meters) -> None:
        self._meters = {name: meters.add(name, None) for name in tenants}
        self._counts: dict[str, dict[str, int]] = {name: {} for name in self._meters}

    def report(self, unit: str, records: int) -> None:
        """A unit's latest count."""
        tenant, _, collection = unit.partition("/")
        counts = self._counts.get(tenant)
        if counts is None:
            return
        counts[collection] = records
        self._meters[tenant].records = sum(counts.values())

    def reports(self, counts: Mapping[str, int]) -> None:
        """Every unit's latest count (from Ray's driver)."""
        for unit, records in counts.items():
            self.report(unit, records)

    def finish(self, outcomes: Iterable[Outcome]) -> None:
        """Stop every tenant's clock, marking those with a unit stopped."""
        failed = {outcome.tenant for outcome in outcomes if isinstance(outcome, Stopped)}
        for name, meter in self._meters.items():
            meter.finish(failed=name in failed)


async def run_tenant_export(options: argparse.Namespace, terminal: Terminal) -> int:
    """Export the chosen collections of every tenant of `--tenants` into `--out` (see the
    module doc); exit 0 when every unit finished, 3 when some stopped (resumable)."""
    plan = await asyncio.to_thread(plan_run, options, terminal)
    meters = Meters(terminal.clock)
    tenants = TenantProgress((tenant.name for tenant in plan.tenants), meters)
    manifest = Manifest(plan.directory)
    settings = {k: v for k, v in client_settings(options, terminal.env).items() if k != "token"}
    engine = options.engine
    with progress(
        meters, options.progress, terminal, data_on_stdout=False, every=options.progress_every
    ):
        try:
            if engine == "ray":
                outcomes = await asyncio.to_thread(_on_ray, plan, settings, tenants)
            else:
                outcomes = await _in_process(plan, settings, tenants, terminal)
        except asyncio.CancelledError:
            terminal.say(resume_hint(options))
            raise
    tenants.finish(outcomes)
    for outcome in outcomes:
        if isinstance(outcome, Finished):
            manifest.add(outcome)
    fsync_directory(plan.directory)
    return _report(outcomes, terminal, options, manifest)


async def _in_process(
    plan: Plan, settings: Mapping[str, Any], tenants: TenantProgress, terminal: Terminal
) -> list[Outcome]:
    routes = {} if terminal.transport is None else {"transport": terminal.transport}
    try:
        clients = TenantClients(
            plan.tenants,
            max_connections=plan.options.max_connections,
            environ=terminal.env,
            **settings,
            **routes,
        )
    except ConfigurationError as error:
        raise UsageError(in_flags(str(error))) from None
    units = plan_units((tenant.name for tenant in plan.tenants), plan.collections)
    (shard,) = plan_shards(units, 1)
    async with clients:
        return await export_units(plan, clients, shard, tenants.report, sleep=terminal.sleep)


def _on_ray(plan: Plan, settings: Mapping[str, Any], tenants: TenantProgress) -> list[Outcome]:
    try:
        import ray  # noqa: PLC0415 - only --engine ray needs it

        from remedy_async.ray import run_shards  # noqa: PLC0415
    except (ImportError, MissingDependencyError):
        raise UsageError(
            "--engine ray needs Ray, which is not installed: pip install 'remedy-async[ray]'"
        ) from None
    if not ray.is_initialized():
        ray.init(
            address=plan.options.address,
            include_dashboard=False,
            log_to_driver=False,
            logging_level=logging.WARNING,
        )
    results = run_shards(
        partial(_shard_work, plan),
        plan.tenants,
        plan.collections,
        shards=plan.options.shards,
        max_connections=plan.options.max_connections,
        client_options=settings,
        retry_wait=False,  # the tenants' `.reading` files make a retry wait (export_units)
        on_progress=tenants.reports,
    )
    return [outcome for outcomes in results for outcome in outcomes]


async def _shard_work(
    plan: Plan, clients: TenantClients, shard: Shard, report: Report
) -> list[Outcome]:
    return await export_units(plan, clients, shard, report)


def _report(
    outcomes: Sequence[Outcome],
    terminal: Terminal,
    options: argparse.Namespace,
    manifest: Manifest,
) -> int:
    stopped = [outcome for outcome in outcomes if isinstance(outcome, Stopped)]
    finished = len(outcomes) - len(stopped)
    records = sum(outcome.records for outcome in outcomes if isinstance(outcome, Finished))
    tenants = len({outcome.tenant for outcome in outcomes})
    terminal.note(
        f"{finished} of {len(outcomes)} units of {tenants} tenants complete, {records:,} "
        f"records; manifest {manifest.path}"
    )
    for outcome in stopped:
        terminal.say(
            f"{outcome.tenant}/{outcome.collection}: stopped after {outcome.records:,} records: "
            f"{outcome.error}"
        )
    if stopped:
        terminal.say(resume_hint(options))
        return EXIT_PARTIAL
    return EXIT_OK
