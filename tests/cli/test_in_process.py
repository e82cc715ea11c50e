"""The command line run in the test's own event loop, with captured streams.

The subprocess tests show the real process; these reach the same code quickly (and under
coverage): every command, format and error path, without real waits (no retries, no faults
that pause). What sits above the transport runs against the published contract (or a test's
routes) in a MockTransport, with no socket; a simulator serves what is its own: its faults,
a resumed export, the demo.
"""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import orjson
import pytest

from remedy_async import MockRequest, MockResponse, MockTransport
from remedy_async.cli import Terminal, main, run
from remedy_async.simulator import FaultSpec, Simulator, SimulatorConfig
from tests.loopback import CANARY
from tests.mock_service import BASE_URL, Routes

from .conftest import MISSING, RESOURCES, AgentFile, Published, cli_here, scope


async def test_list_in_every_format(published: Published) -> None:
    """jsonl, json, csv and table all hold the same records; the filter reaches the service."""
    base = ("list", "endpoints", "--base-url", published.url, "-f", "os_family=macos")
    expected = [
        record["id"]
        for record in published.records["endpoints"]
        if record["operating_system"]["family"] == "macos"
    ]
    assert expected
    jsonl = await published.run(*base, "--page-size", "3")
    as_json = await published.run(*base, "--format", "json")
    as_csv = await published.run(*base, "--format", "csv")
    table = await published.run(*base, "--format", "table")
    assert [record["id"] for record in jsonl.jsonl()] == expected
    assert [record["id"] for record in orjson.loads(as_json.stdout)] == expected
    assert [row["id"] for row in as_csv.csv()] == expected
    assert f"{len(expected)} record(s)" in table.stdout.decode()
    assert {jsonl.code, as_json.code, as_csv.code, table.code} == {0}


async def test_an_empty_list_is_still_valid_output(published: Published) -> None:
    """No match: json writes [], csv nothing, jsonl nothing; all exit 0."""
    base = ("list", "scopes", "--base-url", published.url, "--where", "name=nothing-matches")
    as_json = await published.run(*base, "--format", "json")
    jsonl = await published.run(*base)
    assert (as_json.code, orjson.loads(as_json.stdout)) == (0, [])
    assert (jsonl.code, jsonl.stdout) == (0, b"")


async def test_a_filter_named_like_a_paging_parameter_is_a_usage_error(
    published: Published,
) -> None:
    """A parameter the pager would clash with exits 2 before any request; as a filter it is
    no filter of the resource."""
    base = ("list", "scopes", "--base-url", published.url, "--page-size", "5")
    as_param = await published.run(*base, "--param", "limit=3")
    assert as_param.code == 2
    assert "paging parameters" in as_param.stderr
    as_filter = await published.run(*base, "-f", "limit=3")
    assert as_filter.code == 2
    assert "--filter limit: the service publishes no filters for scopes" in as_filter.stderr
    assert published.requests == []


async def test_a_misspelt_filter_is_a_usage_error_with_a_suggestion(published: Published) -> None:
    """A filter key close to a published one names it; wire, snake and kebab spellings are
    all that filter."""
    base = ("list", "endpoints", "--base-url", published.url, "--max-items", "3")
    typo = await published.run(*base, "-f", "osFamly=linux")
    assert typo.code == 2
    assert "did you mean 'osFamily'" in typo.stderr
    assert published.requests == []
    spellings = [
        await published.run(*base, "-f", f"{key}=linux")
        for key in ("osFamily", "os_family", "os-family")
    ]
    assert [outcome.code for outcome in spellings] == [0, 0, 0]
    assert spellings[0].stdout == spellings[1].stdout == spellings[2].stdout


async def test_get_from_stdin_with_an_unknown_id(published: Published) -> None:
    """Found ids are written; an unknown one (404) and a malformed one (400) are reported and
    make the status 1."""
    known = published.ids("endpoints")[:2]
    outcome = await published.run(
        "get", "endpoints", "-", "--base-url", published.url, "--format", "json",
        stdin=f"{known[0]}\n{MISSING}\nep-nope\n{known[1]}\n",
    )  # fmt: skip
    assert outcome.code == 1
    assert [record["id"] for record in orjson.loads(outcome.stdout)] == known
    assert f"endpoints/{MISSING}: NotFoundError: 404 Endpoint not found." in outcome.stderr
    assert "endpoints/ep-nope: BadRequestError: 400 Invalid endpoint ID format." in (outcome.stderr)


