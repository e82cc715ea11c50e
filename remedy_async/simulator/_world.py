"""The skeleton of a seeded data set: ids, who belongs to whom, and the cheap per-record facts.

Nothing here holds records. Each fact of record i is a pure function of (seed, resource, i), so
a data set of any size costs only two prefix-sum arrays (findings and targets per endpoint)
plus the one-byte columns the filters ask for, built on first use.
"""

from __future__ import annotations

import re
from array import array
from bisect import bisect_right
from collections.abc import Iterator
from typing import Final, NamedTuple

from ._prng import draw, seed_key, unit, weighted
from ._vocab import (
    ACTION_WEIGHTS,
    AGENT_VERSION_WEIGHTS,
    ENDPOINT_STATUS_WEIGHTS,
    OS_FAMILY_WEIGHTS,
    SCANNER_WEIGHTS,
    TARGET_STATUS_WEIGHTS,
    build_catalog,
)

ID_PREFIXES: Final = {
    "endpoints": "ep-",
    "remediation-targets": "rt-",
    "scopes": "sc-",
    "vulnerability-findings": "vf-",
}
HOUR: Final = 3600
DAY: Final = 86_400
MAX_SCOPES: Final = 200

_DIGITS = re.compile(r"^[0-9]{8}$")

# Target statuses by position in TARGET_STATUSES, and what they mean for their findings.
_PENDING, _IN_PROGRESS, _SUCCEEDED, _FAILED, _CANCELLED = range(5)
_TERMINAL: Final = frozenset({_SUCCEEDED, _FAILED, _CANCELLED})
# Finding statuses by position in FINDING_STATUSES.
_OPEN, _REMEDIATING, _RESOLVED, _SUPPRESSED = range(4)
_FINDING_STATUS_OF_TARGET: Final = (_REMEDIATING, _REMEDIATING, _RESOLVED, _OPEN, _OPEN)


