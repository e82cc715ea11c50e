"""Every number the service sends is kept exactly, and every explicit null survives: in typed
records (`get`, `list`), `as_dicts()`, `to_wire`, the change feed and every output of the
command line (issue 41). A service answers scripted JSON bytes in a MockTransport, and over a
loopback socket where the socket is the point."""

from __future__ import annotations

import csv
import io
import math
from pathlib import Path
from typing import Any

import msgspec
import pytest

from remedy_async import (
    ChangeKind,
    DecodeError,
    Endpoint,
    MockRequest,
    MockResponse,
    MockTransport,
    RemediationTarget,
    RemedyClient,
    Scope,
    VulnerabilityFinding,
    from_wire,
    to_wire,
)
from remedy_async.columnar import records_of
from tests.cli.conftest import Published
from tests.columnar.forms import read_back
from tests.fakes import endpoint_record, scope_record
from tests.loopback import serve_handler
from tests.mock_service import BASE_URL

TOKEN = "tok_live_9c41e2b7d5a3"

BIG = 100000000000000000001
"""An integer past 64 bits, which a 64-bit JSON parser rounds to the float 1e+20."""
NEGATIVE = -100000000000000000001
FLOATS = {"largest": 1e308, "smallest": 5e-324, "tenth": 0.1, "negative_zero": -0.0}
DEEP = {"levels": [{"count": 2**80, "spread": [-(2**70), 1.5, {"inner": 10**30}]}], "none": None}
"""An unknown value holding big integers at depth, in objects and arrays."""

ENDPOINT = endpoint_record(
    "00000000-0000-4000-8000-000000000001",
    operating_system={"name": "Ubuntu", "family": "linux", "version": None, "build": 2**65},
    attempts=BIG,
    debt=NEGATIVE,
    deep=DEEP,
    **FLOATS,
)
"""An endpoint whose operating system sends `version` as null and leaves `vendor` and
`architecture` out, with big numbers in `extra` at every depth."""
SCOPE = scope_record(
    "00000000-0000-4000-8000-000000000002",
    endpoint_filter={"has_agent": None},
    finding_filter={"min_cvss_score": 0.1, "min_severity": None, "weight": BIG},
    budget=NEGATIVE,
    ratio=5e-324,
)
FINDING = {
    "id": "00000000-0000-4000-8000-000000000003",
    "created_at": None,
    "cvss": 1e308,
    "count": BIG,
    "epss": 5e-324,
    "delta": -0.0,
    "nested": DEEP,
}
"""A finding sending `created_at` as null and leaving `updated_at` out."""
TARGET = {
    "id": "00000000-0000-4000-8000-000000000004",
    "updated_at": "2026-03-01T12:00:00Z",
    "size": NEGATIVE,
    "share": 0.1,
}
RECORDS = {
    "endpoints": [ENDPOINT],
    "remediation-targets": [TARGET],
    "scopes": [SCOPE],
    "vulnerability-findings": [FINDING],
}
UNKNOWN = {
    "endpoints": {
        "attempts": BIG, "debt": NEGATIVE, "deep": DEEP, **FLOATS,
        "operating_system": {"build": 2**65},
    },
    "remediation-targets": {"size": NEGATIVE, "share": 0.1},
    "scopes": {"budget": NEGATIVE, "ratio": 5e-324, "finding_filter": {"weight": BIG}},
    "vulnerability-findings": {
        key: FINDING[key] for key in ("cvss", "count", "epss", "delta", "nested")
    },
}  # fmt: skip
"""What of each record no model field holds: its `extra`, nested ones in place (CSV's column)."""
MODELS = {
    "endpoints": Endpoint,
    "remediation-targets": RemediationTarget,
    "scopes": Scope,
    "vulnerability-findings": VulnerabilityFinding,
}
ATTRIBUTES = {
    "endpoints": "endpoints",
    "remediation-targets": "remediation_targets",
    "scopes": "scopes",
    "vulnerability-findings": "vulnerability_findings",
}


