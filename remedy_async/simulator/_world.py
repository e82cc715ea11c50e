"""The skeleton of a seeded data set: ids, who belongs to whom, and the cheap per-record facts.

Nothing here holds records. Each fact of record i is a pure function of (seed, resource, i), so
a data set of any size costs only two prefix-sum arrays (findings and targets per endpoint)
plus the one-byte columns the filters ask for, built on first use.

Ids are UUIDs, as the service publishes them (`string format: uuid`): version-4 shaped, lower-case
hex, made from (seed, resource, index) by an invertible scramble, so they look random, differ per
resource and seed, and `parse_id` finds the index back in constant time. List order is index
order (creation order), not id order.
"""

from __future__ import annotations

import re
from array import array
from bisect import bisect_right
from collections.abc import Iterator
from typing import Final, NamedTuple

from ._catalog import AGENT_VERSION_WEIGHTS, OS_FAMILY_WEIGHTS, build_catalog
from ._prng import MASK64, cumulative, draw, seed_key, unit, weighted

HOUR: Final = 3600
DAY: Final = 86_400
MAX_SCOPES: Final = 200
AGENT_SHARE: Final = 85
"""Percent of endpoints with an enrolled agent (the others have `agent_id` null)."""

FINDING_TYPES: Final = (
    "vulnerability",
    "deprecation",
    "compliance",
    "licensing",
    "standardization",
)
"""The finding types (the published `FindingFilter.finding_types` values), by position."""
FINDING_TYPE_WEIGHTS: Final = cumulative((85, 6, 5, 2, 2))

UUID_TEXT: Final = re.compile(
    r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$"
)
"""A well-formed UUID (any version, either case); what a get needs not to be a 400."""
_OUR_UUID: Final = re.compile(
    r"^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$"
)
_GOLDEN: Final = 0x9E3779B97F4A7C15
_C1: Final = 0xBF58476D1CE4E5B9
_C2: Final = 0x94D049BB133111EB
_C1_INVERSE: Final = pow(_C1, -1, 1 << 64)
_C2_INVERSE: Final = pow(_C2, -1, 1 << 64)
_LOW62: Final = (1 << 62) - 1
_LOW48: Final = (1 << 48) - 1
ID_RESOURCES: Final = ("endpoints", "remediation-targets", "scopes", "vulnerability-findings")
AGENTS: Final = "agents"
"""The id space of agents (`agent_id`), which have no collection of their own."""


