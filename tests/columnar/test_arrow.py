"""`remedy_async.columnar` (`arrow_batches(pager)` and the rest): fixed schemas, exact values,
checked records."""

from __future__ import annotations

import sys
from typing import Any

import pytest
from aiohttp import web

from remedy_async import (
    ContractDriftWarning,
    DecodeError,
    Endpoint,
    MissingDependencyError,
    RemediationTarget,
    RemedyClient,
    Scope,
    VulnerabilityFinding,
)
from remedy_async.columnar import (
    arrow_batches,
    arrow_schema,
    checked_dicts,
    record_batch,
    records_of,
)
from remedy_async.simulator import Simulator, SimulatorConfig
from tests.columnar.forms import model_of, read_back
from tests.loopback import Serve

pa = pytest.importorskip("pyarrow", reason="the arrow extra is not installed")

COLLECTIONS = ("endpoints", "remediation_targets", "scopes", "vulnerability_findings")


async def test_batches_read_back_equal_the_served_records() -> None:
    """Every collection's batches read back as the served records, in order, record for record."""
    async with (
        Simulator(SimulatorConfig(seed=2, size=25)) as simulator,
        RemedyClient(simulator.url) as client,
    ):
        for name in COLLECTIONS:
            collection = getattr(client, name)
            batches = arrow_batches(collection.list(page_size=40))
            rows = [row async for batch in batches for row in records_of(batch)]
            served = await collection.list(page_size=40).as_dicts().collect()
            assert rows == [read_back(record, model_of(name)) for record in served], name
            assert batches.resume_token is None


async def test_every_batch_has_the_resources_fixed_schema() -> None:
    """Pages with and without unknown fields give the same typed schema: published fields
    typed under their snake_case names, nested objects as structs, the rest in `extra`."""
    async with (
        Simulator(SimulatorConfig(seed=2, size=25)) as simulator,
        RemedyClient(simulator.url) as client,
    ):
        batches = arrow_batches(client.vulnerability_findings.list(page_size=10))
        schemas = {batch.schema async for batch in batches}
    assert schemas == {arrow_schema(VulnerabilityFinding)}
    findings = arrow_schema(VulnerabilityFinding)
    assert findings.names == ["id", "created_at", "updated_at", "extra"]
    assert findings.field("updated_at").type == pa.timestamp("us", tz="UTC")
    assert findings.field("extra").type == pa.string()
    assert not findings.field("id").nullable
    endpoints = arrow_schema(Endpoint)
    assert endpoints.names == [
        "id",
        "hostname",
        "ip",
        "mac_address",
        "operating_system",
        "agent_id",
        "agent_version",
        "created_at",
        "updated_at",
        "extra",
    ]
    system = endpoints.field("operating_system").type
    assert [system.field(i).name for i in range(system.num_fields)] == [
        "name",
        "family",
        "version",
        "vendor",
        "architecture",
    ]
    assert system.field("family").type == pa.string()
    scopes = arrow_schema(Scope)
    assert scopes.field("status").type == pa.string()
    subjects = scopes.field("subject_filter").type
    assert subjects.field("subject_types").type == pa.list_(pa.string())
    assert scopes.field("endpoint_filter").type.field("has_agent").type == pa.bool_()
    assert scopes.field("finding_filter").type.field("min_cvss_score").type == pa.float64()


ENDPOINT = {
    "id": "0b7c4d2e-9a1f-4e3b-8c5d-6f7a8b9c0d1e",
    "hostname": "mac-01",
    "ip": None,
    "mac_address": "a4:83:e7:00:00:01",
    "operating_system": {"name": "macOS", "family": "macos", "version": "14.4", "kernel": "23E"},
    "agent_id": None,
    "agent_version": None,
    "created_at": "2024-05-01T10:00:00Z",
    "updated_at": "2024-05-02T10:00:00Z",
    "risk_score": 7,
}


def test_unknown_keys_at_any_depth_are_kept_in_extra() -> None:
    """Keys the model lacks, top level or nested, go to `extra` and come back in place."""
    batch = record_batch(Endpoint, [ENDPOINT])
    assert batch.column("extra").to_pylist() == [
        '{"risk_score":7,"operating_system":{"kernel":"23E"}}'
    ]
    assert records_of(batch) == [read_back(ENDPOINT, Endpoint)]


