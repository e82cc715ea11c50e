"""Codec and models: wire JSON to frozen attrs models and back, strictly, with JSON-path faults."""

from __future__ import annotations

import enum
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import attrs
import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from remedy_async._models import (
    Endpoint,
    EndpointStatus,
    FindingStatus,
    HealthStatus,
    OperatingSystem,
    OsFamily,
    Package,
    RemediationAction,
    RemediationStatus,
    RemediationTarget,
    Scope,
    ScopeSelector,
    Severity,
    VulnerabilityFinding,
)
from remedy_async._wire._codec import to_wire
from remedy_async._wire._fastpath import from_wire, structure_hook
from remedy_async._wire._faults import WireFault
from remedy_async._wire._naming import to_camel
from tests.budget import examples

RECORDS = (Endpoint, RemediationTarget, Scope, VulnerabilityFinding)
ALL_MODELS = (*RECORDS, OperatingSystem, Package, ScopeSelector, HealthStatus)

# ---------------------------------------------------------------------------------------------
# Strategies for the round-trip property


def _iso(value: datetime) -> str:
    """Format an aware datetime the way the service does: `Z` for UTC, else its offset."""
    text = value.isoformat()
    return text.removesuffix("+00:00") + "Z" if value.utcoffset() == timedelta(0) else text


_offsets = st.integers(min_value=-(23 * 60 + 59), max_value=23 * 60 + 59).filter(bool)
_zones = st.just(UTC) | _offsets.map(lambda minutes: timezone(timedelta(minutes=minutes)))
timestamps = st.datetimes(timezones=_zones).map(_iso)

json_scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text()
)
json_values = st.recursive(
    json_scalars,
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(), children, max_size=4)
    ),
    max_leaves=12,
)
strings = st.text()
string_arrays = st.lists(st.text(), max_size=4)


def open_enum(members: type[enum.Enum]) -> st.SearchStrategy[str]:
    """A known enum value or any other string (kept raw)."""
    return st.sampled_from([m.value for m in members]) | st.text()


def wire_record(
    known: dict[str, st.SearchStrategy[Any]],
    required: dict[str, st.SearchStrategy[Any]] | None = None,
) -> st.SearchStrategy[dict[str, Any]]:
    """A wire object: the required keys, a random subset of the known ones, and unknown keys.

    A record (one with required keys) that has unknown keys carries at least one known field
    too: one with only unknown keys is refused by design (see test_record_reader).
    """
    names = set(known) | set(required or {})
    extras = st.dictionaries(
        st.text().filter(lambda key: key not in names), json_values, max_size=3
    )
    fields = st.fixed_dictionaries(required or {}, optional=known)

    def combine(extra: dict[str, Any], data: dict[str, Any]) -> dict[str, Any]:
        if required and not data.keys() - set(required):
            extra = {}
        return {**extra, **data}

    return st.builds(combine, extras, fields)


os_wire = wire_record(
    {"family": open_enum(OsFamily), "name": strings, "version": strings},
)
package_wire = wire_record(
    {"name": strings, "installedVersion": strings, "fixedVersion": strings},
)
selector_wire = wire_record({"tags": string_arrays, "endpointIds": string_arrays})

