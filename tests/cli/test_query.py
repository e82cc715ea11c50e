"""`--query EXPR`: JMESPath, as aws's `--query` takes it, applied to each record by `list`, `get`
and `export`; refused before any request when it cannot work. Against the published contract
in a MockTransport, and the simulator for `export`."""

from __future__ import annotations

import argparse
import csv
import io
import json
import re
from pathlib import Path

import orjson
import pytest

from remedy_async import MockRequest, MockResponse
from remedy_async.cli._checkpoint import Checkpoint, Selection, write_checkpoint
from remedy_async.cli._errors import UsageError
from remedy_async.cli._query import Query, parse_query, query_of
from tests.published import dataset

from .conftest import SMALL, Published


def test_a_query_is_applied_to_each_record() -> None:
    """The expression's value for each record, in order; a missing name gives None."""
    query = parse_query("operating_system.family")
    records = [{"operating_system": {"family": "macos"}}, {"operating_system": None}, {}]
    assert query.apply(records) == ["macos", None, None]


def test_integers_past_64_bits_come_out_exact() -> None:
    """JMESPath works on the Python values: an integer of any size stays that integer."""
    big = 2**70 + 1
    query = parse_query("{n: risk, twice: sum([risk, risk])}")
    assert query.apply([{"risk": big}]) == [{"n": big, "twice": 2 * big}]


@pytest.mark.parametrize(
    ("text", "columns"),
    [
        ("{id: id, os: operating_system.family}", ("id", "os")),
        ("operating_system.{name: name, v: version}", ("name", "v")),
        ("operating_system | {family: family}", ("family",)),
        ("operating_system.family", ("operating_system.family",)),
        ("[id, hostname]", ("[id, hostname]",)),
    ],
)
def test_columns_are_the_keys_of_a_closing_object_else_the_expression(
    text: str, columns: tuple[str, ...]
) -> None:
    """CSV and tables get a column per key of a `{...}` the expression ends with, else one."""
    assert parse_query(text).columns == columns


def test_rows_put_a_single_value_under_the_expression() -> None:
    """Rows for CSV: an object a `{...}` made as it is; any other value under the one column;
    null an empty row, never a dropped one."""
    single = parse_query("hostname")
    assert single.rows(["a", None]) == [{"hostname": "a"}, {"hostname": None}]
    keyed = parse_query("operating_system.{f: family}")
    assert keyed.rows([{"f": "linux"}, None]) == [{"f": "linux"}, {}]


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("foo.[", "Incomplete expression"),
        ("[?severity=='high'", "Invalid jmespath expression"),
        ("lenght(tags)", "Unknown function: lenght()"),
        ("abs(a, b)", "Expected 1 argument for function abs(), received 2"),
        ("merge()", "Expected at least 1 argument for function merge(), received 0"),
    ],
)
def test_an_expression_that_cannot_work_is_refused_with_the_parsers_message(
    text: str, said: str
) -> None:
    """A parse error, an unknown function or a wrong count of arguments: a ValueError (the
    command line's usage error) carrying jmespath's own words, known without a record."""
    with pytest.raises(ValueError, match=re.escape(said)):
        parse_query(text)


def test_a_function_given_the_wrong_type_stops_with_a_usage_error() -> None:
    """Data-dependent: `abs(hostname)` on a record with a string there names the expression."""
    with pytest.raises(UsageError, match=r"--query abs\(hostname\): In function abs\(\)"):
        parse_query("abs(hostname)").apply([{"hostname": "host-1"}])


def test_query_and_fields_together_are_a_usage_error() -> None:
    """Both choose what to write: one is taken, and the message shows the query for it."""
    options = argparse.Namespace(query=parse_query("id"), fields="id")
    with pytest.raises(UsageError, match="--query and --fields"):
        query_of(options)
    assert isinstance(query_of(argparse.Namespace(query=parse_query("id"))), Query)


async def test_list_writes_what_the_query_makes_of_each_record(published: Published) -> None:
    """JSON lines of the query's values, one per record, in list order."""
    outcome = await published.run(
        "list", "endpoints", "--base-url", published.url, "--query", "{id: id, host: hostname}"
    )
    assert outcome.code == 0, outcome.stderr
    expected = [{"id": r["id"], "host": r["hostname"]} for r in published.records["endpoints"]]
    assert outcome.jsonl() == expected


