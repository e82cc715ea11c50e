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
    assert lines[0].split() == ["id", "name", "status", "description"]
    ids = list(simulator.dataset.ids("scopes"))
    assert all(any(line.startswith(scope_id) for line in lines) for scope_id in ids)
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


def _critical(simulator: Simulator) -> list[str]:
    """The ids of the simulator's critical findings, in list order."""
    records = simulator.dataset.records("vulnerability-findings")
    return [record["id"] for record in records if record["severity"] == "critical"]


async def test_max_items_with_where_writes_that_many_records(simulator: Simulator) -> None:
    """`--where` with `--max-items 5` writes 5 records meeting it: fetching goes on past pages
    that held fewer (gh --limit and aws --max-items cap output, not fetching)."""
    outcome = await cli_here(
        "list", "vulnerability-findings", "--base-url", simulator.url, "--page-size", "2",
        "--where", "severity=critical", "--max-items", "5",
    )  # fmt: skip
    assert outcome.code == 0, outcome.stderr
    assert [record["id"] for record in outcome.jsonl()] == _critical(simulator)[:5]
    assert simulator.counters.total_requests >= 3  # 2 records a page: 3 pages at least


async def test_max_items_without_where_stops_fetching_at_the_cap(simulator: Simulator) -> None:
    """Without `--where`, `--max-items 5` writes the first 5 records and fetches no page after
    the one holding the fifth."""
    outcome = await cli_here(
        "list", "vulnerability-findings", "--base-url", simulator.url, "--page-size", "2",
        "--max-items", "5",
    )  # fmt: skip
    assert outcome.code == 0, outcome.stderr
    expected = list(simulator.dataset.ids("vulnerability-findings"))[:5]
    assert [record["id"] for record in outcome.jsonl()] == expected
    assert simulator.counters.total_requests == 3


async def test_max_items_zero_with_where_fetches_nothing(simulator: Simulator) -> None:
    """`--max-items 0` writes no record and sends no list request, `--where` or not."""
    outcome = await cli_here(
        "list", "vulnerability-findings", "--base-url", simulator.url,
        "--where", "severity=critical", "--max-items", "0",
    )  # fmt: skip
    assert (outcome.code, outcome.stdout) == (0, b""), outcome.stderr
    assert simulator.counters.total_requests == 0
