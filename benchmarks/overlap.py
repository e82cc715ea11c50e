"""The overlap's cost (issue 33): what proving every offset page costs a quiet list, and how
much parallel pages still speed a proven list up at 50 ms a request.

    python benchmarks/overlap.py                        # the three parts (about 2 minutes)
    python benchmarks/overlap.py --parts counts wall    # some of them
    python benchmarks/overlap.py --before OLD_PY --after NEW_PY   # two versions, alternating
    python benchmarks/overlap.py --quick                # a seconds-long smoke run (CI, via run.py)

Offset pages after the first are asked from 2 records before where the list stands
(`remedy_async/_paging/_paginators/_proof.py`), so a quiet list reads about 2% more records in about
2.5% more requests. Every part lists endpoints in the published shape, offset pages of 100, no
churn, the whole collection (the simulator holds exactly the records listed; no `max_items`),
each measurement in a fresh process:

1. **counts**: each case against its own simulator (`Simulator` on a loopback socket, in the
   measuring process) behind a counting loopback proxy: requests made are the simulator's own
   counters (`sim.counters`, route `list:endpoints`), records served are counted by the proxy
   from every page's `data`; both over the records delivered, against raw aiohttp asking offset
   after offset (no overlap). Sequential, `concurrency=8` and `prefetch=4`.
2. **wall**: the typed list and its `as_dicts()` against raw aiohttp + orjson reading the same
   pages without overlap (`clients.py`'s raw loop), one simulator in its own process serving
   cached pages (one uncounted round first, so every page any variant asks for is cached),
   repetitions interleaved with the order reversed every other one; a ratio is the median over
   repetitions of the pair's ratio within one repetition (as `targets.py`), by wall time and by
   the listing process's CPU time (`time.process_time()`, steadier on a shared machine).
3. **parallel**: the simulator delays every list request by 50 ms (a latency fault, proven by
   timing one request); sequential against `concurrency=8` and `prefetch=4`; the bar is 6x.

Sides: by default this interpreter and checkout (`this`). `--before PYTHON` and `--after
PYTHON` (interpreters with a version installed non-editable, as `ab.py` takes them) measure two
versions in the same run, alternating, each from a temporary directory without PYTHONPATH; raw
runs under the last side's interpreter. Each side's counts use its own simulator.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from types import TracebackType
from typing import Any, Self

import aiohttp
import orjson
from aiohttp import web

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from simulator_process import (  # noqa: E402
    ENDPOINTS,
    check_latency,
    latency_arguments,
    running_simulator,
    warm,
)

PAGE = 100
"""Pages of 100, the published maximum."""
LATENCY_MS = 50
CONCURRENCY = 8
PREFETCH = 4
BAR = 6.0
"""Issue 33's bar for parallel pages of a proven list: at least 6x sequential at 50 ms."""
PARTS = ("counts", "wall", "parallel")
CACHED = ("--paging", "offset", "--cache-bytes", str(2**31))
HOP_BY_HOP = frozenset(
    {"connection", "keep-alive", "transfer-encoding", "content-length", "content-encoding", "host"}
)


# -- one measurement, in a fresh process ---------------------------------------------------


async def list_endpoints(url: str, case: Mapping[str, Any]) -> tuple[int, dict[str, int]]:
    """List the simulator's endpoints (`case["items"]` of them) in pages of 100 as
    `case["variant"]` does; return the records delivered and the pager's `shifts` where it has
    them (re-alignments, re-reads and restarts: a quiet list should show none).

    remedy_async lists the whole collection, without `max_items`: under `max_items`,
    `prefetch=` fetched no page ahead (measured on main and on issue 33's branch alike)."""
    variant = case["variant"]
    if variant == "raw":
        from clients import list_items  # noqa: PLC0415 - raw aiohttp + orjson, offset after offset

        return await list_items("raw", url, case["items"], PAGE, resource=ENDPOINTS), {}
    from remedy_async import RemedyClient  # noqa: PLC0415 - the side's own install

    options = {
        name: case[name] for name in ("concurrency", "prefetch") if case.get(name) is not None
    }
    async with RemedyClient(url) as client:
        pager = client.endpoints.list(page_size=PAGE, **options)
        source = pager.as_dicts() if variant == "remedy_dicts" else pager
        count = 0
        async for _ in source:
            count += 1
    shifts = getattr(source, "shifts", None)  # since issue 33
    names = ("realignments", "rereads", "restarts")
    return count, {name: getattr(shifts, name) for name in names if hasattr(shifts, name)}


