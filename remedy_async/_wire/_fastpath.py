"""Straight-line structure functions for the models, generated once, for the hot path.

The cattrs converter in `_codec` is the authority on what a valid record is and reports faults
with their JSON path. For each model this module generates a specialised function that applies
the same rules to a well-formed record in one pass, without per-field hook calls or keyword
construction. On anything unusual (a wrong type, a bad timestamp, a non-object) it steps aside
and the cattrs function handles the record, so results and errors are the same either way, only
faster when the data is good. `tests/wire/test_fastpath.py` checks that equivalence.
"""

from __future__ import annotations

import typing
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any, TypeVar, cast

import attrs

from ._absent import NOTE, optional_fields
from ._codec import cattrs_structure_hook, fault_from
from ._json import msgspec_module
from ._naming import CONTRACT_NAMING, Naming, remembering, telling_fields, wire_names
from ._types import SEVENTH_FRACTION_DIGIT, open_enum_of, read_timestamp, union_members

T = TypeVar("T")

Structure = Callable[[object], Any]


class _StepAside(Exception):
    """Raised inside a fast function when the record needs the full cattrs treatment."""


_STEP_ASIDE = _StepAside()
_ABSENT = object()
"""What a fast function reads for an optional field the record does not have."""


def unknown_view_field(index: int) -> str:
    """The attribute of a typed view holding the `index`th of the keys its records carry beside
    their model's fields (no model field is named so)."""
    return f"unknown_{index}"


class _OpenMembers(dict[str, object]):
    """An enum's value-to-member table that answers an unknown value with the value itself."""

    def __missing__(self, value: str) -> object:
        return value


def _number(value: object) -> float:
    # An integer is a float field's value only when a float holds it exactly (past 2**53 most
    # would be rounded; past about 1.8e308 none fits): anything else steps aside to cattrs,
    # which names the fault.
    if value.__class__ is int:
        try:
            number = float(value)
        except OverflowError:
            raise _STEP_ASIDE from None
        if number == value:
            return number
    raise _STEP_ASIDE


def _identifier(value: object) -> str:
    if value.__class__ is int:
        return str(value)
    raise _STEP_ASIDE


def _optional_member(type_: Any) -> Any:
    members = [m for m in typing.get_args(type_) if m is not type(None)]
    return members[0] if len(members) == 1 else type_


def _timestamp(var: str) -> list[str]:
    """Lines reading the timestamp text in `var` as `read_timestamp` reads it: with
    `fromisoformat` where the two agree (no digit finer than a microsecond), which refuses
    lower-case `t`/`z` (stepping aside to the converter, which reads them)."""
    seventh = SEVENTH_FRACTION_DIGIT
    return [
        f"if len({var}) > {seventh} and {var}[{seventh}].isdigit(): {var} = _read_timestamp({var})",
        f"else: {var} = _fromisoformat({var})",
        *_in_utc(var),
    ]


def _in_utc(var: str) -> list[str]:
    """Lines giving the datetime in `var` UTC when it names no offset (the typed view decoded
    its text, in C, as `read_timestamp` does)."""
    return [f"if {var}.tzinfo is None: {var} = {var}.replace(tzinfo=_UTC)"]


def _builder_of(model: type[Any]) -> type[Any]:
    """A subclass of a frozen model whose attributes can be set with plain assignment.

    Frozen attrs classes override `__setattr__`, so each attribute would otherwise be set through
    a descriptor call (about 35 ns each). A record is built as this subclass, where assignment
    is CPython's own slot store (a few ns), and then becomes the model by `__class__`
    assignment, which CPython allows because the subclass adds no slots. Nothing outside the
    generated function ever sees a builder instance.
    """
    namespace = {
        "__slots__": (),
        "__setattr__": object.__setattr__,
        "__delattr__": object.__delattr__,
        "__module__": __name__,
    }
    return type(f"_{model.__name__}Builder", (model,), namespace)