def _unshift(value: int, shift: int) -> int:
    """The inverse of `value ^ (value >> shift)` on 64 bits."""
    result = value
    for _ in range(64 // shift):
        result = value ^ (result >> shift)
    return result


def _unscramble(value: int) -> int:
    value = _unshift(value, 31)
    value = _unshift((value * _C2_INVERSE) & MASK64, 27)
    return _unshift((value * _C1_INVERSE) & MASK64, 30)


class IdSpace:
    """The UUIDs of one resource of a seeded run: index -> id and back, in constant time.

    The id's 122 free bits are a scrambled index (64 bits, keyed by seed and resource) and 58
    check bits derived from it, so a UUID of another resource or seed is recognised as unknown.
    """

    __slots__ = ("_check", "_key")

    def __init__(self, seed: int, resource: str) -> None:
        self._key = seed_key(seed, f"{resource}.id")
        self._check = seed_key(seed, f"{resource}.id.check")

    def __repr__(self) -> str:
        return "IdSpace(...)"

    def make(self, index: int) -> str:
        """The UUID of record `index`."""
        # A bijection of 64-bit values (splitmix64's finaliser, undone by _unscramble), then
        # `draw` of the check bits, inlined: this runs for every id of every record built.
        low = index ^ self._key
        low = ((low ^ (low >> 30)) * _C1) & MASK64
        low = ((low ^ (low >> 27)) * _C2) & MASK64
        low ^= low >> 31
        check = (self._check + (low + 1) * _GOLDEN) & MASK64
        check = ((check ^ (check >> 30)) * _C1) & MASK64
        check = ((check ^ (check >> 27)) * _C2) & MASK64
        check = (check ^ (check >> 31)) >> 6
        # 58 check bits and the top 2 of `low` around the version nibble; the variant, then
        # the low 62 bits of `low`.
        head = (check >> 10) << 16 | 0x4000 | (check & 0x3FF) << 2 | low >> 62
        tail = low & _LOW62 | 1 << 63
        return (
            f"{head >> 32:08x}-{head >> 16 & 0xFFFF:04x}-{head & 0xFFFF:04x}-"
            f"{tail >> 48:04x}-{tail & _LOW48:012x}"
        )

    def index(self, text: str) -> int | None:
        """The index whose UUID is `text`, or None when it is none of this space's."""
        if not _OUR_UUID.match(text):
            return None
        head, tail = int(text[:8] + text[9:13] + text[14:18], 16), int(text[19:23] + text[24:], 16)
        low = (head & 3) << 62 | (tail & _LOW62)
        check = (head >> 16) << 10 | (head >> 2) & 0x3FF
        if check != draw(self._check, low) >> 6:
            return None
        return _unscramble(low) ^ self._key


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
        extra_fields_rate: float = 0.0,
    ) -> None:
        self.seed = seed
        self.size = size
        self.now = now
        self.id_prefix = id_prefix
        self.extra_fields_rate = extra_fields_rate
        self.catalog = build_catalog(seed)
        self.scope_count = min(24 + size // 1000, MAX_SCOPES)
        self.keys = _Keys(seed)
        self._ids = {resource: IdSpace(seed, resource) for resource in (*ID_RESOURCES, AGENTS)}
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
        """The id of record `index` (0-based) of `resource`: `id_prefix` and a UUID."""
        return self.id_prefix + self._ids[resource].make(index)

    def parse_id(self, resource: str, text: str) -> int | None:
        """The index of the record with id `text`, or None when there is none."""
        prefix = self.id_prefix
        if not text.startswith(prefix):
            return None
        index = self._ids[resource].index(text[len(prefix) :])
        return index if index is not None and index < self.counts[resource] else None

    def well_formed(self, text: str) -> bool:
        """Whether `text` is `id_prefix` and a well-formed UUID (a get of anything else is a
        400 `Invalid ... ID format.`)."""
        prefix = self.id_prefix
        return text.startswith(prefix) and bool(UUID_TEXT.match(text[len(prefix) :]))

    def agent_id(self, endpoint: int) -> str | None:
        """The UUID of an endpoint's enrolled agent, or None without one (never prefixed)."""
        return self._ids[AGENTS].make(endpoint) if self.endpoint_has_agent(endpoint) else None

    def ids(self, resource: str) -> Iterator[str]:
        """Every id of `resource`, in order."""
        return (self.make_id(resource, index) for index in range(self.counts[resource]))

    # relations -------------------------------------------------------------------------------

    def finding_endpoint(self, finding: int) -> int:
        """The endpoint a finding was detected on."""
        return bisect_right(self.finding_starts, finding) - 1

    def target_endpoint(self, target: int) -> int:
        """The endpoint a remediation target is installed on."""
        return bisect_right(self.target_starts, target) - 1

    def _finding_target(self, finding: int, endpoint: int) -> int | None:
        first_target = self.target_starts[endpoint]
        target_count = self.target_starts[endpoint + 1] - first_target
        local = finding - self.finding_starts[endpoint]
        # Each target has at least its own first finding; others are linked by chance.
        if local < target_count or draw(self.keys.assign, finding) % 100 < 35:
            return first_target + local % target_count
        return None

    def target_subject(self, target: int) -> int:
        """The catalog position of what a target installs: the package of its first finding."""
        endpoint = self.target_endpoint(target)
        local = target - self.target_starts[endpoint]
        return self._catalog_walk(endpoint)(local)

    def finding_facts(self, finding: int) -> FindingFacts:
        """Everything a finding record needs from the skeleton, with a single bisect."""
        endpoint = self.finding_endpoint(finding)
        target = self._finding_target(finding, endpoint)
        created, updated = self.finding_times(finding, endpoint)
        return FindingFacts(
            endpoint=endpoint,
            catalog=self._catalog_walk(endpoint)(finding - self.finding_starts[endpoint]),
            target=target,
            type=self.finding_type(finding),
            created=created,
            updated=updated,
        )

    # cheap facts, one byte each where a filter column may need them ---------------------------

    def endpoint_family(self, endpoint: int) -> int:
        """Position in OS_FAMILIES."""
        return weighted(draw(self.keys.family, endpoint), OS_FAMILY_WEIGHTS)

    def endpoint_has_agent(self, endpoint: int) -> bool:
        """Whether an agent is enrolled on the endpoint."""
        return draw(self.keys.has_agent, endpoint) % 100 < AGENT_SHARE

    def endpoint_agent(self, endpoint: int) -> int:
        """Position in AGENT_VERSIONS of the endpoint's agent (if it has one)."""
        return weighted(draw(self.keys.agent, endpoint), AGENT_VERSION_WEIGHTS)

    def endpoint_enrolled(self, endpoint: int) -> int:
        """Discovery time (Unix seconds): between 3 years and 30 days before `now`."""
        return self.now - 30 * DAY - draw(self.keys.enrolled, endpoint) % (3 * 365 * DAY)

    def endpoint_times(self, endpoint: int) -> tuple[int, int]:
        """(created_at, updated_at) of an endpoint, in Unix seconds."""
        created = self.endpoint_enrolled(endpoint)
        return created, created + draw(self.keys.endpoint_updated, endpoint) % (
            self.now - created + 1
        )

    def target_times(self, target: int) -> tuple[int, int]:
        """(created_at, updated_at) of a remediation target, in Unix seconds."""
        enrolled = self.endpoint_enrolled(self.target_endpoint(target))
        span = min(120 * DAY, self.now - HOUR - enrolled)
        created = self.now - HOUR - draw(self.keys.target_created, target) % (span + 1)
        updated = created + draw(self.keys.target_updated, target) % (self.now - created + 1)
        return created, updated

    def finding_times(self, finding: int, endpoint: int | None = None) -> tuple[int, int]:
        """(created_at, updated_at) of a finding: detected after its endpoint's discovery."""
        if endpoint is None:
            endpoint = self.finding_endpoint(finding)
        enrolled = self.endpoint_enrolled(endpoint)
        created = enrolled + draw(self.keys.detected, finding) % (self.now - enrolled + 1)
        updated = created + draw(self.keys.finding_updated, finding) % (self.now - created + 1)
        return created, updated

    def times(self, resource: str, index: int) -> tuple[int, int]:
        """(created_at, updated_at) of record `index` of `resource` (not scopes: a published
        scope has neither), as generated."""
        if resource == "endpoints":
            return self.endpoint_times(index)
        if resource == "remediation-targets":
            return self.target_times(index)
        return self.finding_times(index)

    def finding_type(self, finding: int) -> int:
        """Position in FINDING_TYPES (mostly `vulnerability`)."""
        return weighted(draw(self.keys.finding_type, finding), FINDING_TYPE_WEIGHTS)

    def _catalog_walk(self, endpoint: int) -> _CatalogWalk:
        family = self.endpoint_family(endpoint)
        eligible = self.catalog.eligible[family]
        strides = self.catalog.strides[family]
        start = draw(self.keys.catalog_start, endpoint) % len(eligible)
        stride = strides[draw(self.keys.catalog_stride, endpoint) % len(strides)]
        return _CatalogWalk(eligible, start, stride)

    def has_extra_fields(self, resource: str, index: int) -> bool:
        """Whether the record carries fields the client's models do not know."""
        return unit(draw(self.keys.extra[resource], index)) < self.extra_fields_rate


class FindingFacts(NamedTuple):
    """The skeleton's facts about one finding."""

    endpoint: int
    catalog: int
    target: int | None
    type: int
    created: int
    updated: int


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
        self.has_agent = seed_key(seed, "endpoint.hasAgent")
        self.agent = seed_key(seed, "endpoint.agentVersion")
        self.enrolled = seed_key(seed, "endpoint.enrolledAt")
        self.endpoint_updated = seed_key(seed, "endpoint.updatedAt")
        self.catalog_start = seed_key(seed, "endpoint.catalogStart")
        self.catalog_stride = seed_key(seed, "endpoint.catalogStride")
        self.target_created = seed_key(seed, "target.createdAt")
        self.target_updated = seed_key(seed, "target.updatedAt")
        self.assign = seed_key(seed, "finding.remediationTargetId")
        self.finding_type = seed_key(seed, "finding.type")
        self.detected = seed_key(seed, "finding.detectedAt")
        self.finding_updated = seed_key(seed, "finding.updatedAt")
        self.records = {resource: seed_key(seed, f"{resource}.record") for resource in ID_RESOURCES}
        self.extra = {resource: seed_key(seed, f"{resource}.extra") for resource in ID_RESOURCES}

    def __repr__(self) -> str:
        return "_Keys(...)"
