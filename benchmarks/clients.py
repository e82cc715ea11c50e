"""One benchmark measurement in this process: a workload run by one client variant.

    python benchmarks/clients.py WORKLOAD VARIANT URL [options]   -> one JSON line on stdout

Variants: raw (aiohttp + orjson into dicts: the limit of this stack), cattrs (aiohttp + orjson +
a default cattrs converter), httpx_pydantic (httpx.AsyncClient + pydantic v2 models, what a
typical generated SDK does), msgspec (aiohttp + msgspec typed decoding: the fastest decoding
reference), remedy (remedy_async with its defaults: typed models, retries and the rate gate on)
and remedy_dicts (remedy_async's `as_dicts()` mode). Each variant imports only its own
libraries, so no process carries another's objects on its heap.

Lists use offset paging as published (`limit`/`offset` in, `data`/`total` out). The published
maximum page is 100; a page size above it needs a simulator started with `--max-page-size`, and
remedy_async is then given the same `max_page_size` (a client without that argument, an older
version, is given none). `--resource endpoints` lists endpoints (the published shape);
`--items-key` reads another envelope key (an older simulator's `items`).
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import importlib
import inspect
import json
import resource
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import aiohttp
import orjson

FINDINGS = "vulnerability-findings"
ENDPOINTS = "endpoints"
REMEDY_VARIANTS = {"remedy", "remedy_dicts"}
PUBLISHED_MAX_PAGE = 100
"""The published maximum of `limit`, remedy_async's default `max_page_size`."""
ITEMS_KEY = "data"
"""The envelope key of a page's records; `--items-key` changes it (an older simulator's `items`)."""


def measure(arguments: list[str]) -> dict[str, Any]:
    """Run this script in a fresh process with `arguments`; return its JSON result."""
    output = subprocess.run(
        [sys.executable, __file__, *arguments], check=True, capture_output=True, text=True
    ).stdout
    return dict(json.loads(output.strip().splitlines()[-1]))


@functools.cache
def decoders(
    variant: str, resource: str = FINDINGS
) -> tuple[Callable[[bytes], list[Any]], Callable[[bytes], Any]]:
    """(page body -> items, record body -> record) of a resource for a variant, importing only
    its library."""
    import comparators  # noqa: PLC0415 - lives beside this script

    if variant in {"raw", "remedy_dicts"}:
        return (lambda body: orjson.loads(body)[ITEMS_KEY]), orjson.loads
    if variant == "remedy":
        import remedy_async  # noqa: PLC0415
        from remedy_async._wire._fastpath import structure_hook  # noqa: PLC0415

        model = (
            remedy_async.Endpoint if resource == ENDPOINTS else remedy_async.VulnerabilityFinding
        )
        structure = structure_hook(model)
        return (
            lambda body: [structure(i, model) for i in orjson.loads(body)[ITEMS_KEY]],
            lambda body: structure(orjson.loads(body), model),
        )
    models = {
        "cattrs": comparators.cattrs_models,
        "httpx_pydantic": comparators.pydantic_models,
        "msgspec": comparators.msgspec_models,
    }
    return models[variant](resource)


def remedy_client(url: str, page_size: int) -> Any:
    """A RemedyClient for `url` whose `max_page_size` allows `page_size` (an older client, whose
    RemedyClient has no such argument, is given none)."""
    from remedy_async import RemedyClient  # noqa: PLC0415

    if page_size <= PUBLISHED_MAX_PAGE:
        return RemedyClient(url)
    if "max_page_size" not in inspect.signature(RemedyClient).parameters:
        return RemedyClient(url)
    return RemedyClient(url, max_page_size=page_size)


# -- workloads -----------------------------------------------------------------------------


class Unavailable(Exception):
    """The client under test lacks what the workload asks for (an older version's API)."""


