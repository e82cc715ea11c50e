"""The pure pieces of the command line: names, filters, formats, checkpoints, plans, errors."""

from __future__ import annotations

import io
from pathlib import Path

import orjson
import pytest

from remedy_async import ClientEvent, NotFoundError, RemedyClient
from remedy_async._models import ENDPOINTS, SCOPES, VULNERABILITY_FINDINGS
from remedy_async.cli import Terminal
from remedy_async.cli._checkpoint import (
    Checkpoint,
    CheckpointError,
    ExportFiles,
    read_checkpoint,
    write_checkpoint,
)
from remedy_async.cli._errors import UsageError, describe, exit_status
from remedy_async.cli._export import plan_jobs
from remedy_async.cli._formats import (
    CsvEncoder,
    JsonArrayEncoder,
    JsonLinesEncoder,
    csv_cell,
    csv_columns,
    csv_row,
    table_cell,
    table_columns,
)
from remedy_async.cli._meters import Meters, route_of
from remedy_async.cli._progress import progress_line
from remedy_async.cli._server_filters import (
    filter_pairs,
    group_filters,
    parse_filter,
    resource_named,
)
from remedy_async.cli._terminal import shows_progress


@pytest.mark.parametrize(
    ("name", "segment"),
    [
        ("endpoints", "endpoints"),
        ("remediation-targets", "remediation-targets"),
        ("remediation_targets", "remediation-targets"),
        ("Vulnerability_Findings", "vulnerability-findings"),
    ],
)
def test_resources_are_named_by_segment_or_snake_case(name: str, segment: str) -> None:
    """A resource is found by its path segment or its snake_case attribute name."""
    assert resource_named(name).segment == segment


def test_an_unknown_resource_names_the_choices() -> None:
    """An unknown resource name is refused with the list of valid ones."""
    with pytest.raises(ValueError, match="choose from endpoints, remediation-targets"):
        resource_named("devices")


def test_filters_split_at_the_first_equals_sign() -> None:
    """`k=v` splits once, so values may hold `=` or be empty."""
    assert parse_filter("severity=high") == ("severity", "high")
    assert parse_filter("title=a=b") == ("title", "a=b")
    assert parse_filter("tag=") == ("tag", "")


@pytest.mark.parametrize(
    "text", ["severity", "=high", " =x", "max_items=3", "page_size=2", "concurrency=8"]
)
def test_malformed_or_reserved_filters_are_refused(text: str) -> None:
    """A filter without a key, or named like a list() option, is a usage error."""
    with pytest.raises(ValueError, match="filter"):
        parse_filter(text)


def test_a_repeated_parameter_gives_several_values() -> None:
    """One value stays a string; a repeated key collects its values in order."""
    pairs = [("tag", "a"), ("type", "software"), ("tag", "b")]
    assert group_filters(pairs) == {"tag": ["a", "b"], "type": "software"}


def test_a_published_filter_given_twice_is_a_usage_error() -> None:
    """Each published filter takes one value: given twice, the command line refuses it."""
    flags = [("os_family", "macos"), ("os_family", "linux")]
    with pytest.raises(UsageError, match="--os-family was given already"):
        filter_pairs(ENDPOINTS, [], flags)
    assert filter_pairs(ENDPOINTS, [("osFamily", "linux")], [("has_agent", "true")]) == [
        ("os_family", "linux"),
        ("has_agent", "true"),
    ]


def test_a_filter_of_a_collection_without_published_ones_says_so() -> None:
    """`--filter` on findings says the service publishes none for them, and names --param."""
    with pytest.raises(UsageError, match="publishes no filters for vulnerability-findings"):
        filter_pairs(VULNERABILITY_FINDINGS, [("severity", "high")])


def test_csv_columns_are_the_published_fields_flat_then_extra() -> None:
    """The CSV header is fixed per resource: its published fields in snake_case, a nested
    object's fields as dotted columns, then `extra`."""
    assert csv_columns(ENDPOINTS) == (
        "id", "hostname", "ip", "mac_address", "operating_system.name",
        "operating_system.family", "operating_system.version", "operating_system.vendor",
        "operating_system.architecture", "agent_id", "agent_version", "created_at",
        "updated_at", "extra",
    )  # fmt: skip
    assert csv_columns(SCOPES)[:6] == (
        "id", "name", "description", "status", "subject_filter.subject_types",
        "subject_filter.vendors",
    )  # fmt: skip
    assert csv_columns(VULNERABILITY_FINDINGS) == ("id", "created_at", "updated_at", "extra")


