"""Griffe extensions: the signatures the reference shows are the ones a user calls.

- `AttrsInit`: griffe reads source without running it and knows `@dataclass` but not attrs: a
  class decorated with `@attrs.frozen` (or `@frozen(kw_only=True)`, `define`, ...) has no
  `__init__` in its source, so the reference would show no signature for it. This adds the
  one attrs made: the class is imported and `attrs.fields` gives each argument's name (a
  field's alias), kind (keyword-only or not) and whether it has a default, in order; the
  source gives its annotation and docstring, and its default as written (`'cursor'`,
  `CONVENTIONS`; a factory as its call, `dict()`; a value a helper computes as its repr).
- `ShownDefaults`: `RemedyClient(auth_header=config.AUTH_HEADER, retry=DEFAULT_RETRY)` says
  nothing to a reader who cannot see those names; `auth_header="Authorization",
  retry=RetryPolicy()` does. A default naming a module constant of the package is replaced by
  the constant's value as written, when that is short and the name is not one the package
  exports (`CONVENTIONS` stays: the reference documents it). It runs after `AttrsInit`, so the
  constructors attrs makes are covered too.

mkdocs.yml lists this file among mkdocstrings' griffe extensions (griffe runs every extension
class of the file, in order).
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import attrs
import griffe

ATTRS_DECORATORS = frozenset(
    f"{module}.{name}"
    for module in ("attrs", "attr")
    for name in ("define", "frozen", "mutable", "s", "attrs", "dataclass")
)
FIELD_CALLS = frozenset({"attrs.field", "attr.field", "attr.ib", "attr.attrib"})
LONGEST = 48
"""The longest value shown in place of a constant's name; a longer one keeps the name."""


def defined(obj: griffe.Module | griffe.Class) -> Iterator[griffe.Class | griffe.Function]:
    """Every class and function defined in `obj`, at any depth (not those it imports)."""
    for member in obj.members.values():
        if member.is_alias:
            continue
        if isinstance(member, griffe.Class | griffe.Function):
            yield member
        if isinstance(member, griffe.Class | griffe.Module):
            yield from defined(member)


def is_attrs_class(cls: griffe.Class) -> bool:
    """Whether the source decorates the class with attrs (`@attrs.frozen`, `@frozen(...)`)."""
    return any(decorator.callable_path in ATTRS_DECORATORS for decorator in cls.decorators)


def runtime_class(cls: griffe.Class) -> type:
    """The class itself, imported: attrs decides its fields when the class is made. The
    module imported must be the file griffe read (not another install of the package)."""
    found: Any = importlib.import_module(cls.module.path)
    if Path(found.__file__).resolve() != Path(str(cls.module.filepath)).resolve():
        raise RuntimeError(
            f"the reference reads {cls.module.filepath} but Python imports {found.__file__}"
        )
    for part in cls.path.removeprefix(cls.module.path + ".").split("."):
        found = getattr(found, part)
    return found  # type: ignore[no-any-return]


def _field_arguments(attribute: griffe.Attribute | None) -> dict[str, Any] | None:
    """A field's `attrs.field(...)` keyword arguments; None when it is assigned anything else."""
    value = None if attribute is None else attribute.value
    if not (isinstance(value, griffe.ExprCall) and value.canonical_path in FIELD_CALLS):
        return None
    return {arg.name: arg.value for arg in value.arguments if isinstance(arg, griffe.ExprKeyword)}


def _default(field: attrs.Attribute[Any], attribute: griffe.Attribute | None) -> Any:
    """The default as written (`'cursor'`, `CONVENTIONS`), a factory as its call (`dict()`)."""
    if field.default is attrs.NOTHING:
        return None
    if isinstance(field.default, attrs.Factory):  # type: ignore[arg-type]
        name = getattr(field.default.factory, "__qualname__", "<lambda>")
        return "..." if "<lambda>" in name else f"{name}()"
    arguments = _field_arguments(attribute)
    if arguments is not None:
        written = arguments.get("default")
    else:
        written = None if attribute is None else attribute.value
    if written is None or isinstance(written, griffe.ExprCall):  # a helper's call: its value
        return repr(field.default)
    return written


def attrs_parameters(cls: griffe.Class) -> list[griffe.Parameter]:
    """The parameters of the `__init__` attrs made for the class, with their fields' source."""
    written = {
        name: member
        for klass in [*reversed(cls.mro()), cls]
        for name, member in klass.members.items()
        if isinstance(member, griffe.Attribute)
    }
    parameters = []
    for field in attrs.fields(runtime_class(cls)):
        if not field.init:
            continue
        attribute = written.get(field.name)
        keyword_only = griffe.ParameterKind.keyword_only
        parameters.append(
            griffe.Parameter(
                field.alias or field.name,
                annotation=None if attribute is None else attribute.annotation,
                kind=keyword_only if field.kw_only else griffe.ParameterKind.positional_or_keyword,
                default=_default(field, attribute),
                docstring=None if attribute is None else attribute.docstring,
            )
        )
    return parameters


def exported(pkg: griffe.Module) -> set[str]:
    """Every name some module of the package lists in its `__all__`."""
    names = set(pkg.exports or ())
    for member in pkg.members.values():
        if isinstance(member, griffe.Module) and not member.is_alias:
            names |= exported(member)
    return names


def shown(default: Any, collection: griffe.ModulesCollection, public: set[str]) -> Any:
    """The value to show for a default: a private constant's value, else the default itself."""
    for _ in range(3):  # a constant may name another one
        if not isinstance(default, griffe.ExprName | griffe.ExprAttribute):
            return default
        try:
            target = collection[default.canonical_path]
        except (KeyError, ValueError):
            return default
        if target.is_alias:
            target = target.final_target
        value = getattr(target, "value", None)
        if not isinstance(target, griffe.Attribute) or value is None:
            return default
        if target.name in public or len(str(value)) > LONGEST:
            return default
        default = value
    return default


class AttrsInit(griffe.Extension):
    """Give each attrs class without an `__init__` of its own the one attrs made."""

    def on_package(self, *, pkg: griffe.Module, **_: Any) -> None:
        """Add the `__init__` of every attrs class of the loaded package."""
        for cls in list(defined(pkg)):  # a list: adding an `__init__` changes the members
            if not isinstance(cls, griffe.Class) or "__init__" in cls.members:
                continue
            if not is_attrs_class(cls):
                continue
            try:
                parameters = attrs_parameters(cls)
            except ImportError:  # an optional dependency is missing: the class stays unsigned
                continue
            self_ = griffe.Parameter("self", kind=griffe.ParameterKind.positional_or_keyword)
            init = griffe.Function(
                "__init__",
                lineno=cls.lineno,
                endlineno=cls.lineno,
                parent=cls,
                parameters=griffe.Parameters(self_, *parameters),
                returns="None",
            )
            cls.set_member("__init__", init)


class ShownDefaults(griffe.Extension):
    """Show private constants' values as the defaults of the package's functions."""

    def on_package(self, *, pkg: griffe.Module, **_: Any) -> None:
        """Replace, in every function of the loaded package, defaults naming private constants."""
        public = exported(pkg)
        for function in defined(pkg):
            if not isinstance(function, griffe.Function):
                continue
            for parameter in function.parameters:
                parameter.default = shown(parameter.default, pkg.modules_collection, public)
