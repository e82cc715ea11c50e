"""`Pager.as_arrow()` and `remedy_async.columnar`: fixed schemas, exact values, checked records."""

from __future__ import annotations

import sys
from typing import Any

import pytest
from aiohttp import web

from remedy_async import (
    ContractDriftWarning,
    DecodeError,
    MissingDependencyError,
    RemediationTarget,
    RemedyClient,
    VulnerabilityFinding,
)
from remedy_async.columnar import arrow_schema, checked_dicts, record_batch, records_of
from remedy_async.simulator import Simulator, SimulatorConfig
from tests.loopback import Serve

pa = pytest.importorskip("pyarrow", reason="the arrow extra is not installed")

COLLECTIONS = ("endpoints", "remediation_targets", "scopes", "vulnerability_findings")


def without_nulls(value: Any) -> Any:
    """A wire value with its null fields left out, at any depth (Arrow holds them as null)."""
    if isinstance(value, dict):
        return {key: without_nulls(item) for key, item in value.items() if item is not None}
    return value


async def test_batches_read_back_equal_the_served_records() -> None:
    """Every collection's batches read back as the served records, in order, record for record."""
    async with (
        Simulator(SimulatorConfig(seed=2, size=25)) as simulator,
        RemedyClient(simulator.url) as client,
    ):
        for name in COLLECTIONS:
            collection = getattr(client, name)
            batches = collection.list(page_size=40).as_arrow()
            rows = [row async for batch in batches for row in records_of(batch)]
            served = await collection.list(page_size=40).as_dicts().collect()
            assert rows == [without_nulls(record) for record in served], name
            assert batches.resume_token is None


async def test_every_batch_has_the_resources_fixed_schema() -> None:
    """Pages with and without unknown fields give the same typed schema."""
    async with (
        Simulator(SimulatorConfig(seed=2, size=25)) as simulator,
        RemedyClient(simulator.url) as client,
    ):
        batches = client.vulnerability_findings.list(page_size=10).as_arrow()
        schemas = {batch.schema async for batch in batches}
    assert schemas == {arrow_schema(VulnerabilityFinding)}
    schema = arrow_schema(VulnerabilityFinding)
    assert schema.field("detectedAt").type == pa.timestamp("us", tz="UTC")
    assert schema.field("cvssScore").type == pa.float64()
    assert schema.field("package").type.field("installedVersion").type == pa.string()
    assert schema.field("extra").type == pa.string()
    assert not schema.field("id").nullable


def test_unknown_keys_at_any_depth_are_kept_in_extra() -> None:
    """Keys the model lacks, top level or nested, go to `extra` and come back in place."""
    record = {
        "id": "vf-1",
        "severity": "apocalyptic",  # an unknown enum value is kept as its string
        "package": {"name": "openssl", "vendorUrl": "https://example.org"},
        "riskScore": 7,
    }
    batch = record_batch(VulnerabilityFinding, [record])
    assert batch.column("extra").to_pylist() == [
        '{"riskScore":7,"package":{"vendorUrl":"https://example.org"}}'
    ]
    assert records_of(batch) == [record]


def test_values_arrow_does_not_take_are_written_as_the_model_reads_them() -> None:
    """An int id, `3.0` for an int and a zoneless timestamp are stored as the model reads them."""
    record = {"id": 7, "attempts": 3.0, "createdAt": "2024-05-01T10:00:00"}
    batch = record_batch(RemediationTarget, [record])
    assert batch.schema == arrow_schema(RemediationTarget)
    assert records_of(batch) == [{"id": "7", "attempts": 3, "createdAt": "2024-05-01T10:00:00Z"}]


async def test_batch_rows_cuts_exact_batches_and_resumes_after_the_latest() -> None:
    """batch_rows=7 cuts batches of 7 across pages; the token after two resumes at record 15."""
    async with (
        Simulator(SimulatorConfig(seed=2, size=25)) as simulator,
        RemedyClient(simulator.url) as client,
    ):
        batches = client.scopes.list(page_size=5).as_arrow(batch_rows=7)
        iterator = aiter(batches)
        sizes = [(await anext(iterator)).num_rows for _ in range(2)]
        token = batches.resume_token
        await iterator.aclose()
        rest = client.scopes.list(page_size=5, resume_token=token).as_arrow(batch_rows=7)
        resumed = [row["id"] async for batch in rest for row in records_of(batch)]
    assert sizes == [7, 7]
    assert resumed == list(simulator.dataset.ids("scopes"))[14:]


@pytest.mark.parametrize("batch_rows", [0, -1, 1.5, True])
def test_batch_rows_must_be_a_positive_int(batch_rows: Any) -> None:
    """A batch size that is not an int of at least 1 is refused before any I/O."""
    client = RemedyClient("http://127.0.0.1:9")
    with pytest.raises(ValueError, match="batch_rows"):
        client.scopes.list().as_arrow(batch_rows=batch_rows)


async def test_a_record_that_does_not_decode_is_a_decode_error(serve: Serve) -> None:
    """A record its model refuses is a DecodeError with its path, never written."""

    async def findings(_: web.Request) -> web.Response:
        return web.json_response([{"id": "vf-1"}, {"id": "vf-2", "detectedAt": 5}])

    url = await serve({"/v1/vulnerability-findings": findings})
    async with RemedyClient(url, allow_insecure_http=True) as client:
        rows = checked_dicts(client.vulnerability_findings.list())
        with pytest.raises(DecodeError) as raised:
            await rows.collect()
    assert raised.value.path == "$[1].detectedAt"


async def test_snake_case_records_are_checked_and_respelt_in_camel_case() -> None:
    """A service spelling keys in snake case gives camelCase dicts, as the contract spells."""
    async with (
        Simulator(SimulatorConfig(seed=2, size=10, naming="snake")) as simulator,
        RemedyClient(simulator.url) as client,
    ):
        with pytest.warns(ContractDriftWarning):
            rows = await checked_dicts(client.endpoints.list()).collect()
    assert "displayName" in rows[0]
    assert "display_name" not in rows[0]


def test_without_pyarrow_arrow_output_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    """Arrow output without pyarrow raises MissingDependencyError naming `[arrow]`."""
    monkeypatch.setitem(sys.modules, "pyarrow", None)
    with pytest.raises(MissingDependencyError, match=r"remedy-async\[arrow\]") as raised:
        arrow_schema(VulnerabilityFinding)
    assert raised.value.extra == "arrow"
