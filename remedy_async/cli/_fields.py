"""Dotted paths into wire records (`operating_system.family`), as `--fields` and `--where` name
them: the published fields, and the fields a model keeps in `extra`.

A path is read level by level against the resource's model. A published field (`hostname`,
`operating_system.family`) is checked before any request. A name the model does not type is a
field the service sends beside the published ones, kept in the model's `extra`: every field of
remediation targets and findings but `id`, `created_at` and `updated_at` (`severity`,
`cve_id`), since their schemas are unpublished. Such a name cannot be checked before any
request, so:

- a name within a letter or two of a published field (`hostnme`) is refused at once as a
  typo, naming the field;
- any other one is checked against the records: the first page that holds records must have
  it in at least one of them (the key present, its value maybe null), or the command stops
  with a usage error (exit 2) naming the keys those records have, before anything is written;
- marked `extra.NAME` (`extra.severity`, `operating_system.extra.kernel`), it is never
  checked: for a field only some records carry, which a first page may lack.

`extra.NAME` and `NAME` are the same key of the record; the mark only skips the checks.
"""

from __future__ import annotations

import difflib
import enum
import typing
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Final

import attrs

from remedy_async import Resource

from ._errors import UsageError
from ._formats import WireRecord, value_at, wire_keys

__all__ = [
    "EXTRA",
    "Fields",
    "SeenCheck",
    "check_path",
    "flat",
    "nested",
    "parse_fields",
    "published_enum",
    "select",
    "value_at",
    "wire_keys",
]

Fields = tuple[str, ...]
"""Dotted paths into a wire record (`operating_system.family`), in the order the user gave."""

EXTRA: Final = "extra"
"""The mark of a field not to be checked: `extra.risk_score`, `operating_system.extra.kernel`."""

TYPO_CUTOFF: Final = 0.8
"""How alike an unknown name and a published field must be for the name to be refused as a
typo of it (difflib's ratio: `hostnme` and `hostname` are 0.93, `name` and `hostname` 0.67)."""


def _nested_model(annotation: Any) -> type[Any] | None:
    """The model a field holds (`OperatingSystem` for `OperatingSystem | None`), if any."""
    for candidate in typing.get_args(annotation) or (annotation,):
        if isinstance(candidate, type) and attrs.has(candidate):
            return candidate
    return None


def _fields_of(model: type[Any]) -> dict[str, type[Any] | None]:
    """A model's fields by wire name, each with the model it holds (None for a value)."""
    # Resource.wire_fields spells any model's fields as the contract does, in their order.
    names = Resource(model.__name__, model.__name__, model).wire_fields
    held = [_nested_model(field.type) for field in attrs.fields(model) if field.name != EXTRA]
    return dict(zip(names, held, strict=True))


def check_path(resource: Resource[Any], path: str, given: str) -> bool:
    """Check a dotted path against the resource's model, level by level (see the module doc);
    `given` is what the user typed, for the usage error's message.

    Returns whether the records must show the path (it names a field the model does not
    type, unmarked); False when the model checked it whole or an `extra` mark ends the check.
    """
    model: type[Any] | None = resource.model
    keys = path.split(".")
    for depth, key in enumerate(keys):
        if key == EXTRA:
            if depth == len(keys) - 1:
                raise UsageError(f"{given}: write extra.NAME for a field outside the contract")
            return False
        above = ".".join(keys[:depth])
        owner = f"{resource.segment} records" + (f"' {above}" if above else "")
        if model is None:
            raise UsageError(f"{given}: {owner} is a value, without fields")
        fields = _fields_of(model)
        if key not in fields:
            close = difflib.get_close_matches(key, list(fields), n=2, cutoff=TYPO_CUTOFF)
            if close:
                marked = ".".join([*keys[:depth], EXTRA, *keys[depth:]])
                raise UsageError(
                    f"{given}: {owner} {'has' if above else 'have'} no published field "
                    f"{key!r} (did you mean {' or '.join(map(repr, close))}?); the published "
                    f"fields are {', '.join(fields)}; name a field the service sends beside "
                    f"them as {marked}"
                )
            return True
        model = fields[key]
    return False


def _enum_in(annotation: Any) -> type[enum.Enum] | None:
    """The enum a field's type holds (`OsFamily` for `OsFamily | str`, or for
    `tuple[OsFamily | str, ...]`), if any."""
    if isinstance(annotation, type) and issubclass(annotation, enum.Enum):
        return annotation
    for inner in typing.get_args(annotation):
        found = _enum_in(inner)
        if found is not None:
            return found
    return None


