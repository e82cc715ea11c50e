"""Word lists and the seeded vulnerability catalog that make generated records look real."""

from __future__ import annotations

from typing import Final

import attrs

from ._prng import Stream, cumulative, seed_key

OS_FAMILIES: Final = ("windows", "macos", "linux")
OS_FAMILY_WEIGHTS: Final = cumulative((55, 20, 25))

WINDOWS_DESKTOPS: Final = (
    ("Windows 11 Pro", ("10.0.22631", "10.0.22621", "10.0.26100")),
    ("Windows 11 Enterprise", ("10.0.22631", "10.0.26100")),
    ("Windows 10 Enterprise", ("10.0.19045",)),
)
WINDOWS_SERVERS: Final = (
    ("Windows Server 2022", ("10.0.20348",)),
    ("Windows Server 2019", ("10.0.17763",)),
)
MACOS_RELEASES: Final = (
    ("macOS Sonoma", ("14.4.1", "14.5", "14.6.1")),
    ("macOS Sequoia", ("15.0.1", "15.1")),
    ("macOS Ventura", ("13.6.7",)),
)
LINUX_RELEASES: Final = (
    ("Ubuntu", ("20.04", "22.04", "24.04")),
    ("Debian GNU/Linux", ("11", "12")),
    ("Red Hat Enterprise Linux", ("8.9", "9.3", "9.4")),
    ("Amazon Linux", ("2", "2023")),
    ("Rocky Linux", ("9.3",)),
)

SITES: Final = ("ams", "fra", "lon", "nyc", "sfo", "sin", "syd", "tyo", "par", "dub", "sea", "chi")
WINDOWS_SERVER_ROLES: Final = ("dc", "sql", "iis", "file", "rds")
MACOS_ROLES: Final = ("mbp", "mba", "imac", "mini")
LINUX_ROLES: Final = ("web", "db", "app", "k8s", "ci", "cache", "lb", "vpn")
ROLE_LABELS: Final = {
    "dc": "Domain controller",
    "sql": "SQL Server",
    "iis": "IIS web server",
    "file": "File server",
    "rds": "Remote desktop host",
    "web": "Web server",
    "db": "Database server",
    "app": "Application server",
    "k8s": "Kubernetes node",
    "ci": "CI runner",
    "cache": "Cache node",
    "lb": "Load balancer",
    "vpn": "VPN gateway",
}
LAPTOPS: Final = {
    "windows": ("ThinkPad X1 Carbon", "Surface Laptop 5", "Latitude 7440", "EliteBook 840"),
    "macos": ("MacBook Pro", "MacBook Air", "iMac", "Mac mini"),
}
FIRST_NAMES: Final = (
    "Ada", "Ben", "Chloé", "Dev", "Elif", "Femi", "Grace", "Hiro", "Ines", "Jonas",
    "Kofi", "Lena", "Mateo", "Nadia", "Omar", "Priya", "Quinn", "Rosa", "Sven", "Tariq",
    "Uma", "Viktor", "Wen", "Yara", "Zoë",
)  # fmt: skip
LAST_NAMES: Final = (
    "Okafor", "Schmidt", "Tanaka", "García", "Nguyen", "Kowalski", "Haddad", "Larsen",
    "Moreau", "Singh", "O'Brien", "Rossi", "Ivanova", "Mensah", "Silva", "Cohen",
)  # fmt: skip
AGENT_VERSIONS: Final = ("7.10.2", "7.11.0", "7.11.4", "7.12.1", "7.12.3", "8.0.0")
AGENT_VERSION_WEIGHTS: Final = cumulative((3, 4, 8, 15, 40, 30))
TAGS: Final = (
    "prod", "staging", "dev", "pci", "hipaa", "sox", "laptop", "server", "kiosk", "critical",
    "eu", "us", "apac", "finance", "engineering", "sales", "support", "vip",
)  # fmt: skip
TEAMS: Final = ("platform", "it-ops", "secops", "data", "payments", "web", "mobile", "corp-it")

ENDPOINT_STATUSES: Final = ("online", "offline", "decommissioned")
ENDPOINT_STATUS_WEIGHTS: Final = cumulative((70, 25, 5))

ACTIONS: Final = ("patch", "upgrade", "uninstall", "configure", "isolate")
ACTION_WEIGHTS: Final = cumulative((50, 25, 8, 12, 5))
TARGET_STATUSES: Final = ("pending", "in_progress", "succeeded", "failed", "cancelled")
TARGET_STATUS_WEIGHTS: Final = cumulative((20, 15, 45, 12, 8))
TARGET_ERRORS: Final = (
    "installer exited with code 1603",
    "endpoint was offline for the whole maintenance window",
    "reboot pending: the update was staged but not applied",
    "package manager lock held by another process",
    "download failed: checksum mismatch",
    "insufficient disk space on the system volume",
    "timed out after 3600 s",
)

SEVERITIES: Final = ("low", "medium", "high", "critical")
SEVERITY_WEIGHTS: Final = cumulative((15, 40, 30, 15))
CVSS_TENTHS: Final = ((1, 39), (40, 69), (70, 89), (90, 100))
"""The CVSS v3 band of each severity, in tenths of a point."""

FINDING_STATUSES: Final = ("open", "remediating", "resolved", "suppressed")
SCANNERS: Final = ("qualys", "tenable", "rapid7", "defender", "crowdstrike", "trivy")
SCANNER_WEIGHTS: Final = cumulative((25, 25, 15, 20, 10, 5))

