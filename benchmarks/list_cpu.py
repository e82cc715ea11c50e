"""Client CPU per 100 records of a list read as wire dicts: raw aiohttp, the least remedy_async's
promise costs, and remedy_async itself; and what importing remedy_async costs before a list.

    python benchmarks/list_cpu.py [--endpoints 20000] [--repetitions 7] [--imports 15]

At zero latency a list waits on the client's CPU (the simulator runs in its own process on the
other core), and CPU time is far steadier than wall time on a shared VM. Every variant lists
every endpoint in pages of 100 (the published shape and maximum) from one cached simulator, in
this one process, interleaved; the table shows the median process CPU per 100 records
delivered (the library reads 2% more pages: each repeats two records of the one before):

    raw        aiohttp + orjson, one request at a time, as ../shared/bench/clients.py does
    exact      the same with remedy_async's JSON reader (msgspec: an integer of any size kept)
    least      `exact` + what a proven offset list must do a page while its data stands still:
               the next request sent as soon as this page's answer is in (a task a page), the
               echoed offset and the total read, the page's first ids matched with the last ones
               delivered, and its new ids checked against (then added to) every id delivered
    sender     `least` with each page fetched through remedy_async's sending layers (its client's
               connection: retry policy, deadline, in-flight gate, rate-limit pause, transport)
    as_dicts   `client.endpoints.list(page_size=100).as_dicts()`: the paging layers added (the
               walk, the reading ahead, the page read by its convention, the offset proof, the
               hand-over)

`least` is not a client: it leaves out every check remedy_async makes that a steady page passes
(signals the convention does not read, drift, where a next page points, retries, rate limits,
hooks, resume positions, a list that moves). It bounds how much of the library's cost its
promise needs; the rest is how the library is built.

The import is timed in fresh processes that have imported aiohttp and orjson (as the shared
benchmark's clients have, before their clock starts): `from remedy_async import RemedyClient`,
a client, a list's iterator and the JSON reader, which is everything the first list loads.
Beside it, how much of it attrs spends compiling the methods it generates for the classes
defined on the way (`compile` of `<attrs generated ...>` sources).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

import aiohttp
import orjson
from yarl import URL

from remedy_async import RemedyClient
from remedy_async._wire._http import Request
from remedy_async._wire._json import loads as exact_loads

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from simulator_process import ENDPOINTS, running_simulator, warm  # noqa: E402

PAGE = 100
OVERLAP = 2
"""Records each page of a proven offset list repeats from the one before (`_proof.OVERLAP`)."""
Variant = Callable[[str], Coroutine[Any, Any, int]]

IMPORT_PROBE = """
import builtins, time
import aiohttp, orjson
spent = [0.0]
compile_ = builtins.compile
def timed_compile(source, filename, *args, **kwargs):
    started = time.perf_counter()
    try:
        return compile_(source, filename, *args, **kwargs)
    finally:
        if str(filename).startswith("<attrs generated"):
            spent[0] += time.perf_counter() - started
builtins.compile = timed_compile
started = time.perf_counter()
import asyncio
from remedy_async import RemedyClient
from remedy_async._wire._json import msgspec_module
async def first_list():
    async with RemedyClient("http://127.0.0.1:9", token="t") as client:
        client.endpoints.list(page_size=100).as_dicts().__aiter__()
asyncio.run(first_list())
msgspec_module()
print((time.perf_counter() - started) * 1e3, spent[0] * 1e3)
"""


async def one_at_a_time(url: str, loads: Callable[[bytes], Any]) -> int:
    """raw aiohttp's list, each page read by `loads`."""
    async with aiohttp.ClientSession() as session:
        offset = count = 0
        while True:
            params = {"limit": str(PAGE), "offset": str(offset)}
            async with session.get(f"{url}/v1/{ENDPOINTS}", params=params) as response:
                page = loads(await response.read())
            count += len(page["data"])
            offset += len(page["data"])
            if not page["data"] or offset >= page["total"]:
                return count


async def raw(url: str) -> int:
    return await one_at_a_time(url, orjson.loads)


async def exact(url: str) -> int:
    return await one_at_a_time(url, exact_loads)


Send = Callable[[URL], Coroutine[Any, Any, bytes]]


async def least(url: str) -> int:
    async with aiohttp.ClientSession() as session:

        async def send(target: URL) -> bytes:
            response = await session.request("GET", target)
            try:
                return await response.read()
            finally:
                response.release()

        return await steady_list(url, send)


