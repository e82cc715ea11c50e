"""The server-side filters each list accepts, as published, so a misspelt one fails before any
request.

The service's reference publishes two list filters, both of `GET /v1/endpoints`: `osFamily`
(`macos`, `windows` or `linux`) and `hasAgent` (a boolean). It publishes none for the other
three lists. Its service ignores a query parameter it does not declare, so a misspelt filter
would silently list everything: every keyword is checked here, before any request, against the
published filters (a `TypedDict` per resource, which type checkers and IDEs use to check and
complete `list(...)` keywords, and the same filters as data, which `check_filters` uses at run
time). A keyword that is no filter raises TypeError naming the closest ones, as does a value of
the wrong type or several values (each published filter takes one); a value the reference does
not list raises ValueError. A string is taken for any kind and sent as given (the command
line's filters are strings). Filters the service has and the reference lacks go through
`extra_params=`, unchecked.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping
from types import MappingProxyType
from typing import Final, Literal, TypedDict

from attrs import frozen

from ._models import OsFamily
from ._wire._naming import to_camel


class EndpointFilters(TypedDict, total=False):
    """Server-side filters of `client.endpoints.list(...)`, as published; None leaves one out."""

    os_family: OsFamily | Literal["macos", "windows", "linux"] | None
    """Endpoints of this operating-system family: `macos`, `windows` or `linux` (an OsFamily
    or its value; the filter does not take `other`). Sent as `osFamily`."""
    has_agent: bool | None
    """Endpoints with (True) or without (False) an enrolled agent. Sent as `hasAgent`."""


class RemediationTargetFilters(TypedDict, total=False):
    """Server-side filters of `client.remediation_targets.list(...)`: none is published (pass
    the service's own with `extra_params=`)."""


class ScopeFilters(TypedDict, total=False):
    """Server-side filters of `client.scopes.list(...)`: none is published (pass the service's
    own with `extra_params=`)."""


class VulnerabilityFindingFilters(TypedDict, total=False):
    """Server-side filters of `client.vulnerability_findings.list(...)`: none is published (pass
    the service's own with `extra_params=`)."""


Kind = Literal["string", "boolean", "enum"]


@frozen
class Filter:
    """One server-side filter: what kind of value it takes, its values if an enum, and its
    name on the wire."""

    kind: Kind
    """The kind of value it takes: `string`, `boolean` or `enum`."""
    choices: tuple[str, ...] | None = None
    """The values it takes, for an `enum` filter (`macos`, `windows`, `linux`)."""
    wire_name: str = ""
    """Its query parameter's name (`osFamily`)."""


def _filters(**kinds: Filter) -> Mapping[str, Filter]:
    return MappingProxyType(
        {name: Filter(kind.kind, kind.choices, to_camel(name)) for name, kind in kinds.items()}
    )


FILTERS: Final[Mapping[str, Mapping[str, Filter]]] = {
    "endpoints": _filters(
        os_family=Filter(
            "enum", tuple(family.value for family in OsFamily if family is not OsFamily.OTHER)
        ),
        has_agent=Filter("boolean"),
    ),
    "remediation_targets": _filters(),
    "scopes": _filters(),
    "vulnerability_findings": _filters(),
}
"""Every collection's published filters by keyword name."""

TYPED_FILTERS: Final[Mapping[str, type]] = {
    "endpoints": EndpointFilters,
    "remediation_targets": RemediationTargetFilters,
    "scopes": ScopeFilters,
    "vulnerability_findings": VulnerabilityFindingFilters,
}

_KINDS: Mapping[Kind, tuple[type, ...]] = {
    "string": (str,),
    "boolean": (bool, str),
    "enum": (enum.Enum, str),
}
"""The Python types a filter of each kind takes; a string is always sent as given."""


LIST_KEYWORDS = (
    "page_size",
    "max_items",
    "resume_token",
    "prefetch",
    "concurrency",
    "options",
    "extra_params",
)
"""`list()`'s own keywords, suggested when a misspelt filter is closest to one of them."""


def check_filters(
    collection: str, filters: Mapping[str, object], keywords: Iterable[str] = ()
) -> None:
    """Refuse a keyword that is not one of the collection's filters, or a value it cannot take.

    `keywords` are the call's own keyword names (page_size, ...), suggested too when closest.
    """
    known = FILTERS[collection]
    for name, value in filters.items():
        spec = known.get(name)
        if spec is None:
            raise TypeError(_unknown(collection, name, [*known, *keywords]))
        if value is not None:
            _check_value(collection, name, spec, value)


def _unknown(collection: str, name: str, candidates: list[str]) -> str:
    import difflib  # noqa: PLC0415 - only a mistake pays for it

    close = difflib.get_close_matches(name, candidates, n=3, cutoff=0.6)
    hint = f" (did you mean {' or '.join(repr(found) for found in close)}?)" if close else ""
    published = FILTERS[collection]
    filters = (
        f"its published filters are {', '.join(published)}"
        if published
        else "the service publishes no filters for it"
    )
    return (
        f"{collection}.list() got an unknown filter {name!r}{hint}; {filters} (the service "
        f"ignores a parameter it does not know, so this would list everything); pass a "
        f"filter the service has but does not publish with extra_params={{...}}"
    )


def _check_value(collection: str, name: str, spec: Filter, value: object) -> None:
    if not isinstance(value, _KINDS[spec.kind]):
        several = isinstance(value, Iterable) and not isinstance(value, str | bytes)
        taken = "one value (the service reads one)" if several else f"a {spec.kind} value"
        raise TypeError(
            f"{collection}.list() filter {name!r} takes {taken}, got "
            f"{type(value).__name__} {value!r}"
        )
    if spec.choices is not None:
        raw = value.value if isinstance(value, enum.Enum) else value
        if raw not in spec.choices:
            raise ValueError(
                f"{collection}.list() filter {name!r} has no value {raw!r}; the published "
                f"values are {', '.join(spec.choices)}"
            )
    if spec.kind == "boolean" and isinstance(value, str) and value not in ("true", "false"):
        raise ValueError(
            f"{collection}.list() filter {name!r} takes True or False (or 'true', 'false'), "
            f"got {value!r}"
        )
