"""Codec and models: wire JSON to frozen attrs models and back, strictly, with JSON-path faults.

Records are spelt as the service publishes them (snake_case keys); `Endpoint` and `Scope` are
typed field for field, required and nullable as published; targets and findings type only
`id`, `created_at` and `updated_at` and keep the rest in `extra`.
"""

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
    MODEL_TYPES,
    Endpoint,
    EndpointFilter,
    FindingFilter,
    FindingType,
    HealthStatus,
    OperatingSystem,
    OsFamily,
    RemediationTarget,
    Scope,
    ScopeStatus,
    Severity,
    SubjectFilter,
    SubjectType,
    VulnerabilityFinding,
)
from remedy_async._wire._codec import converter_for, to_wire
from remedy_async._wire._fastpath import from_wire, structure_hook
from remedy_async._wire._naming import to_camel
from remedy_async._wire._types import WireFault
from tests.budget import examples
from tests.fakes import endpoint_record, scope_record

RECORDS = (Endpoint, RemediationTarget, Scope, VulnerabilityFinding)
NESTED = (OperatingSystem, SubjectFilter, EndpointFilter, FindingFilter, HealthStatus)
MINIMAL: dict[type[Any], dict[str, Any]] = {
    Endpoint: endpoint_record(),
    Scope: scope_record(),
    RemediationTarget: {"id": "r"},
    VulnerabilityFinding: {"id": "v"},
    OperatingSystem: {"name": "Ubuntu", "family": "linux"},
    SubjectFilter: {},
    EndpointFilter: {},
    FindingFilter: {},
    HealthStatus: {},
}
"""The least wire object each model accepts."""

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
nullable_strings = st.none() | st.text()
string_arrays = st.lists(st.text(), max_size=4)


def open_enum(members: type[enum.Enum]) -> st.SearchStrategy[str]:
    """A known enum value or any other string (kept raw)."""
    return st.sampled_from([m.value for m in members]) | st.text()


def wire_record(
    known: dict[str, st.SearchStrategy[Any]],
    required: dict[str, st.SearchStrategy[Any]] | None = None,
) -> st.SearchStrategy[dict[str, Any]]:
    """A wire object: the required keys, a random subset of the known ones, and unknown keys.

    A record (one with an id) whose only known field is its id carries no unknown keys: such
    a record is refused by design (see test_record_reader).
    """
    names = set(known) | set(required or {})
    extras = st.dictionaries(
        st.text().filter(lambda key: key not in names), json_values, max_size=3
    )
    fields = st.fixed_dictionaries(required or {}, optional=known)

    def combine(extra: dict[str, Any], data: dict[str, Any]) -> dict[str, Any]:
        if "id" in data and not data.keys() - {"id"}:
            extra = {}
        return {**extra, **data}

    return st.builds(combine, extras, fields)


# Optional fields are drawn as present values: an optional field sent as null reads as its
# default and is written back absent (test_an_optional_null_reads_as_absent).
os_wire = wire_record(
    {"version": strings, "vendor": strings, "architecture": strings},
    {"name": strings, "family": open_enum(OsFamily)},
)
subject_filter_wire = wire_record(
    {
        "subject_types": st.lists(open_enum(SubjectType), max_size=4),
        "vendors": string_arrays,
        "products": string_arrays,
        "cpe_patterns": string_arrays,
    }
)
endpoint_filter_wire = wire_record(
    {
        "os_families": st.lists(open_enum(OsFamily), max_size=4),
        "endpoint_ids": string_arrays,
        "has_agent": st.booleans(),
        "tags": string_arrays,
    }
)
finding_filter_wire = wire_record(
    {
        "finding_types": st.lists(open_enum(FindingType), max_size=4),
        "min_severity": open_enum(Severity),
        "min_cvss_score": st.floats(min_value=0, max_value=10)
        | st.integers(min_value=0, max_value=10),
        "kev_only": st.booleans(),
    }
)