async def test_null_results_are_written_not_skipped(published: Published) -> None:
    """A record the query makes null is a `null` line: one output per record."""
    outcome = await published.run(
        "list", "endpoints", "--base-url", published.url, "--query", "agent_id"
    )
    assert outcome.code == 0, outcome.stderr
    assert outcome.jsonl() == [record["agent_id"] for record in published.records["endpoints"]]
    assert b"null\n" in outcome.stdout


async def test_a_query_null_for_a_whole_first_page_says_so(published: Published) -> None:
    """A filter written for a whole list (as aws's --query is) gives null on each record: the
    records are still written, and stderr says why that may be."""
    outcome = await published.run(
        "list", "vulnerability-findings", "--base-url", published.url,
        "--query", "[?severity=='critical'].id",
    )  # fmt: skip
    assert outcome.code == 0, outcome.stderr
    assert outcome.jsonl() == [None] * published.count("vulnerability-findings")
    assert "gave null for each of the first" in outcome.stderr
    assert "not to the whole list as aws's --query does" in outcome.stderr


async def test_the_query_comes_after_where_and_max_items(published: Published) -> None:
    """--where keeps records, --max-items caps them, then the query shapes each."""
    outcome = await published.run(
        "list", "vulnerability-findings", "--base-url", published.url,
        "--where", "severity=critical", "--max-items", "3", "--query", "cve_id",
    )  # fmt: skip
    assert outcome.code == 0, outcome.stderr
    findings = published.records["vulnerability-findings"]
    critical = [r["cve_id"] for r in findings if r["severity"] == "critical"]
    assert outcome.jsonl() == critical[:3]


async def test_csv_gets_a_column_per_key_of_the_query(published: Published) -> None:
    """`--format csv` with `{...}`: its keys are the header, whatever the data."""
    outcome = await published.run(
        "list", "endpoints", "--base-url", published.url, "--format", "csv",
        "--query", "{host: hostname, family: operating_system.family, agent: agent_id}",
    )  # fmt: skip
    assert outcome.code == 0, outcome.stderr
    assert outcome.stdout.splitlines()[0] == b"host,family,agent"
    rows = outcome.csv()
    records = published.records["endpoints"]
    assert [row["host"] for row in rows] == [r["hostname"] for r in records]
    assert [row["agent"] for row in rows] == [r["agent_id"] or "" for r in records]


async def test_a_table_of_one_value_is_headed_by_the_expression(published: Published) -> None:
    """A table on a terminal (no pager on the command's PATH) of `--query hostname`."""
    outcome = await published.run(
        "list", "endpoints", "--base-url", published.url, "--query", "hostname", stdout_tty=True
    )
    assert outcome.code == 0, outcome.stderr
    lines = outcome.stdout.decode().splitlines()
    assert lines[0].strip() == "hostname"
    assert lines[2:-1] == [r["hostname"] for r in published.records["endpoints"]]


async def test_get_applies_the_query_to_each_record(published: Published) -> None:
    """`get` shapes each record it fetches, in input order."""
    ids = published.ids("scopes")[:3]
    outcome = await published.run(
        "get", "scopes", *reversed(ids), "--base-url", published.url, "--query", "name"
    )
    assert outcome.code == 0, outcome.stderr
    names = {r["id"]: r["name"] for r in published.records["scopes"]}
    assert outcome.jsonl() == [names[record_id] for record_id in reversed(ids)]


async def test_an_exact_integer_survives_list_and_query() -> None:
    """A number past 64 bits the service sent comes out as its digits, queried or not."""
    records = dataset(3, SMALL)
    big, stand_in = 2**80 + 7, 987654321
    for record in records["vulnerability-findings"]:
        record["risk"] = stand_in
    service = Published(records)
    published = service.service.handler

    def handler(request: MockRequest) -> MockResponse:
        answer = published(request)  # its JSON writer stops at 64 bits
        body = answer.body.replace(str(stand_in).encode(), str(big).encode())
        return MockResponse(answer.status, headers=answer.headers, body=body)

    service.service.handler = handler  # type: ignore[method-assign]
    outcome = await service.run(
        "list", "vulnerability-findings", "--base-url", service.url, "--max-items", "2",
        "--query", "{id: id, risk: risk}",
    )  # fmt: skip
    assert outcome.code == 0, outcome.stderr
    lines = outcome.stdout.splitlines()
    assert [json.loads(line)["risk"] for line in lines] == [big, big]  # orjson would round it


