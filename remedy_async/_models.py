"""The records the service returns, as frozen attrs classes with snake_case attributes.

Only `id` is required. Every other field is optional because the service publishes no schema;
keys the model does not know are kept in `extra` and written back unchanged by `to_wire`.
Enum-valued fields hold the enum member for a known value and the raw string for an unknown one,
so a new status on the server never breaks a client.

Annotations are evaluated as the classes are made (no `from __future__ import annotations`), so
attrs holds real types from the start and nothing needs resolving at import.
"""

from collections.abc import Mapping
from datetime import datetime
from enum import StrEnum
from typing import Any

from attrs import field, frozen

JSONValue = Any
"""Any value `json.loads` can return; used where the service's shape is not ours to fix."""


def _extra() -> Any:
    return field(factory=dict, hash=False, repr=False, kw_only=True)


class EndpointStatus(StrEnum):
    """Whether an endpoint's agent is reporting."""

    ONLINE = "online"
    OFFLINE = "offline"
    DECOMMISSIONED = "decommissioned"


class OsFamily(StrEnum):
    """The operating-system family of an endpoint."""

    WINDOWS = "windows"
    MACOS = "macos"
    LINUX = "linux"


class RemediationAction(StrEnum):
    """What a remediation target does to its endpoint."""

    PATCH = "patch"
    UPGRADE = "upgrade"
    UNINSTALL = "uninstall"
    CONFIGURE = "configure"
    ISOLATE = "isolate"


class RemediationStatus(StrEnum):
    """How far a remediation target has got."""

    PENDING = "pending"
    IN_PROGRESS = "in_progress"
    SUCCEEDED = "succeeded"
    FAILED = "failed"
    CANCELLED = "cancelled"


class Severity(StrEnum):
    """How serious a vulnerability finding is (CVSS bands)."""

    LOW = "low"
    MEDIUM = "medium"
    HIGH = "high"
    CRITICAL = "critical"


class FindingStatus(StrEnum):
    """Where a vulnerability finding stands."""

    OPEN = "open"
    REMEDIATING = "remediating"
    RESOLVED = "resolved"
    SUPPRESSED = "suppressed"


@frozen
class OperatingSystem:
    """The operating system an endpoint runs."""

    family: OsFamily | str | None = None
    name: str | None = None
    version: str | None = None
    extra: Mapping[str, JSONValue] = _extra()


@frozen
class Endpoint:
    """A managed device."""

    id: str
    hostname: str | None = None
    display_name: str | None = None
    os: OperatingSystem | None = None
    ip_addresses: tuple[str, ...] | None = None
    agent_version: str | None = None
    status: EndpointStatus | str | None = None
    last_seen_at: datetime | None = None
    enrolled_at: datetime | None = None
    tags: tuple[str, ...] | None = None
    extra: Mapping[str, JSONValue] = _extra()


@frozen
class RemediationTarget:
    """Remediation work planned or done on one endpoint."""

    id: str
    endpoint_id: str | None = None
    scope_id: str | None = None
    finding_ids: tuple[str, ...] | None = None
    action: RemediationAction | str | None = None
    status: RemediationStatus | str | None = None
    created_at: datetime | None = None
    updated_at: datetime | None = None
    completed_at: datetime | None = None
    attempts: int | None = None
    last_error: str | None = None
    extra: Mapping[str, JSONValue] = _extra()


@frozen
class ScopeSelector:
    """Which endpoints a scope applies to."""

    tags: tuple[str, ...] | None = None
    endpoint_ids: tuple[str, ...] | None = None
    extra: Mapping[str, JSONValue] = _extra()


@frozen
class Scope:
    """A standing remediation policy."""

    id: str
    name: str | None = None
    description: str | None = None
    enabled: bool | None = None
    selector: ScopeSelector | None = None
    rules: tuple[JSONValue, ...] | None = field(default=None, hash=False)
    created_at: datetime | None = None
    updated_at: datetime | None = None
    extra: Mapping[str, JSONValue] = _extra()


@frozen
class Package:
    """The software package a finding was detected in."""

    name: str | None = None
    installed_version: str | None = None
    fixed_version: str | None = None
    extra: Mapping[str, JSONValue] = _extra()


@frozen
class VulnerabilityFinding:
    """A scanner's signal that an endpoint is exposed to a vulnerability."""

    id: str
    endpoint_id: str | None = None
    cve_id: str | None = None
    title: str | None = None
    severity: Severity | str | None = None
    cvss_score: float | None = None
    scanner: str | None = None
    status: FindingStatus | str | None = None
    detected_at: datetime | None = None
    package: Package | None = None
    remediation_target_id: str | None = None
    extra: Mapping[str, JSONValue] = _extra()


@frozen
class HealthStatus:
    """The service's answer to a health check; `ok` is true when it reports status "ok"."""

    status: str | None = None
    extra: Mapping[str, JSONValue] = _extra()

    @property
    def ok(self) -> bool:
        """Whether the service reports itself healthy."""
        return self.status == "ok"


RECORD_TYPES: tuple[type[Any], ...] = (Endpoint, RemediationTarget, Scope, VulnerabilityFinding)
"""The top-level records, each with a required `id`."""

MODEL_TYPES: tuple[type[Any], ...] = (
    *RECORD_TYPES,
    HealthStatus,
    OperatingSystem,
    Package,
    ScopeSelector,
)
"""Every model: the records, the health answer and the values nested in records."""
