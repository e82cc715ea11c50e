"""`remedy_async.columnar` (`arrow_batches(pager)` and the rest): fixed schemas, exact values,
checked records."""

from __future__ import annotations

import sys
from datetime import datetime
from typing import Any

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from remedy_async import (
    RESOURCES,
    ContractDriftWarning,
    DecodeError,
    Endpoint,
    MissingDependencyError,
    MockResponse,
    RemediationTarget,
    RemedyClient,
    Scope,
    VulnerabilityFinding,
)
from remedy_async._columnar._arrow import BatchBuilder
from remedy_async._wire._types import read_timestamp
from remedy_async.columnar import (
    arrow_batches,
    arrow_schema,
    checked_dicts,
    record_batch,
    records_of,
)
from remedy_async.simulator import Simulator, SimulatorConfig
from tests.columnar.forms import model_of, read_back
from tests.fakes import scope_record
from tests.mock_service import Routes

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


async def test_a_record_that_does_not_decode_is_a_decode_error() -> None:
    """A record its model refuses is a DecodeError with its path, never written."""
    sent = [{"id": "vf-1"}, {"id": "vf-2", "created_at": 5}]
    service = Routes({"/v1/vulnerability-findings": lambda _: MockResponse.json(200, sent)})
    async with service.client() as client:
        rows = checked_dicts(client.vulnerability_findings.list())
        with pytest.raises(DecodeError) as raised:
            await rows.collect()
    assert raised.value.path == "$[1].created_at"


async def test_camel_case_records_are_checked_and_respelt_in_snake_case() -> None:
    """A service spelling keys in camelCase gives snake_case dicts, as the contract spells."""

    def camel(key: str) -> str:
        head, *rest = key.split("_")
        return head + "".join(part.title() for part in rest)

    served = {camel(key): value for key, value in ENDPOINT.items()}

    page = {"data": [served], "total": 1, "limit": 100, "offset": 0}
    service = Routes({"/v1/endpoints": lambda _: MockResponse.json(200, page)})
    async with service.client() as client:
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


async def test_arrow_reads_served_records_itself_as_column_by_column_parsing_does() -> None:
    """Every collection's served pages are read by Arrow from the dicts in one pass (no value
    is refused, so nothing is parsed value by value), into the batch the column-by-column
    path (Python's parsing of each timestamp) builds."""
    async with (
        Simulator(SimulatorConfig(seed=3, size=25)) as simulator,
        RemedyClient(simulator.url) as client,
    ):
        for resource in RESOURCES:
            collection = getattr(client, resource.attribute)
            rows = await checked_dicts(collection.list(page_size=100)).collect()
            builder = BatchBuilder(resource.model)
            direct = builder._build_direct(pa, rows)
            assert direct.equals(builder._build(pa, rows)), resource.segment
            assert direct.equals(record_batch(resource, rows)), resource.segment


@st.composite
def stamps(draw: st.DrawFn) -> str:
    """ISO 8601 times as services write them: `Z`, an offset or no zone, 0 to 9 digits of a
    second."""
    moment = draw(st.datetimes(min_value=datetime(1970, 1, 2), max_value=datetime(2200, 1, 1)))
    text = moment.strftime("%Y-%m-%dT%H:%M:%S")
    digits = draw(st.sampled_from([0, 3, 6, 9]))
    if digits:
        text += "." + f"{moment.microsecond:06d}{draw(st.integers(0, 999)):03d}"[:digits]
    return text + draw(st.sampled_from(["Z", "+00:00", "+05:30", "-08:00", ""]))


JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**53), 2**53)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=6),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3)
    ),
    max_leaves=6,
)
TYPED = ("id", "created_at", "updated_at")


@st.composite
def finding_rows(draw: st.DrawFn) -> dict[str, Any]:
    """Finding wire dicts: timestamps present, null or absent; any other keys, or none."""
    row: dict[str, Any] = {"id": str(draw(st.uuids()))}
    for name in TYPED[1:]:
        form = draw(st.sampled_from(["absent", "null", "time"]))
        if form != "absent":
            row[name] = draw(stamps()) if form == "time" else None
    others = st.text(min_size=1, max_size=8).filter(lambda key: key not in TYPED)
    row.update(draw(st.dictionaries(others, JSON_VALUES, max_size=4)))
    return row


def _as_read(text: str | None) -> datetime | None:
    """A wire time as the model reads it (a zoneless one in UTC, a fraction finer than a
    microsecond rounded)."""
    return None if text is None else read_timestamp(text)


@given(st.lists(finding_rows(), min_size=1, max_size=12))
def test_timestamps_and_extra_are_written_as_the_model_reads_them(
    rows: list[dict[str, Any]],
) -> None:
    """Whatever the form of a page's times (Arrow's cast takes some, the model's reader the
    rest) and whichever rows have keys beyond the columns, every time reads as the model reads
    it and every record reads back whole."""
    batch = record_batch(VulnerabilityFinding, rows)
    for name in TYPED[1:]:
        expected = [_as_read(row.get(name)) for row in rows]
        assert batch.column(name).to_pylist() == expected, name
    extras = [{k: v for k, v in row.items() if k not in TYPED} or None for row in rows]
    assert [None if e is None else orjson.loads(e) for e in batch.column("extra").to_pylist()] == (
        extras
    )


def test_extra_holds_integers_past_64_bits_exactly_at_any_depth() -> None:
    """`extra` holds integers past 64 bits as digits at any depth and reads them back exact."""
    big = 100000000000000000001
    endpoint = {**ENDPOINT, "risk_score": big, "operating_system": {
        **ENDPOINT["operating_system"], "build": -big, "seen": [2**70, -0.0]}}  # fmt: skip
    finding = {"id": "f-1", "count": big, "nested": {"values": [big, 1e308, 5e-324]}}
    scope = scope_record(finding_filter={"min_cvss_score": 2**60, "weight": big})
    for model, record in ((Endpoint, endpoint), (VulnerabilityFinding, finding), (Scope, scope)):
        batch = record_batch(model, [record])
        assert str(big) in batch.column("extra").to_pylist()[0]
        assert records_of(batch) == [read_back(record, model)]
    (read,) = records_of(record_batch(Endpoint, [endpoint]))
    assert type(read["risk_score"]) is int
    assert str(read["operating_system"]["seen"][1]) == "-0.0"
