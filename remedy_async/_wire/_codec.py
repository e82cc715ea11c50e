"""Turns wire JSON into models and back: the cattrs converter's front door, `to_wire`, and
`Model`, the base of every model, whose `to_dict()` and `to_json()` are `to_wire`.

The converter itself (`_converter`: strict scalars, open enums, timestamps, models with their
unknown keys in `extra`) is built the first time one is needed, one per naming, and kept; so
`import remedy_async` does not import cattrs, and a list whose records all take the fast path
(`_fastpath`) never does. A fault is reported with the JSON path of the value.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import cache
from typing import TYPE_CHECKING, Any, TypeVar, cast

import attrs

from ._absent import NOTE
from ._json import dumps
from ._naming import CONTRACT_NAMING, NAMING_NOTE, NAMINGS, Naming, naming_of, wire_names
from ._types import WireFault, model_in

if TYPE_CHECKING:
    import cattrs

T = TypeVar("T")


@cache
def converter_for(naming: Naming) -> cattrs.Converter:
    """The converter of a naming, built (and cattrs imported) the first time it is needed."""
    from ._converter import make_converter  # noqa: PLC0415 - cattrs only when first needed

    return make_converter(naming, is_model=is_model)


class Model:
    """What every record and value the service sends can do: be written back as wire JSON.

    `record.to_dict()` is `to_wire(record)` and `record.to_json()` its JSON text, so a record
    goes to a JSON API, a queue or a file as the service sent it (`extra` restored, explicit
    nulls kept, numbers exact).
    """

    # Notes the structure functions set, no fields: the naming a record was read in when not
    # the contract's (`_naming`), and the optional fields it was read without (`_absent`).
    __slots__ = (NAMING_NOTE, NOTE)

    def to_dict(self, naming: Naming | None = None) -> dict[str, Any]:
        """Return the record as wire JSON: exactly `remedy_async.to_wire(record)`.

        Args:
            naming: How to spell the keys: `snake`, `camel`, `pascal` or `kebab`. Default: as
                the record was read (snake_case, the contract's, for a record built in code).
        """
        return to_wire(self, naming)

    def to_json(self, naming: Naming | None = None) -> str:
        """Return the record as compact JSON text: `to_dict()` written with every number
        exact (an integer of any size as its digits).

        Args:
            naming: How to spell the keys, as for `to_dict`.
        """
        return dumps(to_wire(self, naming)).decode()


def is_model(kind: object) -> bool:
    """Whether a type is one of the models (a subclass of `Model`), which the converter reads
    and writes with generated functions."""
    return isinstance(kind, type) and issubclass(kind, Model)


def cattrs_structure_hook(
    model: type[T], naming: Naming = CONTRACT_NAMING
) -> Callable[[object, object], T]:
    """Return the cattrs-generated structure function of a model (the authoritative one)."""
    return cast(Callable[[object, object], T], converter_for(naming).get_structure_hook(model))


def to_wire(record: Any, naming: Naming | None = None) -> dict[str, Any]:
    """Return a model as wire JSON, `extra` restored, keys spelled as the record was read.

    A record read from the service is written back as it came: an optional field sent as null
    is null, one not sent is left out, and numbers are the values read (integers of any size).
    A record built in code writes a None field as null. Every model has it as a method too:
    `record.to_dict()`, and `record.to_json()` for its JSON text.

    Args:
        record: A model (`Endpoint`, ...).
        naming: How to spell the keys: `snake`, `camel`, `pascal` or `kebab`. Default: as the
            record was read (a service's snake_case record is written back in snake_case),
            else snake_case, the contract's.
    """
    if naming is None:
        naming = naming_of(record)
    elif naming not in NAMINGS:
        raise ValueError(f"naming must be one of {', '.join(NAMINGS)}, got {naming!r}")
    return cast(dict[str, Any], converter_for(naming).unstructure(record))


def fault_from(
    exc: BaseException, path: str, model: type[Any], naming: Naming = CONTRACT_NAMING
) -> WireFault:
    """Describe the first fault inside a (possibly nested) structuring error by its JSON path."""
    # Structuring errors come from the converter, so cattrs is imported by now as a rule.
    from cattrs.errors import (  # noqa: PLC0415
        ClassValidationError,
        IterableValidationError,
        IterableValidationNote,
    )

    current: BaseException = exc
    names: Mapping[str, str] = wire_names(model, naming) if attrs.has(model) else {}
    while isinstance(current, ClassValidationError | IterableValidationError):
        with_notes, without_notes = current.group_exceptions()
        if with_notes:
            inner, note = with_notes[0]
            if isinstance(note, IterableValidationNote):
                path += f"[{note.index}]"
                names = {}
            else:
                path += "." + names.get(note.name, note.name)
                nested = model_in(note.type)
                names = wire_names(nested, naming) if nested is not None else {}
            current = inner
        else:
            current = without_notes[0]
    return WireFault(path, _reason(current))


def _reason(exc: BaseException) -> str:
    if isinstance(exc, KeyError):
        return "required field is missing"
    if isinstance(exc, WireFault):
        return exc.reason
    return str(exc) or type(exc).__name__
