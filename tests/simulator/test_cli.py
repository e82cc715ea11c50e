"""`python -m remedy_async.simulator`: options, configuration, and a real process."""

from __future__ import annotations

import argparse
import asyncio
import io
import os
import signal
import subprocess
import sys
import tomllib
from datetime import UTC, datetime
from pathlib import Path

import aiohttp
import pytest

import remedy_async.simulator
from remedy_async import CONVENTIONS
from remedy_async.cli import Terminal, run
from remedy_async.simulator import (
    FaultKind,
    Simulator,
    SimulatorConfig,
    add_serve_arguments,
    config_from_args,
)
from remedy_async.simulator.__main__ import main

from .helpers import RecordingSleep, get_json


def parse(*argv: str) -> SimulatorConfig:
    parser = argparse.ArgumentParser()
    add_serve_arguments(parser)
    return config_from_args(parser.parse_args(argv))


def test_no_options_give_the_default_configuration() -> None:
    """Without options the CLI serves the default configuration."""
    assert parse() == SimulatorConfig()


def test_every_option_reaches_the_configuration() -> None:
    """Each option sets its SimulatorConfig field."""
    config = parse(
        "--host", "0.0.0.0", "--port", "8080", "--seed", "9", "--size", "500",
        "--paging", "link", "--disguise-paging", "--items-key", "results", "--page-size", "50",
        "--max-page-size", "500", "--token", "T", "--auth-header", "X-API-Key",
        "--auth-scheme", "none", "--error-format", "problem", "--rate-limit", "20",
        "--no-cache", "--agent-configuration-size", "1024", "--id-prefix", "p:",
        "--health-path", "/healthz", "--agent-configuration-path", "/agent",
        "--strict-params", "--naming", "camel",
    )  # fmt: skip
    assert (config.host, config.port, config.seed, config.size) == ("0.0.0.0", 8080, 9, 500)
    assert (config.paging, config.disguise_paging, config.items_key) == ("link", True, "results")
    assert (config.page_size, config.max_page_size) == (50, 500)
    assert (config.token, config.auth_header, config.auth_scheme) == ("T", "X-API-Key", None)
    assert (config.error_format, config.rate_limit, config.cache) == ("problem", 20, False)
    assert (config.agent_configuration_size, config.id_prefix) == (1024, "p:")
    assert (config.health_path, config.agent_configuration_path) == ("/healthz", "/agent")
    assert (config.strict_params, config.naming) == (True, "camel")


def test_order_and_churn_count_reach_the_configuration() -> None:
    """`--order` picks the lists' order and `--churn-count` changes that many records every
    `--churn-every` list requests (1: between every two pages)."""
    config = parse("--order", "updated", "--churn-count", "2", "--churn-every", "1")
    assert (config.order, config.churn_count, config.churn_every) == ("updated", 2, 1)
    assert (config.churn, config.churning) == (0.0, True)
    assert (parse().order, parse().churn_count) == ("created", None)


async def test_the_order_flag_reorders_a_served_list(fake_sleep: RecordingSleep) -> None:
    """A run from the command line with `--order updated` serves a modified record last."""
    config = parse("--order", "updated", "--size", "10")
    async with Simulator(config, sleep=fake_sleep) as sim, aiohttp.ClientSession() as session:
        ids = list(sim.dataset.ids("endpoints"))
        sim.dataset.modify("endpoints", [ids[0]], at=2_000_000_000)
        status, body, _ = await get_json(session, f"{sim.url}/v1/endpoints")
    assert status == 200
    assert [record["id"] for record in body["data"]] == [*ids[1:], ids[0]]


def test_the_tenant_options_reach_the_configuration() -> None:
    """`--tenants`, `--tenant-skew`, `--tenant-rate-limit`, `--tenant-rate-window` and
    `--write-tenants` set the tenants' settings."""
    config = parse(
        "--tenants", "3", "--tenant-skew", "0.6", "--tenant-rate-limit", "20",
        "--tenant-rate-window", "2.5", "--write-tenants", "keys",
    )  # fmt: skip
    assert (config.tenants, config.tenant_skew) == (3, 0.6)
    assert (config.tenant_rate_limit, config.tenant_rate_window) == (20, 2.5)
    assert config.tenants_directory == "keys"


