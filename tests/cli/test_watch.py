"""`remedy-async watch`: changes as JSON lines, exit statuses, and a watcher killed with SIGKILL
at random points that, restarted on its state, delivers every change and invents none. In
this process against the published contract in a MockTransport, and against simulators (a
failing pass, signals, kills)."""

from __future__ import annotations

import asyncio
import random
import signal
from pathlib import Path
from typing import Any

import orjson
import pytest

from remedy_async import ChangeState
from remedy_async.simulator import FaultSpec, Simulator, SimulatorConfig
from tests.cli.conftest import SMALL, Published, cli_here, start_cli
from tests.published import dataset

ENDPOINTS = "endpoints"


async def test_once_writes_every_change_as_a_json_line(tmp_path: Path) -> None:
    """A first pass writes every record as added; after changes, a pass writes exactly
    them (with the fields changed); each run says how its pass went and exits 0."""
    state = str(tmp_path / "s.db")
    service = Published(dataset(4, {**SMALL, ENDPOINTS: 6}))
    args = ("watch", ENDPOINTS, "--state", state, "--once", "--base-url", service.url)
    first = await service.run(*args)
    records = service.records[ENDPOINTS]
    ids = service.ids(ENDPOINTS)
    first_record = dict(records[0])
    records[1] = {**records[1], "updated_at": "2033-05-18T03:33:20Z"}
    modified = records[1]
    del records[4]
    second = await service.run(*args, "--page-size", "2")
    assert first.code == 0, first.stderr
    assert [(line["kind"], line["id"]) for line in first.jsonl()] == [("added", i) for i in ids]
    assert first.jsonl()[0]["record"] == first_record
    assert "pass 1 (full) complete: 6 listed, 6 added" in first.stderr
    assert second.code == 0, second.stderr
    assert second.jsonl() == [
        {
            "kind": "modified",
            "id": ids[1],
            "record": modified,
            "changed": ["updated_at"],
            "pass": 2,
        },
        {"kind": "removed", "id": ids[4], "record": None, "changed": [], "pass": 2},
    ]


async def test_trust_updated_at_skips_records_whose_stamp_did_not_move(tmp_path: Path) -> None:
    """With --trust-updated-at a record changed under the same updated_at is not written, one
    whose stamp moved is; a run without the flag, on the same state, writes the first."""
    state = str(tmp_path / "s.db")
    service = Published(dataset(4, {**SMALL, ENDPOINTS: 6}))
    args = ("watch", ENDPOINTS, "--state", state, "--once", "--base-url", service.url)
    first = await service.run(*args, "--trust-updated-at")
    records, ids = service.records[ENDPOINTS], service.ids(ENDPOINTS)
    records[0] = {**records[0], "hostname": "renamed"}
    records[3] = {**records[3], "hostname": "renamed", "updated_at": "2033-05-18T03:33:20Z"}
    trusting = await service.run(*args, "--trust-updated-at")
    comparing = await service.run(*args)
    assert (first.code, trusting.code, comparing.code) == (0, 0, 0), trusting.stderr
    assert [(line["id"], line["changed"]) for line in trusting.jsonl()] == [
        (ids[3], ["hostname", "updated_at"])
    ]
    assert [(line["id"], line["changed"]) for line in comparing.jsonl()] == [(ids[0], ["hostname"])]


async def test_a_state_in_use_is_a_usage_error(tmp_path: Path) -> None:
    """A state another watcher holds exits 2, naming --state and the holder."""
    state = tmp_path / "s.db"
    service = Published()
    with ChangeState(state):
        outcome = await service.run(
            "watch", ENDPOINTS, "--state", str(state), "--once", "--base-url", service.url
        )
    assert outcome.code == 2
    assert f"--state {state}: change state" in outcome.stderr
    assert "in use by another watcher" in outcome.stderr


async def test_a_failed_pass_exits_3_and_the_next_run_continues_it(tmp_path: Path) -> None:
    """A pass whose list fails exits 3 saying to run again; that run lists the rest."""
    state = str(tmp_path / "s.db")
    config = SimulatorConfig(seed=2, size=8, faults=[FaultSpec("http-503", 1.0, "list:*")])
    async with Simulator(config) as failing:
        args = ("watch", ENDPOINTS, "--state", state, "--once", "--retries", "0")
        failed = await cli_here(*args, "--base-url", failing.url)
    async with Simulator(SimulatorConfig(seed=2, size=8)) as healthy:
        done = await cli_here(*args, "--base-url", healthy.url)
    assert failed.code == 3
    assert "pass 1 (full) stopped" in failed.stderr
    assert "ServerError" in failed.stderr
    assert "run the same command again" in failed.stderr
    assert done.code == 0, done.stderr
    assert len(done.jsonl()) == 8


async def test_filters_narrow_the_watch_and_tie_the_state(tmp_path: Path) -> None:
    """Filter flags go to the list; the same state with other filters is a usage error."""
    state = str(tmp_path / "s.db")
    service = Published()
    args = ("watch", ENDPOINTS, "--state", state, "--once", "--base-url", service.url)
    macs = await service.run(*args, "--os-family", "macos")
    other = await service.run(*args, "--os-family", "windows")
    expected = [
        record["id"]
        for record in service.records[ENDPOINTS]
        if record["operating_system"]["family"] == "macos"
    ]
    assert expected
    assert [line["id"] for line in macs.jsonl()] == expected
    assert other.code == 2
    assert "follows endpoints with filters" in other.stderr


