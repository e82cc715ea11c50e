"""Run a documentation block as a reader pastes it: a file of its own, a fresh interpreter.

The block gets nothing from the suite: no names, no event loop, no client. What it gets is what
the docs tell a reader to set up once (README.md and docs/index.md, "Running the examples"): an
embedded simulator listening on loopback, its URL in `REMEDY_BASE_URL`, a token in
`REMEDY_API_TOKEN`. The interpreter runs with warnings as errors, in an empty directory.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path

from remedy_async.simulator import Simulator, SimulatorConfig

EXAMPLES_SIZE = 30
"""Endpoints of the simulator the examples run against (`remedy-async serve --size 30`)."""

EXAMPLES_TOKEN = "examples-token"
"""The token the examples find in `REMEDY_API_TOKEN` (the simulator asks for none)."""

WARNINGS = (
    "-W",
    "error",
    # Ray's own settings module warns about itself on import; nothing a block can change.
    "-W",
    "ignore::DeprecationWarning:ray.data.context",
)


def environment(base_url: str, directory: Path) -> dict[str, str]:
    """The reader's environment: this one, without any REMEDY_ setting of the suite's, plus
    the simulator's URL and a token; dlt keeps its files in `directory`."""
    environ = {key: value for key, value in os.environ.items() if not key.startswith("REMEDY_")}
    environ.pop("PYTHONWARNINGS", None)
    environ.update(
        REMEDY_BASE_URL=base_url,
        REMEDY_API_TOKEN=EXAMPLES_TOKEN,
        DLT_DATA_DIR=str(directory / ".dlt"),
    )
    return environ


def run_file(source: str, directory: Path, base_url: str) -> subprocess.CompletedProcess[str]:
    """Write `source` to `directory/example.py` and run it there with this Python."""
    script = directory / "example.py"
    script.write_text(source, encoding="utf-8")
    return subprocess.run(
        [sys.executable, *WARNINGS, script.name],
        cwd=directory,
        env=environment(base_url, directory),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


async def run_as_pasted(source: str, directory: Path, where: str) -> str:
    """Run `source` alone against a fresh simulator; return its output, or fail with its
    output and `where` it is (the page and line). Its stderr is not judged: Ray and dlt log
    there; a warning fails the run (`-W error`)."""
    async with Simulator(SimulatorConfig(size=EXAMPLES_SIZE)) as simulator:
        done = await asyncio.to_thread(run_file, source, directory, simulator.url)
    assert done.returncode == 0, f"{where} failed when pasted:\n{done.stdout}{done.stderr}"
    return done.stdout
