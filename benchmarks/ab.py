"""A/B of two versions of the client: the no-regression guard on the zero-latency floors.

    python benchmarks/ab.py BEFORE_PYTHON:BEFORE_CHECKOUT AFTER_PYTHON:AFTER_CHECKOUT [--pairs 9]
    python benchmarks/ab.py BEFORE AFTER --own-simulators [--pairs 3]

Each side is a Python interpreter whose environment has that version of remedy_async installed
(not editable, e.g. `python -m venv v && v/bin/pip install './checkout[bench]'`); the checkout
part is kept for the record. Both sides run this checkout's `benchmarks/clients.py`, so the
workloads are the same and only the library differs; every measurement runs in a fresh process
(without PYTHONPATH, from a temporary directory, so each side imports its own install), before
and after alternating.

By default one simulator (this checkout's, started with `--max-page-size 1000`) serves both
sides, and the table gives records per second and the after/before ratio (median of pairs,
min-max). When the two versions read different contracts (an older client reads today's records
as drift into its older models), that compares different work; `--own-simulators` instead
starts each side's own simulator (its own contract and data), measures raw aiohttp + orjson
beside the client on each, and compares the ratios to raw: for each case, before's and after's
ratio (median of pairs, min-max) and after's over before's.

The floors: get_many at 64 in flight; the typed list of endpoints in offset pages of 100 and its
`as_dicts()`; typed findings in pages of 1000 and their `as_dicts()`.
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
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path

import aiohttp
from simulator_process import LARGE_PAGES, records_of, running_simulator, warm

HERE = Path(__file__).resolve().parent
CLIENTS = str(HERE / "clients.py")
ENDPOINTS = 50_000
"""Endpoints in each simulator (about 20 findings each), all listed by the endpoints cases."""
FINDINGS = 100_000
IDS = 10_000


def cases(endpoints: int, findings: int, ids: int) -> dict[str, tuple[str, list[str]]]:
    """(variant, clients.py workload) of every guarded floor, by name."""
    listing = ["list", "--resource", "endpoints", "--items", str(endpoints), "--page-size", "100"]
    findings_list = ["list", "--items", str(findings), "--page-size", "1000"]
    return {
        "get_many c=64": ("remedy", ["get_many", "--concurrency", "64", "--items", str(ids)]),
        "typed endpoints, pages of 100": ("remedy", listing),
        "as_dicts endpoints, pages of 100": ("remedy_dicts", listing),
        "typed findings, pages of 1000": ("remedy", findings_list),
        "as_dicts findings, pages of 1000": ("remedy_dicts", findings_list),
    }


def clean_env() -> dict[str, str]:
    """This environment without PYTHONPATH, so a side's interpreter imports its own install."""
    return {name: value for name, value in os.environ.items() if name != "PYTHONPATH"}


def python_of(text: str) -> str:
    """A side's interpreter, from PYTHON:CHECKOUT."""
    return text.partition(":")[0]


def measure(
    python: str, workload: list[str], variant: str, url: str, ids: Path, items_key: str
) -> float:
    """Records per second of one measurement in a fresh process."""
    arguments = [workload[0], variant, url, *workload[1:], "--items-key", items_key]
    if workload[0] == "get_many":
        arguments += ["--ids-file", str(ids)]
    output = subprocess.run(
        [python, CLIENTS, *arguments],
        check=True,
        capture_output=True,
        text=True,
        cwd=tempfile.gettempdir(),
        env=clean_env(),
    ).stdout
    result = json.loads(output.strip().splitlines()[-1])
    return float(result["items"]) / float(result["seconds"])


async def items_key_of(url: str) -> str:
    """The envelope key a simulator serves its records under (`data`, or an older `items`)."""
    async with (
        aiohttp.ClientSession() as session,
        session.get(f"{url}/v1/endpoints", params={"limit": 1}) as response,
    ):
        page = await response.json()
    records_of(page)
    return "data" if "data" in page else "items"


