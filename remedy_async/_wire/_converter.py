"""The cattrs converter that reads and writes the models, built on first use (see `_codec`).

Structure functions are generated once per model by cattrs (wire keys in the service's naming
read into snake_case attributes); a thin wrapper around each keeps the keys the model does not
know in `extra`, and notes the optional fields a record came without (`_absent`), which its
unstructure function leaves out, so a record is written back as it came, explicit nulls
included.
Scalars are checked strictly (a string field never silently becomes "{'a': 1}"), enum fields
keep unknown values as the raw string, and timestamps become aware datetimes (naive ones are
read as UTC, the contract's zone). Importing this module imports cattrs, which `import
remedy_async` does not pay for: `_codec.converter_for` imports it when a converter is first
needed (`to_wire`, or a record the fast path hands over).
"""

from __future__ import annotations

import enum
import math
import typing
from collections.abc import Callable
from datetime import datetime
from typing import Any, TypeVar

import cattrs
from cattrs.errors import IterableValidationError, IterableValidationNote
from cattrs.gen import make_dict_structure_fn, make_dict_unstructure_fn, override

from ._absent import absent_flags, optional_fields, remember_absent
from ._naming import CONTRACT_NAMING, Naming, telling_fields, wire_names
from ._types import (
    format_timestamp,
    json_type_name,
    open_enum_of,
    read_timestamp,
    union_members,
)

T = TypeVar("T")


def _expected(kind: str, value: object) -> TypeError:
    return TypeError(f"expected {kind}, got {json_type_name(value)}")


def _structure_str(value: object, _: object) -> str:
    if isinstance(value, str):
        return value
    raise _expected("a string", value)


EXACT_FLOAT_INTEGERS = 2**53
"""Whole numbers up to this size are exact as floats; past it a float has lost digits."""


def _structure_int(value: object, _: object) -> int:
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, float):
        # JSON parsers hand over `3.0`, and integers past 64 bits, as floats: only a whole
        # number small enough to be exact is an integer; anything else would be rounded.
        if value.is_integer() and abs(value) <= EXACT_FLOAT_INTEGERS:
            return int(value)
        if value.is_integer():
            raise ValueError("expected an integer, got a number too large to be exact")
        raise ValueError(f"expected an integer, got a number with a fraction ({value!r})")
    raise _expected("an integer", value)


def _structure_float(value: object, _: object) -> float:
    if isinstance(value, float):
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return exact_float(value)
    raise _expected("a number", value)


def exact_float(value: int) -> float:
    """An integer as the float of the same value; ValueError for one no float holds exactly
    (past 2**53 most are rounded), which would be read as another number."""
    try:
        number = float(value)
    except OverflowError:
        number = math.inf
    if number != value:
        raise ValueError("expected a number a float holds exactly, got an integer too large")
    return number


def _structure_bool(value: object, _: object) -> bool:
    if isinstance(value, bool):
        return value
    raise _expected("a boolean", value)


def _structure_datetime(value: object, _: object) -> datetime:
    if not isinstance(value, str):
        raise _expected("an ISO 8601 timestamp string", value)
    try:
        return read_timestamp(value)
    except ValueError:
        raise ValueError(f"not an ISO 8601 timestamp: {value[:40]!r}") from None


def _structure_id(value: object, _: object) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    raise _expected("a string id", value)


def _open_enum_hook(type_: Any) -> Callable[[object, object], object]:
    enum_type = open_enum_of(type_)
    assert enum_type is not None
    members = enum_type._value2member_map_
    optional = type(None) in union_members(type_)

    def structure(value: object, _: object) -> object:
        if value is None and optional:
            return None
        if isinstance(value, str):
            return members.get(value, value)
        raise _expected("a string", value)

    return structure


def _unstructure_open_enum(value: object) -> object:
    return value.value if isinstance(value, enum.Enum) else value


def _is_homogeneous_tuple(type_: Any) -> bool:
    args = typing.get_args(type_)
    return typing.get_origin(type_) is tuple and len(args) == 2 and args[1] is Ellipsis


def _tuple_hook(
    type_: Any, converter: cattrs.Converter
) -> Callable[[object, object], tuple[Any, ...]]:
    element_type = typing.get_args(type_)[0]
    if element_type is Any:
        return lambda value, _: tuple(_require_list(value))
    element_hook = converter.get_structure_hook(element_type)

    def structure(value: object, _: object) -> tuple[Any, ...]:
        items = _require_list(value)
        out = []
        errors: list[Exception] = []
        for index, item in enumerate(items):
            try:
                out.append(element_hook(item, element_type))
            except Exception as exc:
                exc.__notes__ = [
                    *getattr(exc, "__notes__", []),
                    IterableValidationNote(f"Structuring @ index {index}", index, element_type),
                ]
                errors.append(exc)
        if errors:
            raise IterableValidationError(f"While structuring {type_!r}", errors, type_)
        return tuple(out)

    return structure


def _require_list(value: object) -> list[Any]:
    if isinstance(value, list):
        return value
    raise _expected("an array", value)


def _renames(model: type[Any], naming: Naming) -> dict[str, Any]:
    return {
        name: override(rename=wire)
        for name, wire in wire_names(model, naming).items()
        if name != wire
    }


