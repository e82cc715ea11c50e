"""`--where`: client-side conditions on wire records, parsed without eval; run against the
published contract in a MockTransport, and through a resumed export against simulators."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from remedy_async._models import SCOPES
from remedy_async._models import VULNERABILITY_FINDINGS as FINDINGS
from remedy_async.cli._errors import UsageError
from remedy_async.cli._where import check_conditions, keep, parse_where
from remedy_async.simulator import Simulator, SimulatorConfig

from .conftest import Published, cli_here
from .test_selection import FAILING

FINDING = {
    "id": "vf-1",
    "severity": "high",
    "cvss_score": 7.5,
    "kev": True,
    "remediation_target_id": None,
    "operating_system": {"family": "linux"},
    "created_at": "2024-05-01T10:00:00Z",
}


@pytest.fixture
def published() -> Published:
    """The published contract whose findings also carry fields of their own beside the typed
    ones, as the service's do: a CVSS score (sometimes null), `kev`, and the remediation
    target covering them (null for some)."""
    service = Published()
    for index, record in enumerate(service.records["vulnerability-findings"]):
        record |= {
            "cvss_score": None if index % 7 == 0 else round(2.5 + index % 8, 1),
            "kev": index % 4 == 0,
            "remediation_target_id": None if index % 3 == 1 else f"rt-{index}",
        }
    return service


@pytest.mark.parametrize(
    ("condition", "holds"),
    [
        ("severity=high", True),
        ("severity != high", False),
        ("cvss_score>=7", True),
        ("cvss_score > 7.5", False),
        ("cvss_score<=7.5", True),
        ("cvss_score < x", False),
        ("severity in (critical, high)", True),
        ("severity not in (critical,high)", False),
        ("SEVERITY IN (high)", False),
        ("kev=true", True),
        ("kev=1", False),
        ("remediation_target_id=null", True),
        ("missing=null", True),
        ("missing>=1", False),
        ("operating_system.family=linux", True),
        ("operating_system.family.deeper=linux", False),
        ("created_at>=2024-01-01", True),
        ("created_at<2024-05-01T10:00:00Z", False),
    ],
)
def test_a_condition_compares_as_the_records_value_does(condition: str, holds: bool) -> None:
    """Numbers as numbers, booleans as true/false, null as missing, the rest as text."""
    assert parse_where(condition).holds(FINDING) is holds


SCOPE = {"id": "sc-1", "tags": ["prod", "team-3"], "scores": [3, 9.5], "empty": []}


@pytest.mark.parametrize(
    ("condition", "holds"),
    [
        ("tags=prod", True),
        ("tags=staging", False),
        ("tags != prod", False),
        ("tags != staging", True),
        ("tags in (staging, team-3)", True),
        ("tags not in (staging, team-3)", False),
        ("tags not in (staging)", True),
        ("tags=null", False),
        ("tags!=null", True),
        ("scores>=9", True),
        ("scores>9.5", False),
        ("scores=3", True),
        ("empty=x", False),
        ("empty!=x", True),
        ("empty>0", False),
    ],
)
def test_a_list_meets_a_condition_one_of_its_items_meets(condition: str, holds: bool) -> None:
    """`=`, `in` and orders hold when one item does; `!=` and `not in` when none does; a list,
    even empty, is not null."""
    assert parse_where(condition).holds(SCOPE) is holds


@pytest.mark.parametrize("text", ["severity", "cvss_score >> 7", "x in ()", "__import__('os')"])
def test_a_malformed_condition_is_a_usage_error(text: str) -> None:
    """Anything but PATH OP VALUE or PATH [not] in (...) is refused, naming the flag."""
    with pytest.raises(UsageError, match="--where"):
        parse_where(text)


def test_every_condition_must_hold() -> None:
    """Several conditions are ANDed; order is kept."""
    records = [FINDING, {**FINDING, "id": "vf-2", "cvss_score": 5.0}, {**FINDING, "id": "vf-3"}]
    kept = keep(records, [parse_where("cvss_score>=7"), parse_where("severity=high")])
    assert [record["id"] for record in kept] == ["vf-1", "vf-3"]


async def test_list_where_keeps_matching_records(published: Published) -> None:
    """list --where filters after fetching: the same as filtering the whole list by hand."""
    base = ("list", "vulnerability-findings", "--base-url", published.url)
    everything = await published.run(*base)
    kept = await published.run(
        *base, "--where", "cvss_score>=7", "--where", "severity in (high,low)"
    )
    assert everything.code == kept.code == 0, kept.stderr
    records = [orjson.loads(line) for line in everything.stdout.splitlines()]
    expected = [
        r["id"] for r in records if (r["cvss_score"] or 0) >= 7 and r["severity"] in ("high", "low")
    ]
    assert expected
    assert [orjson.loads(line)["id"] for line in kept.stdout.splitlines()] == expected


@pytest.mark.parametrize("command", ["list", "export"])
async def test_a_typo_of_a_published_field_is_a_usage_error_before_any_request(
    published: Published, command: str, tmp_path: Path
) -> None:
    """`--where updatd_at>=2024` exits 2 naming the published field, fetching and writing
    nothing."""
    out = tmp_path / "out"
    args = ("--out", str(out)) if command == "export" else ()
    outcome = await published.run(
        command, "vulnerability-findings", *args, "--base-url", published.url,
        "--where", "updatd_at>=2024",
    )  # fmt: skip
    assert (outcome.code, outcome.stdout) == (2, b"")
    assert (
        "--where updatd_at>=2024: vulnerability-findings records have no published field "
        "'updatd_at' (did you mean 'updated_at'?)" in outcome.stderr
    )
    assert "name a field the service sends beside them as extra.updatd_at" in outcome.stderr
    assert published.requests == []
    assert not out.exists()


@pytest.mark.parametrize("command", ["list", "export"])
async def test_a_field_no_record_has_is_a_usage_error_after_the_first_page(
    published: Published, command: str, tmp_path: Path
) -> None:
    """`--where sevrity=critical` (not published, so looked for in the records) exits 2 once
    the first page shows no record has it, naming the closest key, where it used to keep no
    record and exit 0; nothing is written, and an export leaves nothing to resume."""
    out = tmp_path / "out"
    args = ("--out", str(out)) if command == "export" else ()
    outcome = await published.run(
        command, "vulnerability-findings", *args, "--base-url", published.url,
        "--where", "sevrity=critical", "--progress", "never",
    )  # fmt: skip
    assert (outcome.code, outcome.stdout) == (2, b"")
    assert "--where sevrity=critical: none of the first " in outcome.stderr
    assert (
        " vulnerability-findings records has a field 'sevrity' (did you mean 'severity'?)"
        in outcome.stderr
    )
    assert "as extra.sevrity (not checked)" in outcome.stderr
    assert list(out.iterdir() if out.exists() else []) == []


async def test_a_field_outside_the_contract_is_filtered_on_when_marked(
    published: Published,
) -> None:
    """`--where extra.kev=true` keeps the findings whose own `kev` is true (a field their
    records carry beside the typed ones), without looking for it in the first page."""
    base = ("list", "vulnerability-findings", "--base-url", published.url)
    everything = await published.run(*base)
    kept = await published.run(*base, "--where", "extra.kev=true")
    assert everything.code == kept.code == 0, kept.stderr
    expected = [r["id"] for r in everything.jsonl() if r.get("kev") is True]
    assert expected
    assert [record["id"] for record in kept.jsonl()] == expected


async def test_a_resumed_export_keeps_a_marked_condition(tmp_path: Path) -> None:
    """The checkpoint stores `extra.cvss_score>=0` as typed; the resume, with it or without it,
    goes on filtering on the record's own cvss_score: the file holds exactly those records."""
    findings = "vulnerability-findings"
    args = ("export", findings, "--out", str(tmp_path), "--page-size", "50", "--retries", "0")
    condition = ("--where", "extra.cvss_score>=0")
    async with Simulator(FAILING) as failing:
        first = await cli_here(*args, "--base-url", failing.url, *condition)
    assert first.code == 3, first.stderr
    checkpoint = orjson.loads((tmp_path / f"{findings}.checkpoint.json").read_bytes())
    assert checkpoint["where"] == ["extra.cvss_score>=0"]
    async with Simulator(SimulatorConfig(seed=FAILING.seed, size=FAILING.size)) as healthy:
        resumed = await cli_here(*args, "--base-url", healthy.url, "--resume", *condition)
        expected = [
            r["id"] for r in healthy.dataset.records(findings) if r.get("cvss_score") is not None
        ]
    assert resumed.code == 0, resumed.stderr
    lines = (tmp_path / f"{findings}.jsonl").read_bytes().splitlines()
    assert expected
    assert [orjson.loads(line)["id"] for line in lines] == expected