async def test_a_run_of_tenants_from_the_command_line_serves_each_token(
    fake_sleep: RecordingSleep, session: aiohttp.ClientSession
) -> None:
    """A run made from `--tenants 2 --size 10` serves each tenant's records to its token."""
    config = parse("--tenants", "2", "--size", "10")
    async with Simulator(config, sleep=fake_sleep) as sim:
        for tenant in sim.tenants:
            headers = {"Authorization": f"Bearer {tenant.token}"}
            _, body, _ = await get_json(session, f"{sim.url}/v1/endpoints", None, headers)
            assert [record["id"] for record in body["data"]] == list(
                tenant.dataset.ids("endpoints")
            )


def test_now_sets_the_simulators_present() -> None:
    """--now takes an ISO 8601 time (UTC without an offset) for SimulatorConfig.now."""
    assert parse("--now", "2024-06-01T02:00:00+02:00").now == datetime(2024, 6, 1, tzinfo=UTC)
    assert parse("--now", "2024-06-01").now == datetime(2024, 6, 1, tzinfo=UTC)


def test_a_bad_now_names_the_option() -> None:
    """An unreadable --now is a ValueError naming the option."""
    with pytest.raises(ValueError, match="--now must be an ISO 8601"):
        parse("--now", "soon")


def test_faults_are_repeatable_and_take_the_fault_options() -> None:
    """--fault KIND:RATE[:ROUTE] repeats; --latency-ms etc. fill in the parameters."""
    config = parse(
        "--fault", "latency:0.5", "--fault", "http-429:0.1:list:*,get:scopes",
        "--latency-ms", "20", "--jitter-ms", "5", "--retry-after", "3",
        "--retry-after-format", "http-date", "--stall-seconds", "2",
    )  # fmt: skip
    latency, limited = config.faults
    assert (latency.kind, latency.rate, latency.routes) == (FaultKind.LATENCY, 0.5, None)
    assert (latency.latency_ms, latency.jitter_ms, latency.stall_seconds) == (20, 5, 2)
    assert (limited.kind, limited.routes) == (FaultKind.HTTP_429, ("list:*", "get:scopes"))
    assert (limited.retry_after, limited.retry_after_format) == (3, "http-date")


async def test_latency_ms_alone_delays_every_request(
    session: aiohttp.ClientSession, fake_sleep: RecordingSleep
) -> None:
    """--latency-ms without a latency --fault delays each request of every route by it."""
    config = parse("--latency-ms", "20", "--size", "3")
    async with Simulator(config, sleep=fake_sleep) as simulator:
        for path in ("/v1/endpoints", "/v1/scopes", "/v1/health"):
            status, _, _ = await get_json(session, simulator.url + path)
            assert status == 200
    assert fake_sleep.calls == [0.02, 0.02, 0.02]


def test_jitter_ms_alone_delays_every_request_by_up_to_it() -> None:
    """--jitter-ms without a latency --fault adds a delay of 0 to that many ms everywhere."""
    (every,) = parse("--jitter-ms", "5").faults
    assert (every.kind, every.rate, every.routes) == (FaultKind.LATENCY, 1.0, None)
    assert (every.latency_ms, every.jitter_ms) == (0, 5)


def test_latency_ms_beside_other_faults_still_delays_every_request() -> None:
    """Faults of other kinds do not take --latency-ms for themselves."""
    failing, every = parse("--fault", "http-500:0.1", "--latency-ms", "20").faults
    assert failing.kind is FaultKind.HTTP_500
    assert (every.kind, every.rate, every.latency_ms) == (FaultKind.LATENCY, 1.0, 20)


@pytest.mark.parametrize("name", list(CONVENTIONS))
def test_every_convention_is_a_paging_option(name: str) -> None:
    """--paging takes the name of any convention of the client's table."""
    assert parse("--paging", name).paging == name


