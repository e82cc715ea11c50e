"""The API's four resources as published: their records' models, where each lives under /v1
(`Resource`, `RESOURCES`), and the server-side filters each list accepts.

The records the service returns are frozen attrs classes named and typed as it publishes them.

The service's reference (Furl's public API, generated from its OpenAPI document) publishes the
`Endpoint` and `Scope` schemas; their fields are typed here exactly as spelt there. It does not
publish the fields of remediation targets and vulnerability findings: their models type only
what the published pattern gives every record (`id`, `created_at`, `updated_at`) and keep the
rest, as sent, in `extra`. Nothing is typed that the reference does not name.

- A field the reference marks required is a required attribute; one it marks nullable is typed
  `X | None` (required and nullable are independent: a required nullable field is always sent,
  maybe as null). A record missing a required field is a DecodeError naming it.
- Enum-valued fields hold the enum member for a published value and the raw string for any
  other, so a value the service adds never breaks a client.
- Keys the model does not know are kept in `extra` and written back unchanged by `to_wire`.
- Every model's repr shows its `extra` (bounded: `EXTRA_REPR_LIMIT`; a value under a key named
  like a credential shown as `'***'`), and every model has `to_dict()` and `to_json()`, which
  are `to_wire` (`_wire._codec.Model`).
- A model with optional fields notes, privately, which of them a record was read without
  (`_read_without`, no field: see `_wire._absent`), so `to_wire` writes an explicit null back as
  null and leaves out what was not sent.
- Attribute names are the wire names (the service spells its keys in snake_case).

The filters are part of each resource's contract, so a misspelt one fails before any request.
The reference publishes two list filters, both of `GET /v1/endpoints`: `osFamily` (`macos`,
`windows` or `linux`) and `hasAgent` (a boolean), and none for the other three lists. Its
service ignores a query parameter it does not declare, so a misspelt filter would silently list
everything: every keyword is checked, before any request, against the published filters (a
`TypedDict` per resource, which type checkers and IDEs use to check and complete `list(...)`
keywords, and the same filters as data, which `check_filters` uses at run time). A keyword that
is no filter raises TypeError naming the closest ones, as does a value of the wrong type or
several values (each published filter takes one); a value the reference does not list raises
ValueError. A string is taken for any kind and sent as given (the command line's filters are
strings). Filters the service has and the reference lacks go through `extra_params=`, unchecked.

Annotations are evaluated as the classes are made (no `from __future__ import annotations`), so
attrs holds real types from the start and nothing needs resolving at import.
"""

import enum
import math
from collections.abc import Iterable, Iterator, Mapping
from datetime import datetime
from enum import StrEnum
from types import MappingProxyType
from typing import Any, Final, Generic, Literal, TypedDict, TypeVar

import attrs
from attrs import field, frozen

from ._redact import credential_key
from ._wire._codec import Model
from ._wire._naming import to_camel, wire_names
from ._wire._types import model_in

JSONValue = Any
"""Any value `json.loads` can return; used where the service's shape is not ours to fix."""


def _extra() -> Any:
    return field(factory=dict, hash=False, repr=shown_extra, kw_only=True)


EXTRA_REPR_LIMIT = 1000
"""The most characters a record's repr shows of its `extra`: the keys that fit, in the order
the service sent them, then how many more there are."""
VALUE_REPR_LIMIT = 200
"""The most characters a repr shows of one value in `extra` (a longer one ends with `…`)."""
HIDDEN = "'***'"
"""What a repr shows for a value under a key named like a credential (`credential_key`)."""


def shown_extra(extra: Mapping[str, JSONValue]) -> str:
    """Return `extra` as a record's repr shows it: keys as received, each value at most
    `VALUE_REPR_LIMIT` characters and one under a key named like a credential (`password`,
    `token`, `secret`, `api_key`, ..., at any depth) as `'***'`; at most `EXTRA_REPR_LIMIT`
    characters in all, the keys left out counted (`…12 more keys`)."""
    shown: list[str] = []
    used = 2
    for index, (key, value) in enumerate(extra.items()):
        entry = f"{_key(key)}: {_bounded(key, value)}"
        if used + len(entry) > EXTRA_REPR_LIMIT:
            left = len(extra) - index
            shown.append(f"…{left} more key{'s' if left > 1 else ''}")
            break
        shown.append(entry)
        used += len(entry) + 2
    return "{" + ", ".join(shown) + "}"


