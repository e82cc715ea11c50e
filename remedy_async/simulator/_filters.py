"""Parses list filters from a query and finds the matching record indices.

A filter is equality on one top-level scalar field, by its wire name; repeated parameters are
alternatives (OR) and different fields must all match (AND). Values are read as strictly as the
contract writes them: integers as `-?[0-9]+`, numbers as JSON numbers, timestamps as RFC 3339
date-times, booleans as `true`/`false`. Fields backed by a one-byte column
are matched at C speed (bytes.translate + itertools.compress); the rest are computed per record.
"""

from __future__ import annotations

import hashlib
import math
import re
from array import array
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import datetime
from itertools import compress
from typing import Final, Literal

import attrs

from remedy_async import CONVENTIONS

from ._prng import iso

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
    """A query parameter is not a known filter (`unknown_filter`) or has a bad value.

    `parameter` names the query parameter, once known.
    """

    def __init__(self, code: str, message: str, parameter: str | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.parameter = parameter


@attrs.frozen
class FilterField:
    """A filterable field: how to read it from record i, and where a fast path exists.

    `column` names a one-byte-per-record column whose code `c` means the value `decode[c]`;
    `parent` names the resource whose id this field holds, when records are grouped by it.
    """

    name: str
    type: FieldType
    value: Callable[[int], Scalar] = attrs.field(repr=False)
    nullable: bool = False
    column: str | None = None
    decode: tuple[Scalar, ...] = attrs.field(default=(), repr=False)
    parent: str | None = None


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
            raise FilterError("invalid_filter", f"filter {field.name!r} must be true or false")
        return raw == "true"
    if field.type == "integer":
        if not _INTEGER.match(raw):
            raise FilterError("invalid_filter", f"filter {field.name!r} must be an integer")
        return int(raw)
    if field.type == "number":
        number = float(raw) if _NUMBER.match(raw) else math.nan
        if not math.isfinite(number):
            raise FilterError("invalid_filter", f"filter {field.name!r} must be a number")
        return number
    if field.type == "timestamp":
        return _canonical_timestamp(field.name, raw)
    return raw


def _canonical_timestamp(name: str, raw: str) -> str:
    try:
        if not _DATE_TIME.match(raw):
            raise ValueError(raw)
        moment = datetime.fromisoformat(raw.upper())
    except ValueError:
        raise FilterError(
            "invalid_filter", f"filter {name!r} must be an RFC 3339 date-time"
        ) from None
    if moment.microsecond:
        return raw  # records are to the second: this matches nothing, as it should
    return iso(moment.timestamp())


def parse_filters(
    resource: str, fields: Mapping[str, FilterField], params: Iterable[tuple[str, str]]
) -> Filters:
    """Collect the filters of a query, ignoring paging parameters; raise FilterError."""
    values: dict[str, set[Scalar]] = {}
    for name, raw in params:
        if name in PAGING_PARAMETERS:
            continue
        field = fields.get(name)
        if field is None:
            known = ", ".join(sorted(fields))
            raise FilterError(
                "unknown_filter",
                f"unknown query parameter {name!r}; filters of {resource} are: {known}",
                name,
            )
        try:
            value = parse_value(field, raw)
        except FilterError as error:
            raise FilterError(error.code, error.message, name) from None
        values.setdefault(name, set()).add(value)
    conditions = tuple(
        (name, tuple(sorted(wanted, key=_sort_key))) for name, wanted in sorted(values.items())
    )
    return Filters(resource, conditions)


def _sort_key(value: Scalar) -> tuple[str, str]:
    return (type(value).__name__, repr(value))


class Matcher:
    """Finds the indices of the records of one resource that pass some filters."""

    def __init__(
        self,
        count: int,
        fields: Mapping[str, FilterField],
        columns: Callable[[str], bytes],
        groups: Callable[[str, Scalar], range | None],
    ) -> None:
        self._count = count
        self._fields = fields
        self._columns = columns
        self._groups = groups

    def __repr__(self) -> str:
        return f"Matcher(count={self._count}, fields={sorted(self._fields)})"

    def match(self, filters: Filters) -> Sequence[int]:
        """The matching indices, ascending."""
        candidates: Sequence[int] | None = None
        masks: list[tuple[bytes, bytes]] = []
        computed: list[tuple[Callable[[int], Scalar], frozenset[Scalar]]] = []
        for name, wanted in filters.conditions:
            field = self._fields[name]
            if field.parent is not None:
                candidates = self._group_candidates(field, wanted)
            elif field.column is not None:
                table = bytes(
                    1 if code < len(field.decode) and field.decode[code] in wanted else 0
                    for code in range(256)
                )
                masks.append((self._columns(field.column), table))
            else:
                computed.append((field.value, frozenset(wanted)))
        if candidates is None and masks:
            candidates = array("I", compress(range(self._count), _and_masks(masks, self._count)))
        elif masks:
            assert candidates is not None
            candidates = [
                index
                for index in candidates
                if all(table[column[index]] for column, table in masks)
            ]
        result: Sequence[int] = range(self._count) if candidates is None else candidates
        if computed:
            result = [index for index in result if all(read(index) in ok for read, ok in computed)]
        return result if isinstance(result, range | array) else array("I", result)

    def _group_candidates(self, field: FilterField, wanted: tuple[Scalar, ...]) -> Sequence[int]:
        runs = sorted(
            (run for run in (self._groups(field.name, value) for value in wanted) if run),
            key=lambda run: run.start,
        )
        indices = array("I")
        for run in runs:
            indices.extend(run)
        return indices


def _and_masks(masks: list[tuple[bytes, bytes]], count: int) -> bytes:
    if len(masks) == 1:
        column, table = masks[0]
        return column.translate(table)
    combined = 0
    for position, (column, table) in enumerate(masks):
        mask = int.from_bytes(column.translate(table), "little")
        combined = mask if position == 0 else combined & mask
    return combined.to_bytes(count, "little")
