"""A/B of two versions of the client against one simulator: the no-regression guard.

    python benchmarks/ab.py BEFORE_PYTHON:BEFORE_CHECKOUT AFTER_PYTHON:AFTER_CHECKOUT [--pairs 9]

Each side is a Python interpreter whose environment has that checkout's remedy_async installed
(not editable, e.g. `python -m venv v && v/bin/pip install ./checkout`) and the checkout itself,
for its `benchmarks/clients.py`. One simulator (this checkout's) serves both, so only the client
differs; every measurement runs in a fresh process, before and after alternating, and the table
gives records per second and the after/before ratio (median of pairs, min-max). The guarded
floors: get_many at 64 in flight, typed lists of 1000-record pages, `as_dicts()`.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from simulator_process import running_simulator, warm

CASES = {
    "get_many c=64": ("remedy", ["get_many", "--concurrency", "64", "--items", "10000"]),
    "typed list, pages of 1000": ("remedy", ["list", "--items", "100000", "--page-size", "1000"]),
    "as_dicts, pages of 1000": (
        "remedy_dicts",
        ["list", "--items", "100000", "--page-size", "1000"],
    ),
}


def side(text: str) -> list[str]:
    """The command that runs one measurement with a side's interpreter and checkout."""
    python, _, checkout = text.partition(":")
    return [python, str(Path(checkout) / "benchmarks" / "clients.py")]


def measure(command: list[str], workload: list[str], variant: str, url: str, ids: Path) -> float:
    """Records per second of one measurement in a fresh process."""
    arguments = [workload[0], variant, url, *workload[1:]]
    if workload[0] == "get_many":
        arguments += ["--ids-file", str(ids)]
    output = subprocess.run(
        command + arguments, check=True, capture_output=True, text=True, cwd=tempfile.gettempdir()
    ).stdout
    result = json.loads(output.strip().splitlines()[-1])
    return float(result["items"]) / float(result["seconds"])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("before", help="PYTHON:CHECKOUT of the version before the change")
    parser.add_argument("after", help="PYTHON:CHECKOUT of the version after the change")
    parser.add_argument("--pairs", type=int, default=9, help="measurement pairs per case")
    arguments = parser.parse_args()
    before, after = side(arguments.before), side(arguments.after)
    work = Path(tempfile.mkdtemp())
    with running_simulator(
        "--size", "11000", "--paging", "offset", "--cache-bytes", str(2**31)
    ) as url:
        asyncio.run(warm(url, 100_000, (1000,), 10_000, work))
        rates: dict[str, dict[str, list[float]]] = {
            name: {"before": [], "after": []} for name in CASES
        }
        for pair in range(arguments.pairs):
            for name, (variant, workload) in CASES.items():
                rates[name]["before"].append(
                    measure(before, workload, variant, url, work / "ids.txt")
                )
                rates[name]["after"].append(
                    measure(after, workload, variant, url, work / "ids.txt")
                )
            print(f"pair {pair + 1}/{arguments.pairs}", file=sys.stderr, flush=True)
    print("| floor | before | after | after / before |")
    print("|---|---|---|---|")
    for name, sides in rates.items():
        ratios = [a / b for a, b in zip(sides["after"], sides["before"], strict=True)]
        print(
            f"| {name} | {statistics.median(sides['before']):,.0f}/s "
            f"| {statistics.median(sides['after']):,.0f}/s "
            f"| {statistics.median(ratios):.3f} ({min(ratios):.2f}-{max(ratios):.2f}) |"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