ENDPOINT_FIELDS: dict[str, st.SearchStrategy[Any]] = {
    "hostname": strings,
    "displayName": strings,
    "os": os_wire,
    "ipAddresses": string_arrays,
    "agentVersion": strings,
    "status": open_enum(EndpointStatus),
    "lastSeenAt": timestamps,
    "enrolledAt": timestamps,
    "tags": string_arrays,
}
TARGET_FIELDS: dict[str, st.SearchStrategy[Any]] = {
    "endpointId": strings,
    "scopeId": strings,
    "findingIds": string_arrays,
    "action": open_enum(RemediationAction),
    "status": open_enum(RemediationStatus),
    "createdAt": timestamps,
    "updatedAt": timestamps,
    "completedAt": timestamps,
    "attempts": st.integers(),
    "lastError": strings,
}
SCOPE_FIELDS: dict[str, st.SearchStrategy[Any]] = {
    "name": strings,
    "description": strings,
    "enabled": st.booleans(),
    "selector": selector_wire,
    "rules": st.lists(json_values, max_size=4),
    "createdAt": timestamps,
    "updatedAt": timestamps,
}
FINDING_FIELDS: dict[str, st.SearchStrategy[Any]] = {
    "endpointId": strings,
    "cveId": strings,
    "title": strings,
    "severity": open_enum(Severity),
    "cvssScore": st.floats(min_value=0, max_value=10) | st.integers(min_value=0, max_value=10),
    "scanner": strings,
    "status": open_enum(FindingStatus),
    "detectedAt": timestamps,
    "package": package_wire,
    "remediationTargetId": strings,
}
ID = {"id": st.text()}

# ---------------------------------------------------------------------------------------------
# Round trip


@settings(max_examples=examples(200))
@given(wire_record(ENDPOINT_FIELDS, ID))
def test_endpoint_round_trips(data: dict[str, Any]) -> None:
    """An Endpoint read from any valid wire object writes back the same object."""
    assert to_wire(from_wire(Endpoint, data)) == data


@settings(max_examples=examples(200))
@given(wire_record(TARGET_FIELDS, ID))
def test_remediation_target_round_trips(data: dict[str, Any]) -> None:
    """A RemediationTarget read from any valid wire object writes back the same object."""
    assert to_wire(from_wire(RemediationTarget, data)) == data


@settings(max_examples=examples(200))
@given(wire_record(SCOPE_FIELDS, ID))
def test_scope_round_trips(data: dict[str, Any]) -> None:
    """A Scope read from any valid wire object writes back the same object."""
    assert to_wire(from_wire(Scope, data)) == data


@settings(max_examples=examples(200))
@given(wire_record(FINDING_FIELDS, ID))
def test_vulnerability_finding_round_trips(data: dict[str, Any]) -> None:
    """A VulnerabilityFinding read from any valid wire object writes back the same object."""
    assert to_wire(from_wire(VulnerabilityFinding, data)) == data


# ---------------------------------------------------------------------------------------------
# Structuring each model from camelCase


def test_endpoint_structures_from_camel_case() -> None:
    """Every Endpoint wire field lands in its snake_case attribute."""
    endpoint = from_wire(
        Endpoint,
        {
            "id": "ep-1",
            "hostname": "host-1",
            "displayName": "Host One",
            "os": {"family": "linux", "name": "Ubuntu", "version": "24.04"},
            "ipAddresses": ["10.0.0.1", "fe80::1"],
            "agentVersion": "7.1.0",
            "status": "online",
            "lastSeenAt": "2024-05-01T12:00:00Z",
            "enrolledAt": "2023-01-02T03:04:05Z",
            "tags": ["prod", "eu"],
        },
    )
    assert endpoint == Endpoint(
        id="ep-1",
        hostname="host-1",
        display_name="Host One",
        os=OperatingSystem(family=OsFamily.LINUX, name="Ubuntu", version="24.04"),
        ip_addresses=("10.0.0.1", "fe80::1"),
        agent_version="7.1.0",
        status=EndpointStatus.ONLINE,
        last_seen_at=datetime(2024, 5, 1, 12, tzinfo=UTC),
        enrolled_at=datetime(2023, 1, 2, 3, 4, 5, tzinfo=UTC),
        tags=("prod", "eu"),
    )


