"""Which records a list's filters match: the filters each resource takes, parsed from a query
and matched against record indices.

As published, `GET /v1/endpoints` takes `osFamily` (`macos`, `windows`, `linux`) and `hasAgent`
(`true`/`false`); the other lists publish no filters. With `range_filters`, every list also
takes the change feed's `updatedAt[gte]=TIME` (see `_churn`), read from `updated_at`.

A filter is equality on one value of a record, by its query parameter's name (`osFamily` reads
`operating_system.family`); repeated parameters are alternatives (OR) and different filters
must all match (AND). Values are read as strictly as the contract writes them: booleans as
`true`/`false`, enumerations as one of their published values, integers as `-?[0-9]+`, numbers
as JSON numbers, timestamps as RFC 3339 date-times; a bad value is a FilterError (the server's
422). A query parameter that is neither a filter nor a paging parameter is ignored, as the
service (a FastAPI application) ignores parameters it does not declare, or refused with
`strict`. Filters backed by a one-byte column are matched at C speed (bytes.translate +
itertools.compress); the rest are computed per record.
"""

from __future__ import annotations

import hashlib
import math
import re
from array import array
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import datetime
from itertools import compress
from typing import Any, Final, Literal

import attrs

from remedy_async import CONVENTIONS

from ._catalog import OS_FAMILIES
from ._prng import iso
from ._records import FILTERABLE_FAMILIES
from ._world import World

Scalar = str | int | float | bool | None
FieldType = Literal["string", "boolean", "integer", "number", "timestamp"]

PAGING_PARAMETERS: Final = frozenset(
    {"offset", "limit", "page", "pageSize", "cursor"}
    | {name for row in CONVENTIONS.values() for name in (row.param, row.size_param) if name}
)
"""Query parameters that are never filters, whatever the paging convention: every row's."""

_INTEGER: Final = re.compile(r"^-?[0-9]+$")
_NUMBER: Final = re.compile(r"^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$")
_DATE_TIME: Final = re.compile(
    r"^[0-9]{4}-[0-9]{2}-[0-9]{2}[Tt][0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?([Zz]|[+-][0-9]{2}:[0-9]{2})$"
)
"""RFC 3339 `date-time` (section 5.6), the only timestamp spelling a filter takes."""


