"""Checkpoints made durable beside the export, never ahead of the bytes they cover.

Each page's bytes are written to the `.part` file as the page arrives; making them durable (an
fsync, then the checkpoint replaced atomically) runs in a thread while the next page is
fetched. When the disk is slower than the service, pages arriving while a checkpoint is being
saved are covered by the next one (the latest page's), so an export never waits for the disk
page by page, and a checkpoint still never claims bytes that were not fsynced first.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO

from ._checkpoint import Checkpoint

SaveCheckpoint = Callable[[Path, Checkpoint], None]


class Checkpointer:
    """Saves the latest checkpoint of one export in the background, one save at a time."""

    def __init__(self, file: BinaryIO, path: Path, save: Callable[[], SaveCheckpoint]) -> None:
        self._file = file
        self._path = path
        self._save_with = save
        self._task: asyncio.Future[None] | None = None
        self._latest: Checkpoint | None = None
        self._saved: Checkpoint | None = None

    def note(self, checkpoint: Checkpoint) -> None:
        """Take the checkpoint after a page whose bytes were just written; save it now, or
        with a later one if a save is still running."""
        self._file.flush()
        self._latest = checkpoint
        if self._task is None or self._task.done():
            if self._task is not None:
                self._task.result()  # a failed save fails the export here
            self._task = asyncio.ensure_future(asyncio.to_thread(self._save, checkpoint))

    def _save(self, checkpoint: Checkpoint) -> None:
        os.fsync(self._file.fileno())
        self._save_with()(self._path, checkpoint)
        self._saved = checkpoint

    async def settle(self) -> None:
        """Wait for the running save, then save the latest checkpoint if it is not yet."""
        if self._task is not None:
            task, self._task = self._task, None
            await task
        latest = self._latest
        if latest is not None and latest is not self._saved:
            self._file.flush()
            await asyncio.to_thread(self._save, latest)
