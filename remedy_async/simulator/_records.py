"""Builds whole records (wire-shaped dicts, snake_case keys) from the seeded World.

Endpoints and scopes have exactly the fields the service publishes (REAL-CONTRACT.md: every
published field, always present, `null` where the contract allows it). Remediation targets and
vulnerability findings have no published schema: their fields are assumed, in the spirit of the
product's concepts (a target is one installation to fix on one endpoint; a finding is a
scanner's signal about a subject on an endpoint), with `id`, `created_at` and `updated_at` as
the published resources have them.

Records are built with snake_case keys, as the service publishes them; a run that serves
another naming respells them (`respeller`): `--naming camel` serves `mac_address` as
`macAddress`, `pascal` as `MacAddress`, `kebab` as `mac-address`, every key at every depth, so
clients can be tested against services that differ only in spelling.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache
from typing import Any, Final

from ._catalog import (
    AGENT_VERSIONS,
    ARCHITECTURES,
    LINUX_ROLES,
    MACOS_ROLES,
    OPERATING_SYSTEMS,
    OS_COMPONENTS,
    OS_FAMILIES,
    SERVICES,
    SEVERITIES,
    SITES,
    TAGS,
    TEAMS,
    VENDORS,
    WINDOWS_SERVER_ROLES,
)
from ._prng import Stream, iso
from ._world import FINDING_TYPES, World

Record = dict[str, Any]

SCOPE_STATUSES: Final = ("active", "paused", "archived")
SUBJECT_TYPES: Final = ("software", "service", "configuration")
FILTERABLE_FAMILIES: Final = ("macos", "windows", "linux")

_SCOPE_NAMES = (
    ("Critical patches", "Patch critical vulnerabilities within 7 days"),
    ("Browser updates", "Keep browsers on the latest stable release"),
    ("Linux kernel livepatch", "Apply kernel live patches without reboots"),
    ("PCI quarterly", "Quarterly remediation for cardholder-data systems"),
    ("Workstation hygiene", "Monthly updates for laptops and desktops"),
    ("Server maintenance window", "Saturday-night patching for production servers"),
    ("Known exploited first", "Remediate KEV-listed vulnerabilities before anything else"),
    ("Legacy software removal", "Uninstall end-of-life packages"),
    ("TLS configuration", "Enforce TLS 1.2+ and strong ciphers"),
    ("Developer tools", "Keep compilers, runtimes and SDKs current"),
    ("macOS fleet", "Rapid security responses for macOS"),
    ("Windows cumulative updates", "Monthly cumulative updates for Windows"),
    ("Database servers", "Coordinated patching for database hosts"),
    ("Kubernetes nodes", "Rolling upgrades of container hosts"),
    ("VIP devices", "White-glove remediation for executive devices"),
    ("EU data centres", "Regional policy for EU hosting"),
    ("Kiosk lockdown", "Configuration baseline for kiosks"),
    ("High severity backlog", "Work down high findings older than 30 days"),
    ("Third-party apps", "Patch non-OS applications"),
    ("SSH hardening", "Configure OpenSSH per the hardening guide"),
    ("Finance systems", "SOX-scoped change-controlled remediation"),
    ("Staging mirror", "Mirror production policies in staging"),
    ("Log4Shell response", "Emergency response for log4j findings"),
    ("Default policy", "Catch-all policy for unscoped endpoints"),
)
_CPE_PATTERNS = (
    "cpe:2.3:a:google:chrome:*",
    "cpe:2.3:a:mozilla:firefox:*",
    "cpe:2.3:a:openssl:openssl:*",
    "cpe:2.3:a:apache:log4j:*",
    "cpe:2.3:o:microsoft:windows_11:*",
)
_NON_VULNERABILITY_TITLES = {
    "deprecation": "{package} {major} has reached end of life",
    "compliance": "{package} configuration does not meet the CIS benchmark",
    "licensing": "{package} is installed without a license",
    "standardization": "{package} {version} is not the approved version",
}
_NON_VULNERABILITY_SEVERITIES = {
    "deprecation": ("medium", "low"),
    "compliance": ("high", "medium", "low"),
    "licensing": ("low", "info"),
    "standardization": ("info", "low"),
}
_CONFIGURATIONS = {
    "windows": ("SMBv1 protocol", "Windows Firewall profile", "BitLocker policy"),
    "macos": ("FileVault policy", "Gatekeeper setting", "Screen lock policy"),
    "linux": ("SSH root login", "Kernel module blacklist", "Password policy"),
    "other": ("Screen lock policy",),
}
_CONFIGURATION_VENDORS = {
    "windows": "Microsoft",
    "macos": "Apple",
    "linux": "Center for Internet Security",
    "other": "Center for Internet Security",
}
_PACKAGE_MANAGERS = {
    "windows": ("winget", "chocolatey", None),
    "macos": ("homebrew", None),
    "linux": ("apt", "dnf", "snap"),
    "other": (None,),
}
_OS_PATCH_MANAGERS = {
    "windows": "windows-update",
    "macos": "softwareupdate",
    "linux": "apt",
    "other": None,
}


def build_record(world: World, resource: str, index: int) -> Record:
    """The record `index` (0-based) of `resource`."""
    if resource == "endpoints":
        return build_endpoint(world, index)
    if resource == "remediation-targets":
        return build_target(world, index)
    if resource == "scopes":
        return build_scope(world, index)
    return build_finding(world, index)


def build_endpoint(world: World, index: int) -> Record:
    """The endpoint `index`: a workstation or server, as the service publishes one."""
    stream = Stream(world.keys.records["endpoints"] ^ index)
    family = OS_FAMILIES[world.endpoint_family(index)]
    name, versions, vendor = stream.pick(OPERATING_SYSTEMS[family])
    site_index = stream.below(len(SITES))
    if family == "windows":
        role = "ws" if "Server" not in name else stream.pick(WINDOWS_SERVER_ROLES)
    elif family == "macos":
        role = stream.pick(MACOS_ROLES)
    elif family == "linux":
        role = stream.pick(LINUX_ROLES)
    else:
        role = "kiosk" if name == "ChromeOS" else "appliance"
    ip = (
        None
        if stream.chance(0.04)
        else f"10.{site_index * 16 + stream.below(16)}.{stream.below(256)}.{stream.between(2, 254)}"
    )
    mac = None if stream.chance(0.08) else _mac_address(stream)
    architecture = _architecture(stream, family)
    has_agent = world.endpoint_has_agent(index)
    created, updated = world.endpoint_times(index)
    record: Record = {
        "id": world.make_id("endpoints", index),
        "hostname": f"{SITES[site_index]}-{role}-{index + 1:06d}",
        "ip": ip,
        "mac_address": mac,
        "operating_system": {
            "name": name,
            "version": None if stream.chance(0.03) else stream.pick(versions),
            "family": family,
            "vendor": vendor,
            "architecture": architecture,
        },
        "agent_id": world.agent_id(index),
        "agent_version": AGENT_VERSIONS[world.endpoint_agent(index)] if has_agent else None,
        "created_at": iso(created),
        "updated_at": iso(updated),
    }
    if world.has_extra_fields("endpoints", index):
        record["risk_score"] = stream.below(101)
        record["labels"] = {"cost_center": f"cc-{stream.below(10000):04d}"}
    return record


def _mac_address(stream: Stream) -> str:
    octets = [stream.below(256) for _ in range(6)]
    octets[0] = (octets[0] | 0x02) & 0xFE  # locally administered, unicast
    return ":".join(f"{octet:02x}" for octet in octets)


def _architecture(stream: Stream, family: str) -> str | None:
    if stream.chance(0.05):
        return None
    choices = ARCHITECTURES[family]
    roll = stream.below(sum(weight for _, weight in choices))
    for name, weight in choices:
        if roll < weight:
            return name
        roll -= weight
    raise AssertionError("unreachable")  # pragma: no cover


def build_target(world: World, index: int) -> Record:
    """The remediation target `index`: one installation to fix on one endpoint (assumed)."""
    stream = Stream(world.keys.records["remediation-targets"] ^ index)
    endpoint = world.target_endpoint(index)
    family = OS_FAMILIES[world.endpoint_family(endpoint)]
    subject = world.catalog.entries[world.target_subject(index)]
    package = subject.package
    created, updated = world.target_times(index)
    kind = (
        "service"
        if package in SERVICES
        else "os_patch"
        if package in OS_COMPONENTS
        else "configuration"
        if stream.chance(0.08)
        else "software"
    )
    name: str = package
    vendor: str | None = VENDORS.get(package)
    version: str | None = subject.installed_version
    path: str | None
    manager: str | None
    if kind == "configuration":
        name = stream.pick(_CONFIGURATIONS[family])
        vendor, version, path, manager = _CONFIGURATION_VENDORS[family], None, None, None
    elif kind == "os_patch":
        path, manager = None, _OS_PATCH_MANAGERS[family]
    else:
        manager = stream.pick(_PACKAGE_MANAGERS[family])
        path = _install_path(stream, family, package, vendor)
    record: Record = {
        "id": world.make_id("remediation-targets", index),
        "endpoint_id": world.make_id("endpoints", endpoint),
        "type": kind,
        "name": name,
        "vendor": vendor,
        "version": version,
        "path": path,
        "package_manager": manager,
        "created_at": iso(created),
        "updated_at": iso(updated),
    }
    if world.has_extra_fields("remediation-targets", index):
        record["change_ticket"] = f"CHG{stream.below(10_000_000):07d}"
        record["labels"] = {"requested_by": stream.pick(TEAMS)}
    return record


def _install_path(stream: Stream, family: str, package: str, vendor: str | None) -> str | None:
    if stream.chance(0.1):
        return None
    slug = package.lower().replace(" ", "-")
    if family == "macos":
        return f"/Applications/{package}.app"
    if family == "windows":
        return f"C:\\Program Files\\{vendor or package}\\{package}"
    if family == "linux":
        return f"/usr/lib/{slug}"
    return f"/usr/local/{slug}"


def build_scope(world: World, index: int) -> Record:
    """The scope `index`: what gets remediated, on which endpoints, under what conditions."""
    stream = Stream(world.keys.records["scopes"] ^ index)
    name, description = scope_name(index)
    roll = stream.below(100)
    status = SCOPE_STATUSES[0 if roll < 70 else 1 if roll < 90 else 2]
    subject_filter: dict[str, Any] = {}
    if stream.chance(0.6):
        subject_filter["subject_types"] = stream.sample(SUBJECT_TYPES, 1 + stream.below(2))
    if stream.chance(0.4):
        vendors = sorted(set(VENDORS.values()))
        subject_filter["vendors"] = stream.sample(vendors, 1 + stream.below(2))
    if stream.chance(0.3):
        products = sorted(VENDORS)
        subject_filter["products"] = stream.sample(products, 1 + stream.below(3))
    if stream.chance(0.15):
        subject_filter["cpe_patterns"] = stream.sample(_CPE_PATTERNS, 1 + stream.below(2))
    endpoint_filter: dict[str, Any] = {}
    if stream.chance(0.5):
        endpoint_filter["os_families"] = stream.sample(FILTERABLE_FAMILIES, 1 + stream.below(2))
    if stream.chance(0.2) and world.size:
        endpoint_filter["endpoint_ids"] = [
            world.make_id("endpoints", stream.below(world.size)) for _ in range(1 + stream.below(3))
        ]
    if stream.chance(0.3):
        endpoint_filter["has_agent"] = stream.chance(0.8)
    if stream.chance(0.4):
        endpoint_filter["tags"] = stream.sample(TAGS, 1 + stream.below(2))
    finding_filter: dict[str, Any] = {}
    if stream.chance(0.5):
        finding_filter["finding_types"] = stream.sample(FINDING_TYPES, 1 + stream.below(2))
    if stream.chance(0.7):
        finding_filter["min_severity"] = stream.pick(("critical", "high", "medium", "low"))
    if stream.chance(0.3):
        finding_filter["min_cvss_score"] = stream.between(40, 100) / 10
    if stream.chance(0.25):
        finding_filter["kev_only"] = stream.chance(0.7)
    record: Record = {
        "id": world.make_id("scopes", index),
        "name": name,
        "description": None if stream.chance(0.15) else description,
        "status": status,
        "subject_filter": subject_filter,
        "endpoint_filter": endpoint_filter,
        "finding_filter": finding_filter,
    }
    if world.has_extra_fields("scopes", index):
        record["labels"] = {"owner": stream.pick(TEAMS)}
        record["priority"] = stream.between(1, 5)
    return record


def scope_name(index: int) -> tuple[str, str]:
    """(name, description) of scope `index`; names are unique."""
    name, description = _SCOPE_NAMES[index % len(_SCOPE_NAMES)]
    if index >= len(_SCOPE_NAMES):
        name = f"{name} ({index // len(_SCOPE_NAMES) + 1})"
    return name, description


def build_finding(world: World, index: int) -> Record:
    """The finding `index`: a scanner's signal about one subject on one endpoint (assumed);
    mostly a catalog CVE (`vulnerability`), else a deprecation, compliance, licensing or
    standardization finding about the same kind of subject (no CVE, no CVSS score)."""
    facts = world.finding_facts(index)
    subject = world.catalog.entries[facts.catalog]
    target = facts.target
    finding_type = FINDING_TYPES[facts.type]
    if finding_type == "vulnerability":
        severity = SEVERITIES[subject.severity]
        cve_id: str | None = subject.cve_id
        title = subject.title
        cvss: float | None = subject.cvss_score
        kev = subject.kev
    else:
        stream = Stream(world.keys.records["vulnerability-findings"] ^ index)
        severity = stream.pick(_NON_VULNERABILITY_SEVERITIES[finding_type])
        version = subject.installed_version
        title = _NON_VULNERABILITY_TITLES[finding_type].format(
            package=subject.package, major=version.split(".")[0], version=version
        )
        cve_id, cvss, kev = None, None, False
    record: Record = {
        "id": world.make_id("vulnerability-findings", index),
        "endpoint_id": world.make_id("endpoints", facts.endpoint),
        "remediation_target_id": (
            None if target is None else world.make_id("remediation-targets", target)
        ),
        "finding_type": finding_type,
        "severity": severity,
        "cve_id": cve_id,
        "title": title,
        "cvss_score": cvss,
        "kev": kev,
        "created_at": iso(facts.created),
        "updated_at": iso(facts.updated),
    }
    if world.has_extra_fields("vulnerability-findings", index):
        stream = Stream(world.keys.records["vulnerability-findings"] ^ ~index)
        record["risk_score"] = stream.below(101)
        record["labels"] = {"triaged_by": stream.pick(TEAMS)}
    return record


# Respelling record keys for a run that serves another naming than the contract's snake_case.

CONTRACT_NAMING: Final = "snake"
"""The spelling of record keys the service publishes."""

_BOUNDARY = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|[_\-\s]+")


@lru_cache(maxsize=4096)
def spelled(key: str, naming: str) -> str:
    """A key, written in any of the namings, as `naming` spells it: `mac_address` (or
    `macAddress`) -> `macAddress` (camel), `MacAddress` (pascal), `mac-address` (kebab)."""
    words = [word.lower() for word in _BOUNDARY.split(key) if word]
    if not words:
        return key
    if naming == "snake":
        return "_".join(words)
    if naming == "kebab":
        return "-".join(words)
    capitalised = [word[:1].upper() + word[1:] for word in words]
    if naming == "camel":
        return words[0] + "".join(capitalised[1:])
    return "".join(capitalised)  # pascal


def respeller(naming: str) -> Callable[[Any], Any]:
    """A function that respells every key of a record (identity for the contract's naming)."""
    if naming == CONTRACT_NAMING:
        return lambda record: record

    def respell(value: Any) -> Any:
        if isinstance(value, dict):
            return {spelled(key, naming): respell(inner) for key, inner in value.items()}
        if isinstance(value, list):
            return [respell(item) for item in value]
        return value

    return respell
