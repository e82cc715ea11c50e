"""Declares, per resource, which query parameters are filters and how each is read or indexed.

As published: `GET /v1/endpoints` takes `osFamily` (`macos`, `windows`, `linux`) and `hasAgent`
(`true`/`false`); the other lists publish no filters. With `range_filters`, every list also
takes the change feed's `updatedAt[gte]=TIME` (see `_churn`), read from `updated_at`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from ._filters import FilterField
from ._prng import iso
from ._records import FILTERABLE_FAMILIES
from ._vocab import OS_FAMILIES
from ._world import World

Fields = dict[str, FilterField]

UPDATED_AT: Final = "updatedAt"
"""The wire name of the change feed's range filter field (`updatedAt[gte]`)."""
RESOURCE_NAMES: Final = ("endpoints", "remediation-targets", "scopes", "vulnerability-findings")


def filter_fields(world: World) -> dict[str, Fields]:
    """The filters of every resource, by wire name."""
    fields: dict[str, Fields] = {resource: {} for resource in RESOURCE_NAMES}
    fields["endpoints"] = {
        "osFamily": FilterField(
            "osFamily",
            "string",
            lambda index: OS_FAMILIES[world.endpoint_family(index)],
            column="endpoints.family",
            decode=OS_FAMILIES,
            choices=FILTERABLE_FAMILIES,
            read=_os_family,
        ),
        "hasAgent": FilterField(
            "hasAgent",
            "boolean",
            world.endpoint_has_agent,
            column="endpoints.hasAgent",
            decode=(False, True),
            read=lambda record: record.get("agent_id") is not None,
        ),
    }
    return fields


def range_fields(world: World) -> dict[str, Fields]:
    """The fields a range filter (`FIELD[gte]`) may name, per resource: `updatedAt`, except on
    scopes, which publish no `updated_at`."""

    def updated(resource: str) -> FilterField:
        return FilterField(
            UPDATED_AT,
            "timestamp",
            lambda index: iso(world.times(resource, index)[1]),
            read=lambda record: record.get("updated_at"),
        )

    fields = {resource: {UPDATED_AT: updated(resource)} for resource in RESOURCE_NAMES}
    fields["scopes"] = {}  # a published scope has no updated_at
    return fields


def _os_family(record: dict[str, Any]) -> Any:
    system = record.get("operating_system")
    return system.get("family") if isinstance(system, dict) else None


def column_builders(world: World) -> dict[str, Callable[[], bytes]]:
    """How to build each one-byte column, by column name."""

    def per_record(resource: str, code: Callable[[int], int]) -> Callable[[], bytes]:
        return lambda: bytes(map(code, range(world.counts[resource])))

    return {
        "endpoints.family": per_record("endpoints", world.endpoint_family),
        "endpoints.hasAgent": per_record("endpoints", world.endpoint_has_agent),
    }
