"""Runs every benchmark: remedy_async against raw aiohttp and the usual alternatives.

    python benchmarks/run.py               # the full run (about 15 minutes on 2 cores)
    python benchmarks/run.py --targets     # only issue 17's table of five workloads (10 minutes)
    python benchmarks/run.py --floors      # only the zero-latency floors, without streaming
    python benchmarks/run.py --quick       # a seconds-long smoke run of everything (CI)

The simulator runs in its own process with every encoded page and record cached, so the client
is what is measured; every (workload, variant) measurement runs in a fresh process; repetitions
are interleaved so drift on a shared machine hits all variants alike. Ratios are against raw
aiohttp measured in the same run. Results go to benchmarks/results/ as Markdown, JSON and a PNG;
issue 17's table (`targets.py`) comes first.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import platform
import statistics
import subprocess
import sys
import tempfile
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from changes import run_changes  # noqa: E402
from clients import measure  # noqa: E402
from overlap import run_overlap  # noqa: E402
from simulator_process import LARGE_PAGES, running_simulator, warm  # noqa: E402
from targets import (  # noqa: E402
    WORKLOADS,
    TargetPlan,
    as_json,
    floor_rows,
    run_targets,
    targets_table,
    timed,
)

FINDINGS = "vulnerability-findings"
ENDPOINTS = "endpoints"
ENDPOINT_PAGE = 100
"""Endpoints are listed in pages of 100, the published maximum: the floor the product needs."""
VARIANTS = ("raw", "cattrs", "httpx_pydantic", "msgspec", "remedy", "remedy_dicts")
TARGET_VARIANTS = ("raw", "remedy", "remedy_dicts")
"""The variants of a `--targets` run: the floors are remedy_async's ratios to raw."""
SLOW_SHARE = {"httpx_pydantic": 10}
"""Variants that measure on a fraction of the items (1/N): throughput is per record, and these
run at a tenth of the others' speed or less."""


