"""`list` as a terminal user expects it: a table on a terminal, and `--max-items` capping what
is written (as `gh --limit` and `aws --max-items` do), `--where` or not."""

from __future__ import annotations

from pathlib import Path

import orjson

from remedy_async.simulator import Simulator

from .conftest import cli_here


async def test_list_on_a_terminal_prints_a_table(simulator: Simulator) -> None:
    """With stdout a terminal and no --format, `list` draws a table, as gh does."""
    outcome = await cli_here("list", "scopes", "--base-url", simulator.url, stdout_tty=True)
    assert outcome.code == 0, outcome.stderr
    lines = outcome.stdout.decode().splitlines()
    assert lines[0].split() == ["id", "name", "enabled", "createdAt", "updatedAt"]
    assert lines[-1] == f"{simulator.dataset.count('scopes')} record(s)"


async def test_list_on_a_terminal_writes_the_format_asked_for(simulator: Simulator) -> None:
    """--format wins over the terminal: `--format jsonl` there writes JSON lines."""
    outcome = await cli_here(
        "list", "scopes", "--base-url", simulator.url, "--format", "jsonl", stdout_tty=True
    )
    assert outcome.code == 0, outcome.stderr
    ids = [record["id"] for record in outcome.jsonl()]
    assert ids == list(simulator.dataset.ids("scopes"))


async def test_list_into_a_file_from_a_terminal_writes_json_lines(
    simulator: Simulator, tmp_path: Path
) -> None:
    """`--output FILE` run from a terminal writes JSON lines: the table is for the screen."""
    target = tmp_path / "scopes.jsonl"
    outcome = await cli_here(
        "list", "scopes", "--base-url", simulator.url, "-o", str(target), stdout_tty=True
    )
    assert (outcome.code, outcome.stdout) == (0, b""), outcome.stderr
    ids = [orjson.loads(line)["id"] for line in target.read_bytes().splitlines()]
    assert ids == list(simulator.dataset.ids("scopes"))
