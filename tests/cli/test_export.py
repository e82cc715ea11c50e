"""`remedy-async export`: atomic files, checkpoints, and resumes after a failure or Ctrl-C."""

from __future__ import annotations

import asyncio
import re
import shlex
import signal
from pathlib import Path

import orjson
import pytest

from remedy_async.simulator import FaultSpec, Simulator, SimulatorConfig

from .conftest import RESOURCES, Outcome, cli, cli_here, start_cli

FAILING = SimulatorConfig(
    seed=0, size=30, faults=[FaultSpec("http-500", 0.3, "list:vulnerability-findings")]
)
"""With seed 0 and no retries, the findings list fails after 3 pages of 50 (146 records: each
page after the first repeats 2 of the one before, issue 33)."""


def exported_ids(directory: Path, resource: str) -> list[str]:
    lines = (directory / f"{resource}.jsonl").read_bytes().splitlines()
    return [orjson.loads(line)["id"] for line in lines]


def assert_complete(directory: Path, simulator: Simulator) -> None:
    """Every resource's file holds exactly the simulator's records, once; nothing else is left."""
    for resource in RESOURCES:
        assert exported_ids(directory, resource) == list(simulator.dataset.ids(resource))
    assert sorted(path.name for path in directory.iterdir()) == [
        f"{resource}.jsonl" for resource in RESOURCES
    ]


async def test_export_writes_every_collection_once(simulator: Simulator, tmp_path: Path) -> None:
    """All four collections are exported by default; csv is chosen per run, header first."""
    out = tmp_path / "out"
    jsonl, csv = await asyncio.gather(
        cli("export", "--out", str(out), "--base-url", simulator.url, "--page-size", "30"),
        cli(
            "export", "scopes", "endpoints", "scopes", "--out", str(tmp_path / "csv"),
            "--format", "csv", "--base-url", simulator.url,
        ),
    )  # fmt: skip
    assert (jsonl.code, jsonl.stdout) == (0, b""), jsonl.stderr
    assert_complete(out, simulator)
    assert "vulnerability-findings: " in jsonl.stderr
    assert " records in " in jsonl.stderr
    assert csv.code == 0, csv.stderr
    assert sorted(path.name for path in (tmp_path / "csv").iterdir()) == [
        "endpoints.csv",
        "scopes.csv",
    ]
    rows = Outcome(0, (tmp_path / "csv" / "scopes.csv").read_bytes(), "").csv()
    assert [row["id"] for row in rows] == list(simulator.dataset.ids("scopes"))


async def test_a_failed_export_resumes_against_a_healthy_service(tmp_path: Path) -> None:
    """A persistent error leaves a checkpointed .part file; --resume completes it exactly once."""
    async with Simulator(FAILING) as failing:
        first = await cli(
            "export", "--out", str(tmp_path), "--base-url", failing.url,
            "--page-size", "50", "--retries", "0",
        )  # fmt: skip
    assert first.code == 3
    assert "vulnerability-findings: stopped after 146 records: ServerError: 500" in first.stderr
    assert "--resume" in first.stderr.splitlines()[-1]
    checkpoint = orjson.loads((tmp_path / "vulnerability-findings.checkpoint.json").read_bytes())
    assert checkpoint["records"] == 146
    assert (checkpoint["format"], checkpoint["pageSize"]) == ("jsonl", 50)
    part = tmp_path / "vulnerability-findings.jsonl.part"
    assert part.stat().st_size == checkpoint["bytes"]
    with part.open("ab") as file:  # a crash after the checkpoint: bytes it does not cover
        file.write(b'{"id":"half a rec')

    healthy = SimulatorConfig(seed=FAILING.seed, size=FAILING.size)
    async with Simulator(healthy) as simulator:
        refused = await cli("export", "--out", str(tmp_path), "--base-url", simulator.url)
        assert refused.code == 2
        assert "unfinished export of vulnerability-findings" in refused.stderr
        resumed = await cli(
            "export", "--out", str(tmp_path), "--base-url", simulator.url, "--resume"
        )
        assert resumed.code == 0, resumed.stderr
        assert "endpoints: already complete" in resumed.stderr
        assert_complete(tmp_path, simulator)


async def test_an_interrupted_export_exits_130_and_resumes(tmp_path: Path) -> None:
    """SIGINT after the first checkpoint exits 130; --resume then completes every file."""
    slow = SimulatorConfig(
        seed=5, size=20, faults=[FaultSpec("latency", 1.0, "list:*", latency_ms=40)]
    )
    args = ("export", "--out", str(tmp_path), "--page-size", "10")
    async with Simulator(slow) as simulator:
        process = await start_cli(*args, "--base-url", simulator.url)
        checkpoint = tmp_path / "vulnerability-findings.checkpoint.json"
        try:
            while not (checkpoint.exists() and orjson.loads(checkpoint.read_bytes())["records"]):
                assert process.returncode is None, "the export ended before it was interrupted"
                await asyncio.sleep(0.02)
            process.send_signal(signal.SIGINT)
            _, stderr = await asyncio.wait_for(process.communicate(), timeout=30)
        finally:
            if process.returncode is None:
                process.kill()
                await process.wait()
        assert process.returncode == 130, stderr.decode()
        assert stderr.decode().splitlines()[-1] == "remedy-async: interrupted"
    assert (tmp_path / "vulnerability-findings.jsonl.part").exists()
    assert not (tmp_path / "vulnerability-findings.jsonl").exists()
    async with Simulator(SimulatorConfig(seed=slow.seed, size=slow.size)) as simulator:
        resumed = await cli(*args, "--base-url", simulator.url, "--resume")
        assert resumed.code == 0, resumed.stderr
        assert_complete(tmp_path, simulator)