ENDPOINT_FIELDS: dict[str, st.SearchStrategy[Any]] = {
    "id": strings,
    "hostname": strings,
    "ip": nullable_strings,
    "mac_address": nullable_strings,
    "operating_system": os_wire,
    "agent_id": nullable_strings,
    "agent_version": nullable_strings,
    "created_at": timestamps,
    "updated_at": timestamps,
}
SCOPE_FIELDS: dict[str, st.SearchStrategy[Any]] = {
    "id": strings,
    "name": strings,
    "description": nullable_strings,
    "status": open_enum(ScopeStatus),
    "subject_filter": subject_filter_wire,
    "endpoint_filter": endpoint_filter_wire,
    "finding_filter": finding_filter_wire,
}
TIMES: dict[str, st.SearchStrategy[Any]] = {"created_at": timestamps, "updated_at": timestamps}
ID = {"id": strings}

# ---------------------------------------------------------------------------------------------
# Round trip


@settings(max_examples=examples(200))
@given(wire_record({}, ENDPOINT_FIELDS))
def test_endpoint_round_trips(data: dict[str, Any]) -> None:
    """An Endpoint read from any valid wire object writes back the same object."""
    assert to_wire(from_wire(Endpoint, data)) == data


@settings(max_examples=examples(200))
@given(wire_record(TIMES, ID))
def test_remediation_target_round_trips(data: dict[str, Any]) -> None:
    """A RemediationTarget read from any valid wire object writes back the same object."""
    assert to_wire(from_wire(RemediationTarget, data)) == data


@settings(max_examples=examples(200))
@given(wire_record({}, SCOPE_FIELDS))
def test_scope_round_trips(data: dict[str, Any]) -> None:
    """A Scope read from any valid wire object writes back the same object."""
    assert to_wire(from_wire(Scope, data)) == data


@settings(max_examples=examples(200))
@given(wire_record(TIMES, ID))
def test_vulnerability_finding_round_trips(data: dict[str, Any]) -> None:
    """A VulnerabilityFinding read from any valid wire object writes back the same object."""
    assert to_wire(from_wire(VulnerabilityFinding, data)) == data


# ---------------------------------------------------------------------------------------------
# Structuring each model from the published snake_case


def test_endpoint_structures_every_published_field() -> None:
    """Every published Endpoint field lands in its attribute, the OS as an OperatingSystem."""
    endpoint = from_wire(
        Endpoint,
        {
            "id": "6f1c2b9e-3d4a-4e5f-8a7b-1c2d3e4f5a6b",
            "hostname": "host-1",
            "ip": "10.0.0.1",
            "mac_address": "3c:22:fb:00:01:00",
            "operating_system": {
                "name": "macOS",
                "version": "14.4.1",
                "family": "macos",
                "vendor": "Apple",
                "architecture": "arm64",
            },
            "agent_id": "0d9c8b7a-6f5e-4d3c-8b2a-1f0e9d8c7b6a",
            "agent_version": "4.2.1",
            "created_at": "2023-01-02T03:04:05Z",
            "updated_at": "2024-05-01T12:00:00Z",
        },
    )
    assert endpoint == Endpoint(
        id="6f1c2b9e-3d4a-4e5f-8a7b-1c2d3e4f5a6b",
        hostname="host-1",
        ip="10.0.0.1",
        mac_address="3c:22:fb:00:01:00",
        operating_system=OperatingSystem(
            name="macOS",
            version="14.4.1",
            family=OsFamily.MACOS,
            vendor="Apple",
            architecture="arm64",
        ),
        agent_id="0d9c8b7a-6f5e-4d3c-8b2a-1f0e9d8c7b6a",
        agent_version="4.2.1",
        created_at=datetime(2023, 1, 2, 3, 4, 5, tzinfo=UTC),
        updated_at=datetime(2024, 5, 1, 12, tzinfo=UTC),
    )
    assert endpoint.extra == {}


def test_the_nullable_endpoint_fields_read_null_as_none() -> None:
    """ip, mac_address, agent_id and agent_version are required but nullable: null is None."""
    endpoint = from_wire(Endpoint, endpoint_record())
    assert (endpoint.ip, endpoint.mac_address, endpoint.agent_id, endpoint.agent_version) == (
        "10.0.0.1",
        None,
        None,
        None,
    )
    assert from_wire(Endpoint, endpoint_record(ip=None)).ip is None


