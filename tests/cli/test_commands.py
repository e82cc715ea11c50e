"""`remedy-async list|get|health|agent-config|serve` as a subprocess against a simulator."""

from __future__ import annotations

import asyncio
import hashlib
import re
import signal
from pathlib import Path

import orjson
import pytest

import remedy_async
from remedy_async.simulator import Simulator, SimulatorConfig
from tests.loopback import CANARY

from .conftest import MISSING, RESOURCES, clean_env, cli, start_cli


async def test_list_streams_jsonl_in_wire_form_with_filters(simulator: Simulator) -> None:
    """list writes one snake_case record per line: the set the published filters select, in
    order, nothing on stderr."""
    outcome = await cli(
        "list", "endpoints", "--base-url", simulator.url,
        "-f", "osFamily=linux", "--has-agent", "true", "--page-size", "7",
    )  # fmt: skip
    assert (outcome.code, outcome.stderr) == (0, "")
    records = outcome.jsonl()
    filters = {"osFamily": "linux", "hasAgent": "true"}
    expected = list(simulator.dataset.ids("endpoints", filters))
    assert expected
    assert [record["id"] for record in records] == expected
    assert {record["operating_system"]["family"] for record in records} == {"linux"}
    assert all(record["agent_id"] is not None for record in records)
    assert "mac_address" in records[0]
    assert "macAddress" not in records[0]


async def test_list_json_csv_and_table_formats(simulator: Simulator) -> None:
    """json is one array, csv has the fixed header, table is for humans; max-items caps all."""
    base = ("list", "endpoints", "--base-url", simulator.url, "--max-items", "5")
    as_json, as_csv, as_table = await asyncio.gather(
        cli(*base, "--format", "json"),
        cli(*base, "--format", "csv"),
        cli(*base, "--format", "table", env=clean_env(COLUMNS="100")),
    )
    ids = list(simulator.dataset.ids("endpoints"))[:5]
    assert as_json.code == as_csv.code == as_table.code == 0
    assert [record["id"] for record in orjson.loads(as_json.stdout)] == ids
    rows = as_csv.csv()
    assert [row["id"] for row in rows] == ids
    assert list(rows[0])[:3] == ["id", "hostname", "ip"]
    assert list(rows[0])[-1] == "extra"
    assert rows[0]["operating_system.family"] in {"windows", "macos", "linux", "other"}
    table = as_table.stdout.decode()
    assert "hostname" in table
    assert all(endpoint_id in table for endpoint_id in ids)
    assert "5 record(s)" in table


async def test_get_prints_found_records_and_exits_1_for_unknown_ids(simulator: Simulator) -> None:
    """get fetches ids in input order; each unknown id is one stderr line and the status is 1."""
    first, second = list(simulator.dataset.ids("scopes"))[:2]
    outcome = await cli("get", "scopes", second, MISSING, first, "--base-url", simulator.url)
    assert outcome.code == 1
    assert [record["id"] for record in outcome.jsonl()] == [second, first]
    (line,) = outcome.stderr.splitlines()
    assert line.startswith(f"remedy-async: scopes/{MISSING}: NotFoundError: 404")
    assert "Scope not found." in line


async def test_get_reads_ids_from_stdin(simulator: Simulator) -> None:
    """`get RESOURCE -` reads one id per line from stdin, skipping blank lines."""
    ids = list(simulator.dataset.ids("endpoints"))[:3]
    outcome = await cli(
        "get", "endpoints", "-", "--format", "csv", "--base-url", simulator.url,
        stdin="\n".join([ids[0], "", *ids[1:]]).encode() + b"\n",
    )  # fmt: skip
    assert (outcome.code, outcome.stderr) == (0, "")
    assert [row["id"] for row in outcome.csv()] == ids


async def test_health_and_agent_configuration_download(
    simulator: Simulator, tmp_path: Path
) -> None:
    """health prints the answer and exits 0; the download lands atomically with its digest."""
    env = clean_env(REMEDY_BASE_URL=simulator.url)
    health, download = await asyncio.gather(
        cli("health", env=env),
        cli("agent-config", "download", "--out", str(tmp_path / "agent.conf"), env=env),
    )
    assert (health.code, health.jsonl()[0]["status"]) == (0, "ok")
    assert download.code == 0, download.stderr
    (summary,) = download.jsonl()
    written = (tmp_path / "agent.conf").read_bytes()
    assert summary["bytes"] == len(written) == simulator.config.agent_configuration_size
    assert summary["sha256"] == hashlib.sha256(written).hexdigest()
    assert [path.name for path in tmp_path.iterdir()] == ["agent.conf"]


