"""`export --concurrency N`: pages fetched in parallel, stopped mid-way, resumed exactly."""

from __future__ import annotations

import asyncio
import io
import os
import signal
from pathlib import Path

import orjson
import pytest

from remedy_async.cli import Terminal, _export
from remedy_async.cli._app import run_until_signalled
from remedy_async.cli._checkpoint import Checkpoint, read_checkpoint, write_checkpoint
from remedy_async.simulator import FaultSpec, Simulator, SimulatorConfig

from .conftest import Gate, cli_here

FINDINGS = "vulnerability-findings"


async def test_a_parallel_export_terminated_mid_way_resumes_every_id_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With --concurrency 8 on an offset list, SIGTERM after a checkpoint while pages are in
    flight exits 3; --resume then writes every id exactly once, in list order."""
    loop = asyncio.get_running_loop()
    saved = asyncio.Event()

    def checkpointed(path: Path, checkpoint: Checkpoint) -> None:
        write_checkpoint(path, checkpoint)
        if checkpoint.records:
            loop.call_soon_threadsafe(saved.set)

    monkeypatch.setattr(_export, "write_checkpoint", checkpointed)
    gate = Gate(passes=3)  # the first page and two of the pages fetched beside each other
    slow = SimulatorConfig(
        seed=7, size=20, paging="offset", faults=[FaultSpec("latency", 1.0, f"list:{FINDINGS}")]
    )
    base = ("export", FINDINGS, "--out", str(tmp_path), "--page-size", "10", "--concurrency", "8")
    stderr = io.StringIO()
    terminal = Terminal(stdout=io.BytesIO(), stderr=stderr, stdin=io.StringIO(), env={})
    async with Simulator(slow, sleep=gate) as simulator:
        running = asyncio.ensure_future(
            run_until_signalled([*base, "--base-url", simulator.url], terminal)
        )
        await asyncio.wait_for(asyncio.gather(saved.wait(), gate.waiting(2)), timeout=30)
        os.kill(os.getpid(), signal.SIGTERM)
        code = await asyncio.wait_for(running, timeout=30)
        gate.open()
    assert code == 3, stderr.getvalue()
    checkpoint = read_checkpoint(tmp_path / f"{FINDINGS}.checkpoint.json")
    assert checkpoint is not None
    total = simulator.dataset.count(FINDINGS)
    assert 0 < checkpoint.records < total

    async with Simulator(SimulatorConfig(seed=7, size=20, paging="offset")) as healthy:
        resumed = await cli_here(*base, "--base-url", healthy.url, "--resume")
        expected = list(healthy.dataset.ids(FINDINGS))
    assert resumed.code == 0, resumed.stderr
    lines = (tmp_path / f"{FINDINGS}.jsonl").read_bytes().splitlines()
    assert [orjson.loads(line)["id"] for line in lines] == expected
