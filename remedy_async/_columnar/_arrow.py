"""Arrow record batches of a list, with the fixed schema of its resource (see `_columns`).

`arrow_batches(pager)` returns `ArrowBatches`: an async iterable of `pyarrow.RecordBatch`, one
per page as pages arrive (or exactly `batch_rows` rows each), built from checked wire dicts
(`_checked`), with the resume token of the row after its latest batch. Arrow reads a page's
dicts itself, every column but the JSON ones in one pass, then casts the timestamp strings;
`extra` is one JSON text per row, made in Python. A time Arrow does not parse (one without a
zone) is parsed column by column as the check parses it; a value Arrow does not take as it is
(an integer id, `3.0` for an integer) is written first by `to_wire` as the model reads it, so
every batch has the same schema whatever the service sends. Numbers are kept exactly: `extra`
holds an integer of any size as written, and a typed number column only ever receives what
the model reads exactly (a float field refuses an integer no float holds). `records_of(batch)`
turns a batch back into wire dicts, their numbers as sent.
"""

from __future__ import annotations

import array
import contextlib
import functools
from collections.abc import AsyncGenerator, AsyncIterator, Mapping, Sequence
from datetime import datetime
from itertools import accumulate
from operator import itemgetter
from typing import Any

import orjson
from attrs import frozen

from remedy_async._paging._pager import Pager
from remedy_async._wire._codec import to_wire
from remedy_async._wire._fastpath import from_wire
from remedy_async._wire._json import dumps, loads
from remedy_async._wire._naming import CONTRACT_NAMING
from remedy_async._wire._types import format_timestamp, read_timestamp

from ._checked import WireDict, checked_dicts
from ._columns import EXTRA_COLUMN, Column, nested_columns, record_columns, unknown_keys
from ._extras import require

PURPOSE = "Arrow output (columnar.arrow_batches, export --format parquet)"


def _pa() -> Any:
    return require("pyarrow", PURPOSE)


def arrow_type(column: Column) -> Any:
    """The Arrow type of a column."""
    pa = _pa()
    kind = column.kind
    if kind == "struct":
        return pa.struct([arrow_field(child) for child in column.children])
    return {
        "string": pa.string(),
        "json": pa.string(),
        "timestamp": pa.timestamp("us", tz="UTC"),
        "float": pa.float64(),
        "int": pa.int64(),
        "bool": pa.bool_(),
        "strings": pa.list_(pa.string()),
    }[kind]


def arrow_field(column: Column) -> Any:
    """The Arrow field of a column; only a record's `id` is never null."""
    return _pa().field(column.name, arrow_type(column), nullable=column.name != "id")


_SCHEMAS: dict[type[Any], Any] = {}


def arrow_schema(model: type[Any]) -> Any:
    """The fixed Arrow schema of a resource's records (its model's columns, then `extra`)."""
    pa = _pa()  # each time: a missing pyarrow is named even when a schema was made before
    schema = _SCHEMAS.get(model)
    if schema is None:
        schema = _SCHEMAS[model] = pa.schema(
            [arrow_field(column) for column in record_columns(model)]
        )
    return schema


def _json_bytes(value: object) -> bytes | None:
    """A value as JSON for a string column (Arrow takes the UTF-8 bytes as they are), every
    number exact (an integer past 64 bits too)."""
    return None if value is None else dumps(value)


@functools.cache
def _cast() -> tuple[Any, Any]:
    """Arrow's cast kernel and its options, from the compiled module `pyarrow.compute` wraps:
    importing that module builds a wrapper for every kernel (about 40 ms at start-up), this one
    about 10 ms."""
    compute = require("pyarrow._compute", PURPOSE)
    return compute.call_function, compute.CastOptions


def _timestamps(pa: Any, values: Sequence[Any], type_: Any) -> Any:
    """A timestamp column from its wire strings, parsed as the check parsed them.

    Arrow parses a page of ISO 8601 strings with a zone (`Z`, `+05:30`) in one cast, a third of
    the time of `datetime.fromisoformat` value by value; where it agrees to parse, it reads
    what `read_timestamp` reads. What it refuses (a zoneless time, which the model reads as UTC,
    more than six digits of a second, a lower-case `t` or `z`, a comma before the fraction, a
    non-string) is read as the check read it, value by value.
    """
    try:
        call, options = _cast()
        return call("cast", [pa.array(values, pa.string())], options(type_))
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        return pa.array([None if v is None else read_timestamp(v) for v in values], type_)


