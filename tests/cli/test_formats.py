"""How CSV lines end (`\\n` for the shell's tools, `\\r\\n` only where an export began with it),
and every number written exactly."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import orjson

from remedy_async._models import SCOPES
from remedy_async.cli._checkpoint import read_checkpoint
from remedy_async.cli._formats import (
    CsvEncoder,
    JsonArrayEncoder,
    JsonLinesEncoder,
    csv_cell,
    csv_columns,
)
from remedy_async.simulator import Simulator

from .conftest import Published, cli_here


def test_a_lone_carriage_return_in_a_cell_is_quoted() -> None:
    """A cell holding `\\r` alone is quoted, so CSV readers do not take it for a line end."""
    encoder = CsvEncoder(("id", "title"))
    data = encoder.records([{"id": "a", "title": "x\ry"}, {"id": "b", "title": "z"}])
    assert data == b'a,"x\ry"\nb,z\n'
    assert list(csv.reader(io.StringIO(data.decode(), newline=""))) == [
        ["a", "x\ry"],
        ["b", "z"],
    ]


def test_rows_end_in_crlf_when_asked() -> None:
    """`line_end="\\r\\n"` writes RFC 4180's line ends, header and rows alike."""
    encoder = CsvEncoder(("id", "title"), "\r\n")
    assert encoder.start() + encoder.records([{"id": "a", "title": "x\r\ny"}]) == (
        b'id,title\r\na,"x\r\ny"\r\n'
    )


async def test_list_csv_lines_hold_no_carriage_return(published: Published) -> None:
    """`list --format csv` rows end in `\\n`: the last column, cut as `cut -d, -f` would cut
    it, is the value itself."""
    outcome = await published.run(
        "list", "scopes", "--base-url", published.url, "--format", "csv", "--fields", "name,id"
    )
    assert outcome.code == 0, outcome.stderr
    assert b"\r" not in outcome.stdout
    last = [line.rsplit(",", 1)[1] for line in outcome.stdout.decode().split("\n")[1:-1]]
    assert last == published.ids("scopes")


async def test_an_export_begun_with_crlf_resumes_with_crlf(
    simulator: Simulator, tmp_path: Path
) -> None:
    """A CSV export checkpointed before rows ended in `\\n` (no `lineEnd` in its checkpoint)
    resumes in `\\r\\n`, so its file keeps one line end throughout."""
    header = ",".join(csv_columns(SCOPES)).encode() + b"\r\n"
    (tmp_path / "scopes.csv.part").write_bytes(header)
    checkpoint = {
        "version": 1, "resource": "scopes", "format": "csv", "pageSize": 4, "records": 0,
        "written": 0, "bytes": len(header), "resumeToken": None,
    }  # fmt: skip
    (tmp_path / "scopes.checkpoint.json").write_bytes(orjson.dumps(checkpoint))
    begun = read_checkpoint(tmp_path / "scopes.checkpoint.json")
    assert begun is not None
    assert begun.line_end == "\r\n"
    outcome = await cli_here(
        "export", "scopes", "--out", str(tmp_path), "--resume", "--base-url", simulator.url
    )
    assert outcome.code == 0, outcome.stderr
    data = (tmp_path / "scopes.csv").read_bytes()
    lines = data.split(b"\r\n")
    assert lines[-1] == b""
    assert b"\n" not in b"".join(lines)
    assert len(lines) - 2 == len(list(simulator.dataset.ids("scopes")))


def test_integers_past_64_bits_are_written_as_their_digits() -> None:
    """JSON lines, the JSON array and CSV cells write an integer past 64 bits exactly."""
    big, record = 10**20 + 1, {"id": "a", "n": -(10**20) - 1, "deep": [{"x": 2**70}], "f": 1e308}
    lines = JsonLinesEncoder().records([record, {"id": "b", "n": big}])
    assert lines == (
        b'{"id":"a","n":-100000000000000000001,"deep":[{"x":1180591620717411303424}],'
        b'"f":1e308}\n{"id":"b","n":100000000000000000001}\n'
    )
    array = JsonArrayEncoder()
    assert array.start() + array.records([{"n": big}]) + array.end() == (
        b'[\n{"n":100000000000000000001}\n]\n'
    )
    assert (csv_cell(big), csv_cell({"n": big})) == (str(big), '{"n":100000000000000000001}')