def test_scope_structures_every_published_field_and_its_filters() -> None:
    """Every published Scope field lands in its attribute; the three filters are their models,
    arrays become tuples and enum values their members."""
    scope = from_wire(
        Scope,
        {
            "id": "sc-1",
            "name": "Critical patches",
            "description": "Patch criticals within a day",
            "status": "paused",
            "subject_filter": {
                "subject_types": ["software", "service"],
                "vendors": ["Google"],
                "products": ["Chrome"],
                "cpe_patterns": ["cpe:2.3:a:google:chrome:*"],
            },
            "endpoint_filter": {
                "os_families": ["macos", "linux"],
                "endpoint_ids": ["ep-1"],
                "has_agent": True,
                "tags": ["prod"],
            },
            "finding_filter": {
                "finding_types": ["vulnerability", "compliance"],
                "min_severity": "high",
                "min_cvss_score": 7.5,
                "kev_only": False,
            },
        },
    )
    assert scope == Scope(
        id="sc-1",
        name="Critical patches",
        description="Patch criticals within a day",
        status=ScopeStatus.PAUSED,
        subject_filter=SubjectFilter(
            subject_types=(SubjectType.SOFTWARE, SubjectType.SERVICE),
            vendors=("Google",),
            products=("Chrome",),
            cpe_patterns=("cpe:2.3:a:google:chrome:*",),
        ),
        endpoint_filter=EndpointFilter(
            os_families=(OsFamily.MACOS, OsFamily.LINUX),
            endpoint_ids=("ep-1",),
            has_agent=True,
            tags=("prod",),
        ),
        finding_filter=FindingFilter(
            finding_types=(FindingType.VULNERABILITY, FindingType.COMPLIANCE),
            min_severity=Severity.HIGH,
            min_cvss_score=7.5,
            kev_only=False,
        ),
    )
    assert scope.endpoint_filter.os_families is not None
    assert scope.endpoint_filter.os_families[0] is OsFamily.MACOS


def test_an_empty_filter_is_a_filter_of_nones() -> None:
    """An empty filter object (it matches everything) reads as a filter whose fields are None."""
    scope = from_wire(Scope, scope_record())
    assert scope.subject_filter == SubjectFilter()
    assert scope.endpoint_filter == EndpointFilter()
    assert scope.finding_filter == FindingFilter()
    assert scope.description is None


@pytest.mark.parametrize("model", [RemediationTarget, VulnerabilityFinding])
def test_an_unpublished_record_types_its_id_and_times_and_keeps_the_rest(
    model: type[Any],
) -> None:
    """A target or finding types id, created_at and updated_at; every other field is kept, as
    sent, in `extra`."""
    own = {
        "endpoint_id": "ep-1",
        "severity": "critical",
        "cve_id": "CVE-2024-0001",
        "cvss_score": 9.8,
        "kev": True,
    }
    record = from_wire(
        model,
        {
            "id": "x-1",
            "created_at": "2024-01-01T00:00:00Z",
            "updated_at": "2024-01-02T00:00:00+02:00",
            **own,
        },
    )
    assert record == model(
        id="x-1",
        created_at=datetime(2024, 1, 1, tzinfo=UTC),
        updated_at=datetime(2024, 1, 1, 22, tzinfo=UTC),
        extra=own,
    )
    assert [field.name for field in attrs.fields(model)] == [
        "id",
        "created_at",
        "updated_at",
        "extra",
    ]


@pytest.mark.parametrize("model", [RemediationTarget, VulnerabilityFinding])
def test_only_id_is_required_of_an_unpublished_record(model: type[Any]) -> None:
    """A target or finding with nothing but an id structures, its times None."""
    record = from_wire(model, {"id": "x-1"})
    assert (record.id, record.created_at, record.updated_at, record.extra) == (
        "x-1",
        None,
        None,
        {},
    )


REQUIRED = [
    *((Endpoint, endpoint_record(), name, f"$.{name}") for name in endpoint_record()),
    *((Scope, scope_record(), name, f"$.{name}") for name in scope_record()),
    (Endpoint, endpoint_record(), "operating_system.name", "$.operating_system.name"),
    (Endpoint, endpoint_record(), "operating_system.family", "$.operating_system.family"),
]
"""(model, a valid record, a required field's dotted name, its JSON path): every field the
reference marks required."""


