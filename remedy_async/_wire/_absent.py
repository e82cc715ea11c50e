"""Remembers the optional fields a record was read without, so `to_wire` leaves them out.

A model holds None both for an optional field the service sent as null and for one it did not
send at all; on the wire the two differ, and `to_wire` writes a record back as it came: null
where null was sent, nothing where nothing was. Each model with optional fields has a private
note, a slot beside its fields (`_read_without`), which the structure functions set on every
record they build: for a record with every field, one slot store of the empty tuple. The note
is no field: the models' constructor, equality, hash, repr and pickles are what they were. A
record built in code, or a copy (`attrs.evolve`, pickle), has no note: its None fields are
written as null.

attrs makes a slot that is no field for a `functools.cached_property` of the class body only,
and then reads the class's missing attributes through a `__getattr__` of its own, which slows
every attribute read of the model's records (21 ns instead of 6); `keep_reads_plain` removes it
once the class is made, so the note is a plain slot, unset on a record no structure function
built.
"""

from __future__ import annotations

from functools import cached_property
from types import MemberDescriptorType
from typing import Any

import attrs

from ._naming import Naming, wire_names

Flags = tuple[bool, ...]
"""For each of a model's optional fields (`optional_fields`, in order), whether the record was
read without it; empty when it was read with every one (or not read at all)."""

NOTE = "_read_without"
"""The name of the note on a model: `Flags`."""


def _never_called(record: object) -> tuple[bool, ...]:
    """A stand-in: only the slot attrs makes for it is used (`keep_reads_plain`).

    (Its return annotation becomes the note's, in the model's namespace: builtins only.)
    """
    raise AssertionError("the note is a plain slot")  # pragma: no cover


def read_without() -> cached_property[Flags]:
    """The note of a model with optional fields, declared in its class body as
    `_read_without = read_without()` (not annotated: a slot, no field)."""
    return cached_property(_never_called)


def keep_reads_plain(model: type[Any]) -> None:
    """Remove the `__getattr__` attrs gave a model for its note, so reading its attributes
    stays a plain slot read; check that the note is a slot."""
    if not isinstance(model.__dict__.get(NOTE), MemberDescriptorType):
        raise TypeError(f"{model.__name__} declares no note slot {NOTE}")
    if "__getattr__" in model.__dict__:
        delattr(model, "__getattr__")


def optional_fields(model: type[Any], naming: Naming) -> tuple[tuple[str, str], ...]:
    """(wire name, attribute name) of each field of a model a record may come without: those
    with a default, in declaration order. A model with any must declare the note."""
    names = wire_names(model, naming)
    optional = tuple(
        (names[field.name], field.name)
        for field in attrs.fields(model)
        if field.name != "extra" and field.default is not attrs.NOTHING
    )
    if optional and not isinstance(model.__dict__.get(NOTE), MemberDescriptorType):
        raise TypeError(f"{model.__name__} has optional fields: it must declare {NOTE}")
    return optional


def remember_absent(record: object, flags: Flags) -> None:
    """Note which of its model's optional fields (`flags`, aligned with `optional_fields`) a
    record just built was read without."""
    object.__setattr__(record, NOTE, flags)


def absent_flags(record: object) -> Flags:
    """Which of its model's optional fields `record` was read without (aligned with
    `optional_fields`); empty when none was, or when it was not read from the wire."""
    return getattr(record, NOTE, ())
