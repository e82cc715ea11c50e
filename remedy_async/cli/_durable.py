"""Checkpoints made durable beside the export, never ahead of the bytes they cover.

Each page's bytes are written to the `.part` file as the page arrives; making them durable (an
fsync, then the checkpoint replaced atomically) runs in a thread while the next page is
fetched. One save runs at a time, at most one every `interval` seconds (0.2 by default): pages
arriving meanwhile are covered by the next save, of the latest page's checkpoint, made when
the interval is over or by `settle()` at the end. So an export never waits for the disk page
by page, a stop loses at most that much progress (a resume truncates the file to the saved
checkpoint: nothing is repeated or skipped), and a checkpoint never claims bytes that were not
fsynced first.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO

from ._checkpoint import Checkpoint

SaveCheckpoint = Callable[[Path, Checkpoint], None]


class Checkpointer:
    """Saves the latest checkpoint of one export in the background, one save at a time."""

    def __init__(
        self,
        file: BinaryIO,
        path: Path,
        save: Callable[[], SaveCheckpoint],
        *,
        interval: float = 0.2,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._file = file
        self._path = path
        self._save_with = save
        self._interval = interval
        self._clock = clock
        self._started = -interval
        self._task: asyncio.Future[None] | None = None
        self._timer: asyncio.TimerHandle | None = None
        self._latest: Checkpoint | None = None
        self._saved: Checkpoint | None = None

    def note(self, checkpoint: Checkpoint) -> None:
        """Take the checkpoint after a page whose bytes were just written: save it now, or
        with a later one once the running save and the interval are over."""
        self._file.flush()
        self._latest = checkpoint
        if self._task is not None:
            if not self._task.done():
                return
            self._task.result()  # a failed save fails the export here
        wait = self._started + self._interval - self._clock()
        if wait <= 0:
            self._start()
        elif self._timer is None:
            self._timer = asyncio.get_running_loop().call_later(wait, self._start)

    def _start(self) -> None:
        """Save the latest checkpoint in a thread, unless a save runs or it is saved."""
        self._timer = None
        task = self._task
        if task is not None and (not task.done() or task.cancelled() or task.exception()):
            return  # running, or failed: note() or settle() raises its error
        latest = self._latest
        if latest is None or latest is self._saved:
            return
        self._started = self._clock()
        self._task = asyncio.ensure_future(asyncio.to_thread(self._save, latest))

    def _save(self, checkpoint: Checkpoint) -> None:
        os.fsync(self._file.fileno())
        self._save_with()(self._path, checkpoint)
        self._saved = checkpoint

    async def settle(self) -> None:
        """Wait for the running save, then save the latest checkpoint if it is not yet."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self._task is not None:
            task, self._task = self._task, None
            await task
        latest = self._latest
        if latest is not None and latest is not self._saved:
            self._file.flush()
            await asyncio.to_thread(self._save, latest)