async def sender(url: str) -> int:
    async with RemedyClient(url) as client:

        async def send(target: URL) -> bytes:
            return (await client._connection.send(Request("GET", target), None)).body

        return await steady_list(url, send)


async def steady_list(url: str, send: Send) -> int:
    """`least`'s list, each page's bytes from `send`."""
    base = URL(f"{url}/v1/{ENDPOINTS}")
    delivered: set[str] = set()
    ahead: dict[int, asyncio.Task[Any]] = {}
    total: int | None = None
    offset = count = 0
    last: tuple[str, ...] = ()

    async def fetch(offset: int) -> Any:
        body = await send(base.with_query({"limit": str(PAGE), "offset": str(offset)}))
        following = offset + PAGE - OVERLAP
        if total is not None and following + OVERLAP < total:  # out before this page is read
            ahead[following] = asyncio.create_task(fetch(following))
        return exact_loads(body)

    task = asyncio.create_task(fetch(0))
    while True:
        page = await task
        records, total = page["data"], page["total"]
        if page["offset"] != offset or not isinstance(total, int):
            raise RuntimeError(f"the page at {offset} echoed {page['offset']}")
        ids = [record["id"] for record in records]
        new = ids[OVERLAP:] if last else ids
        if last and tuple(ids[:OVERLAP]) != last:
            raise RuntimeError(f"the page at {offset} does not continue the list")
        distinct = set(new)
        if len(distinct) != len(new) or not delivered.isdisjoint(distinct):
            raise RuntimeError(f"the page at {offset} repeats a record")
        delivered.update(distinct)
        for _ in records[len(ids) - len(new) :]:  # handed over one by one
            count += 1
        if offset + len(ids) >= total:
            return count
        last = tuple(ids[-OVERLAP:])
        offset += len(ids) - OVERLAP
        guessed = ahead.pop(offset, None)
        task = guessed if guessed is not None else asyncio.create_task(fetch(offset))


async def as_dicts(url: str) -> int:
    async with RemedyClient(url) as client:
        count = 0
        async for _ in client.endpoints.list(page_size=PAGE).as_dicts():
            count += 1
        return count


VARIANTS: dict[str, Variant] = {
    "raw": raw,
    "exact": exact,
    "least": least,
    "sender": sender,
    "as_dicts": as_dicts,
}


def imports(times: int) -> tuple[list[float], list[float]]:
    """Milliseconds of the first list's imports, and of attrs compiling on the way, per run."""
    total: list[float] = []
    compiling: list[float] = []
    for _ in range(times):
        printed = subprocess.run(
            [sys.executable, "-c", IMPORT_PROBE],
            capture_output=True,
            text=True,
            check=True,
            cwd=tempfile.gettempdir(),
        ).stdout.split()
        total.append(float(printed[0]))
        compiling.append(float(printed[1]))
    return total, compiling


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--endpoints", type=int, default=20_000)
    parser.add_argument("--repetitions", type=int, default=7)
    parser.add_argument("--imports", type=int, default=15)
    arguments = parser.parse_args()
    cpu: dict[str, list[float]] = {name: [] for name in VARIANTS}
    simulator = ("--size", str(arguments.endpoints), "--cache-bytes", str(2**31))
    with tempfile.TemporaryDirectory() as work, running_simulator(*simulator) as url:
        asyncio.run(warm(url, 0, (), 0, Path(work), endpoints=arguments.endpoints))
        for variant in VARIANTS.values():  # first use: overlapping pages cached, functions made
            asyncio.run(variant(url))
        for _ in range(arguments.repetitions):
            for name, variant in VARIANTS.items():
                started = time.process_time()
                if asyncio.run(variant(url)) != arguments.endpoints:
                    raise RuntimeError(f"{name} did not deliver every endpoint")
                spent = time.process_time() - started
                cpu[name].append(spent / arguments.endpoints * PAGE * 1e6)
    raw_cpu = statistics.median(cpu["raw"])
    print("| variant | client CPU per 100 records (median) | vs raw |")
    print("|---|---|---|")
    for name, samples in cpu.items():
        median = statistics.median(samples)
        print(f"| {name} | {median:.1f} µs | {median - raw_cpu:+.1f} µs |")
    total, compiling = imports(arguments.imports)
    print(
        f"\nimport before the first list: {statistics.median(total):.1f} ms (median of "
        f"{len(total)} processes), of which attrs compiling generated methods "
        f"{statistics.median(compiling):.1f} ms"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