async def test_health_that_is_not_ok_exits_1() -> None:
    """A 2xx health answer that is not "ok" is printed and exits 1."""
    service = Routes({"/v1/health": lambda request: MockResponse.json(200, {"status": "degraded"})})
    outcome = await cli_here(
        "health", env={"REMEDY_BASE_URL": BASE_URL}, transport=MockTransport(service)
    )
    assert outcome.code == 1
    assert outcome.jsonl() == [{"status": "degraded"}]
    assert "reports status 'degraded'" in outcome.stderr


async def test_agent_configuration_to_a_directory_or_stdout(tmp_path: Path) -> None:
    """--out DIR uses the service's file name; --out - streams the bytes to stdout."""
    agent = AgentFile(bytes(range(256)) * 256)
    transport = MockTransport(Routes({"/v1/agent-configuration": agent}))
    base = ("agent-config", "download", "--base-url", BASE_URL, "--out")
    to_dir = await cli_here(*base, str(tmp_path), transport=transport)
    to_stdout = await cli_here(*base, "-", transport=transport)
    nowhere = await cli_here(*base, str(tmp_path / "a" / "b"), transport=transport)
    (summary,) = to_dir.jsonl()
    assert Path(summary["path"]) == tmp_path / agent.name
    assert Path(summary["path"]).read_bytes() == to_stdout.stdout == agent.body
    assert "wrote 65,536 bytes, sha256" in to_stdout.stderr
    assert (nowhere.code, to_dir.code, to_stdout.code) == (2, 0, 0)
    assert "is not a directory" in nowhere.stderr


async def test_export_then_resume_after_a_failure(tmp_path: Path) -> None:
    """A failed resource keeps its checkpoint; --resume (csv, kept) completes it exactly once."""
    failing = SimulatorConfig(
        seed=0, size=30, faults=[FaultSpec("http-500", 0.3, "list:vulnerability-findings")]
    )
    args = ("export", "--out", str(tmp_path), "--page-size", "50", "--retries", "0")
    async with Simulator(failing) as simulator:
        first = await cli_here(
            *args, "--base-url", simulator.url, "--format", "csv", "--debug", "--token", "s3cr3t"
        )
    assert first.code == 3  # stopped, resumable
    assert "Traceback" in first.stderr
    hint = first.stderr.splitlines()[-1]
    assert hint.startswith("remedy-async: to continue where it stopped, run: remedy-async export")
    assert hint.endswith("--resume (with your --token again)")
    assert "s3cr3t" not in first.stderr
    assert "stopped after 146 records" in first.stderr
    async with Simulator(SimulatorConfig(seed=0, size=30)) as simulator:
        resumed = await cli_here(*args, "--base-url", simulator.url, "--resume")
        again = await cli_here(*args, "--base-url", simulator.url, "--resume")
        for resource in RESOURCES:
            lines = (tmp_path / f"{resource}.csv").read_text().splitlines()
            ids = [line.split(",", 1)[0] for line in lines[1:]]
            assert ids == list(simulator.dataset.ids(resource))
    assert resumed.code == 0, resumed.stderr
    assert again.code == 0
    assert again.stderr.count("already complete") == 4
    assert len(list(tmp_path.iterdir())) == 4


async def test_export_refuses_a_damaged_checkpoint_and_restart_discards_it(
    simulator: Simulator, tmp_path: Path
) -> None:
    """An unreadable checkpoint stops --resume (exit 2); --restart starts that resource again."""
    (tmp_path / "scopes.jsonl.part").write_bytes(b'{"id":')
    (tmp_path / "scopes.checkpoint.json").write_bytes(b"garbage")
    args = ("export", "scopes", "--out", str(tmp_path), "--base-url", simulator.url)
    resumed = await cli_here(*args, "--resume")
    restarted = await cli_here(*args, "--restart", "--progress", "always")
    assert resumed.code == 2
    assert "cannot resume" in resumed.stderr
    assert restarted.code == 0, restarted.stderr
    assert "records/s" in restarted.stderr
    assert sorted(path.name for path in tmp_path.iterdir()) == ["scopes.jsonl"]


async def test_export_into_a_file_is_a_usage_error(tmp_path: Path) -> None:
    """--out must be a directory."""
    (tmp_path / "file").write_bytes(b"")
    outcome = await cli_here(
        "export", "--out", str(tmp_path / "file"), "--base-url", "http://127.0.0.1:9"
    )
    assert (outcome.code, outcome.stderr.strip()) == (
        2,
        f"remedy-async: error: --out {tmp_path / 'file'} is not a directory",
    )


