"""Reads records straight from JSON bytes in C, when they carry exactly their model's fields.

For each model (and naming) a typed view is generated: a msgspec Struct with one field per model
field, every one required, nothing else allowed, each typed as its JSON value must be (text for
a timestamp or an enum, `int | float` for a float, the nested model's view). msgspec decodes a
record, or a whole page of them, into views in one C pass, checking every key and JSON type on
the way; `_fastpath.from_view_for` then turns a view into its record, doing only what the text
becomes (enum members, timestamps, exact floats). A record that does not fit its view exactly
(a key the model does not know, which belongs in `extra`; a field left out; another JSON type)
is refused by msgspec, and its body is read the way any other is: parsed to JSON, then
structured (`_fastpath`, `_codec`), which keeps `extra`, notes absent fields and names faults.
Both ways give the same record; a view whose text does not read (a bad timestamp) is handed to
that way too, as the JSON it was, so the same DecodeError names the same path. Keys a service
adds beside a model's fields are learned from a page read the general way: the pages after it
are read into views that also take those keys (any JSON value each, kept in `extra` in the order
that page showed them), so such a service is still read in C.

A page is read this way once an earlier page of the list showed its envelope: its items under
one top-level key, beside other keys read as they are. Items decoded into views are TypedItems
in the page's JSON (the paging layer reads their ids as `item.id`) until the resource's reader
turns each into its record as it is handed over.
"""

from __future__ import annotations

import typing
from collections.abc import Callable
from datetime import datetime
from typing import Any

import attrs

from ._fastpath import structure_hook, unknown_view_field, view_hook
from ._json import msgspec_module
from ._naming import CONTRACT_NAMING, Naming, wire_names
from ._types import TypedItem, open_enum_of, union_members

_MISSES_BEFORE_RESTING = 16
"""Bodies refused in a row after which a decoder tries only one body in `_RESTING_EVERY` (a
resource whose records always carry unpublished fields then costs almost nothing)."""
_RESTING_EVERY = 64
_MAX_SHAPES = 16
"""Page shapes a decoder keeps a compiled envelope for at most."""
_MAX_UNKNOWN = 32
"""Unknown keys a resource's records may carry for their pages to be read into views: a view
has a field for each."""
_MAX_VIEWS = 256
"""Views kept at most, every model's in every naming, and with unknown keys."""


def _view_field_type(type_: Any, naming: Naming) -> Any:
    """The JSON type a view decodes a field as; None when no view can read it exactly."""
    members = union_members(type_)
    nullable = type(None) in members
    inner = type_
    if open_enum_of(type_) is not None:
        inner = str
    elif members:
        rest = [member for member in members if member is not type(None)]
        if len(rest) != 1:
            return None
        inner = rest[0]
    if inner in (str, bool, int) or inner is Any:
        view: Any = inner
    elif inner is float:
        view = int | float  # an integer stays one until `_number` checks it fits exactly
    elif inner is datetime:
        view = datetime  # msgspec's RFC 3339 reading, `read_timestamp`'s for every way
    elif isinstance(inner, type) and attrs.has(inner):
        view = view_type(inner, naming)
        if view is None:
            return None
    elif typing.get_origin(inner) is tuple:
        element, *more = typing.get_args(inner)
        if more != [Ellipsis] or not (element is str or open_enum_of(element) is not None):
            return None
        view = list[str]  # made a tuple as the fast path makes it (`convert_typed`)
    else:
        return None
    return view | None if nullable else view


Unknown = tuple[str, ...]
"""Keys a resource's records carry beside their model's fields (kept in `extra`), in the order
the records carry them."""

_VIEWS: dict[tuple[type[Any], Naming, Unknown], type[Any] | None] = {}


def view_type(
    model: type[Any], naming: Naming = CONTRACT_NAMING, unknown: Unknown = ()
) -> type[Any] | None:
    """The typed view of a model's records in a naming, or None when a field's type has none;
    with `unknown`, the view of records that may also carry those keys (any JSON value each)."""
    key = (model, naming, unknown)
    if key not in _VIEWS:
        if len(_VIEWS) >= _MAX_VIEWS:  # a service whose records' keys keep changing
            _VIEWS.clear()
        _VIEWS[key] = _make_view(model, naming, unknown)
    return _VIEWS[key]