def _model_structure_hook(
    model: type[T], converter: cattrs.Converter, naming: Naming
) -> Callable[[object, object], T]:
    overrides = _renames(model, naming)
    names = wire_names(model, naming)
    if "id" in names:
        overrides["id"] = override(rename=names["id"], struct_hook=_structure_id)
    generated = make_dict_structure_fn(
        model, converter, _cattrs_forbid_extra_keys=False, extra=override(omit=True), **overrides
    )
    known = frozenset(names.values())
    others = telling_fields(model, naming)
    optional = optional_fields(model, naming)

    def structure(data: object, _: object) -> T:
        if not isinstance(data, dict):
            raise _expected("an object", data)
        if others and names["id"] in data and data.keys().isdisjoint(others) and len(data) > 1:
            raise ValueError(no_fields_reason(model, data))
        record = generated(data, model)
        extra = {key: value for key, value in data.items() if key not in known}
        if extra:
            # The instance was built a line above and is not shared yet; attrs' own frozen
            # __init__ assigns slots the same way.
            object.__setattr__(record, "extra", extra)
        if optional:
            absent = tuple([wire not in data for wire, _ in optional])
            remember_absent(record, absent if True in absent else ())
        return record

    return structure


def no_fields_reason(model: type[Any], data: dict[str, Any]) -> str:
    """Why a record is refused when it has keys but none of the model's fields."""
    seen = ", ".join(sorted(map(str, data))[:12])
    return (
        f"none of {model.__name__}'s fields is present in any naming, only other keys "
        f"({seen}): the service's records are not what this library expects"
    )


def _model_unstructure_hook(
    model: type[Any], converter: cattrs.Converter, naming: Naming
) -> Callable[[Any], dict[str, Any]]:
    """Every field is written, a None one as null, but the optional fields the record was read
    without (`_absent`), so a record read from the wire is written back as it came.

    The generated function leaves out every None optional field (cheaper than writing each
    through its hook); those the record was not read without are put back as null.
    """
    generated = make_dict_unstructure_fn(
        model,
        converter,
        _cattrs_omit_if_default=True,
        extra=override(omit=True),
        **_renames(model, naming),
    )
    fields = len(wire_names(model, naming))
    keys = tuple(key for key, _ in optional_fields(model, naming))
    sent: dict[tuple[bool, ...], tuple[int, tuple[str, ...]]] = {(): (fields, keys)}
    """How many fields a record was read with, and which of its optional keys, by its note."""

    def unstructure(record: Any) -> dict[str, Any]:
        wire = generated(record)
        if len(wire) < fields:  # some optional field is None: null, unless it was not sent
            flags = absent_flags(record)
            read = sent.get(flags)
            if read is None:
                with_them = tuple(key for key, gone in zip(keys, flags, strict=True) if not gone)
                read = sent[flags] = (fields - sum(flags), with_them)
            if len(wire) < read[0]:
                for key in read[1]:
                    if key not in wire:
                        wire[key] = None
        if record.extra:
            return {**record.extra, **wire}
        return wire

    return unstructure


def configure_converter(
    converter: cattrs.Converter,
    naming: Naming = CONTRACT_NAMING,
    *,
    is_model: Callable[[Any], bool],
) -> None:
    """Install the wire rules (strict scalars, open enums, timestamps, models) on a converter;
    `is_model` tells a model's type (`_codec` says which: the subclasses of its `Model`)."""
    converter.register_structure_hook(str, _structure_str)
    converter.register_structure_hook(int, _structure_int)
    converter.register_structure_hook(float, _structure_float)
    converter.register_structure_hook(bool, _structure_bool)
    converter.register_structure_hook(datetime, _structure_datetime)
    converter.register_unstructure_hook(datetime, format_timestamp)
    converter.register_structure_hook_factory(
        lambda t: open_enum_of(t) is not None, _open_enum_hook
    )
    converter.register_structure_hook_factory(
        _is_homogeneous_tuple, lambda t: _tuple_hook(t, converter)
    )
    converter.register_unstructure_hook_factory(
        _is_homogeneous_tuple, lambda _: lambda value: [converter.unstructure(v) for v in value]
    )
    converter.register_unstructure_hook_factory(
        lambda t: open_enum_of(t) is not None, lambda _: _unstructure_open_enum
    )
    # Factories, not eager hooks: a model's function is generated on first use, after the hooks
    # of the models nested in it exist; cattrs caches it, so it is generated once.
    converter.register_structure_hook_factory(
        is_model, lambda t: _model_structure_hook(t, converter, naming)
    )
    converter.register_unstructure_hook_factory(
        is_model, lambda t: _model_unstructure_hook(t, converter, naming)
    )


def make_converter(
    naming: Naming = CONTRACT_NAMING, *, is_model: Callable[[Any], bool]
) -> cattrs.Converter:
    """Build a converter that reads and writes the service's JSON records in a naming (the
    models are the types `is_model` accepts)."""
    converter = cattrs.Converter(detailed_validation=True, forbid_extra_keys=False)
    configure_converter(converter, naming, is_model=is_model)
    return converter
