"""`demo`: the library's main job, end to end, against the embedded simulator.

Starts the simulator in-process on a free loopback port (seeded data, faults on), then exports
all four collections concurrently while fetching thousands of findings by id, with live
progress, and checks that every record arrived exactly once against the simulator's own data.
It then shows what arrived: a few endpoints by their published fields (hostname, operating
system, agent), and the findings fetched by severity, read from each record's `extra` (the
findings' schema is unpublished, so only `id`, `created_at` and `updated_at` are typed).
"""

from __future__ import annotations

import argparse
import asyncio
import random
import uuid
from collections import Counter
from collections.abc import Sequence
from typing import Any

from attrs import frozen

from remedy_async import (
    RESOURCES,
    NotFoundError,
    RemedyClient,
    RemedyError,
    Resource,
    ResourceCollection,
    RetryPolicy,
    Severity,
)
from remedy_async.simulator import Dataset, FaultSpec, Simulator, SimulatorConfig

from ._errors import EXIT_FAILURE, EXIT_OK, describe
from ._meters import Meter, Meters, Route
from ._progress import progress
from ._terminal import Terminal, rich_missing

DEMO_FAULTS = (
    FaultSpec("http-503", 0.03),
    FaultSpec("reset", 0.01),
    FaultSpec("truncate", 0.01),
    FaultSpec("http-429", 0.02, "list:*", retry_after=1),
)
"""What goes wrong: on every route, list and get, 3% 503s, 1% connection resets and 1% bodies
cut short; on list routes, 2% 429s whose Retry-After pauses the whole client for a second."""

FAULTS_TEXT = "3% 503, 1% resets, 1% cut-short bodies; 2% 429 + Retry-After: 1 s on lists"

DEMO_RETRY = RetryPolicy(attempts=8, backoff_base=0.02, backoff_cap=0.25)
"""Retries with short waits, so the demo shows recovery in seconds, not minutes."""

GET_MANY_NAME = "findings by id"
PAGE_SIZE = 100
"""The most the service serves per page (its published bound)."""
UNKNOWN_IDS = 5
SAMPLES = 3
"""How many of the endpoints listed the demo shows."""
FINDINGS = next(r for r in RESOURCES if r.attribute == "vulnerability_findings")


@frozen
class Check:
    """How one job of the demo went, against what the simulator holds."""

    name: str
    records: int
    expected: int
    seconds: float
    retries: int
    errors: int
    problems: tuple[str, ...] = ()
    """Why the job is not exactly once (missing, duplicated, unexpected records); empty if it is."""
    note: str = ""
    samples: tuple[Any, ...] = ()
    """The first few records the job received, to show."""
    severities: tuple[tuple[str, int], ...] = ()
    """For the findings fetched by id: how many had each severity (from `extra`)."""

    @property
    def exact(self) -> bool:
        """Whether every expected record arrived exactly once and nothing else did."""
        return not self.problems and self.errors == 0 and self.records == self.expected


def _compare(name: str, received: Counter[str], expected: set[str]) -> tuple[str, ...]:
    problems: list[str] = []
    duplicated = sum(count - 1 for count in received.values() if count > 1)
    missing = len(expected - received.keys())
    unexpected = len(received.keys() - expected)
    if missing:
        problems.append(f"{name}: {missing} missing")
    if duplicated:
        problems.append(f"{name}: {duplicated} duplicated")
    if unexpected:
        problems.append(f"{name}: {unexpected} not in the data set")
    return tuple(problems)


async def _export(collection: ResourceCollection[Any], dataset: Dataset, meter: Meter) -> Check:
    segment = collection.resource.segment
    received: Counter[str] = Counter()
    failure: tuple[str, ...] = ()
    samples: list[Any] = []
    try:
        async for page in collection.list(page_size=PAGE_SIZE).pages():
            received.update(record.id for record in page.items)
            samples += page.items[: SAMPLES - len(samples)]
            meter.add(len(page.items))
    except RemedyError as error:
        failure = (f"{segment}: {describe(error)}",)
    meter.finish(failed=bool(failure))
    expected = set(dataset.ids(segment))
    return Check(
        segment,
        received.total(),
        dataset.count(segment),
        meter.seconds,
        meter.retries,
        len(failure),
        (*failure, *_compare(segment, received, expected)),
        samples=tuple(samples),
    )


def _ids_to_get(dataset: Dataset, count: int, seed: int) -> tuple[list[str], set[str]]:
    """Return known finding ids in a seeded random order with a few unknown ones mixed in
    (well-formed UUIDs no finding has, so the service answers 404, not 400)."""
    segment = FINDINGS.segment
    rng = random.Random(seed)
    total = dataset.count(segment)
    known = [dataset.id_of(segment, index) for index in rng.sample(range(total), min(count, total))]
    taken = set(known)
    unknown = [
        text
        for text in (
            str(uuid.UUID(int=rng.getrandbits(128), version=4))
            for _ in range(min(UNKNOWN_IDS, count))
        )
        if text not in taken
    ]
    ids = known + unknown
    rng.shuffle(ids)
    return ids, set(known)