def test_remediation_target_structures_from_camel_case() -> None:
    """Every RemediationTarget wire field lands in its snake_case attribute."""
    target = from_wire(
        RemediationTarget,
        {
            "id": "rt-1",
            "endpointId": "ep-1",
            "scopeId": "sc-1",
            "findingIds": ["vf-1", "vf-2"],
            "action": "patch",
            "status": "in_progress",
            "createdAt": "2024-01-01T00:00:00Z",
            "updatedAt": "2024-01-02T00:00:00Z",
            "completedAt": "2024-01-03T00:00:00Z",
            "attempts": 2,
            "lastError": "timeout",
        },
    )
    assert target == RemediationTarget(
        id="rt-1",
        endpoint_id="ep-1",
        scope_id="sc-1",
        finding_ids=("vf-1", "vf-2"),
        action=RemediationAction.PATCH,
        status=RemediationStatus.IN_PROGRESS,
        created_at=datetime(2024, 1, 1, tzinfo=UTC),
        updated_at=datetime(2024, 1, 2, tzinfo=UTC),
        completed_at=datetime(2024, 1, 3, tzinfo=UTC),
        attempts=2,
        last_error="timeout",
    )


def test_scope_structures_from_camel_case() -> None:
    """Every Scope wire field lands in its snake_case attribute."""
    scope = from_wire(
        Scope,
        {
            "id": "sc-1",
            "name": "Critical patches",
            "description": "Patch criticals within a day",
            "enabled": True,
            "selector": {"tags": ["prod"], "endpointIds": ["ep-1"]},
            "rules": [{"severity": "critical"}, "any", 3],
            "createdAt": "2024-01-01T00:00:00Z",
            "updatedAt": "2024-01-02T00:00:00Z",
        },
    )
    assert scope == Scope(
        id="sc-1",
        name="Critical patches",
        description="Patch criticals within a day",
        enabled=True,
        selector=ScopeSelector(tags=("prod",), endpoint_ids=("ep-1",)),
        rules=({"severity": "critical"}, "any", 3),
        created_at=datetime(2024, 1, 1, tzinfo=UTC),
        updated_at=datetime(2024, 1, 2, tzinfo=UTC),
    )


def test_vulnerability_finding_structures_from_camel_case() -> None:
    """Every VulnerabilityFinding wire field lands in its snake_case attribute."""
    finding = from_wire(
        VulnerabilityFinding,
        {
            "id": "vf-1",
            "endpointId": "ep-1",
            "cveId": "CVE-2024-0001",
            "title": "OpenSSL flaw",
            "severity": "critical",
            "cvssScore": 9.8,
            "scanner": "qscan",
            "status": "open",
            "detectedAt": "2024-03-04T05:06:07Z",
            "package": {"name": "openssl", "installedVersion": "3.0.1", "fixedVersion": "3.0.2"},
            "remediationTargetId": "rt-1",
        },
    )
    assert finding == VulnerabilityFinding(
        id="vf-1",
        endpoint_id="ep-1",
        cve_id="CVE-2024-0001",
        title="OpenSSL flaw",
        severity=Severity.CRITICAL,
        cvss_score=9.8,
        scanner="qscan",
        status=FindingStatus.OPEN,
        detected_at=datetime(2024, 3, 4, 5, 6, 7, tzinfo=UTC),
        package=Package(name="openssl", installed_version="3.0.1", fixed_version="3.0.2"),
        remediation_target_id="rt-1",
    )


@pytest.mark.parametrize("model", RECORDS)
def test_only_id_is_required(model: type[Any]) -> None:
    """A record with nothing but an id structures, every other field None."""
    record = from_wire(model, {"id": "x-1"})
    assert record.id == "x-1"
    assert all(
        getattr(record, field.name) is None
        for field in attrs.fields(model)
        if field.name not in {"id", "extra"}
    )
    assert record.extra == {}


@pytest.mark.parametrize("model", RECORDS)
def test_missing_id_is_a_wire_fault_at_dollar_id(model: type[Any]) -> None:
    """A record without an id raises WireFault with path `$.id`."""
    with pytest.raises(WireFault) as info:
        from_wire(model, {"name": "no id"})
    assert info.value.path == "$.id"


