"""A service that answers exactly as the published reference documents: a `MockTransport`
handler (`PublishedService.handler`), served over a loopback socket where the socket is the
point by `tests.loopback.serve_handler(service.handler)`.

Written from `../shared/REAL-CONTRACT.md` (Furl's public API reference), not from the simulator,
so that tests of the default client against it judge the library by the published contract
rather than by our own implementation of it:

- `GET /v1/endpoints`: `limit` (default 50, 1..100) and `offset` (0..) in, `osFamily`
  (`macos`, `windows`, `linux`) and `hasAgent` filters; `{"data", "total", "limit", "offset"}`
  out. The other three lists follow the same pattern without filters (the published pattern,
  assumed for them as the library assumes it).
- `GET /v1/<collection>/{id}`: 400 `Invalid endpoint ID format.` for an id that is no UUID,
  404 `Endpoint not found.` for an unknown one.
- `Authorization: Bearer <key>`, else 401 `Missing or invalid API key.`; every error body is
  `{"error": "<message>"}`; a query value out of its bounds is a 422 (FastAPI's answer), and a
  parameter the service does not declare is ignored, as FastAPI services do.

Records carry the published fields of `Endpoint` and `Scope` in snake_case, with UUID ids; a
scope also carries one field after `finding_filter` (its reference page is cut there), and
targets and findings carry unpublished fields, which clients must keep in `extra`.
`between_pages` lets a test change the data between two requests; `Churn` is such a change
plan (inserts, removals, updates that keep or move a record's place) that remembers what it did,
the ground truth a test judges a list by.
"""

from __future__ import annotations

import random
import uuid
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any, Final

from yarl import URL

from remedy_async import MockRequest, MockResponse

Record = dict[str, Any]

TOKEN: Final = "published-contract-key"
MAX_LIMIT: Final = 100
DEFAULT_LIMIT: Final = 50
OS_FAMILY_FILTER: Final = ("macos", "windows", "linux")
ENDPOINT_FIELDS: Final = (
    "id",
    "hostname",
    "ip",
    "mac_address",
    "operating_system",
    "agent_id",
    "agent_version",
    "created_at",
    "updated_at",
)
"""The published Endpoint fields, every one required."""
SCOPE_FIELDS: Final = (
    "id",
    "name",
    "description",
    "status",
    "subject_filter",
    "endpoint_filter",
    "finding_filter",
)
"""The published Scope fields (the reference page is cut after `finding_filter`)."""
COLLECTIONS: Final = ("endpoints", "remediation-targets", "scopes", "vulnerability-findings")
_NOUNS: Final = {
    "endpoints": "Endpoint",
    "remediation-targets": "Remediation target",
    "scopes": "Scope",
    "vulnerability-findings": "Vulnerability finding",
}
_OPERATING_SYSTEMS: Final = (
    {"name": "macOS", "version": "14.4.1", "family": "macos", "vendor": "Apple",
     "architecture": "arm64"},
    {"name": "Windows 11", "version": "23H2", "family": "windows", "vendor": "Microsoft",
     "architecture": "x86_64"},
    {"name": "Ubuntu", "version": "22.04", "family": "linux", "vendor": None,
     "architecture": "x86_64"},
    {"name": "ChromeOS", "family": "other"},
)  # fmt: skip


def _moment(rng: random.Random) -> str:
    start = datetime(2024, 1, 1, tzinfo=UTC) + timedelta(seconds=rng.randrange(30_000_000))
    return start.isoformat().replace("+00:00", "Z")


def _uuid(rng: random.Random) -> str:
    return str(uuid.UUID(int=rng.getrandbits(128), version=4))


def endpoint(rng: random.Random, index: int) -> Record:
    """A published Endpoint: every field present, the nullable ones sometimes null."""
    agent = rng.random() < 0.7
    return {
        "id": _uuid(rng),
        "hostname": f"host-{index:05d}",
        "ip": f"10.0.{index // 256 % 256}.{index % 256}" if rng.random() < 0.9 else None,
        "mac_address": None if rng.random() < 0.2 else f"3c:22:fb:00:{index // 256:02x}:00",
        "operating_system": dict(rng.choice(_OPERATING_SYSTEMS)),
        "agent_id": _uuid(rng) if agent else None,
        "agent_version": "4.2.1" if agent else None,
        "created_at": _moment(rng),
        "updated_at": _moment(rng),
    }