class FilterError(ValueError):
    """A query parameter is not a known filter (`unknown_filter`, in strict mode) or has a bad
    value (`invalid_filter`).

    `parameter` names the query parameter, once known.
    """

    def __init__(self, code: str, message: str, parameter: str | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.parameter = parameter


@attrs.frozen
class FilterField:
    """A filter: how to read its value from generated record i and from a record as it is
    now (`read`, for changed records), and where a fast path exists.

    `column` names a one-byte-per-record column whose code `c` means the value `decode[c]`;
    `choices` are the only values a string filter takes (another is a FilterError).
    """

    name: str
    type: FieldType
    value: Callable[[int], Scalar] = attrs.field(repr=False)
    nullable: bool = False
    column: str | None = None
    decode: tuple[Scalar, ...] = attrs.field(default=(), repr=False)
    choices: tuple[str, ...] | None = None
    read: Callable[[dict[str, Any]], Scalar] | None = attrs.field(default=None, repr=False)

    def of_record(self, record: dict[str, Any]) -> Scalar:
        """The field's value in a record as it is now."""
        if self.read is not None:
            return self.read(record)
        value = record.get(self.name)
        return value if isinstance(value, str | int | float | bool) else None


@attrs.frozen
class Filters:
    """The parsed filters of one list request, canonical so equal filters compare equal."""

    resource: str
    conditions: tuple[tuple[str, tuple[Scalar, ...]], ...] = ()
    fingerprint: bytes = attrs.field(init=False, eq=False, repr=False)
    """Eight bytes that identify these filters (what a cursor and a cached page are keyed by)."""

    @fingerprint.default
    def _fingerprint(self) -> bytes:
        text = repr((self.resource, self.conditions)).encode()
        return hashlib.blake2b(text, digest_size=8).digest()

    def __bool__(self) -> bool:
        return bool(self.conditions)


def parse_value(field: FilterField, raw: str) -> Scalar:
    """Turn one query value into the typed value records are compared with."""
    if field.nullable and raw == "null":
        return None
    if field.type == "boolean":
        if raw not in ("true", "false"):
            raise FilterError("invalid_filter", f"{field.name} must be true or false.")
        return raw == "true"
    if field.type == "integer":
        if not _INTEGER.match(raw):
            raise FilterError("invalid_filter", f"{field.name} must be an integer.")
        return int(raw)
    if field.type == "number":
        number = float(raw) if _NUMBER.match(raw) else math.nan
        if not math.isfinite(number):
            raise FilterError("invalid_filter", f"{field.name} must be a number.")
        return number
    if field.choices is not None and raw not in field.choices:
        raise FilterError(
            "invalid_filter", f"{field.name} must be one of {', '.join(field.choices)}."
        )
    if field.type == "timestamp":
        return _canonical_timestamp(field.name, raw)
    return raw


def _canonical_timestamp(name: str, raw: str) -> str:
    try:
        if not _DATE_TIME.match(raw):
            raise ValueError(raw)
        moment = datetime.fromisoformat(raw.upper())
    except ValueError:
        raise FilterError("invalid_filter", f"{name} must be an RFC 3339 date-time.") from None
    if moment.microsecond:
        return raw  # records are to the second: this matches nothing, as it should
    return iso(moment.timestamp())


def parse_filters(
    resource: str,
    fields: Mapping[str, FilterField],
    params: Iterable[tuple[str, str]],
    *,
    strict: bool = False,
) -> Filters:
    """Collect the filters of a query, skipping paging parameters and ignoring undeclared ones
    (FilterError for them with `strict`); FilterError for a bad value."""
    values: dict[str, set[Scalar]] = {}
    for name, raw in params:
        if name in PAGING_PARAMETERS:
            continue
        field = fields.get(name)
        if field is None:
            if not strict:
                continue
            raise FilterError("unknown_filter", unknown_parameter(resource, name, fields), name)
        try:
            value = parse_value(field, raw)
        except FilterError as error:
            raise FilterError(error.code, error.message, name) from None
        values.setdefault(name, set()).add(value)
    conditions = tuple(
        (name, tuple(sorted(wanted, key=_sort_key))) for name, wanted in sorted(values.items())
    )
    return Filters(resource, conditions)


def unknown_parameter(resource: str, name: str, fields: Mapping[str, FilterField]) -> str:
    """The message refusing an undeclared query parameter (strict mode)."""
    known = ", ".join(sorted(fields)) or "none"
    return f"Unknown query parameter: {name} (the filters of {resource}: {known})."


def _sort_key(value: Scalar) -> tuple[str, str]:
    return (type(value).__name__, repr(value))


class Matcher:
    """Finds the indices of the records of one resource that pass some filters."""

    def __init__(
        self, count: int, fields: Mapping[str, FilterField], columns: Callable[[str], bytes]
    ) -> None:
        self._count = count
        self._fields = fields
        self._columns = columns

    def __repr__(self) -> str:
        return f"Matcher(count={self._count}, fields={sorted(self._fields)})"

    def match(self, filters: Filters) -> Sequence[int]:
        """The matching indices, ascending."""
        candidates: Sequence[int] | None = None
        masks: list[tuple[bytes, bytes]] = []
        computed: list[tuple[Callable[[int], Scalar], frozenset[Scalar]]] = []
        for name, wanted in filters.conditions:
            field = self._fields[name]
            if field.column is not None:
                table = bytes(
                    1 if code < len(field.decode) and field.decode[code] in wanted else 0
                    for code in range(256)
                )
                masks.append((self._columns(field.column), table))
            else:
                computed.append((field.value, frozenset(wanted)))
        if masks:
            candidates = array("I", compress(range(self._count), _and_masks(masks, self._count)))
        result: Sequence[int] = range(self._count) if candidates is None else candidates
        if computed:
            result = [index for index in result if all(read(index) in ok for read, ok in computed)]
        return result if isinstance(result, range | array) else array("I", result)


def _and_masks(masks: list[tuple[bytes, bytes]], count: int) -> bytes:
    if len(masks) == 1:
        column, table = masks[0]
        return column.translate(table)
    combined = 0
    for position, (column, table) in enumerate(masks):
        mask = int.from_bytes(column.translate(table), "little")
        combined = mask if position == 0 else combined & mask
    return combined.to_bytes(count, "little")


# The filters each resource declares.

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