async def test_debug_logs_requests_without_the_token(published: Published) -> None:
    """--debug logs each request with the credential header redacted."""
    outcome = await published.run(
        "list", "scopes", "--max-items", "1", "--base-url", published.url, "--debug",
        env={"REMEDY_API_TOKEN": CANARY},
    )  # fmt: skip
    assert outcome.code == 0
    assert "remedy_async DEBUG request GET" in outcome.stderr
    assert CANARY not in outcome.stderr


async def test_demo_without_faults(tmp_path: Path) -> None:
    """The demo's summary says every record arrived exactly once."""
    outcome = await cli_here("demo", "--size", "10", "--get-many", "20", "--no-faults")
    assert outcome.code == 0, outcome.stderr
    text = outcome.stdout.decode()
    assert "Faults: none" in text
    assert "5 unknown ids answered 404" in text
    assert "Every record arrived exactly once" in text


async def test_without_rich_live_progress_fails_with_the_install_hint_and_data_still_flows(
    published: Published, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With rich missing, live progress and the demo exit 2 naming the extra, while jsonl and
    tables (plain text) still work."""
    monkeypatch.setitem(sys.modules, "rich", None)
    monkeypatch.delitem(sys.modules, "remedy_async.cli._rich", raising=False)
    base = ("list", "scopes", "--base-url", published.url)
    forced = await published.run(*base, "--progress", "always")
    demo = await published.run("demo", "--size", "1")
    plain = await published.run(*base)
    table = await published.run(*base, "--format", "table")
    for outcome in (forced, demo):
        assert outcome.code == 2
        assert "pip install 'remedy-async[cli]'" in outcome.stderr
        assert outcome.stdout == b""
    assert plain.code == table.code == 0
    assert len(plain.jsonl()) == published.count("scopes")
    assert table.stdout.decode().endswith(f"{published.count('scopes')} record(s)\n")


@pytest.mark.parametrize("output", ["jsonl", "table"])
async def test_a_closed_pipe_ends_quietly(published: Published, output: str) -> None:
    """When the reader of stdout goes away the command stops with status 141 and no message."""

    class ClosedPipe(io.BytesIO):
        def write(self, data: object) -> int:
            raise BrokenPipeError(32, "Broken pipe")

    stderr = io.StringIO()
    terminal = Terminal(
        stdout=ClosedPipe(),
        stderr=stderr,
        stdin=io.StringIO(),
        env={},
        transport=MockTransport(published.handler),
    )
    code = await run(["list", "scopes", "--base-url", published.url, "--format", output], terminal)
    assert (code, stderr.getvalue()) == (141, "")


async def test_serve_with_a_bad_option_is_a_usage_error() -> None:
    """The simulator's own validation surfaces as exit 2."""
    outcome = await cli_here("serve", "--fault", "boom:1")
    assert outcome.code == 2
    assert outcome.stderr.startswith("remedy-async serve: error: --fault 'boom:1'")


def test_main_returns_the_status(capsys: pytest.CaptureFixture[str]) -> None:
    """main() runs the command line in this process and returns its status."""
    assert main(["list", "devices"]) == 2
    assert "unknown resource 'devices'" in capsys.readouterr().err


def paged_then_failing(fail_at: int) -> MockTransport:
    """Cursor pages of two scopes each, failing with a 500 on page `fail_at`."""

    def scopes(request: MockRequest) -> MockResponse:
        page = int(request.query.get("cursor", "1"))
        if page == fail_at:
            return MockResponse.json(500, {"error": "Internal server error."})
        items = [scope(f"sc-{page}-{index}") for index in (1, 2)]
        return MockResponse.json(200, {"items": items, "nextCursor": str(page + 1)})

    return MockTransport(Routes({"/v1/scopes": scopes}))


@pytest.mark.parametrize(("fail_at", "records"), [(3, 4), (1, 0)])
async def test_json_output_stays_valid_when_the_list_fails(fail_at: int, records: int) -> None:
    """A failure on page 3 leaves a closed JSON array of the records before it; a failure
    before any record leaves nothing at all."""
    outcome = await cli_here(
        "list", "scopes", "--base-url", BASE_URL, "--format", "json", "--retries", "0",
        transport=paged_then_failing(fail_at),
    )  # fmt: skip
    assert outcome.code == 1
    assert "ServerError" in outcome.stderr
    if records:
        assert len(json.loads(outcome.stdout)) == records
    else:
        assert outcome.stdout == b""


async def test_fields_cut_records_in_every_format(published: Published) -> None:
    """--fields keeps the named paths: nested in JSON, one dotted column each in CSV."""
    base = ("list", "endpoints", "--base-url", published.url, "--max-items", "3")
    fields = ("--fields", "id,operating_system.family,hostname")
    as_jsonl = await published.run(*base, *fields)
    as_csv = await published.run(*base, *fields, "--format", "csv")
    whole = await published.run(*base)
    assert as_jsonl.code == as_csv.code == whole.code == 0
    records = [orjson.loads(line) for line in whole.stdout.splitlines()]
    expected = [
        {
            "id": r["id"],
            "operating_system": {"family": r["operating_system"]["family"]},
            "hostname": r["hostname"],
        }
        for r in records
    ]
    assert [orjson.loads(line) for line in as_jsonl.stdout.splitlines()] == expected
    rows = as_csv.stdout.decode().splitlines()
    assert rows[0] == "id,operating_system.family,hostname"
    first = records[0]
    assert rows[1] == f"{first['id']},{first['operating_system']['family']},{first['hostname']}"


async def test_fields_name_a_findings_fields_kept_in_extra(published: Published) -> None:
    """--fields id,severity,cve_id on findings cuts each record to those keys, though the
    model types only id: the rest are its `extra` fields, checked against the first page."""
    base = ("list", "vulnerability-findings", "--base-url", published.url, "--max-items", "5")
    cut = await published.run(*base, "--fields", "id,severity,cve_id")
    as_csv = await published.run(*base, "--fields", "id,severity,cve_id", "--format", "csv")
    whole = await published.run(*base)
    assert cut.code == as_csv.code == whole.code == 0, cut.stderr
    expected = [
        {"id": r["id"], "severity": r["severity"], "cve_id": r["cve_id"]} for r in whole.jsonl()
    ]
    assert cut.jsonl() == expected
    assert as_csv.csv() == [
        {key: value or "" for key, value in record.items()} for record in expected
    ]


async def test_a_field_no_record_has_is_a_usage_error_after_the_first_page(
    published: Published,
) -> None:
    """A name neither published nor in any record of the first page exits 2 naming the keys
    the records have, with nothing written."""
    outcome = await published.run(
        "list", "vulnerability-findings", "--base-url", published.url, "--fields", "id,sevrity"
    )
    assert (outcome.code, outcome.stdout) == (2, b"")
    assert "--fields sevrity: none of the first" in outcome.stderr
    assert "did you mean 'severity'" in outcome.stderr
    assert "as extra.sevrity (not checked)" in outcome.stderr


async def test_fields_keep_a_marked_field_outside_the_contract(published: Published) -> None:
    """--fields id,extra.risk_score keeps each record's own risk_score, in its place, though
    no record has one (a marked field is not checked)."""
    base = ("list", "endpoints", "--base-url", published.url)
    cut = await published.run(*base, "--fields", "id,extra.risk_score")
    whole = await published.run(*base)
    assert cut.code == whole.code == 0, cut.stderr
    expected = [{"id": r["id"], "risk_score": r.get("risk_score")} for r in whole.jsonl()]
    assert cut.jsonl() == expected


async def test_an_unknown_field_is_a_usage_error_naming_the_closest(published: Published) -> None:
    """A misspelt field exits 2 before any request, naming the flag and the closest field."""
    outcome = await published.run(
        "list", "endpoints", "--base-url", published.url, "--fields", "id,hostnme"
    )
    assert outcome.code == 2
    assert "--fields hostnme: endpoints records have no published field 'hostnme'" in (
        outcome.stderr
    )
    assert published.requests == []
    assert "did you mean 'hostname'" in outcome.stderr


async def test_output_file_appears_only_when_complete(tmp_path: Path) -> None:
    """--out-file writes the file at the end; a failure leaves no file and no temporary."""
    target = tmp_path / "scopes.json"
    failed = await cli_here(
        "list", "scopes", "--base-url", BASE_URL, "--retries", "0", "--out-file", str(target),
        transport=paged_then_failing(3),
    )  # fmt: skip
    assert failed.code == 1
    assert list(tmp_path.iterdir()) == []
    done = await cli_here(
        "list", "scopes", "--base-url", BASE_URL, "--max-items", "5", "--format", "json",
        "--out-file", str(target), transport=paged_then_failing(0),
    )  # fmt: skip
    assert done.code == 0, done.stderr
    assert done.stdout == b""
    assert len(json.loads(target.read_bytes())) == 5
    assert list(tmp_path.iterdir()) == [target]


async def test_api_prints_the_json_of_any_path(published: Published) -> None:
    """api PATH prints the body; --paginate prints a collection's every record as one array."""
    first = published.ids("scopes")[0]
    one = await published.run("api", f"/v1/scopes/{first}", "--base-url", published.url)
    every = await published.run(
        "api", "GET", "/v1/endpoints", "--paginate", "-F", "osFamily=windows",
        "--base-url", published.url,
    )  # fmt: skip
    assert one.code == every.code == 0, one.stderr + every.stderr
    assert json.loads(one.stdout)["id"] == first
    expected = [
        record["id"]
        for record in published.records["endpoints"]
        if record["operating_system"]["family"] == "windows"
    ]
    assert expected
    assert [record["id"] for record in json.loads(every.stdout)] == expected


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (("api", "DELETE", "/v1/scopes"), 2, "read-only"),
        (("api", "/v1/health", "--paginate"), 2, "only a collection pages"),
        (("api", "/v1/nope"), 1, "NotFoundError: 404"),
    ],
)
async def test_api_refuses_writes_and_reports_errors(
    published: Published, args: tuple[str, ...], code: int, message: str
) -> None:
    """Another method or paging a non-collection is a usage error; a 404 is an API error."""
    outcome = await published.run(*args, "--base-url", published.url)
    assert outcome.code == code
    assert message in outcome.stderr