def scope(rng: random.Random, index: int) -> Record:
    """A published Scope, plus one field of the unpublished rest of its page."""
    return {
        "id": _uuid(rng),
        "name": f"Scope {index}",
        "description": None if index % 3 == 0 else f"What scope {index} is for",
        "status": ("active", "paused", "archived")[index % 3],
        "subject_filter": {"subject_types": ["software"], "vendors": ["Google"]},
        "endpoint_filter": {"os_families": ["macos", "linux"], "has_agent": True},
        "finding_filter": {
            "finding_types": ["vulnerability"],
            "min_severity": "high",
            "min_cvss_score": 7.5,
            "kev_only": index % 2 == 0,
        },
        "created_at": _moment(rng),
    }


def unpublished(rng: random.Random, index: int, kind: str) -> Record:
    """A target or finding: the published pattern's id and times, and fields of its own."""
    record = {"id": _uuid(rng), "created_at": _moment(rng), "updated_at": _moment(rng)}
    if kind == "remediation-targets":
        record |= {"type": "software", "name": "Google Chrome", "version": f"119.0.{index}"}
    else:
        record |= {
            "severity": ("critical", "high", "low")[index % 3],
            "cve_id": f"CVE-2024-{index}",
        }
    return record


def dataset(seed: int = 31, sizes: dict[str, int] | None = None) -> dict[str, list[Record]]:
    """Records of every collection, deterministic per seed, in the service's list order."""
    rng = random.Random(seed)
    counts = {
        "endpoints": 237,
        "remediation-targets": 141,
        "scopes": 23,
        "vulnerability-findings": 305,
    } | (sizes or {})
    return {
        "endpoints": [endpoint(rng, index) for index in range(counts["endpoints"])],
        "scopes": [scope(rng, index) for index in range(counts["scopes"])],
        **{
            kind: [unpublished(rng, index, kind) for index in range(counts[kind])]
            for kind in ("remediation-targets", "vulnerability-findings")
        },
    }


class _Refused(Exception):
    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


def _integer(query: Any, name: str, default: int, low: int, high: int | None) -> int:
    raw = query.get(name)
    if raw is None:
        return default
    try:
        value = int(raw)
    except ValueError:
        raise _Refused(422, f"{name} must be an integer.") from None
    if value < low or (high is not None and value > high):
        bound = f"between {low} and {high}" if high is not None else f"at least {low}"
        raise _Refused(422, f"{name} must be {bound}.")
    return value


def _matches(record: Record, query: Any) -> bool:
    family = query.get("osFamily")
    if family is not None:
        if family not in OS_FAMILY_FILTER:
            raise _Refused(422, "osFamily must be one of macos, windows, linux.")
        if record["operating_system"]["family"] != family:
            return False
    has_agent = query.get("hasAgent")
    if has_agent is not None:
        if has_agent not in ("true", "false"):
            raise _Refused(422, "hasAgent must be a boolean.")
        if (record["agent_id"] is not None) != (has_agent == "true"):
            return False
    return True


class PublishedService:
    """The published contract, answered by `handler`: records, requests seen, a hook, and the
    key it wants (`token`; None: none).

    `requests` holds each request's path and query as received (`/v1/endpoints?limit=100`);
    `between_pages(resource, served)` runs before each list page is answered, after `served`
    pages of that collection were answered, so a test can change `records` mid-list.
    """

    def __init__(
        self, records: dict[str, list[Record]] | None = None, token: str | None = TOKEN
    ) -> None:
        self.records = records if records is not None else dataset()
        self.token = token
        """The API key every request must carry; None: any request, with a key or without."""
        self.requests: list[str] = []
        self.between_pages: Callable[[str, int], None] | None = None
        self._served: dict[str, int] = dict.fromkeys(COLLECTIONS, 0)

    def handler(self, request: MockRequest) -> MockResponse:
        """Answer one request as the published service does: a `MockTransport` handler."""
        status, body = self.answer(str(request.url.relative()), request.query, request.headers)
        return MockResponse.json(status, body)

    def answer(
        self, path_qs: str, query: Mapping[str, str], headers: Mapping[str, str]
    ) -> tuple[int, Any]:
        """The status and JSON body the service answers a GET of `path_qs` with: a list page,
        a record, or `{"error": ...}`; unknown paths are a 404 `Not Found`."""
        segments = URL(path_qs).path.split("/")[1:]
        if len(segments) not in (2, 3) or segments[0] != "v1":
            return 404, {"error": "Not Found"}
        self.requests.append(path_qs)
        try:
            if self.token is not None and headers.get("Authorization") != f"Bearer {self.token}":
                raise _Refused(401, "Missing or invalid API key.")
            if segments[1] not in COLLECTIONS:
                raise _Refused(404, "Not Found")
            if len(segments) == 2:
                return 200, self._list(segments[1], query)
            return 200, self._get(segments[1], segments[2])
        except _Refused as refusal:
            return refusal.status, {"error": refusal.message}

    def _list(self, collection: str, query: Mapping[str, str]) -> Record:
        limit = _integer(query, "limit", DEFAULT_LIMIT, 1, MAX_LIMIT)
        offset = _integer(query, "offset", 0, 0, None)
        if self.between_pages is not None:
            self.between_pages(collection, self._served[collection])
        self._served[collection] += 1
        records = self.records[collection]
        if collection == "endpoints":
            records = [record for record in records if _matches(record, query)]
        return {
            "data": records[offset : offset + limit],
            "total": len(records),
            "limit": limit,
            "offset": offset,
        }

    def _get(self, collection: str, record_id: str) -> Record:
        noun = _NOUNS.get(collection, "Record")
        try:
            uuid.UUID(record_id)
        except ValueError:
            raise _Refused(400, f"Invalid {noun.lower()} ID format.") from None
        for record in self.records[collection]:
            if record["id"] == record_id:
                return record
        raise _Refused(404, f"{noun} not found.")


