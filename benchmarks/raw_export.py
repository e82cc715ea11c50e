"""The raw comparator of `remedy-async export`: aiohttp + orjson writing the same JSON lines file.

    python benchmarks/raw_export.py URL OUT_DIR [--page-size 100]

Lists every vulnerability finding of a simulator serving offset paging (the published paging:
`limit`/`offset` in, `data`/`total` out; pages of 100, the published maximum, by default) and
writes one JSON object a line to OUT_DIR/vulnerability-findings.jsonl, the file the CLI's export
writes, then flushes it to disk once (the CLI also makes it durable). What a user would write by
hand: no retries, no checkpoint, no resume, no typed records.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from pathlib import Path

import aiohttp
import orjson

FINDINGS = "vulnerability-findings"


async def export(url: str, path: Path, page_size: int) -> int:
    """Write every finding to `path`, one JSON object a line; return how many."""
    written = 0
    with path.open("wb") as file:
        async with aiohttp.ClientSession() as session:
            while True:
                params = {"offset": written, "limit": page_size}
                async with session.get(f"{url}/v1/{FINDINGS}", params=params) as response:
                    response.raise_for_status()
                    page = orjson.loads(await response.read())
                items = page["data"]
                file.write(b"".join(orjson.dumps(item) + b"\n" for item in items))
                written += len(items)
                if not items or written >= page["total"]:
                    break
        file.flush()
        os.fsync(file.fileno())
    return written


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("url")
    parser.add_argument("out", type=Path)
    parser.add_argument("--page-size", type=int, default=100)
    arguments = parser.parse_args()
    arguments.out.mkdir(parents=True, exist_ok=True)
    path = arguments.out / f"{FINDINGS}.jsonl"
    count = asyncio.run(export(arguments.url, path, arguments.page_size))
    print(f"{count} records in {path}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