def check_listing(text: str) -> None:
    """One line per convention, in the table's order: its name, then its summary."""
    lines = text.splitlines()
    assert len(lines) == len(CONVENTIONS)
    for line, (name, row) in zip(lines, CONVENTIONS.items(), strict=True):
        assert line.split()[0] == name
        assert line.endswith(row.summary)


def test_paging_list_prints_every_convention(capsys: pytest.CaptureFixture[str]) -> None:
    """`--paging list` prints the conventions and exits 0 without serving."""
    assert main(["--paging", "list"]) == 0
    check_listing(capsys.readouterr().out)


async def test_remedy_async_serve_paging_list_prints_every_convention() -> None:
    """`remedy-async serve --paging list` prints the same table and exits 0."""
    stdout, stderr = io.BytesIO(), io.StringIO()
    terminal = Terminal(stdout=stdout, stderr=stderr, stdin=io.StringIO(), env={})
    assert await run(["serve", "--paging", "list"], terminal) == 0, stderr.getvalue()
    check_listing(stdout.getvalue().decode())


@pytest.mark.parametrize(
    "argv",
    [
        ["--fault", "boom:1"],
        ["--page-size", "5000"],
        ["--paging", "scroll"],
        ["--order", "newest"],
        ["--churn-count", "two"],
    ],
)
def test_bad_options_exit_with_status_2(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    """Invalid options are reported as usage errors (exit status 2)."""
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    assert exit_info.value.code == 2
    assert "error:" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--port", "99999"], "error: --port must be between 0 and 65535, got 99999"),
        (["--page-size", "2000"], "error: --page-size (2000) must not exceed --max-page-size"),
        (["--fault", "http-503:2"], "error: --fault 'http-503:2': rate must be between 0 and 1"),
        (["--latency-ms", "-5"], "error: --latency-ms must not be negative"),
        (["--churn-count", "0"], "error: --churn-count must be at least 1, or None; got 0"),
        (
            ["--churn", "0.1", "--churn-count", "2"],
            "error: give --churn (a share, 0.1) or --churn-count (a number, 2), not both",
        ),
        (
            ["--health-path", "/a", "--agent-configuration-path", "/a"],
            "error: --health-path and --agent-configuration-path must differ",
        ),
        (
            ["--write-tenants", "keys"],
            "error: --write-tenants needs --tenants, 1 or more (this run has none)",
        ),
        (
            ["--tenants", "2", "--token", "t"],
            "error: --token must be None with --tenants: each tenant has its own",
        ),
        (["--tenants", "2", "--tenant-skew", "1"], "error: --tenant-skew must be between 0 and 1"),
    ],
    ids=[
        "port",
        "page-sizes",
        "fault-rate",
        "latency",
        "churn-count",
        "churn-both",
        "paths",
        "write-tenants",
        "tenants-token",
        "tenant-skew",
    ],
)
def test_a_bad_value_is_reported_by_its_option(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """A value the configuration refuses is named by the option the user typed, not the
    setting's Python name."""
    with pytest.raises(SystemExit):
        main(argv)
    assert message in capsys.readouterr().err


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
async def test_cli_serves_until_interrupted(
    session: aiohttp.ClientSession, signum: signal.Signals
) -> None:
    """The process prints its URL, answers health, and exits 0 on SIGINT or SIGTERM."""
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "remedy_async.simulator", "--port", "0", "--size", "5",
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env={**os.environ, "PYTHONWARNINGS": "error"},
    )  # fmt: skip
    try:
        assert process.stdout is not None
        line = (await asyncio.wait_for(process.stdout.readline(), timeout=30)).decode()
        prefix = "Remedy simulator listening on "
        assert line.startswith(prefix), line
        url = line[len(prefix) :].strip()
        status, body, _ = await get_json(session, f"{url}/v1/health")
        assert (status, body["status"]) == (200, "ok")
        process.send_signal(signum)
        _, stderr = await asyncio.wait_for(process.communicate(), timeout=30)
        assert process.returncode == 0, stderr.decode()
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()