def test_csv_rows_flatten_nested_objects_and_keep_the_rest_in_extra() -> None:
    """A nested object's published fields fill its dotted columns; its other keys and the
    record's go to `extra`, in their shape."""
    columns = csv_columns(ENDPOINTS)
    record = {
        "id": "e-1",
        "operating_system": {"name": "Ubuntu", "family": "linux", "kernel": "6.1"},
        "risk_score": 3,
    }
    row = dict(zip(columns, csv_row(record, columns), strict=True))
    assert (row["operating_system.name"], row["operating_system.family"]) == ("Ubuntu", "linux")
    assert row["operating_system.version"] == ""
    assert orjson.loads(row["extra"]) == {"risk_score": 3, "operating_system": {"kernel": "6.1"}}


@pytest.mark.parametrize(
    ("value", "cell"),
    [
        (None, ""),
        ('plain, "quoted"', 'plain, "quoted"'),
        (True, "true"),
        (7.5, "7.5"),
        (3, "3"),
        ({"family": "linux", "version": "9"}, '{"family":"linux","version":"9"}'),
        (["a", "b"], '["a","b"]'),
    ],
)
def test_csv_cells_are_text_or_compact_json(value: object, cell: str) -> None:
    """Strings stay as they are, None is empty, anything else is compact JSON."""
    assert csv_cell(value) == cell


def test_csv_rows_put_unknown_keys_in_the_extra_column() -> None:
    """Keys outside the header are kept, as one JSON object in `extra`; absent ones are empty."""
    columns = ("id", "name", "extra")
    record = {"id": "sc-1", "riskScore": 2, "labels": {"owner": "x"}}
    id_, name, extra = csv_row(record, columns)
    assert (id_, name) == ("sc-1", "")
    assert orjson.loads(extra) == {"riskScore": 2, "labels": {"owner": "x"}}
    assert csv_row({"id": "sc-2", "name": "n"}, columns) == ["sc-2", "n", ""]


def test_csv_encoder_writes_a_header_and_rfc4180_quoted_rows_ending_in_a_line_feed() -> None:
    """The CSV encoder's start is the header; rows quote commas, quotes and line breaks, and
    end in `\\n` (not RFC 4180's `\\r\\n`, which `cut` and `awk` keep in the last column)."""
    encoder = CsvEncoder(("id", "title", "extra"))
    data = encoder.start() + encoder.records([{"id": "a", "title": 'x, "y"\nz'}]) + encoder.end()
    assert data == b'id,title,extra\na,"x, ""y""\nz",\n'


def test_json_array_encoder_streams_one_valid_array() -> None:
    """Batches joined by the array encoder parse as one array, empty or not."""
    encoder = JsonArrayEncoder()
    data = encoder.start() + encoder.records([{"id": "1"}]) + encoder.records([])
    data += encoder.records([{"id": "2"}, {"id": "3"}]) + encoder.end()
    assert orjson.loads(data) == [{"id": "1"}, {"id": "2"}, {"id": "3"}]
    empty = JsonArrayEncoder()
    assert orjson.loads(empty.start() + empty.end()) == []


def test_json_lines_encoder_writes_one_object_per_line() -> None:
    """Each record is one compact line."""
    encoder = JsonLinesEncoder()
    assert encoder.records([{"id": "1"}, {"id": "2"}]) == b'{"id":"1"}\n{"id":"2"}\n'
    assert encoder.start() == encoder.end() == b""


def test_table_cells_read_as_words() -> None:
    """A table shows a list of strings comma-separated, anything else as CSV does."""
    assert table_cell(["us", "eu"]) == "us, eu"
    assert table_cell(9.8) == "9.8"
    assert table_cell(None) == ""


def test_table_columns_are_published_fields_or_the_first_records_fields() -> None:
    """Endpoints show chosen published fields (nested ones by dotted name); findings, whose
    schema is unpublished, show id, the first records' other fields and updated_at."""
    assert table_columns(ENDPOINTS, [])[:3] == ("id", "hostname", "operating_system.name")
    records = [
        {"id": "f-1", "updated_at": "t", "severity": "high", "cve_id": "CVE-1"},
        {"id": "f-2", "title": "x", "severity": "low"},
    ]
    assert table_columns(VULNERABILITY_FINDINGS, records) == (
        "id",
        "severity",
        "cve_id",
        "title",
        "updated_at",
    )


def test_checkpoints_round_trip_through_their_file(tmp_path: Path) -> None:
    """A written checkpoint reads back equal, and replacing it leaves no temporary file."""
    path = tmp_path / "scopes.checkpoint.json"
    first = Checkpoint("scopes", "jsonl", 100, records=0, length=0)
    second = Checkpoint("scopes", "jsonl", 100, records=200, length=5120, resume_token="r1.x")
    write_checkpoint(path, first)
    write_checkpoint(path, second)
    assert read_checkpoint(path) == second
    assert orjson.loads(path.read_bytes())["bytes"] == 5120
    assert sorted(p.name for p in tmp_path.iterdir()) == ["scopes.checkpoint.json"]
    assert read_checkpoint(tmp_path / "none.checkpoint.json") is None


