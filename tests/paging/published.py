"""Records and list pages in the service's published shape, for the paging tests.

`endpoint` (and `scope`) is a record with every published required field (nullable ones null),
so a test about paging can serve ids of its choosing to `client.endpoints.list()` and get typed
records back; `published_page_body` is a list page in the published envelope (`data`, `total`,
`limit`, `offset`), cut from a whole list as the service cuts it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

DEFAULT_LIMIT = 50
"""The published default of `limit`."""
MAX_LIMIT = 100
"""The published maximum of `limit`."""


def endpoint(record_id: object, **fields: Any) -> dict[str, Any]:
    """An Endpoint record as the service publishes it, with this id (any JSON value, so tests
    of odd ids can serve them) and `fields` replacing or adding keys."""
    record: dict[str, Any] = {
        "id": record_id,
        "hostname": f"host-{record_id}",
        "ip": None,
        "mac_address": None,
        "operating_system": {"name": "Ubuntu 22.04", "family": "linux"},
        "agent_id": None,
        "agent_version": None,
        "created_at": "2024-01-02T03:04:05Z",
        "updated_at": "2024-01-02T03:04:05Z",
    }
    record.update(fields)
    return record


def scope(record_id: object, **fields: Any) -> dict[str, Any]:
    """A Scope record as the service publishes it (empty filters match everything), with this
    id and `fields` replacing or adding keys."""
    record: dict[str, Any] = {
        "id": record_id,
        "name": f"scope {record_id}",
        "description": None,
        "status": "active",
        "subject_filter": {},
        "endpoint_filter": {},
        "finding_filter": {},
    }
    record.update(fields)
    return record


def endpoints(count: int, prefix: str = "ep", start: int = 0) -> list[dict[str, Any]]:
    """`count` published Endpoint records with ids `<prefix>-<n>`, from `start`."""
    return [endpoint(f"{prefix}-{number}") for number in range(start, start + count)]


def published_page_body(records: Sequence[Any], query: Mapping[str, str]) -> dict[str, Any]:
    """The page of `records` a published list answers `query` with: `limit` (default 50) from
    `offset` (default 0), in the envelope `data`, `total`, `limit`, `offset`."""
    limit = int(query.get("limit", DEFAULT_LIMIT))
    offset = int(query.get("offset", 0))
    return {
        "data": list(records[offset : offset + limit]),
        "total": len(records),
        "limit": limit,
        "offset": offset,
    }