class World:
    """Ids, relations and cheap facts of the data set of one (seed, size), dated before `now`.

    `now` (Unix seconds) is the data set's present: every timestamp lies a seeded distance
    before it, so the same seed and `now` give the same records.
    """

    def __init__(
        self,
        *,
        seed: int,
        size: int,
        now: int,
        id_prefix: str = "",
        extra_fields_rate: float = 0.1,
    ) -> None:
        self.seed = seed
        self.size = size
        self.now = now
        self.id_prefix = id_prefix
        self.extra_fields_rate = extra_fields_rate
        self.catalog = build_catalog(seed)
        self.scope_count = min(24 + size // 1000, MAX_SCOPES)
        self.keys = _Keys(seed)
        findings = array("Q", [0])
        targets = array("Q", [0])
        finding_key, target_key = self.keys.finding_count, self.keys.target_count
        for endpoint in range(size):
            findings.append(findings[-1] + 10 + draw(finding_key, endpoint) % 21)
            targets.append(targets[-1] + 1 + draw(target_key, endpoint) % 5)
        self.finding_starts = findings
        self.target_starts = targets
        self.counts: dict[str, int] = {
            "endpoints": size,
            "remediation-targets": targets[-1],
            "scopes": self.scope_count,
            "vulnerability-findings": findings[-1],
        }

    def __repr__(self) -> str:
        counts = ", ".join(f"{name}={count}" for name, count in self.counts.items())
        return f"World(seed={self.seed}, size={self.size}, now={self.now}, {counts})"

    # ids -------------------------------------------------------------------------------------

    def make_id(self, resource: str, index: int) -> str:
        """The id of record `index` (0-based) of `resource`."""
        return f"{self.id_prefix}{ID_PREFIXES[resource]}{index + 1:08d}"

    def parse_id(self, resource: str, text: str) -> int | None:
        """The index of the record with id `text`, or None when there is none."""
        prefix = self.id_prefix + ID_PREFIXES[resource]
        digits = text[len(prefix) :]
        if not text.startswith(prefix) or not _DIGITS.match(digits):
            return None
        index = int(digits) - 1
        return index if 0 <= index < self.counts[resource] else None

    def ids(self, resource: str) -> Iterator[str]:
        """Every id of `resource`, in order."""
        return (self.make_id(resource, index) for index in range(self.counts[resource]))

    # relations -------------------------------------------------------------------------------

    def finding_endpoint(self, finding: int) -> int:
        """The endpoint a finding was detected on."""
        return bisect_right(self.finding_starts, finding) - 1

    def target_endpoint(self, target: int) -> int:
        """The endpoint a remediation target works on."""
        return bisect_right(self.target_starts, target) - 1

    def endpoint_findings(self, endpoint: int) -> range:
        """The findings of an endpoint: a contiguous run of indices."""
        return range(self.finding_starts[endpoint], self.finding_starts[endpoint + 1])

    def endpoint_targets(self, endpoint: int) -> range:
        """The remediation targets of an endpoint: a contiguous run of indices."""
        return range(self.target_starts[endpoint], self.target_starts[endpoint + 1])

    def finding_target(self, finding: int) -> int | None:
        """The remediation target that covers a finding, if any."""
        endpoint = self.finding_endpoint(finding)
        return self._finding_target(finding, endpoint)

    def _finding_target(self, finding: int, endpoint: int) -> int | None:
        first_target = self.target_starts[endpoint]
        target_count = self.target_starts[endpoint + 1] - first_target
        local = finding - self.finding_starts[endpoint]
        # Each target covers at least its own first finding; others are covered by chance.
        if local < target_count or draw(self.keys.assign, finding) % 100 < 35:
            return first_target + local % target_count
        return None

    def target_findings(self, target: int) -> list[int]:
        """The findings a remediation target covers (never empty)."""
        endpoint = self.target_endpoint(target)
        first_target = self.target_starts[endpoint]
        target_count = self.target_starts[endpoint + 1] - first_target
        wanted = target - first_target
        first_finding = self.finding_starts[endpoint]
        assign = self.keys.assign
        # The same rule as _finding_target, with the cheap test first.
        return [
            finding
            for local, finding in enumerate(self.endpoint_findings(endpoint))
            if local % target_count == wanted
            and (local < target_count or draw(assign, first_finding + local) % 100 < 35)
        ]

    def finding_facts(self, finding: int) -> FindingFacts:
        """Everything a finding record needs from the skeleton, with a single bisect."""
        endpoint = self.finding_endpoint(finding)
        target = self._finding_target(finding, endpoint)
        enrolled = self.endpoint_enrolled(endpoint)
        detected = enrolled + draw(self.keys.detected, finding) % (self.now - enrolled + 1)
        return FindingFacts(
            endpoint=endpoint,
            catalog=self._catalog_walk(endpoint)(finding - self.finding_starts[endpoint]),
            target=target,
            status=self._finding_status(finding, target),
            detected=detected,
        )

    # cheap facts, one byte each where a filter column may need them ---------------------------

    def endpoint_family(self, endpoint: int) -> int:
        """Position in OS_FAMILIES."""
        return weighted(draw(self.keys.family, endpoint), OS_FAMILY_WEIGHTS)

    def endpoint_status(self, endpoint: int) -> int:
        """Position in ENDPOINT_STATUSES."""
        return weighted(draw(self.keys.endpoint_status, endpoint), ENDPOINT_STATUS_WEIGHTS)

    def endpoint_agent(self, endpoint: int) -> int:
        """Position in AGENT_VERSIONS."""
        return weighted(draw(self.keys.agent, endpoint), AGENT_VERSION_WEIGHTS)

    def endpoint_enrolled(self, endpoint: int) -> int:
        """Enrolment time (Unix seconds): between 3 years and 30 days before `now`."""
        return self.now - 30 * DAY - draw(self.keys.enrolled, endpoint) % (3 * 365 * DAY)

    def target_status(self, target: int) -> int:
        """Position in TARGET_STATUSES."""
        return weighted(draw(self.keys.target_status, target), TARGET_STATUS_WEIGHTS)

    def target_action(self, target: int) -> int:
        """Position in ACTIONS."""
        return weighted(draw(self.keys.action, target), ACTION_WEIGHTS)

    def target_scope(self, target: int) -> int:
        """Index of the scope that created the target."""
        return draw(self.keys.target_scope, target) % self.scope_count

    def target_attempts(self, target: int) -> int:
        """How many times the remediation ran (0 while pending)."""
        status = self.target_status(target)
        if status == _PENDING:
            return 0
        extra = 2 if status == _FAILED else 1
        return 1 + draw(self.keys.attempts, target) % (extra + 1)

    def target_times(self, target: int) -> tuple[int, int, int | None]:
        """(createdAt, updatedAt, completedAt or None), in Unix seconds."""
        enrolled = self.endpoint_enrolled(self.target_endpoint(target))
        span = min(120 * DAY, self.now - HOUR - enrolled)
        created = self.now - HOUR - draw(self.keys.target_created, target) % (span + 1)
        updated = created + draw(self.keys.target_updated, target) % (self.now - created + 1)
        completed = updated if self.target_status(target) in _TERMINAL else None
        return created, updated, completed

    def finding_catalog(self, finding: int) -> int:
        """Position in the catalog: which vulnerability the finding is."""
        endpoint = self.finding_endpoint(finding)
        walk = self._catalog_walk(endpoint)
        return walk(finding - self.finding_starts[endpoint])

    def _catalog_walk(self, endpoint: int) -> _CatalogWalk:
        family = self.endpoint_family(endpoint)
        eligible = self.catalog.eligible[family]
        strides = self.catalog.strides[family]
        start = draw(self.keys.catalog_start, endpoint) % len(eligible)
        stride = strides[draw(self.keys.catalog_stride, endpoint) % len(strides)]
        return _CatalogWalk(eligible, start, stride)

    def finding_status(self, finding: int) -> int:
        """Position in FINDING_STATUSES, consistent with the covering target's status."""
        return self._finding_status(finding, self.finding_target(finding))

    def _finding_status(self, finding: int, target: int | None) -> int:
        if target is not None:
            return _FINDING_STATUS_OF_TARGET[self.target_status(target)]
        roll = draw(self.keys.finding_status, finding) % 100
        return _OPEN if roll < 75 else _RESOLVED if roll < 90 else _SUPPRESSED

    def finding_scanner(self, finding: int) -> int:
        """Position in SCANNERS."""
        return weighted(draw(self.keys.scanner, finding), SCANNER_WEIGHTS)

    def finding_detected(self, finding: int) -> int:
        """Detection time (Unix seconds), after the endpoint's enrolment."""
        enrolled = self.endpoint_enrolled(self.finding_endpoint(finding))
        return enrolled + draw(self.keys.detected, finding) % (self.now - enrolled + 1)

    def has_extra_fields(self, resource: str, index: int) -> bool:
        """Whether the record carries fields the client's models do not know."""
        return unit(draw(self.keys.extra[resource], index)) < self.extra_fields_rate

    # whole columns, built per endpoint to avoid one bisect per finding -------------------------

    def finding_catalog_column(self) -> bytes:
        """finding_catalog of every finding, as bytes."""
        column = bytearray()
        for endpoint in range(self.size):
            walk = self._catalog_walk(endpoint)
            column.extend(walk(local) for local in range(len(self.endpoint_findings(endpoint))))
        return bytes(column)

    def finding_status_column(self) -> bytes:
        """finding_status of every finding, as bytes."""
        column = bytearray()
        for endpoint in range(self.size):
            column.extend(
                self._finding_status(finding, self._finding_target(finding, endpoint))
                for finding in self.endpoint_findings(endpoint)
            )
        return bytes(column)


class FindingFacts(NamedTuple):
    """The skeleton's facts about one finding."""

    endpoint: int
    catalog: int
    target: int | None
    status: int
    detected: int


class _CatalogWalk:
    """An endpoint's findings, local index -> catalog position, never repeating an entry."""

    __slots__ = ("_eligible", "_start", "_stride")

    def __init__(self, eligible: tuple[int, ...], start: int, stride: int) -> None:
        self._eligible = eligible
        self._start = start
        self._stride = stride

    def __repr__(self) -> str:
        return f"_CatalogWalk(start={self._start}, stride={self._stride})"

    def __call__(self, local: int) -> int:
        eligible = self._eligible
        return eligible[(self._start + local * self._stride) % len(eligible)]


class _Keys:
    """The stream keys of every per-record fact of a seeded run, derived once."""

    def __init__(self, seed: int) -> None:
        self.finding_count = seed_key(seed, "endpoint.findingCount")
        self.target_count = seed_key(seed, "endpoint.targetCount")
        self.family = seed_key(seed, "endpoint.family")
        self.endpoint_status = seed_key(seed, "endpoint.status")
        self.agent = seed_key(seed, "endpoint.agentVersion")
        self.enrolled = seed_key(seed, "endpoint.enrolledAt")
        self.catalog_start = seed_key(seed, "endpoint.catalogStart")
        self.catalog_stride = seed_key(seed, "endpoint.catalogStride")
        self.target_status = seed_key(seed, "target.status")
        self.action = seed_key(seed, "target.action")
        self.target_scope = seed_key(seed, "target.scopeId")
        self.attempts = seed_key(seed, "target.attempts")
        self.target_created = seed_key(seed, "target.createdAt")
        self.target_updated = seed_key(seed, "target.updatedAt")
        self.assign = seed_key(seed, "finding.remediationTargetId")
        self.finding_status = seed_key(seed, "finding.status")
        self.scanner = seed_key(seed, "finding.scanner")
        self.detected = seed_key(seed, "finding.detectedAt")
        self.records = {resource: seed_key(seed, f"{resource}.record") for resource in ID_PREFIXES}
        self.extra = {resource: seed_key(seed, f"{resource}.extra") for resource in ID_PREFIXES}

    def __repr__(self) -> str:
        return "_Keys(...)"
