"""The dlt source against the embedded simulator, loaded into DuckDB (embedded) and PostgreSQL."""

from __future__ import annotations

import asyncio
import sys
import threading
from pathlib import Path
from typing import Any

import msgspec
import pytest

from remedy_async import (
    ClientEvent,
    MissingDependencyError,
    MockRequest,
    MockResponse,
    MockTransport,
    RetryPolicy,
)
from remedy_async.simulator import FaultSpec, Simulator, SimulatorConfig
from tests.published import COLLECTIONS, PublishedService, dataset

from .dlt_tables import TABLES, expected_rows, table_rows

dlt = pytest.importorskip("dlt", reason="the dlt extra is not installed")
duckdb = pytest.importorskip("duckdb", reason="the duckdb extra is not installed")

from remedy_async._models import ENDPOINTS, SCOPES, VULNERABILITY_FINDINGS  # noqa: E402
from remedy_async.dlt import DELETED_COLUMN, column_hints, remedy_source, unfinished  # noqa: E402

SEED, SIZE = 4, 12


def duckdb_pipeline(tmp_path: Path, name: str = "remedy") -> Any:
    destination = dlt.destinations.duckdb(str(tmp_path / "warehouse.duckdb"))
    return dlt.pipeline(
        name, destination=destination, dataset_name="remedy", pipelines_dir=str(tmp_path / "p")
    )


def duckdb_tables(tmp_path: Path, *only: str) -> dict[str, list[dict[str, Any]]]:
    with duckdb.connect(str(tmp_path / "warehouse.duckdb")) as connection:
        tables = {}
        for table in only or TABLES:
            cursor = connection.execute(f"SELECT * FROM remedy.{table} ORDER BY id")
            columns = [column[0] for column in cursor.description]
            tables[table] = table_rows(columns, cursor.fetchall())
        return tables


def assert_tables_hold_the_dataset(
    tables: dict[str, list[dict[str, Any]]], simulator: Simulator
) -> None:
    for table, collection in TABLES.items():
        assert tables[table] == expected_rows(simulator, collection), table


async def run(pipeline: Any, source: Any) -> Any:
    """Run the pipeline in a thread: dlt drives the source's async generators on a loop of its
    own while this loop serves the simulator."""
    return await asyncio.to_thread(pipeline.run, source)


async def change_and_remove(simulator: Simulator) -> dict[str, list[str]]:
    """Change some records and remove others on the simulator; return the removed ids."""
    dataset = simulator.dataset
    dataset.update("scopes", dataset.id_of("scopes", 1), {"name": "Renamed", "status": "paused"})
    finding = dataset.id_of("vulnerability-findings", 3)
    dataset.update("vulnerability-findings", finding, {"severity": "low", "cvss_score": 1.5})
    removed = {
        "endpoints": [dataset.id_of("endpoints", 2)],
        "vulnerability_findings": [dataset.id_of("vulnerability-findings", 5)],
    }
    dataset.hide("endpoints", removed["endpoints"])
    dataset.hide("vulnerability-findings", removed["vulnerability_findings"])
    return removed


async def test_duckdb_tables_equal_the_dataset_after_changes_and_removals(tmp_path: Path) -> None:
    """Loaded, changed and removed on the service, rerun: DuckDB's tables equal the dataset."""
    async with Simulator(SimulatorConfig(seed=SEED, size=SIZE)) as simulator:
        pipeline = duckdb_pipeline(tmp_path)
        await run(pipeline, remedy_source(simulator.url, page_size=40))
        assert_tables_hold_the_dataset(duckdb_tables(tmp_path), simulator)
        removed = await change_and_remove(simulator)
        await run(pipeline, remedy_source(simulator.url, page_size=40, removed=removed))
        assert_tables_hold_the_dataset(duckdb_tables(tmp_path), simulator)
    assert unfinished(pipeline) == {}