REMOTE = ("list", "endpoints", "--base-url", "https://api.example.com")
PYTHON_NAMES = re.compile(r"\b[a-z]+_[a-z_]+=|Traceback|RemedyClient\(")
"""What a command-line user must never read: `allow_insecure_http=`, tracebacks, Python calls."""


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("list", "devices", "--base-url", "http://127.0.0.1:9"), "unknown resource 'devices'"),
        (("list", "endpoints", "--base-url", "http://127.0.0.1:9", "-f", "oops"), "key=value"),
        (("export", "--base-url", "http://127.0.0.1:9"), "--out"),
        (("frobnicate",), "invalid choice"),
        (("serve", "--port", "70000"), "error: --port must be between 0 and 65535"),
        (("list", "endpoints", "--base-url", "http://example.com"), "--allow-insecure-http"),
        (("list", "endpoints", "--base-url", ""), "--base-url is empty"),
        ((*REMOTE, "--auth-header", "bad:header"), "--auth-header must be a header name"),
        ((*REMOTE, "--auth-scheme", "a b"), "--auth-scheme must be one word"),
        ((*REMOTE, "--page-size", "0"), "--page-size: must be at least 1"),
        ((*REMOTE, "-f", "severty=high"), "--filter severty: endpoints has no such filter"),
        (
            (*REMOTE, "--fields", "id,hostnme"),
            "--fields hostnme: endpoints records have no published field 'hostnme'",
        ),
        (
            ("list", "scopes", "--base-url", "https://api.example.com", "-f", "status=active"),
            "--filter status: the service publishes no filters for scopes",
        ),
        ((*REMOTE, "--os-family", "linux", "--os-family", "macos"), "was given already"),
        (
            ("export", "--base-url", "https://api.example.com", "--out", "/proc/remedy/x"),
            "--out /proc/remedy/x:",
        ),
        (("list", "endpoints", "--config", "/nonexistent.toml"), "does not exist"),
        (("--tok", "X", "health"), "unrecognized arguments: --tok X (did you mean --token?)"),
        (
            ("list", "endpoints", "--base-url", "http://127.0.0.1:9", "--max-item", "3"),
            "--max-item 3 (did you mean --max-items?)",
        ),
    ],
    ids=[
        "unknown-resource",
        "bad-filter",
        "missing-out",
        "unknown-command",
        "port",
        "insecure-http",
        "empty-base-url",
        "auth-header",
        "auth-scheme",
        "page-size",
        "filter-typo",
        "fields-typo",
        "no-published-filter",
        "filter-twice",
        "out-unwritable",
        "config-missing",
        "abbreviated-global",
        "abbreviated-option",
    ],
)
async def test_usage_errors_exit_2_with_one_line(args: tuple[str, ...], message: str) -> None:
    """A command line that cannot run exits 2 with one error line naming the flag the user
    typed: no traceback, no Python argument name."""
    outcome = await cli(*args)
    assert outcome.code == 2
    assert outcome.stdout == b""
    (line,) = outcome.stderr.splitlines()
    assert message in line
    assert "error:" in line
    assert not PYTHON_NAMES.search(line), line


async def test_connection_refused_and_404_exit_1(simulator: Simulator) -> None:
    """Network and API errors exit 1 with the error type on one line; --debug adds the trace."""
    refused, missing = await asyncio.gather(
        cli("health", "--base-url", "http://127.0.0.1:9", "--retries", "0"),
        cli("list", "endpoints", "--base-url", simulator.url + "/nowhere", "--debug"),
    )
    assert refused.code == 1
    (line,) = refused.stderr.splitlines()
    assert line.startswith("remedy-async: error: APIConnectionError: ")
    assert missing.code == 1
    assert "Traceback (most recent call last)" in missing.stderr
    assert missing.stderr.splitlines()[-1].startswith("remedy-async: error: NotFoundError: 404")


async def test_the_token_is_never_echoed() -> None:
    """A token given by flag or environment is sent but never printed, even under --debug."""
    config = SimulatorConfig(
        seed=1, size=3, token=CANARY, auth_header="X-API-Key", auth_scheme=None
    )
    async with Simulator(config) as simulator:
        base = ("--base-url", simulator.url, "--auth-header", "X-API-Key", "--auth-scheme", "none")
        by_flag, wrong = await asyncio.gather(
            cli("list", "scopes", "--max-items", "1", "--debug", "--token", CANARY, *base),
            cli("list", "scopes", "--debug", *base, env=clean_env(REMEDY_API_TOKEN="x" + CANARY)),
        )
    assert by_flag.code == 0
    assert len(by_flag.jsonl()) == 1
    assert "[REDACTED]" in by_flag.stderr
    assert wrong.code == 1
    assert "AuthenticationError: 401" in wrong.stderr
    for outcome in (by_flag, wrong):
        assert CANARY not in outcome.stderr
        assert CANARY.encode() not in outcome.stdout


