"""The seeded vulnerability `Catalog`, and the word lists that make generated records look real."""

from __future__ import annotations

from typing import Final

import attrs

from ._prng import Stream, cumulative, seed_key

OS_FAMILIES: Final = ("windows", "macos", "linux", "other")
"""The published `operating_system.family` values (`other`: neither of the three filterable)."""
OS_FAMILY_WEIGHTS: Final = cumulative((52, 24, 21, 3))

OperatingSystem = tuple[str, tuple[str, ...], str | None]
"""(name, versions, vendor) of an operating system an endpoint may run."""

OPERATING_SYSTEMS: Final[dict[str, tuple[OperatingSystem, ...]]] = {
    "windows": (
        ("Windows 11", ("23H2", "22H2", "24H2"), "Microsoft"),
        ("Windows 10", ("22H2",), "Microsoft"),
        ("Windows Server 2022", ("21H2",), "Microsoft"),
        ("Windows Server 2019", ("1809",), "Microsoft"),
    ),
    "macos": (("macOS", ("14.4.1", "14.5", "14.6.1", "15.0.1", "15.1", "13.6.7"), "Apple"),),
    "linux": (
        ("Ubuntu", ("20.04", "22.04", "24.04"), "Canonical"),
        ("Debian GNU/Linux", ("11", "12"), "Debian"),
        ("Red Hat Enterprise Linux", ("8.9", "9.3", "9.4"), "Red Hat"),
        ("Amazon Linux", ("2", "2023"), "Amazon"),
        ("Rocky Linux", ("9.3",), None),
    ),
    "other": (
        ("ChromeOS", ("120.0.6099.235", "121.0.6167.212"), "Google"),
        ("FreeBSD", ("13.2", "14.0"), None),
    ),
}
ARCHITECTURES: Final = {
    "windows": (("x86_64", 95), ("arm64", 5)),
    "macos": (("arm64", 75), ("x86_64", 25)),
    "linux": (("x86_64", 80), ("arm64", 20)),
    "other": (("x86_64", 60), ("arm64", 40)),
}
"""The `operating_system.architecture` values per family, with their weights."""

SITES: Final = ("ams", "fra", "lon", "nyc", "sfo", "sin", "syd", "tyo", "par", "dub", "sea", "chi")
WINDOWS_SERVER_ROLES: Final = ("dc", "sql", "iis", "file", "rds")
MACOS_ROLES: Final = ("mbp", "mba", "imac", "mini")
LINUX_ROLES: Final = ("web", "db", "app", "k8s", "ci", "cache", "lb", "vpn")
AGENT_VERSIONS: Final = ("7.10.2", "7.11.0", "7.11.4", "7.12.1", "7.12.3", "8.0.0")
AGENT_VERSION_WEIGHTS: Final = cumulative((3, 4, 8, 15, 40, 30))
TAGS: Final = (
    "prod", "staging", "dev", "pci", "hipaa", "sox", "laptop", "server", "kiosk", "critical",
    "eu", "us", "apac", "finance", "engineering", "sales", "support", "vip",
)  # fmt: skip
TEAMS: Final = ("platform", "it-ops", "secops", "data", "payments", "web", "mobile", "corp-it")


SEVERITIES: Final = ("low", "medium", "high", "critical")
"""A catalog entry's severity, by position (`Vulnerability.severity`)."""
SEVERITY_WEIGHTS: Final = cumulative((15, 40, 30, 15))
CVSS_TENTHS: Final = ((1, 39), (40, 69), (70, 89), (90, 100))
"""The CVSS v3 band of each severity, in tenths of a point."""


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

VENDORS: Final = {
    "openssl": "OpenSSL Software Foundation", "curl": "curl", "zlib": "zlib",
    "Google Chrome": "Google", "Mozilla Firefox": "Mozilla", "Python": "Python Software Foundation",
    "Node.js": "OpenJS Foundation", "Git": "Software Freedom Conservancy", "OpenJDK": "Oracle",
    "log4j-core": "Apache Software Foundation", "Zoom": "Zoom Video Communications",
    "Slack": "Slack Technologies", "Docker Engine": "Docker", "PostgreSQL client": "PostgreSQL",
    "Microsoft Edge": "Microsoft", "7-Zip": "Igor Pavlov", "Notepad++": "Don Ho",
    "Microsoft Office": "Microsoft", "Adobe Acrobat Reader": "Adobe", ".NET Runtime": "Microsoft",
    "PuTTY": "Simon Tatham", "WinRAR": "win.rar GmbH", "Safari": "Apple", "WebKit": "Apple",
    "Xcode": "Apple", "iTerm2": "George Nachman", "Microsoft Teams": "Microsoft",
    "Homebrew": "Homebrew", "glibc": "GNU", "sudo": "Todd C. Miller", "openssh-server": "OpenBSD",
    "bash": "GNU", "systemd": "systemd", "nginx": "F5", "apache2": "Apache Software Foundation",
    "linux-image": "Linux", "polkit": "freedesktop.org", "bind9": "ISC", "samba": "Samba",
    "xz-utils": "Tukaani", "libssh": "libssh", "containerd": "CNCF",
}  # fmt: skip
"""The vendor of each catalog package (a remediation target's `vendor`)."""
SERVICES: Final = frozenset({"openssh-server", "nginx", "apache2", "bind9", "samba", "containerd"})
"""Catalog packages that run as services (their remediation targets are of type `service`)."""
OS_COMPONENTS: Final = frozenset({"linux-image", "glibc", "systemd", "Safari", "WebKit"})
"""Catalog packages that ship with the operating system (targets of type `os_patch`)."""

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
    kev: bool = False
    """Whether the CVE is in the known exploited vulnerabilities catalogue."""


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
                    kev=severity >= 2 and stream.chance(0.2),
                )
            )
            owners.append(family)
    eligible = tuple(
        tuple(position for position, owner in enumerate(owners) if owner in (family, "any"))
        or tuple(position for position, owner in enumerate(owners) if owner == "any")
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