class CountingProxy:
    """A loopback proxy in front of `upstream` that counts the list pages it passes on and the
    records in their `data`: what the server served, whatever the client does with it."""

    def __init__(self, upstream: str) -> None:
        self.upstream = upstream
        self.url = ""
        self.pages = 0
        self.served = 0
        self._session: aiohttp.ClientSession | None = None
        self._runner: web.ServerRunner | None = None

    async def __aenter__(self) -> Self:
        self._session = aiohttp.ClientSession(auto_decompress=False)
        self._runner = web.ServerRunner(web.Server(self._forward), access_log=None)
        await self._runner.setup()
        await web.TCPSite(self._runner, "127.0.0.1", 0).start()
        host, port = self._runner.addresses[0][:2]
        self.url = f"http://{host}:{port}"
        return self

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        if self._runner is not None:
            await self._runner.cleanup()
        if self._session is not None:
            await self._session.close()

    async def _forward(self, request: web.BaseRequest) -> web.Response:
        assert self._session is not None
        headers = {k: v for k, v in request.headers.items() if k.lower() not in HOP_BY_HOP}
        target = self.upstream + request.path_qs
        async with self._session.get(target, headers=headers) as response:
            body = await response.read()
            if response.status == 200 and request.path == f"/v1/{ENDPOINTS}":
                self.pages += 1
                self.served += len(orjson.loads(body)["data"])
            kept = {k: v for k, v in response.headers.items() if k.lower() not in HOP_BY_HOP}
            return web.Response(body=body, status=response.status, headers=kept)


async def counted(case: Mapping[str, Any]) -> dict[str, Any]:
    """List against a simulator of `case["items"]` endpoints in this process behind a counting
    proxy: records delivered, list requests the simulator counted, records the proxy saw."""
    from remedy_async.simulator import Simulator, SimulatorConfig  # noqa: PLC0415

    async with (
        Simulator(SimulatorConfig(size=case["items"])) as simulator,
        CountingProxy(simulator.url) as proxy,
    ):
        total = simulator.dataset.count(ENDPOINTS)
        delivered, proof = await list_endpoints(proxy.url, case)
        requests = simulator.counters.requests.get(f"list:{ENDPOINTS}", 0)
    if proxy.pages != requests:
        raise RuntimeError(
            f"the proxy passed {proxy.pages} pages, the simulator counted {requests}"
        )
    if delivered != min(case["items"], total):
        raise RuntimeError(f"{delivered} endpoints delivered of {total}")
    return {"delivered": delivered, "requests": requests, "served": proxy.served, **proof}


def child(case: Mapping[str, Any]) -> dict[str, Any]:
    """One measurement in this process: `count` (against its own simulator) or `time`."""
    if case["mode"] == "count":
        return {**case, **asyncio.run(counted(case))}
    from clients import load  # noqa: PLC0415

    load(case["variant"], ENDPOINTS)  # imports and decoders before the clock, as clients.py does
    started, cpu = time.perf_counter(), time.process_time()
    delivered, proof = asyncio.run(list_endpoints(case["url"], case))
    seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
    return {**case, "items": delivered, "seconds": seconds, "cpu": cpu, **proof}


# -- the parent: sides, cases, repetitions -------------------------------------------------