async def test_forced_progress_goes_to_stderr_only(simulator: Simulator) -> None:
    """--progress always draws the meters on stderr while stdout stays pure data."""
    outcome = await cli(
        "list", "vulnerability-findings", "--base-url", simulator.url, "--progress", "always",
        "--page-size", "50",
    )  # fmt: skip
    assert outcome.code == 0
    assert len(outcome.jsonl()) == simulator.dataset.count("vulnerability-findings")
    assert "records/s" in outcome.stderr
    assert "vulnerability" in outcome.stderr
    assert "\x1b[" in outcome.stderr  # drawn as on a terminal


@pytest.mark.parametrize(
    ("signum", "status", "said"),
    [(signal.SIGINT, 130, "interrupted"), (signal.SIGTERM, 143, "terminated")],
    ids=["SIGINT", "SIGTERM"],
)
async def test_serve_runs_the_simulator_until_interrupted(
    signum: signal.Signals, status: int, said: str
) -> None:
    """`remedy-async serve` prints its URL, serves, and exits as documented for a signal: 130
    on Ctrl-C (SIGINT), 143 on SIGTERM."""
    process = await start_cli("serve", "--port", "0", "--size", "5", "--seed", "2")
    try:
        assert process.stdout is not None
        line = (await asyncio.wait_for(process.stdout.readline(), timeout=30)).decode()
        url = line.removeprefix("Remedy simulator listening on ").strip()
        health = await cli("health", "--base-url", url)
        assert (health.code, health.jsonl()[0]["status"]) == (0, "ok")
        process.send_signal(signum)
        _, stderr = await asyncio.wait_for(process.communicate(), timeout=30)
        assert process.returncode == status, stderr
        assert stderr.decode().splitlines()[-1] == f"remedy-async: {said}"
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()


async def test_python_m_and_the_console_script_agree() -> None:
    """The module and the `remedy-async` entry point are the same main()."""
    from remedy_async.__main__ import main as module_main  # noqa: PLC0415
    from remedy_async.cli import main  # noqa: PLC0415

    assert module_main is main
    assert RESOURCES[0] == "endpoints"


async def test_version_prints_the_installed_version() -> None:
    """--version prints the program and the package's version, and exits 0."""
    outcome = await cli("--version")
    assert (outcome.code, outcome.stderr) == (0, "")
    assert outcome.stdout.decode() == f"remedy-async {remedy_async.__version__}\n"


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
async def test_completion_prints_a_script_for_each_shell(shell: str) -> None:
    """`completion SHELL` prints a script that registers remedy-async with that shell."""
    outcome = await cli("completion", shell)
    assert (outcome.code, outcome.stderr) == (0, "")
    script = outcome.stdout.decode()
    assert "remedy-async" in script
    assert "_ARGCOMPLETE" in script


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("remedy-async li", ["list"]),
        ("remedy-async export sc", ["scopes"]),
        ("remedy-async list endpoints --starting", ["--starting-token"]),
        ("remedy-async list scopes --que", ["--query"]),
        ("remedy-async export --que", ["--query"]),
        ("remedy-async api --inc", ["--include"]),
        ("remedy-async --no-pa", ["--no-pager"]),
        ("remedy-async get scopes --no-pa", ["--no-pager"]),
        ("remedy-async serve --max-page", ["--max-page-size"]),
        ("remedy-async serve --naming ca", ["camel"]),
    ],
)
async def test_the_command_completes_its_own_words(
    tmp_path: Path, line: str, expected: list[str]
) -> None:
    """Asked by a shell's completion script, the command answers with the matching words."""
    answer = tmp_path / "completions"
    env = clean_env(
        _ARGCOMPLETE="1",
        _ARGCOMPLETE_IFS="\n",
        COMP_LINE=line,
        COMP_POINT=str(len(line)),
        _ARGCOMPLETE_STDOUT_FILENAME=str(answer),
    )
    outcome = await cli(env=env)
    assert outcome.code == 0, outcome.stderr
    assert [word.strip() for word in answer.read_text().split("\n")] == expected


async def test_a_table_streams_and_fits_the_terminal_width(simulator: Simulator) -> None:
    """Every line fits COLUMNS; long cells end in an ellipsis, never the ids; the count closes
    the table."""
    outcome = await cli(
        "list", "vulnerability-findings", "--base-url", simulator.url, "-o", "table",
        "--fields", "id,title,cve_id,severity", "--page-size", "7",
        env=clean_env(COLUMNS="70"),
    )  # fmt: skip
    assert outcome.code == 0, outcome.stderr
    lines = outcome.stdout.decode().splitlines()
    assert lines[0].split() == ["id", "title", "cve_id", "severity"]
    assert all(len(line) <= 70 for line in lines)
    ids = [line.split()[0] for line in lines[2:-1]]
    assert ids == list(simulator.dataset.ids("vulnerability-findings"))
    assert any("…" in line for line in lines[2:])
    total = len(list(simulator.dataset.ids("vulnerability-findings")))
    assert lines[-1] == f"{total:,} record(s)"
    assert len(lines) == total + 3