ChurnOp = tuple[str, int]
"""One change of `Churn`: `("insert", at)` a new record at position `at` (modulo the length + 1)
of the list as it stands; `("remove", i)` the i-th record of the original list (modulo its
size; nothing when already gone); `("drop", at)` the record at position `at` (modulo the
length); `("update", at)` new `updated_at` and hostname for the record at `at`, in its place;
`("move", at)` the same update, and the record moved to the list's end (a service sorting by
`updated_at`)."""


class Churn:
    """Changes one collection of a `PublishedService` before chosen list requests, and keeps
    the ground truth: what existed, what was removed or moved, and when.

    `plan[n]` is applied before the n-th list request of the collection is answered (from 0,
    re-reads and parallel requests included, in the order they arrive). Install it with
    `service.between_pages = churn`.
    """

    def __init__(
        self,
        service: PublishedService,
        plan: Mapping[int, Sequence[ChurnOp]],
        collection: str = "endpoints",
        seed: int = 7,
    ) -> None:
        self.records = service.records[collection]
        self.plan = plan
        self.collection = collection
        self.original: tuple[str, ...] = tuple(record["id"] for record in self.records)
        """The ids before any change, in list order."""
        self.existed: set[str] = set(self.original)
        """Every id that was ever in the list."""
        self.removed: set[str] = set()
        """Every id removed at some point (removed ids never come back)."""
        self.moved: set[str] = set()
        """Ids of records moved to the list's end."""
        self.log: list[tuple[int, str, str]] = []
        """Each change applied: (request it came before, kind, id)."""
        self._rng = random.Random(seed)
        self._clock = datetime(2030, 1, 1, tzinfo=UTC)

    def __call__(self, collection: str, served: int) -> None:
        if collection != self.collection:
            return
        for kind, where in self.plan.get(served, ()):
            self.apply(served, kind, where)

    def apply(self, served: int, kind: str, where: int) -> None:
        """Apply one change now, before the request numbered `served`."""
        records = self.records
        if kind == "insert":
            added = endpoint(self._rng, 10_000 + len(self.existed))
            records.insert(where % (len(records) + 1), added)
            self.existed.add(added["id"])
            self.log.append((served, kind, added["id"]))
            return
        if not records:
            return
        if kind == "remove":
            key = self.original[where % len(self.original)]
            at = next((n for n, record in enumerate(records) if record["id"] == key), None)
            if at is None:
                return
        else:
            at = where % len(records)
        key = records[at]["id"]
        self.log.append((served, kind, key))
        if kind in ("remove", "drop"):
            del records[at]
            self.removed.add(key)
            return
        self._clock += timedelta(seconds=1)
        changed = records[at] | {
            "updated_at": self._clock.isoformat().replace("+00:00", "Z"),
            "hostname": f"host-renamed-{len(self.log)}",
        }
        if kind == "update":
            records[at] = changed
        elif kind == "move":
            del records[at]
            records.append(changed)
            self.moved.add(key)
        else:
            raise ValueError(f"unknown change {kind!r}")

    @property
    def throughout(self) -> list[str]:
        """The original ids never removed, in their original order: present for the whole
        list, so owed exactly once."""
        return [key for key in self.original if key not in self.removed]
