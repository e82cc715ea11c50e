"""`export --format parquet` and `export --to duckdb:PATH`: the JSON lines export, columnar.

Against the published contract in a MockTransport; a killed or stopped export resumes against
simulators."""

from __future__ import annotations

import asyncio
import signal
import sys
from pathlib import Path
from typing import Any

import orjson
import pytest

from remedy_async import Scope, VulnerabilityFinding
from remedy_async.cli._parquet import ParquetBeside
from remedy_async.columnar import arrow_schema, record_batch, records_of
from remedy_async.simulator import FaultSpec, Simulator, SimulatorConfig
from tests.columnar.forms import model_of, read_back

from .conftest import RESOURCES, Published, cli, cli_here, start_cli

pa = pytest.importorskip("pyarrow", reason="the arrow extra is not installed")
pq = pytest.importorskip("pyarrow.parquet", reason="the arrow extra is not installed")
duckdb = pytest.importorskip("duckdb", reason="the duckdb extra is not installed")

TABLES = {resource: resource.replace("-", "_") for resource in RESOURCES}


def json_lines(directory: Path, resource: str) -> list[dict[str, Any]]:
    """The JSON lines export as the columnar outputs give it back (null typed fields out)."""
    lines = (directory / f"{resource}.jsonl").read_bytes().splitlines()
    return [read_back(orjson.loads(line), model_of(resource)) for line in lines]


def parquet_records(directory: Path, resource: str) -> list[dict[str, Any]]:
    return records_of(pq.read_table(directory / f"{resource}.parquet"))


def duckdb_records(path: Path, resource: str) -> list[dict[str, Any]]:
    with duckdb.connect(str(path)) as connection:
        table = connection.sql(f"SELECT * FROM {TABLES[resource]} ORDER BY id").to_arrow_table()
    return records_of(table)


async def test_parquet_and_duckdb_read_back_equal_the_json_lines_export(
    published: Published, tmp_path: Path
) -> None:
    """Parquet files and DuckDB tables (upserted twice) read back as the JSON lines export."""
    base = ("export", "--base-url", published.url, "--page-size", "30")
    database = tmp_path / "remedy.duckdb"
    for target in (
        ("--out", str(tmp_path / "jsonl")),
        ("--out", str(tmp_path / "parquet"), "--format", "parquet"),
        ("--to", f"duckdb:{database}"),
        ("--to", f"duckdb:{database}"),
    ):
        outcome = await published.run(*base, *target)
        assert outcome.code == 0, outcome.stderr
    for resource in RESOURCES:
        expected = json_lines(tmp_path / "jsonl", resource)
        assert [record["id"] for record in expected] == list(published.ids(resource))
        assert parquet_records(tmp_path / "parquet", resource) == expected, resource
        by_id = sorted(expected, key=lambda record: record["id"])
        assert duckdb_records(database, resource) == by_id, resource
    parquet = pq.ParquetFile(tmp_path / "parquet" / "vulnerability-findings.parquet")
    assert parquet.metadata.num_row_groups == 1  # pages gathered into one row group
    assert parquet.metadata.row_group(0).column(0).compression == "ZSTD"
    critical = sum(
        record["severity"] == "critical" for record in published.records["vulnerability-findings"]
    )
    with duckdb.connect(str(database)) as connection:
        (found,) = connection.execute(
            "SELECT count(*) FROM vulnerability_findings WHERE extra->>'severity' = 'critical'"
        ).fetchone()
        (family,) = connection.execute(
            "SELECT operating_system.family FROM endpoints ORDER BY id LIMIT 1"
        ).fetchone()
    assert found == critical > 0  # a finding's fields are reachable in its `extra` JSON
    first = min(published.records["endpoints"], key=lambda record: record["id"])
    assert family == first["operating_system"]["family"]  # a struct, read by dotted name


async def test_a_killed_parquet_export_resumes_exactly(tmp_path: Path) -> None:
    """A Parquet export killed after a checkpoint resumes to every record once, in order."""
    slow = SimulatorConfig(
        seed=5,
        size=20,
        now="2024-06-01T00:00:00Z",  # the two runs below serve the same records
        faults=[FaultSpec("latency", 1.0, "list:*", latency_ms=40)],
    )
    args = ("export", "vulnerability-findings", "--out", str(tmp_path), "--page-size", "10")
    args += ("--format", "parquet")
    checkpoint = tmp_path / "vulnerability-findings.checkpoint.json"
    async with Simulator(slow) as simulator:
        process = await start_cli(*args, "--base-url", simulator.url)
        try:
            while not (checkpoint.exists() and orjson.loads(checkpoint.read_bytes())["records"]):
                assert process.returncode is None, "the export ended before it was killed"
                await asyncio.sleep(0.02)
            process.send_signal(signal.SIGKILL)
            await asyncio.wait_for(process.wait(), timeout=30)
        finally:
            if process.returncode is None:
                process.kill()
                await process.wait()
    assert (tmp_path / "vulnerability-findings.parquet.part").exists()
    healthy_config = SimulatorConfig(seed=slow.seed, size=slow.size, now=slow.now)
    async with Simulator(healthy_config) as healthy:
        resumed = await cli(*args, "--base-url", healthy.url, "--resume")
        assert resumed.code == 0, resumed.stderr
        served = [record async for record in _served(healthy.url)]
    assert parquet_records(tmp_path, "vulnerability-findings") == served
    assert sorted(path.name for path in tmp_path.iterdir()) == ["vulnerability-findings.parquet"]


