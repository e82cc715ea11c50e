"""How record keys are spelled on the wire: snake_case by the published contract, or camel,
Pascal or kebab case where a service drifts from it.

Models use snake_case attributes, the wire names; `wire_names` spells them for a naming, and
`detect_naming` tells from one record which naming a service uses. Query parameters are another
matter: the service spells them in camelCase (`osFamily`), which `to_camel` writes.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from types import MemberDescriptorType
from typing import Any, Literal, TypeVar

import attrs

Naming = Literal["camel", "snake", "pascal", "kebab"]
CONTRACT_NAMING: Naming = "snake"
"""How the published contract spells record keys (`mac_address`, `operating_system`)."""
NAMINGS: tuple[Naming, ...] = ("snake", "camel", "pascal", "kebab")
"""Every naming, the contract's first (it wins a tie)."""

R = TypeVar("R")

_CAMEL_BOUNDARY = re.compile(r"_([a-z0-9])")


def to_camel(name: str) -> str:
    """Return the camelCase wire name of a snake_case name (`os_family` -> `osFamily`)."""
    return _CAMEL_BOUNDARY.sub(lambda match: match.group(1).upper(), name)


def spell(name: str, naming: Naming) -> str:
    """Spell a snake_case attribute name in a naming (`mac_address` -> `MacAddress`)."""
    if naming == "snake":
        return name
    if naming == "kebab":
        return name.replace("_", "-")
    camel = to_camel(name)
    return camel[:1].upper() + camel[1:] if naming == "pascal" else camel


NAMING_NOTE = "_read_in"
"""The slot a record read in a naming other than the contract's keeps it in: declared once, by
the models' base (`_codec.Model`), and no field (the models' constructor, equality, hash, repr
and pickles leave it out, so a copy or a record built in code is read in no naming)."""


def remembering(
    structure: Callable[[object, object], R], naming: Naming, model: type[Any]
) -> Callable[[object, object], R]:
    """The structure function, noting on each record it builds that it was read from keys
    spelled in `naming`, so `to_wire` writes it back so; as it is for a class without the
    note (an attrs class of the caller's own given to `from_wire`)."""
    if not isinstance(getattr(model, NAMING_NOTE, None), MemberDescriptorType):
        return structure
    note = object.__setattr__  # a slot of a frozen record: set past its __setattr__

    def structured(data: object, model: object) -> R:
        record = structure(data, model)
        note(record, NAMING_NOTE, naming)
        return record

    return structured


def naming_of(record: object) -> Naming:
    """The naming `record` was read in: the contract's unless it was read in another one."""
    naming: Naming = getattr(record, NAMING_NOTE, CONTRACT_NAMING)
    return naming


_WIRE_NAMES: dict[tuple[type[Any], Naming], dict[str, str]] = {}


def wire_names(model: type[Any], naming: Naming = CONTRACT_NAMING) -> dict[str, str]:
    """Map each field of a model (but `extra`) to its name on the wire in a naming."""
    names = _WIRE_NAMES.get((model, naming))
    if names is None:
        names = {a.name: spell(a.name, naming) for a in attrs.fields(model) if a.name != "extra"}
        _WIRE_NAMES[model, naming] = names
    return names


def telling_fields(model: type[Any], naming: Naming = CONTRACT_NAMING) -> frozenset[str]:
    """The wire names that tell a record of `model` from any other JSON object: its fields
    besides `id`, when one of them is required (the published `Endpoint` and `Scope`), so a
    record with an id and none of them is refused as not the model's. Empty for a model whose
    other fields are all optional (the unpublished targets and findings: a record of theirs
    may hold nothing the library types, and keeps all in `extra`) and for one without `id`."""
    fields = [a for a in attrs.fields(model) if a.name not in ("id", "extra")]
    if "id" not in attrs.fields_dict(model) or all(a.default is not attrs.NOTHING for a in fields):
        return frozenset()
    names = wire_names(model, naming)
    return frozenset(names[a.name] for a in fields)


def detect_naming(record: Mapping[str, Any], model: type[Any]) -> tuple[Naming | None, bool]:
    """The naming a record's keys follow, and whether that is certain.

    The naming under which most of the model's fields are present wins, the contract's on a
    tie; it is
    certain when no other naming matches as many. None when no field is present in any naming.
    The answer for a record's keys (in their order) is remembered, so records of one shape
    that decide nothing cost a lookup each.
    """
    shape = (model, tuple(record))
    known = _DETECTED.get(shape)
    if known is None:
        if len(_DETECTED) >= MAX_SHAPES:
            _DETECTED.clear()
        known = _DETECTED[shape] = _detected(record, model)
    return known


MAX_SHAPES = 256
"""How many record shapes (a model and its keys in order) `detect_naming` remembers at most."""
_DETECTED: dict[tuple[type[Any], tuple[str, ...]], tuple[Naming | None, bool]] = {}


def _detected(record: Mapping[str, Any], model: type[Any]) -> tuple[Naming | None, bool]:
    """`detect_naming`, worked out."""
    namings_of = _namings_of(model)
    found = dict.fromkeys(NAMINGS, 0)
    for key in record.keys() & namings_of.keys():
        for naming in namings_of[key]:
            found[naming] += 1
    best = max(found.values())
    if best == 0:
        return None, False
    winners = [naming for naming, count in found.items() if count == best]
    return winners[0], len(winners) == 1


_NAMINGS_OF: dict[type[Any], dict[str, tuple[Naming, ...]]] = {}


def _namings_of(model: type[Any]) -> dict[str, tuple[Naming, ...]]:
    """Each wire name of a model's fields, with the namings that spell a field so (`id`: snake,
    camel and kebab), worked out once per model."""
    found = _NAMINGS_OF.get(model)
    if found is None:
        spelt: dict[str, list[Naming]] = {}
        for naming in NAMINGS:
            for wire in wire_names(model, naming).values():
                spelt.setdefault(wire, []).append(naming)
        found = _NAMINGS_OF[model] = {wire: tuple(namings) for wire, namings in spelt.items()}
    return found
