"""`list` as a terminal user expects it: a table on a terminal, `--max-items` capping what is
written (as `gh --limit` and `aws --max-items` do), `--where` or not, and the token that
continues a list it stopped (`--starting-token`, as aws's). Against the published contract in
a MockTransport."""

from __future__ import annotations

import re
from pathlib import Path

import orjson
import pytest

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
    """`--out-file FILE` run from a terminal writes JSON lines: the table is for the screen."""
    target = tmp_path / "scopes.jsonl"
    outcome = await published.run(
        "list", "scopes", "--base-url", published.url, "--out-file", str(target), stdout_tty=True
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


CONTINUE = re.compile(
    r"^remedy-async: stopped at --max-items (\d+); to continue: --starting-token (\S+)$"
)
"""The stderr line of a list that --max-items stopped before its end."""


def _token(stderr: str) -> str:
    """The token the line to continue carries (the test fails without one)."""
    (match,) = [found for line in stderr.splitlines() if (found := CONTINUE.match(line))]
    return match.group(2)


async def test_a_list_stopped_by_max_items_prints_the_token_to_continue(
    published: Published,
) -> None:
    """--starting-token TOKEN goes on right after the last record written: two runs write the
    whole list once, in order; the token is on stderr, never among the records."""
    args = ("list", "scopes", "--base-url", published.url, "--page-size", "3")
    first = await published.run(*args, "--max-items", "4")
    assert first.code == 0, first.stderr
    token = _token(first.stderr)
    assert token.encode() not in first.stdout
    rest = await published.run(*args, "--starting-token", token)
    assert rest.code == 0, rest.stderr
    assert "--starting-token" not in rest.stderr  # the list ended: nothing to continue
    ids = [record["id"] for record in (*first.jsonl(), *rest.jsonl())]
    assert ids == published.ids("scopes")


async def test_with_where_the_token_continues_after_the_last_record_written(
    published: Published,
) -> None:
    """With --where the cap can fall mid-page: the token continues after the last record
    written, so the records meeting the condition come out once each over the runs."""
    args = (
        "list", "vulnerability-findings", "--base-url", published.url, "--page-size", "7",
        "--where", "severity=critical",
    )  # fmt: skip
    written: list[str] = []
    token: list[str] = []
    for _ in range(20):
        outcome = await published.run(*args, "--max-items", "2", *token)
        assert outcome.code == 0, outcome.stderr
        written += [record["id"] for record in outcome.jsonl()]
        if "--starting-token" not in outcome.stderr:
            break
        token = ["--starting-token", _token(outcome.stderr)]
    assert written == _critical(published)


async def test_a_list_that_reaches_its_end_prints_no_token(published: Published) -> None:
    """--max-items at least the list's size: the list ended, and stderr is empty."""
    outcome = await published.run(
        "list", "scopes", "--base-url", published.url,
        "--max-items", str(published.count("scopes")),
    )  # fmt: skip
    assert (outcome.code, outcome.stderr) == (0, "")
    assert len(outcome.jsonl()) == published.count("scopes")


@pytest.mark.parametrize(
    ("made", "used", "said"),
    [
        ("scopes", ("endpoints",), "--starting-token was made for 'scopes', not for 'endpoints'"),
        (
            "endpoints",
            ("endpoints", "--os-family", "linux"),
            "--starting-token was made for a list call with other filters",
        ),
        ("scopes", ("scopes",), None),
    ],
    ids=["other-collection", "other-filters", "same"],
)
async def test_a_token_of_another_list_is_refused_before_any_request(
    published: Published, made: str, used: tuple[str, ...], said: str | None
) -> None:
    """The library's own check: a token of another collection or filters is a usage error
    (exit 2) naming --starting-token, before any request; the same list takes it."""
    first = await published.run(
        "list", made, "--base-url", published.url, "--page-size", "3", "--max-items", "1"
    )
    token = _token(first.stderr)
    published.requests.clear()
    outcome = await published.run(
        "list", *used, "--base-url", published.url, "--page-size", "3", "--starting-token", token
    )
    if said is None:
        assert outcome.code == 0, outcome.stderr
        assert [r["id"] for r in outcome.jsonl()] == published.ids(made)[1:]
        return
    assert (outcome.code, outcome.stdout) == (2, b"")
    assert said in outcome.stderr
    assert published.requests == []


async def test_a_malformed_token_is_a_usage_error(published: Published) -> None:
    """A token that is no resume token at all: exit 2 before any request."""
    outcome = await published.run(
        "list", "scopes", "--base-url", published.url, "--starting-token", "NextToken123"
    )
    assert outcome.code == 2
    assert "--starting-token is not a remedy_async resume token" in outcome.stderr
    assert published.requests == []


async def test_a_page_size_past_the_most_is_refused_in_flags(published: Published) -> None:
    """`--page-size 500` is a usage error naming the flag, never a Python argument to raise."""
    outcome = await published.run(
        "list", "endpoints", "--base-url", published.url, "--page-size", "500"
    )
    assert (outcome.code, outcome.stdout) == (2, b"")
    assert "--page-size must be at most 100, got 500" in outcome.stderr
    assert "RemedyClient(" not in outcome.stderr
    assert "page_size" not in outcome.stderr
    assert published.requests == []