async def _served(url: str) -> Any:
    from remedy_async import RemedyClient, VulnerabilityFinding  # noqa: PLC0415

    async with RemedyClient(url) as client:
        async for record in client.vulnerability_findings.list().as_dicts():
            yield read_back(record, VulnerabilityFinding)


async def test_a_stopped_duckdb_export_resumes_from_its_saved_position(tmp_path: Path) -> None:
    """A DuckDB export stopped by the service resumes from its saved position, each id once."""
    failing = SimulatorConfig(
        seed=0, size=30, faults=[FaultSpec("http-500", 0.3, "list:vulnerability-findings")]
    )
    database = tmp_path / "remedy.duckdb"
    args = ("export", "vulnerability-findings", "--to", f"duckdb:{database}", "--page-size", "50")
    async with Simulator(failing) as simulator:
        first = await cli_here(*args, "--base-url", simulator.url, "--retries", "0")
    assert first.code == 3, first.stderr
    assert len(duckdb_records(database, "vulnerability-findings")) == 146
    async with Simulator(SimulatorConfig(seed=0, size=30)) as healthy:
        resumed = await cli_here(*args, "--base-url", healthy.url, "--resume")
        assert resumed.code == 0, resumed.stderr
        expected = sorted(healthy.dataset.ids("vulnerability-findings"))
    ids = [record["id"] for record in duckdb_records(database, "vulnerability-findings")]
    assert ids == expected


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (
            ("--format", "parquet", "--fields", "id"),
            "--fields cannot be used with --format parquet",
        ),
        (("--to", "duckdb:x.duckdb", "--fields", "id"), "--fields cannot be used with --to duckdb"),
        (("--to", "sqlite:x.db"), "--to must be duckdb:PATH"),
        ((), "export needs one of --out DIR or --to duckdb:PATH"),
    ],
)
async def test_columnar_flags_that_cannot_work_are_usage_errors(
    published: Published, tmp_path: Path, flags: tuple[str, ...], message: str
) -> None:
    """Impossible combinations exit 2 and say why."""
    out = ("--out", str(tmp_path)) if "--format" in flags else ()
    outcome = await published.run("export", "scopes", *out, *flags, "--base-url", published.url)
    assert (outcome.code, message in outcome.stderr) == (2, True), outcome.stderr


async def test_parquet_without_pyarrow_is_a_usage_error_naming_the_extra(
    published: Published, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without pyarrow, --format parquet exits 2 naming remedy-async[arrow]."""
    monkeypatch.setitem(sys.modules, "pyarrow", None)
    outcome = await published.run(
        "export", "scopes", "--out", str(tmp_path), "--format", "parquet",
        "--base-url", published.url,
    )  # fmt: skip
    assert outcome.code == 2
    assert "pip install 'remedy-async[arrow]'" in outcome.stderr


def _finding_batches(pages: int, rows: int) -> list[Any]:
    return [
        record_batch(
            VulnerabilityFinding,
            [
                {"id": f"vf-{page}-{row}", "created_at": "2024-05-01T10:00:00Z", "severity": "low"}
                for row in range(rows)
            ],
        )
        for page in range(pages)
    ]


@pytest.mark.parametrize(
    ("limits", "groups"),
    [({"row_group_rows": 25}, [30, 30, 20]), ({"row_group_bytes": 1}, [10] * 8)],
)
def test_parquet_row_groups_gather_pages_up_to_their_size(
    tmp_path: Path, limits: dict[str, int], groups: list[int]
) -> None:
    """Pages are gathered into a row group until it holds `row_group_rows` rows or
    `row_group_bytes` of Arrow data, compressed with zstd; the file holds every row in order."""
    path = tmp_path / "vulnerability-findings.parquet"
    batches = _finding_batches(8, 10)
    beside = ParquetBeside(path, arrow_schema(VulnerabilityFinding), **limits)
    beside.start(tmp_path / "vulnerability-findings.parquet.part", 0)
    for batch in batches:
        beside.add(batch)
    beside.finish()
    metadata = pq.ParquetFile(path).metadata
    assert [metadata.row_group(i).num_rows for i in range(metadata.num_row_groups)] == groups
    assert {metadata.row_group(0).column(i).compression for i in range(4)} == {"ZSTD"}
    written = [record for batch in batches for record in records_of(batch)]
    assert records_of(pq.read_table(path)) == written
    assert sorted(p.name for p in tmp_path.iterdir()) == [path.name]


def test_a_failed_row_group_write_is_raised_and_the_file_removed(tmp_path: Path) -> None:
    """A row group the writer thread cannot write (here: a batch of another schema) raises at
    `finish`; `abandon` then leaves no file behind."""
    path = tmp_path / "vulnerability-findings.parquet"
    beside = ParquetBeside(path, arrow_schema(VulnerabilityFinding))
    beside.start(tmp_path / "vulnerability-findings.parquet.part", 0)
    beside.add(_finding_batches(1, 3)[0])
    beside.add(record_batch(Scope, [{"id": "sc-1", "name": "All"}]))
    with pytest.raises(pa.ArrowInvalid):
        beside.finish()
    beside.abandon()
    assert list(tmp_path.iterdir()) == []