class _Generator:
    """Writes the source of one model's fast function and collects the names it needs."""

    def __init__(
        self, fast_for: Callable[[type[Any]], Structure], naming: Naming, *, build: bool = True
    ) -> None:
        self._fast_for = fast_for
        self._naming = naming
        self._build = build
        self.names: dict[str, Any] = {
            "_STEP_ASIDE": _STEP_ASIDE,
            "_UTC": UTC,
            "_fromisoformat": datetime.fromisoformat,
            "_read_timestamp": read_timestamp,
            "_number": _number,
            "_identifier": _identifier,
            "_new": object.__new__,
        }

    def convert(self, var: str, type_: Any, index: int) -> list[str]:
        """Lines turning the wire value in `var` into the attribute value; None passes only
        where the type admits it (a required, non-nullable field refuses null).

        A required field's lines refuse null by the type test they make anyway (None is not a
        str; `fromisoformat(None)` and a nested function given None step aside), so the
        common case pays for one test a field."""
        nullable = type(None) in union_members(type_)
        # `... and v is not None` lets null through where the type admits it.
        or_null = f" and {var} is not None" if nullable else ""
        enum_type = open_enum_of(type_)
        if enum_type is not None and not self._build:
            return [f"if {var}.__class__ is not str{or_null}: raise _STEP_ASIDE"]
        if enum_type is not None:
            self.names[f"_members{index}"] = _OpenMembers(enum_type._value2member_map_)
            refuse = f"elif {var} is not None:" if nullable else "else:"
            return [
                f"if {var}.__class__ is str: {var} = _members{index}[{var}]",
                f"{refuse} raise _STEP_ASIDE",
            ]
        inner = _optional_member(type_)
        if inner in (str, bool, int):
            return [f"if {var}.__class__ is not {inner.__name__}{or_null}: raise _STEP_ASIDE"]
        if inner is float:
            return [f"if {var}.__class__ is not float{or_null}: {var} = _number({var})"]
        if inner is datetime:
            parse = _timestamp(var)
            return (
                [f"if {var} is not None:", *(f"    {line}" for line in parse)]
                if nullable
                else parse
            )
        if isinstance(inner, type) and attrs.has(inner):
            self.names[f"_nested{index}"] = self._fast_for(inner)
            if nullable:
                return [f"if {var} is not None: {var} = _nested{index}({var})"]
            return [f"{var} = _nested{index}({var})"]
        refuse_null = [] if nullable else [f"if {var} is None: raise _STEP_ASIDE"]
        if typing.get_origin(inner) is tuple:
            return refuse_null + self._convert_tuple(var, typing.get_args(inner)[0], index)
        if inner is Any:
            return refuse_null
        raise TypeError(f"no fast conversion for {type_!r}")

    def _convert_tuple(self, var: str, element: Any, index: int) -> list[str]:
        lines = [
            f"if {var} is not None:",
            f"    if {var}.__class__ is not list: raise _STEP_ASIDE",
            f"    for _item in {var}:",
            "        if _item.__class__ is not str: raise _STEP_ASIDE",
        ]
        enum_type = open_enum_of(element)
        if element is not str and enum_type is None:
            raise TypeError(f"no fast conversion for tuple[{element!r}, ...]")
        if not self._build:
            return lines
        if enum_type is None:
            return [*lines, f"    {var} = tuple({var})"]
        self.names[f"_members{index}"] = _OpenMembers(enum_type._value2member_map_)
        return [*lines, f"    {var} = tuple([_members{index}[_item] for _item in {var}])"]

    def convert_typed(self, var: str, type_: Any) -> list[str]:
        """Lines turning a typed view's value in `var` into the attribute value: the view's
        decoder checked its JSON type already (`_views`), so only what the wire's text becomes
        is left (an enum member, a timestamp, a nested record, built in line, an exact
        float)."""
        nullable = type(None) in union_members(type_)
        enum_type = open_enum_of(type_)
        inner = _optional_member(type_)
        if inner in (str, bool, int) or inner is Any:
            return []
        if enum_type is not None:
            self.names[f"_members_{var}"] = _OpenMembers(enum_type._value2member_map_)
            lines = [f"{var} = _members_{var}[{var}]"]
        elif inner is float:
            return [f"if {var}.__class__ is int: {var} = _number({var})"]
        elif inner is datetime:
            lines = _in_utc(var)
        elif isinstance(inner, type) and attrs.has(inner):
            lines = self.build_from_view(inner, var, var)
        elif typing.get_origin(inner) is tuple:
            element_enum = open_enum_of(typing.get_args(inner)[0])
            if element_enum is None:
                lines = [f"{var} = tuple({var})"]
            else:
                self.names[f"_members_{var}"] = _OpenMembers(element_enum._value2member_map_)
                lines = [f"{var} = tuple([_members_{var}[_item] for _item in {var}])"]
        else:
            raise TypeError(f"no typed conversion for {type_!r}")
        return [f"if {var} is not None:", *(f"    {line}" for line in lines)] if nullable else lines

    def build_from_view(
        self, model: type[Any], view: str, target: str, unknown: tuple[str, ...] = ()
    ) -> list[str]:
        """Lines building in `target` the record of the typed view in `view` (variables and
        names of a nested record are prefixed by its place, so it is built in line); the view's
        `unknown` keys that the record carries go in its `extra`, in their order."""
        hints = {f.name: f.type for f in attrs.fields(attrs.resolve_types(model))}
        fields = [f for f in attrs.fields(model) if f.name != "extra"]
        prefix = "r" if view == "view" else view
        self.names.update({f"_model_{prefix}": model, f"_builder_{prefix}": _builder_of(model)})
        lines: list[str] = []
        values: list[str] = []
        for field in fields:
            var = f"{prefix}_{field.name}"
            converted = self.convert_typed(var, hints[field.name])
            if converted:
                lines += [f"{var} = {view}.{field.name}", *converted]
                values.append(var)
            else:
                values.append(f"{view}.{field.name}")
        record = f"{prefix}_record"
        lines.append(f"{record} = _new(_builder_{prefix})")
        lines += [f"{record}.{f.name} = {value}" for f, value in zip(fields, values, strict=True)]
        if unknown:
            self.names["_UNSET"] = msgspec_module().UNSET
            lines.append(f"{prefix}_extra = {{}}")
            for index, key in enumerate(unknown):
                lines.append(f"{prefix}_added = {view}.{unknown_view_field(index)}")
                lines.append(
                    f"if {prefix}_added is not _UNSET: {prefix}_extra[{key!r}] = {prefix}_added"
                )
            lines.append(f"{record}.extra = {prefix}_extra")
        else:
            lines.append(f"{record}.extra = {{}}")
        if optional_fields(model, self._naming):
            lines.append(f"{record}.{NOTE} = ()")
        lines += [f"{record}.__class__ = _model_{prefix}", f"{target} = {record}"]
        return lines

    def view_source(self, model: type[Any], *, guarded: bool, unknown: tuple[str, ...] = ()) -> str:
        """The source of `view_<Model>(view)`: the record of a typed view (`_views`), whose
        fields are the model's and the `unknown` keys (`extra` holds those the record carries,
        and is empty without them), with nothing missing (no optional field was read without).
        `guarded`: a view whose text does not
        read (`STEP_ASIDE_ERRORS`) goes to `_fallback` whole, else the error propagates."""
        body = [*self.build_from_view(model, "view", "record", unknown), "return record"]
        if guarded:
            self.names["_STEP_ASIDE_ERRORS"] = STEP_ASIDE_ERRORS
            body = [
                "try:",
                *(f"    {line}" for line in body),
                "except _STEP_ASIDE_ERRORS:",
                "    return _fallback(view)",
            ]
        lines = [f"def view_{model.__name__}(view, _=None):", *(f"    {line}" for line in body)]
        return "\n".join(lines) + "\n"

    def _read_some(self, wire: list[str], optional: list[int], others: frozenset[str]) -> list[str]:
        """Lines reading a record that may lack optional fields (those at `optional`): each
        read with `get`, and what it lacks noted (`absent`) and read as None."""
        lines = ["get = data.get"] + [
            f"v{i} = data[{key!r}]" if i not in optional else f"v{i} = get({key!r}, _ABSENT)"
            for i, key in enumerate(wire)
        ]
        if self._build:
            flags = ", ".join(f"v{i} is _ABSENT" for i in optional)
            lines.append(f"absent = ({flags},)")
        lines += [f"if v{i} is _ABSENT: v{i} = None" for i in optional]
        unknown = "not data.keys() <= _known"
        if self._build:
            lines += ["extra = data.copy()"] + [
                f"extra.pop({key!r}, None)" if i in optional else f"del extra[{key!r}]"
                for i, key in enumerate(wire)
            ]
            unknown = "extra"
        if others:
            # A record with keys but none of the fields that tell the model's records is
            # refused on the cattrs way.
            lines.append(f"if {unknown} and data.keys().isdisjoint(_others): raise _STEP_ASIDE")
        return lines

    def source(self, model: type[Any]) -> str:
        """The source of `fast_<Model>(data)`.

        A record that has all of the model's keys (the common case) is read with plain
        subscripts, and then its length alone says whether it has unknown keys; a record
        missing some is read with `get`. A record is read with `get` at once when it lacks the
        model's last optional field: where a service leaves optional fields out (a finding's
        assumed timestamps), a `KeyError` raised and caught for each record cost about a
        quarter of its reading, and the one test costs a record with every field about 0.03 µs.
        """
        # Field types as attrs resolved them in the model's own module (`__module__` is the
        # public package, whose namespace does not hold every annotation's names).
        hints = {f.name: f.type for f in attrs.fields(attrs.resolve_types(model))}
        fields = [f for f in attrs.fields(model) if f.name != "extra"]
        names = wire_names(model, self._naming)
        wire = [names[f.name] for f in fields]
        others = telling_fields(model, self._naming)
        self.names.update(
            _model=model,
            _builder=_builder_of(model),
            _known=frozenset(wire),
            _others=others,
            _ABSENT=_ABSENT,
        )
        # Each record of a model with optional fields notes which it was read without
        # (`_absent`), so that `to_wire` leaves them out and writes an explicit null back as
        # null: one with every field (the common case) pays for a slot store.
        optional_names = {name for _, name in optional_fields(model, self._naming)}
        optional = [index for index, f in enumerate(fields) if f.name in optional_names]
        read_all = [f"v{i} = data[{key!r}]" for i, key in enumerate(wire)]
        # The unknown keys, kept in `extra`: the record less the fields, copied and cut in C
        # (where a filtering comprehension visits every key in Python).
        whole = [f"if len(data) == {len(fields)}: extra = {{}}"] if self._build else []
        if self._build:
            whole += ["else:", "    extra = data.copy()"]
            whole += [f"    del extra[{key!r}]" for key in wire]
        body = ["if data.__class__ is not dict: raise _STEP_ASIDE"]
        if not optional:  # a required field missing raises KeyError: the record steps aside
            body += [*read_all, *whole]
        else:
            body += [
                f"if len(data) >= {len(fields)} and {wire[optional[-1]]!r} in data:",
                "    try:",
                *(f"        {line}" for line in read_all),
                "    except KeyError:",
                *(f"        {line}" for line in self._read_some(wire, optional, others)),
            ]
            if self._build:
                body += ["    else:", "        absent = ()", *(f"        {line}" for line in whole)]
            body += [
                "else:",
                *(f"    {line}" for line in self._read_some(wire, optional, others)),
            ]
        for index, field in enumerate(fields):
            if field.name == "id":
                body.append(f"if v{index}.__class__ is not str: v{index} = _identifier(v{index})")
            else:
                body += self.convert(f"v{index}", hints[field.name], index)
        if not self._build:
            lines = [f"def check_{model.__name__}(data):", *(f"    {line}" for line in body)]
            return "\n".join([*lines, "    return data"]) + "\n"
        body.append("record = _new(_builder)")
        body += [f"record.{field.name} = v{index}" for index, field in enumerate(fields)]
        body += [
            "record.extra = extra",
            *([f"record.{NOTE} = absent"] if optional else []),
            "record.__class__ = _model",
            "return record",
        ]
        lines = [f"def fast_{model.__name__}(data):", *(f"    {line}" for line in body)]
        return "\n".join(lines) + "\n"