@pytest.mark.parametrize(
    "content",
    [
        b"{not json",
        b"[]",
        b'{"version": 2}',
        b'{"version": 1, "resource": "scopes", "format": "jsonl", "pageSize": 0, '
        b'"records": 0, "bytes": 0, "resumeToken": null}',
        b'{"version": 1, "resource": "scopes", "format": "jsonl", "pageSize": 5, '
        b'"records": 0, "bytes": 0, "resumeToken": 7}',
        b'{"version": 1, "resource": "", "format": "jsonl", "pageSize": 5, '
        b'"records": true, "bytes": 0}',
    ],
)
def test_a_damaged_checkpoint_is_refused(tmp_path: Path, content: bytes) -> None:
    """A checkpoint that is not the expected JSON raises CheckpointError naming the file."""
    path = tmp_path / "scopes.checkpoint.json"
    path.write_bytes(content)
    with pytest.raises(CheckpointError, match=r"scopes\.checkpoint\.json"):
        read_checkpoint(path)


def _unfinished(directory: Path, resource: str, records: int, data: bytes) -> ExportFiles:
    files = ExportFiles(directory, resource)
    files.part("jsonl").write_bytes(data)
    write_checkpoint(
        files.checkpoint,
        Checkpoint(resource, "jsonl", 10, records=records, length=len(data), resume_token=None),
    )
    return files


def test_an_unfinished_export_is_refused_without_resume_or_restart(tmp_path: Path) -> None:
    """Partial state is never silently discarded: the plan refuses and says what to pass."""
    _unfinished(tmp_path, "scopes", 1, b'{"id":"sc-1"}\n')
    with pytest.raises(UsageError, match=r"unfinished export of scopes.*--resume.*--restart"):
        plan_jobs(tmp_path, [SCOPES], file_format=None, page_size=5, resume=False, restart=False)


def test_resume_continues_checkpoints_skips_finished_files_and_starts_the_rest(
    tmp_path: Path,
) -> None:
    """--resume picks up the checkpoint, skips a complete file, starts a missing one afresh."""
    _unfinished(tmp_path, "scopes", 1, b'{"id":"sc-1"}\n')
    (tmp_path / "endpoints.jsonl").write_bytes(b"")
    scopes, endpoints, findings = plan_jobs(
        tmp_path,
        [SCOPES, ENDPOINTS, VULNERABILITY_FINDINGS],
        file_format=None,
        page_size=5,
        resume=True,
        restart=False,
    )
    assert scopes.start is not None
    assert (scopes.fresh, scopes.start.records, scopes.start.page_size) == (False, 1, 10)
    assert endpoints.start is None
    assert findings.fresh
    assert findings.start == Checkpoint("vulnerability-findings", "jsonl", 5, 0, 0)


def test_resume_refuses_another_format_or_a_truncated_part(tmp_path: Path) -> None:
    """A resumed export keeps its format, and a .part file shorter than its checkpoint stops it."""
    files = _unfinished(tmp_path, "scopes", 1, b'{"id":"sc-1"}\n')
    with pytest.raises(UsageError, match=r"is jsonl"):
        plan_jobs(tmp_path, [SCOPES], file_format="csv", page_size=5, resume=True, restart=False)
    files.part("jsonl").write_bytes(b"{")
    with pytest.raises(UsageError, match="shorter than its checkpoint"):
        plan_jobs(tmp_path, [SCOPES], file_format=None, page_size=5, resume=True, restart=False)


def test_restart_discards_the_unfinished_export(tmp_path: Path) -> None:
    """--restart deletes the .part file and checkpoint and starts from the beginning."""
    files = _unfinished(tmp_path, "scopes", 1, b'{"id":"sc-1"}\n')
    (job,) = plan_jobs(
        tmp_path, [SCOPES], file_format="csv", page_size=5, resume=False, restart=True
    )
    assert job.fresh
    assert job.format == "csv"
    assert job.start is not None
    assert job.start.length == len(CsvEncoder(csv_columns(SCOPES)).start())
    assert not files.part("jsonl").exists()
    assert not files.checkpoint.exists()