def test_missing_id_fault_uses_the_given_path_prefix() -> None:
    """A missing id is reported under the path prefix the caller gives."""
    with pytest.raises(WireFault) as info:
        from_wire(Endpoint, {}, path="$.items[7]")
    assert info.value.path == "$.items[7].id"


def test_int_id_becomes_str() -> None:
    """An integer id is read as its decimal string."""
    assert from_wire(Endpoint, {"id": 42}).id == "42"


@pytest.mark.parametrize("bad_id", [True, 1.5, None, ["a"], {"a": 1}])
def test_non_string_non_int_id_is_a_wire_fault(bad_id: object) -> None:
    """An id that is neither a string nor an integer is rejected at `$.id`."""
    with pytest.raises(WireFault) as info:
        from_wire(Endpoint, {"id": bad_id})
    assert info.value.path == "$.id"


def test_non_object_record_is_a_wire_fault_at_root() -> None:
    """A record that is not a JSON object is rejected at `$`."""
    with pytest.raises(WireFault) as info:
        from_wire(Endpoint, ["ep-1"])
    assert info.value.path == "$"


# ---------------------------------------------------------------------------------------------
# Unknown keys


def test_unknown_top_level_keys_are_kept_in_extra() -> None:
    """Keys the model does not know are kept, values untouched, in `extra`."""
    wire = {"id": "ep-1", "hostname": "h", "riskScore": 7, "owner": {"team": "infra"}}
    endpoint = from_wire(Endpoint, wire)
    assert endpoint.extra == {"riskScore": 7, "owner": {"team": "infra"}}


def test_snake_case_spelling_of_a_known_field_is_an_unknown_key() -> None:
    """A key spelt in snake_case is not the camelCase field; it is kept in `extra`."""
    endpoint = from_wire(Endpoint, {"id": "ep-1", "hostname": "h", "display_name": "x"})
    assert endpoint.display_name is None
    assert endpoint.extra == {"display_name": "x"}


def test_a_record_in_another_naming_only_is_refused_not_read_as_nones() -> None:
    """A record whose fields are all spelt in another naming is a fault, not a record of Nones."""
    with pytest.raises(WireFault, match="display_name"):
        from_wire(Endpoint, {"id": "ep-1", "display_name": "x", "last_seen_at": "y"})


def test_a_wire_key_named_extra_is_kept_in_extra() -> None:
    """A wire key literally named `extra` is data like any other unknown key."""
    endpoint = from_wire(Endpoint, {"id": "ep-1", "hostname": "h", "extra": [1, 2]})
    assert endpoint.extra == {"extra": [1, 2]}
    assert to_wire(endpoint) == {"id": "ep-1", "hostname": "h", "extra": [1, 2]}


def test_unknown_keys_in_os_are_kept() -> None:
    """Unknown keys inside `os` are kept in the OperatingSystem's `extra`."""
    endpoint = from_wire(Endpoint, {"id": "ep-1", "os": {"family": "linux", "kernel": "6.8"}})
    assert endpoint.os is not None
    assert endpoint.os.extra == {"kernel": "6.8"}


def test_unknown_keys_in_package_are_kept() -> None:
    """Unknown keys inside `package` are kept in the Package's `extra`."""
    finding = from_wire(VulnerabilityFinding, {"id": "vf-1", "package": {"purl": "pkg:deb/x"}})
    assert finding.package is not None
    assert finding.package.extra == {"purl": "pkg:deb/x"}


def test_unknown_keys_in_selector_are_kept() -> None:
    """Unknown keys inside `selector` are kept in the ScopeSelector's `extra`."""
    scope = from_wire(Scope, {"id": "sc-1", "selector": {"tags": ["a"], "groups": ["g1"]}})
    assert scope.selector is not None
    assert scope.selector.extra == {"groups": ["g1"]}


def test_to_wire_restores_nested_unknown_keys() -> None:
    """`to_wire` writes nested unknown keys back where they came from."""
    data = {
        "id": "ep-1",
        "x-vendor": True,
        "os": {"family": "beos", "kernel": {"release": "6.8"}},
        "tags": [],
    }
    assert to_wire(from_wire(Endpoint, data)) == data