VULNERABILITY_KINDS: Final = (
    "heap buffer overflow in the parser",
    "use-after-free when handling crafted input",
    "remote code execution via a crafted request",
    "local privilege escalation",
    "denial of service through resource exhaustion",
    "information disclosure in error messages",
    "improper certificate validation",
    "path traversal in archive extraction",
    "integer overflow in length calculation",
    "out-of-bounds read",
    "authentication bypass",
    "command injection through unsanitised arguments",
    "cross-site scripting in the web interface",
    "race condition in temporary file handling",
)

# (name, major version range): installed versions are drawn inside it.
CROSS_PLATFORM_PACKAGES: Final = (
    ("openssl", (1, 3)), ("curl", (7, 8)), ("zlib", (1, 1)), ("Google Chrome", (120, 126)),
    ("Mozilla Firefox", (115, 127)), ("Python", (3, 3)), ("Node.js", (16, 22)),
    ("Git", (2, 2)), ("OpenJDK", (11, 21)), ("log4j-core", (2, 2)), ("Zoom", (5, 6)),
    ("Slack", (4, 4)), ("Docker Engine", (24, 26)), ("PostgreSQL client", (13, 16)),
)  # fmt: skip
FAMILY_PACKAGES: Final = {
    "windows": (
        ("Microsoft Edge", (120, 126)), ("7-Zip", (19, 23)), ("Notepad++", (8, 8)),
        ("Microsoft Office", (16, 16)), ("Adobe Acrobat Reader", (23, 24)),
        (".NET Runtime", (6, 8)), ("PuTTY", (0, 0)), ("WinRAR", (6, 7)),
    ),
    "macos": (
        ("Safari", (16, 17)), ("WebKit", (618, 619)), ("Xcode", (14, 15)),
        ("iTerm2", (3, 3)), ("Microsoft Teams", (24, 24)), ("Homebrew", (4, 4)),
    ),
    "linux": (
        ("glibc", (2, 2)), ("sudo", (1, 1)), ("openssh-server", (8, 9)), ("bash", (5, 5)),
        ("systemd", (249, 255)), ("nginx", (1, 1)), ("apache2", (2, 2)),
        ("linux-image", (5, 6)), ("polkit", (0, 0)), ("bind9", (9, 9)), ("samba", (4, 4)),
        ("xz-utils", (5, 5)), ("libssh", (0, 0)), ("containerd", (1, 1)),
    ),
}  # fmt: skip

CATALOG_SIZE: Final = 256
_CATALOG_SHARES: Final = (("windows", 48), ("macos", 40), ("linux", 72), ("any", 96))


@attrs.frozen
class Vulnerability:
    """One catalog entry: a CVE in one package, as every finding of it reports it."""

    cve_id: str
    title: str
    severity: int
    cvss_score: float
    package: str
    installed_version: str
    fixed_version: str


@attrs.frozen
class Catalog:
    """The vulnerabilities of a seeded run, and which an endpoint of each OS family can have."""

    entries: tuple[Vulnerability, ...]
    eligible: tuple[tuple[int, ...], ...]
    """Per OS family (by position in OS_FAMILIES): the catalog positions it can have."""
    strides: tuple[tuple[int, ...], ...]
    """Per OS family: steps coprime with its eligible count, so walks never repeat an entry."""


def build_catalog(seed: int) -> Catalog:
    """Build the CATALOG_SIZE distinct vulnerabilities of a seeded run."""
    stream = Stream(seed_key(seed, "catalog"))
    entries: list[Vulnerability] = []
    owners: list[str] = []
    seen: set[str] = set()
    for family, share in _CATALOG_SHARES:
        packages = CROSS_PLATFORM_PACKAGES if family == "any" else FAMILY_PACKAGES[family]
        for _ in range(share):
            cve_id = _new_cve_id(stream, seen)
            name, (low, high) = stream.pick(packages)
            severity = _weighted_severity(stream)
            low_tenths, high_tenths = CVSS_TENTHS[severity]
            major = stream.between(low, high)
            minor = stream.between(0, 20)
            patch = stream.between(0, 30)
            entries.append(
                Vulnerability(
                    cve_id=cve_id,
                    title=f"{name}: {stream.pick(VULNERABILITY_KINDS)}",
                    severity=severity,
                    cvss_score=stream.between(low_tenths, high_tenths) / 10,
                    package=name,
                    installed_version=f"{major}.{minor}.{patch}",
                    fixed_version=f"{major}.{minor}.{patch + stream.between(1, 4)}",
                )
            )
            owners.append(family)
    eligible = tuple(
        tuple(position for position, owner in enumerate(owners) if owner in (family, "any"))
        for family in OS_FAMILIES
    )
    strides = tuple(
        tuple(step for step in (7, 11, 13, 17, 19, 23, 29, 31) if len(positions) % step)
        for positions in eligible
    )
    return Catalog(entries=tuple(entries), eligible=eligible, strides=strides)


def _weighted_severity(stream: Stream) -> int:
    target = stream.below(SEVERITY_WEIGHTS[-1])
    return next(position for position, bound in enumerate(SEVERITY_WEIGHTS) if target < bound)


def _new_cve_id(stream: Stream, seen: set[str]) -> str:
    while True:
        cve_id = f"CVE-{stream.between(2016, 2024)}-{stream.between(10000, 99999)}"
        if cve_id not in seen:
            seen.add(cve_id)
            return cve_id