def exact(value: Any) -> Any:
    """`value` with each number tagged by its type and bits, so that comparing two of them
    tells 1 from 1.0, -0.0 from 0.0 and 1e+20 from 100000000000000000001."""
    if isinstance(value, dict):
        return {key: exact(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [exact(item) for item in value]
    if isinstance(value, float):
        return ("float", value.hex())
    if isinstance(value, int) and not isinstance(value, bool):
        return ("int", value)
    return value


class ExactService(Published):
    """The published contract over `RECORDS`, each body written exactly."""

    def __init__(self) -> None:
        super().__init__({segment: list(records) for segment, records in RECORDS.items()})

    def handler(self, request: MockRequest) -> MockResponse:
        """Answer as the published service does, every number written exactly."""
        self.requests.append(request)
        status, body = self.service.answer(
            str(request.url.relative()), request.query, request.headers
        )
        return MockResponse(status, {"Content-Type": "application/json"}, encode(body))

    def client(self) -> RemedyClient:
        return RemedyClient(BASE_URL, token=TOKEN, transport=MockTransport(self.handler))


def encode(value: Any) -> bytes:
    return msgspec.json.encode(value)


@pytest.fixture
def service() -> ExactService:
    return ExactService()


@pytest.mark.parametrize("segment", list(RECORDS))
async def test_get_keeps_every_number_and_null_as_sent(service: ExactService, segment: str) -> None:
    """A record got by id holds the service's numbers exactly and writes back as it came."""
    sent = RECORDS[segment][0]
    async with service.client() as client:
        record = await getattr(client, ATTRIBUTES[segment]).get(sent["id"])
    assert exact(to_wire(record)) == exact(sent)


async def test_a_typed_list_keeps_every_number_and_null_as_sent(service: ExactService) -> None:
    """Every record of every typed list writes back as the service sent it, numbers exact."""
    async with service.client() as client:
        for segment, sent in RECORDS.items():
            records = [item async for item in getattr(client, ATTRIBUTES[segment]).list()]
            assert [exact(to_wire(record)) for record in records] == exact(sent), segment


async def test_typed_records_hold_big_integers_as_ints_and_floats_as_sent(
    service: ExactService,
) -> None:
    """`extra` holds an integer past 64 bits as an int, at any depth, and each float as sent."""
    async with service.client() as client:
        endpoint = await client.endpoints.get(ENDPOINT["id"])
        finding = await client.vulnerability_findings.get(FINDING["id"])
    assert type(endpoint.extra["attempts"]) is int
    assert endpoint.extra["attempts"] == BIG
    assert endpoint.extra["debt"] == NEGATIVE
    assert endpoint.extra["deep"]["levels"][0]["spread"][2]["inner"] == 10**30
    assert endpoint.operating_system.extra == {"build": 2**65}
    assert exact({k: endpoint.extra[k] for k in FLOATS}) == exact(FLOATS)
    assert math.copysign(1.0, finding.extra["delta"]) == -1.0
    assert finding.extra["nested"] == DEEP


async def test_as_dicts_gives_the_records_as_sent(service: ExactService) -> None:
    """`as_dicts()` yields each record exactly as served, big integers and nulls included."""
    async with service.client() as client:
        for segment, sent in RECORDS.items():
            listed = getattr(client, ATTRIBUTES[segment]).list().as_dicts()
            assert exact([item async for item in listed]) == exact(sent), segment


@pytest.mark.parametrize("segment", list(RECORDS))
def test_to_wire_round_trips_the_wire_dict_exactly(segment: str) -> None:
    """`from_wire` then `to_wire` gives the wire dict back exactly, nulls and absences too."""
    sent = RECORDS[segment][0]
    assert exact(to_wire(from_wire(MODELS[segment], sent))) == exact(sent)


def test_an_explicit_null_and_an_absent_field_are_told_apart_in_a_nested_object() -> None:
    """`operating_system.version` sent as null is written as null; `vendor`, never sent, is not."""
    written = to_wire(from_wire(Endpoint, ENDPOINT))["operating_system"]
    assert written["version"] is None
    assert "vendor" not in written
    assert "architecture" not in written


async def test_over_a_socket_every_number_and_null_arrives_exact(service: ExactService) -> None:
    """The same bytes served over a loopback socket (aiohttp's reading of the body, not the
    MockTransport's) read back exactly, as typed records and dicts."""
    async with (
        serve_handler(service.handler) as url,
        RemedyClient(url, token=TOKEN) as client,
    ):
        for segment, sent in RECORDS.items():
            collection = getattr(client, ATTRIBUTES[segment])
            typed = [to_wire(record) async for record in collection.list()]
            plain = [item async for item in collection.list().as_dicts()]
            assert exact(typed) == exact(plain) == exact(sent), segment


async def test_a_number_too_large_for_a_float_is_a_decode_error_naming_where() -> None:
    """`1e400` in a record is a DecodeError naming its JSON path, never infinity."""
    body = b'{"data": [{"id": "f-1", "scores": [1, 1e400]}], "total": 1, "limit": 100, "offset": 0}'

    def handler(request: MockRequest) -> MockResponse:
        return MockResponse(200, {"Content-Type": "application/json"}, body)

    async with RemedyClient(BASE_URL, token=TOKEN, transport=MockTransport(handler)) as client:
        with pytest.raises(DecodeError) as info:
            [item async for item in client.vulnerability_findings.list()]
    assert info.value.path == "$.data[0].scores[1]"
    assert "too large for a float" in info.value.message
    assert "1e400" in str(info.value)


# The command line ----------------------------------------------------------------------------


def jsonl(path: Path) -> list[Any]:
    return [msgspec.json.decode(line) for line in path.read_bytes().splitlines()]


@pytest.mark.parametrize("form", ["jsonl", "json"])
async def test_list_writes_every_number_exactly(
    service: ExactService, tmp_path: Path, form: str
) -> None:
    """`list -o jsonl|json --out-file FILE` writes each record as sent, big integers as digits."""
    for segment, sent in RECORDS.items():
        out = tmp_path / f"{segment}.{form}"
        outcome = await service.run(
            "list", segment, "--base-url", service.url, "-o", form, "--out-file", str(out)
        )
        assert outcome.code == 0, outcome.stderr
        written = msgspec.json.decode(out.read_bytes()) if form == "json" else jsonl(out)
        assert exact(written) == exact(sent), segment
    assert b"100000000000000000001" in (tmp_path / f"endpoints.{form}").read_bytes()


async def test_export_jsonl_writes_every_number_exactly(
    service: ExactService, tmp_path: Path
) -> None:
    """`export --format jsonl` writes each record as sent: numbers exact, nulls kept."""
    outcome = await service.run("export", "--base-url", service.url, "--out", str(tmp_path))
    assert outcome.code == 0, outcome.stderr
    for segment, sent in RECORDS.items():
        assert exact(jsonl(tmp_path / f"{segment}.jsonl")) == exact(sent), segment


async def test_export_csv_writes_extra_and_its_columns_exactly(
    service: ExactService, tmp_path: Path
) -> None:
    """CSV holds `extra` as exact JSON, and a `--fields` column of a big integer its digits."""
    outcome = await service.run(
        "export", "--base-url", service.url, "--out", str(tmp_path), "--format", "csv"
    )
    assert outcome.code == 0, outcome.stderr
    for segment, unknown in UNKNOWN.items():
        (row,) = csv.DictReader(io.StringIO((tmp_path / f"{segment}.csv").read_text()))
        assert exact(msgspec.json.decode(row["extra"])) == exact(unknown), segment
        if segment == "scopes":
            assert row["finding_filter.min_cvss_score"] == "0.1"
    fields = tmp_path / "fields"
    outcome = await service.run(
        "export", "endpoints", "--base-url", service.url, "--out", str(fields),
        "--format", "csv", "--fields", "id,attempts,debt,deep",
    )  # fmt: skip
    assert outcome.code == 0, outcome.stderr
    (row,) = csv.DictReader(io.StringIO((fields / "endpoints.csv").read_text()))
    assert (row["attempts"], row["debt"]) == (str(BIG), str(NEGATIVE))
    assert exact(msgspec.json.decode(row["deep"])) == exact(DEEP)


async def test_export_parquet_and_duckdb_keep_every_number_exact(
    service: ExactService, tmp_path: Path
) -> None:
    """Parquet files and DuckDB tables read back with `extra` exact and typed numbers as read."""
    pq = pytest.importorskip("pyarrow.parquet", reason="the arrow extra is not installed")
    duckdb = pytest.importorskip("duckdb", reason="the duckdb extra is not installed")
    database = tmp_path / "remedy.duckdb"
    for target in (
        ("--out", str(tmp_path / "parquet"), "--format", "parquet"),
        ("--to", f"duckdb:{database}"),
    ):
        outcome = await service.run("export", "--base-url", service.url, *target)
        assert outcome.code == 0, outcome.stderr
    for segment, sent in RECORDS.items():
        expected = exact([read_back(record, MODELS[segment]) for record in sent])
        table = pq.read_table(tmp_path / "parquet" / f"{segment}.parquet")
        assert exact(records_of(table)) == expected, segment
        with duckdb.connect(str(database)) as connection:
            name = segment.replace("-", "_")
            table = connection.sql(f"SELECT * FROM {name}").to_arrow_table()
        assert exact(records_of(table)) == expected, segment


# The change feed -----------------------------------------------------------------------------


async def test_the_change_feed_tells_big_integers_apart_and_keeps_them(tmp_path: Path) -> None:
    """Big integers a float cannot tell apart are a modification; the kept record is exact."""
    service = ExactService()
    state = tmp_path / "state.db"
    async with service.client() as client:
        first = [change async for change in client.endpoints.changes(state, keep_records=True)]
        assert [change.kind for change in first] == [ChangeKind.ADDED]
        assert exact(to_wire(first[0].record)) == exact(ENDPOINT)
        service.records["endpoints"] = [{**ENDPOINT, "attempts": BIG + 1}]
        second = [change async for change in client.endpoints.changes(state, keep_records=True)]
    assert [(change.kind, change.changed) for change in second] == [
        (ChangeKind.MODIFIED, ("attempts",))
    ]
    assert second[0].record.extra["attempts"] == BIG + 1
    assert exact(to_wire(second[0].previous)) == exact(ENDPOINT)