async def test_the_readmes_null_example_keeps_findings_without_a_target(
    published: Published,
) -> None:
    """`--where 'remediation_target_id=null'` (the docs') keeps the findings no remediation
    target covers yet, and only those."""
    base = ("list", "vulnerability-findings", "--base-url", published.url)
    everything = await published.run(*base)
    kept = await published.run(*base, "--where", "remediation_target_id=null")
    assert everything.code == kept.code == 0, kept.stderr
    expected = [r["id"] for r in everything.jsonl() if r.get("remediation_target_id") is None]
    assert 0 < len(expected) < len(everything.jsonl())
    assert [record["id"] for record in kept.jsonl()] == expected


@pytest.mark.parametrize("spelt", ["MACOS", "macOS", "macos"])
async def test_a_published_enum_value_matches_in_any_case(published: Published, spelt: str) -> None:
    """`--where operating_system.family=MACOS` keeps the macOS endpoints, as `macos` does: the
    value is taken as the published one (it used to keep none and exit 0)."""
    base = ("list", "endpoints", "--base-url", published.url)
    everything = await published.run(*base)
    kept = await published.run(*base, "--where", f"operating_system.family={spelt}")
    assert everything.code == kept.code == 0, kept.stderr
    expected = [r["id"] for r in everything.jsonl() if r["operating_system"]["family"] == "macos"]
    assert expected
    assert [record["id"] for record in kept.jsonl()] == expected