@pytest.mark.parametrize(
    "path",
    ["https://other.example/v1/scopes", "//other.example/v1/scopes", "v1/scopes"],
    ids=["url", "scheme-relative", "relative"],
)
async def test_api_refuses_a_path_not_under_the_base_url(published: Published, path: str) -> None:
    """`api URL` (or `//host/...`, or a path without its `/`) exits 2 saying the path is
    appended to the base URL, and sends nothing."""
    outcome = await published.run("api", path, "--base-url", published.url)
    assert (outcome.code, outcome.stdout) == (2, b"")
    assert "path must be a path starting with '/' (it is appended to the base URL)" in (
        outcome.stderr
    )
    assert published.requests == []


@pytest.mark.parametrize("ids", [[""], ["ep-00000001", "  "]], ids=["empty", "blank"])
async def test_an_empty_id_is_a_usage_error_before_any_request(
    published: Published, ids: list[str]
) -> None:
    """`get endpoints ""` exits 2 naming the bad id, and sends nothing."""
    outcome = await published.run("get", "endpoints", *ids, "--base-url", published.url)
    assert (outcome.code, outcome.stdout) == (2, b"")
    assert "argument ID: a record id must not be empty" in outcome.stderr
    assert published.requests == []


@pytest.fixture
def guarded() -> Published:
    """The published contract wanting the token CANARY, in a MockTransport."""
    return Published(token=CANARY)


