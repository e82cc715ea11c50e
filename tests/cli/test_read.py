"""`list` as a terminal user expects it: a table on a terminal, and `--max-items` capping what
is written (as `gh --limit` and `aws --max-items` do), `--where` or not. Against the
published contract in a MockTransport."""

from __future__ import annotations

from pathlib import Path

import orjson

from .conftest import Published


async def test_list_on_a_terminal_prints_a_table(published: Published) -> None:
    """With stdout a terminal and no --format, `list` draws a table, as gh does."""
    outcome = await published.run("list", "scopes", "--base-url", published.url, stdout_tty=True)
    assert outcome.code == 0, outcome.stderr
    lines = outcome.stdout.decode().splitlines()
    assert lines[0].split() == ["id", "name", "status", "description"]
    ids = published.ids("scopes")
    assert all(any(line.startswith(scope_id) for line in lines) for scope_id in ids)
    assert lines[-1] == f"{published.count('scopes')} record(s)"


async def test_list_on_a_terminal_writes_the_format_asked_for(published: Published) -> None:
    """--format wins over the terminal: `--format jsonl` there writes JSON lines."""
    outcome = await published.run(
        "list", "scopes", "--base-url", published.url, "--format", "jsonl", stdout_tty=True
    )
    assert outcome.code == 0, outcome.stderr
    ids = [record["id"] for record in outcome.jsonl()]
    assert ids == published.ids("scopes")


async def test_list_into_a_file_from_a_terminal_writes_json_lines(
    published: Published, tmp_path: Path
) -> None:
    """`--output FILE` run from a terminal writes JSON lines: the table is for the screen."""
    target = tmp_path / "scopes.jsonl"
    outcome = await published.run(
        "list", "scopes", "--base-url", published.url, "-o", str(target), stdout_tty=True
    )
    assert (outcome.code, outcome.stdout) == (0, b""), outcome.stderr
    ids = [orjson.loads(line)["id"] for line in target.read_bytes().splitlines()]
    assert ids == published.ids("scopes")


def _critical(published: Published) -> list[str]:
    """The ids of the service's critical findings, in list order."""
    records = published.records["vulnerability-findings"]
    return [record["id"] for record in records if record["severity"] == "critical"]


async def test_max_items_with_where_writes_that_many_records(published: Published) -> None:
    """`--where` with `--max-items 5` writes 5 records meeting it: fetching goes on past pages
    that held fewer (gh --limit and aws --max-items cap output, not fetching)."""
    outcome = await published.run(
        "list", "vulnerability-findings", "--base-url", published.url, "--page-size", "2",
        "--where", "severity=critical", "--max-items", "5",
    )  # fmt: skip
    assert outcome.code == 0, outcome.stderr
    assert [record["id"] for record in outcome.jsonl()] == _critical(published)[:5]
    assert len(published.requests) >= 3  # 2 records a page: 3 pages at least


async def test_max_items_without_where_stops_fetching_at_the_cap(published: Published) -> None:
    """Without `--where`, `--max-items 5` writes the first 5 records and fetches no page after
    the one holding the fifth (pages of 2 overlap by 1: offsets 0, 1, 2, 3)."""
    outcome = await published.run(
        "list", "vulnerability-findings", "--base-url", published.url, "--page-size", "2",
        "--max-items", "5",
    )  # fmt: skip
    assert outcome.code == 0, outcome.stderr
    expected = published.ids("vulnerability-findings")[:5]
    assert [record["id"] for record in outcome.jsonl()] == expected
    assert len(published.requests) == 4


async def test_max_items_zero_with_where_fetches_nothing(published: Published) -> None:
    """`--max-items 0` writes no record and sends no list request, `--where` or not."""
    outcome = await published.run(
        "list", "vulnerability-findings", "--base-url", published.url,
        "--where", "severity=critical", "--max-items", "0",
    )  # fmt: skip
    assert (outcome.code, outcome.stdout) == (0, b""), outcome.stderr
    assert published.requests == []