def published_enum(resource: Resource[Any], path: str) -> type[enum.Enum] | None:
    """The published enum of the field a dotted path names (`operating_system.family`:
    `OsFamily`; `status` of scopes: `ScopeStatus`), or of each item of a list field
    (`endpoint_filter.os_families`); None for any other path, one with an `extra` mark, or
    one the model does not type."""
    model: type[Any] | None = resource.model
    keys = path.split(".")
    for depth, key in enumerate(keys):
        if model is None or key == EXTRA:
            return None
        names = Resource(model.__name__, model.__name__, model).wire_fields
        fields = [field for field in attrs.fields(model) if field.name != EXTRA]
        typed = dict(zip(names, fields, strict=True))
        field = typed.get(key)
        if field is None:
            return None
        if depth == len(keys) - 1:
            return _enum_in(field.type)
        model = _nested_model(field.type)
    return None


def parse_fields(text: str, resource: Resource[Any]) -> Fields:
    """Read `--fields`: comma-separated dotted paths into the resource's records (checked, with
    the closest names suggested; see the module doc for fields kept in `extra`)."""
    paths = tuple(dict.fromkeys(part.strip() for part in text.split(",") if part.strip()))
    if not paths:
        raise UsageError(
            "--fields names no field; e.g. --fields id,hostname,operating_system.family"
        )
    for path in paths:
        if not all(path.split(".")):
            raise UsageError(f"--fields {path}: a dotted path has a name between its dots")
        check_path(resource, path, f"--fields {path}")
    return paths


def _has(record: WireRecord, path: str) -> bool:
    """Whether the record holds a value (maybe null) at the path."""
    value: Any = record
    for key in wire_keys(path):
        if not isinstance(value, Mapping) or key not in value:
            return False
        value = value[key]
    return True


def _keys_at(records: Sequence[WireRecord], path: str) -> list[str]:
    """The keys the records hold where the path's last name would be, in first-seen order."""
    above = ".".join(wire_keys(path)[:-1])
    keys: dict[str, None] = {}
    for record in records:
        value = value_at(record, above) if above else record
        if isinstance(value, Mapping):
            keys.update(dict.fromkeys(value))
    return list(keys)


class SeenCheck:
    """Checks, on the first records that arrive, the paths naming fields the model does not
    type (see the module doc): each must be in at least one of them.

    Args:
        resource: The records' resource.
        paths: Each path with what the user typed (`--fields severity`), for the message.
    """

    def __init__(self, resource: Resource[Any], paths: Iterable[tuple[str, str]]) -> None:
        self._segment = resource.segment
        self._pending = [
            (path, given) for path, given in paths if check_path(resource, path, given)
        ]

    def check(self, records: Sequence[WireRecord]) -> None:
        """Check the pending paths against the first batch holding records (then none are
        pending); a path none of them has is a usage error naming the keys they have."""
        if not self._pending or not records:
            return
        pending, self._pending = self._pending, []
        for path, given in pending:
            if any(_has(record, path) for record in records):
                continue
            keys = _keys_at(records, path)
            last = wire_keys(path)[-1]
            close = difflib.get_close_matches(last, keys, n=2)
            hint = f" (did you mean {' or '.join(map(repr, close))}?)" if close else ""
            *above, _ = path.split(".")
            marked = ".".join([*above, EXTRA, last])
            raise UsageError(
                f"{given}: none of the first {len(records):,} {self._segment} records has a "
                f"field {path!r}{hint}; they have {', '.join(keys) or 'no fields there'}; name a "
                f"field only some records carry as {marked} (not checked)"
            )


def nested(record: WireRecord, fields: Fields) -> dict[str, Any]:
    """The record cut to the fields, keeping its shape (`{"operating_system": {"family": ...}}`)."""
    kept: dict[str, Any] = {}
    for path in fields:
        *parents, last = wire_keys(path)
        place = kept
        for key in parents:
            place = place.setdefault(key, {})
        place[last] = value_at(record, path)
    return kept


def flat(record: WireRecord, fields: Fields) -> dict[str, Any]:
    """The record as one value per field, keyed by the dotted path (for CSV and tables)."""
    return {path: value_at(record, path) for path in fields}


def select(records: Sequence[WireRecord], fields: Fields, *, flatten: bool) -> list[WireRecord]:
    """The records cut to the fields: nested, or flattened to one value per dotted path."""
    cut = flat if flatten else nested
    return [cut(record, fields) for record in records]
