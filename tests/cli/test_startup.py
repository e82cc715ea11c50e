"""Start-up: the command line imports only its grammar until a command runs.

Checked by what a fresh process has imported, never by timing (`benchmarks/startup.py` times it).
"""

from __future__ import annotations

import argparse
import inspect
import json
import subprocess
import sys
from collections.abc import Sequence
from typing import Any

from remedy_async import RemedyClient, RetryPolicy
from remedy_async.cli._app import COMMANDS, command_named
from remedy_async.cli._options import CLIENT_MAX_IN_FLIGHT, CLIENT_RETRIES, CLIENT_TIMEOUT
from remedy_async.cli._parser import build_parser

PARSING_ONLY = (
    ["--help"],
    ["--version"],
    ["list", "vulnerability-findings", "--help"],
    ["export", "--help"],
    ["serve", "--help"],
    ["get", "scopes"],  # a usage error: no id
)
"""Command lines that end before any command runs: help, version, a usage error."""

NOT_FOR_PARSING = (
    "aiohttp.web",
    "rich",
    "cattrs",
    "argcomplete",
    "pyarrow",
    "duckdb",
    "dlt",
    "remedy_async.columnar",
    "remedy_async.cli._parquet",
    "remedy_async.cli._duckdb",
    "opentelemetry",
    "remedy_async._otel",
    "remedy_async._probe",
    "remedy_async.simulator._server",
    "remedy_async.simulator._handler",
    "remedy_async.simulator._dataset",
    "remedy_async.simulator._openapi",
    *(
        f"remedy_async.cli.{module}"
        for module in {m for m, _ in COMMANDS.values()} - {"_completion"}
    ),
    "remedy_async.cli._rich",
    "remedy_async.cli._meters",
    "remedy_async.cli._progress",
    "remedy_async.cli._connection",
)
"""What the commands use and the grammar does not: the simulator's server and its data, rich,
cattrs, argcomplete, pyarrow, duckdb and dlt, OpenTelemetry (imported by the first client), and
the modules that run commands (these and those below them), but for `_completion`, whose
`complete_if_asked` runs first (argcomplete stands for it here). The client and aiohttp.client
are not listed: `import remedy_async` itself loads them today."""

_PROGRAM = """
import json, sys
from remedy_async.cli import main
codes = [main(argv) for argv in json.loads(sys.argv[1])]
print(json.dumps({"codes": codes, "modules": sorted(sys.modules)}))
"""


def _loaded(name: str, modules: set[str]) -> bool:
    return any(module == name or module.startswith(name + ".") for module in modules)


def _parsed_in_a_fresh_process(command_lines: Sequence[list[str]]) -> dict[str, Any]:
    """The exit codes of the command lines, run one after the other in a fresh process, and
    the modules it had imported by the end."""
    run = subprocess.run(
        [sys.executable, "-c", _PROGRAM, json.dumps(command_lines)],
        capture_output=True,
        text=True,
        check=True,
    )
    outcome: dict[str, Any] = json.loads(run.stdout.splitlines()[-1])
    return outcome


def test_parsing_imports_no_command_nor_the_simulators_server() -> None:
    """--help, --version and a usage error, in a fresh process, import none of the heavy parts."""
    outcome = _parsed_in_a_fresh_process(PARSING_ONLY)
    assert outcome["codes"] == [0, 0, 0, 0, 0, 2]
    modules = set(outcome["modules"])
    assert "remedy_async.cli._parser" in modules  # the program did parse
    assert [name for name in NOT_FOR_PARSING if _loaded(name, modules)] == []


def test_only_serve_loads_the_simulators_configuration_to_parse() -> None:
    """`serve`'s options are the simulator's configuration, added when `serve` is chosen: a
    command line that ends anywhere else imports no part of the simulator, and `serve --help`
    still lists them."""
    outcome = _parsed_in_a_fresh_process([argv for argv in PARSING_ONLY if argv[0] != "serve"])
    assert outcome["codes"] == [0, 0, 0, 0, 2]
    assert not _loaded("remedy_async.simulator", set(outcome["modules"]))
    serve = subprocess.run(
        [sys.executable, "-m", "remedy_async", "serve", "--help"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert "--max-page-size" in serve.stdout


def _command_names(parser: argparse.ArgumentParser, prefix: str = "") -> set[str]:
    """Every runnable command: `list`, ..., and `agent-config download` (a command's
    subcommands are named with it, but `list RESOURCE` is one command)."""
    names: set[str] = set()
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction) and action.dest != argparse.SUPPRESS:
            for name, child in action.choices.items():
                below = _command_names(child, f"{prefix}{name} ")
                names |= below or {f"{prefix}{name}"}
    return names


def test_every_command_is_dispatched_to_a_coroutine_function() -> None:
    """COMMANDS names every command of the grammar, and each resolves to an async function."""
    assert set(COMMANDS) == _command_names(build_parser())
    for name in COMMANDS:
        assert inspect.iscoroutinefunction(command_named(name)), name


def test_the_help_shows_the_clients_own_defaults() -> None:
    """The defaults the help writes out (so it needs no client) are the client's."""
    parameters = inspect.signature(RemedyClient).parameters
    assert parameters["timeout"].default.total == CLIENT_TIMEOUT
    assert parameters["max_in_flight"].default == CLIENT_MAX_IN_FLIGHT
    assert RetryPolicy().attempts - 1 == CLIENT_RETRIES
