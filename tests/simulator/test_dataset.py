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
UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$")
CVSS_BANDS = {"low": (0.1, 3.9), "medium": (4.0, 6.9), "high": (7.0, 8.9), "critical": (9.0, 10.0)}
SEVERITIES = {"critical", "high", "medium", "low", "info"}
FIELDS = {
    "endpoints": {
        "id", "hostname", "ip", "mac_address", "operating_system", "agent_id", "agent_version",
        "created_at", "updated_at",
    },
    "remediation-targets": {
        "id", "endpoint_id", "type", "name", "vendor", "version", "path", "package_manager",
        "created_at", "updated_at",
    },
    "scopes": {
        "id", "name", "description", "status", "subject_filter", "endpoint_filter",
        "finding_filter",
    },
    "vulnerability-findings": {
        "id", "endpoint_id", "remediation_target_id", "finding_type", "severity", "cve_id",
        "title", "cvss_score", "kev", "created_at", "updated_at",
    },
}  # fmt: skip
"""Endpoints and scopes: the published fields (REAL-CONTRACT.md), exactly; targets and
findings: the assumed ones."""
OPERATING_SYSTEM = {"name", "version", "family", "vendor", "architecture"}
SUBJECT_FILTER = {"subject_types", "vendors", "products", "cpe_patterns"}
ENDPOINT_FILTER = {"os_families", "endpoint_ids", "has_agent", "tags"}
FINDING_FILTER = {"finding_types", "min_severity", "min_cvss_score", "kev_only"}
ENUMS = {
    ("scopes", "status"): {"active", "paused", "archived"},
    ("remediation-targets", "type"): {"software", "os_patch", "configuration", "service"},
    ("vulnerability-findings", "finding_type"): {
        "vulnerability", "deprecation", "compliance", "licensing", "standardization",
    },
    ("vulnerability-findings", "severity"): SEVERITIES,
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


def test_ids_are_uuids_deterministic_per_seed_and_resource() -> None:
    """Ids are lower-case version-4 UUIDs, all distinct (across resources too), the same for
    the same seed, others for another seed; list order is not id order."""
    again, other = Dataset(seed=3, size=40, now=NOW), Dataset(seed=4, size=40, now=NOW)
    every: list[str] = []
    for resource in DATASET.resources:
        ids = list(DATASET.ids(resource))
        assert all(UUID.match(record_id) for record_id in ids), resource
        assert ids == list(again.ids(resource))
        assert not set(ids) & set(other.ids(resource))
        every += ids
    assert len(set(every)) == len(every)
    endpoints = list(DATASET.ids("endpoints"))
    assert endpoints != sorted(endpoints)


def test_get_returns_the_record_with_that_id() -> None:
    """get(id) finds the record; an unknown, malformed or other resource's id gives None."""
    scope = DATASET.id_of("scopes", 1)
    record = DATASET.get("scopes", scope)
    assert record is not None
    assert record["id"] == scope
    assert DATASET.index_of("scopes", scope) == 1
    assert DATASET.get("scopes", "00000000-0000-4000-8000-000000000000") is None
    assert DATASET.get("scopes", scope.upper()) is None
    assert DATASET.get("scopes", "sc-00000002") is None
    assert DATASET.get("scopes", DATASET.id_of("endpoints", 1)) is None
    assert DATASET.well_formed(scope.upper())
    assert not DATASET.well_formed("sc-00000002")


def test_records_have_exactly_their_fields() -> None:
    """Endpoints and scopes carry exactly the published fields, targets and findings exactly
    the assumed ones; nested objects exactly theirs (a scope's filters: some of theirs)."""
    for resource, fields in FIELDS.items():
        for record in all_records(DATASET, resource):
            assert record.keys() == fields, (resource, record.keys() ^ fields)
    for endpoint in all_records(DATASET, "endpoints"):
        assert endpoint["operating_system"].keys() == OPERATING_SYSTEM
    for scope in all_records(DATASET, "scopes"):
        assert scope["subject_filter"].keys() <= SUBJECT_FILTER
        assert scope["endpoint_filter"].keys() <= ENDPOINT_FILTER
        assert scope["finding_filter"].keys() <= FINDING_FILTER


def test_extra_fields_are_served_only_when_asked() -> None:
    """`extra_fields_rate` (0 by default) adds fields no model knows to that share of records."""
    for resource, fields in FIELDS.items():
        records = all_records(Dataset(seed=1, size=300, extra_fields_rate=0.1), resource)
        share = sum(bool(record.keys() - fields) for record in records) / len(records)
        assert 0.03 < share < 0.2, (resource, share)
        assert all(record.keys() >= fields for record in records)


def test_endpoints_are_plausible() -> None:
    """Endpoints: a hostname, nullable addresses, a published OS family (a few `other`), an
    agent version exactly when an agent id, updated no earlier than created."""
    endpoints = all_records(Dataset(seed=5, size=400, now=NOW), "endpoints")
    families = Counter(e["operating_system"]["family"] for e in endpoints)
    assert set(families) == {"macos", "windows", "linux", "other"}
    assert 0 < families["other"] < 0.08 * len(endpoints)
    for endpoint in endpoints:
        system = endpoint["operating_system"]
        assert endpoint["hostname"]
        assert system["name"]
        assert system["architecture"] in (None, "x86_64", "arm64")
        assert endpoint["ip"] is None or re.fullmatch(r"10(\.\d{1,3}){3}", endpoint["ip"])
        mac = endpoint["mac_address"]
        assert mac is None or re.fullmatch(r"([0-9a-f]{2}:){5}[0-9a-f]{2}", mac)
        assert (endpoint["agent_id"] is None) == (endpoint["agent_version"] is None)
        assert endpoint["agent_id"] is None or UUID.match(endpoint["agent_id"])
        assert TIMESTAMP.match(endpoint["created_at"])
        assert endpoint["created_at"] <= endpoint["updated_at"]
    assert {None, "x86_64", "arm64"} == {e["operating_system"]["architecture"] for e in endpoints}
    assert any(e["ip"] is None for e in endpoints)
    assert any(e["agent_id"] is None for e in endpoints)
    names = {e["operating_system"]["name"] for e in endpoints}
    assert {"macOS", "Windows 11", "Ubuntu"} <= names


def test_enums_hold_known_values_only() -> None:
    """The simulator only emits the documented enum values, every one of them."""
    dataset = Dataset(seed=5, size=400, now=NOW)
    for (resource, field), known in ENUMS.items():
        assert {record[field] for record in all_records(dataset, resource)} == known, field


def test_scope_filters_hold_published_values() -> None:
    """A scope's filters use the published values; its endpoint ids name existing endpoints."""
    endpoints = set(DATASET.ids("endpoints"))
    for scope in all_records(DATASET, "scopes"):
        subject, endpoint, finding = (
            scope["subject_filter"], scope["endpoint_filter"], scope["finding_filter"],
        )  # fmt: skip
        assert set(subject.get("subject_types", ())) <= {"software", "service", "configuration"}
        assert set(endpoint.get("os_families", ())) <= {"macos", "windows", "linux"}
        assert set(endpoint.get("endpoint_ids", ())) <= endpoints
        assert isinstance(endpoint.get("has_agent", False), bool)
        assert finding.get("min_severity", "info") in SEVERITIES
        assert 0 <= finding.get("min_cvss_score", 0) <= 10
        assert isinstance(finding.get("kev_only", False), bool)
        assert scope["description"] is None or scope["description"]
    assert any(scope["description"] is None for scope in all_records(DATASET, "scopes"))


def test_timestamps_are_utc_with_z() -> None:
    """Every timestamp is ISO 8601 UTC to the second with a Z, updated no earlier than created."""
    for resource in ("endpoints", "remediation-targets", "vulnerability-findings"):
        for record in all_records(DATASET, resource):
            for field in ("created_at", "updated_at"):
                assert TIMESTAMP.match(record[field])
            assert record["created_at"] <= record["updated_at"]


def test_vulnerabilities_have_a_cve_and_a_cvss_score_in_their_severity_band() -> None:
    """A `vulnerability` finding has a CVE id and a CVSS score within its severity's band;
    another type has neither, and no KEV flag."""
    types = Counter()
    for record in all_records(DATASET, "vulnerability-findings"):
        types[record["finding_type"]] += 1
        if record["finding_type"] == "vulnerability":
            low, high = CVSS_BANDS[record["severity"]]
            assert low <= record["cvss_score"] <= high
            assert re.fullmatch(r"CVE-20\d{2}-\d{5}", record["cve_id"])
        else:
            assert (record["cve_id"], record["cvss_score"], record["kev"]) == (None, None, False)
    assert types["vulnerability"] > 0.75 * sum(types.values())


def test_findings_point_at_existing_endpoints_and_targets() -> None:
    """A finding's endpoint exists; its target exists and is on that endpoint."""
    targets = {record["id"]: record for record in all_records(DATASET, "remediation-targets")}
    endpoints = set(DATASET.ids("endpoints"))
    covered = 0
    for finding in all_records(DATASET, "vulnerability-findings"):
        assert finding["endpoint_id"] in endpoints
        if finding["remediation_target_id"] is not None:
            covered += 1
            target = targets[finding["remediation_target_id"]]
            assert target["endpoint_id"] == finding["endpoint_id"]
    assert 0 < covered < DATASET.count("vulnerability-findings")


def test_targets_are_installations_on_existing_endpoints() -> None:
    """A target is on an existing endpoint, of a known type; software has a version and a
    vendor; every target is affected by at least one finding."""
    endpoints = set(DATASET.ids("endpoints"))
    affected = {f["remediation_target_id"] for f in all_records(DATASET, "vulnerability-findings")}
    for target in all_records(DATASET, "remediation-targets"):
        assert target["endpoint_id"] in endpoints
        assert target["name"]
        assert target["id"] in affected
        if target["type"] == "software":
            assert target["version"]
            assert target["vendor"]


def test_an_endpoint_never_has_the_same_cve_twice() -> None:
    """Vulnerability findings of one endpoint are distinct vulnerabilities."""
    pairs = Counter(
        (finding["endpoint_id"], finding["cve_id"])
        for finding in all_records(DATASET, "vulnerability-findings")
        if finding["cve_id"] is not None
    )
    assert max(pairs.values()) == 1


def test_id_prefix_applies_to_ids_and_references() -> None:
    """A configured id prefix is part of every id and every reference (never of agent ids)."""
    dataset = Dataset(seed=0, size=3, id_prefix="tenant/a b:")
    finding = next(dataset.records("vulnerability-findings"))
    assert finding["id"].startswith("tenant/a b:")
    assert UUID.match(finding["id"].removeprefix("tenant/a b:"))
    assert finding["endpoint_id"] == dataset.id_of("endpoints", 0)
    assert finding["endpoint_id"].startswith("tenant/a b:")
    assert dataset.get("vulnerability-findings", finding["id"]) == finding
    assert dataset.get("vulnerability-findings", finding["id"].removeprefix("tenant/a b:")) is None
    agents = [e["agent_id"] for e in dataset.records("endpoints") if e["agent_id"]]
    assert all(UUID.match(agent) for agent in agents)


def test_big_data_sets_are_generated_lazily() -> None:
    """A million findings cost nothing up front; the last one is generated on demand."""
    dataset = Dataset(seed=0, size=50_000)
    last = dataset.count("vulnerability-findings")
    assert last > 900_000
    record = dataset.get(
        "vulnerability-findings", dataset.id_of("vulnerability-findings", last - 1)
    )
    assert record is not None
    assert record["endpoint_id"] == dataset.id_of("endpoints", 49_999)
    assert dataset.index_of("vulnerability-findings", record["id"]) == last - 1


def test_unknown_resource_is_an_error() -> None:
    """Asking about an unknown collection raises ValueError."""
    with pytest.raises(ValueError, match="unknown resource"):
        DATASET.count("devices")


def family(record: dict[str, Any]) -> str:
    return str(record["operating_system"]["family"])


@settings(max_examples=60, deadline=None)
@given(
    families=st.lists(st.sampled_from(["macos", "windows", "linux"]), max_size=3),
    agent=st.lists(st.sampled_from(["true", "false"]), max_size=2),
    seed=st.integers(0, 3),
)
def test_endpoint_filters_agree_with_a_brute_force_scan(
    families: list[str], agent: list[str], seed: int
) -> None:
    """Filtering endpoints by any mix of osFamily and hasAgent values (several values of one:
    any of them) gives what scanning every record gives."""
    dataset = Dataset(seed=seed, size=120, now=NOW)
    pairs = (("osFamily", families), ("hasAgent", agent))
    filters = {name: values for name, values in pairs if values}
    expected = [
        record["id"]
        for record in dataset.records("endpoints")
        if (not families or family(record) in families)
        and (not agent or str(record["agent_id"] is not None).lower() in agent)
    ]
    assert list(dataset.ids("endpoints", filters)) == expected
    assert dataset.count("endpoints", filters) == len(expected)


def test_a_filter_a_collection_does_not_take_is_a_value_error() -> None:
    """Dataset filters are checked: an unknown name or a value the filter refuses raises."""
    with pytest.raises(ValueError, match="Unknown query parameter: severity"):
        DATASET.count("vulnerability-findings", {"severity": "high"})
    with pytest.raises(ValueError, match=r"^osFamily must be one of macos, windows, linux\.$"):
        DATASET.count("endpoints", {"osFamily": "other"})


async def test_an_updated_record_is_served_changed_from_then_on() -> None:
    """Dataset.update changes the record that lists, gets and `records` serve."""
    async with Simulator(SimulatorConfig(seed=1, size=5)) as simulator:
        scope = simulator.dataset.id_of("scopes", 2)
        async with RemedyClient(simulator.url) as client:
            await client.scopes.list().as_dicts().collect()  # cached pages and records
            simulator.dataset.update("scopes", scope, {"name": "Renamed", "description": None})
            listed = {r["id"]: r async for r in client.scopes.list().as_dicts()}[scope]
            got = await client.scopes.get(scope)
    assert (listed["name"], listed["description"]) == ("Renamed", None)
    assert (got.name, got.description) == ("Renamed", None)
    assert simulator.dataset.get("scopes", scope)["name"] == "Renamed"


def test_filters_see_an_updated_record_as_it_is_now() -> None:
    """A record updated out of a filter's match leaves it, and enters the one it now matches."""
    dataset = Dataset(seed=3, size=30)
    endpoint = next(dataset.ids("endpoints", {"hasAgent": "true", "osFamily": "windows"}))
    record = dataset.get("endpoints", endpoint)
    assert record is not None
    with_agent = dataset.count("endpoints", {"hasAgent": "true"})
    system = {**record["operating_system"], "family": "linux"}
    dataset.update("endpoints", endpoint, {"agent_id": None, "operating_system": system})
    assert endpoint not in set(dataset.ids("endpoints", {"hasAgent": "true"}))
    assert endpoint in set(dataset.ids("endpoints", {"hasAgent": "false", "osFamily": "linux"}))
    assert endpoint not in set(dataset.ids("endpoints", {"osFamily": "windows"}))
    assert dataset.count("endpoints", {"hasAgent": "true"}) == with_agent - 1


TIME_FIELDS = ("created_at", "updated_at")


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