def _json_column(pa: Any, texts: list[bytes | None]) -> Any:
    """A string column of JSON texts (None for null): with no null, the texts joined as its
    data and their lengths as its offsets (the JSON writers write valid UTF-8, so there is
    nothing to check, and nothing is copied twice)."""
    if not texts or None in texts:
        return pa.array(texts, pa.string())
    offsets = array.array("i", [0])
    try:
        offsets.extend(accumulate(map(len, texts)))  # type: ignore[arg-type]
    except OverflowError:  # over 2 GiB: Arrow makes chunks of it
        return pa.array(texts, pa.string())
    data = b"".join(texts)  # type: ignore[arg-type]
    return pa.Array.from_buffers(
        pa.string(), len(texts), [None, pa.py_buffer(offsets), pa.py_buffer(data)]
    )


@frozen
class _Plan:
    """How one column's array is built: its kind, its Arrow type, a struct's children."""

    column: Column
    type: Any
    children: tuple[_Plan, ...] = ()
    fields: tuple[Any, ...] = ()
    wire_type: Any = None
    """The type Arrow converts the column's wire values into by itself (a timestamp as its
    string, a struct of such types); None for a column whose values need Python (JSON)."""

    @classmethod
    def of(cls, column: Column) -> _Plan:
        pa = _pa()
        children = tuple(cls.of(child) for child in column.children)
        fields = tuple(arrow_field(child) for child in column.children)
        wire_type: Any = None
        if column.kind == "timestamp":
            wire_type = pa.string()
        elif column.kind == "struct":
            if all(child.wire_type is not None for child in children):
                wire_type = pa.struct(
                    [pa.field(child.column.name, child.wire_type) for child in children]
                )
        elif column.kind != "json":
            wire_type = arrow_type(column)
        return cls(column, arrow_type(column), children, fields, wire_type)

    def array(self, pa: Any, values: Sequence[Any]) -> Any:
        """The column's Arrow array from its values (dicts for a struct; None for null)."""
        kind = self.column.kind
        if kind == "timestamp":
            return _timestamps(pa, values, self.type)
        if kind == "json":
            return pa.array([_json_bytes(value) for value in values], pa.string())
        if kind == "struct":
            children = [
                child.array(pa, [None if v is None else v.get(child.column.name) for v in values])
                for child in self.children
            ]
            # The validity bitmap is a boolean array's bit-packed values (from_arrays with a
            # mask would import pyarrow.compute to invert it).
            valid = pa.array([value is not None for value in values], pa.bool_())
            return pa.Array.from_buffers(
                self.type, len(values), [valid.buffers()[1]], children=children
            )
        return pa.array(values, self.type)


