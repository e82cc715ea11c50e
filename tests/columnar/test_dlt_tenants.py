"""The dlt source over many tenants (`remedy_source(tenants=...)`), served by published-contract
organisations in a `MockTransport` and loaded into DuckDB (embedded)."""

from __future__ import annotations

import logging
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from remedy_async import ConfigurationError, MockTransport, Tenant

from .dlt_tables import table_rows

dlt = pytest.importorskip("dlt", reason="the dlt extra is not installed")
duckdb = pytest.importorskip("duckdb", reason="the duckdb extra is not installed")

from dlt.pipeline.exceptions import PipelineStepFailed  # noqa: E402

from remedy_async._models import ENDPOINTS  # noqa: E402
from remedy_async.dlt import column_hints, remedy_source, unfinished  # noqa: E402
from tests.tenancy.tenants_service import PublishedTenants  # noqa: E402

BASE_URL = "https://api.example.test"
SIZES = {"acme": 23, "globex": 17, "initech": 0}


def duckdb_pipeline(tmp_path: Path) -> Any:
    destination = dlt.destinations.duckdb(str(tmp_path / "warehouse.duckdb"))
    return dlt.pipeline(
        "remedy", destination=destination, dataset_name="remedy", pipelines_dir=str(tmp_path / "p")
    )


def tenants_source(service: PublishedTenants, **options: Any) -> Any:
    """The source of every tenant of `service`, its endpoints in pages of 5 unless told."""
    options.setdefault("collections", ["endpoints"])
    options.setdefault("page_size", 5)
    options.setdefault("environ", service.environ)
    return remedy_source(
        tenants=service.tenants,
        client_options={"transport": MockTransport(service.handler), "base_url": BASE_URL},
        **options,
    )


def loaded(tmp_path: Path, table: str = "endpoints") -> list[dict[str, Any]]:
    """A table's rows (dlt's columns left out but `_dlt_load_id`), by tenant and id."""
    with duckdb.connect(str(tmp_path / "warehouse.duckdb")) as connection:
        cursor = connection.execute(f"SELECT * FROM remedy.{table} ORDER BY tenant, id")
        columns = [column[0] for column in cursor.description]
        values = cursor.fetchall()
    rows = table_rows(columns, values)
    for row, raw in zip(rows, values, strict=True):
        row["_dlt_load_id"] = raw[columns.index("_dlt_load_id")]
    return rows


def ids_by_tenant(rows: list[dict[str, Any]]) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for row in rows:
        found.setdefault(row["tenant"], []).append(row["id"])
    return found


def share_ids(service: PublishedTenants, into: str, source: str = "acme") -> None:
    """Give tenant `into` records with the same ids as `source`'s (other hostnames)."""
    records = service.services[source].records["endpoints"]
    service.services[into].records["endpoints"] = [
        {**record, "hostname": f"{into}-{index}"} for index, record in enumerate(records)
    ]


def test_every_tenant_s_rows_are_in_one_table_led_by_the_tenant_column(tmp_path: Path) -> None:
    """Each collection is one table holding every tenant's rows, `tenant` its first column."""
    service = PublishedTenants(SIZES)
    pipeline = duckdb_pipeline(tmp_path)
    pipeline.run(tenants_source(service, collections=["endpoints", "scopes"]))
    rows = loaded(tmp_path)
    assert next(iter(rows[0])) == "tenant"  # the table's first column
    assert ids_by_tenant(rows) == {
        name: sorted(service.ids(name)) for name in SIZES if service.ids(name)
    }
    scopes = Counter(row["tenant"] for row in loaded(tmp_path, "scopes"))
    assert scopes == {name: len(service.ids(name, "scopes")) for name in SIZES}
    assert unfinished(pipeline) == {}


def test_the_tables_are_keyed_by_tenant_and_id(tmp_path: Path) -> None:
    """The tables' primary key is (`tenant`, `id`), `tenant` a non-null text column."""
    service = PublishedTenants(SIZES)
    pipeline = duckdb_pipeline(tmp_path)
    pipeline.run(tenants_source(service))
    columns = pipeline.default_schema.get_table("endpoints")["columns"]
    keys = [name for name, column in columns.items() if column.get("primary_key")]
    assert keys == ["tenant", "id"]
    assert columns["tenant"]["data_type"] == "text"
    assert columns["tenant"]["nullable"] is False
    assert pipeline.default_schema.get_table("endpoints")["write_disposition"] == "merge"


def test_two_tenants_with_one_id_stay_two_rows_across_runs(tmp_path: Path) -> None:
    """Records of two tenants with the same ids are two rows each, and a rerun merges them."""
    service = PublishedTenants({"acme": 6, "globex": 0})
    share_ids(service, "globex")
    pipeline = duckdb_pipeline(tmp_path)
    pipeline.run(tenants_source(service))
    pipeline.run(tenants_source(service))
    rows = loaded(tmp_path)
    assert Counter(row["id"] for row in rows) == dict.fromkeys(service.ids("acme"), 2)
    globex = {row["id"]: row["hostname"] for row in rows if row["tenant"] == "globex"}
    assert sorted(globex.values()) == [f"globex-{index}" for index in range(6)]