def cases(plan: Plan, work: Path) -> list[tuple[str, str, list[str]]]:
    """Every (case name, variant, arguments) of the run, in a fixed order."""
    out: list[tuple[str, str, list[str]]] = []
    for concurrency, count in plan.get_many:
        for variant in plan.variants:
            if variant == "remedy_dicts":  # a get has no dict mode
                continue
            args = ["get_many", variant, "{url}", "--concurrency", str(concurrency)]
            share = max(count // SLOW_SHARE.get(variant, 1), concurrency)
            args += ["--items", str(share), "--ids-file", str(work / "ids.txt")]
            out.append((f"a. get_many c={concurrency}", variant, args))
    for variant in plan.variants:
        args = ["list", variant, "{url}", "--items", str(plan.endpoint_items)]
        args += ["--resource", ENDPOINTS, "--page-size", str(ENDPOINT_PAGE)]
        out.append((endpoints_case(), variant, args))
    for size in plan.page_sizes:
        for variant in plan.variants:
            args = ["list", variant, "{url}", "--items", str(plan.list_items)]
            out.append((findings_case(size), variant, [*args, "--page-size", str(size)]))
    bodies = {ENDPOINTS: "endpoints-page.json", FINDINGS: "page.json"}
    for resource, body in bodies.items() if plan.decode_seconds else ():
        for variant in plan.variants:
            args = ["decode", variant, "-", "--body-file", str(work / body)]
            args += ["--resource", resource, "--seconds", str(plan.decode_seconds)]
            out.append((f"c. decode {resource} per record", variant, args))
    return out


def endpoints_case() -> str:
    """The name of the endpoints list case (the published shape, pages of 100)."""
    return f"b. list endpoints, pages of {ENDPOINT_PAGE}"


def findings_case(page_size: int) -> str:
    """The name of a findings list case."""
    return f"b. list findings, pages of {page_size}"


class Plan:
    """The sizes of a run. `targets` keeps only what issue 17's table needs: the floors
    (get_many c=64, endpoints in pages of 100, findings in pages of 1000, the largest stream)
    for raw and remedy_async."""

    def __init__(self, quick: bool, targets: bool = False, floors: bool = False) -> None:
        self.quick = quick
        self.floors = floors
        targets = targets or floors
        self.targets = targets
        self.variants = TARGET_VARIANTS if targets else VARIANTS
        self.repetitions = 1 if quick else 5
        self.size = 600 if quick else 50_000
        """Endpoints in the simulator (about 20 findings each)."""
        self.endpoint_items = self.size
        self.list_items = 2_000 if quick else 200_000
        # Findings in pages of 100, concurrency 1 and 16 run the same code as pages of 1000 and
        # concurrency 64; the smoke run keeps its seconds for issue 17's workloads.
        self.page_sizes = (1000,) if targets or quick else (100, 1000)
        if quick or targets:
            self.get_many: tuple[tuple[int, int], ...] = ((64, 500 if quick else 20_000),)
        else:
            self.get_many = ((1, 2_000), (16, 20_000), (64, 20_000))
        self.decode_seconds = 0.0 if targets else 0.2 if quick else 1.0
        self.stream_items = (2_000,) if quick else (1_000_000,) if targets else (100_000, 1_000_000)
        self.stream_variants = ("raw", "remedy") if targets or quick else ("raw", *VARIANTS[-2:])
        self.prefetch_pages = 0 if targets else 2 if quick else 40


def run_main_cases(plan: Plan, work: Path) -> dict[str, dict[str, list[float]]]:
    """Workloads a-c against one cached simulator; seconds per record for each repetition.

    The simulator allows pages of 1000 (`--max-page-size 1000`) for the findings lists in pages
    of 1000 (and the clients are given the same maximum); every other request stays within the
    published 100."""
    per_record: dict[str, dict[str, list[float]]] = {}
    with running_simulator(
        "--size", str(plan.size), "--paging", "offset", "--cache-bytes", str(2**31), *LARGE_PAGES
    ) as url:
        ids_needed = max(count for _, count in plan.get_many)
        with timed("warming the simulator cache"):
            asyncio.run(
                warm(
                    url,
                    plan.list_items,
                    plan.page_sizes,
                    ids_needed,
                    work,
                    endpoints=plan.endpoint_items,
                )
            )
        plan_cases = cases(plan, work)
        for repetition in range(plan.repetitions):
            with timed(f"repetition {repetition + 1}/{plan.repetitions}"):
                for name, variant, args in plan_cases:
                    result = measure([arg.replace("{url}", url) for arg in args])
                    seconds_per = result["seconds"] / max(result["items"], 1)
                    per_record.setdefault(name, {}).setdefault(variant, []).append(seconds_per)
    return per_record


def run_stream(plan: Plan) -> list[dict[str, Any]]:
    """Workload d: peak RSS growth while streaming findings (offset paging, pages of 1000,
    uncached), per variant and size."""
    rows = []
    size = 600 if plan.quick else 52_000
    with running_simulator("--size", str(size), "--no-cache", *LARGE_PAGES) as url:
        for items in plan.stream_items:
            for variant in plan.stream_variants:
                with timed(f"streaming {items:,} ({variant})"):
                    arguments = ["stream", variant, url, "--items", str(items)]
                    rows.append(measure([*arguments, "--page-size", "1000"]))
    return rows


def run_prefetch(plan: Plan) -> str:
    """Workload e: the prefetch benchmark (its own simulator with 20 ms page latency)."""
    arguments = ["--pages", str(plan.prefetch_pages), "--repetitions", str(plan.repetitions)]
    with timed("prefetch with 20 ms page latency"):
        return subprocess.run(
            [sys.executable, str(HERE / "prefetch.py"), *arguments],
            check=True,
            capture_output=True,
            text=True,
        ).stdout


def summarise(per_record: dict[str, dict[str, list[float]]]) -> dict[str, Any]:
    """Median, min and max throughput per case and variant, and ratios to raw in this run."""
    summary: dict[str, Any] = {}
    for name, variants in per_record.items():
        raw_median = statistics.median(variants["raw"])
        summary[name] = {
            variant: {
                "per_second_median": 1 / statistics.median(times),
                "per_second_min": 1 / max(times),
                "per_second_max": 1 / min(times),
                "ratio_to_raw": raw_median / statistics.median(times),
                "repetitions": len(times),
            }
            for variant, times in variants.items()
        }
    return summary


def revision() -> str:
    """The checkout measured: `git describe --always --dirty`, or "unknown"."""
    try:
        return subprocess.run(
            ["git", "describe", "--always", "--dirty"],
            cwd=HERE,
            check=True,
            capture_output=True,
            text=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def markdown(
    summary: dict[str, Any], streams: list[dict[str, Any]], prefetch: str, targets: str, plan: Plan
) -> str:
    scope = ("--floors", plan.floors) if plan.floors else ("--targets", plan.targets)
    flags = [flag for flag, on in (("--quick", plan.quick), scope) if on]
    command = " ".join(["python benchmarks/run.py", *flags])
    lines = [
        f"Run {datetime.now(UTC):%Y-%m-%d %H:%M} UTC on {platform.node()} "
        f"({platform.python_implementation()} {platform.python_version()}, "
        f"{platform.machine()}), checkout {revision()}, {plan.repetitions} interleaved "
        f"repetitions" + (" (quick smoke run)" if plan.quick else "") + f": `{command}`",
        "",
        "Issue 17: the five workloads, each against its comparator in this run.",
        "",
        targets,
    ]
    if plan.targets:
        return "\n".join([*lines, ""])
    lines += [
        "",
        "Records per second, median (min-max); ratio = this variant / raw aiohttp in this run.",
        "",
        "| workload | " + " | ".join(VARIANTS) + " |",
        "|---|" + "---|" * len(VARIANTS),
    ]
    for name, variants in summary.items():
        cells = []
        for variant in VARIANTS:
            row = variants.get(variant)
            if row is None:
                cells.append("-")
                continue
            cells.append(
                f"{row['per_second_median']:,.0f} ({row['per_second_min']:,.0f}-"
                f"{row['per_second_max']:,.0f}) **{row['ratio_to_raw']:.2f}x**"
            )
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    lines += ["", "d. Peak RSS growth while streaming (offset paging, pages of 1000):", ""]
    lines += [
        "| items | variant | RSS after first page | peak RSS while streaming | growth "
        "| growth after the first tenth | seconds |",
        "|---|---|---|---|---|---|---|",
    ]
    for row in streams:
        lines.append(
            f"| {row['items']:,} | {row['variant']} | {row['baseline_kib'] / 1024:.1f} MiB "
            f"| {row['peak_kib'] / 1024:.1f} MiB | {row['rss_growth_kib'] / 1024:.1f} MiB "
            f"| {row['late_growth_kib'] / 1024:.1f} MiB | {row['seconds']:.1f} |"
        )
    lines += ["", "e. Prefetch (20 ms latency per list request):", "", prefetch.strip(), ""]
    return "\n".join(lines)


def plot(summary: dict[str, Any], path: Path) -> None:
    """Throughput against concurrency for get_many, one line per variant (needs the `plot`
    extra: `pip install -e '.[plot]'`; without it the chart is skipped, saying so)."""
    try:
        import matplotlib  # noqa: PLC0415 - only the full run draws
    except ImportError:
        print(f"{path.name} not drawn: matplotlib is missing (pip install -e '.[plot]')")
        return

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # noqa: PLC0415

    figure, axes = plt.subplots(figsize=(7, 4.5))
    names = [name for name in summary if name.startswith("a. get_many")]
    levels = [int(name.split("c=")[1]) for name in names]
    for variant in VARIANTS[:-1]:
        axes.plot(
            levels,
            [summary[n][variant]["per_second_median"] for n in names],
            marker="o",
            label=variant,
        )
    axes.set_xscale("log", base=2)
    axes.set_xlabel("concurrency")
    axes.set_ylabel("records per second (median)")
    axes.set_title("get_many of findings by id against the simulator")
    axes.legend()
    axes.grid(alpha=0.3)
    figure.tight_layout()
    figure.savefig(path, dpi=110)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a seconds-long smoke run")
    parser.add_argument(
        "--targets", action="store_true", help="only issue 17's table of five workloads"
    )
    parser.add_argument(
        "--floors",
        action="store_true",
        help="only the zero-latency floors of workload 3, without streaming (a few minutes)",
    )
    parser.add_argument("--out", type=Path, default=HERE / "results")
    arguments = parser.parse_args()
    plan = Plan(arguments.quick, arguments.targets, arguments.floors)
    arguments.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as work:
        per_record = run_main_cases(plan, Path(work))
    summary = summarise(per_record)
    streams = [] if arguments.floors else run_stream(plan)
    prefetch = run_prefetch(plan) if plan.prefetch_pages else ""
    names = () if arguments.floors else tuple(WORKLOADS)
    target_rows = run_targets(TargetPlan(plan.quick), names)
    rows = [
        *target_rows.get("get", []),
        *target_rows.get("list", []),
        *floor_rows(per_record, streams),
        *target_rows.get("start-up", []),
        *target_rows.get("export", []),
    ]
    report = markdown(summary, streams, prefetch, targets_table(rows), plan)
    if not plan.targets:  # the change feed (issue 25); its 1,000,000 case: benchmarks/changes.py
        report += "\nf. Change feed: an unchanged pass against a plain list():\n\n"
        report += run_changes(quick=plan.quick, sizes=None if plan.quick else (100_000,)) + "\n"
        # issue 33: what proving offset pages costs a quiet list; parallel pages at 50 ms
        report += "\ng. The overlap of offset pages:\n\n" + run_overlap(quick=plan.quick) + "\n"
    (arguments.out / "results.md").write_text(report)
    raw = {
        "targets": as_json(rows),
        "summary": summary,
        "seconds_per_record": per_record,
        "streams": streams,
    }
    (arguments.out / "results.json").write_text(json.dumps(raw, indent=2))
    if not plan.quick and not plan.targets:
        plot(summary, arguments.out / "throughput.png")
    print(report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