def test_a_findings_fields_are_reachable_in_extra_from_duckdb() -> None:
    """A finding's untyped fields are one JSON column that DuckDB reads with `->>`."""
    duckdb = pytest.importorskip("duckdb", reason="the duckdb extra is not installed")
    finding = {
        "id": "5d0e8f1a-2b3c-4d5e-9f60-718293a4b5c6",
        "created_at": "2024-05-01T10:00:00Z",
        "severity": "apocalyptic",
        "cvss_score": 9.8,
        "kev": True,
    }
    batch = record_batch(VulnerabilityFinding, [finding])
    assert records_of(batch) == [finding]
    with duckdb.connect() as db:
        db.register("findings", pa.Table.from_batches([batch]))
        row = db.execute(
            "SELECT id, extra->>'severity', CAST(extra->>'cvss_score' AS DOUBLE), "
            "CAST(json_extract(extra, '$.kev') AS BOOLEAN), updated_at FROM findings"
        ).fetchone()
    assert row == (finding["id"], "apocalyptic", 9.8, True, None)


def test_values_arrow_does_not_take_are_written_as_the_model_reads_them() -> None:
    """An int id and a zoneless timestamp are stored as the model reads them."""
    record = {"id": 7, "created_at": "2024-05-01T10:00:00", "name": "Google Chrome"}
    batch = record_batch(RemediationTarget, [record])
    assert batch.schema == arrow_schema(RemediationTarget)
    assert records_of(batch) == [
        {"id": "7", "created_at": "2024-05-01T10:00:00Z", "name": "Google Chrome"}
    ]


async def test_batch_rows_cuts_exact_batches_and_resumes_after_the_latest() -> None:
    """batch_rows=7 cuts batches of 7 across pages; the token after two resumes at record 15."""
    async with (
        Simulator(SimulatorConfig(seed=2, size=25)) as simulator,
        RemedyClient(simulator.url) as client,
    ):
        batches = arrow_batches(client.scopes.list(page_size=5), batch_rows=7)
        iterator = aiter(batches)
        sizes = [(await anext(iterator)).num_rows for _ in range(2)]
        token = batches.resume_token
        await iterator.aclose()
        rest = arrow_batches(client.scopes.list(page_size=5, resume_token=token), batch_rows=7)
        resumed = [row["id"] async for batch in rest for row in records_of(batch)]
    assert sizes == [7, 7]
    assert resumed == list(simulator.dataset.ids("scopes"))[14:]


@pytest.mark.parametrize("batch_rows", [0, -1, 1.5, True])
def test_batch_rows_must_be_a_positive_int(batch_rows: Any) -> None:
    """A batch size that is not an int of at least 1 is refused before any I/O."""
    client = RemedyClient("http://127.0.0.1:9")
    with pytest.raises(ValueError, match="batch_rows"):
        arrow_batches(client.scopes.list(), batch_rows=batch_rows)


def test_only_a_typed_pager_is_taken() -> None:
    """An `as_dicts()` pager (whose records no model checks) is a TypeError, before any I/O."""
    client = RemedyClient("http://127.0.0.1:9")
    with pytest.raises(TypeError, match="typed pager"):
        arrow_batches(client.scopes.list().as_dicts())
    with pytest.raises(TypeError, match="typed pager"):
        checked_dicts(client.scopes.list().as_dicts())


async def test_a_record_that_does_not_decode_is_a_decode_error(serve: Serve) -> None:
    """A record its model refuses is a DecodeError with its path, never written."""

    async def findings(_: web.Request) -> web.Response:
        return web.json_response([{"id": "vf-1"}, {"id": "vf-2", "created_at": 5}])

    url = await serve({"/v1/vulnerability-findings": findings})
    async with RemedyClient(url, allow_insecure_http=True) as client:
        rows = checked_dicts(client.vulnerability_findings.list())
        with pytest.raises(DecodeError) as raised:
            await rows.collect()
    assert raised.value.path == "$[1].created_at"


async def test_camel_case_records_are_checked_and_respelt_in_snake_case(serve: Serve) -> None:
    """A service spelling keys in camelCase gives snake_case dicts, as the contract spells."""

    def camel(key: str) -> str:
        head, *rest = key.split("_")
        return head + "".join(part.title() for part in rest)

    served = {camel(key): value for key, value in ENDPOINT.items()}

    async def endpoints(_: web.Request) -> web.Response:
        page = {"data": [served], "total": 1, "limit": 100, "offset": 0}
        return web.json_response(page)

    url = await serve({"/v1/endpoints": endpoints})
    async with RemedyClient(url, allow_insecure_http=True) as client:
        with pytest.warns(ContractDriftWarning, match="camel"):
            rows = await checked_dicts(client.endpoints.list()).collect()
    published = {key: value for key, value in ENDPOINT.items() if key != "risk_score"}
    assert rows == [{**published, "riskScore": 7}]  # an unknown key is kept as sent


def test_without_pyarrow_arrow_output_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    """Arrow output without pyarrow raises MissingDependencyError naming `[arrow]`."""
    monkeypatch.setitem(sys.modules, "pyarrow", None)
    with pytest.raises(MissingDependencyError, match=r"remedy-async\[arrow\]") as raised:
        arrow_schema(VulnerabilityFinding)
    assert raised.value.extra == "arrow"
