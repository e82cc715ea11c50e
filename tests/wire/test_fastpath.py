"""The generated fast path agrees with the cattrs converter on every record, good or bad."""

from __future__ import annotations

import pickle
import sys
from typing import Any

import attrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from remedy_async import (
    Endpoint,
    HealthStatus,
    OperatingSystem,
    OsFamily,
    RemediationTarget,
    Scope,
    SubjectType,
    VulnerabilityFinding,
)
from remedy_async._wire._codec import cattrs_structure_hook, fault_from, to_wire
from remedy_async._wire._fastpath import STEP_ASIDE_ERRORS, _fast_for, check_hook, structure_hook
from tests.budget import examples
from tests.fakes import endpoint_record, scope_record

json_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**40), max_value=2**40),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=12),
)
json_values = st.recursive(
    json_scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=6,
)
# The forms every way of reading must read alike: RFC 3339 in either case, fractions finer than
# a microsecond (rounded), and ISO 8601 forms only `fromisoformat` reads (a date alone, minutes).
good_timestamps = st.sampled_from(
    [
        "2026-03-01T12:00:00Z",
        "2026-03-01T12:00:00+02:00",
        "2026-03-01t12:00:00.5z",
        "2026-03-01T12:00:00.1234567Z",
        "2026-03-01T23:59:59.9999995+02:00",
        "2026-03-01 12:00:00.123456789",
        "2026-03-01T12:00:00.123456+05:30",
        "2026-03-01",
        "2026-03-01T12:00Z",
    ]
)
timestamps = good_timestamps | st.sampled_from(["2026-03-01T12:00:00", "yesterday", ""])
enum_like = st.sampled_from(
    ["macos", "other", "active", "software", "vulnerability", "high", "brand-new"]
)
FIELD_VALUES = st.one_of(
    json_values, timestamps, enum_like, st.lists(enum_like | st.text(max_size=5), max_size=3)
)
"""Any value, good or bad, for any field."""

texts = st.text(max_size=8)
nullable_texts = st.none() | texts
text_arrays = st.lists(texts, max_size=3)
enum_arrays = st.lists(enum_like, max_size=3)

Spec = tuple[dict[str, Any], dict[str, Any]]
"""A wire object's shape: its required keys and its optional ones, each with valid values."""

OS_SPEC: Spec = (
    {"name": texts, "family": enum_like},
    {"version": nullable_texts, "vendor": nullable_texts, "architecture": nullable_texts},
)
SUBJECT_SPEC: Spec = (
    {},
    {"subject_types": enum_arrays, "vendors": text_arrays, "products": text_arrays,
     "cpe_patterns": text_arrays},
)  # fmt: skip
ENDPOINT_FILTER_SPEC: Spec = (
    {},
    {"os_families": enum_arrays, "endpoint_ids": text_arrays, "has_agent": st.booleans(),
     "tags": text_arrays},
)  # fmt: skip
FINDING_FILTER_SPEC: Spec = (
    {},
    {"finding_types": enum_arrays, "min_severity": enum_like | st.none(),
     "min_cvss_score": st.floats(0, 10) | st.integers(0, 10), "kev_only": st.booleans()},
)  # fmt: skip
IDS = st.text(max_size=8) | st.integers()


def shaped(spec: Spec) -> st.SearchStrategy[dict[str, Any]]:
    """Wire objects of a shape: valid ones, and valid ones with a few keys dropped, nulled or
    given any value (nested objects are drawn the same way, so faults reach every level)."""
    required, optional = spec
    valid = st.fixed_dictionaries(required, optional=optional)
    keys = sorted({*required, *optional})
    change = st.tuples(st.sampled_from(keys), st.sampled_from(["drop", "null", "any"]))
    changes = st.lists(st.tuples(change, FIELD_VALUES), max_size=2)

    def apply(record: dict[str, Any], edits: list[tuple[tuple[str, str], Any]]) -> dict[str, Any]:
        record = dict(record)
        for (key, how), value in edits:
            if how == "drop":
                record.pop(key, None)
            else:
                record[key] = None if how == "null" else value
        return record

    return st.builds(apply, valid, changes)