@pytest.mark.parametrize("command", ["list", "export"])
async def test_a_value_no_published_enum_has_is_a_usage_error_before_any_request(
    published: Published, command: str, tmp_path: Path
) -> None:
    """`--where operating_system.family=mac` exits 2 listing the published values and the
    closest, asking nothing of the service and writing nothing."""
    out = tmp_path / "out"
    args = ("--out", str(out)) if command == "export" else ()
    outcome = await published.run(
        command, "endpoints", *args, "--base-url", published.url,
        "--where", "operating_system.family=mac",
    )  # fmt: skip
    assert (outcome.code, outcome.stdout) == (2, b"")
    assert (
        "--where operating_system.family=mac: operating_system.family is one of macos, windows, "
        "linux, other (in any case), not 'mac' (did you mean macos?)" in outcome.stderr
    )
    assert published.requests == []
    assert not out.exists()


@pytest.mark.parametrize(
    ("condition", "canonical"),
    [
        ("status in (Active, PAUSED)", ("active", "paused")),
        ("finding_filter.min_severity!=HIGH", ("high",)),
        ("endpoint_filter.os_families=Linux", ("linux",)),
        ("status=null", ("null",)),
    ],
    ids=["in", "nested", "list-items", "null"],
)
def test_every_published_enum_is_checked_and_spelt_as_published(
    condition: str, canonical: tuple[str, ...]
) -> None:
    """Scopes' status, a finding filter's severity and the items of a list of families are
    published enums too; `null` stays null."""
    (checked,) = check_conditions(SCOPES, [parse_where(condition)])
    assert checked.values == canonical


def test_an_unpublished_field_is_not_checked_for_values() -> None:
    """A finding's `severity` is not published: any value is taken as given."""
    (checked,) = check_conditions(FINDINGS, [parse_where("severity=URGENT")])
    assert checked.values == ("URGENT",)


async def test_a_condition_no_first_page_record_meets_is_noted(published: Published) -> None:
    """`--where operating_system.name=macos` (the name is `macOS`) says on stderr, once, that no
    record of the first page meets it and which values they hold; the list goes on, exit 0."""
    outcome = await published.run(
        "list", "endpoints", "--base-url", published.url, "--page-size", "5",
        "--where", "operating_system.name=macos", "--where", "hostname!=x",
    )  # fmt: skip
    assert (outcome.code, outcome.stdout) == (0, b""), outcome.stderr
    (line,) = outcome.stderr.splitlines()
    assert line.startswith(
        "remedy-async: --where operating_system.name=macos: none of the first 5 endpoints "
        "records meets it (they hold operating_system.name: "
    )
    names = dict.fromkeys(r["operating_system"]["name"] for r in published.records["endpoints"][:5])
    assert line.split("operating_system.name: ", 1)[1].startswith(", ".join(list(names)[:5]))
    assert len(published.requests) > 1  # the rest of the list was read


async def test_a_condition_the_first_page_meets_is_not_noted(published: Published) -> None:
    """A condition some record of the first page meets says nothing; `--quiet` silences the
    note too."""
    met = await published.run(
        "list", "vulnerability-findings", "--base-url", published.url, "--where", "severity=high"
    )
    quiet = await published.run(
        "list", "endpoints", "--base-url", published.url, "--quiet",
        "--where", "operating_system.name=macos",
    )  # fmt: skip
    assert (met.code, quiet.code) == (0, 0), met.stderr + quiet.stderr
    assert met.stdout
    assert (met.stderr, quiet.stderr) == ("", "")
