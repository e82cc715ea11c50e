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
    """`windows`, `macos` or `linux` (an OsFamily; another value is kept as its text)."""
    name: str | None = None
    """The product's name, such as `Windows 11 Pro` or `Ubuntu`."""
    version: str | None = None
    """Its version, such as `10.0.22631` or `22.04`."""
    extra: Mapping[str, JSONValue] = _extra()
    """Fields the model does not know, by wire name, as sent; `to_wire` writes them back."""


@frozen
class Endpoint:
    """A managed device."""

    id: str
    """The service's id of the endpoint (`ep-00000001` in the simulator)."""
    hostname: str | None = None
    """The device's host name."""
    display_name: str | None = None
    """The name people gave the device."""
    os: OperatingSystem | None = None
    """The operating system it runs."""
    ip_addresses: tuple[str, ...] | None = None
    """Its IP addresses, as text."""
    agent_version: str | None = None
    """The version of the Remedy agent on it."""
    status: EndpointStatus | str | None = None
    """Whether its agent is reporting: an EndpointStatus (another value is kept as its text)."""
    last_seen_at: datetime | None = None
    """When its agent last reported."""
    enrolled_at: datetime | None = None
    """When it was enrolled."""
    tags: tuple[str, ...] | None = None
    """Its labels, which scopes select endpoints by."""
    extra: Mapping[str, JSONValue] = _extra()
    """Fields the model does not know, by wire name, as sent; `to_wire` writes them back."""


@frozen
class RemediationTarget:
    """Remediation work planned or done on one endpoint."""

    id: str
    """The service's id of the remediation target."""
    endpoint_id: str | None = None
    """The endpoint the work is on."""
    scope_id: str | None = None
    """The scope that asked for the work."""
    finding_ids: tuple[str, ...] | None = None
    """The vulnerability findings it remediates."""
    action: RemediationAction | str | None = None
    """What it does: a RemediationAction (another value is kept as its text)."""
    status: RemediationStatus | str | None = None
    """How far it has got: a RemediationStatus (another value is kept as its text)."""
    created_at: datetime | None = None
    """When it was planned."""
    updated_at: datetime | None = None
    """When it last changed."""
    completed_at: datetime | None = None
    """When it finished; None while it has not."""
    attempts: int | None = None
    """How many times it was tried."""
    last_error: str | None = None
    """Why the last try failed, if it did."""
    extra: Mapping[str, JSONValue] = _extra()
    """Fields the model does not know, by wire name, as sent; `to_wire` writes them back."""


@frozen
class ScopeSelector:
    """Which endpoints a scope applies to."""

    tags: tuple[str, ...] | None = None
    """Endpoints with any of these tags."""
    endpoint_ids: tuple[str, ...] | None = None
    """These endpoints, by id."""
    extra: Mapping[str, JSONValue] = _extra()
    """Fields the model does not know, by wire name, as sent; `to_wire` writes them back."""


@frozen
class Scope:
    """A standing remediation policy."""

    id: str
    """The service's id of the scope."""
    name: str | None = None
    """The scope's name."""
    description: str | None = None
    """What it is for."""
    enabled: bool | None = None
    """Whether it is in force."""
    selector: ScopeSelector | None = None
    """Which endpoints it applies to."""
    rules: tuple[JSONValue, ...] | None = field(default=None, hash=False)
    """Its remediation rules, as the service sent them (JSON objects)."""
    created_at: datetime | None = None
    """When it was made."""
    updated_at: datetime | None = None
    """When it last changed."""
    extra: Mapping[str, JSONValue] = _extra()
    """Fields the model does not know, by wire name, as sent; `to_wire` writes them back."""


@frozen
class Package:
    """The software package a finding was detected in."""

    name: str | None = None
    """The package's name, such as `openssl`."""
    installed_version: str | None = None
    """The version installed on the endpoint."""
    fixed_version: str | None = None
    """The first version without the vulnerability."""
    extra: Mapping[str, JSONValue] = _extra()
    """Fields the model does not know, by wire name, as sent; `to_wire` writes them back."""


@frozen
class VulnerabilityFinding:
    """A scanner's signal that an endpoint is exposed to a vulnerability."""

    id: str
    """The service's id of the finding."""
    endpoint_id: str | None = None
    """The endpoint it was found on."""
    cve_id: str | None = None
    """The vulnerability's CVE id, such as `CVE-2024-12345`."""
    title: str | None = None
    """A short description of the vulnerability."""
    severity: Severity | str | None = None
    """How serious it is: a Severity (another value is kept as its text)."""
    cvss_score: float | None = None
    """Its CVSS score, 0 to 10."""
    scanner: str | None = None
    """The scanner that reported it, such as `qualys`."""
    status: FindingStatus | str | None = None
    """Where it stands: a FindingStatus (another value is kept as its text)."""
    detected_at: datetime | None = None
    """When it was found."""
    package: Package | None = None
    """The software package it was found in."""
    remediation_target_id: str | None = None
    """The remediation target fixing it, if any."""
    extra: Mapping[str, JSONValue] = _extra()
    """Fields the model does not know, by wire name, as sent; `to_wire` writes them back."""


@frozen
class HealthStatus:
    """The service's answer to a health check; `ok` is true when it reports status "ok"."""

    status: str | None = None
    """What the service says of itself: `ok` when healthy."""
    extra: Mapping[str, JSONValue] = _extra()
    """The answer's other fields (`version`, `time`, ...), by wire name, as sent."""

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