def _key(key: object) -> str:
    return repr(key[:VALUE_REPR_LIMIT] if isinstance(key, str) else key)


def _bounded(key: object, value: object) -> str:
    """One value of `extra` as its repr shows it, at most `VALUE_REPR_LIMIT` characters."""
    if credential_key(key):
        return HIDDEN
    text = "".join(_pieces(value, VALUE_REPR_LIMIT + 1))
    return text if len(text) <= VALUE_REPR_LIMIT else text[: VALUE_REPR_LIMIT - 1] + "…"


def _pieces(value: object, budget: int) -> Iterator[str]:
    """The repr of a JSON value in pieces, credentials hidden at every depth, stopping once
    `budget` characters were given (so a huge value costs no more than what is shown)."""
    given = 0
    stack: list[Iterator[object]] = [iter((value,))]
    while stack and given < budget:
        item = next(stack[-1], _Text.END)
        if item is _Text.END:
            stack.pop()
            continue
        if isinstance(item, _Text):
            piece = item.text
        elif isinstance(item, Mapping):
            stack.append(_mapping_parts(item))
            continue
        elif isinstance(item, list | tuple):
            stack.append(_sequence_parts(item))
            continue
        elif isinstance(item, str):
            piece = repr(item[:budget])
        elif isinstance(item, int) and not isinstance(item, bool) and item.bit_length() > 664:
            digits = math.floor(item.bit_length() * math.log10(2)) + 1
            piece = f"<int of about {digits} digits>"
        else:
            piece = repr(item)
        given += len(piece)
        yield piece


def _mapping_parts(mapping: Mapping[object, object]) -> Iterator[object]:
    yield _Text("{")
    for index, (key, inner) in enumerate(mapping.items()):
        yield _Text(f"{', ' if index else ''}{_key(key)}: ")
        yield _Text(HIDDEN) if credential_key(key) else inner
    yield _Text("}")


def _sequence_parts(items: list[object] | tuple[object, ...]) -> Iterator[object]:
    yield _Text("[")
    for index, inner in enumerate(items):
        if index:
            yield _Text(", ")
        yield inner
    yield _Text("]")


class _Text:
    """A piece of a repr itself, not a value to show."""

    __slots__ = ("text",)
    END: "_Text"

    def __init__(self, text: str) -> None:
        self.text = text


_Text.END = _Text("")


class OsFamily(StrEnum):
    """The operating-system family of an endpoint (published: `OperatingSystem.family`).

    The `osFamily` list filter takes `macos`, `windows` and `linux`, not `other`.
    """

    MACOS = "macos"
    WINDOWS = "windows"
    LINUX = "linux"
    OTHER = "other"


class ScopeStatus(StrEnum):
    """Where a remediation scope stands (published: `active` → `paused` → `archived`)."""

    ACTIVE = "active"
    PAUSED = "paused"
    ARCHIVED = "archived"


class SubjectType(StrEnum):
    """A kind of remediation subject a scope covers (published: `SubjectFilter.subject_types`)."""

    SOFTWARE = "software"
    SERVICE = "service"
    CONFIGURATION = "configuration"


class FindingType(StrEnum):
    """A kind of finding that triggers remediation (published: `FindingFilter.finding_types`)."""

    VULNERABILITY = "vulnerability"
    DEPRECATION = "deprecation"
    COMPLIANCE = "compliance"
    LICENSING = "licensing"
    STANDARDIZATION = "standardization"


class Severity(StrEnum):
    """How serious a finding is (published: `FindingFilter.min_severity`), most serious first."""

    CRITICAL = "critical"
    HIGH = "high"
    MEDIUM = "medium"
    LOW = "low"
    INFO = "info"


