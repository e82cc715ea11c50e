"""Benchmark: listing with 20 ms page latency at prefetch 0, 1 and 2.

The simulator runs in its own process with a 20 ms latency fault on every list request. For
each paging convention and prefetch setting the script lists the same pages, interleaving
repetitions, and reports the median time and the speed-up over prefetch=0 measured in the same run.

Two consumers are measured: a fast one (does nothing with the items) and a slow one (spends
20 ms on each page, as a writer to disk or a database would). Prefetch overlaps fetching with the
slow consumer's work on every scheme; with the fast consumer only schemes whose next request
can be predicted (offset, page number) gain, by keeping several requests in flight.

    python benchmarks/prefetch.py [--pages 40] [--repetitions 5] [--json out.json]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager

from remedy_async import RemedyClient, RequestOptions

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from simulator_process import running_simulator

LATENCY_MS = 20
PAGE_SIZE = 50
SCHEMES = ("offset", "page", "cursor", "link")
PREFETCH = (0, 1, 2)


async def list_once(url: str, scheme: str, prefetch: int, pages: int, work_s: float) -> float:
    """List `pages` pages of findings and return the seconds it took."""
    options = RequestOptions(headers={"X-Simulator-Paging": scheme})
    async with RemedyClient(url) as client:
        async for _ in client.endpoints.list(page_size=1, max_items=1):  # warm the connection
            pass
        started = time.perf_counter()
        pager = client.vulnerability_findings.list(
            page_size=PAGE_SIZE, max_items=None, prefetch=prefetch, options=options
        )
        seen = 0
        async for _page in pager.pages():
            seen += 1
            if work_s:
                await asyncio.sleep(work_s)
            if seen == pages:
                break
        return time.perf_counter() - started


def measure(url: str, pages: int, repetitions: int) -> dict[str, dict[str, list[float]]]:
    """Run every (consumer, scheme, prefetch) case `repetitions` times, interleaved."""
    results: dict[str, dict[str, list[float]]] = {}
    for _ in range(repetitions):
        for consumer, work_s in (("fast", 0.0), ("slow", LATENCY_MS / 1000)):
            for scheme in SCHEMES:
                for prefetch in PREFETCH:
                    key = f"{consumer}/{scheme}"
                    seconds = asyncio.run(list_once(url, scheme, prefetch, pages, work_s))
                    results.setdefault(key, {}).setdefault(str(prefetch), []).append(seconds)
    return results


def report(results: dict[str, dict[str, list[float]]], pages: int) -> str:
    lines = [
        f"Listing {pages} pages of {PAGE_SIZE} with {LATENCY_MS} ms latency per page "
        "(median seconds; speed-up over prefetch=0 in the same run)",
        "",
        "| consumer / scheme | prefetch=0 | prefetch=1 | prefetch=2 | x1 | x2 |",
        "|---|---|---|---|---|---|",
    ]
    for key, by_prefetch in results.items():
        medians = {p: statistics.median(times) for p, times in by_prefetch.items()}
        base = medians["0"]
        lines.append(
            f"| {key} | {medians['0']:.3f} | {medians['1']:.3f} | {medians['2']:.3f} "
            f"| {base / medians['1']:.2f} | {base / medians['2']:.2f} |"
        )
    return "\n".join(lines)


@contextmanager
def simulator(size: int) -> Iterator[str]:
    with running_simulator(
        "--size", str(size), "--fault", "latency:1.0:list:*", "--latency-ms", str(LATENCY_MS)
    ) as url:
        yield url


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=40)
    parser.add_argument("--repetitions", type=int, default=5)
    parser.add_argument("--json", help="also write the raw timings here")
    arguments = parser.parse_args()
    size = max(10, arguments.pages * PAGE_SIZE // 20 + 10)
    with simulator(size) as url:
        results = measure(url, arguments.pages, arguments.repetitions)
    print(report(results, arguments.pages))
    if arguments.json:
        with open(arguments.json, "w") as out:
            json.dump(results, out, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