def build_fast(
    model: type[Any],
    fast_for: Callable[[type[Any]], Structure],
    naming: Naming = CONTRACT_NAMING,
    *,
    build: bool = True,
) -> Structure:
    """Compile the fast function of a model (nested models through `fast_for`); with
    `build=False`, a function that checks a record the same way and returns it unchanged."""
    generator = _Generator(fast_for, naming, build=build)
    source = generator.source(model)
    namespace = dict(generator.names)
    kind = "structure" if build else "check"
    exec(compile(source, f"<remedy_async fast {kind} {model.__name__}>", "exec"), namespace)
    prefix = "fast" if build else "check"
    function: Structure = namespace[f"{prefix}_{model.__name__}"]
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


_FAST: dict[tuple[type[Any], Naming], Structure] = {}
_HOOKS: dict[tuple[type[Any], Naming], Callable[[object, object], Any]] = {}


def _fast_for(model: type[Any], naming: Naming = CONTRACT_NAMING) -> Structure:
    fast = _FAST.get((model, naming))
    if fast is None:
        fast = _FAST[model, naming] = build_fast(
            model, lambda nested: _fast_for(nested, naming), naming
        )
    return fast


def structure_hook(
    model: type[T], naming: Naming = CONTRACT_NAMING
) -> Callable[[object, object], T]:
    """Return the structure function of a model: fast path, with cattrs for anything unusual.

    Built once per model and naming and cached; look it up once and call it per item.
    """
    hook = _HOOKS.get((model, naming))
    if hook is None:
        slow = _lazy_cattrs(model, naming)
        hook = with_fallback(_fast_for(model, naming), slow, model)
        if naming != CONTRACT_NAMING:
            hook = remembering(hook, naming, model)
        _HOOKS[model, naming] = hook
    return hook