@frozen(kw_only=True)
class OperatingSystem(Model):
    """The operating system an endpoint runs (published: `OperatingSystem`)."""

    name: str
    """Its name, such as `macOS` or `Windows 11` (required)."""
    family: OsFamily | str
    """`macos`, `windows`, `linux` or `other`: an OsFamily (another value is kept as its
    text). Required."""
    version: str | None = None
    """Its version, such as `14.4.1` (optional, nullable)."""
    vendor: str | None = None
    """Its vendor, such as `Apple` (optional, nullable)."""
    architecture: str | None = None
    """Its processor architecture, such as `x86_64` or `arm64` (optional, nullable)."""
    extra: Mapping[str, JSONValue] = _extra()
    """Fields the reference does not publish, by wire name, as sent; `to_wire` writes them
    back."""


@frozen(kw_only=True)
class Endpoint(Model):
    """A device or system managed by the service (published: `Endpoint`, every field typed).

    Every field is required by the reference; `ip`, `mac_address`, `agent_id` and
    `agent_version` are nullable (None when the service does not know them).
    """

    id: str
    """The endpoint's id: a UUID by the reference, kept as the service's opaque text."""
    hostname: str
    """The device's host name."""
    ip: str | None
    """Its IP address, or None."""
    mac_address: str | None
    """Its MAC address, or None."""
    operating_system: OperatingSystem
    """The operating system it runs."""
    agent_id: str | None
    """The id (a UUID) of the service's agent installed on it; None without an agent."""
    agent_version: str | None
    """The version of that agent; None without one."""
    created_at: datetime
    """When the endpoint was first discovered."""
    updated_at: datetime
    """When it was last updated."""
    extra: Mapping[str, JSONValue] = _extra()
    """Fields the reference does not publish, by wire name, as sent; `to_wire` writes them
    back."""


@frozen(kw_only=True)
class SubjectFilter(Model):
    """What remediation subjects a scope covers (published: `SubjectFilter`).

    Every field is optional; an absent or empty one matches every subject on that dimension.
    """

    subject_types: tuple[SubjectType | str, ...] | None = None
    """Kinds of subject: SubjectType values (another value is kept as its text)."""
    vendors: tuple[str, ...] | None = None
    """Vendors, such as `Google`."""
    products: tuple[str, ...] | None = None
    """Products, such as `Chrome`."""
    cpe_patterns: tuple[str, ...] | None = None
    """CPE patterns the subject matches."""
    extra: Mapping[str, JSONValue] = _extra()
    """Fields the reference does not publish, by wire name, as sent; `to_wire` writes them
    back."""


@frozen(kw_only=True)
class EndpointFilter(Model):
    """Which endpoints a scope covers (published: `EndpointFilter`).

    Every field is optional; an absent or empty one matches every endpoint on that dimension.
    """

    os_families: tuple[OsFamily | str, ...] | None = None
    """Operating-system families: OsFamily values (another value is kept as its text)."""
    endpoint_ids: tuple[str, ...] | None = None
    """Endpoints, by id."""
    has_agent: bool | None = None
    """Only endpoints with (True) or without (False) an enrolled agent."""
    tags: tuple[str, ...] | None = None
    """Endpoint tags."""
    extra: Mapping[str, JSONValue] = _extra()
    """Fields the reference does not publish, by wire name, as sent; `to_wire` writes them
    back."""


@frozen(kw_only=True)
class FindingFilter(Model):
    """Which findings trigger a scope's remediation (published: `FindingFilter`, whose page
    may list more fields than could be read: those stay in `extra`).

    Every field is optional; an absent or empty one matches every finding on that dimension.
    """

    finding_types: tuple[FindingType | str, ...] | None = None
    """Kinds of finding: FindingType values (another value is kept as its text)."""
    min_severity: Severity | str | None = None
    """The least severity that triggers: a Severity (another value is kept as its text)."""
    min_cvss_score: float | None = None
    """The least CVSS score that triggers, at most 10."""
    kev_only: bool | None = None
    """Only findings in the known exploited vulnerabilities catalogue."""
    extra: Mapping[str, JSONValue] = _extra()
    """Fields the reference does not publish, by wire name, as sent; `to_wire` writes them
    back."""