# ---------------------------------------------------------------------------------------------
# Open enums

ENUM_FIELDS = [
    (Endpoint, {"id": "e"}, "status", "status", EndpointStatus),
    (OperatingSystem, {}, "family", "family", OsFamily),
    (RemediationTarget, {"id": "r"}, "action", "action", RemediationAction),
    (RemediationTarget, {"id": "r"}, "status", "status", RemediationStatus),
    (VulnerabilityFinding, {"id": "v"}, "severity", "severity", Severity),
    (VulnerabilityFinding, {"id": "v"}, "status", "status", FindingStatus),
]


@pytest.mark.parametrize(("model", "base", "wire", "attr", "enum_type"), ENUM_FIELDS)
def test_known_enum_value_becomes_the_member(
    model: type[Any], base: dict[str, Any], wire: str, attr: str, enum_type: type[enum.Enum]
) -> None:
    """Each known enum value structures into the StrEnum member itself."""
    for member in enum_type:
        value = getattr(from_wire(model, {**base, wire: member.value}), attr)
        assert value is member


@pytest.mark.parametrize(("model", "base", "wire", "attr", "enum_type"), ENUM_FIELDS)
def test_unknown_enum_value_is_kept_as_raw_str(
    model: type[Any], base: dict[str, Any], wire: str, attr: str, enum_type: type[enum.Enum]
) -> None:
    """An enum value the library does not know is kept as the raw string."""
    value = getattr(from_wire(model, {**base, wire: "quarantined-v2"}), attr)
    assert value == "quarantined-v2"
    assert not isinstance(value, enum_type)


def test_enum_field_given_a_number_is_a_wire_fault() -> None:
    """An enum field holding a number is rejected, not stringified."""
    with pytest.raises(WireFault) as info:
        from_wire(Endpoint, {"id": "e", "status": 1})
    assert info.value.path == "$.status"


# ---------------------------------------------------------------------------------------------
# Timestamps


def test_z_timestamp_is_aware_utc() -> None:
    """A `Z` timestamp parses into an aware datetime at offset zero."""
    seen = from_wire(Endpoint, {"id": "e", "lastSeenAt": "2024-05-01T12:30:00Z"}).last_seen_at
    assert seen == datetime(2024, 5, 1, 12, 30, tzinfo=UTC)
    assert seen is not None
    assert seen.utcoffset() == timedelta(0)


def test_offset_timestamp_keeps_its_offset() -> None:
    """A `+02:00` timestamp parses into an aware datetime with that offset and instant."""
    seen = from_wire(Endpoint, {"id": "e", "lastSeenAt": "2024-05-01T14:30:00+02:00"}).last_seen_at
    assert seen is not None
    assert seen.utcoffset() == timedelta(hours=2)
    assert seen == datetime(2024, 5, 1, 12, 30, tzinfo=UTC)


def test_naive_timestamp_is_read_as_utc() -> None:
    """A timestamp without zone is read as UTC (the contract's zone)."""
    seen = from_wire(Endpoint, {"id": "e", "lastSeenAt": "2024-05-01T12:30:00"}).last_seen_at
    assert seen is not None
    assert seen.utcoffset() == timedelta(0)
    assert seen == datetime(2024, 5, 1, 12, 30, tzinfo=UTC)


@pytest.mark.parametrize("garbage", ["yesterday", "2024-13-01T00:00:00Z", "", 1714566600])
def test_garbage_timestamp_is_a_wire_fault(garbage: object) -> None:
    """A timestamp that is not ISO 8601 text raises WireFault at its path."""
    with pytest.raises(WireFault) as info:
        from_wire(RemediationTarget, {"id": "r", "completedAt": garbage})
    assert info.value.path == "$.completedAt"


