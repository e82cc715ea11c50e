"""Remembers the optional fields a record was read without, so `to_wire` leaves them out.

A model holds None both for an optional field the service sent as null and for one it did not
send at all; on the wire the two differ, and `to_wire` writes a record back as it came: null
where null was sent, nothing where nothing was. Every model has a private note, a slot its
base (`_codec.Model`) declares (`_read_without`), which the structure functions set on every
record of a model with optional fields they build: for a record with every field, one slot
store of the empty tuple. The note is no field: the models' constructor, equality, hash, repr
and pickles are what they were. A record built in code, or a copy (`attrs.evolve`, pickle), has
no note: its None fields are written as null.
"""

from __future__ import annotations

from types import MemberDescriptorType
from typing import Any

import attrs

from ._naming import Naming, wire_names

Flags = tuple[bool, ...]
"""For each of a model's optional fields (`optional_fields`, in order), whether the record was
read without it; empty when it was read with every one (or not read at all)."""

NOTE = "_read_without"
"""The name of the note on a model: `Flags`."""


def optional_fields(model: type[Any], naming: Naming) -> tuple[tuple[str, str], ...]:
    """(wire name, attribute name) of each field of a model a record may come without: those
    with a default, in declaration order. A model with any must have the note's slot (a class
    deriving from `_codec.Model`)."""
    names = wire_names(model, naming)
    optional = tuple(
        (names[field.name], field.name)
        for field in attrs.fields(model)
        if field.name != "extra" and field.default is not attrs.NOTHING
    )
    if optional and not isinstance(getattr(model, NOTE, None), MemberDescriptorType):
        raise TypeError(f"{model.__name__} has optional fields: it must have the slot {NOTE}")
    return optional


def remember_absent(record: object, flags: Flags) -> None:
    """Note which of its model's optional fields (`flags`, aligned with `optional_fields`) a
    record just built was read without."""
    object.__setattr__(record, NOTE, flags)


def absent_flags(record: object) -> Flags:
    """Which of its model's optional fields `record` was read without (aligned with
    `optional_fields`); empty when none was, or when it was not read from the wire."""
    return getattr(record, NOTE, ())