@frozen(kw_only=True)
class Scope(Model):
    """A remediation scope: what gets remediated, on which endpoints, and under what conditions
    (published: `Scope`; its reference page is cut after `finding_filter`, so any later field
    is kept in `extra`).

    Every field is required by the reference; `description` is nullable.
    """

    id: str
    """The scope's id: a UUID by the reference, kept as the service's opaque text."""
    name: str
    """The scope's name."""
    description: str | None
    """What it is for, or None."""
    status: ScopeStatus | str
    """`active`, `paused` or `archived`: a ScopeStatus (another value is kept as its text)."""
    subject_filter: SubjectFilter
    """What remediation subjects are in scope."""
    endpoint_filter: EndpointFilter
    """Which endpoints are in scope."""
    finding_filter: FindingFilter
    """Which findings trigger remediation."""
    extra: Mapping[str, JSONValue] = _extra()
    """Fields the reference does not publish (it is cut after `finding_filter`), by wire name,
    as sent; `to_wire` writes them back."""


@frozen(kw_only=True)
class RemediationTarget(Model):
    """Remediation work on one endpoint: one concrete installation or setting to fix.

    Its schema is unpublished. Typed here is only what the published pattern gives every
    record (`id`, and the `created_at`/`updated_at` pair, optional here since unpublished);
    every other field the service sends is kept, as sent, in `extra`.
    """

    id: str
    """The target's id (a UUID by the published pattern), kept as the service's opaque text."""
    created_at: datetime | None = None
    """When it was created (assumed from the published pattern; None when not sent)."""
    updated_at: datetime | None = None
    """When it last changed (assumed from the published pattern; None when not sent)."""
    extra: Mapping[str, JSONValue] = _extra()
    """Every field but those above, by wire name, as sent; `to_wire` writes them back."""


@frozen(kw_only=True)
class VulnerabilityFinding(Model):
    """A scanner's signal that an endpoint is exposed, such as a CVE on a device.

    Its schema is unpublished. Typed here is only what the published pattern gives every
    record (`id`, and the `created_at`/`updated_at` pair, optional here since unpublished);
    every other field the service sends (severity, CVE, ...) is kept, as sent, in `extra`.
    """

    id: str
    """The finding's id (a UUID by the published pattern), kept as the service's opaque text."""
    created_at: datetime | None = None
    """When it was created (assumed from the published pattern; None when not sent)."""
    updated_at: datetime | None = None
    """When it last changed (assumed from the published pattern; None when not sent)."""
    extra: Mapping[str, JSONValue] = _extra()
    """Every field but those above, by wire name, as sent; `to_wire` writes them back."""


@frozen(kw_only=True)
class HealthStatus(Model):
    """The service's answer to a health check; `ok` is true when it reports status "ok".

    The health check is unpublished: its path is configurable and its body assumed.
    """

    status: str | None = None
    """What the service says of itself: `ok` when healthy."""
    extra: Mapping[str, JSONValue] = _extra()
    """The answer's other fields (`version`, `time`, ...), by wire name, as sent."""

    @property
    def ok(self) -> bool:
        """Whether the service reports itself healthy."""
        return self.status == "ok"


RECORD_TYPES: tuple[type[Any], ...] = (Endpoint, RemediationTarget, Scope, VulnerabilityFinding)
"""The top-level records, each with a required `id`."""

MODEL_TYPES: tuple[type[Any], ...] = (
    *RECORD_TYPES,
    HealthStatus,
    OperatingSystem,
    SubjectFilter,
    EndpointFilter,
    FindingFilter,
)
"""Every model: the records, the health answer and the values nested in records."""

# The filters each list accepts ---------------------------------------------------------------


class EndpointFilters(TypedDict, total=False):
    """Server-side filters of `client.endpoints.list(...)`, `changes(...)` and `watch(...)`, as
    published; None leaves one out."""

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
    "on_shift",
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


# The resources ---------------------------------------------------------------------------------

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
