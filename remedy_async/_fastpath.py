"""Straight-line structure functions for the models, generated once, for the hot path.

The cattrs converter in `_codec` is the authority on what a valid record is and reports faults
with their JSON path. For each model this module generates a specialised function that applies
the same rules to a well-formed record in one pass, without per-field hook calls or keyword
construction. On anything unusual (a wrong type, a bad timestamp, a non-object) it steps aside
and the cattrs function handles the record, so results and errors are the same either way, only
faster when the data is good. `tests/test_fastpath.py` checks that equivalence.
"""

from __future__ import annotations

import typing
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any, TypeVar

import attrs

from ._codec import cattrs_structure_hook, fault_from, open_enum_of, to_camel

T = TypeVar("T")

Structure = Callable[[object], Any]


class _StepAside(Exception):
    """Raised inside a fast function when the record needs the full cattrs treatment."""


_STEP_ASIDE = _StepAside()
_fromisoformat = datetime.fromisoformat


def _timestamp(value: object) -> datetime:
    parsed = _fromisoformat(value)  # type: ignore[arg-type]
    return parsed if parsed.tzinfo is not None else parsed.replace(tzinfo=UTC)


def _number(value: object) -> float:
    if value.__class__ is int:
        return float(value)
    raise _STEP_ASIDE


def _identifier(value: object) -> str:
    if value.__class__ is int:
        return str(value)
    raise _STEP_ASIDE


def _optional_member(type_: Any) -> Any:
    members = [m for m in typing.get_args(type_) if m is not type(None)]
    return members[0] if len(members) == 1 else type_


class _Generator:
    """Writes the source of one model's fast function and collects the names it needs."""

    def __init__(self, fast_for: Callable[[type[Any]], Structure]) -> None:
        self._fast_for = fast_for
        self.names: dict[str, Any] = {
            "_STEP_ASIDE": _STEP_ASIDE,
            "_timestamp": _timestamp,
            "_number": _number,
            "_identifier": _identifier,
            "_new": object.__new__,
        }
        self.lines: list[str] = []

    def convert(self, var: str, type_: Any, index: int) -> list[str]:
        """Lines turning `var` (not None) into the attribute value, or stepping aside."""
        enum_type = open_enum_of(type_)
        if enum_type is not None:
            self.names[f"_members{index}"] = enum_type._value2member_map_
            return [
                f"if {var}.__class__ is str: {var} = _members{index}.get({var}, {var})",
                "else: raise _STEP_ASIDE",
            ]
        inner = _optional_member(type_)
        if inner is str:
            return [f"if {var}.__class__ is not str: raise _STEP_ASIDE"]
        if inner is bool:
            return [f"if {var}.__class__ is not bool: raise _STEP_ASIDE"]
        if inner is int:
            return [f"if {var}.__class__ is not int: raise _STEP_ASIDE"]
        if inner is float:
            return [f"if {var}.__class__ is not float: {var} = _number({var})"]
        if inner is datetime:
            return [f"{var} = _timestamp({var})"]
        if isinstance(inner, type) and attrs.has(inner):
            self.names[f"_nested{index}"] = self._fast_for(inner)
            return [f"{var} = _nested{index}({var})"]
        if typing.get_origin(inner) is tuple:
            element = typing.get_args(inner)[0]
            lines = [f"if {var}.__class__ is not list: raise _STEP_ASIDE"]
            if element is str:
                lines += [
                    f"for _item in {var}:",
                    "    if _item.__class__ is not str: raise _STEP_ASIDE",
                ]
            return [*lines, f"{var} = tuple({var})"]
        if inner is Any:
            return []
        raise TypeError(f"no fast conversion for {type_!r}")

    def source(self, model: type[Any]) -> str:
        """The source of `fast_<Model>(data)`."""
        hints = typing.get_type_hints(model)
        fields = [f for f in attrs.fields(model) if f.name != "extra"]
        self.names["_model"] = model
        self.names["_known"] = frozenset(to_camel(f.name) for f in fields)
        body = ["if data.__class__ is not dict: raise _STEP_ASIDE", "get = data.get"]
        for index, field in enumerate(fields):
            var, wire = f"v{index}", to_camel(field.name)
            self.names[f"_set{index}"] = model.__dict__[field.name].__set__
            if field.name == "id":
                body += [
                    f"{var} = data[{wire!r}]",
                    f"if {var}.__class__ is not str: {var} = _identifier({var})",
                ]
                continue
            body.append(f"{var} = get({wire!r})")
            conversion = self.convert(var, hints[field.name], index)
            if conversion:
                body.append(f"if {var} is not None:")
                body += [f"    {line}" for line in conversion]
        self.names["_set_extra"] = model.__dict__["extra"].__set__
        body.append("record = _new(_model)")
        body += [f"_set{index}(record, v{index})" for index in range(len(fields))]
        body += [
            "if data.keys() <= _known: _set_extra(record, {})",
            "else: _set_extra(record, {k: v for k, v in data.items() if k not in _known})",
            "return record",
        ]
        lines = [f"def fast_{model.__name__}(data):", *(f"    {line}" for line in body)]
        return "\n".join(lines) + "\n"


def build_fast(model: type[Any], fast_for: Callable[[type[Any]], Structure]) -> Structure:
    """Compile the fast function of a model (nested models through `fast_for`)."""
    generator = _Generator(fast_for)
    source = generator.source(model)
    namespace = dict(generator.names)
    exec(compile(source, f"<remedy_async fast structure {model.__name__}>", "exec"), namespace)
    function: Structure = namespace[f"fast_{model.__name__}"]
    function.__source__ = source  # type: ignore[attr-defined]
    return function


STEP_ASIDE_ERRORS = (_StepAside, KeyError, TypeError, ValueError, AttributeError)
"""What a fast function raises when the record must go the full cattrs way."""


def with_fallback(
    fast: Structure, slow: Callable[[object, object], T], model: type[T]
) -> Callable[[object, object], T]:
    """Return a structure function that tries `fast` and hands anything unusual to `slow`."""

    def structure(data: object, _: object = None) -> T:
        try:
            return fast(data)  # type: ignore[no-any-return]
        except STEP_ASIDE_ERRORS:
            return slow(data, model)

    return structure


_FAST: dict[type[Any], Structure] = {}
_HOOKS: dict[type[Any], Callable[[object, object], Any]] = {}


def _fast_for(model: type[Any]) -> Structure:
    fast = _FAST.get(model)
    if fast is None:
        fast = _FAST[model] = build_fast(model, _fast_for)
    return fast


def structure_hook(model: type[T]) -> Callable[[object, object], T]:
    """Return the structure function of a model: fast path, with cattrs for anything unusual.

    Built once per model and cached; look it up once and call it per item.
    """
    hook = _HOOKS.get(model)
    if hook is None:
        hook = _HOOKS[model] = with_fallback(_fast_for(model), _lazy_cattrs(model), model)
    return hook


def _lazy_cattrs(model: type[T]) -> Callable[[object, object], T]:
    """The cattrs function of a model, generated the first time a record needs it."""
    generated: list[Callable[[object, object], T]] = []

    def structure(data: object, _: object) -> T:
        if not generated:
            generated.append(cattrs_structure_hook(model))
        return generated[0](data, model)

    return structure


def from_wire(model: type[T], data: object, *, path: str = "$") -> T:
    """Build a model from decoded wire JSON; a bad value raises WireFault with its JSON path."""
    try:
        return structure_hook(model)(data, model)
    except Exception as exc:
        raise fault_from(exc, path, model) from exc
