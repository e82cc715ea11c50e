"""The API's four resource groups: where each lives under /v1 and what its records are."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Generic, TypeVar

import attrs
from attrs import frozen

from ._filters import FILTERS, Filter
from ._models import Endpoint, RemediationTarget, Scope, VulnerabilityFinding
from ._wire._codec import model_in
from ._wire._naming import wire_names

T = TypeVar("T")


@frozen
class Resource(Generic[T]):
    """A resource group of the API: where it lives under /v1 and what its records are.

    `RESOURCES` lists the four; `collection.resource` says which one a collection serves.
    """

    attribute: str
    """The client attribute serving it, e.g. `vulnerability_findings`."""
    segment: str
    """Its path segment under /v1, e.g. `vulnerability-findings`."""
    model: type[T]
    """The frozen attrs class its records decode into."""

    @property
    def wire_fields(self) -> tuple[str, ...]:
        """The wire names of the model's fields (all but `extra`), in declaration order."""
        return tuple(wire_names(self.model).values())

    @property
    def field_paths(self) -> tuple[str, ...]:
        """The wire names of the model's fields with a nested model's fields as dotted names
        (`operating_system.family`), in declaration order: the flat columns of a table."""
        return _paths(self.model)

    @property
    def filters(self) -> Mapping[str, Filter]:
        """Its list's server-side filters by keyword name (sent in camelCase), from the contract."""
        return FILTERS[self.attribute]


def _paths(model: type[Any], above: str = "") -> tuple[str, ...]:
    hints = {field.name: field.type for field in attrs.fields(attrs.resolve_types(model))}
    paths: list[str] = []
    for name, wire in wire_names(model).items():
        nested = model_in(hints[name])
        paths += _paths(nested, f"{above}{wire}.") if nested else [f"{above}{wire}"]
    return tuple(paths)


ENDPOINTS = Resource("endpoints", "endpoints", Endpoint)
REMEDIATION_TARGETS = Resource("remediation_targets", "remediation-targets", RemediationTarget)
SCOPES = Resource("scopes", "scopes", Scope)
VULNERABILITY_FINDINGS = Resource(
    "vulnerability_findings", "vulnerability-findings", VulnerabilityFinding
)
RESOURCES: tuple[Resource[Any], ...] = (
    ENDPOINTS,
    REMEDIATION_TARGETS,
    SCOPES,
    VULNERABILITY_FINDINGS,
)
"""The API's four resource groups, in the order the client and the command line list them."""