async def list_items(
    variant: str,
    url: str,
    items: int,
    page_size: int,
    concurrency: int | None = None,
    resource: str = FINDINGS,
) -> int:
    """List `items` records of `resource` in pages of `page_size` (offset paging) and return the
    count.

    `concurrency` (remedy only) asks for parallel page fetch, `list(..., concurrency=N)`; a
    client whose `list` has no such keyword raises Unavailable.
    """
    if variant in REMEDY_VARIANTS:
        parallel: dict[str, Any] = {} if concurrency is None else {"concurrency": concurrency}
        async with remedy_client(url, page_size) as client:
            collection = (
                client.endpoints if resource == ENDPOINTS else client.vulnerability_findings
            )
            try:
                pager = collection.list(page_size=page_size, max_items=items, **parallel)
            except TypeError as error:
                if not parallel:
                    raise
                raise Unavailable(f"list(concurrency=...) is not available: {error}") from None
            iterator = pager.as_dicts() if variant == "remedy_dicts" else pager
            count = 0
            async for _ in iterator:
                count += 1
            return count
    decode, _ = decoders(variant, resource)
    count = 0
    # Every variant hands each record to the same trivial consumer (`count += 1`), so what
    # differs is only how records are fetched, decoded and delivered.
    if variant == "httpx_pydantic":
        import httpx  # noqa: PLC0415

        async with httpx.AsyncClient() as http:
            while count < items:
                reply = await http.get(
                    f"{url}/v1/{resource}", params={"offset": count, "limit": page_size}
                )
                reply.raise_for_status()
                before = count
                for _ in decode(reply.content):
                    count += 1
                if count == before:
                    break
        return min(count, items)
    async with aiohttp.ClientSession() as session:
        while count < items:
            params = {"offset": count, "limit": page_size}
            async with session.get(f"{url}/v1/{resource}", params=params) as response:
                response.raise_for_status()
                before = count
                for _ in decode(await response.read()):
                    count += 1
            if count == before:
                break
    return min(count, items)


async def get_many(variant: str, url: str, ids: list[str], concurrency: int) -> int:
    """Fetch every id with at most `concurrency` requests in flight; return the count."""
    if variant in REMEDY_VARIANTS:
        async with remedy_client(url, PUBLISHED_MAX_PAGE) as client:
            results = client.vulnerability_findings.get_many(ids, concurrency=concurrency)
            return sum([1 async for result in results if result.ok])
    limit = asyncio.Semaphore(concurrency)
    _, build = decoders(variant)
    if variant == "httpx_pydantic":
        import httpx  # noqa: PLC0415

        limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
        async with httpx.AsyncClient(limits=limits) as http:

            async def one_httpx(finding_id: str) -> Any:
                async with limit:
                    response = await http.get(f"{url}/v1/{FINDINGS}/{finding_id}")
                    return build(response.content)

            return len(await asyncio.gather(*(one_httpx(i) for i in ids)))
    connector = aiohttp.TCPConnector(limit=concurrency)
    async with aiohttp.ClientSession(connector=connector) as session:

        async def one(finding_id: str) -> Any:
            async with limit, session.get(f"{url}/v1/{FINDINGS}/{finding_id}") as response:
                return build(await response.read())

        return len(await asyncio.gather(*(one(i) for i in ids)))


def decode_only(variant: str, resource: str, body: bytes, seconds: float) -> tuple[int, float]:
    """Decode a cached page body repeatedly for about `seconds`; return (records, elapsed)."""
    decode, _ = decoders(variant, resource)
    records, started = 0, time.perf_counter()
    while time.perf_counter() - started < seconds:
        records += len(decode(body))
    return records, time.perf_counter() - started


def current_rss_kib() -> int:
    """Resident memory now, from /proc (ru_maxrss only ever reports the peak)."""
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * resource.getpagesize() // 1024


async def raw_records(
    session: aiohttp.ClientSession, url: str, items: int, page_size: int
) -> AsyncIterator[dict[str, Any]]:
    """Up to `items` findings as dicts, offset paging in pages of `page_size`: raw aiohttp +
    orjson."""
    delivered = 0
    while delivered < items:
        params = {"offset": delivered, "limit": min(page_size, items - delivered)}
        async with session.get(f"{url}/v1/{FINDINGS}", params=params) as response:
            response.raise_for_status()
            page = orjson.loads(await response.read())
        records = page[ITEMS_KEY]
        for record in records:
            delivered += 1
            yield record
        if not records or delivered >= page["total"]:
            return