class Side:
    """An interpreter measured: this one (this checkout, the environment as it is), or another
    with its own install (run from a temporary directory, without PYTHONPATH)."""

    def __init__(self, name: str, python: str | None) -> None:
        self.name = name
        self.python = python or sys.executable
        self.isolated = python is not None

    def run(self, case: Mapping[str, Any]) -> dict[str, Any]:
        """`case` measured in a fresh process of this side's interpreter."""
        env = dict(os.environ)
        if self.isolated:
            env.pop("PYTHONPATH", None)
        output = subprocess.run(
            [self.python, str(HERE / "overlap.py"), "--child", json.dumps(case)],
            check=True,
            capture_output=True,
            text=True,
            cwd=tempfile.gettempdir() if self.isolated else None,
            env=env,
        ).stdout
        return dict(json.loads(output.strip().splitlines()[-1]))


def remedy_cases(items: int) -> dict[str, dict[str, Any]]:
    """The remedy_async variants of the counts and parallel parts, by label."""
    base = {"variant": "remedy", "items": items}
    return {
        "sequential": base,
        f"concurrency={CONCURRENCY}": {**base, "concurrency": CONCURRENCY},
        f"prefetch={PREFETCH}": {**base, "prefetch": PREFETCH},
    }


def interleaved(
    runs: Mapping[str, tuple[Side, dict[str, Any]]], repetitions: int, warm_up: bool
) -> dict[str, list[dict[str, Any]]]:
    """Each case's results, one per repetition, the order reversed every other repetition;
    `warm_up` runs every case once first, uncounted."""
    results: dict[str, list[dict[str, Any]]] = {name: [] for name in runs}
    names = list(runs)
    if warm_up:
        for name in names:
            side, case = runs[name]
            side.run(case)
    for repetition in range(repetitions):
        for name in names if repetition % 2 == 0 else reversed(names):
            side, case = runs[name]
            results[name].append(side.run(case))
        print(f"   repetition {repetition + 1}/{repetitions}", file=sys.stderr, flush=True)
    return results


def spread(values: Sequence[float], digits: int = 2) -> str:
    """Median (min-max)."""
    return (
        f"{statistics.median(values):.{digits}f} "
        f"({min(values):.{digits}f}-{max(values):.{digits}f})"
    )


def seconds_ratios(
    ours: Sequence[Mapping[str, Any]], base: Sequence[Mapping[str, Any]], key: str = "seconds"
) -> list[float]:
    """Base seconds over ours (`key`: wall `seconds` or client `cpu`), repetition by
    repetition: a speed ratio, the records being the same."""
    for result in (*ours, *base):
        if result["items"] != base[0]["items"]:
            raise RuntimeError(f"records differ between variants: {result}")
    return [b[key] / o[key] for o, b in zip(ours, base, strict=True)]


def rate(results: Sequence[Mapping[str, Any]]) -> str:
    """Median records per second, with the range."""
    rates = [r["items"] / r["seconds"] for r in results]
    return f"{statistics.median(rates):,.0f}/s ({min(rates):,.0f}-{max(rates):,.0f})"


def proof_note(results: Sequence[Mapping[str, Any]]) -> str:
    """The pager's shifts summed over every run, where it reports them."""
    counted = [name for name in ("realignments", "rereads", "restarts") if name in results[0]]
    return ", ".join(f"{name} {sum(r[name] for r in results)}" for name in counted) or "-"


# -- 1. counts -----------------------------------------------------------------------------


def counts(sides: Sequence[Side], items: int) -> str:
    """Records served and requests made per record delivered, each side against raw."""
    lines = [
        f"Records read and requests made listing {items:,} endpoints in pages of {PAGE}, no "
        "churn (requests: the simulator's counters; records served: a counting proxy):",
        "",
        "| side | variant | delivered | requests | requests / raw's | records served "
        "| served / delivered | shifts (re-alignments, re-reads, restarts) |",
        "|---|---|---|---|---|---|---|---|",
    ]
    raw = sides[-1].run({"mode": "count", "variant": "raw", "items": items})
    rows: list[tuple[str, str, dict[str, Any]]] = [("-", "raw aiohttp", raw)]
    for side in sides:
        for label, case in remedy_cases(items).items():
            rows.append((side.name, label, side.run({"mode": "count", **case})))
    for side_name, label, row in rows:
        lines.append(
            f"| {side_name} | {label} | {row['delivered']:,} | {row['requests']:,} "
            f"| {row['requests'] / raw['requests']:.3f} | {row['served']:,} "
            f"| **{row['served'] / row['delivered']:.3f}** | {proof_note([row])} |"
        )
    return "\n".join(lines)