async def test_remedy_async_serve_refuses_a_tenants_file_without_tenants(tmp_path: Path) -> None:
    """`remedy-async serve --write-tenants DIR` without `--tenants` is a usage error (2)."""
    stdout, stderr = io.BytesIO(), io.StringIO()
    terminal = Terminal(stdout=stdout, stderr=stderr, stdin=io.StringIO(), env={})
    assert await run(["serve", "--write-tenants", str(tmp_path)], terminal) == 2
    assert "--write-tenants needs --tenants" in stderr.getvalue()
    assert list(tmp_path.iterdir()) == []


async def test_cli_writes_the_tenants_file_once_listening(
    session: aiohttp.ClientSession, tmp_path: Path
) -> None:
    """With `--write-tenants DIR` the process prints the tenants file's path after its URL;
    the file names the URL it serves at, and its tokens pass."""
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "remedy_async.simulator", "--port", "0", "--size", "6",
        "--tenants", "2", "--write-tenants", str(tmp_path / "keys"),
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env={**os.environ, "PYTHONWARNINGS": "error"},
    )  # fmt: skip
    try:
        assert process.stdout is not None
        lines = [
            (await asyncio.wait_for(process.stdout.readline(), timeout=30)).decode()
            for _ in range(2)
        ]
        url = lines[0].removeprefix("Remedy simulator listening on ").strip()
        path = tmp_path / "keys" / "tenants.toml"
        assert lines[1] == f"Remedy simulator tenants file: {path}\n"
        tables = tomllib.loads(path.read_text())["tenant"]
        assert [table["base_url"] for table in tables] == [url, url]
        token = (path.parent / tables[1]["token_file"]).read_text()
        headers = {"Authorization": f"Bearer {token}"}
        assert (await get_json(session, f"{url}/v1/scopes", None, headers))[0] == 200
        process.send_signal(signal.SIGINT)
        _, stderr = await asyncio.wait_for(process.communicate(), timeout=30)
        assert process.returncode == 0, stderr.decode()
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()


SERVER_MODULES = (
    "aiohttp.web",
    "remedy_async.simulator._server",
    "remedy_async.simulator._handler",
    "remedy_async.simulator._dataset",
    "remedy_async.simulator._openapi",
)
"""What serving needs and adding the options does not."""


def test_adding_the_options_imports_neither_the_server_nor_its_data() -> None:
    """`add_serve_arguments` (what `remedy-async --help` uses) leaves the server, aiohttp.web,
    the data set and the OpenAPI builder unimported, in a fresh process."""
    program = (
        "import argparse, sys\n"
        "from remedy_async.simulator import add_serve_arguments\n"
        "add_serve_arguments(argparse.ArgumentParser())\n"
        "print(' '.join(sorted(sys.modules)))\n"
    )
    run = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, check=True
    )
    modules = set(run.stdout.split())
    assert "remedy_async.simulator._arguments" in modules
    assert [name for name in SERVER_MODULES if name in modules] == []


def test_every_public_name_of_the_simulator_resolves() -> None:
    """The names imported on first use are there, in `dir()` too, and are the modules' own."""
    from remedy_async.simulator import _openapi, _server  # noqa: PLC0415 - loaded by now anyway

    package = remedy_async.simulator
    assert set(package.__all__) <= set(dir(package))
    assert all(getattr(package, name) is not None for name in package.__all__)
    assert package.Simulator is _server.Simulator
    assert package.openapi_json is _openapi.openapi_json
    with pytest.raises(AttributeError, match="no attribute 'Simulatr'"):
        _ = package.Simulatr


def test_an_abbreviated_option_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    """`--por 8080` is not `--port 8080`: an unrecognized argument, exit 2."""
    with pytest.raises(SystemExit) as exit_info:
        main(["--por", "8080", "--print-spec"])
    assert exit_info.value.code == 2
    assert "unrecognized arguments: --por 8080" in capsys.readouterr().err