def _make_view(model: type[Any], naming: Naming, unknown: Unknown = ()) -> type[Any] | None:
    msgspec = msgspec_module()
    hints = {f.name: f.type for f in attrs.fields(attrs.resolve_types(model))}
    names = wire_names(model, naming)
    fields: list[tuple[str, Any]] = []
    for field in attrs.fields(model):
        if field.name == "extra":
            continue
        view = _view_field_type(hints[field.name], naming)
        if view is None:
            return None
        fields.append((field.name, view))
    renamed = {name: names[name] for name, _ in fields if names[name] != name}
    # An unknown key is a field named by its position (`unknown_view_field`), renamed to it.
    added: list[tuple[str, Any, Any]] = []
    for index, key in enumerate(unknown):
        added.append((unknown_view_field(index), Any, msgspec.UNSET))
        renamed[unknown_view_field(index)] = key
    return msgspec.defstruct(  # type: ignore[no-any-return]
        f"{model.__name__}View",
        [*fields, *added],
        bases=(msgspec.Struct, TypedItem),
        module=__name__,
        rename=renamed or None,
        forbid_unknown_fields=True,
        gc=False,
    )


PageShape = tuple[str, frozenset[str]]
"""Where a page's records are (one top-level key) and its other top-level keys."""


def page_shape(body: object) -> PageShape | None:
    """The shape of a decoded page whose records are a list of objects under one top-level
    key, the only one holding objects; None for any other body."""
    if body.__class__ is not dict:
        return None
    assert isinstance(body, dict)
    lists = [
        key
        for key, value in body.items()
        if value.__class__ is list and value and value[0].__class__ is dict
    ]
    if len(lists) != 1:
        return None
    return lists[0], frozenset(key for key in body if key != lists[0])


_REFUSED = object()
"""What `TypedDecoder._decoded` returns for a body it does not read."""