async def test_sigterm_saves_the_checkpoint_prints_the_resume_command_and_exits_3(
    tmp_path: Path,
) -> None:
    """SIGTERM mid-export stops after the last checkpoint, names the command that resumes it
    and exits 3 without a traceback; that command then completes every file exactly once."""
    slow = SimulatorConfig(
        seed=6, size=20, faults=[FaultSpec("latency", 1.0, "list:*", latency_ms=40)]
    )
    async with Simulator(slow) as simulator:
        args = ("export", "--out", str(tmp_path), "--page-size", "10", "--base-url", simulator.url)
        process = await start_cli(*args)
        checkpoint = tmp_path / "vulnerability-findings.checkpoint.json"
        try:
            while not (checkpoint.exists() and orjson.loads(checkpoint.read_bytes())["records"]):
                assert process.returncode is None, "the export ended before it was terminated"
                await asyncio.sleep(0.02)
            process.send_signal(signal.SIGTERM)
            _, stderr = await asyncio.wait_for(process.communicate(), timeout=30)
        finally:
            if process.returncode is None:
                process.kill()
                await process.wait()
    text = stderr.decode()
    assert process.returncode == 3, text
    assert "Traceback" not in text
    resume = next(line for line in text.splitlines() if "to continue where it stopped" in line)
    command = shlex.split(resume.split("run: ", 1)[1])
    assert command[:2] == ["remedy-async", "export"]
    assert command[-1] == "--resume"
    async with Simulator(SimulatorConfig(seed=slow.seed, size=slow.size)) as healthy:
        given = command[1:]
        given[given.index("--base-url") + 1] = healthy.url
        resumed = await cli(*given)
        assert resumed.code == 0, resumed.stderr
        assert_complete(tmp_path, healthy)


async def test_export_to_a_log_prints_progress_lines(tmp_path: Path) -> None:
    """With stderr not a terminal, progress is a line now and then; --quiet silences it."""
    slow = SimulatorConfig(
        seed=5, size=10, faults=[FaultSpec("latency", 1.0, "list:*", latency_ms=30)]
    )
    async with Simulator(slow) as simulator:
        base = ("export", "--base-url", simulator.url, "--page-size", "20", "--progress-every")
        logged = await cli(*base, "0.05", "--out", str(tmp_path / "a"))
        quiet = await cli(*base, "0.05", "--quiet", "--out", str(tmp_path / "b"))
    assert logged.code == quiet.code == 0
    lines = [line for line in logged.stderr.splitlines() if " records, " in line]
    assert any(line.startswith("remedy-async: vulnerability-findings: ") for line in lines)
    # The published envelope announces its total: share and ETA follow the rate.
    assert all(
        re.search(r" records, [\d,]+/s(, \d+% of [\d,]+(, ETA [\d:]+)?)?$", line) for line in lines
    )
    assert not [line for line in quiet.stderr.splitlines() if "/s" in line]


async def test_quiet_export_says_nothing_but_errors(simulator: Simulator, tmp_path: Path) -> None:
    """`export -q` writes no summary line when it succeeds, and still says what failed."""
    done = await cli("export", "-q", "--base-url", simulator.url, "--out", str(tmp_path / "a"))
    assert (done.code, done.stderr) == (0, "")
    assert_complete(tmp_path / "a", simulator)
    async with Simulator(FAILING) as failing:
        stopped = await cli(
            "export", "vulnerability-findings", "-q", "--base-url", failing.url, "--retries",
            "0", "--page-size", "50", "--out", str(tmp_path / "b"),
        )  # fmt: skip
    assert stopped.code == 3
    assert "vulnerability-findings: stopped after 146 records: ServerError: 500" in stopped.stderr
    assert "--resume" in stopped.stderr.splitlines()[-1]


async def test_export_to_stdout_is_a_usage_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`--out -` exits 2 saying export writes files (list writes stdout); nothing is created."""
    monkeypatch.chdir(tmp_path)
    refused = await cli_here("export", "--out", "-", "--base-url", "http://127.0.0.1:9")
    assert refused.code == 2
    assert "export writes files into a directory" in refused.stderr
    assert "remedy-async list RESOURCE" in refused.stderr
    assert list(tmp_path.iterdir()) == []


async def test_an_export_of_a_list_that_moves_says_what_proving_it_cost(tmp_path: Path) -> None:
    """Records added and removed between pages: every record is written once, and the summary
    line says how often the data moved under the list."""
    config = SimulatorConfig(host="127.0.0.1", port=0, size=200, churn=0.02, churn_every=1, seed=3)
    async with Simulator(config) as simulator:
        outcome = await cli_here(
            "export", "endpoints", "--out", str(tmp_path), "--page-size", "20",
            "--base-url", simulator.url, "--progress", "never",
        )  # fmt: skip
    assert outcome.code == 0, outcome.stderr
    ids = [
        orjson.loads(line)["id"]
        for line in (tmp_path / "endpoints.jsonl").read_bytes().split(b"\n")
        if line
    ]
    assert len(ids) == len(set(ids))
    assert re.search(
        r"endpoints: [\d,]+ records in .*, data moved: \d+ (realigned|re-read)", outcome.stderr
    ), outcome.stderr