async def test_postgres_tables_equal_the_dataset_after_changes_and_removals(
    tmp_path: Path, postgres_url: str
) -> None:
    """The same load, change and removal against a real PostgreSQL server."""
    psycopg2 = pytest.importorskip("psycopg2", reason="dlt's postgres extra is not installed")
    async with Simulator(SimulatorConfig(seed=SEED, size=SIZE)) as simulator:
        pipeline = dlt.pipeline(
            "remedy_pg",
            destination=dlt.destinations.postgres(postgres_url),
            dataset_name="remedy",
            pipelines_dir=str(tmp_path / "p"),
        )
        await run(pipeline, remedy_source(simulator.url, page_size=40))
        removed = await change_and_remove(simulator)
        await run(pipeline, remedy_source(simulator.url, page_size=40, removed=removed))
        tables = {}
        with psycopg2.connect(postgres_url) as connection, connection.cursor() as cursor:
            for table in TABLES:
                cursor.execute(f"SELECT * FROM remedy.{table} ORDER BY id")
                columns = [column[0] for column in cursor.description]
                tables[table] = table_rows(columns, cursor.fetchall())
        assert_tables_hold_the_dataset(tables, simulator)


async def test_an_interrupted_extract_resumes_where_it_stopped_without_duplicates(
    tmp_path: Path,
) -> None:
    """A run stopped by the service keeps its token; the next extracts only the rest, once."""
    failing = SimulatorConfig(
        seed=0, size=30, faults=[FaultSpec("http-500", 0.3, "list:vulnerability-findings")]
    )
    pipeline = duckdb_pipeline(tmp_path)
    findings = ["vulnerability_findings"]
    async with Simulator(failing) as simulator:
        source = remedy_source(
            simulator.url,
            collections=findings,
            page_size=50,
            client_options={"retry": RetryPolicy(attempts=1)},
        )
        await run(pipeline, source)
    first = duckdb_tables(tmp_path, *findings)["vulnerability_findings"]
    assert len(first) == 146  # three pages of 50 (overlapping by 2), then a 500
    assert list(unfinished(pipeline)) == findings
    assert "ServerError" in str(unfinished(pipeline)["vulnerability_findings"])
    async with Simulator(SimulatorConfig(seed=0, size=30)) as healthy:
        info = await run(pipeline, remedy_source(healthy.url, collections=findings, page_size=50))
        second_load = info.loads_ids[-1]
        expected = [row["id"] for row in expected_rows(healthy, "vulnerability-findings")]
    with duckdb.connect(str(tmp_path / "warehouse.duckdb")) as connection:
        ids = [
            row[0]
            for row in connection.execute(
                "SELECT id FROM remedy.vulnerability_findings ORDER BY id"
            ).fetchall()
        ]
        (again,) = connection.execute(
            "SELECT count(*) FROM remedy.vulnerability_findings WHERE _dlt_load_id = ?",
            [second_load],
        ).fetchone()
    assert ids == sorted(expected)
    assert again == len(expected) - 146  # the second run extracted only what was missing
    assert unfinished(pipeline) == {}


async def test_max_items_advances_a_backfill_run_by_run(tmp_path: Path) -> None:
    """With max_items, each run extracts the next records after the previous run's."""
    pipeline = duckdb_pipeline(tmp_path)
    async with Simulator(SimulatorConfig(seed=SEED, size=SIZE)) as simulator:
        total = simulator.dataset.count("scopes")
        source = remedy_source(simulator.url, collections=["scopes"], page_size=5, max_items=10)
        await run(pipeline, source)
        assert len(duckdb_tables(tmp_path, "scopes")["scopes"]) == 10
        assert unfinished(pipeline) == {"scopes": None}
        while unfinished(pipeline):
            await run(pipeline, remedy_source(simulator.url, collections=["scopes"], page_size=5))
        assert len(duckdb_tables(tmp_path, "scopes")["scopes"]) == total