# ---------------------------------------------------------------------------------------------
# Strict scalars and JSON paths


@pytest.mark.parametrize(
    ("model", "data", "prefix", "path"),
    [
        (Endpoint, {"id": "e", "hostname": 5}, "$", "$.hostname"),
        (Endpoint, {"id": "e", "displayName": {"a": 1}}, "$", "$.displayName"),
        (Endpoint, {"id": "e", "os": {"family": 5}}, "$.items[3]", "$.items[3].os.family"),
        (Endpoint, {"id": "e", "os": {"name": ["x"]}}, "$", "$.os.name"),
        (Endpoint, {"id": "e", "os": "linux"}, "$", "$.os"),
        (Endpoint, {"id": "e", "ipAddresses": ["10.0.0.1", 7]}, "$", "$.ipAddresses[1]"),
        (RemediationTarget, {"id": "r", "findingIds": ["a", "b", None]}, "$", "$.findingIds[2]"),
        (RemediationTarget, {"id": "r", "attempts": "3"}, "$", "$.attempts"),
        (Scope, {"id": "s", "enabled": "yes"}, "$", "$.enabled"),
        (Scope, {"id": "s", "selector": {"tags": [1]}}, "$", "$.selector.tags[0]"),
        (VulnerabilityFinding, {"id": "v", "cvssScore": "9.8"}, "$", "$.cvssScore"),
        (VulnerabilityFinding, {"id": "v", "package": {"name": 1}}, "$", "$.package.name"),
    ],
)
def test_wrongly_typed_value_is_a_wire_fault_naming_its_path(
    model: type[Any], data: dict[str, Any], prefix: str, path: str
) -> None:
    """A value of the wrong JSON type raises WireFault with its JSON path."""
    with pytest.raises(WireFault) as info:
        from_wire(model, data, path=prefix)
    assert info.value.path == path


@pytest.mark.parametrize(
    ("model", "data", "path"),
    [
        (
            VulnerabilityFinding,
            {"id": "v", "package": {"installedVersion": 5}},
            "$.package.installedVersion",
        ),
        (Scope, {"id": "s", "selector": {"endpointIds": ["a", 1]}}, "$.selector.endpointIds[1]"),
    ],
)
def test_nested_fault_path_uses_camel_case_wire_names(
    model: type[Any], data: dict[str, Any], path: str
) -> None:
    """A fault inside a nested object names the nested field by its camelCase wire name."""
    with pytest.raises(WireFault) as info:
        from_wire(model, data)
    assert info.value.path == path


def test_wire_fault_is_a_value_error_with_reason() -> None:
    """WireFault is a ValueError whose message gives the reason and the path."""
    with pytest.raises(ValueError, match=r"expected a string, got number at \$\.hostname"):
        from_wire(Endpoint, {"id": "e", "hostname": 5})


@pytest.mark.parametrize(("wire", "value"), [("ipAddresses", "10.0.0.1"), ("tags", "prod")])
def test_string_where_array_expected_is_rejected(wire: str, value: str) -> None:
    """A string is not an array: it is rejected, never split into characters."""
    with pytest.raises(WireFault) as info:
        from_wire(Endpoint, {"id": "e", wire: value})
    assert info.value.path == f"$.{wire}"


def test_object_where_array_expected_is_rejected() -> None:
    """An object is not an array of rules: it is rejected at its path."""
    with pytest.raises(WireFault) as info:
        from_wire(Scope, {"id": "s", "rules": {"a": 1}})
    assert info.value.path == "$.rules"


@pytest.mark.parametrize("flag", [True, False])
def test_bool_is_not_an_int(flag: bool) -> None:
    """A JSON boolean is not accepted where an integer is expected."""
    with pytest.raises(WireFault) as info:
        from_wire(RemediationTarget, {"id": "r", "attempts": flag})
    assert info.value.path == "$.attempts"


