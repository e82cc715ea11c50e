"""Declares, per resource, which fields are filters and how each is read or indexed."""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from ._filters import FieldType, FilterField, Scalar
from ._prng import iso
from ._records import build_endpoint, build_scope, scope_enabled, scope_name, target_error
from ._vocab import (
    ACTIONS,
    AGENT_VERSIONS,
    ENDPOINT_STATUSES,
    FINDING_STATUSES,
    SCANNERS,
    SEVERITIES,
    TARGET_STATUSES,
)
from ._world import World

Fields = dict[str, FilterField]

PARENTS: Final = {"remediation-targets": "endpoints", "vulnerability-findings": "endpoints"}


def filter_fields(world: World) -> dict[str, Fields]:
    """The filters of every resource, by wire name."""
    return {
        "endpoints": _endpoint_fields(world),
        "remediation-targets": _target_fields(world),
        "scopes": _scope_fields(world),
        "vulnerability-findings": _finding_fields(world),
    }


def column_builders(world: World) -> dict[str, Callable[[], bytes]]:
    """How to build each one-byte column, by column name."""

    def per_record(resource: str, code: Callable[[int], int]) -> Callable[[], bytes]:
        return lambda: bytes(map(code, range(world.counts[resource])))

    return {
        "endpoints.status": per_record("endpoints", world.endpoint_status),
        "endpoints.agentVersion": per_record("endpoints", world.endpoint_agent),
        "remediation-targets.scopeId": per_record("remediation-targets", world.target_scope),
        "remediation-targets.action": per_record("remediation-targets", world.target_action),
        "remediation-targets.status": per_record("remediation-targets", world.target_status),
        "remediation-targets.attempts": per_record("remediation-targets", world.target_attempts),
        "vulnerability-findings.catalog": world.finding_catalog_column,
        "vulnerability-findings.status": world.finding_status_column,
        "vulnerability-findings.scanner": per_record(
            "vulnerability-findings", world.finding_scanner
        ),
    }


def _coded(
    name: str,
    column: str,
    decode: tuple[Scalar, ...],
    code: Callable[[int], int],
    type_: FieldType = "string",
) -> FilterField:
    return FilterField(
        name=name,
        type=type_,
        value=lambda index: decode[code(index)],
        column=column,
        decode=decode,
    )


def _endpoint_fields(world: World) -> Fields:
    fields = [
        FilterField("hostname", "string", lambda i: build_endpoint(world, i)["hostname"]),
        FilterField("displayName", "string", lambda i: build_endpoint(world, i)["displayName"]),
        _coded("agentVersion", "endpoints.agentVersion", AGENT_VERSIONS, world.endpoint_agent),
        _coded("status", "endpoints.status", ENDPOINT_STATUSES, world.endpoint_status),
        FilterField("lastSeenAt", "timestamp", lambda i: build_endpoint(world, i)["lastSeenAt"]),
        FilterField("enrolledAt", "timestamp", lambda i: iso(world.endpoint_enrolled(i))),
    ]
    return {field.name: field for field in fields}


def _target_fields(world: World) -> Fields:
    scope_ids = tuple(world.make_id("scopes", scope) for scope in range(world.scope_count))

    def time_of(position: int) -> Callable[[int], Scalar]:
        def read(index: int) -> Scalar:
            moment = world.target_times(index)[position]
            return None if moment is None else iso(moment)

        return read

    fields = [
        _parent_field(world, "remediation-targets", world.target_endpoint),
        _coded("scopeId", "remediation-targets.scopeId", scope_ids, world.target_scope),
        _coded("action", "remediation-targets.action", ACTIONS, world.target_action),
        _coded("status", "remediation-targets.status", TARGET_STATUSES, world.target_status),
        FilterField("createdAt", "timestamp", time_of(0)),
        FilterField("updatedAt", "timestamp", time_of(1)),
        FilterField("completedAt", "timestamp", time_of(2), nullable=True),
        _coded(
            "attempts",
            "remediation-targets.attempts",
            (0, 1, 2, 3),
            world.target_attempts,
            "integer",
        ),
        FilterField("lastError", "string", lambda i: target_error(world, i), nullable=True),
    ]
    return {field.name: field for field in fields}


def _scope_fields(world: World) -> Fields:
    fields = [
        FilterField("name", "string", lambda i: scope_name(i)[0]),
        FilterField("description", "string", lambda i: scope_name(i)[1]),
        FilterField("enabled", "boolean", lambda i: scope_enabled(world, i)),
        FilterField("createdAt", "timestamp", lambda i: build_scope(world, i)["createdAt"]),
        FilterField("updatedAt", "timestamp", lambda i: build_scope(world, i)["updatedAt"]),
    ]
    return {field.name: field for field in fields}


def _finding_fields(world: World) -> Fields:
    entries = world.catalog.entries
    catalog = world.finding_catalog

    def target_id(index: int) -> Scalar:
        target = world.finding_target(index)
        return None if target is None else world.make_id("remediation-targets", target)

    fields = [
        _parent_field(world, "vulnerability-findings", world.finding_endpoint),
        _coded(
            "cveId", "vulnerability-findings.catalog", tuple(e.cve_id for e in entries), catalog
        ),
        _coded("title", "vulnerability-findings.catalog", tuple(e.title for e in entries), catalog),
        _coded(
            "severity",
            "vulnerability-findings.catalog",
            tuple(SEVERITIES[e.severity] for e in entries),
            catalog,
        ),
        _coded(
            "cvssScore",
            "vulnerability-findings.catalog",
            tuple(e.cvss_score for e in entries),
            catalog,
            "number",
        ),
        _coded("scanner", "vulnerability-findings.scanner", SCANNERS, world.finding_scanner),
        _coded("status", "vulnerability-findings.status", FINDING_STATUSES, world.finding_status),
        FilterField("detectedAt", "timestamp", lambda i: iso(world.finding_detected(i))),
        FilterField("remediationTargetId", "string", target_id, nullable=True),
    ]
    return {field.name: field for field in fields}


def _parent_field(world: World, resource: str, parent_of: Callable[[int], int]) -> FilterField:
    return FilterField(
        "endpointId",
        "string",
        lambda index: world.make_id("endpoints", parent_of(index)),
        parent=PARENTS[resource],
    )


def group_of(world: World, resource: str) -> Callable[[str, Scalar], range | None]:
    """For a resource grouped by endpoint: the run of records with that endpoint id."""
    runs = (
        world.endpoint_findings if resource == "vulnerability-findings" else world.endpoint_targets
    )

    def group(_: str, value: Scalar) -> range | None:
        endpoint = world.parse_id("endpoints", value) if isinstance(value, str) else None
        return None if endpoint is None else runs(endpoint)

    return group