def without(record: dict[str, Any], dotted: str) -> dict[str, Any]:
    """A copy of `record` without the field at `dotted` (`operating_system.name`)."""
    head, _, rest = dotted.partition(".")
    if not rest:
        return {key: value for key, value in record.items() if key != head}
    return {**record, head: without(record[head], rest)}


def replaced(record: dict[str, Any], dotted: str, value: object) -> dict[str, Any]:
    """A copy of `record` with the field at `dotted` set to `value`."""
    head, _, rest = dotted.partition(".")
    return {**record, head: replaced(record[head], rest, value) if rest else value}


@pytest.mark.parametrize(("model", "record", "field", "path"), REQUIRED)
def test_a_missing_required_field_is_a_wire_fault_naming_it(
    model: type[Any], record: dict[str, Any], field: str, path: str
) -> None:
    """Each published required field, absent, is a WireFault at its JSON path."""
    with pytest.raises(WireFault, match="required field is missing") as info:
        from_wire(model, without(record, field))
    assert info.value.path == path


NON_NULLABLE = [
    (model, record, field, path)
    for model, record, field, path in REQUIRED
    if field not in {"ip", "mac_address", "agent_id", "agent_version", "description"}
]


@pytest.mark.parametrize(("model", "record", "field", "path"), NON_NULLABLE)
def test_a_null_non_nullable_field_is_a_wire_fault_naming_it(
    model: type[Any], record: dict[str, Any], field: str, path: str
) -> None:
    """Each required field the reference does not mark nullable, sent as null, is a WireFault
    at its JSON path that says it got null."""
    with pytest.raises(WireFault, match="got null") as info:
        from_wire(model, replaced(record, field, None))
    assert info.value.path == path


@pytest.mark.parametrize(
    ("model", "record", "field"),
    [
        (OperatingSystem, MINIMAL[OperatingSystem], "version"),
        (OperatingSystem, MINIMAL[OperatingSystem], "architecture"),
        (FindingFilter, {}, "min_severity"),
        (EndpointFilter, {}, "os_families"),
        (RemediationTarget, {"id": "r"}, "created_at"),
    ],
)
def test_an_optional_null_reads_as_none_and_is_written_back_as_null(
    model: type[Any], record: dict[str, Any], field: str
) -> None:
    """An optional field sent as null reads as None, and is written back as null, while one
    not sent stays absent."""
    read = from_wire(model, {**record, field: None})
    assert getattr(read, field) is None
    assert to_wire(read) == {**record, field: None}
    assert to_wire(from_wire(model, record)) == record


def test_a_record_built_in_code_writes_its_none_fields_as_null() -> None:
    """A record read from nowhere has no absent fields: `to_wire` writes each None as null."""
    built = OperatingSystem(name="macOS", family=OsFamily.MACOS)
    assert to_wire(built) == {
        "name": "macOS", "family": "macos", "version": None, "vendor": None, "architecture": None
    }  # fmt: skip


def test_what_a_record_was_read_without_is_no_field() -> None:
    """The note of absent fields leaves equality, hash and repr alone; a copy has none."""
    read = from_wire(OperatingSystem, {"name": "macOS", "family": "macos"})
    built = OperatingSystem(name="macOS", family=OsFamily.MACOS)
    assert (read, hash(read), repr(read)) == (built, hash(built), repr(built))
    assert "_read_without" not in attrs.fields_dict(OperatingSystem)
    assert "__getattr__" not in OperatingSystem.__dict__  # attribute reads stay plain
    assert to_wire(read) == {"name": "macOS", "family": "macos"}
    assert to_wire(attrs.evolve(read)) == to_wire(built)


@pytest.mark.parametrize("model", RECORDS)
def test_missing_id_is_a_wire_fault_at_dollar_id(model: type[Any]) -> None:
    """A record without an id raises WireFault with path `$.id`."""
    with pytest.raises(WireFault) as info:
        from_wire(model, without(MINIMAL[model], "id"))
    assert info.value.path == "$.id"


def test_missing_id_fault_uses_the_given_path_prefix() -> None:
    """A missing id is reported under the path prefix the caller gives."""
    with pytest.raises(WireFault) as info:
        from_wire(Endpoint, {}, path="$.data[7]")
    assert info.value.path == "$.data[7].id"