@pytest.mark.parametrize("flag", [True, False])
def test_bool_is_not_a_float(flag: bool) -> None:
    """A JSON boolean is not accepted where a number is expected."""
    with pytest.raises(WireFault) as info:
        from_wire(VulnerabilityFinding, {"id": "v", "cvssScore": flag})
    assert info.value.path == "$.cvssScore"


def test_number_is_not_a_bool() -> None:
    """A JSON number is not accepted where a boolean is expected."""
    with pytest.raises(WireFault) as info:
        from_wire(Scope, {"id": "s", "enabled": 1})
    assert info.value.path == "$.enabled"


def test_integer_is_accepted_as_float() -> None:
    """An integral JSON number is read into a float field as a float."""
    score = from_wire(VulnerabilityFinding, {"id": "v", "cvssScore": 7}).cvss_score
    assert score == 7.0
    assert isinstance(score, float)


def test_fractional_number_is_not_an_int() -> None:
    """A fractional number is rejected where an integer is expected."""
    with pytest.raises(WireFault) as info:
        from_wire(RemediationTarget, {"id": "r", "attempts": 1.5})
    assert info.value.path == "$.attempts"


# ---------------------------------------------------------------------------------------------
# Hooks, frozen models, health, to_camel


@pytest.mark.parametrize("model", ALL_MODELS)
def test_structure_hook_is_generated_once(model: type[Any]) -> None:
    """Looking up a model's structure function twice returns the same function."""
    assert structure_hook(model) is structure_hook(model)


@pytest.mark.parametrize("model", RECORDS)
def test_records_are_frozen(model: type[Any]) -> None:
    """Assigning to a record's attribute raises FrozenInstanceError."""
    record = from_wire(model, {"id": "x"})
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        record.id = "y"


@pytest.mark.parametrize("model", [OperatingSystem, Package, ScopeSelector, HealthStatus])
def test_nested_models_are_frozen(model: type[Any]) -> None:
    """Assigning to a nested model's `extra` raises FrozenInstanceError."""
    record = from_wire(model, {})
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        record.extra = {}


@pytest.mark.parametrize(
    ("data", "ok"),
    [
        ({"status": "ok"}, True),
        ({"status": "degraded"}, False),
        ({}, False),
        ({"status": "OK"}, False),
    ],
)
def test_health_status_ok(data: dict[str, Any], ok: bool) -> None:
    """HealthStatus.ok is true exactly when the service reports status "ok"."""
    assert from_wire(HealthStatus, data).ok is ok


def test_health_status_keeps_unknown_keys() -> None:
    """A health answer's other keys are kept in `extra`."""
    health = from_wire(HealthStatus, {"status": "ok", "version": "1.2"})
    assert health.extra == {"version": "1.2"}


@pytest.mark.parametrize(
    ("snake", "camel"),
    [
        ("id", "id"),
        ("display_name", "displayName"),
        ("remediation_target_id", "remediationTargetId"),
        ("ip_addresses", "ipAddresses"),
        ("cve_id", "cveId"),
        ("page_size_2", "pageSize2"),
    ],
)
def test_to_camel(snake: str, camel: str) -> None:
    """to_camel turns a snake_case name into its camelCase wire name."""
    assert to_camel(snake) == camel


@pytest.mark.parametrize(
    ("wire", "reason"),
    [
        (b'{"id": "t", "attempts": 100000000000000000001}', "too large to be exact"),
        (b'{"id": "t", "attempts": 2.5}', "fraction"),
    ],
)
def test_an_integer_field_is_never_rounded(wire: bytes, reason: str) -> None:
    """A JSON number past exact float range or with a fraction is a fault at its field."""
    with pytest.raises(WireFault, match=reason) as caught:
        from_wire(RemediationTarget, orjson.loads(wire))
    assert caught.value.path == "$.attempts"


def test_a_whole_float_is_an_integer() -> None:
    """`3.0` in an integer field is 3."""
    assert from_wire(RemediationTarget, {"id": "t", "attempts": 3.0}).attempts == 3