def _lazy_cattrs(model: type[T], naming: Naming) -> Callable[[object, object], T]:
    """The cattrs function of a model, generated the first time a record needs it."""
    generated: list[Callable[[object, object], T]] = []

    def structure(data: object, _: object) -> T:
        if not generated:
            generated.append(cattrs_structure_hook(model, naming))
        return generated[0](data, model)

    return structure


def _compile_view(
    model: type[Any], naming: Naming, fallback: Structure | None, unknown: tuple[str, ...] = ()
) -> Structure:
    generator = _Generator(lambda nested: _fast_for(nested, naming), naming)
    source = generator.view_source(model, guarded=fallback is not None, unknown=unknown)
    namespace = dict(generator.names, _fallback=fallback)
    exec(compile(source, f"<remedy_async view {model.__name__}>", "exec"), namespace)
    convert: Structure = namespace[f"view_{model.__name__}"]
    convert.__source__ = source  # type: ignore[attr-defined]
    return convert


def view_hook(
    model: type[T],
    fallback: Callable[[object], T],
    naming: Naming = CONTRACT_NAMING,
    unknown: tuple[str, ...] = (),
) -> Callable[[object, object], T]:
    """Return the function turning a typed view of a model (`_views`) into its record: it
    assigns what the view's decoder checked and reads the text (enum members, timestamps,
    exact floats), and keeps the `unknown` keys the view took (`unknown_view_field`) in
    `extra`; a view whose text does not read goes to `fallback` whole (the general way,
    which gives the same record or names the fault). Generated on each call: keep it."""
    hook = cast(Callable[[object, object], T], _compile_view(model, naming, fallback, unknown))
    if naming != CONTRACT_NAMING:
        hook = remembering(hook, naming, model)
    return hook