@pytest.mark.parametrize("model", RECORDS)
def test_int_id_becomes_str(model: type[Any]) -> None:
    """An integer id is read as its decimal string."""
    assert from_wire(model, {**MINIMAL[model], "id": 42}).id == "42"


@pytest.mark.parametrize("bad_id", [True, 1.5, None, ["a"], {"a": 1}])
def test_non_string_non_int_id_is_a_wire_fault(bad_id: object) -> None:
    """An id that is neither a string nor an integer is rejected at `$.id`."""
    with pytest.raises(WireFault) as info:
        from_wire(Endpoint, endpoint_record(id=bad_id))
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
    endpoint = from_wire(Endpoint, endpoint_record(risk_score=7, owner={"team": "infra"}))
    assert endpoint.extra == {"risk_score": 7, "owner": {"team": "infra"}}


def test_a_camel_case_spelling_of_a_known_field_is_an_unknown_key() -> None:
    """A key spelt in camelCase is not the snake_case field; it is kept in `extra`."""
    endpoint = from_wire(Endpoint, endpoint_record(macAddress="3c:22:fb:00:01:00"))
    assert endpoint.mac_address is None
    assert endpoint.extra == {"macAddress": "3c:22:fb:00:01:00"}


def test_a_record_in_another_naming_only_is_refused_not_read_as_nones() -> None:
    """A record whose fields are all spelt in another naming is a fault, never a record of
    Nones or a missing-field fault that hides why."""
    with pytest.raises(WireFault, match=r"macAddress.*operatingSystem"):
        from_wire(
            Endpoint,
            {"id": "ep-1", "macAddress": "x", "operatingSystem": {"name": "a", "family": "linux"}},
        )


def test_a_wire_key_named_extra_is_kept_in_extra() -> None:
    """A wire key literally named `extra` is data like any other unknown key."""
    endpoint = from_wire(Endpoint, endpoint_record(extra=[1, 2]))
    assert endpoint.extra == {"extra": [1, 2]}
    assert to_wire(endpoint) == endpoint_record(extra=[1, 2])


@pytest.mark.parametrize(
    ("model", "record", "nested", "unknown"),
    [
        (Endpoint, endpoint_record(operating_system={"name": "a", "family": "linux",
                                                     "kernel": "6.8"}),
         "operating_system", {"kernel": "6.8"}),
        (Scope, scope_record(subject_filter={"vendors": ["Google"], "groups": ["g1"]}),
         "subject_filter", {"groups": ["g1"]}),
        (Scope, scope_record(endpoint_filter={"tags": ["a"], "site": "eu"}),
         "endpoint_filter", {"site": "eu"}),
        (Scope, scope_record(finding_filter={"kev_only": True, "max_age_days": 30}),
         "finding_filter", {"max_age_days": 30}),
    ],
)  # fmt: skip
def test_unknown_keys_in_nested_objects_are_kept(
    model: type[Any], record: dict[str, Any], nested: str, unknown: dict[str, Any]
) -> None:
    """Unknown keys inside a nested object are kept in that object's `extra` (the reference
    may list more filter fields than could be read)."""
    assert getattr(from_wire(model, record), nested).extra == unknown


def test_to_wire_restores_nested_unknown_keys() -> None:
    """`to_wire` writes nested unknown keys back where they came from."""
    data = scope_record(
        x_vendor=True,
        endpoint_filter={"os_families": ["beos"], "site": {"region": "eu"}},
        finding_filter={"finding_types": [], "max_age_days": 30},
    )
    assert to_wire(from_wire(Scope, data)) == data


# ---------------------------------------------------------------------------------------------
# Open enums

ENUM_FIELDS = [
    (Scope, scope_record(), "status", ScopeStatus),
    (OperatingSystem, MINIMAL[OperatingSystem], "family", OsFamily),
    (FindingFilter, {}, "min_severity", Severity),
]
ENUM_ARRAYS = [
    (SubjectFilter, "subject_types", SubjectType),
    (EndpointFilter, "os_families", OsFamily),
    (FindingFilter, "finding_types", FindingType),
]