SPECS: dict[type[Any], Spec] = {
    Endpoint: (
        {"id": IDS, "hostname": texts, "ip": nullable_texts, "mac_address": nullable_texts,
         "operating_system": shaped(OS_SPEC), "agent_id": nullable_texts,
         "agent_version": nullable_texts, "created_at": good_timestamps,
         "updated_at": good_timestamps},
        {},
    ),
    Scope: (
        {"id": IDS, "name": texts, "description": nullable_texts, "status": enum_like,
         "subject_filter": shaped(SUBJECT_SPEC),
         "endpoint_filter": shaped(ENDPOINT_FILTER_SPEC),
         "finding_filter": shaped(FINDING_FILTER_SPEC)},
        {},
    ),
    RemediationTarget: ({"id": IDS}, {"created_at": good_timestamps,
                                      "updated_at": good_timestamps}),
    VulnerabilityFinding: ({"id": IDS}, {"created_at": good_timestamps,
                                         "updated_at": good_timestamps}),
}  # fmt: skip


def records(model: type[Any]) -> st.SearchStrategy[dict[str, Any]]:
    """Wire dicts for a model: near-valid ones (a few fields dropped, nulled or wrong) and any
    subset of its keys with any values, each with maybe some unknown keys."""
    required, optional = SPECS[model]
    anything = dict.fromkeys([*required, *optional], FIELD_VALUES)
    anything["id"] = st.one_of(st.text(max_size=8), st.integers(), st.none(), st.booleans())
    unknown = st.dictionaries(
        st.sampled_from(["risk_score", "labels", "zz"]), json_values, max_size=2
    )
    known = shaped(SPECS[model]) | st.fixed_dictionaries({}, optional=anything)
    return st.builds(lambda fields, more: {**more, **fields}, known, unknown)


def outcome(structure: Any, model: type[Any], data: object) -> tuple[str, object]:
    try:
        return "ok", structure(data, model)
    except Exception as error:
        return "error", repr(fault_from(error, "$", model))


@pytest.mark.parametrize("model", list(SPECS))
@settings(max_examples=examples(300), deadline=None)
@given(data=st.data())
def test_fast_path_agrees_with_cattrs(model: type[Any], data: st.DataObject) -> None:
    """Whatever the record, the fast function either steps aside or returns what cattrs returns."""
    record = data.draw(records(model))
    reference = outcome(cattrs_structure_hook(model), model, record)
    try:
        fast = _fast_for(model)(record)
    except STEP_ASIDE_ERRORS:
        return
    assert reference == ("ok", fast)
    assert to_wire(fast) == to_wire(reference[1])  # the same fields noted absent


@pytest.mark.parametrize("model", list(SPECS))
@settings(max_examples=examples(200), deadline=None)
@given(data=st.data())
def test_structure_hook_matches_cattrs_including_faults(
    model: type[Any], data: st.DataObject
) -> None:
    """The public structure function gives cattrs' result, or fails with the same fault at the
    same JSON path as cattrs does."""
    record = data.draw(records(model))
    assert outcome(structure_hook(model), model, record) == outcome(
        cattrs_structure_hook(model), model, record
    )


@pytest.mark.parametrize("model", list(SPECS))
@settings(max_examples=examples(200), deadline=None)
@given(data=st.data())
def test_the_check_accepts_and_refuses_what_structuring_does(
    model: type[Any], data: st.DataObject
) -> None:
    """`check_hook` returns the record itself when the model accepts it, else the same error."""
    record = data.draw(records(model))
    structured = outcome(structure_hook(model), model, record)
    checked = outcome(check_hook(model), model, record)
    if structured[0] == "ok":
        assert checked == ("ok", record)
        assert checked[1] is record
    else:
        assert checked == structured


def without(record: dict[str, Any], dotted: str) -> dict[str, Any]:
    """A copy of `record` without the field at `dotted` (`operating_system.name`)."""
    head, _, rest = dotted.partition(".")
    if not rest:
        return {key: value for key, value in record.items() if key != head}
    return {**record, head: without(record[head], rest)}


