"""The data set: determinism, scale, realism, referential consistency and filtering truth."""

from __future__ import annotations

import re
from collections import Counter
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from remedy_async import RemedyClient
from remedy_async.simulator import Dataset, Simulator, SimulatorConfig

TIMESTAMP = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$")
CVSS_BANDS = {"low": (0.1, 3.9), "medium": (4.0, 6.9), "high": (7.0, 8.9), "critical": (9.0, 10.0)}
ENUMS = {
    ("endpoints", "status"): {"online", "offline", "decommissioned"},
    ("remediation-targets", "action"): {"patch", "upgrade", "uninstall", "configure", "isolate"},
    ("remediation-targets", "status"): {
        "pending", "in_progress", "succeeded", "failed", "cancelled",
    },
    ("vulnerability-findings", "severity"): {"low", "medium", "high", "critical"},
    ("vulnerability-findings", "status"): {"open", "remediating", "resolved", "suppressed"},
}  # fmt: skip
FIELDS = {
    "endpoints": {
        "id", "hostname", "displayName", "os", "ipAddresses", "agentVersion", "status",
        "lastSeenAt", "enrolledAt", "tags",
    },
    "remediation-targets": {
        "id", "endpointId", "scopeId", "findingIds", "action", "status", "createdAt",
        "updatedAt", "completedAt", "attempts", "lastError",
    },
    "scopes": {
        "id", "name", "description", "enabled", "selector", "rules", "createdAt", "updatedAt",
    },
    "vulnerability-findings": {
        "id", "endpointId", "cveId", "title", "severity", "cvssScore", "scanner", "status",
        "detectedAt", "package", "remediationTargetId",
    },
}  # fmt: skip

NOW = datetime(2024, 6, 1, tzinfo=UTC)
"""Pinned, so data sets made at different times compare equal."""
DATASET = Dataset(seed=3, size=40, now=NOW)


def all_records(dataset: Dataset, resource: str) -> list[dict[str, Any]]:
    return list(dataset.records(resource))


def test_same_seed_gives_the_same_records() -> None:
    """Two data sets of one seed and size are identical."""
    again = Dataset(seed=3, size=40, now=NOW)
    for resource in DATASET.resources:
        assert all_records(again, resource) == all_records(DATASET, resource)


def test_other_seed_gives_other_records() -> None:
    """Another seed changes the records."""
    other = Dataset(seed=4, size=40)
    assert all_records(other, "endpoints") != all_records(DATASET, "endpoints")


def test_counts_scale_with_size() -> None:
    """About 20 findings and 3 targets per endpoint, and 24 + size/1000 scopes."""
    dataset = Dataset(seed=0, size=2000)
    assert dataset.count("endpoints") == 2000
    assert 18 * 2000 < dataset.count("vulnerability-findings") < 22 * 2000
    assert 2.5 * 2000 < dataset.count("remediation-targets") < 3.5 * 2000
    assert dataset.count("scopes") == 26


def test_ids_are_fixed_width_and_ordered() -> None:
    """Ids look like ep-00000001 and sort in list order."""
    prefixes = {"endpoints": "ep", "remediation-targets": "rt", "scopes": "sc"}
    prefixes["vulnerability-findings"] = "vf"
    for resource, prefix in prefixes.items():
        ids = list(DATASET.ids(resource))
        assert ids == sorted(ids)
        assert ids[0] == f"{prefix}-00000001"
        assert all(re.fullmatch(rf"{prefix}-\d{{8}}", record_id) for record_id in ids)


def test_get_returns_the_record_with_that_id() -> None:
    """get(id) finds the record; an unknown or malformed id gives None."""
    record = DATASET.get("scopes", "sc-00000002")
    assert record is not None
    assert record["id"] == "sc-00000002"
    assert DATASET.get("scopes", "sc-99999999") is None
    assert DATASET.get("scopes", "sc-2") is None
    assert DATASET.get("scopes", "ep-00000001") is None


def test_every_documented_field_is_present() -> None:
    """Each record carries all the fields the client models know."""
    for resource, fields in FIELDS.items():
        for record in all_records(DATASET, resource):
            assert fields <= record.keys(), (resource, fields - record.keys())


def test_some_records_carry_unknown_fields() -> None:
    """Around 10% of records carry fields the models do not know (forward compatibility)."""
    for resource, fields in FIELDS.items():
        records = all_records(Dataset(seed=1, size=300), resource)
        share = sum(bool(record.keys() - fields) for record in records) / len(records)
        assert 0.03 < share < 0.2, (resource, share)


def test_enums_hold_known_values_only() -> None:
    """The simulator only emits the documented enum values."""
    for (resource, field), known in ENUMS.items():
        assert {record[field] for record in all_records(DATASET, resource)} <= known
    families = {record["os"]["family"] for record in all_records(DATASET, "endpoints")}
    assert families <= {"windows", "macos", "linux"}


