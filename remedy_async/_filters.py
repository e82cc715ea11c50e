"""The server-side filters each list accepts, so a misspelt one fails before any request.

Every list filter of the contract (`openapi.yaml`'s query parameters, a test keeps them equal)
is named here twice: once as a `TypedDict` per resource, which type checkers and IDEs use to
check and complete `list(...)` keywords, and once as data, which `check_filters` uses at run
time. A keyword that is no filter raises TypeError naming the closest ones, as does a value of
the wrong type; an enum value the contract does not list raises ValueError. A string is taken
for any kind and sent as given (the command line's filters are strings). Filters the real
service has and the contract lacks go through `extra_params=`, unchecked.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping
from datetime import date, datetime
from types import MappingProxyType
from typing import Any, Final, Literal, TypedDict

from attrs import evolve, frozen

from ._models import (
    EndpointStatus,
    FindingStatus,
    RemediationAction,
    RemediationStatus,
    Severity,
)
from ._wire._naming import to_camel

Strings = str | Iterable[str] | None
Timestamps = datetime | date | str | Iterable[datetime | date | str] | None
Numbers = float | Iterable[float] | None
Integers = int | Iterable[int] | None
Booleans = bool | Iterable[bool] | None


class EndpointFilters(TypedDict, total=False):
    """Server-side filters of `client.endpoints.list(...)`.

    Each takes one value or several (any of them); None leaves the filter out.
    """

    hostname: Strings
    """Endpoints with this host name."""
    display_name: Strings
    """Endpoints with this display name."""
    agent_version: Strings
    """Endpoints running this version of the agent."""
    status: EndpointStatus | str | Iterable[EndpointStatus | str] | None
    """Endpoints in this status: an EndpointStatus or its value."""
    last_seen_at: Timestamps
    """Endpoints last seen at this time (a datetime, a date, or ISO 8601 text)."""
    enrolled_at: Timestamps
    """Endpoints enrolled at this time (a datetime, a date, or ISO 8601 text)."""


class RemediationTargetFilters(TypedDict, total=False):
    """Server-side filters of `client.remediation_targets.list(...)`."""

    endpoint_id: Strings
    """Work on this endpoint, by id."""
    scope_id: Strings
    """Work this scope asked for, by id."""
    action: RemediationAction | str | Iterable[RemediationAction | str] | None
    """Work of this action: a RemediationAction or its value."""
    status: RemediationStatus | str | Iterable[RemediationStatus | str] | None
    """Work in this status: a RemediationStatus or its value."""
    created_at: Timestamps
    """Work planned at this time (a datetime, a date, or ISO 8601 text)."""
    updated_at: Timestamps
    """Work last changed at this time (a datetime, a date, or ISO 8601 text)."""
    completed_at: Timestamps
    """Work finished at this time (a datetime, a date, or ISO 8601 text)."""
    attempts: Integers
    """Work tried this many times."""
    last_error: Strings
    """Work whose last try failed with this error."""


class ScopeFilters(TypedDict, total=False):
    """Server-side filters of `client.scopes.list(...)`."""

    name: Strings
    """Scopes of this name."""
    description: Strings
    """Scopes with this description."""
    enabled: Booleans
    """Scopes in force (True) or not (False)."""
    created_at: Timestamps
    """Scopes made at this time (a datetime, a date, or ISO 8601 text)."""
    updated_at: Timestamps
    """Scopes last changed at this time (a datetime, a date, or ISO 8601 text)."""


class VulnerabilityFindingFilters(TypedDict, total=False):
    """Server-side filters of `client.vulnerability_findings.list(...)`."""

    endpoint_id: Strings
    """Findings on this endpoint, by id."""
    cve_id: Strings
    """Findings of this CVE (`CVE-2024-12345`)."""
    title: Strings
    """Findings with this title."""
    severity: Severity | str | Iterable[Severity | str] | None
    """Findings of this severity: a Severity or its value."""
    cvss_score: Numbers
    """Findings of this CVSS score."""
    scanner: Strings
    """Findings this scanner reported."""
    status: FindingStatus | str | Iterable[FindingStatus | str] | None
    """Findings in this status: a FindingStatus or its value."""
    detected_at: Timestamps
    """Findings found at this time (a datetime, a date, or ISO 8601 text)."""
    remediation_target_id: Strings
    """Findings this remediation target fixes, by id."""


Kind = Literal["string", "timestamp", "number", "integer", "boolean", "enum"]


@frozen
class Filter:
    """One server-side filter: what kind of value it takes, its values if an enum, and its
    name on the wire."""

    kind: Kind
    """The kind of value it takes: `string`, `timestamp`, `number`, `integer`, `boolean` or
    `enum`."""
    choices: type[enum.Enum] | None = None
    """The enum of its values, for an `enum` filter."""
    wire_name: str = ""
    """Its query parameter's name (`endpointId`)."""