@pytest.mark.parametrize(("model", "base", "field", "enum_type"), ENUM_FIELDS)
def test_known_enum_value_becomes_the_member(
    model: type[Any], base: dict[str, Any], field: str, enum_type: type[enum.Enum]
) -> None:
    """Each known enum value structures into the StrEnum member itself."""
    for member in enum_type:
        assert getattr(from_wire(model, {**base, field: member.value}), field) is member


@pytest.mark.parametrize(("model", "base", "field", "enum_type"), ENUM_FIELDS)
def test_unknown_enum_value_is_kept_as_raw_str(
    model: type[Any], base: dict[str, Any], field: str, enum_type: type[enum.Enum]
) -> None:
    """An enum value the library does not know is kept as the raw string."""
    value = getattr(from_wire(model, {**base, field: "quarantined-v2"}), field)
    assert value == "quarantined-v2"
    assert not isinstance(value, enum_type)


@pytest.mark.parametrize(("model", "field", "enum_type"), ENUM_ARRAYS)
def test_an_array_of_enum_values_keeps_members_and_unknown_text(
    model: type[Any], field: str, enum_type: type[enum.Enum]
) -> None:
    """Each element of an enum array is its member when known, its raw text otherwise."""
    values = [member.value for member in enum_type]
    read = getattr(from_wire(model, {field: [*values, "brand-new"]}), field)
    assert read == (*enum_type, "brand-new")
    assert all(item is member for item, member in zip(read, enum_type, strict=False))
    assert type(read[-1]) is str


@pytest.mark.parametrize(
    ("record", "path"),
    [
        (scope_record(status=1), "$.status"),
        (scope_record(finding_filter={"min_severity": 4}), "$.finding_filter.min_severity"),
        (scope_record(endpoint_filter={"os_families": ["macos", 1]}),
         "$.endpoint_filter.os_families[1]"),
        (scope_record(subject_filter={"subject_types": [None]}),
         "$.subject_filter.subject_types[0]"),
    ],
)  # fmt: skip
def test_enum_field_given_a_non_string_is_a_wire_fault(record: dict[str, Any], path: str) -> None:
    """An enum field (or an element of an enum array) holding a non-string is rejected, not
    stringified."""
    with pytest.raises(WireFault) as info:
        from_wire(Scope, record)
    assert info.value.path == path


# ---------------------------------------------------------------------------------------------
# Timestamps


def test_z_timestamp_is_aware_utc() -> None:
    """A `Z` timestamp parses into an aware datetime at offset zero."""
    seen = from_wire(Endpoint, endpoint_record(updated_at="2024-05-01T12:30:00Z")).updated_at
    assert seen == datetime(2024, 5, 1, 12, 30, tzinfo=UTC)
    assert seen.utcoffset() == timedelta(0)


def test_offset_timestamp_keeps_its_offset() -> None:
    """A `+02:00` timestamp parses into an aware datetime with that offset and instant."""
    seen = from_wire(Endpoint, endpoint_record(updated_at="2024-05-01T14:30:00+02:00")).updated_at
    assert seen.utcoffset() == timedelta(hours=2)
    assert seen == datetime(2024, 5, 1, 12, 30, tzinfo=UTC)


def test_naive_timestamp_is_read_as_utc() -> None:
    """A timestamp without zone is read as UTC (the contract's zone)."""
    seen = from_wire(Endpoint, endpoint_record(updated_at="2024-05-01T12:30:00")).updated_at
    assert seen.utcoffset() == timedelta(0)
    assert seen == datetime(2024, 5, 1, 12, 30, tzinfo=UTC)


@pytest.mark.parametrize("garbage", ["yesterday", "2024-13-01T00:00:00Z", "", 1714566600])
@pytest.mark.parametrize("model", [Endpoint, RemediationTarget, VulnerabilityFinding])
def test_garbage_timestamp_is_a_wire_fault(model: type[Any], garbage: object) -> None:
    """A timestamp that is not ISO 8601 text raises WireFault at its path (a scope's
    `created_at` is unpublished: kept in `extra`, as sent)."""
    with pytest.raises(WireFault) as info:
        from_wire(model, {**MINIMAL[model], "created_at": garbage})
    assert info.value.path == "$.created_at"


# ---------------------------------------------------------------------------------------------
# Strict scalars and JSON paths


