"""Runs the simulator in its own process for benchmarks, so the client is what gets measured,
with its cache warmed and, where a workload needs it, a latency checked by timing a request."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import aiohttp

READY = "Remedy simulator listening on "
FINDINGS = "vulnerability-findings"
ENDPOINTS = "endpoints"
LARGE_PAGES = ("--max-page-size", "1000")
"""Simulator options for workloads in pages of 1000: the published maximum is 100 (and the
simulator's default), so pages of 1000 are a benchmark-only setting, stated where used."""


def records_of(page: dict[str, Any]) -> list[dict[str, Any]]:
    """A page's records: under `data` as published, or `items` (simulators before issue 31,
    which `ab.py --own-simulators` runs)."""
    records: list[dict[str, Any]] = page["data"] if "data" in page else page["items"]
    return records


@contextmanager
def running_simulator(
    *arguments: str, python: str = sys.executable, env: Mapping[str, str] | None = None
) -> Iterator[str]:
    """Start `python -m remedy_async.simulator` on a free port; yield its base URL.

    `python` and `env` run another interpreter's simulator (`ab.py --own-simulators`); it starts
    in a temporary directory so `-m` does not import a checkout from the current one."""
    process = subprocess.Popen(
        [python, "-m", "remedy_async.simulator", "--port", "0", *arguments],
        stdout=subprocess.PIPE,
        text=True,
        cwd=tempfile.gettempdir(),
        env=None if env is None else dict(env),
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        if not line.startswith(READY):
            raise RuntimeError(f"simulator did not start: {line!r}")
        yield line[len(READY) :].strip()
    finally:
        process.terminate()
        process.wait(timeout=30)


def latency_arguments(route: str, latency_ms: float) -> tuple[str, ...]:
    """Simulator options that delay every request of `route` (e.g. `get:vulnerability-findings`)
    by `latency_ms`: a latency fault at rate 1.0 (`FaultSpec.latency_ms`)."""
    return ("--fault", f"latency:1.0:{route}", "--latency-ms", f"{latency_ms:g}")


def findings_size(findings: int) -> int:
    """The smallest simulator `--size` whose data set has at least `findings` findings."""
    from remedy_async.simulator import Dataset, SimulatorConfig  # noqa: PLC0415

    seed = SimulatorConfig().seed
    low, high = 1, max(findings // 10, 2)
    while Dataset(seed=seed, size=high).count(FINDINGS) < findings:
        low, high = high, high * 2
    while low < high:
        middle = (low + high) // 2
        if Dataset(seed=seed, size=middle).count(FINDINGS) < findings:
            low = middle + 1
        else:
            high = middle
    return low


async def _seconds_of_one(url: str) -> float:
    async with aiohttp.ClientSession() as session:
        async with session.get(url) as response:  # the connection, before the clock
            await response.read()
        started = time.perf_counter()
        async with session.get(url) as response:
            await response.read()
            response.raise_for_status()
        return time.perf_counter() - started


def check_latency(url: str, expected_ms: float) -> float:
    """Time one request of `url` and fail unless it took `expected_ms` (not much less, not twice
    as long): proof that the simulator's latency option applies, and applies once. Returns the
    milliseconds measured."""
    measured = asyncio.run(_seconds_of_one(url)) * 1000
    if not expected_ms * 0.95 <= measured < expected_ms * 1.8 + 10:
        raise RuntimeError(f"{url} took {measured:.1f} ms; the simulator should add {expected_ms}")
    return measured


async def warm(
    url: str,
    items: int,
    page_sizes: tuple[int, ...],
    ids: int,
    work: Path,
    *,
    in_flight: int = 32,
    endpoints: int = 0,
) -> None:
    """Fetch every page (offset paging) and record once so the simulator serves them from its
    cache, `in_flight` requests at a time: the first `items` findings in pages of each of
    `page_sizes`, the first `endpoints` endpoints in pages of 100, the first `ids` findings one by
    one. Writes the first findings page of the largest size to `work/page.json`, the first
    endpoints page to `work/endpoints-page.json` and the ids to `work/ids.txt`."""
    limit = asyncio.Semaphore(in_flight)
    async with aiohttp.ClientSession() as session:

        async def one(path: str, params: dict[str, int] | None = None) -> bytes:
            async with limit, session.get(f"{url}{path}", params=params) as response:
                response.raise_for_status()
                return await response.read()

        pages = [
            one(f"/v1/{FINDINGS}", {"offset": offset, "limit": size})
            for size in sorted(page_sizes, reverse=True)
            for offset in range(0, items, size)
        ]
        bodies = await asyncio.gather(*pages)
        if bodies:
            (work / "page.json").write_bytes(bodies[0])
        endpoint_pages = await asyncio.gather(
            *(
                one(f"/v1/{ENDPOINTS}", {"offset": offset, "limit": 100})
                for offset in range(0, endpoints, 100)
            )
        )
        if endpoint_pages:
            (work / "endpoints-page.json").write_bytes(endpoint_pages[0])
        found: list[str] = []
        while len(found) < ids:
            body = await one(f"/v1/{FINDINGS}", {"offset": len(found), "limit": 100})
            page = records_of(json.loads(body))
            if not page:
                raise RuntimeError(f"the simulator has {len(found)} findings, not {ids}")
            found += [item["id"] for item in page]
        (work / "ids.txt").write_text("\n".join(found[:ids]))
        await asyncio.gather(*(one(f"/v1/{FINDINGS}/{i}") for i in found[:ids]))