async def watch_rss(source: AsyncIterator[Any], items: int) -> dict[str, int]:
    """Consume `source`, sampling RSS every 1,000 items; RSS now is the baseline.

    Also the peak over the first tenth of the items: memory that does not grow with the number
    of items peaks there already, so `late_growth_kib` (peak minus that) stays near zero.
    """
    baseline = peak = current_rss_kib()
    count, first_tenth = 0, max(items // 10, 1000)
    peak_first_tenth = baseline
    async for _ in source:
        count += 1
        if count % 1000 == 0:
            peak = max(peak, current_rss_kib())
            if count == first_tenth:
                peak_first_tenth = peak
    return {
        "items": count,
        "baseline_kib": baseline,
        "peak_kib": peak,
        "rss_growth_kib": peak - baseline,
        "late_growth_kib": peak - peak_first_tenth,
    }


async def stream(variant: str, url: str, items: int, page_size: int) -> dict[str, int]:
    """Stream `items` findings without keeping them; report RSS at start, peak and growth.

    The baseline is taken after a first list of one page (imports, session, one page decoded).
    """
    if variant == "raw":
        async with aiohttp.ClientSession() as session:
            _ = [record async for record in raw_records(session, url, page_size, page_size)]
            return await watch_rss(raw_records(session, url, items, page_size), items)
    async with remedy_client(url, page_size) as client:
        iterator = client.vulnerability_findings.list(page_size=page_size, max_items=page_size)
        _ = [f async for f in iterator]
        pager = client.vulnerability_findings.list(page_size=page_size, max_items=items)
        source = pager.as_dicts() if variant == "remedy_dicts" else pager
        return await watch_rss(aiter(source), items)


def load(variant: str, resource: str) -> None:
    """Import a variant's libraries and build its decoders before anything is timed."""
    decoders(variant, resource)
    extra = {"httpx_pydantic": "httpx", "remedy": "remedy_async", "remedy_dicts": "remedy_async"}
    if variant in extra:
        importlib.import_module(extra[variant])


def main() -> int:
    global ITEMS_KEY  # noqa: PLW0603 - one setting of this process, read by the decoders
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("workload", choices=["list", "get_many", "decode", "stream"])
    parser.add_argument("variant")
    parser.add_argument("url")
    parser.add_argument("--items", type=int, default=200_000)
    parser.add_argument("--page-size", type=int, default=PUBLISHED_MAX_PAGE)
    parser.add_argument(
        "--resource",
        choices=[FINDINGS, ENDPOINTS],
        default=FINDINGS,
        help="the collection a list or decode reads (get_many and stream: findings)",
    )
    parser.add_argument(
        "--items-key", default=ITEMS_KEY, help="envelope key of a page's records (default: data)"
    )
    parser.add_argument(
        "--concurrency",
        type=int,
        help="requests in flight (get_many; default 16), or pages fetched at once (list)",
    )
    parser.add_argument("--ids-file", help="file with one finding id per line (get_many)")
    parser.add_argument("--body-file", help="cached page body (decode)")
    parser.add_argument("--seconds", type=float, default=1.0)
    args = parser.parse_args()
    ITEMS_KEY = args.items_key
    result: dict[str, Any] = {"workload": args.workload, "variant": args.variant}
    load(args.variant, args.resource)
    run: Callable[[], Awaitable[Any]]
    if args.workload == "decode":
        with open(args.body_file, "rb") as body_file:
            body = body_file.read()
        records, elapsed = decode_only(args.variant, args.resource, body, args.seconds)
        result.update(items=records, seconds=elapsed)
    elif args.workload == "stream":
        started = time.perf_counter()
        result.update(asyncio.run(stream(args.variant, args.url, args.items, args.page_size)))
        result["seconds"] = time.perf_counter() - started
    else:
        if args.workload == "list":
            run = lambda: list_items(  # noqa: E731
                args.variant,
                args.url,
                args.items,
                args.page_size,
                args.concurrency,
                args.resource,
            )
        else:
            with open(args.ids_file) as ids_file:
                ids = ids_file.read().split()[: args.items]

            run = lambda: get_many(args.variant, args.url, ids, args.concurrency or 16)  # noqa: E731
        started = time.perf_counter()
        try:
            result["items"] = asyncio.run(run())
        except Unavailable as error:
            result["unavailable"] = str(error)
        result["seconds"] = time.perf_counter() - started
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
