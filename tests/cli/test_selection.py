"""What `list` and `export` select: filter flags on the wire, and an export's filters, --where
and --fields, kept by its checkpoint through a resume. In this process: against the published
contract in a MockTransport, and against simulators that fail, for resumes and signals."""

from __future__ import annotations

import asyncio
import io
import os
import signal
from pathlib import Path

import orjson
import pytest

from remedy_async.cli import Terminal
from remedy_async.cli._app import run_until_signalled
from remedy_async.simulator import FaultSpec, Simulator, SimulatorConfig

from .conftest import Gate, Outcome, Published, cli_here

FINDINGS = "vulnerability-findings"
FAILING = SimulatorConfig(
    seed=0, size=30, faults=[FaultSpec("http-500", 0.3, "list:vulnerability-findings")]
)
"""With seed 0 and no retries, the findings list fails after 3 pages of 50 (146 records: each
page after the first repeats 2 of the one before, issue 33)."""
ENDPOINTS_FAILING = SimulatorConfig(
    seed=0, size=300, faults=[FaultSpec("http-500", 0.3, "list:endpoints")]
)
"""With seed 0 and no retries, the endpoints list fails before its end (pages of 5)."""


async def test_filter_flags_select_what_filter_options_do(published: Published) -> None:
    """--os-family macos --has-agent false sends the same query as -f does, in any spelling."""
    base = ("list", "endpoints", "--base-url", published.url)
    flags = await published.run(*base, "--os-family", "macos", "--has-agent=false")
    options = await published.run(*base, "-f", "osFamily=macos", "-f", "has_agent=false")
    expected = [
        record["id"]
        for record in published.records["endpoints"]
        if record["operating_system"]["family"] == "macos" and record["agent_id"] is None
    ]
    assert flags.code == options.code == 0, flags.stderr + options.stderr
    assert [record["id"] for record in flags.jsonl()] == list(expected)
    assert flags.jsonl()
    assert flags.stdout == options.stdout


async def test_a_filter_value_the_contract_lacks_is_a_usage_error_before_any_request(
    published: Published,
) -> None:
    """--filter osFamily=other (a family the filter does not take) names the flag, the
    published values, and --param."""
    outcome = await published.run(
        "list", "endpoints", "--base-url", published.url, "-f", "osFamily=other"
    )
    assert outcome.code == 2
    assert (
        "--filter osFamily=other: endpoints osFamily is one of macos, windows, linux; "
        "send another value as is with --param osFamily=other" in outcome.stderr
    )
    assert published.requests == []


async def test_export_keeps_the_filtered_records_cut_to_the_fields(
    published: Published, tmp_path: Path
) -> None:
    """A filter flag, --where and --fields shape the file as they shape list's output."""
    selection = (
        "--os-family", "windows", "--where", "agent_id!=null",
        "--fields", "id,operating_system.name,agent_version",
    )  # fmt: skip
    exported = await published.run(
        "export", "endpoints", "--out", str(tmp_path), "--format", "csv",
        "--base-url", published.url, *selection,
    )  # fmt: skip
    listed = await published.run(
        "list", "endpoints", "--base-url", published.url, "--format", "csv", *selection
    )
    assert exported.code == listed.code == 0, exported.stderr + listed.stderr
    content = (tmp_path / "endpoints.csv").read_bytes()
    assert content == listed.stdout
    rows = Outcome(0, content, "").csv()
    assert rows
    assert list(rows[0]) == ["id", "operating_system.name", "agent_version"]
    assert all(row["agent_version"] for row in rows)
    fetched = sum(
        record["operating_system"]["family"] == "windows"
        for record in published.records["endpoints"]
    )
    assert f"{len(rows):,} of {fetched:,} records (--where)" in exported.stderr


async def test_export_refuses_a_filter_flag_of_a_collection_it_does_not_export(
    published: Published, tmp_path: Path
) -> None:
    """Exporting all four, --os-family would not apply to three: a usage error naming it and
    saying the service publishes no filters for them."""
    outcome = await published.run(
        "export", "--out", str(tmp_path), "--base-url", published.url, "--os-family", "macos"
    )
    assert outcome.code == 2
    assert (
        "--os-family: remediation-targets has no such filter (it is a filter of endpoints; "
        "the service publishes no filters for remediation-targets" in outcome.stderr
    )
    assert "name the collections to export, e.g. export endpoints --os-family VALUE" in (
        outcome.stderr
    )
    assert published.requests == []


