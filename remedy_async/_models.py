"""The records the service returns, as frozen attrs classes named and typed as it publishes them.

The service's reference (Furl's public API, generated from its OpenAPI document) publishes the
`Endpoint` and `Scope` schemas; their fields are typed here exactly as spelt there. It does not
publish the fields of remediation targets and vulnerability findings: their models type only
what the published pattern gives every record (`id`, `created_at`, `updated_at`) and keep the
rest, as sent, in `extra`. Nothing is typed that the reference does not name.

- A field the reference marks required is a required attribute; one it marks nullable is typed
  `X | None` (required and nullable are independent: a required nullable field is always sent,
  maybe as null). A record missing a required field is a DecodeError naming it.
- Enum-valued fields hold the enum member for a published value and the raw string for any
  other, so a value the service adds never breaks a client.
- Keys the model does not know are kept in `extra` and written back unchanged by `to_wire`.
- Attribute names are the wire names (the service spells its keys in snake_case).

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


class OsFamily(StrEnum):
    """The operating-system family of an endpoint (published: `OperatingSystem.family`).

    The `osFamily` list filter takes `macos`, `windows` and `linux`, not `other`.
    """

    MACOS = "macos"
    WINDOWS = "windows"
    LINUX = "linux"
    OTHER = "other"


class ScopeStatus(StrEnum):
    """Where a remediation scope stands (published: `active` → `paused` → `archived`)."""

    ACTIVE = "active"
    PAUSED = "paused"
    ARCHIVED = "archived"


class SubjectType(StrEnum):
    """A kind of remediation subject a scope covers (published: `SubjectFilter.subject_types`)."""

    SOFTWARE = "software"
    SERVICE = "service"
    CONFIGURATION = "configuration"


class FindingType(StrEnum):
    """A kind of finding that triggers remediation (published: `FindingFilter.finding_types`)."""

    VULNERABILITY = "vulnerability"
    DEPRECATION = "deprecation"
    COMPLIANCE = "compliance"
    LICENSING = "licensing"
    STANDARDIZATION = "standardization"


class Severity(StrEnum):
    """How serious a finding is (published: `FindingFilter.min_severity`), most serious first."""

    CRITICAL = "critical"
    HIGH = "high"
    MEDIUM = "medium"
    LOW = "low"
    INFO = "info"


@frozen(kw_only=True)
class OperatingSystem:
    """The operating system an endpoint runs (published: `OperatingSystem`)."""

    name: str
    """Its name, such as `macOS` or `Windows 11` (required)."""
    family: OsFamily | str
    """`macos`, `windows`, `linux` or `other`: an OsFamily (another value is kept as its
    text). Required."""
    version: str | None = None
    """Its version, such as `14.4.1` (optional, nullable)."""
    vendor: str | None = None
    """Its vendor, such as `Apple` (optional, nullable)."""
    architecture: str | None = None
    """Its processor architecture, such as `x86_64` or `arm64` (optional, nullable)."""
    extra: Mapping[str, JSONValue] = _extra()
    """Fields the reference does not publish, by wire name, as sent; `to_wire` writes them
    back."""


@frozen(kw_only=True)
class Endpoint:
    """A device or system managed by the service (published: `Endpoint`, every field typed).

    Every field is required by the reference; `ip`, `mac_address`, `agent_id` and
    `agent_version` are nullable (None when the service does not know them).
    """

    id: str
    """The endpoint's id: a UUID by the reference, kept as the service's opaque text."""
    hostname: str
    """The device's host name."""
    ip: str | None
    """Its IP address, or None."""
    mac_address: str | None
    """Its MAC address, or None."""
    operating_system: OperatingSystem
    """The operating system it runs."""
    agent_id: str | None
    """The id (a UUID) of the service's agent installed on it; None without an agent."""
    agent_version: str | None
    """The version of that agent; None without one."""
    created_at: datetime
    """When the endpoint was first discovered."""
    updated_at: datetime
    """When it was last updated."""
    extra: Mapping[str, JSONValue] = _extra()
    """Fields the reference does not publish, by wire name, as sent; `to_wire` writes them
    back."""


@frozen(kw_only=True)
class SubjectFilter:
    """What remediation subjects a scope covers (published: `SubjectFilter`).

    Every field is optional; an absent or empty one matches every subject on that dimension.
    """

    subject_types: tuple[SubjectType | str, ...] | None = None
    """Kinds of subject: SubjectType values (another value is kept as its text)."""
    vendors: tuple[str, ...] | None = None
    """Vendors, such as `Google`."""
    products: tuple[str, ...] | None = None
    """Products, such as `Chrome`."""
    cpe_patterns: tuple[str, ...] | None = None
    """CPE patterns the subject matches."""
    extra: Mapping[str, JSONValue] = _extra()
    """Fields the reference does not publish, by wire name, as sent; `to_wire` writes them
    back."""