@pytest.mark.parametrize(
    "command",
    [("list", "scopes"), ("get", "scopes", MISSING), ("export", "scopes", "--out")],
    ids=["list", "get", "export"],
)
async def test_a_401_without_a_token_says_how_to_pass_one(
    guarded: Published, command: tuple[str, ...], tmp_path: Path
) -> None:
    """With no token sent, the 401's line names --token, REMEDY_API_TOKEN and token_env."""
    args = (*command, str(tmp_path)) if command[0] == "export" else command
    outcome = await guarded.run(*args, "--base-url", guarded.url, "--progress", "never")
    assert outcome.code != 0
    (line,) = [line for line in outcome.stderr.splitlines() if "AuthenticationError" in line]
    assert line.endswith(
        "; no token was sent: pass --token or set REMEDY_API_TOKEN (with --config, the "
        "profile's token_env names the variable holding it)"
    )


@pytest.mark.parametrize(
    ("given", "env"),
    [
        (("--token", "wrong"), {}),
        ((), {"REMEDY_API_TOKEN": "wrong"}),
        (("--config", "{config}"), {"MY_TOKEN": "wrong"}),
    ],
    ids=["flag", "environment", "config-token-env"],
)
async def test_a_401_for_a_token_sent_says_it_was_rejected(
    guarded: Published, given: tuple[str, ...], env: dict[str, str], tmp_path: Path
) -> None:
    """A token sent and refused is told apart from none sent, wherever the token came from."""
    config = tmp_path / "remedy.toml"
    config.write_text(f'[default]\nbase_url = "{guarded.url}"\ntoken_env = "MY_TOKEN"\n')
    args = [word.format(config=config) for word in given]
    outcome = await guarded.run("list", "scopes", "--base-url", guarded.url, *args, env=env)
    assert outcome.code == 1
    assert "AuthenticationError: 401" in outcome.stderr
    assert outcome.stderr.rstrip().endswith(
        "; the token sent was rejected: check the one given by --token, REMEDY_API_TOKEN or "
        "the --config profile's token_env, and --auth-header and --auth-scheme"
    )
    assert "no token was sent" not in outcome.stderr