async def test_the_client_runs_on_dlts_own_event_loop(tmp_path: Path) -> None:
    """Each resource's client runs on the loop dlt drives in its own thread, not the caller's."""
    seen: list[tuple[int, str]] = []

    def hook(event: ClientEvent) -> None:
        seen.append((id(asyncio.get_running_loop()), threading.current_thread().name))

    async with Simulator(SimulatorConfig(seed=SEED, size=SIZE)) as simulator:
        options = {"event_hooks": [hook]}
        source = remedy_source(simulator.url, collections=["scopes"], client_options=options)
        await run(duckdb_pipeline(tmp_path), source)
    assert seen
    assert {loop for loop, _ in seen}.isdisjoint({id(asyncio.get_running_loop())})
    assert threading.main_thread().name not in {thread for _, thread in seen}


def test_column_hints_follow_the_published_models() -> None:
    """Published fields get typed hints under their snake_case names, nested objects and
    `extra` are JSON, `updated_at` sorts duplicates where typed; a finding has only its typed
    fields and `extra`; with nesting, objects are left to dlt to flatten."""
    endpoints = column_hints(ENDPOINTS)
    assert endpoints["id"] == {"data_type": "text", "nullable": False}
    assert endpoints["operating_system"]["data_type"] == "json"
    assert endpoints["extra"]["data_type"] == "json"
    assert endpoints["created_at"] == {"data_type": "timestamp", "nullable": True, "timezone": True}
    assert endpoints["updated_at"]["dedup_sort"] == "desc"
    assert list(column_hints(VULNERABILITY_FINDINGS)) == [
        "id",
        "created_at",
        "updated_at",
        "extra",
        DELETED_COLUMN,
    ]
    scopes = column_hints(SCOPES)
    assert scopes["finding_filter"]["data_type"] == "json"
    assert not any("dedup_sort" in hint for hint in scopes.values())
    nested = column_hints(ENDPOINTS, nested=True)
    assert "operating_system" not in nested
    assert "extra" not in nested


def test_without_dlt_the_source_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    """remedy_source without dlt installed raises MissingDependencyError naming `[dlt]`."""
    monkeypatch.setitem(sys.modules, "dlt", None)
    with pytest.raises(MissingDependencyError, match=r"remedy-async\[dlt\]") as raised:
        remedy_source("http://127.0.0.1:9")
    assert (raised.value.package, raised.value.extra) == ("dlt", "dlt")


async def test_an_integer_past_64_bits_loads_as_its_exact_digits(tmp_path: Path) -> None:
    """An integer past 64 bits loads as its exact digits (dlt writes none), others as sent."""
    big = 100000000000000000001
    finding = {
        "id": "00000000-0000-4000-8000-000000000003",
        "created_at": "2026-03-01T12:00:00Z",
        "count": big,
        "deep": {"values": [-big, 2**63 - 1, 1e308, 5e-324, 0.1]},
    }
    service = PublishedService({**dataset(3, dict.fromkeys(COLLECTIONS, 0)),
                                "vulnerability-findings": [finding]}, token=None)  # fmt: skip

    def handler(request: MockRequest) -> MockResponse:
        status, body = service.answer(str(request.url.relative()), request.query, {})
        return MockResponse(status, {"Content-Type": "application/json"}, msgspec.json.encode(body))

    source = remedy_source(
        "https://remedy.test",
        "tok_live_9c41e2b7d5a3",
        collections=["vulnerability_findings"],
        client_options={"transport": MockTransport(handler)},
    )
    await run(duckdb_pipeline(tmp_path), source)
    with duckdb.connect(str(tmp_path / "warehouse.duckdb")) as connection:
        ((extra,),) = connection.execute(
            "SELECT extra FROM remedy.vulnerability_findings"
        ).fetchall()
    assert msgspec.json.decode(extra) == {
        "count": str(big), "deep": {"values": [str(-big), 2**63 - 1, 1e308, 5e-324, 0.1]}
    }  # fmt: skip