@pytest.mark.parametrize(
    ("model", "data", "prefix", "path"),
    [
        (Endpoint, endpoint_record(hostname=5), "$", "$.hostname"),
        (Endpoint, endpoint_record(ip={"a": 1}), "$", "$.ip"),
        (Endpoint, endpoint_record(agent_id=7), "$", "$.agent_id"),
        (Endpoint, endpoint_record(operating_system={"name": "a", "family": 5}), "$.data[3]",
         "$.data[3].operating_system.family"),
        (Endpoint, endpoint_record(operating_system={"name": ["x"], "family": "linux"}), "$",
         "$.operating_system.name"),
        (Endpoint, endpoint_record(operating_system={"name": "a", "family": "linux",
                                                     "vendor": 1}), "$",
         "$.operating_system.vendor"),
        (Endpoint, endpoint_record(operating_system="linux"), "$", "$.operating_system"),
        (Scope, scope_record(name=False), "$", "$.name"),
        (Scope, scope_record(description=5), "$", "$.description"),
        (Scope, scope_record(subject_filter={"vendors": ["Google", 7]}), "$",
         "$.subject_filter.vendors[1]"),
        (Scope, scope_record(endpoint_filter={"endpoint_ids": ["a", None]}), "$",
         "$.endpoint_filter.endpoint_ids[1]"),
        (Scope, scope_record(endpoint_filter={"has_agent": "yes"}), "$",
         "$.endpoint_filter.has_agent"),
        (Scope, scope_record(finding_filter={"min_cvss_score": "9.8"}), "$",
         "$.finding_filter.min_cvss_score"),
        (Scope, scope_record(finding_filter=[]), "$", "$.finding_filter"),
        (RemediationTarget, {"id": "r", "updated_at": 5}, "$", "$.updated_at"),
    ],
)  # fmt: skip
def test_wrongly_typed_value_is_a_wire_fault_naming_its_path(
    model: type[Any], data: dict[str, Any], prefix: str, path: str
) -> None:
    """A value of the wrong JSON type raises WireFault with its JSON path."""
    with pytest.raises(WireFault) as info:
        from_wire(model, data, path=prefix)
    assert info.value.path == path


@pytest.mark.parametrize(
    ("naming", "path"),
    [
        ("snake", "$.finding_filter.min_cvss_score"),
        ("camel", "$.findingFilter.minCvssScore"),
        ("pascal", "$.FindingFilter.MinCvssScore"),
        ("kebab", "$.finding-filter.min-cvss-score"),
    ],
)
def test_nested_fault_path_uses_the_records_wire_names(naming: Any, path: str) -> None:
    """A fault inside a nested object names each step by its wire name in the record's
    naming: the published snake_case by default, the service's own spelling when it drifts."""
    record = to_wire(from_wire(Scope, scope_record()), naming)
    outer, inner = path.split(".")[1:]
    record[outer] = {inner: "9.8"}
    with pytest.raises(WireFault) as info:
        from_wire(Scope, record, naming=naming)
    assert info.value.path == path


def test_wire_fault_is_a_value_error_with_reason() -> None:
    """WireFault is a ValueError whose message gives the reason and the path."""
    with pytest.raises(ValueError, match=r"expected a string, got number at \$\.hostname"):
        from_wire(Endpoint, endpoint_record(hostname=5))


@pytest.mark.parametrize(
    ("filters", "path"),
    [
        ({"endpoint_filter": {"os_families": "macos"}}, "$.endpoint_filter.os_families"),
        ({"endpoint_filter": {"tags": "prod"}}, "$.endpoint_filter.tags"),
        ({"subject_filter": {"vendors": "Google"}}, "$.subject_filter.vendors"),
    ],
)
def test_string_where_array_expected_is_rejected(filters: dict[str, Any], path: str) -> None:
    """A string is not an array: it is rejected, never split into characters."""
    with pytest.raises(WireFault) as info:
        from_wire(Scope, scope_record(**filters))
    assert info.value.path == path


def test_object_where_array_expected_is_rejected() -> None:
    """An object is not an array of subject types: it is rejected at its path."""
    with pytest.raises(WireFault) as info:
        from_wire(Scope, scope_record(subject_filter={"subject_types": {"a": 1}}))
    assert info.value.path == "$.subject_filter.subject_types"


