"""Measures the simulator as the client benchmarks see it: from another process, over loopback.

    python benchmarks/simulator_throughput.py [--size 50000] [--seconds 3] [--concurrency 32]

Starts `python -m remedy_async.simulator` as a subprocess, then reports from this process:
single-record GETs per second, 1000-item pages per second (cold: pages never served before;
warm: pages served again from the cache), the time to list a slice of findings offset after
offset, the first page of endpoints filtered by the published `osFamily` and `hasAgent`, and
the server's resident memory (VmRSS from /proc) after each phase. Pages of 1000 are above the
published maximum of 100: the simulator is started with `--max-page-size 1000` for them.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import signal
import sys
import time
from collections.abc import Callable
from pathlib import Path

import aiohttp

FINDINGS = "/v1/vulnerability-findings"
ENDPOINTS = "/v1/endpoints"


def cpu_seconds(pid: int) -> float:
    """User plus system CPU time a process has used, in seconds (Linux)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def rss_mib(pid: int) -> float:
    """Resident set size of a process, in MiB (Linux)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS line")


async def start_simulator(size: int, extra: list[str]) -> tuple[asyncio.subprocess.Process, str]:
    """Start the CLI on a free port and wait for its URL."""
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "remedy_async.simulator",
        "--port",
        "0",
        "--size",
        str(size),
        "--max-page-size",
        "1000",
        *extra,
        stdout=asyncio.subprocess.PIPE,
    )
    assert process.stdout is not None
    line = (await asyncio.wait_for(process.stdout.readline(), timeout=60)).decode()
    return process, line.rsplit(" ", 1)[1].strip()


async def rate(
    server_pid: int,
    session: aiohttp.ClientSession,
    next_request: Callable[[], tuple[str, dict[str, str]]],
    seconds: float,
    concurrency: int,
) -> tuple[float, int]:
    """Run `concurrency` workers for `seconds`: (requests per second, bytes received).

    Also prints how busy the server was meanwhile (100% = one core).
    """
    deadline = time.perf_counter() + seconds
    done = 0
    received = 0

    async def worker() -> None:
        nonlocal done, received
        while time.perf_counter() < deadline:
            url, headers = next_request()
            async with session.get(url, headers=headers) as response:
                body = await response.read()
                if response.status != 200:
                    raise RuntimeError(f"{url}: {response.status} {body[:200]!r}")
            done += 1
            received += len(body)

    started = time.perf_counter()
    server_cpu = cpu_seconds(server_pid)
    await asyncio.gather(*(worker() for _ in range(concurrency)))
    elapsed = time.perf_counter() - started
    busy = (cpu_seconds(server_pid) - server_cpu) / elapsed
    print(f"  (server busy {busy:.0%} of one core)")
    return done / elapsed, received


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--size", type=int, default=50_000, help="endpoints (x20 findings)")
    parser.add_argument("--seconds", type=float, default=3.0, help="duration of each phase")
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--slice-pages", type=int, default=300, help="1000-item pages to list")
    parser.add_argument("--no-cache", action="store_true", help="run the server with --no-cache")
    args = parser.parse_args()

    process, url = await start_simulator(args.size, ["--no-cache"] if args.no_cache else [])
    pid = process.pid
    rng = random.Random(0)
    connector = aiohttp.TCPConnector(limit=args.concurrency)
    try:
        async with aiohttp.ClientSession(connector=connector) as session:
            async with session.get(f"{url}/v1/health") as response:
                assert response.status == 200
            print(f"simulator: {url} size={args.size} pid={pid} rss={rss_mib(pid):.0f} MiB")
            async with session.get(
                url + FINDINGS, params={"limit": "1"}, headers={"X-Simulator-Paging": "offset"}
            ) as response:
                total_findings = (await response.json())["total"]
            ids: list[str] = []
            for offset in rng.sample(range(total_findings // 1000), 10):
                params = {"offset": str(offset * 1000), "limit": "1000"}
                async with session.get(url + FINDINGS, params=params) as response:
                    ids += [record["id"] for record in (await response.json())["data"]]

            def get_one() -> tuple[str, dict[str, str]]:
                return f"{url}{FINDINGS}/{rng.choice(ids)}", {}

            per_second, _ = await rate(pid, session, get_one, args.seconds, args.concurrency)
            print(
                f"single-record GETs: {per_second:,.0f}/s (random findings of 10 pages, "
                f"concurrency "
                f"{args.concurrency}); rss={rss_mib(pid):.0f} MiB"
            )

            offset_headers = {"X-Simulator-Paging": "offset"}
            cold_pages = iter(rng.sample(range(total_findings // 1000), total_findings // 1000))

            def cold_page() -> tuple[str, dict[str, str]]:
                offset = next(cold_pages) * 1000
                return f"{url}{FINDINGS}?offset={offset}&limit=1000", offset_headers

            per_second, received = await rate(
                pid, session, cold_page, args.seconds, args.concurrency
            )
            print(
                f"1000-item pages, cold: {per_second:,.1f}/s "
                f"({received / 2**20 / args.seconds:,.0f} MiB/s); rss={rss_mib(pid):.0f} MiB"
            )

            warm = [rng.randrange(64) * 1000 for _ in range(100_000)]
            warm_iter = iter(warm)
            for offset in range(0, 64_000, 1000):
                async with session.get(
                    f"{url}{FINDINGS}?offset={offset}&limit=1000", headers=offset_headers
                ) as response:
                    await response.read()

            def warm_page() -> tuple[str, dict[str, str]]:
                return f"{url}{FINDINGS}?offset={next(warm_iter)}&limit=1000", offset_headers

            per_second, received = await rate(
                pid, session, warm_page, args.seconds, args.concurrency
            )
            print(
                f"1000-item pages, warm (cached): {per_second:,.1f}/s "
                f"({received / 2**20 / args.seconds:,.0f} MiB/s); rss={rss_mib(pid):.0f} MiB"
            )

            started = time.perf_counter()
            listed = 0
            for _ in range(args.slice_pages):
                params = {"offset": str(listed), "limit": "1000"}
                async with session.get(url + FINDINGS, params=params) as response:
                    page = await response.json()
                listed += len(page["data"])
                if not page["data"] or listed >= page["total"]:
                    break
            elapsed = time.perf_counter() - started
            print(
                f"offset listing of {listed:,} findings: {elapsed:.1f} s "
                f"({listed / elapsed:,.0f} findings/s, sequential); rss={rss_mib(pid):.0f} MiB"
            )

            started = time.perf_counter()
            async with session.get(
                url + ENDPOINTS, params={"osFamily": "macos", "hasAgent": "true", "limit": "100"}
            ) as response:
                assert response.status == 200
                await response.read()
            print(
                f"first filtered page of endpoints (osFamily=macos&hasAgent=true): "
                f"{time.perf_counter() - started:.2f} s; rss={rss_mib(pid):.0f} MiB"
            )
    finally:
        process.send_signal(signal.SIGINT)
        code = await asyncio.wait_for(process.wait(), timeout=30)
        print(f"simulator exited with status {code}")


if __name__ == "__main__":
    asyncio.run(main())
