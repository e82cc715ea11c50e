"""Builds whole records (wire-shaped dicts, camelCase keys) from the seeded World."""

from __future__ import annotations

from typing import Any

from ._prng import Stream, draw, iso
from ._vocab import (
    ACTIONS,
    AGENT_VERSIONS,
    ENDPOINT_STATUSES,
    FINDING_STATUSES,
    FIRST_NAMES,
    LAPTOPS,
    LAST_NAMES,
    LINUX_RELEASES,
    LINUX_ROLES,
    MACOS_RELEASES,
    MACOS_ROLES,
    OS_FAMILIES,
    ROLE_LABELS,
    SCANNERS,
    SEVERITIES,
    SITES,
    TAGS,
    TARGET_ERRORS,
    TARGET_STATUSES,
    TEAMS,
    WINDOWS_DESKTOPS,
    WINDOWS_SERVER_ROLES,
    WINDOWS_SERVERS,
)
from ._world import DAY, HOUR, World

Record = dict[str, Any]

_SCOPE_NAMES = (
    ("Critical patches", "Patch critical vulnerabilities within 7 days"),
    ("Browser updates", "Keep browsers on the latest stable release"),
    ("Linux kernel livepatch", "Apply kernel live patches without reboots"),
    ("PCI quarterly", "Quarterly remediation for cardholder-data systems"),
    ("Workstation hygiene", "Monthly updates for laptops and desktops"),
    ("Server maintenance window", "Saturday-night patching for production servers"),
    ("Isolate compromised", "Network-isolate endpoints with active exploitation"),
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
_MAINTENANCE_WINDOWS = ("0 2 * * SAT", "0 22 * * SUN", "30 1 * * *", "0 3 1 * *")


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
    """The endpoint `index`: a workstation or server with its OS, addresses and tags."""
    stream = Stream(world.keys.records["endpoints"] ^ index)
    family = OS_FAMILIES[world.endpoint_family(index)]
    site_index = stream.below(len(SITES))
    site = SITES[site_index]
    workstation = family == "macos" or (family == "windows" and stream.chance(0.7))
    if family == "windows":
        role = "ws" if workstation else stream.pick(WINDOWS_SERVER_ROLES)
        os_name, versions = stream.pick(WINDOWS_DESKTOPS if workstation else WINDOWS_SERVERS)
    elif family == "macos":
        role = stream.pick(MACOS_ROLES)
        os_name, versions = stream.pick(MACOS_RELEASES)
    else:
        role = stream.pick(LINUX_ROLES)
        os_name, versions = stream.pick(LINUX_RELEASES)
    if workstation:
        owner = f"{stream.pick(FIRST_NAMES)} {stream.pick(LAST_NAMES)}"
        display_name = f"{owner}'s {stream.pick(LAPTOPS[family])}"
    else:
        display_name = f"{ROLE_LABELS[role]} {index + 1} ({site.upper()})"
    addresses = [
        f"10.{site_index * 16 + stream.below(16)}.{stream.below(256)}.{stream.between(2, 254)}"
    ]
    if stream.chance(0.2):
        addresses.append(f"192.168.{stream.below(256)}.{stream.between(2, 254)}")
    if stream.chance(0.15):
        addresses.append(f"fd00:{site_index:x}::{stream.below(0xFFFF):x}:{stream.below(0xFFFF):x}")
    status = world.endpoint_status(index)
    enrolled = world.endpoint_enrolled(index)
    if status == 0:
        last_seen = world.now - stream.below(900)
    elif status == 1:
        last_seen = world.now - HOUR - stream.below(30 * DAY)
    else:
        last_seen = enrolled + stream.below(world.now - 30 * DAY - enrolled + 1)
    tags = stream.sample(TAGS, stream.below(5))
    record: Record = {
        "id": world.make_id("endpoints", index),
        "hostname": f"{site}-{role}-{index + 1:06d}",
        "displayName": display_name,
        "os": {"family": family, "name": os_name, "version": stream.pick(versions)},
        "ipAddresses": addresses,
        "agentVersion": AGENT_VERSIONS[world.endpoint_agent(index)],
        "status": ENDPOINT_STATUSES[status],
        "lastSeenAt": iso(last_seen),
        "enrolledAt": iso(enrolled),
        "tags": tags,
    }
    if world.has_extra_fields("endpoints", index):
        record["riskScore"] = stream.below(101)
        record["labels"] = {
            "costCenter": f"cc-{stream.below(10000):04d}",
            "owner": stream.pick(TEAMS),
        }
    return record


def build_target(world: World, index: int) -> Record:
    """The remediation target `index`: one action on one endpoint for some of its findings."""
    stream = Stream(world.keys.records["remediation-targets"] ^ index)
    status = world.target_status(index)
    created, updated, completed = world.target_times(index)
    record: Record = {
        "id": world.make_id("remediation-targets", index),
        "endpointId": world.make_id("endpoints", world.target_endpoint(index)),
        "scopeId": world.make_id("scopes", world.target_scope(index)),
        "findingIds": [
            world.make_id("vulnerability-findings", finding)
            for finding in world.target_findings(index)
        ],
        "action": ACTIONS[world.target_action(index)],
        "status": TARGET_STATUSES[status],
        "createdAt": iso(created),
        "updatedAt": iso(updated),
        "completedAt": None if completed is None else iso(completed),
        "attempts": world.target_attempts(index),
        "lastError": target_error(world, index),
    }
    if world.has_extra_fields("remediation-targets", index):
        record["changeTicket"] = f"CHG{stream.below(10_000_000):07d}"
        record["labels"] = {"requestedBy": stream.pick(TEAMS)}
    return record


def target_error(world: World, index: int) -> str | None:
    """The last error of a failed remediation target, else None."""
    if TARGET_STATUSES[world.target_status(index)] != "failed":
        return None
    return TARGET_ERRORS[
        draw(world.keys.records["remediation-targets"], index) % len(TARGET_ERRORS)
    ]


def build_scope(world: World, index: int) -> Record:
    """The scope `index`: a standing policy selecting endpoints by tag or id."""
    stream = Stream(world.keys.records["scopes"] ^ index)
    name, description = scope_name(index)
    created = world.now - 400 * DAY + stream.below(300 * DAY)
    endpoint_ids = [
        world.make_id("endpoints", stream.below(world.size))
        for _ in range(stream.below(4) if world.size else 0)
    ]
    rules: list[dict[str, Any]] = [
        {"type": "minimumSeverity", "severity": stream.pick(("medium", "high", "critical"))},
        {"type": "maximumAge", "days": stream.pick((7, 14, 30, 90))},
    ]
    if stream.chance(0.5):
        rules.append(
            {
                "type": "maintenanceWindow",
                "cron": stream.pick(_MAINTENANCE_WINDOWS),
                "durationMinutes": stream.pick((60, 120, 240)),
            }
        )
    record: Record = {
        "id": world.make_id("scopes", index),
        "name": name,
        "description": description,
        "enabled": scope_enabled(world, index),
        "selector": {"tags": stream.sample(TAGS, 1 + stream.below(2)), "endpointIds": endpoint_ids},
        "rules": rules,
        "createdAt": iso(created),
        "updatedAt": iso(created + stream.below(world.now - created + 1)),
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


def scope_enabled(world: World, index: int) -> bool:
    """Whether scope `index` is enabled (about 85% are)."""
    return draw(world.keys.records["scopes"], index) % 100 < 85


def build_finding(world: World, index: int) -> Record:
    """The finding `index`: one catalog vulnerability detected on one endpoint."""
    facts = world.finding_facts(index)
    vulnerability = world.catalog.entries[facts.catalog]
    target = facts.target
    record: Record = {
        "id": world.make_id("vulnerability-findings", index),
        "endpointId": world.make_id("endpoints", facts.endpoint),
        "cveId": vulnerability.cve_id,
        "title": vulnerability.title,
        "severity": SEVERITIES[vulnerability.severity],
        "cvssScore": vulnerability.cvss_score,
        "scanner": SCANNERS[world.finding_scanner(index)],
        "status": FINDING_STATUSES[facts.status],
        "detectedAt": iso(facts.detected),
        "package": {
            "name": vulnerability.package,
            "installedVersion": vulnerability.installed_version,
            "fixedVersion": vulnerability.fixed_version,
        },
        "remediationTargetId": (
            None if target is None else world.make_id("remediation-targets", target)
        ),
    }
    if world.has_extra_fields("vulnerability-findings", index):
        stream = Stream(world.keys.records["vulnerability-findings"] ^ index)
        record["riskScore"] = stream.below(101)
        record["exploitAvailable"] = stream.chance(0.3)
        record["labels"] = {"triagedBy": stream.pick(TEAMS)}
    return record