async def _get_many(
    collection: ResourceCollection[Any], ids: list[str], known: set[str], meter: Meter
) -> Check:
    answered: Counter[str] = Counter()
    found: Counter[str] = Counter()
    severities: Counter[str] = Counter()
    problems: list[str] = []
    not_found = errors = 0
    async for result in collection.get_many(ids, concurrency=32):
        answered[result.id] += 1
        if result.error is None:
            if result.unwrap().id != result.id:
                problems.append(f"get_many: asked for {result.id}, got {result.unwrap().id}")
            found[result.id] += 1
            severities[str(result.unwrap().extra.get("severity", "not given"))] += 1
            meter.add(1, pages=0)
        elif isinstance(result.error, NotFoundError) and result.id not in known:
            not_found += 1
        else:
            errors += 1
    meter.errors = errors
    meter.finish(failed=bool(errors))
    if answered != Counter(ids):
        problems.append("get_many: not one answer per id asked")
    return Check(
        GET_MANY_NAME,
        found.total(),
        len(known),
        meter.seconds,
        meter.retries,
        errors,
        (*problems, *_compare("get_many", found, known)),
        note=f"{not_found} unknown ids answered 404, as expected" if not_found else "",
        severities=tuple(sorted(severities.items(), key=lambda item: _rank(item[0]))),
    )


def _rank(severity: str) -> int:
    """Where a severity comes, most serious first (another value after the published ones)."""
    order = [member.value for member in Severity]
    return order.index(severity) if severity in order else len(order)


def _os(endpoint: Any) -> str:
    system = endpoint.operating_system
    return " ".join(part for part in (system.name, system.version) if part) + (
        f" ({system.family})"
    )


def _shown(checks: Sequence[Check]) -> list[str]:
    """Lines showing what arrived: endpoints by their published fields, findings by the
    severity in their `extra`."""
    lines: list[str] = []
    endpoints = next((check for check in checks if check.name == "endpoints"), None)
    if endpoints is not None and endpoints.samples:
        lines.append("Endpoints listed (hostname, operating_system, agent_version, ip):")
        lines += [
            f"  {endpoint.hostname}  {_os(endpoint)}  "
            f"{endpoint.agent_version or 'no agent'}  {endpoint.ip or '-'}"
            for endpoint in endpoints.samples
        ]
    fetched = next((check for check in checks if check.name == GET_MANY_NAME), None)
    if fetched is not None and fetched.severities:
        counts = ", ".join(f"{name} {count:,}" for name, count in fetched.severities)
        lines.append(f"Findings fetched by id, by severity (from extra): {counts}")
    return lines


def _rows(checks: Sequence[Check]) -> list[list[str]]:
    return [
        [
            check.name,
            f"{check.records:,}",
            f"{check.expected:,}",
            f"{check.seconds:.2f}",
            f"{check.records / check.seconds:,.0f}" if check.seconds else "-",
            f"{check.retries:,}",
            f"{check.errors:,}",
        ]
        for check in checks
    ]


async def run_demo(options: argparse.Namespace, terminal: Terminal) -> int:
    """Run the demo; 0 only when every record arrived exactly once."""
    try:
        from ._rich import print_table, stdout_console  # noqa: PLC0415 - rich is optional
    except ImportError as error:
        raise rich_missing(error) from None
    faults = DEMO_FAULTS if options.faults else ()
    config = SimulatorConfig(seed=options.seed, size=options.size, faults=faults)
    meters = Meters()
    loop = asyncio.get_running_loop()
    async with (
        Simulator(config) as simulator,
        RemedyClient(simulator.url, retry=DEMO_RETRY, event_hooks=[meters.on_event]) as client,
    ):
        dataset = simulator.dataset
        with stdout_console(terminal.stdout) as console:
            console.print(
                f"Simulator at {simulator.url}: {options.size:,} endpoints, seed {options.seed}"
            )
            console.print(f"Faults: {FAULTS_TEXT}" if faults else "Faults: none")
        ids, known = _ids_to_get(dataset, options.get_many, options.seed)
        collections: list[ResourceCollection[Any]] = [
            getattr(client, resource.attribute) for resource in RESOURCES
        ]
        started = loop.time()
        jobs = []
        for collection in collections:
            resource: Resource[Any] = collection.resource
            total = dataset.count(resource.segment)
            meter = meters.add(resource.segment, (resource.segment, "list"), total=total)
            jobs.append(_export(collection, dataset, meter))
        if ids:
            route: Route = (FINDINGS.segment, "get")
            meter = meters.add(GET_MANY_NAME, route, total=len(known))
            jobs.append(_get_many(client.vulnerability_findings, ids, known, meter))
        with progress(
            meters, options.progress, terminal, data_on_stdout=False, every=options.progress_every
        ):
            checks = list(await asyncio.gather(*jobs))
        elapsed = loop.time() - started
    records = sum(check.records for check in checks)
    footer = [
        "total",
        f"{records:,}",
        f"{sum(check.expected for check in checks):,}",
        f"{elapsed:.2f}",
        f"{records / elapsed:,.0f}" if elapsed else "-",
        f"{sum(check.retries for check in checks):,}",
        f"{sum(check.errors for check in checks):,}",
    ]
    columns = ("collection", "records", "expected", "time s", "records/s", "retries", "errors")
    with stdout_console(terminal.stdout) as console:
        print_table(console, columns, _rows(checks), right=frozenset(columns[1:]), footer=footer)
        for check in checks:
            if check.note:
                console.print(f"{check.name}: {check.note}")
        for line in _shown(checks):
            console.print(line, markup=False, highlight=False, soft_wrap=True)
        if all(check.exact for check in checks):
            console.print(f"Every record arrived exactly once ({records:,} records).")
            return EXIT_OK
        problems = [problem for check in checks for problem in check.problems]
        errors = sum(check.errors for check in checks)
        detail = "; ".join([*problems, *([f"{errors} job error(s)"] if errors else [])])
        console.print(f"NOT every record arrived exactly once: {detail}")
        return EXIT_FAILURE