_CHECKS: dict[type[Any], Structure] = {}


def _check_for(model: type[Any]) -> Structure:
    check = _CHECKS.get(model)
    if check is None:
        check = _CHECKS[model] = build_fast(model, _check_for, CONTRACT_NAMING, build=False)
    return check


def check_hook(model: type[Any]) -> Callable[[object, object], dict[str, Any]]:
    """Return a function that checks a record spelt as the contract spells it, as
    `structure_hook(model)` would, and
    returns the record itself, unchanged: no model is built for a record that is well formed.

    Anything unusual goes the full way (the structure function, cattrs for faults), so what
    passes and what fails, with which fault, are the same as for a typed list.
    """
    check = _check_for(model)
    full = structure_hook(model)

    def checked(data: object, _: object = None) -> dict[str, Any]:
        try:
            return check(data)  # type: ignore[no-any-return]
        except STEP_ASIDE_ERRORS:
            full(data, model)
            return data  # type: ignore[return-value]  # the model accepted it: a dict

    return checked


def from_wire(
    model: type[T], data: object, *, path: str = "$", naming: Naming = CONTRACT_NAMING
) -> T:
    """Build a model from decoded wire JSON; a bad value raises WireFault with its JSON path.

    Args:
        model: The model to build (`Endpoint`, ...).
        data: The record as `json.loads` returns it.
        path: Where the record is in its response, for the errors' JSON paths.
        naming: How the record's keys are spelled: `snake` (the contract), `camel`,
            `pascal` or `kebab`.
    """
    try:
        return structure_hook(model, naming)(data, model)
    except Exception as exc:
        raise fault_from(exc, path, model, naming) from exc