def nulled(record: dict[str, Any], dotted: str) -> dict[str, Any]:
    """A copy of `record` with the field at `dotted` null."""
    head, _, rest = dotted.partition(".")
    return {**record, head: nulled(record[head], rest) if rest else None}


REQUIRED = [
    *((Endpoint, endpoint_record(), name) for name in endpoint_record()),
    *((Scope, scope_record(), name) for name in scope_record()),
    (Endpoint, endpoint_record(), "operating_system.name"),
    (Endpoint, endpoint_record(), "operating_system.family"),
    (RemediationTarget, {"id": "r", "created_at": "2026-03-01T12:00:00Z"}, "id"),
]
NULLABLE = {"ip", "mac_address", "agent_id", "agent_version", "description"}


@pytest.mark.parametrize(
    ("model", "record", "broken", "reason"),
    [
        *(
            (model, without(record, field), field, "required field is missing")
            for model, record, field in REQUIRED
        ),
        *(
            (model, nulled(record, field), field, "got null")
            for model, record, field in REQUIRED
            if field not in NULLABLE
        ),
    ],
    ids=lambda value: value if isinstance(value, str) and "." not in value[:1] else "",
)
def test_a_missing_or_null_required_field_is_the_same_fault_on_both_paths(
    model: type[Any], record: dict[str, Any], broken: str, reason: str
) -> None:
    """A required field absent, or a non-nullable one null, is never built on the fast path:
    it steps aside, and the structure function, cattrs and the check all give one WireFault
    naming the field's JSON path."""
    with pytest.raises(STEP_ASIDE_ERRORS):
        _fast_for(model)(record)
    path = "$." + broken
    faults = {
        outcome(hook, model, record)
        for hook in (structure_hook(model), cattrs_structure_hook(model), check_hook(model))
    }
    assert len(faults) == 1
    (kind, fault), *_ = faults
    assert kind == "error"
    assert f"{reason} at {path}" in str(fault)


@pytest.mark.parametrize("field", sorted(NULLABLE))
def test_a_null_nullable_field_is_built_on_the_fast_path(field: str) -> None:
    """A required nullable field sent as null is read as None by the fast path itself."""
    model = Scope if field == "description" else Endpoint
    record = (scope_record if model is Scope else endpoint_record)(**{field: None})
    assert getattr(_fast_for(model)(record), field) is None


def test_unknown_keys_land_in_extra_on_the_fast_path() -> None:
    """Keys the model does not know are kept in extra by the fast path too, nested ones in the
    nested model's."""
    system = {"name": "Ubuntu", "family": "linux", "kernel": "6.8"}
    record = endpoint_record(risk_score=7, operating_system=system)
    endpoint = _fast_for(Endpoint)(record)
    assert endpoint.extra == {"risk_score": 7}
    assert endpoint.operating_system.extra == {"kernel": "6.8"}


def test_a_record_without_its_optional_fields_is_read_without_raising() -> None:
    """A record the service sends without optional fields (a finding without the assumed
    timestamps, an operating system without a version) is read without an exception raised
    and caught inside the fast function: each such record would pay for one."""
    finding = {"id": "vf-1", "severity": "high", "cve_id": "CVE-2025-1", "title": "libfoo"}
    system = {"name": "Ubuntu", "family": "linux", "kernel": "6.8", "edition": "LTS", "arch": "x"}
    raised: list[str] = []

    def tracer(frame: Any, event: str, arg: Any) -> Any:
        if frame.f_code.co_name.startswith("fast_"):
            if event == "exception":
                raised.append(f"{frame.f_code.co_name}: {arg[0].__name__}")
            return tracer
        return None

    sys.settrace(tracer)
    try:
        read = _fast_for(VulnerabilityFinding)(finding)
        read_system = _fast_for(OperatingSystem)(system)
    finally:
        sys.settrace(None)
    assert raised == []
    assert (read.created_at, read.updated_at) == (None, None)
    assert read.extra == {"severity": "high", "cve_id": "CVE-2025-1", "title": "libfoo"}
    assert read == cattrs_structure_hook(VulnerabilityFinding)(finding, VulnerabilityFinding)
    assert to_wire(read) == finding
    assert (read_system.version, read_system.extra["kernel"]) == (None, "6.8")
    assert to_wire(read_system) == system


