"""The main job, shown end to end: export every collection from the embedded simulator."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from typing import Any, TextIO

from attrs import frozen

from ._client import RemedyClient
from ._collection import RESOURCES, ResourceCollection
from .simulator import Simulator, SimulatorConfig


@frozen
class ExportCount:
    """How one collection's export went: records received against records the service holds."""

    resource: str
    received: int
    expected: int
    seconds: float

    @property
    def complete(self) -> bool:
        """Whether every record arrived exactly once."""
        return self.received == self.expected


async def _export(collection: ResourceCollection[Any], expected: int) -> ExportCount:
    started = time.perf_counter()
    seen: set[str] = set()
    received = 0
    async for record in collection.list(page_size=1000):
        received += 1
        seen.add(record.id)
    if len(seen) != received:
        raise AssertionError(f"{collection.resource.attribute}: {received - len(seen)} duplicates")
    return ExportCount(
        collection.resource.attribute, received, expected, time.perf_counter() - started
    )


async def run_demo(*, size: int, seed: int) -> list[ExportCount]:
    """Start the simulator on a free loopback port and export all four collections concurrently."""
    config = SimulatorConfig(seed=seed, size=size)
    async with Simulator(config) as simulator, RemedyClient(simulator.url) as client:
        collections = [getattr(client, resource.attribute) for resource in RESOURCES]
        return list(
            await asyncio.gather(
                *(
                    _export(collection, simulator.dataset.count(collection.resource.segment))
                    for collection in collections
                )
            )
        )


def render(counts: Sequence[ExportCount], seconds: float, out: TextIO) -> None:
    """Print the export summary as an aligned table."""
    out.write(f"{'resource':<24}{'records':>10}{'expected':>10}{'seconds':>10}{'records/s':>12}\n")
    for count in counts:
        rate = count.received / count.seconds if count.seconds else 0.0
        out.write(
            f"{count.resource:<24}{count.received:>10}{count.expected:>10}"
            f"{count.seconds:>10.2f}{rate:>12.0f}\n"
        )
    total = sum(count.received for count in counts)
    out.write(f"{'total':<24}{total:>10}{'':>10}{seconds:>10.2f}{total / seconds:>12.0f}\n")
    if all(count.complete for count in counts):
        out.write("export complete: every record received exactly once\n")
    else:
        out.write("export INCOMPLETE: some records are missing\n")