@pytest.mark.parametrize(
    ("url", "route"),
    [
        ("http://h/v1/endpoints?limit=5", ("endpoints", "list")),
        ("http://h/api/v1/scopes/sc-1", ("scopes", "get")),
        ("http://h/v1/health", None),
        ("http://h/v1", None),
    ],
)
def test_requests_are_credited_to_their_route(url: str, route: object) -> None:
    """A URL maps to (collection, list|get), whatever the base path; others map to None."""
    assert route_of(url) == route


def test_retry_events_count_on_the_meter_of_their_route() -> None:
    """Only retry events count, each on its route's meter or as unrouted."""
    meters = Meters(clock=lambda: 0.0)
    listing = meters.add("scopes", ("scopes", "list"))
    for kind, url in [
        ("retry", "http://h/v1/scopes?cursor=x"),
        ("response", "http://h/v1/scopes"),
        ("retry", "http://h/v1/health"),
    ]:
        meters.on_event(ClientEvent(kind, "GET", url, 1))  # type: ignore[arg-type]
    assert (listing.retries, meters.unrouted_retries) == (1, 1)
    assert "retries=1" in repr(listing)


def test_meter_rate_leaves_out_records_resumed_from_a_checkpoint() -> None:
    """Throughput counts only what this run fetched."""
    now = [10.0]
    meters = Meters(clock=lambda: now[0])
    meter = meters.add("scopes", None, done=100)
    meter.add(50, pages=2)
    now[0] = 12.0
    meter.finish()
    now[0] = 99.0
    assert (meter.records, meter.pages, meter.seconds, meter.rate) == (150, 2, 2.0, 25.0)
    assert list(meters) == [meter]
    assert len(meters) == 1


def _terminal(*, stdout_tty: bool, stderr_tty: bool, env: dict[str, str]) -> Terminal:
    return Terminal(
        stdout=io.BytesIO(),
        stderr=io.StringIO(),
        stdin=io.StringIO(),
        env=env,
        stdout_tty=stdout_tty,
        stderr_tty=stderr_tty,
    )


def test_auto_progress_is_live_for_someone_watching_and_lines_for_a_log() -> None:
    """auto: live when stderr is a terminal, CI unset and data not drawn over; lines when
    stderr is a file or CI is set; always/lines/never decide alone."""
    watching = _terminal(stdout_tty=False, stderr_tty=True, env={})
    in_ci = _terminal(stdout_tty=False, stderr_tty=True, env={"CI": "1"})
    piped = _terminal(stdout_tty=False, stderr_tty=False, env={})
    both = _terminal(stdout_tty=True, stderr_tty=True, env={})
    assert shows_progress("auto", watching, data_on_stdout=True) == "live"
    assert shows_progress("auto", in_ci, data_on_stdout=False) == "lines"
    assert shows_progress("auto", piped, data_on_stdout=False) == "lines"
    assert shows_progress("auto", both, data_on_stdout=True) is None
    assert shows_progress("auto", both, data_on_stdout=False) == "live"
    assert shows_progress("always", in_ci, data_on_stdout=True) == "live"
    assert shows_progress("lines", watching, data_on_stdout=True) == "lines"
    assert shows_progress("never", piped, data_on_stdout=False) is None


def test_a_progress_line_has_count_rate_and_eta_when_the_total_is_known() -> None:
    """Records and rate always; share and ETA with a total."""
    now = [0.0]
    meters = Meters(clock=lambda: now[0])
    known = meters.add("vulnerability-findings", None, total=1000)
    unknown = meters.add("scopes", None)
    known.add(250)
    unknown.add(40)
    now[0] = 10.0
    assert (
        progress_line(known)
        == "vulnerability-findings: 250 records, 25/s, 25% of 1,000, ETA 0:00:30"
    )
    assert progress_line(unknown) == "scopes: 40 records, 4/s"


def test_errors_are_one_line_with_their_type_and_status() -> None:
    """An API error reads as type, status, message, request and request id, on one line."""
    error = NotFoundError(
        "no endpoint\nwith id 'x'",
        method="GET",
        url="http://h/v1/endpoints/x",
        status=404,
        request_id="req-1",
    )
    error.attempts = 3
    line = describe(error)
    assert line == (
        "NotFoundError: 404 no endpoint with id 'x' (GET http://h/v1/endpoints/x, "
        "request id req-1) [after 3 attempts]"
    )
    assert exit_status(error) == 1
    assert exit_status(UsageError("bad")) == 2
    assert describe(UsageError("bad")) == "bad"
    assert describe(OSError()) == "OSError: no details"


def test_a_configuration_error_is_a_usage_error() -> None:
    """Settings the client refuses (here a non-http URL) exit 2."""
    with pytest.raises(ValueError, match="http") as caught:
        RemedyClient("ftp://example.com")
    assert exit_status(caught.value) == 2
