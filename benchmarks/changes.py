"""The change feed's cost: a pass over unchanged records against a plain typed `list()` of the
same records, in the same run, and the pass's peak memory.

    python benchmarks/changes.py                   # 100,000 and 1,000,000 findings, 3 rounds
    python benchmarks/changes.py --items 100000    # one size
    python benchmarks/changes.py --quick           # a seconds-long smoke run (CI, via run.py)
    python benchmarks/changes.py --trusted         # also passes with trust_updated_at=True

The simulator runs in its own process (offset paging as published, pages of 1000 allowed by
`--max-page-size 1000` and the client's `max_page_size=1000`, every page served once before, from
its cache). For each size, a first pass fills a state (timed, for the record);
then rounds alternate, each variant in a fresh process: `list()` (typed records, `async for`)
and `changes()` over the unchanged collection (which must report no change and complete), and
with `--trusted` a pass with `trust_updated_at=True` too (the order rotating every round). The
ratio is the median over rounds of list seconds / pass seconds (1.0: as fast as the list).
Resident memory is sampled from /proc at every response: growth is the peak while the pass or
list runs less the RSS after its first page; the state file's size is reported too.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from simulator_process import LARGE_PAGES, findings_size, running_simulator, warm  # noqa: E402

PAGE = 1000
MIB = 1024 * 1024


def rss() -> int:
    """This process's resident set size in bytes (Linux)."""
    with open("/proc/self/statm", encoding="ascii") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


async def child(mode: str, url: str, state: str) -> dict[str, Any]:
    """One measurement in this process: `list`, `first` (a pass filling the state), `pass` or
    `trusted` (a pass trusting `updated_at`)."""
    from remedy_async import ClientEvent, RemedyClient  # noqa: PLC0415 - before the clock

    samples: list[int] = []

    def sample(event: ClientEvent) -> None:
        if event.kind == "response":
            samples.append(rss())

    async with RemedyClient(url, event_hooks=[sample], max_page_size=PAGE) as client:
        findings = client.vulnerability_findings
        items = changes = 0
        started, cpu = time.perf_counter(), time.process_time()
        if mode == "list":
            async for _ in findings.list(page_size=PAGE):
                items += 1
        else:
            trusting = {"trust_updated_at": True} if mode == "trusted" else {}
            feed = findings.changes(state, page_size=PAGE, **trusting)
            async for _ in feed:
                changes += 1
            assert feed.result is not None
            assert feed.result.complete
            items = feed.result.listed
        seconds = time.perf_counter() - started
        cpu = time.process_time() - cpu
    if mode in ("pass", "trusted") and changes:
        raise RuntimeError(f"an unchanged collection gave {changes} changes")
    first = samples[0] if samples else rss()
    peak = max(samples, default=first)
    return {
        "mode": mode,
        "items": items,
        "changes": changes,
        "seconds": seconds,
        "cpu_seconds": cpu,
        "rss_first_page": first,
        "rss_peak": peak,
        "growth": peak - first,
    }


def measure(mode: str, url: str, state: str) -> dict[str, Any]:
    """Run one measurement in a fresh process."""
    done = subprocess.run(
        [sys.executable, __file__, "--child", mode, url, state],
        check=True,
        capture_output=True,
        text=True,
    )
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def run_size(items: int, rounds: int, trusted: bool = False) -> dict[str, Any]:
    """Every measurement of one size, against one simulator."""
    size = findings_size(items)
    with (
        tempfile.TemporaryDirectory() as work,
        running_simulator("--size", str(size), "--cache-bytes", str(4 << 30), *LARGE_PAGES) as url,
    ):
        asyncio.run(warm(url, items, (PAGE,), 0, Path(work)))
        state = str(Path(work) / "findings.db")
        first = measure("first", url, state)
        modes = ["list", "pass", "trusted"] if trusted else ["list", "pass"]
        if trusted:  # a first trusting pass keeps the stamps a state filled by an older one lacks
            measure("trusted", url, state)
        taken: dict[str, list[dict[str, Any]]] = {mode: [] for mode in modes}
        for round_ in range(rounds):
            shift = round_ % len(modes)
            order = modes[shift:] + modes[:shift]
            for mode in order if round_ % 2 == 0 else reversed(order):
                taken[mode].append(measure(mode, url, state))
    result: dict[str, Any] = {"items": first["items"], "first": first, "lists": taken["list"]}
    for mode, key in (("pass", "passes"), ("trusted", "trusted")):
        if mode in taken:
            ratios = [
                one["seconds"] / other["seconds"]
                for one, other in zip(taken["list"], taken[mode], strict=True)
            ]
            result |= {key: taken[mode], f"{key}_ratio": statistics.median(ratios)}
            result[f"{key}_ratios"] = ratios
    result["ratio"], result["ratios"] = result["passes_ratio"], result["passes_ratios"]
    return result


def table(results: list[dict[str, Any]]) -> str:
    """The results as a Markdown table."""
    lines = [
        "| records | plain `list()` | unchanged pass | ratio, median (min-max) | pass RSS growth "
        "(peak) | list RSS growth | first pass | state file |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for result in results:
        for key, label in (("passes", ""), ("trusted", ", trusting `updated_at`")):
            if key in result:
                lines.append(_row(result, key, label))
    return "\n".join(lines)


def _row(result: dict[str, Any], key: str, label: str) -> str:
    items = result["items"]
    list_s = statistics.median(one["seconds"] for one in result["lists"])
    pass_s = statistics.median(one["seconds"] for one in result[key])
    growth = max(one["growth"] for one in result[key]) / MIB
    peak = max(one["rss_peak"] for one in result[key]) / MIB
    list_growth = max(one["growth"] for one in result["lists"]) / MIB
    first, ratios = result["first"], result[f"{key}_ratios"]
    return (
        f"| {items:,}{label} | {list_s:.2f} s ({items / list_s:,.0f}/s) | {pass_s:.2f} s "
        f"({items / pass_s:,.0f}/s) | **{result[f'{key}_ratio']:.2f}x** "
        f"({min(ratios):.2f}-{max(ratios):.2f}) | {growth:.1f} MiB "
        f"({peak:.1f} MiB) | {list_growth:.1f} MiB | {first['seconds']:.2f} s "
        f"({items / first['seconds']:,.0f}/s) | {first['state_bytes'] / MIB:.0f} MiB |"
    )


def run_changes(quick: bool, sizes: tuple[int, ...] | None = None) -> str:
    """The benchmark's table (`quick`: one small size, one round, for run.py's smoke run)."""
    chosen, rounds = ((2_000,), 1) if quick else ((100_000, 1_000_000), 3)
    return table([run_size(items, rounds) for items in sizes or chosen])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a seconds-long smoke run")
    parser.add_argument("--items", type=int, nargs="+", default=[100_000, 1_000_000])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument(
        "--trusted", action="store_true", help="also time passes with trust_updated_at=True"
    )
    parser.add_argument(
        "--child", nargs=3, metavar=("MODE", "URL", "STATE"), help=argparse.SUPPRESS
    )
    arguments = parser.parse_args()
    if arguments.child:
        result = asyncio.run(child(*arguments.child))
        state = Path(arguments.child[2])
        result["state_bytes"] = state.stat().st_size if state.exists() else 0
        print(json.dumps(result))
        return 0
    if arguments.quick:
        print(run_changes(quick=True))
        return 0
    results = []
    for items in arguments.items:
        print(f"{items:,} findings ...", file=sys.stderr, flush=True)
        results.append(run_size(items, arguments.rounds, arguments.trusted))
    print(table(results))
    print(json.dumps(results, indent=1), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
