"""`-o`/`--output` is a format, as aws's and kubectl's `-o` are; a file is `--out-file` (or a
redirect), and no value ever becomes a file by surprise. Parsed alone, and run in this process
against the published contract in a MockTransport."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from remedy_async.cli._errors import UsageError
from remedy_async.cli._parser import parse_command_line

from .conftest import Published


@pytest.mark.parametrize(
    ("argv", "chosen"),
    [
        (["list", "endpoints", "-o", "json"], "json"),
        (["list", "endpoints", "--output", "CSV"], "csv"),
        (["list", "endpoints", "--format", "table"], "table"),
        (["list", "-o", "jsonl", "endpoints"], "jsonl"),
        (["get", "scopes", "x", "-o", "json"], "json"),
        (["export", "--out", "d", "-o", "parquet"], "parquet"),
        (["probe", "-o", "json"], "json"),
    ],
    ids=["o", "output-any-case", "format", "before-the-resource", "get", "export", "probe"],
)
def test_o_output_and_format_name_the_format(argv: list[str], chosen: str) -> None:
    """-o, --output and --format are one option, in any case, on every command with a format."""
    assert parse_command_line(argv).format == chosen


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["list", "endpoints", "-o", "records.jsonl"], "use --out-file records.jsonl"),
        (["list", "endpoints", "--output", "out/records"], "use --out-file out/records"),
        (["get", "scopes", "x", "-o", "-"], "use --out-file -"),
        (["export", "-o", "backup/"], "use --out backup/"),
        (["probe", "-o", "report.json"], "use > report.json"),
    ],
    ids=["file", "directory", "dash", "export", "probe"],
)
def test_a_path_given_to_o_is_refused_naming_where_files_go(argv: list[str], said: str) -> None:
    """A value that looks like a path is a usage error saying how to write that file, never
    written: nobody's data goes to a file they did not ask for by name."""
    with pytest.raises(UsageError, match="takes a format") as refused:
        parse_command_line(argv)
    assert said in str(refused.value)


def test_a_word_that_is_no_format_lists_the_formats() -> None:
    """`-o yml` names the formats, and the closest one."""
    with pytest.raises(UsageError) as refused:
        parse_command_line(["list", "scopes", "-o", "jsn"])
    assert "'jsn' is not a format (did you mean json?)" in str(refused.value)
    assert "jsonl, json, csv, table" in str(refused.value)


def test_a_format_name_given_as_the_file_is_refused() -> None:
    """`--out-file json` is `-o json` misplaced: refused, saying both spellings."""
    with pytest.raises(UsageError) as refused:
        parse_command_line(["list", "scopes", "--out-file", "json"])
    assert "for the format use -o json; for a file of that name write ./json" in str(refused.value)


async def test_o_json_writes_json_to_stdout_and_no_file(
    published: Published, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`list endpoints -o json` prints one JSON array and leaves no file named json."""
    monkeypatch.chdir(tmp_path)
    outcome = await published.run("list", "endpoints", "--base-url", published.url, "-o", "json")
    assert outcome.code == 0, outcome.stderr
    assert [record["id"] for record in json.loads(outcome.stdout)] == published.ids("endpoints")
    assert list(tmp_path.iterdir()) == []


async def test_o_with_a_path_asks_nothing_and_writes_nothing(
    published: Published, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`-o records.jsonl` (the old meaning) exits 2 before any request, and writes no file."""
    monkeypatch.chdir(tmp_path)
    outcome = await published.run(
        "list", "scopes", "--base-url", published.url, "-o", "records.jsonl"
    )
    assert outcome.code == 2
    assert "use --out-file records.jsonl" in outcome.stderr
    assert (published.requests, list(tmp_path.iterdir())) == ([], [])


async def test_out_file_writes_the_format_chosen(published: Published, tmp_path: Path) -> None:
    """`-o csv --out-file FILE` writes CSV to the file and nothing to stdout."""
    target = tmp_path / "scopes.csv"
    outcome = await published.run(
        "list", "scopes", "--base-url", published.url, "-o", "csv", "--out-file", str(target)
    )
    assert (outcome.code, outcome.stdout) == (0, b""), outcome.stderr
    lines = target.read_text().splitlines()
    assert lines[0].startswith("id,name,description,status")
    assert len(lines) == 1 + published.count("scopes")