def simulators(
    stack: ExitStack, pythons: dict[str, str], own: bool, scale: int
) -> Iterator[tuple[str, tuple[str, Path]]]:
    """(side, (URL, work directory)) of the simulator each side measures against, started and
    warmed; the work directory holds its finding ids, `ids.txt`."""
    arguments = (
        *("--size", str(ENDPOINTS // scale), "--paging", "offset", "--cache-bytes", str(2**31)),
        *LARGE_PAGES,
    )
    shared: tuple[str, Path] | None = None
    for name, python in pythons.items():
        if own:
            url = stack.enter_context(running_simulator(*arguments, python=python, env=clean_env()))
        elif shared is None:
            url = stack.enter_context(running_simulator(*arguments))
        else:
            yield name, shared
            continue
        work = Path(stack.enter_context(tempfile.TemporaryDirectory()))
        endpoints, findings, ids = ENDPOINTS // scale, FINDINGS // scale, IDS // scale
        asyncio.run(warm(url, findings, (1000,), ids, work, endpoints=endpoints))
        shared = (url, work)
        yield name, shared


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("before", help="PYTHON:CHECKOUT of the version before the change")
    parser.add_argument("after", help="PYTHON:CHECKOUT of the version after the change")
    parser.add_argument("--pairs", type=int, default=9, help="measurement pairs per case")
    parser.add_argument(
        "--own-simulators",
        action="store_true",
        help="each side against its own checkout's simulator; compare ratios to raw",
    )
    parser.add_argument("--quick", action="store_true", help="a twentieth of the records (smoke)")
    arguments = parser.parse_args()
    scale = 20 if arguments.quick else 1
    floors = cases(ENDPOINTS // scale, FINDINGS // scale, IDS // scale)
    pythons = {"before": python_of(arguments.before), "after": python_of(arguments.after)}
    own = arguments.own_simulators
    variants = ("raw", "remedy") if own else ("remedy",)
    rates: dict[str, dict[str, dict[str, list[float]]]] = {
        case: {side: {v: [] for v in variants} for side in pythons} for case in floors
    }
    with ExitStack() as stack:
        served = dict(simulators(stack, pythons, own, scale))
        urls = {side: url for side, (url, _) in served.items()}
        ids = {side: work / "ids.txt" for side, (_, work) in served.items()}
        keys = {side: asyncio.run(items_key_of(url)) for side, url in urls.items()}
        for pair in range(arguments.pairs):
            for case, (variant, workload) in floors.items():
                for side, python in pythons.items():
                    for role in variants:
                        who = "raw" if role == "raw" else variant
                        rate = measure(python, workload, who, urls[side], ids[side], keys[side])
                        rates[case][side][role].append(rate)
            print(f"pair {pair + 1}/{arguments.pairs}", file=sys.stderr, flush=True)
    print(ratio_table(rates) if own else rate_table(rates))
    return 0


def spread(values: list[float], digits: int = 3) -> str:
    """Median (min-max)."""
    return (
        f"{statistics.median(values):.{digits}f} "
        f"({min(values):.{digits}f}-{max(values):.{digits}f})"
    )


def rate_table(rates: dict[str, dict[str, dict[str, list[float]]]]) -> str:
    """Records per second of each side and after / before, one simulator for both."""
    lines = ["| floor | before | after | after / before |", "|---|---|---|---|"]
    for case, sides in rates.items():
        before, after = sides["before"]["remedy"], sides["after"]["remedy"]
        ratios = [a / b for a, b in zip(after, before, strict=True)]
        lines.append(
            f"| {case} | {statistics.median(before):,.0f}/s | {statistics.median(after):,.0f}/s "
            f"| {spread(ratios)} |"
        )
    return "\n".join(lines)


def ratio_table(rates: dict[str, dict[str, dict[str, list[float]]]]) -> str:
    """Each side's ratio to raw on its own simulator, and after's over before's."""
    lines = [
        "| floor | before: remedy / raw | after: remedy / raw | after's ratio / before's |",
        "|---|---|---|---|",
    ]
    for case, sides in rates.items():
        ratio = {
            side: [o / r for o, r in zip(rows["remedy"], rows["raw"], strict=True)]
            for side, rows in sides.items()
        }
        moved = [a / b for a, b in zip(ratio["after"], ratio["before"], strict=True)]
        raw = {side: statistics.median(rows["raw"]) for side, rows in sides.items()}
        lines.append(
            f"| {case} | {spread(ratio['before'], 2)} (raw {raw['before']:,.0f}/s) "
            f"| {spread(ratio['after'], 2)} (raw {raw['after']:,.0f}/s) | {spread(moved)} |"
        )
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