async def test_sigterm_between_passes_exits_3_and_keeps_the_state(tmp_path: Path) -> None:
    """A watch terminated while it waits for its next pass says so and exits 3; the next run
    on its state has nothing new to say."""
    state = str(tmp_path / "s.db")
    async with Simulator(SimulatorConfig(seed=9, size=5)) as simulator:
        args = ("watch", ENDPOINTS, "--state", state, "--base-url", simulator.url)
        process = await start_cli(*args, "--interval", "600")
        assert process.stderr is not None
        try:
            line = await asyncio.wait_for(process.stderr.readline(), timeout=30)
            assert b"pass 1 (full) complete" in line
            process.send_signal(signal.SIGTERM)
            stdout, stderr = await asyncio.wait_for(process.communicate(), timeout=30)
        finally:
            if process.returncode is None:
                process.kill()
                await process.wait()
        again = await cli_here(*args, "--once")
    assert process.returncode == 3, stderr.decode()
    assert stderr.decode().splitlines()[-1] == "remedy-async: terminated"
    assert len(stdout.splitlines()) == 5
    assert again.code == 0
    assert again.stdout == b""


def apply(snapshot: dict[str, Any], lines: list[dict[str, Any]]) -> None:
    """Apply changes to a consumer's copy, by id (idempotent, as the docs advise)."""
    for line in lines:
        if line["kind"] == "removed":
            snapshot.pop(line["id"], None)
        else:
            snapshot[line["id"]] = line["record"]


async def run_until_killed(
    args: tuple[str, ...], simulator: Simulator, chooser: random.Random
) -> tuple[list[dict[str, Any]], bool]:
    """Run `watch`, SIGKILL it at a random point (after some lines, or some list requests, or
    at once), and return every line it wrote, and whether it finished before the kill."""
    process = await start_cli(*args)
    assert process.stdout is not None
    lines: list[bytes] = []
    requests = simulator.counters.requests
    before = requests.get(f"list:{ENDPOINTS}", 0)
    after_lines, after_requests = chooser.randint(0, 40), chooser.randint(1, 12)
    by_lines = chooser.random() < 0.5
    try:
        while process.returncode is None:
            if by_lines and len(lines) >= after_lines:
                break
            if not by_lines and requests.get(f"list:{ENDPOINTS}", 0) - before >= after_requests:
                break
            try:
                line = await asyncio.wait_for(process.stdout.readline(), timeout=0.02)
            except TimeoutError:
                continue
            if not line:  # the end of its output: it is exiting
                await asyncio.wait_for(process.wait(), timeout=30)
                break
            lines.append(line)
    finally:
        finished = process.returncode is not None
        if not finished:
            process.send_signal(signal.SIGKILL)
        rest, _ = await asyncio.wait_for(process.communicate(), timeout=30)
    lines += rest.splitlines(keepends=True)
    return [orjson.loads(line) for line in lines if line.strip()], finished


def owe(owed: dict[str, str], kind: str, ids: tuple[str, ...]) -> None:
    """Note the change a consumer is owed for each id a churn step touched, merged with one it
    is still owed: added then removed is nothing, removed then added back is a modification."""
    for record_id in ids:
        old = owed.pop(record_id, None)
        if old == "added":
            new = None if kind == "removed" else "added"
        elif old == "removed" and kind == "added":
            new = "modified"
        else:
            new = kind
        if new is not None:
            owed[record_id] = new


@pytest.mark.parametrize("seed", [11, 12])
async def test_a_watcher_killed_anywhere_delivers_every_change_and_no_false_removal(
    tmp_path: Path, seed: int
) -> None:
    """SIGKILLed at random points between changes to the data, restarted on the same state:
    every change reaches stdout at least once, no removal names a record that exists, and
    the changes applied by id give exactly the collection."""
    chooser = random.Random(seed)
    latency = FaultSpec("latency", 1.0, "list:*", latency_ms=15)
    config = SimulatorConfig(seed=seed, size=30, faults=[latency])
    snapshot: dict[str, Any] = {}
    async with Simulator(config) as simulator:
        dataset = simulator.dataset
        args = ("watch", ENDPOINTS, "--state", str(tmp_path / "s.db"), "--once")
        args += ("--page-size", "3", "--base-url", simulator.url, "--quiet")
        owed = dict.fromkeys(dataset.ids(ENDPOINTS), "added")
        for run in range(9):
            present = set(dataset.ids(ENDPOINTS))
            last = run >= 6  # the last runs go to their end: passes left undone, then clean
            lines, finished = await run_until_killed(args, simulator, _Never() if last else chooser)
            assert finished or not last
            apply(snapshot, lines)
            removed = {line["id"] for line in lines if line["kind"] == "removed"}
            assert removed.isdisjoint(present), "a removal named a record that exists"
            for line in lines:
                if owed.get(line["id"]) == line["kind"]:
                    del owed[line["id"]]
            if not last:
                # a minute apart, so that every modification changes the content
                step = dataset.churn(ENDPOINTS, rate=0.1, at=2_000_000_000 + 60 * run)
                owe(owed, "removed", step.removed)
                owe(owed, "modified", step.modified)
                owe(owed, "added", step.added)
        truth = {record["id"]: record for record in dataset.records(ENDPOINTS)}
    assert snapshot == truth
    assert owed == {}


class _Never(random.Random):
    """A chooser whose kill never comes: lines and requests far beyond any pass."""

    def randint(self, a: int, b: int) -> int:
        return 10**9

    def random(self) -> float:
        return 0.0


async def test_watch_help_offers_no_where(capsys: pytest.CaptureFixture[str]) -> None:
    """`watch --help` no longer offers --where, which watch does not take (it refuses it)."""
    outcome = await cli_here("watch", "--help")
    shown = " ".join(capsys.readouterr().out.split())
    assert outcome.code == 0
    assert "send a query parameter it has and does not publish as is with --param" in shown
    assert "--where" not in shown
