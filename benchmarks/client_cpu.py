"""Client CPU per get_many request: raw aiohttp against remedy_async, layer by layer.

    python benchmarks/client_cpu.py [--ids 10000] [--repetitions 7]

Throughput on this 2-core machine follows the client's CPU per request (the simulator runs in
its own process on the other core), and CPU time is far steadier than wall time on a shared VM.
Every variant runs in this one process against one cached simulator, interleaved; the table
shows the median process CPU per request. The layers add remedy_async's pieces one at a time
over the same aiohttp configuration, so the cost of each is the step between two rows:

    raw          aiohttp + orjson, as in benchmarks/clients.py
    transport    remedy_async's AiohttpTransport: id check, Request/Response values, bounded read
    sender       + the Sender: retry policy, deadline, in-flight gate, rate-limit pause check
    get          + ResourceCollection.get: typed model (gather with a semaphore, like raw)
    get_many     collection.get_many(ids, concurrency=64): what the benchmark measures
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Coroutine
from pathlib import Path
from typing import Any

import aiohttp
import orjson
from yarl import URL

from remedy_async import RemedyClient
from remedy_async._wire._http import Request
from remedy_async._wire._urls import id_segment

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from simulator_process import running_simulator, warm  # noqa: E402

FINDINGS = "vulnerability-findings"
CONCURRENCY = 64
Variant = Callable[[str, list[str]], Coroutine[Any, Any, int]]


async def gathered(ids: list[str], one: Callable[[str], Awaitable[Any]]) -> int:
    """Run `one` per id with at most CONCURRENCY at once, the way the raw variant does."""
    limit = asyncio.Semaphore(CONCURRENCY)

    async def limited(finding_id: str) -> Any:
        async with limit:
            return await one(finding_id)

    return len(await asyncio.gather(*(limited(i) for i in ids)))


async def raw(url: str, ids: list[str]) -> int:
    connector = aiohttp.TCPConnector(limit=CONCURRENCY)
    async with aiohttp.ClientSession(connector=connector) as session:

        async def one(finding_id: str) -> Any:
            async with session.get(f"{url}/v1/{FINDINGS}/{finding_id}") as response:
                return orjson.loads(await response.read())

        return await gathered(ids, one)


async def transport(url: str, ids: list[str]) -> int:
    async with RemedyClient(url) as client:
        sender = client._connection.sender()
        headers, timeout, _ = client._connection.settings(None)
        base = f"{url}/v1/{FINDINGS}"

        async def one(finding_id: str) -> Any:
            request = Request("GET", URL(f"{base}/{id_segment(finding_id)}", encoded=True))
            response = await sender.transport.send(request, headers, timeout, 1 << 27)
            return orjson.loads(response.body)

        return await gathered(ids, one)


async def sender(url: str, ids: list[str]) -> int:
    async with RemedyClient(url) as client:
        base = f"{url}/v1/{FINDINGS}"

        async def one(finding_id: str) -> Any:
            request = Request("GET", URL(f"{base}/{id_segment(finding_id)}", encoded=True))
            return orjson.loads((await client._connection.send(request, None)).body)

        return await gathered(ids, one)


async def get(url: str, ids: list[str]) -> int:
    async with RemedyClient(url) as client:
        return await gathered(ids, client.vulnerability_findings.get)


async def get_many(url: str, ids: list[str]) -> int:
    async with RemedyClient(url) as client:
        results = client.vulnerability_findings.get_many(ids, concurrency=CONCURRENCY)
        count = 0
        async for result in results:
            count += result.ok
        return count


VARIANTS: dict[str, Variant] = {
    "raw": raw,
    "transport": transport,
    "sender": sender,
    "get": get,
    "get_many": get_many,
}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ids", type=int, default=10_000)
    parser.add_argument("--repetitions", type=int, default=7)
    arguments = parser.parse_args()
    cpu: dict[str, list[float]] = {name: [] for name in VARIANTS}
    simulator = ("--size", "11000", "--paging", "offset", "--cache-bytes", str(2**31))
    with tempfile.TemporaryDirectory() as work, running_simulator(*simulator) as url:
        asyncio.run(warm(url, 1000, (100,), arguments.ids, Path(work)))
        ids = (Path(work) / "ids.txt").read_text().split()
        for variant in VARIANTS.values():  # first use: connections, generated functions
            asyncio.run(variant(url, ids[:1000]))
        for _ in range(arguments.repetitions):
            for name, variant in VARIANTS.items():
                started = time.process_time()
                if asyncio.run(variant(url, ids)) != len(ids):
                    raise RuntimeError(f"{name} did not fetch every id")
                cpu[name].append((time.process_time() - started) / len(ids) * 1e6)
    raw_cpu = statistics.median(cpu["raw"])
    print("| variant | client CPU per request (median) | vs raw |")
    print("|---|---|---|")
    for name, samples in cpu.items():
        median = statistics.median(samples)
        print(f"| {name} | {median:.1f} µs | {median - raw_cpu:+.1f} µs |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