class TypedDecoder:
    """Reads one resource's records, and pages of them, straight into typed views.

    `record` and `page` return None when a body does not fit (any key unknown to the model,
    any field missing, any other JSON type, or not JSON at all): the caller reads it the
    general way. After `_MISSES_BEFORE_RESTING` refusals in a row it tries only one body in
    `_RESTING_EVERY`, until one fits again.

    A page read the general way teaches `learn` its shape, and the keys its records carry
    beside their model's fields (a field the service added): the pages after it are read
    into views that also take those keys, each kept in the record's `extra`, so a service
    that adds a field to every record is still read in C.
    """

    def __init__(self, model: type[Any], view: type[Any], naming: Naming) -> None:
        msgspec = msgspec_module()
        self.model = model
        self.view = view
        self.naming = naming
        self._record = msgspec.json.Decoder(view)
        self._refused = (msgspec.ValidationError, msgspec.DecodeError, RecursionError)
        self._known = frozenset(wire_names(model, naming).values())
        self._structures: dict[type[Any], Callable[[object, object], Any]] = {}
        self.structure = self.structure_of(view)
        """Turns a view into its record (`_fastpath.view_hook`); a view whose text does not
        read goes the general way as the JSON it was (the same record, or the same fault)."""
        self._envelopes: dict[tuple[PageShape, Unknown], _Envelope] = {}
        self._envelope: _Envelope | None = None
        self._misses = 0

    def __repr__(self) -> str:
        return f"<TypedDecoder {self.view.__name__}>"

    def structure_of(self, view: type[Any]) -> Callable[[object, object], Any]:
        """The function turning views of this type (this resource's, with or without unknown
        keys) into records."""
        structure = self._structures.get(view)
        if structure is None:
            if len(self._structures) >= _MAX_SHAPES:  # records whose added keys keep changing
                self._structures.clear()
            model, msgspec = self.model, msgspec_module()
            full = structure_hook(model, self.naming)
            to_builtins = msgspec.to_builtins
            unknown = tuple(view.__struct_encode_fields__[len(self.view.__struct_fields__) :])
            structure = self._structures[view] = view_hook(
                model, lambda refused: full(to_builtins(refused), model), self.naming, unknown
            )
        return structure

    def _resting(self) -> bool:
        misses = self._misses
        if misses < _MISSES_BEFORE_RESTING:
            return False
        self._misses = misses + 1
        return misses % _RESTING_EVERY != 0

    def _decoded(self, decoder: Any, body: bytes) -> Any:
        """What `decoder` makes of a body, or `_REFUSED` (counted as a miss)."""
        if self._misses and self._resting():
            return _REFUSED
        try:
            decoded = decoder.decode(body)
        except self._refused:
            self._misses += 1
            return _REFUSED
        self._misses = 0
        return decoded

    def record(self, body: bytes) -> Any | None:
        """The record of a body that is exactly one record's view; None otherwise."""
        view = self._decoded(self._record, body)
        return None if view is _REFUSED else self.structure(view, self.model)

    def learn(self, shape: PageShape | None, body: object = None) -> None:
        """Arm `page` for pages of this shape (`page_shape`), their records as `body`'s (a
        page read the general way) carry keys beside their model's fields; None disarms it."""
        if shape is None:
            self._envelope = None
            return
        unknown = self._unknown(body, shape[0]) if self._misses <= _MISSES_BEFORE_RESTING else ()
        envelope = self._envelopes.get((shape, unknown))
        if envelope is None:
            view = view_type(self.model, self.naming, unknown) if unknown else self.view
            if view is None:
                return
            if len(self._envelopes) >= _MAX_SHAPES:  # a service whose envelope keeps changing
                self._envelopes.clear()
            envelope = self._envelopes[shape, unknown] = _Envelope(view, *shape)
        self._envelope = envelope

    def _unknown(self, body: object, items: str) -> Unknown:
        """The keys the records of a page carry beside their model's fields, in the order they
        come; none when they are too many for a view."""
        if not isinstance(body, dict) or not isinstance(records := body.get(items), list):
            return ()
        known, unknown = self._known, dict[str, None]()
        for record in records:
            if isinstance(record, dict) and not known.issuperset(record):
                unknown.update((key, None) for key in record if key not in known)
                if len(unknown) > _MAX_UNKNOWN:
                    return ()
        return tuple(unknown)

    def page(self, body: bytes) -> dict[str, Any] | None:
        """The JSON of a page in the shape learned, its items as views; None when it does not
        fit (or no shape was learned yet)."""
        envelope = self._envelope
        if envelope is None:
            return None
        decoded = self._decoded(envelope.decoder, body)
        return None if decoded is _REFUSED else envelope.json(decoded)


class _Envelope:
    """A page's shape: records under `items`, and `others` (any JSON, each may be absent)."""

    def __init__(self, view: type[Any], items: str, others: frozenset[str]) -> None:
        msgspec = msgspec_module()
        keys = [items, *sorted(others)]
        # Fields named by position, each renamed to its key: any key, no name taken twice.
        fields: list[tuple[str, Any] | tuple[str, Any, Any]] = [("f0", list[view])]  # type: ignore[valid-type]
        fields += [(f"f{index}", Any, msgspec.UNSET) for index in range(1, len(keys))]
        rename = {f"f{index}": key for index, key in enumerate(keys)}
        self.decoder = msgspec.json.Decoder(
            msgspec.defstruct(
                "PageEnvelope", fields, rename=rename, forbid_unknown_fields=True, module=__name__
            )
        )
        self._pairs = tuple(rename.items())
        self._unset = msgspec.UNSET

    def json(self, decoded: Any) -> dict[str, Any]:
        unset = self._unset
        return {
            key: value
            for attribute, key in self._pairs
            if (value := getattr(decoded, attribute)) is not unset
        }


def typed_decoder(model: type[Any], naming: Naming) -> TypedDecoder | None:
    """The typed decoder of a model's records in a naming; None when the model has no view."""
    view = view_type(model, naming)
    return None if view is None else TypedDecoder(model, view, naming)