@pytest.mark.parametrize("command", ["list", "watch"])
async def test_another_command_refusing_a_filter_flag_gives_no_export_advice(
    published: Published, tmp_path: Path, command: str
) -> None:
    """`watch scopes --os-family macos` (and `list`, whose parser knows each collection's
    flags) is refused before any request, saying nothing of exporting."""
    state = ("--state", str(tmp_path / "scopes.db")) if command == "watch" else ()
    outcome = await published.run(
        command, "scopes", *state, "--base-url", published.url, "--os-family", "macos"
    )
    assert outcome.code == 2
    assert "--os-family" in outcome.stderr
    assert "export" not in outcome.stderr
    assert published.requests == []


async def test_a_resume_keeps_where_and_fields_and_refuses_to_change_them(tmp_path: Path) -> None:
    """The checkpoint holds the selection; a resume that changes --where or --fields exits 2
    naming the flag, and one without them goes on with the stored ones. Records --where left
    out still move the resume position: each kept record is written exactly once."""
    args = ("export", FINDINGS, "--out", str(tmp_path), "--page-size", "50", "--retries", "0")
    selection = ("--where", "severity in (critical,high)", "--fields", "id,severity")
    async with Simulator(FAILING) as failing:
        first = await cli_here(*args, "--base-url", failing.url, *selection)
    assert first.code == 3, first.stderr
    checkpoint = orjson.loads((tmp_path / f"{FINDINGS}.checkpoint.json").read_bytes())
    assert (checkpoint["where"], checkpoint["fields"]) == (
        ["severity in (critical,high)"],
        ["id", "severity"],
    )
    assert checkpoint["records"] == 146
    assert 0 < checkpoint["written"] < 146

    async with Simulator(SimulatorConfig(seed=FAILING.seed, size=FAILING.size)) as healthy:
        base = (*args, "--base-url", healthy.url, "--resume")
        other_where = await cli_here(*base, "--where", "severity=low")
        other_fields = await cli_here(*base, "--fields", "id")
        assert healthy.counters.total_requests == 0
        resumed = await cli_here(*base)
        expected = [
            record
            for record in healthy.dataset.records(FINDINGS)
            if record["severity"] in ("critical", "high")
        ]
    assert other_where.code == other_fields.code == 2
    assert (
        "was started with --where 'severity in (critical,high)', not --where severity=low; "
        "resume it with the same --where, or without any to keep them" in other_where.stderr
    )
    assert "was started with --fields id,severity, not --fields id;" in other_fields.stderr
    assert resumed.code == 0, resumed.stderr
    lines = (tmp_path / f"{FINDINGS}.jsonl").read_bytes().splitlines()
    assert [orjson.loads(line) for line in lines] == [
        {"id": record["id"], "severity": record["severity"]} for record in expected
    ]


async def test_a_resume_refuses_other_server_side_filters(tmp_path: Path) -> None:
    """A resume with another filter flag than its start exits 2 naming both spellings."""
    args = ("export", "endpoints", "--out", str(tmp_path), "--page-size", "5", "--retries", "0")
    async with Simulator(ENDPOINTS_FAILING) as failing:
        first = await cli_here(*args, "--base-url", failing.url, "--os-family", "linux")
        changed = await cli_here(
            *args, "--base-url", failing.url, "--resume", "-f", "osFamily=macos"
        )
    assert first.code == 3, first.stderr
    assert changed.code == 2
    assert "was started with --os-family linux, not --os-family macos" in changed.stderr


async def test_sigterm_stops_an_export_given_global_options_first(tmp_path: Path) -> None:
    """With the connection options before the command, SIGTERM still ends an export with
    status 3 and the command that resumes it (global options kept where they were)."""
    gate = Gate()
    config = SimulatorConfig(seed=1, size=5, faults=[FaultSpec("latency", 1.0, "list:*")])
    async with Simulator(config, sleep=gate) as simulator:
        argv = ["--base-url", simulator.url, "export", "scopes", "--out", str(tmp_path)]
        stderr = io.StringIO()
        terminal = Terminal(stdout=io.BytesIO(), stderr=stderr, stdin=io.StringIO(), env={})
        running = asyncio.ensure_future(run_until_signalled(argv, terminal))
        await asyncio.wait_for(gate.waiting(1), timeout=30)
        assert signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL  # handled by the loop
        os.kill(os.getpid(), signal.SIGTERM)
        code = await asyncio.wait_for(running, timeout=30)
        gate.open()
    assert code == 3, stderr.getvalue()
    assert stderr.getvalue().splitlines()[-1] == "remedy-async: terminated"
    assert (
        f"run: remedy-async --base-url {argv[1]} export scopes --out {tmp_path} --resume"
        in stderr.getvalue()
    )
