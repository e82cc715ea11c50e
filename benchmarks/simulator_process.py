"""Runs the simulator in its own process for benchmarks, so the client is what gets measured."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager

READY = "Remedy simulator listening on "


@contextmanager
def running_simulator(*arguments: str) -> Iterator[str]:
    """Start `python -m remedy_async.simulator` on a free port; yield its base URL."""
    process = subprocess.Popen(
        [sys.executable, "-m", "remedy_async.simulator", "--port", "0", *arguments],
        stdout=subprocess.PIPE,
        text=True,
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