# -- 2. wall time --------------------------------------------------------------------------


def wall(sides: Sequence[Side], items: int, repetitions: int) -> str:
    """The typed list and its `as_dicts()` against raw, and after against before."""
    with running_simulator("--size", str(items), *CACHED) as url:
        runs: dict[str, tuple[Side, dict[str, Any]]] = {
            "raw": (sides[-1], {"mode": "time", "variant": "raw", "url": url, "items": items})
        }
        for side in sides:
            for variant in ("remedy", "remedy_dicts"):
                case = {"mode": "time", "variant": variant, "url": url, "items": items}
                runs[f"{side.name} {variant}"] = (side, case)
        results = interleaved(runs, repetitions, warm_up=True)
    lines = [
        f"Wall time listing {items:,} endpoints in pages of {PAGE} (cached, no latency), "
        f"{repetitions} interleaved repetitions, each in a fresh process; ratio to raw = "
        "remedy's speed / raw aiohttp + orjson's in the same repetition, median (min-max); "
        "client CPU = the listing process's CPU seconds (`time.process_time()`), steadier than "
        "wall time on a shared machine:",
        "",
        "| side | variant | records/s, median (min-max) | ratio to raw, wall | ratio to raw, "
        "client CPU | shifts |",
        "|---|---|---|---|---|---|",
        f"| - | raw aiohttp + orjson | {rate(results['raw'])} | 1.00 | 1.00 | - |",
    ]
    for side in sides:
        for variant, label in (("remedy", "typed"), ("remedy_dicts", "`as_dicts()`")):
            mine, raw = results[f"{side.name} {variant}"], results["raw"]
            lines.append(
                f"| {side.name} | {label} | {rate(mine)} "
                f"| **{spread(seconds_ratios(mine, raw))}** "
                f"| {spread(seconds_ratios(mine, raw, 'cpu'))} | {proof_note(mine)} |"
            )
    if len(sides) == 2:
        before, after = sides
        lines += [
            "",
            f"{after.name} / {before.name} per repetition, median (min-max); 1.03 is 3% more:",
            "",
        ]
        for variant, label in (("remedy", "typed"), ("remedy_dicts", "`as_dicts()`")):
            ours, theirs = results[f"{before.name} {variant}"], results[f"{after.name} {variant}"]
            lines.append(
                f"- {label}: wall time **{spread(seconds_ratios(ours, theirs), 3)}**, "
                f"client CPU **{spread(seconds_ratios(ours, theirs, 'cpu'), 3)}**"
            )
    return "\n".join(lines)


# -- 3. parallel pages at 50 ms ------------------------------------------------------------


