"""The generated fast path agrees with the cattrs converter on every record, good or bad."""

from __future__ import annotations

import pickle
from typing import Any

import attrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from remedy_async import (
    Endpoint,
    HealthStatus,
    Package,
    RemediationTarget,
    Scope,
    VulnerabilityFinding,
)
from remedy_async._wire._codec import cattrs_structure_hook
from remedy_async._wire._fastpath import STEP_ASIDE_ERRORS, _fast_for, check_hook, structure_hook
from tests.budget import examples

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
timestamps = st.sampled_from(
    ["2026-03-01T12:00:00Z", "2026-03-01T12:00:00+02:00", "2026-03-01T12:00:00", "yesterday", ""]
)
enum_like = st.sampled_from(["open", "high", "online", "linux", "patch", "pending", "brand-new"])

FIELD_VALUES = st.one_of(
    json_values, timestamps, enum_like, st.lists(st.text(max_size=5), max_size=3)
)

WIRE_KEYS = {
    Endpoint: ["id", "hostname", "displayName", "os", "ipAddresses", "agentVersion", "status",
               "lastSeenAt", "enrolledAt", "tags"],
    RemediationTarget: ["id", "endpointId", "scopeId", "findingIds", "action", "status",
                        "createdAt", "updatedAt", "completedAt", "attempts", "lastError"],
    Scope: ["id", "name", "description", "enabled", "selector", "rules", "createdAt", "updatedAt"],
    VulnerabilityFinding: ["id", "endpointId", "cveId", "title", "severity", "cvssScore",
                           "scanner", "status", "detectedAt", "package", "remediationTargetId"],
}  # fmt: skip
NESTED = {
    "os": st.fixed_dictionaries({}, optional={"family": FIELD_VALUES, "name": FIELD_VALUES}),
    "package": st.fixed_dictionaries(
        {}, optional={"name": FIELD_VALUES, "installedVersion": FIELD_VALUES, "x": json_values}
    ),
    "selector": st.fixed_dictionaries(
        {}, optional={"tags": FIELD_VALUES, "endpointIds": FIELD_VALUES}
    ),
}


def records(model: type[Any]) -> st.SearchStrategy[dict[str, Any]]:
    """Wire dicts with any subset of the model's keys, values good or bad, plus unknown keys."""
    optional = {key: (NESTED.get(key, FIELD_VALUES) | FIELD_VALUES) for key in WIRE_KEYS[model]}
    optional["id"] = st.one_of(st.text(max_size=8), st.integers(), st.none(), st.booleans())
    unknown = st.dictionaries(
        st.sampled_from(["riskScore", "labels", "zz"]), json_values, max_size=2
    )
    return st.builds(
        lambda known, more: {**more, **known}, st.fixed_dictionaries({}, optional=optional), unknown
    )


def outcome(structure: Any, model: type[Any], data: object) -> tuple[str, object]:
    try:
        return "ok", structure(data, model)
    except Exception as error:
        return "error", type(error).__name__


@pytest.mark.parametrize("model", list(WIRE_KEYS))
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


@pytest.mark.parametrize("model", list(WIRE_KEYS))
@settings(max_examples=examples(200), deadline=None)
@given(data=st.data())
def test_structure_hook_matches_cattrs_including_faults(
    model: type[Any], data: st.DataObject
) -> None:
    """The public structure function gives cattrs' result, or fails the same way cattrs does."""
    record = data.draw(records(model))
    assert outcome(structure_hook(model), model, record) == outcome(
        cattrs_structure_hook(model), model, record
    )


@pytest.mark.parametrize("model", list(WIRE_KEYS))
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


def test_unknown_keys_land_in_extra_on_the_fast_path() -> None:
    """Keys the model does not know are kept in extra by the fast path too."""
    record = {"id": "vf-1", "severity": "high", "riskScore": 7, "package": {"name": "a", "x": 1}}
    finding = _fast_for(VulnerabilityFinding)(record)
    assert finding.extra == {"riskScore": 7}
    assert finding.package.extra == {"x": 1}


def test_fast_path_records_pickle_like_cattrs_records() -> None:
    """A record built on the fast path pickles and compares like one built by cattrs."""
    record = {"id": "vf-1", "severity": "high", "package": {"name": "a"}}
    fast = _fast_for(VulnerabilityFinding)(record)
    slow = cattrs_structure_hook(VulnerabilityFinding)(record, VulnerabilityFinding)
    assert pickle.loads(pickle.dumps(fast)) == fast == slow
    assert type(fast.extra) is type(slow.extra) is dict


def test_health_status_uses_the_fast_path() -> None:
    """Every model, HealthStatus included, has a fast function."""
    assert _fast_for(HealthStatus)({"status": "ok"}) == HealthStatus(status="ok")


FULL_FINDING = {
    "id": "vf-1",
    "endpointId": "ep-1",
    "cveId": "CVE-2026-0001",
    "title": "t",
    "severity": "high",
    "cvssScore": 7.5,
    "scanner": "s",
    "status": "open",
    "detectedAt": "2026-03-01T12:00:00Z",
    "package": {"name": "a", "installedVersion": "1", "fixedVersion": "2"},
    "remediationTargetId": None,
}


@pytest.mark.parametrize(
    "record",
    [
        pytest.param(FULL_FINDING, id="exactly the known keys"),
        pytest.param({**FULL_FINDING, "riskScore": 3}, id="every known key and an unknown one"),
        pytest.param(
            {**{k: v for k, v in FULL_FINDING.items() if k != "title"}, "riskScore": 3},
            id="as many keys as known, one of them unknown",
        ),
        pytest.param({"id": "vf-1", "title": "t", "riskScore": 3}, id="fewer keys than known"),
    ],
)
def test_every_key_layout_gives_what_cattrs_gives(record: dict[str, Any]) -> None:
    """Complete, over-complete, swapped and sparse records all match cattrs, extra included."""
    fast = _fast_for(VulnerabilityFinding)(record)
    slow = cattrs_structure_hook(VulnerabilityFinding)(record, VulnerabilityFinding)
    assert fast == slow
    assert fast.extra == slow.extra == {k: v for k, v in record.items() if k == "riskScore"}


def test_fast_path_records_are_exactly_the_model_and_stay_frozen() -> None:
    """A record built on the fast path is an instance of the model itself and cannot be changed."""
    finding = _fast_for(VulnerabilityFinding)(FULL_FINDING)
    assert type(finding) is VulnerabilityFinding
    assert type(finding.package) is Package
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        finding.title = "changed"  # type: ignore[misc]
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        del finding.package.name  # type: ignore[misc]