def test_timestamps_are_utc_with_z() -> None:
    """Every timestamp is ISO 8601 UTC to the second with a Z."""
    for record in all_records(DATASET, "remediation-targets"):
        for field in ("createdAt", "updatedAt"):
            assert TIMESTAMP.match(record[field])
        assert record["completedAt"] is None or TIMESTAMP.match(record["completedAt"])
        assert record["createdAt"] <= record["updatedAt"]


def test_cvss_scores_sit_in_their_severity_band() -> None:
    """cvssScore agrees with severity, and CVE ids look like CVE-YYYY-NNNNN."""
    for record in all_records(DATASET, "vulnerability-findings"):
        low, high = CVSS_BANDS[record["severity"]]
        assert low <= record["cvssScore"] <= high
        assert re.fullmatch(r"CVE-20\d{2}-\d{5}", record["cveId"])


def test_findings_point_at_existing_endpoints_and_targets() -> None:
    """A finding's endpoint exists; its target exists, is on that endpoint and lists it."""
    targets = {record["id"]: record for record in all_records(DATASET, "remediation-targets")}
    endpoints = set(DATASET.ids("endpoints"))
    covered = 0
    for finding in all_records(DATASET, "vulnerability-findings"):
        assert finding["endpointId"] in endpoints
        if finding["remediationTargetId"] is not None:
            covered += 1
            target = targets[finding["remediationTargetId"]]
            assert target["endpointId"] == finding["endpointId"]
            assert finding["id"] in target["findingIds"]
    assert covered > 0


def test_targets_point_at_their_endpoint_scope_and_findings() -> None:
    """A target's endpoint and scope exist; its findings are that endpoint's and point back."""
    scopes = set(DATASET.ids("scopes"))
    for target in all_records(DATASET, "remediation-targets"):
        assert target["scopeId"] in scopes
        assert target["findingIds"]
        for finding_id in target["findingIds"]:
            finding = DATASET.get("vulnerability-findings", finding_id)
            assert finding is not None
            assert finding["endpointId"] == target["endpointId"]
            assert finding["remediationTargetId"] == target["id"]


def test_scope_selectors_name_existing_endpoints() -> None:
    """Scope selectors only name endpoints that exist."""
    endpoints = set(DATASET.ids("endpoints"))
    for scope in all_records(DATASET, "scopes"):
        assert set(scope["selector"]["endpointIds"]) <= endpoints


def test_an_endpoint_never_has_the_same_cve_twice() -> None:
    """Findings of one endpoint are distinct vulnerabilities."""
    pairs = Counter(
        (finding["endpointId"], finding["cveId"])
        for finding in all_records(DATASET, "vulnerability-findings")
    )
    assert max(pairs.values()) == 1


def test_id_prefix_applies_to_ids_and_references() -> None:
    """A configured id prefix is part of every id and every reference."""
    dataset = Dataset(seed=0, size=3, id_prefix="tenant/a b:")
    finding = next(dataset.records("vulnerability-findings"))
    assert finding["id"] == "tenant/a b:vf-00000001"
    assert finding["endpointId"] == "tenant/a b:ep-00000001"
    assert dataset.get("vulnerability-findings", "tenant/a b:vf-00000001") == finding


def test_big_data_sets_are_generated_lazily() -> None:
    """A million findings cost nothing up front; the last one is generated on demand."""
    dataset = Dataset(seed=0, size=50_000)
    last = dataset.count("vulnerability-findings")
    assert last > 900_000
    record = dataset.get("vulnerability-findings", f"vf-{last:08d}")
    assert record is not None
    assert record["endpointId"] == "ep-00050000"


def test_unknown_resource_is_an_error() -> None:
    """Asking about an unknown collection raises ValueError."""
    with pytest.raises(ValueError, match="unknown resource"):
        DATASET.count("devices")


def brute_force(resource: str, filters: dict[str, list[str]]) -> list[str]:
    def keep(record: dict[str, Any]) -> bool:
        return all(
            str(record[name]).lower() in {value.lower() for value in values}
            if isinstance(record[name], bool)
            else str(record[name]) in values
            for name, values in filters.items()
        )

    return [record["id"] for record in DATASET.records(resource) if keep(record)]


@settings(max_examples=60, deadline=None)
@given(
    severity=st.lists(st.sampled_from(["low", "medium", "high", "critical", "bogus"]), max_size=2),
    status=st.lists(st.sampled_from(["open", "remediating", "resolved", "suppressed"]), max_size=2),
    scanner=st.lists(st.sampled_from(["qualys", "tenable", "defender", "trivy"]), max_size=2),
    endpoints=st.lists(st.integers(1, 45), max_size=2),
)
def test_findings_filters_agree_with_a_brute_force_scan(
    severity: list[str], status: list[str], scanner: list[str], endpoints: list[int]
) -> None:
    """Filtering findings by any mix of fields gives what scanning every record gives."""
    filters = {"severity": severity, "status": status, "scanner": scanner}
    filters["endpointId"] = [f"ep-{number:08d}" for number in endpoints]
    filters = {name: values for name, values in filters.items() if values}
    assert list(DATASET.ids("vulnerability-findings", filters)) == brute_force(
        "vulnerability-findings", filters
    )