@pytest.mark.parametrize(
    "args",
    [
        ("--query", "foo.["),
        ("--query", "nope(id)"),
        ("--query", "id", "--fields", "id"),
    ],
    ids=["parse", "function", "with-fields"],
)
async def test_a_query_that_cannot_work_exits_2_before_any_request(
    published: Published, args: tuple[str, ...]
) -> None:
    """Refused before the service is asked anything, with a usage error's status."""
    outcome = await published.run("list", "endpoints", "--base-url", published.url, *args)
    assert (outcome.code, outcome.stdout) == (2, b"")
    assert "--query" in outcome.stderr
    assert published.requests == []


async def test_export_writes_the_query_and_a_resume_keeps_it(tmp_path: Path) -> None:
    """An export's JSON lines hold the query's values; its checkpoint keeps the expression, so
    a resume given another one is a usage error naming --query."""
    service = Published()
    args = ("export", "scopes", "--out", str(tmp_path), "--base-url", service.url)
    done = await service.run(*args, "--query", "{id: id, status: status}")
    assert done.code == 0, done.stderr
    lines = (tmp_path / "scopes.jsonl").read_bytes().splitlines()
    expected = [{"id": r["id"], "status": r["status"]} for r in service.records["scopes"]]
    assert [orjson.loads(line) for line in lines] == expected
    # As if it had stopped before its first checkpointed page:
    (tmp_path / "scopes.jsonl").rename(tmp_path / "scopes.jsonl.part")
    started = Selection(query="{id: id, status: status}")
    write_checkpoint(
        tmp_path / "scopes.checkpoint.json",
        Checkpoint("scopes", "jsonl", 100, records=0, length=0, selection=started),
    )
    changed = await service.run(*args, "--resume", "--query", "name")
    assert changed.code == 2
    assert "was started with --query '{id: id, status: status}', not --query name" in (
        changed.stderr
    )
    resumed = await service.run(*args, "--resume")
    assert resumed.code == 0, resumed.stderr
    lines = (tmp_path / "scopes.jsonl").read_bytes().splitlines()
    assert [orjson.loads(line) for line in lines] == expected


async def test_export_csv_of_a_query_has_its_columns(tmp_path: Path) -> None:
    """CSV export: the query's keys are the header."""
    service = Published()
    outcome = await service.run(
        "export", "endpoints", "--out", str(tmp_path), "--base-url", service.url,
        "--format", "csv", "--query", "{host: hostname, family: operating_system.family}",
    )  # fmt: skip
    assert outcome.code == 0, outcome.stderr
    text = (tmp_path / "endpoints.csv").read_text()
    rows = list(csv.DictReader(io.StringIO(text, newline="")))
    records = service.records["endpoints"]
    assert text.splitlines()[0] == "host,family"
    assert [(row["host"], row["family"]) for row in rows] == [
        (r["hostname"], r["operating_system"]["family"]) for r in records
    ]


@pytest.mark.parametrize(
    "target",
    [("--format", "parquet"), ("--to", "duckdb:{dir}/x.duckdb")],
    ids=["parquet", "duckdb"],
)
async def test_export_with_fixed_columns_refuses_a_query(
    tmp_path: Path, target: tuple[str, str]
) -> None:
    """Parquet and DuckDB have each collection's fixed columns: --query is a usage error."""
    service = Published()
    where = ("--out", str(tmp_path / "out")) if target[0] == "--format" else ()
    outcome = await service.run(
        "export", "scopes", *where, target[0], target[1].format(dir=tmp_path),
        "--base-url", service.url, "--query", "id",
    )  # fmt: skip
    assert outcome.code == 2
    assert "--query cannot be used with" in outcome.stderr
    assert service.requests == []