class BatchBuilder:
    """Builds the record batches of one resource from checked snake_case wire dicts."""

    def __init__(self, model: type[Any]) -> None:
        self.model = model
        self.schema = arrow_schema(model)
        columns = record_columns(model)
        self._plans = tuple(_Plan.of(column) for column in columns[:-1])
        self._names = tuple(plan.column.name for plan in self._plans)
        self._row = itemgetter(*self._names)
        self._known = frozenset(self._names)
        self._nested = nested_columns(columns[:-1])
        self._structs = tuple(
            (plan.column.name, plan.column.known)
            for plan in self._plans
            if plan.column.kind == "struct"
        )
        pa = _pa()
        direct = [(i, plan) for i, plan in enumerate(self._plans) if plan.wire_type is not None]
        self._direct = tuple(i for i, _ in direct)
        self._in_python = tuple(
            (i, plan) for i, plan in enumerate(self._plans) if plan.wire_type is None
        )
        self._wire = pa.struct([pa.field(plan.column.name, plan.wire_type) for _, plan in direct])
        self._casts = tuple(
            (slot, plan.type)
            for slot, (_, plan) in enumerate(direct)
            if plan.wire_type != plan.type
        )
        """The columns read as strings to cast (timestamps, structs holding some), by slot."""

    def build(self, rows: Sequence[Mapping[str, Any]]) -> Any:
        """One RecordBatch of these rows, in the resource's fixed schema."""
        pa = _pa()
        failures = (pa.ArrowInvalid, pa.ArrowTypeError, TypeError, ValueError)
        with contextlib.suppress(*failures):
            return self._build_direct(pa, rows)
        try:  # Arrow refused a value (a zoneless time): column by column, Python's parsing
            return self._build(pa, rows)
        except failures:
            # A value Arrow does not take as served: write each row as the model reads it.
            model = self.model
            return self._build(
                pa, [to_wire(from_wire(model, row), CONTRACT_NAMING) for row in rows]
            )

    def _build_direct(self, pa: Any, rows: Sequence[Mapping[str, Any]]) -> Any:
        """The batch with Arrow reading the rows' dicts itself: the columns it converts as they
        are served (all but JSON ones) as one struct array of the wire types, then a cast of
        each column of timestamp strings (or struct holding some) to its type."""
        arrays: list[Any] = [None] * len(self._plans)
        if self._direct:
            wire = pa.array(rows, self._wire)
            for slot, index in enumerate(self._direct):
                arrays[index] = wire.field(slot)
            if self._casts:
                call, options = _cast()
                for slot, type_ in self._casts:
                    index = self._direct[slot]
                    arrays[index] = call("cast", [arrays[index]], options(type_))
        for index, plan in self._in_python:
            name = plan.column.name
            arrays[index] = plan.array(pa, [row.get(name) for row in rows])
        arrays.append(_json_column(pa, self._extras(rows)))
        return pa.RecordBatch.from_arrays(arrays, schema=self.schema)

    def _values(self, row: Mapping[str, Any]) -> tuple[Any, ...]:
        try:
            return self._row(row)  # type: ignore[no-any-return]
        except KeyError:  # a record without some fields: those are null
            return tuple(row.get(name) for name in self._names)

    def _build(self, pa: Any, rows: Sequence[Mapping[str, Any]]) -> Any:
        plans = self._plans
        if rows:
            values = self._values
            columns: list[Sequence[Any]] = list(zip(*[values(row) for row in rows], strict=True))
        else:
            columns = [() for _ in plans]
        arrays = [plan.array(pa, column) for plan, column in zip(plans, columns, strict=True)]
        arrays.append(_json_column(pa, self._extras(rows)))
        return pa.RecordBatch.from_arrays(arrays, schema=self.schema)

    def _extras(self, rows: Sequence[Mapping[str, Any]]) -> list[bytes | None]:
        """The `extra` cells: null for a row whose keys (and nested keys) its columns hold."""
        known = self._known
        if not self._structs:
            # Nothing nested to look into: a row's extra is the row without its columns, as
            # one copy of the dict less each column's key (twice as fast as picking the others).
            names = self._names
            extras: list[bytes | None] = []
            fast = orjson.dumps
            for row in rows:
                if row.keys() <= known:
                    extras.append(None)
                    continue
                extra = dict(row)
                for name in names:
                    extra.pop(name, None)
                try:
                    extras.append(fast(extra))
                except TypeError:  # an integer past 64 bits: written exactly
                    extras.append(dumps(extra))
            return extras
        plain = [row.keys() <= known for row in rows]
        for name, inner in self._structs:
            plain = [
                ok and ((value := row.get(name)).__class__ is not dict or value.keys() <= inner)
                for ok, row in zip(plain, rows, strict=True)
            ]
        nested = self._nested
        return [
            None if ok else _json_bytes(unknown_keys(row, known, nested) or None)
            for ok, row in zip(plain, rows, strict=True)
        ]