@pytest.mark.parametrize("flag", [True, False])
def test_bool_is_not_a_float(flag: bool) -> None:
    """A JSON boolean is not accepted where a number is expected."""
    with pytest.raises(WireFault) as info:
        from_wire(FindingFilter, {"min_cvss_score": flag})
    assert info.value.path == "$.min_cvss_score"


@pytest.mark.parametrize(("model", "field"), [(EndpointFilter, "has_agent"),
                                              (FindingFilter, "kev_only")])  # fmt: skip
def test_number_is_not_a_bool(model: type[Any], field: str) -> None:
    """A JSON number is not accepted where a boolean is expected."""
    with pytest.raises(WireFault) as info:
        from_wire(model, {field: 1})
    assert info.value.path == f"$.{field}"


def test_integer_is_accepted_as_float() -> None:
    """An integral JSON number is read into a float field as a float."""
    score = from_wire(FindingFilter, {"min_cvss_score": 7}).min_cvss_score
    assert score == 7.0
    assert isinstance(score, float)


@pytest.mark.parametrize("number", [2**53 + 1, -(2**60) - 1, 10**20 + 1, 10**400])
def test_an_integer_no_float_holds_exactly_is_refused_by_a_float_field(number: int) -> None:
    """An integer a float would round (or cannot hold) is a WireFault, never another number."""
    with pytest.raises(WireFault, match="holds exactly") as info:
        from_wire(FindingFilter, {"min_cvss_score": number})
    assert info.value.path == "$.min_cvss_score"


def test_a_large_integer_a_float_holds_exactly_is_read_into_a_float_field() -> None:
    """An integer past 2**53 that a float holds exactly (2**60) is read as that float."""
    assert from_wire(FindingFilter, {"min_cvss_score": 2**60}).min_cvss_score == 2.0**60


# No published field is an integer; the converter's integer rule is checked on its own, for
# the models a later reference will type with one.


@pytest.mark.parametrize("flag", [True, False])
def test_bool_is_not_an_int(flag: bool) -> None:
    """A JSON boolean is not accepted where an integer is expected."""
    with pytest.raises(TypeError, match="expected an integer, got boolean"):
        converter_for("snake").structure(flag, int)


@pytest.mark.parametrize(
    ("wire", "reason"),
    [
        (b"100000000000000000001", "too large to be exact"),
        (b"2.5", "fraction"),
        (b"1.5e300", "too large to be exact"),
    ],
)
def test_an_integer_is_never_rounded(wire: bytes, reason: str) -> None:
    """A JSON number past exact float range or with a fraction is no integer."""
    with pytest.raises(ValueError, match=reason):
        converter_for("snake").structure(orjson.loads(wire), int)


def test_a_whole_float_is_an_integer() -> None:
    """`3.0` where an integer is expected is 3."""
    assert converter_for("snake").structure(3.0, int) == 3


# ---------------------------------------------------------------------------------------------
# Hooks, frozen models, health, to_camel


@pytest.mark.parametrize("model", MODEL_TYPES)
def test_structure_hook_is_generated_once(model: type[Any]) -> None:
    """Looking up a model's structure function twice returns the same function."""
    assert structure_hook(model) is structure_hook(model)


def test_every_model_is_covered() -> None:
    """The models these tests build are every model the library has."""
    assert set(MINIMAL) == set(MODEL_TYPES) == {*RECORDS, *NESTED}


@pytest.mark.parametrize("model", RECORDS)
def test_records_are_frozen(model: type[Any]) -> None:
    """Assigning to a record's attribute raises FrozenInstanceError."""
    record = from_wire(model, MINIMAL[model])
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        record.id = "y"


@pytest.mark.parametrize("model", NESTED)
def test_nested_models_are_frozen(model: type[Any]) -> None:
    """Assigning to a nested model's `extra` raises FrozenInstanceError."""
    record = from_wire(model, MINIMAL[model])
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
        ("os_family", "osFamily"),
        ("has_agent", "hasAgent"),
        ("mac_address", "macAddress"),
        ("remediation_target_id", "remediationTargetId"),
        ("page_size_2", "pageSize2"),
    ],
)
def test_to_camel(snake: str, camel: str) -> None:
    """to_camel turns a snake_case name into its camelCase query-parameter name."""
    assert to_camel(snake) == camel