@settings(max_examples=40, deadline=None)
@given(
    action=st.lists(st.sampled_from(["patch", "upgrade", "isolate"]), max_size=2),
    attempts=st.lists(st.sampled_from(["0", "1", "2", "3"]), max_size=2),
    scope=st.lists(st.integers(1, 24), max_size=2),
)
def test_target_filters_agree_with_a_brute_force_scan(
    action: list[str], attempts: list[str], scope: list[int]
) -> None:
    """Filtering targets by action, attempts and scope gives what a full scan gives."""
    filters = {"action": action, "attempts": attempts}
    filters["scopeId"] = [f"sc-{number:08d}" for number in scope]
    filters = {name: values for name, values in filters.items() if values}
    assert list(DATASET.ids("remediation-targets", filters)) == brute_force(
        "remediation-targets", filters
    )


@pytest.mark.parametrize(
    ("resource", "filters"),
    [
        ("endpoints", {"hostname": ["x"]}),
        ("scopes", {"enabled": ["true"]}),
        ("scopes", {"enabled": ["false"]}),
        ("vulnerability-findings", {"remediationTargetId": ["rt-00000001", "rt-00000002"]}),
        ("remediation-targets", {"lastError": ["insufficient disk space on the system volume"]}),
    ],
)
def test_computed_filters_agree_with_a_brute_force_scan(
    resource: str, filters: dict[str, list[str]]
) -> None:
    """Filters without a column index (computed per record) are exact too."""
    assert list(DATASET.ids(resource, filters)) == brute_force(resource, filters)


def test_null_filter_matches_null_fields() -> None:
    """`null` selects records whose field is null."""
    uncovered = list(DATASET.ids("vulnerability-findings", {"remediationTargetId": "null"}))
    assert uncovered
    assert uncovered == [
        record["id"]
        for record in DATASET.records("vulnerability-findings")
        if record["remediationTargetId"] is None
    ]


async def test_an_updated_record_is_served_changed_from_then_on() -> None:
    """Dataset.update changes the record that lists, gets and `records` serve."""
    async with Simulator(SimulatorConfig(seed=1, size=5)) as simulator:
        scope = simulator.dataset.id_of("scopes", 2)
        async with RemedyClient(simulator.url) as client:
            await client.scopes.list().as_dicts().collect()  # cached pages and records
            simulator.dataset.update("scopes", scope, {"name": "Renamed", "enabled": None})
            listed = {r["id"]: r async for r in client.scopes.list().as_dicts()}[scope]
            got = await client.scopes.get(scope)
    assert (listed["name"], listed["enabled"]) == ("Renamed", None)
    assert (got.name, got.enabled) == ("Renamed", None)
    assert simulator.dataset.get("scopes", scope)["name"] == "Renamed"


def test_filters_see_an_updated_record_as_it_is_now() -> None:
    """A record updated out of a filter's match leaves it, and enters the one it now matches."""
    dataset = Dataset(seed=3, size=30)
    endpoint = next(dataset.ids("endpoints", {"status": "online"}))
    online_before = dataset.count("endpoints", {"status": "online"})
    dataset.update("endpoints", endpoint, {"status": "offline"})
    assert endpoint not in set(dataset.ids("endpoints", {"status": "online"}))
    assert endpoint in set(dataset.ids("endpoints", {"status": "offline"}))
    assert dataset.count("endpoints", {"status": "online"}) == online_before - 1


TIME_FIELDS = ("lastSeenAt", "enrolledAt", "createdAt", "updatedAt", "completedAt", "detectedAt")


def timestamps(dataset: Dataset) -> list[datetime]:
    """Every timestamp of every record, in a fixed order."""
    found = []
    for resource in dataset.resources:
        for record in dataset.records(resource):
            for name in TIME_FIELDS:
                if record.get(name) is not None:
                    found.append(datetime.fromisoformat(record[name]))
    return found


def test_every_timestamp_lies_before_now() -> None:
    """Records are dated up to `now`, the data set's present, and never after it."""
    now = datetime(2031, 3, 4, 5, 6, 7, tzinfo=UTC)
    moments = timestamps(Dataset(seed=3, size=40, now=now))
    assert max(moments) <= now
    assert now - max(moments) < timedelta(hours=1)


def test_a_later_now_shifts_every_timestamp_by_as_much() -> None:
    """The records' distances from `now` come from the seed alone: move `now`, move them all."""
    later = NOW + timedelta(days=400, seconds=7)
    shifted = timestamps(Dataset(seed=3, size=40, now=later))
    assert shifted == [moment + (later - NOW) for moment in timestamps(DATASET)]


def test_now_defaults_to_the_real_time() -> None:
    """Without `now`, a data set's present is the time it is made, to the second."""
    before = datetime.now(UTC).replace(microsecond=0)
    assert before <= Dataset(seed=3, size=2).now <= datetime.now(UTC)
