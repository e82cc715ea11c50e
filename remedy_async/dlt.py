"""A dlt source of the four collections: `pip install 'remedy-async[dlt]'`.

    import dlt
    from remedy_async.dlt import remedy_source

    pipeline = dlt.pipeline("remedy", destination="duckdb", dataset_name="remedy")
    pipeline.run(remedy_source(token="..."))

One resource per collection (`endpoints`, `remediation_targets`, `scopes`,
`vulnerability_findings`: the table names), each with `primary_key="id"` and the `merge` write
disposition, so a rerun updates rows in place; where the model types `updated_at` (endpoints,
targets, findings) it is the merge's `dedup_sort` column, so of two rows with one id in a load
the most recently updated wins. Records are checked against their model first
(`remedy_async.columnar.checked_dicts`) and go to dlt with the columns of the Arrow schema
(`remedy_async.columnar`): each published field under its wire (snake_case) name, with a typed
hint (timestamps with time zone, numbers, booleans; nested objects such as
`operating_system` and the scope filters, and lists, as JSON columns), then `extra`, a JSON
column holding every field the model does not type, at any depth, null when none: every field
of remediation targets and findings but `id`, `created_at` and `updated_at`, since their
schemas are unpublished (in DuckDB: `extra->>'severity'`). The table layout is therefore fixed
by the models, as the Parquet files and DuckDB tables of `export` are. `max_table_nesting=0`
by default, so each collection is one table and a merge or a deletion touches one table; above
0, nested objects and `extra` get no hint and dlt flattens them into columns
(`operating_system__family`, `extra__severity`) and child tables.

The client is created inside each resource, on the event loop dlt drives its async generators
on. Each resource keeps the list's resume token in its dlt resource state after every page:
a run that stops early (the service failing past the retries, or `max_items` reached) loads
what it extracted and records where it stopped, and the next run continues from there, so a
long backfill advances run by run and nothing is extracted twice. A run killed outright commits
nothing (dlt's state and package go together) and the next one repeats it from the last
committed position; merging by id keeps the tables free of duplicates either way. A stop is
logged (logger `remedy_async.dlt`) and `unfinished(pipeline)` names the collections that have
more to extract.

Deletions: `removed=` gives, per collection, ids the service no longer has (a mapping, or a
function of the collection name called once per run: the seam for the change feed's removals).
Each becomes a row with only `id` and `_remedy_deleted = true`, a column with dlt's
`hard_delete` hint, so the merge deletes that row from the table. An id the same run lists is
not deleted.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Callable, Iterable, Mapping, Sequence
from typing import Any

from remedy_async._client import RemedyClient
from remedy_async._columnar._checked import checked_dicts
from remedy_async._columnar._columns import (
    EXTRA_COLUMN,
    Kind,
    Nested,
    nested_columns,
    record_columns,
    unknown_keys,
)
from remedy_async._columnar._extras import require
from remedy_async._errors import RemedyError
from remedy_async._models import RESOURCES, Resource

__all__ = [
    "DELETED_COLUMN",
    "Removals",
    "column_hints",
    "remedy_source",
    "unfinished",
]

DELETED_COLUMN = "_remedy_deleted"
"""The column of deletion rows (dlt's `hard_delete` hint): true deletes the row with that id."""

Removals = Mapping[str, Iterable[str]] | Callable[[str], Iterable[str]]
"""Ids removed from the service, by collection (`endpoints`, ...), or a function giving them."""

logger = logging.getLogger("remedy_async.dlt")

_DATA_TYPES: dict[Kind, str] = {
    "string": "text",
    "timestamp": "timestamp",
    "float": "double",
    "int": "bigint",
    "bool": "bool",
    "strings": "json",
    "struct": "json",
    "json": "json",
}


SORT_COLUMN = "updated_at"
"""The column a merge keeps the latest of, among rows with one id (where the model types it)."""


def column_hints(resource: Resource[Any], *, nested: bool = False) -> dict[str, dict[str, Any]]:
    """dlt column hints of a resource's columns (by wire name): its published fields, `extra`
    (JSON), and the deletion flag; `updated_at`, where typed, sorts duplicates of an id.

    With `nested`, lists and objects (and `extra`) get no hint, so dlt may flatten them into
    columns and nested tables (`max_table_nesting` above 0).
    """
    hints: dict[str, dict[str, Any]] = {}
    for column in record_columns(resource.model):
        data_type = _DATA_TYPES[column.kind]
        if nested and data_type == "json":
            continue
        hint: dict[str, Any] = {"data_type": data_type, "nullable": column.name != "id"}
        if data_type == "timestamp":
            hint["timezone"] = True
        if column.name == SORT_COLUMN:
            hint["dedup_sort"] = "desc"
        hints[column.name] = hint
    hints[DELETED_COLUMN] = {"data_type": "bool", "nullable": True, "hard_delete": True}
    return hints


def _known_only(value: dict[str, Any], known: frozenset[str], nested: Nested) -> dict[str, Any]:
    """A nested object without the keys its columns do not hold (those are in `extra`)."""
    kept = {key: item for key, item in value.items() if key in known}
    for name, inner_known, inner_nested in nested:
        inner = kept.get(name)
        if inner.__class__ is dict:
            kept[name] = _known_only(inner, inner_known, inner_nested)
    return kept


def _row_packer(resource: Resource[Any]) -> Callable[[dict[str, Any]], dict[str, Any]]:
    """Turns a checked wire dict into the row dlt loads: the published fields, then `extra`,
    the fields the model does not type (at any depth, in their shape; None when none)."""
    columns = record_columns(resource.model)[:-1]
    known = frozenset(column.name for column in columns)
    nested = nested_columns(columns)

    def pack(record: dict[str, Any]) -> dict[str, Any]:
        extra = unknown_keys(record, known, nested)
        row = _known_only(record, known, nested) if extra else dict(record)
        row[EXTRA_COLUMN] = extra or None
        return row

    return pack


def _resource_named(name: str) -> Resource[Any]:
    for resource in RESOURCES:
        if name in (resource.attribute, resource.segment):
            return resource
    names = ", ".join(resource.attribute for resource in RESOURCES)
    raise ValueError(f"unknown collection {name!r}; the collections are {names}")


def _removed_ids(removed: Removals | None, resource: Resource[Any]) -> list[str]:
    if removed is None:
        return []
    if callable(removed):
        return list(removed(resource.attribute))
    return list(removed.get(resource.attribute, removed.get(resource.segment, ())))


def _records(
    resource: Resource[Any],
    connect: Callable[[], RemedyClient],
    page_size: int | None,
    max_items: int | None,
    removed: Removals | None,
) -> Callable[[], AsyncIterator[Any]]:
    """The async generator function of one collection's dlt resource."""

    async def records() -> AsyncIterator[Any]:
        dlt = require("dlt", "The dlt source")
        state = dlt.current.resource_state()
        gone = dict.fromkeys(_removed_ids(removed, resource))
        pack = _row_packer(resource)
        async with connect() as client:
            pager = getattr(client, resource.attribute).list(
                page_size=page_size, max_items=max_items, resume_token=state.get("resume_token")
            )
            state.pop("stopped", None)
            try:
                async for page in checked_dicts(pager).pages():
                    if gone:
                        for record in page.items:
                            gone.pop(record["id"], None)
                    yield [pack(record) for record in page.items]
                    state["resume_token"] = page.resume_token
            except RemedyError as error:
                state["resume_token"] = error.resume_token
                state["stopped"] = f"{type(error).__name__}: {error}"
                logger.warning(
                    "%s: stopped after %s records of this run, the next run continues from "
                    "there: %s",
                    resource.attribute,
                    error.items_yielded,
                    state["stopped"],
                )
        if gone:
            yield [{"id": record_id, DELETED_COLUMN: True} for record_id in gone]

    records.__name__ = resource.attribute
    return records


def remedy_source(
    base_url: str | None = None,
    token: str | None = None,
    *,
    collections: Sequence[str] | None = None,
    page_size: int | None = None,
    max_items: int | None = None,
    removed: Removals | None = None,
    max_table_nesting: int = 0,
    client_options: Mapping[str, Any] | None = None,
    name: str = "remedy",
) -> Any:
    """Return a dlt source with one merge resource per collection (see the module doc).

    `base_url` and `token` default to REMEDY_BASE_URL and REMEDY_API_TOKEN, as for
    `RemedyClient`; `client_options` are further `RemedyClient` keyword arguments. `collections`
    picks some (all four by default); `max_items` caps each collection's records per run (the
    next run continues after them); `removed` feeds deletions. Needs dlt (`pip install
    'remedy-async[dlt]'`), else MissingDependencyError. `page_size` defaults to the client's
    (100, the most the service serves).
    """
    dlt = require("dlt", "The dlt source")
    chosen = [_resource_named(c) for c in collections] if collections else list(RESOURCES)
    options = dict(client_options or {})

    def connect() -> RemedyClient:
        return RemedyClient(base_url, token=token, **options)

    resources = [
        dlt.resource(
            _records(resource, connect, page_size, max_items, removed),
            name=resource.attribute,
            primary_key="id",
            write_disposition="merge",
            columns=column_hints(resource, nested=max_table_nesting != 0),
        )
        for resource in chosen
    ]

    def source() -> Any:
        return resources

    source.__name__ = name
    source.__module__ = __name__
    return dlt.source(name=name, max_table_nesting=max_table_nesting)(source)()


def unfinished(pipeline: Any, source_name: str = "remedy") -> dict[str, str | None]:
    """The collections whose last run stopped before the end of their list, by resource
    name, with why it stopped (None when `max_items` ended it); empty when every list
    completed."""
    sources = pipeline.state.get("sources", {})
    resources = sources.get(source_name, {}).get("resources", {})
    return {
        name: state.get("stopped")
        for name, state in resources.items()
        if state.get("resume_token") is not None
    }