def parallel(sides: Sequence[Side], items: int, repetitions: int, judge: bool = True) -> str:
    """Sequential against parallel pages with 50 ms a list request; `judge` says whether
    `concurrency=8` meets the bar (a smoke run's few pages cannot)."""
    latency = latency_arguments(f"list:{ENDPOINTS}", LATENCY_MS)
    with (
        tempfile.TemporaryDirectory() as work,
        running_simulator("--size", str(items), *CACHED, *latency) as url,
    ):
        asyncio.run(warm(url, 0, (), 0, Path(work), endpoints=items))
        measured = check_latency(f"{url}/v1/{ENDPOINTS}?offset=0&limit={PAGE}", LATENCY_MS)
        runs: dict[str, tuple[Side, dict[str, Any]]] = {
            "raw": (sides[-1], {"mode": "time", "variant": "raw", "url": url, "items": items})
        }
        for side in sides:
            for label, case in remedy_cases(items).items():
                runs[f"{side.name} {label}"] = (side, {"mode": "time", "url": url, **case})
        results = interleaved(runs, repetitions, warm_up=False)
    pages = -(-items // PAGE)
    lines = [
        f"Listing {items:,} endpoints in pages of {PAGE} with {LATENCY_MS} ms per list request "
        f"(one request timed: {measured:.0f} ms; {pages} pages one after another take "
        f"{pages * LATENCY_MS / 1000:.2f} s of latency), {repetitions} interleaved repetitions:",
        "",
        "| side | variant | seconds, median (min-max) | speed-up over sequential | over raw "
        "sequential | shifts |",
        "|---|---|---|---|---|---|",
        f"| - | raw aiohttp, sequential | {spread([r['seconds'] for r in results['raw']], 3)} "
        "| - | 1.00 | - |",
    ]
    for side in sides:
        sequential = results[f"{side.name} sequential"]
        for label in remedy_cases(items):
            mine = results[f"{side.name} {label}"]
            to_sequential = seconds_ratios(mine, sequential)
            verdict = ""
            if judge and label.startswith("concurrency"):
                met = statistics.median(to_sequential) >= BAR
                verdict = f" ({'met' if met else 'not met'}: bar {BAR:g}x)"
            lines.append(
                f"| {side.name} | {label} | {spread([r['seconds'] for r in mine], 3)} "
                f"| **{spread(to_sequential)}**{verdict} "
                f"| {spread(seconds_ratios(mine, results['raw']))} | {proof_note(mine)} |"
            )
    return "\n".join(lines)


# -- the run -------------------------------------------------------------------------------


def load() -> str:
    """The load averages (1, 5, 15 minutes), to say how quiet the machine was."""
    return " ".join(f"{value:.2f}" for value in os.getloadavg())


def run_overlap(
    quick: bool,
    sides: Sequence[Side] | None = None,
    parts: Sequence[str] = PARTS,
    items: int | None = None,
    latency_items: int | None = None,
    repetitions: int | None = None,
) -> str:
    """The benchmark's report (`quick`: small sizes, one repetition, for run.py's smoke run)."""
    chosen = list(sides or [Side("this", None)])
    items = items or (1_000 if quick else 20_000)
    latency_items = latency_items or (500 if quick else 10_000)
    repetitions = repetitions or (1 if quick else 7)
    sections = [
        f"Run {datetime.now(UTC):%Y-%m-%d %H:%M} UTC on {platform.node()} "
        f"({platform.python_implementation()} {platform.python_version()}, {os.cpu_count()} "
        f"cores), load average {load()} at the start; sides: "
        + ", ".join(f"{side.name} = {side.python}" for side in chosen)
    ]
    for part in parts:
        started = time.perf_counter()
        print(f"-- {part}", file=sys.stderr, flush=True)
        if part == "counts":
            sections.append(counts(chosen, items))
        elif part == "wall":
            sections.append(wall(chosen, items, repetitions))
        else:
            sections.append(parallel(chosen, latency_items, repetitions, judge=not quick))
        print(f"   {time.perf_counter() - started:.1f} s", file=sys.stderr, flush=True)
    sections.append(f"Load average at the end: {load()}.")
    return "\n\n".join(sections)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a seconds-long smoke run")
    parser.add_argument("--parts", nargs="+", choices=PARTS, default=list(PARTS))
    parser.add_argument("--before", metavar="PYTHON", help="an interpreter with the version before")
    parser.add_argument("--after", metavar="PYTHON", help="an interpreter with the version after")
    parser.add_argument("--items", type=int, help="endpoints of counts and wall (20,000)")
    parser.add_argument("--latency-items", type=int, help="endpoints at 50 ms (10,000)")
    parser.add_argument("--repetitions", type=int, help="wall and parallel repetitions (7)")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    arguments = parser.parse_args()
    if arguments.child:
        print(json.dumps(child(json.loads(arguments.child))))
        return 0
    sides = [Side("before", arguments.before)] if arguments.before else []
    sides.append(Side("after" if arguments.before else "this", arguments.after))
    print(
        run_overlap(
            arguments.quick,
            sides,
            arguments.parts,
            arguments.items,
            arguments.latency_items,
            arguments.repetitions,
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
