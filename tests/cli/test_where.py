"""`--where`: client-side conditions on wire records, parsed without eval."""

from __future__ import annotations

import orjson
import pytest

from remedy_async.cli._errors import UsageError
from remedy_async.cli._where import keep, parse_where
from remedy_async.simulator import Simulator

from .conftest import cli_here

FINDING = {
    "id": "vf-1",
    "severity": "high",
    "cvssScore": 7.5,
    "fixable": True,
    "resolvedAt": None,
    "os": {"family": "linux"},
    "detectedAt": "2024-05-01T10:00:00Z",
}


@pytest.mark.parametrize(
    ("condition", "holds"),
    [
        ("severity=high", True),
        ("severity != high", False),
        ("cvssScore>=7", True),
        ("cvssScore > 7.5", False),
        ("cvssScore<=7.5", True),
        ("cvssScore < x", False),
        ("severity in (critical, high)", True),
        ("severity not in (critical,high)", False),
        ("SEVERITY IN (high)", False),
        ("fixable=true", True),
        ("fixable=1", False),
        ("resolvedAt=null", True),
        ("missing=null", True),
        ("missing>=1", False),
        ("os.family=linux", True),
        ("os.family.deeper=linux", False),
        ("detectedAt>=2024-01-01", True),
        ("detectedAt<2024-05-01T10:00:00Z", False),
    ],
)
def test_a_condition_compares_as_the_records_value_does(condition: str, holds: bool) -> None:
    """Numbers as numbers, booleans as true/false, null as missing, the rest as text."""
    assert parse_where(condition).holds(FINDING) is holds


@pytest.mark.parametrize("text", ["severity", "cvssScore >> 7", "x in ()", "__import__('os')"])
def test_a_malformed_condition_is_a_usage_error(text: str) -> None:
    """Anything but PATH OP VALUE or PATH [not] in (...) is refused, naming the flag."""
    with pytest.raises(UsageError, match="--where"):
        parse_where(text)


def test_every_condition_must_hold() -> None:
    """Several conditions are ANDed; order is kept."""
    records = [FINDING, {**FINDING, "id": "vf-2", "cvssScore": 5.0}, {**FINDING, "id": "vf-3"}]
    kept = keep(records, [parse_where("cvssScore>=7"), parse_where("severity=high")])
    assert [record["id"] for record in kept] == ["vf-1", "vf-3"]


async def test_list_where_keeps_matching_records(simulator: Simulator) -> None:
    """list --where filters after fetching: the same as filtering the whole list by hand."""
    base = ("list", "vulnerability-findings", "--base-url", simulator.url)
    everything = await cli_here(*base)
    kept = await cli_here(*base, "--where", "cvssScore>=7", "--where", "severity in (high,low)")
    assert everything.code == kept.code == 0
    records = [orjson.loads(line) for line in everything.stdout.splitlines()]
    expected = [
        r["id"] for r in records if r["cvssScore"] >= 7 and r["severity"] in ("high", "low")
    ]
    assert expected
    assert [orjson.loads(line)["id"] for line in kept.stdout.splitlines()] == expected