def _filters(**kinds: Filter) -> Mapping[str, Filter]:
    return MappingProxyType(
        {name: evolve(kind, wire_name=to_camel(name)) for name, kind in kinds.items()}
    )


def _enum(choices: type[enum.Enum]) -> Filter:
    return Filter("enum", choices)


STRING, TIMESTAMP = Filter("string"), Filter("timestamp")

FILTERS: Final[Mapping[str, Mapping[str, Filter]]] = {
    "endpoints": _filters(
        hostname=STRING,
        display_name=STRING,
        agent_version=STRING,
        status=_enum(EndpointStatus),
        last_seen_at=TIMESTAMP,
        enrolled_at=TIMESTAMP,
    ),
    "remediation_targets": _filters(
        endpoint_id=STRING,
        scope_id=STRING,
        action=_enum(RemediationAction),
        status=_enum(RemediationStatus),
        created_at=TIMESTAMP,
        updated_at=TIMESTAMP,
        completed_at=TIMESTAMP,
        attempts=Filter("integer"),
        last_error=STRING,
    ),
    "scopes": _filters(
        name=STRING,
        description=STRING,
        enabled=Filter("boolean"),
        created_at=TIMESTAMP,
        updated_at=TIMESTAMP,
    ),
    "vulnerability_findings": _filters(
        endpoint_id=STRING,
        cve_id=STRING,
        title=STRING,
        severity=_enum(Severity),
        cvss_score=Filter("number"),
        scanner=STRING,
        status=_enum(FindingStatus),
        detected_at=TIMESTAMP,
        remediation_target_id=STRING,
    ),
}
"""Every collection's filters by keyword name."""

TYPED_FILTERS: Final[Mapping[str, type]] = {
    "endpoints": EndpointFilters,
    "remediation_targets": RemediationTargetFilters,
    "scopes": ScopeFilters,
    "vulnerability_findings": VulnerabilityFindingFilters,
}

_KINDS: Mapping[Kind, tuple[type, ...]] = {
    "string": (str,),
    "timestamp": (datetime, date, str),
    "number": (int, float, str),
    "integer": (int, str),
    "boolean": (bool, str),
    "enum": (enum.Enum, str),
}
"""The Python types a filter of each kind takes; a string is always sent as given."""


LIST_KEYWORDS = (
    "page_size",
    "max_items",
    "resume_token",
    "prefetch",
    "concurrency",
    "options",
    "extra_params",
)
"""`list()`'s own keywords, suggested when a misspelt filter is closest to one of them."""


def check_filters(
    collection: str, filters: Mapping[str, object], keywords: Iterable[str] = ()
) -> None:
    """Refuse a keyword that is not one of the collection's filters, or a value it cannot take.

    `keywords` are the call's own keyword names (page_size, ...), suggested too when closest.
    """
    known = FILTERS[collection]
    for name, value in filters.items():
        spec = known.get(name)
        if spec is None:
            raise TypeError(_unknown(collection, name, [*known, *keywords]))
        if value is None:
            continue
        values = (
            [value]
            if isinstance(value, str | bytes) or not isinstance(value, Iterable)
            else list(value)
        )
        for item in values:
            _check_value(collection, name, spec, item)


def _unknown(collection: str, name: str, candidates: list[str]) -> str:
    import difflib  # noqa: PLC0415 - only a mistake pays for it

    close = difflib.get_close_matches(name, candidates, n=3, cutoff=0.6)
    hint = f" (did you mean {' or '.join(repr(found) for found in close)}?)" if close else ""
    return (
        f"{collection}.list() got an unknown filter {name!r}{hint}; its filters are "
        f"{', '.join(FILTERS[collection])}; pass any other with extra_params={{...}}"
    )


def _check_value(collection: str, name: str, spec: Filter, value: Any) -> None:
    allowed = _KINDS[spec.kind]
    wrong_bool = isinstance(value, bool) and spec.kind in ("number", "integer")
    if wrong_bool or not isinstance(value, allowed):
        raise TypeError(
            f"{collection}.list() filter {name!r} takes {spec.kind} values, got "
            f"{type(value).__name__} {value!r}"
        )
    if spec.choices is not None:
        raw = value.value if isinstance(value, enum.Enum) else value
        choices = [member.value for member in spec.choices]
        if raw not in choices:
            raise ValueError(
                f"{collection}.list() filter {name!r} has no value {raw!r}; the contract's "
                f"values are {', '.join(map(str, choices))} (a value the service added: "
                f"extra_params={{{spec.wire_name!r}: {raw!r}}})"
            )