@frozen(kw_only=True)
class EndpointFilter:
    """Which endpoints a scope covers (published: `EndpointFilter`).

    Every field is optional; an absent or empty one matches every endpoint on that dimension.
    """

    os_families: tuple[OsFamily | str, ...] | None = None
    """Operating-system families: OsFamily values (another value is kept as its text)."""
    endpoint_ids: tuple[str, ...] | None = None
    """Endpoints, by id."""
    has_agent: bool | None = None
    """Only endpoints with (True) or without (False) an enrolled agent."""
    tags: tuple[str, ...] | None = None
    """Endpoint tags."""
    extra: Mapping[str, JSONValue] = _extra()
    """Fields the reference does not publish, by wire name, as sent; `to_wire` writes them
    back."""


@frozen(kw_only=True)
class FindingFilter:
    """Which findings trigger a scope's remediation (published: `FindingFilter`, whose page
    may list more fields than could be read: those stay in `extra`).

    Every field is optional; an absent or empty one matches every finding on that dimension.
    """

    finding_types: tuple[FindingType | str, ...] | None = None
    """Kinds of finding: FindingType values (another value is kept as its text)."""
    min_severity: Severity | str | None = None
    """The least severity that triggers: a Severity (another value is kept as its text)."""
    min_cvss_score: float | None = None
    """The least CVSS score that triggers, at most 10."""
    kev_only: bool | None = None
    """Only findings in the known exploited vulnerabilities catalogue."""
    extra: Mapping[str, JSONValue] = _extra()
    """Fields the reference does not publish, by wire name, as sent; `to_wire` writes them
    back."""


@frozen(kw_only=True)
class Scope:
    """A remediation scope: what gets remediated, on which endpoints, and under what conditions
    (published: `Scope`; its reference page is cut after `finding_filter`, so any later field
    is kept in `extra`).

    Every field is required by the reference; `description` is nullable.
    """

    id: str
    """The scope's id: a UUID by the reference, kept as the service's opaque text."""
    name: str
    """The scope's name."""
    description: str | None
    """What it is for, or None."""
    status: ScopeStatus | str
    """`active`, `paused` or `archived`: a ScopeStatus (another value is kept as its text)."""
    subject_filter: SubjectFilter
    """What remediation subjects are in scope."""
    endpoint_filter: EndpointFilter
    """Which endpoints are in scope."""
    finding_filter: FindingFilter
    """Which findings trigger remediation."""
    extra: Mapping[str, JSONValue] = _extra()
    """Fields the reference does not publish (it is cut after `finding_filter`), by wire name,
    as sent; `to_wire` writes them back."""


@frozen(kw_only=True)
class RemediationTarget:
    """Remediation work on one endpoint: one concrete installation or setting to fix.

    Its schema is unpublished. Typed here is only what the published pattern gives every
    record (`id`, and the `created_at`/`updated_at` pair, optional here since unpublished);
    every other field the service sends is kept, as sent, in `extra`.
    """

    id: str
    """The target's id (a UUID by the published pattern), kept as the service's opaque text."""
    created_at: datetime | None = None
    """When it was created (assumed from the published pattern; None when not sent)."""
    updated_at: datetime | None = None
    """When it last changed (assumed from the published pattern; None when not sent)."""
    extra: Mapping[str, JSONValue] = _extra()
    """Every field but those above, by wire name, as sent; `to_wire` writes them back."""


@frozen(kw_only=True)
class VulnerabilityFinding:
    """A scanner's signal that an endpoint is exposed, such as a CVE on a device.

    Its schema is unpublished. Typed here is only what the published pattern gives every
    record (`id`, and the `created_at`/`updated_at` pair, optional here since unpublished);
    every other field the service sends (severity, CVE, ...) is kept, as sent, in `extra`.
    """

    id: str
    """The finding's id (a UUID by the published pattern), kept as the service's opaque text."""
    created_at: datetime | None = None
    """When it was created (assumed from the published pattern; None when not sent)."""
    updated_at: datetime | None = None
    """When it last changed (assumed from the published pattern; None when not sent)."""
    extra: Mapping[str, JSONValue] = _extra()
    """Every field but those above, by wire name, as sent; `to_wire` writes them back."""


@frozen(kw_only=True)
class HealthStatus:
    """The service's answer to a health check; `ok` is true when it reports status "ok".

    The health check is unpublished: its path is configurable and its body assumed.
    """

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
    SubjectFilter,
    EndpointFilter,
    FindingFilter,
)
"""Every model: the records, the health answer and the values nested in records."""