def test_the_fast_path_reads_enum_arrays_into_members_and_text() -> None:
    """An array of enum values becomes a tuple of members, an unknown one kept as its text."""
    record = scope_record(
        subject_filter={"subject_types": ["software", "firmware"]},
        endpoint_filter={"os_families": ["linux"]},
    )
    scope = _fast_for(Scope)(record)
    assert scope.subject_filter.subject_types == (SubjectType.SOFTWARE, "firmware")
    assert scope.subject_filter.subject_types[0] is SubjectType.SOFTWARE
    assert scope.endpoint_filter.os_families == (OsFamily.LINUX,)


def test_fast_path_records_pickle_like_cattrs_records() -> None:
    """A record built on the fast path pickles and compares like one built by cattrs."""
    record = endpoint_record(risk_score=3)
    fast = _fast_for(Endpoint)(record)
    slow = cattrs_structure_hook(Endpoint)(record, Endpoint)
    assert pickle.loads(pickle.dumps(fast)) == fast == slow
    assert type(fast.extra) is type(slow.extra) is dict


@pytest.mark.parametrize("number", [2**53 + 1, 10**20 + 1, -(10**400)])
def test_an_integer_a_float_cannot_hold_steps_aside_to_the_same_fault(number: int) -> None:
    """An integer a float field would round steps aside to one fault on every path."""
    record = scope_record(finding_filter={"min_cvss_score": number})
    with pytest.raises(STEP_ASIDE_ERRORS):
        _fast_for(Scope)(record)
    faults = {outcome(hook, Scope, record) for hook in
              (structure_hook(Scope), cattrs_structure_hook(Scope), check_hook(Scope))}  # fmt: skip
    assert len(faults) == 1
    assert "$.finding_filter.min_cvss_score" in str(faults)


def test_health_status_uses_the_fast_path() -> None:
    """Every model, HealthStatus included, has a fast function."""
    assert _fast_for(HealthStatus)({"status": "ok"}) == HealthStatus(status="ok")


FULL_FINDING = {
    "id": "vf-1",
    "created_at": "2026-03-01T12:00:00Z",
    "updated_at": "2026-03-02T12:00:00Z",
}


@pytest.mark.parametrize(
    ("model", "record"),
    [
        pytest.param(VulnerabilityFinding, FULL_FINDING, id="exactly the known keys"),
        pytest.param(
            VulnerabilityFinding,
            {**FULL_FINDING, "risk_score": 3},
            id="every known key and an unknown one",
        ),
        pytest.param(
            VulnerabilityFinding,
            {**without(FULL_FINDING, "updated_at"), "risk_score": 3},
            id="as many keys as known, one of them unknown",
        ),
        pytest.param(
            VulnerabilityFinding, without(FULL_FINDING, "updated_at"), id="fewer keys than known"
        ),
        pytest.param(Endpoint, endpoint_record(), id="every published field"),
        pytest.param(
            Endpoint, endpoint_record(risk_score=3), id="every published field and another"
        ),
    ],
)
def test_every_key_layout_gives_what_cattrs_gives(model: type[Any], record: dict[str, Any]) -> None:
    """Complete, over-complete, swapped and sparse records all match cattrs, extra included."""
    fast = _fast_for(model)(record)
    slow = cattrs_structure_hook(model)(record, model)
    assert fast == slow
    assert fast.extra == slow.extra == {k: v for k, v in record.items() if k == "risk_score"}


def test_fast_path_records_are_exactly_the_model_and_stay_frozen() -> None:
    """A record built on the fast path is an instance of the model itself and cannot be changed."""
    endpoint = _fast_for(Endpoint)(endpoint_record())
    assert type(endpoint) is Endpoint
    assert type(endpoint.operating_system) is OperatingSystem
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        endpoint.hostname = "changed"  # type: ignore[misc]
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        del endpoint.operating_system.name  # type: ignore[misc]