class ArrowBatches:
    """Record batches of a list (`arrow_batches(pager)`): `async for batch in batches: ...`.

    `schema` is the resource's fixed schema; `resume_token` continues the list right after the
    rows of the latest batch yielded (None once the list is complete), as `Pager.resume_token`
    does for items.
    """

    def __init__(self, pager: Pager[Any], batch_rows: int | None = None) -> None:
        if batch_rows is not None and (
            isinstance(batch_rows, bool) or not isinstance(batch_rows, int) or batch_rows < 1
        ):
            raise ValueError(f"batch_rows must be an int >= 1 or None, got {batch_rows!r}")
        self._model: type[Any] = pager._call.reader.model
        self._rows = checked_dicts(pager)
        self._batch_rows = batch_rows
        self._token: str | None = self._rows.resume_token
        self.schema = arrow_schema(self._model)

    def __repr__(self) -> str:
        return f"<ArrowBatches {self._model.__name__} batch_rows={self._batch_rows}>"

    @property
    def resume_token(self) -> str | None:
        """Continues the list right after the latest batch; None when the list is complete."""
        return self._token

    def __aiter__(self) -> AsyncIterator[Any]:
        return self._batches()

    async def _batches(self) -> AsyncGenerator[Any, None]:
        builder = BatchBuilder(self._model)
        if self._batch_rows is None:
            async for page in self._rows.pages():
                if page.items:
                    batch = builder.build(page.items)
                    self._token = page.resume_token
                    yield batch
                else:
                    self._token = page.resume_token
            return
        rows: list[WireDict] = []
        async for row in self._rows:
            rows.append(row)
            if len(rows) == self._batch_rows:
                batch = builder.build(rows)
                rows = []
                self._token = self._rows.resume_token
                yield batch
        if rows:
            batch = builder.build(rows)
            self._token = self._rows.resume_token
            yield batch
        self._token = self._rows.resume_token


def arrow_batches(pager: Pager[Any], *, batch_rows: int | None = None) -> ArrowBatches:
    """The list of `pager` as `pyarrow.RecordBatch`es of its resource's fixed schema.

    One batch per page as pages arrive, or exactly `batch_rows` rows each (the last one
    fewer); the result's `resume_token` continues after its latest batch. Each record is
    checked against its model first, as a typed list would. Needs pyarrow
    (`pip install 'remedy-async[arrow]'`).

    Args:
        pager: A typed pager from `collection.list(...)`, not an `as_dicts()` variant.
        batch_rows: Rows per batch; None: one batch per page.
    """
    return ArrowBatches(pager, batch_rows)


def _wire_value(column: Column, value: Any) -> Any:
    if column.kind == "timestamp" and isinstance(value, datetime):
        return format_timestamp(value)
    if column.kind == "json":
        return loads(value)
    if column.kind == "struct":
        return _wire_row(column.children, value)
    return value


def _wire_row(columns: Sequence[Column], row: dict[str, Any]) -> WireDict:
    return {
        column.name: _wire_value(column, row[column.name])
        for column in columns
        if row.get(column.name) is not None
    }


def _merge(record: WireDict, extra: WireDict) -> WireDict:
    for key, value in extra.items():
        held = record.get(key)
        if isinstance(held, dict) and isinstance(value, dict):
            _merge(held, value)
        else:
            record[key] = value
    return record


def records_of(batch: Any) -> list[WireDict]:
    """The wire dicts of a batch in the fixed schema (from `arrow_batches`, or read back from a
    Parquet file or DuckDB table): null fields left out, `extra` merged back in place."""
    names = set(batch.schema.names)
    columns = [column for column in record_columns_of(batch) if column.name in names]
    fields = [column for column in columns if column.name != EXTRA_COLUMN]
    records = []
    for row in batch.to_pylist():
        record = _wire_row(fields, row)
        extra = row.get(EXTRA_COLUMN)
        records.append(_merge(record, loads(extra)) if extra else record)
    return records


def record_columns_of(batch: Any) -> tuple[Column, ...]:
    """The columns of the resource whose schema a batch has (matched by its field names)."""
    from remedy_async._models import RECORD_TYPES  # noqa: PLC0415 - models are loaded already

    names = list(batch.schema.names)
    for model in RECORD_TYPES:
        columns = record_columns(model)
        if [column.name for column in columns] == names:
            return columns
    raise ValueError(f"not the schema of a resource's records: {names}")