def test_a_tenant_refused_from_the_start_is_unfinished_and_the_others_load(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A tenant whose key is refused loads nothing; the others load, and the failure is
    logged and named by `unfinished`."""
    service = PublishedTenants(SIZES)
    service.services["globex"].token = "rotated"
    pipeline = duckdb_pipeline(tmp_path)
    with caplog.at_level(logging.WARNING, logger="remedy_async.dlt"):
        pipeline.run(tenants_source(service))
    assert set(ids_by_tenant(loaded(tmp_path))) == {"acme"}
    stops = unfinished(pipeline)
    assert list(stops) == ["endpoints/globex"]
    assert "AuthenticationError" in str(stops["endpoints/globex"])
    assert any("endpoints/globex" in message for message in caplog.messages)


def test_a_tenant_failing_mid_list_is_continued_exactly_by_the_next_run(tmp_path: Path) -> None:
    """A tenant whose key is rotated part-way keeps what it loaded; the next run extracts
    exactly its missing rows (none twice), and lists the tenants that had finished again."""
    service = PublishedTenants(SIZES)
    globex = service.services["globex"]

    def rotate(collection: str, served: int) -> None:
        if served == 2:  # the key stops working after two pages were served
            globex.token = "rotated"

    globex.between_pages = rotate
    pipeline = duckdb_pipeline(tmp_path)
    pipeline.run(tenants_source(service))
    first = ids_by_tenant(loaded(tmp_path))
    assert 0 < len(first["globex"]) < SIZES["globex"]
    assert first["acme"] == sorted(service.ids("acme"))
    assert list(unfinished(pipeline)) == ["endpoints/globex"]

    globex.token, globex.between_pages = "key-of-globex", None
    info = pipeline.run(tenants_source(service))
    rows = loaded(tmp_path)
    second = ids_by_tenant([row for row in rows if row["_dlt_load_id"] == info.loads_ids[-1]])
    assert sorted(first["globex"] + second["globex"]) == sorted(service.ids("globex"))
    assert second["acme"] == sorted(service.ids("acme"))  # finished: a complete pass again
    assert ids_by_tenant(rows) == {name: sorted(service.ids(name)) for name in ("acme", "globex")}
    assert unfinished(pipeline) == {}


def test_max_items_caps_each_tenant_and_advances_each_run_by_run(tmp_path: Path) -> None:
    """With max_items, each run extracts up to that many records of each tenant, after the
    previous run's, until every tenant's list is read."""
    service = PublishedTenants(SIZES)
    pipeline = duckdb_pipeline(tmp_path)
    pipeline.run(tenants_source(service, max_items=10))
    assert Counter(row["tenant"] for row in loaded(tmp_path)) == {"acme": 10, "globex": 10}
    assert unfinished(pipeline) == {"endpoints/acme": None, "endpoints/globex": None}
    loads = []
    while unfinished(pipeline):
        loads.append(pipeline.run(tenants_source(service, max_items=10)).loads_ids[-1])
    rows = loaded(tmp_path)
    by_load = [
        Counter(row["tenant"] for row in rows if row["_dlt_load_id"] == load) for load in loads
    ]
    assert by_load == [{"acme": 10, "globex": 7}, {"acme": 3}]
    assert ids_by_tenant(rows) == {name: sorted(service.ids(name)) for name in ("acme", "globex")}


def test_a_finished_tenant_waits_for_a_backfill_then_starts_over(tmp_path: Path) -> None:
    """A tenant read to its end is not listed while another is part-way through a max_items
    backfill; once every tenant is done, the next run lists each from the beginning."""
    service = PublishedTenants({"acme": 23, "globex": 4})
    pipeline = duckdb_pipeline(tmp_path)
    pipeline.run(tenants_source(service, max_items=10))
    globex = service.services["globex"]
    asked = len(globex.requests)
    pipeline.run(tenants_source(service, max_items=10))
    pipeline.run(tenants_source(service, max_items=10))
    assert len(globex.requests) == asked
    assert unfinished(pipeline) == {}
    info = pipeline.run(tenants_source(service, max_items=10))
    fresh = [row for row in loaded(tmp_path) if row["_dlt_load_id"] == info.loads_ids[-1]]
    assert Counter(row["tenant"] for row in fresh) == {"acme": 10, "globex": 4}


def test_removals_delete_the_row_of_the_tenant_they_name(tmp_path: Path) -> None:
    """A removed (tenant, id) deletes that tenant's row only; another tenant's row of the same
    id stays, and an id the same run lists for its tenant is not deleted."""
    service = PublishedTenants({"acme": 6, "globex": 0})
    share_ids(service, "globex")
    pipeline = duckdb_pipeline(tmp_path)
    pipeline.run(tenants_source(service))
    acme = service.services["acme"].records["endpoints"]
    gone = acme.pop(1)["id"]
    kept = service.ids("globex")[2]
    removed = {"endpoints": [("acme", gone), ("globex", kept)]}
    pipeline.run(tenants_source(service, removed=removed))
    found = ids_by_tenant(loaded(tmp_path))
    assert found["acme"] == sorted(service.ids("acme"))
    assert gone not in found["acme"]
    assert found["globex"] == sorted(service.ids("globex"))


def test_a_tenants_file_names_the_tenants(tmp_path: Path) -> None:
    """A tenants file's path reads the tenants it names, their tokens from `environ`."""
    service = PublishedTenants({"acme": 4, "globex": 3})
    tenants_file = tmp_path / "tenants.toml"
    tenants_file.write_text(
        "".join(
            f'[[tenant]]\nname = "{name}"\ntoken_env = "{name.upper()}_TOKEN"\n'
            for name in ("acme", "globex")
        ),
        encoding="utf-8",
    )
    pipeline = duckdb_pipeline(tmp_path)
    source = remedy_source(
        tenants=tenants_file,
        environ=service.environ,
        collections=["endpoints"],
        client_options={"transport": MockTransport(service.handler), "base_url": BASE_URL},
    )
    pipeline.run(source)
    assert Counter(row["tenant"] for row in loaded(tmp_path)) == {"acme": 4, "globex": 3}


def test_column_hints_with_tenants_lead_with_the_tenant_column() -> None:
    """With tenants, the hints start with a non-null text `tenant` column, the rest unchanged."""
    hints = column_hints(ENDPOINTS, tenants=True)
    assert next(iter(hints.items())) == ("tenant", {"data_type": "text", "nullable": False})
    assert {name: hint for name, hint in hints.items() if name != "tenant"} == column_hints(
        ENDPOINTS
    )
    assert "tenant" not in column_hints(ENDPOINTS)


@pytest.mark.parametrize(
    "given", [{"base_url": BASE_URL}, {"token": "key-of-acme"}], ids=["base_url", "token"]
)
def test_base_url_and_token_are_refused_with_tenants(given: dict[str, Any]) -> None:
    """With tenants, a base_url or token of the source's own is a ConfigurationError."""
    service = PublishedTenants({"acme": 1})
    with pytest.raises(ConfigurationError, match="leave out base_url and token"):
        remedy_source(tenants=service.tenants, environ=service.environ, **given)


@pytest.mark.parametrize(
    "given", [{"max_connections": 8}, {"environ": {}}], ids=["max_connections", "environ"]
)
def test_the_tenants_settings_are_refused_without_tenants(given: dict[str, Any]) -> None:
    """max_connections and environ without tenants are a ConfigurationError."""
    with pytest.raises(ConfigurationError, match="many tenants"):
        remedy_source(BASE_URL, token="t", **given)


def test_a_missing_token_is_refused_when_the_source_is_made() -> None:
    """A tenant whose token is not there is a ConfigurationError naming it, before any
    request."""
    service = PublishedTenants({"acme": 1, "globex": 1})
    with pytest.raises(ConfigurationError, match=r"'globex'.*GLOBEX_TOKEN"):
        tenants_source(service, environ={"ACME_TOKEN": "key-of-acme"})
    assert all(not tenant.requests for tenant in service.services.values())


def test_client_settings_are_checked_when_the_source_is_made() -> None:
    """A client option the tenants' clients cannot take is refused by remedy_source itself."""
    tenants = [Tenant("acme", token_env="ACME_TOKEN")]
    with pytest.raises(ConfigurationError, match="token"):
        remedy_source(
            tenants=tenants, environ={"ACME_TOKEN": "k"}, client_options={"token": "other"}
        )


def test_a_bare_removed_id_is_refused_with_tenants() -> None:
    """With tenants, a removed id that names no tenant is a ConfigurationError."""
    service = PublishedTenants({"acme": 1})
    with pytest.raises(ConfigurationError, match=r"\(tenant, id\) pair"):
        tenants_source(service, removed={"endpoints": [service.ids("acme")[0]]})


def test_a_removal_of_an_unknown_tenant_is_refused() -> None:
    """A removal naming a tenant the source does not read is a ConfigurationError."""
    service = PublishedTenants({"acme": 1})
    with pytest.raises(ConfigurationError, match="did you mean 'acme'"):
        tenants_source(service, removed={"endpoints": [("acne", service.ids("acme")[0])]})


def test_a_removals_function_giving_bare_ids_fails_the_run(tmp_path: Path) -> None:
    """Removals from a function are checked when the run calls it: a bare id fails the run
    before any request."""
    service = PublishedTenants({"acme": 2})
    source = tenants_source(service, removed=lambda collection: ["some-id"])
    with pytest.raises(PipelineStepFailed) as failed:
        duckdb_pipeline(tmp_path).run(source)
    assert "(tenant, id) pair" in str(failed.value)
    assert service.services["acme"].requests == []
