"""Checkpoints saved beside the export: never ahead of their bytes, coalesced when slow."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

from remedy_async.cli._checkpoint import Checkpoint, Checkpointer


def checkpoint(records: int) -> Checkpoint:
    return Checkpoint("scopes", "jsonl", 10, records=records, length=records)


async def test_pages_arriving_during_a_slow_save_are_covered_by_the_next_one(
    tmp_path: Path,
) -> None:
    """Checkpoints noted while a save waits on the disk are saved once, as the latest."""
    release = threading.Event()
    saved: list[int] = []

    def save(_: Path, point: Checkpoint) -> None:
        if not saved:
            release.wait(timeout=30)
        saved.append(point.records)

    with (tmp_path / "part").open("wb") as file:
        saver = Checkpointer(file, tmp_path / "checkpoint.json", lambda: save, interval=0)
        for records in (1, 2, 3, 4):
            file.write(b"x")
            saver.note(checkpoint(records))
            await asyncio.sleep(0)
        release.set()
        await saver.settle()
    assert saved == [1, 4]


async def test_checkpoints_within_the_interval_are_saved_once_as_the_latest(
    tmp_path: Path,
) -> None:
    """Checkpoints noted within the interval of the last save wait for it, then the latest."""
    saved: list[int] = []
    now = [0.0]
    with (tmp_path / "part").open("wb") as file:
        saver = Checkpointer(
            file,
            tmp_path / "checkpoint.json",
            lambda: lambda _, point: saved.append(point.records),
            interval=60,
            clock=lambda: now[0],
        )
        for records in (1, 2, 3):
            file.write(b"x")
            saver.note(checkpoint(records))
            await asyncio.sleep(0.01)  # the first save's thread finishes
        await saver.settle()
    assert saved == [1, 3]
