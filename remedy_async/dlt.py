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
by the models, as the Parquet files and DuckDB tables of `export` are. Numbers load as sent,
but an integer past 64 bits, which dlt's JSON writer cannot write as a number, loads as the
text of its exact digits (`"100000000000000000001"`), never rounded. `max_table_nesting=0`
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

Many organisations: `remedy_source(tenants="tenants.toml")` (a tenants file, or `Tenant`
values) reads every tenant's key as one source. Each collection is still one table, its rows
led by a `tenant` column (text, not null: the tenant's name) and keyed by `("tenant", "id")`,
since an id is only unique within its organisation; merge and `dedup_sort` as above. Every
token is read and checked when the source is made, before any request. The tenants' clients
(`TenantClients`: each tenant's own base URL, rate limit and token, `client_options` for all)
are opened once per run on dlt's loop and shared by the collections, so a tenant's rate limit
and `max_connections` hold over the whole source. Each resource keeps every tenant's resume
token in its state (`resume_tokens`: {tenant: token, or None for a list read to its end},
updated after every page) and why a tenant failed (`stopped_tenants`: {tenant: error}). A
tenant failing past the retries does not stop the others: their rows load, the failure is
logged, and the next run continues that tenant exactly where it stopped. `max_items` caps each
tenant's records per run, and the next run continues each tenant it cut. A tenant whose list
completed starts again from the beginning in the next run (each run a complete pass, as for
one organisation), but while another tenant is part-way through a `max_items` backfill it
waits (is not listed), so the backfill of every tenant ends; a failed tenant holds no one back.
A tenant no longer given is forgotten (given again, it starts over). `unfinished(pipeline)`
names each tenant that stopped as `"vulnerability_findings/acme"`. Removals name the tenant:
`removed={"endpoints": [("acme", "8f7e...")]}`; a bare id is refused.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import AsyncIterator, Callable, Iterable, Mapping, Sequence
from contextlib import asynccontextmanager
from decimal import Decimal
from typing import Any

import orjson

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
from remedy_async._errors import ConfigurationError, RemedyError, TenantErrors
from remedy_async._models import RESOURCES, Resource
from remedy_async._settings import closest
from remedy_async._tenancy._clients import DEFAULT_MAX_CONNECTIONS, TenantClients
from remedy_async._tenancy._columns import TENANT_COLUMN
from remedy_async._tenancy._pager import TenantPager
from remedy_async._tenancy._tenant import Tenant, TenantKey, read_keys
from remedy_async._tenancy._tenants_file import load_tenants

__all__ = [
    "DELETED_COLUMN",
    "Removals",
    "RemovedIds",
    "column_hints",
    "remedy_source",
    "unfinished",
]

DELETED_COLUMN = "_remedy_deleted"
"""The column of deletion rows (dlt's `hard_delete` hint): true deletes the row with that id."""

RemovedIds = Iterable[str | tuple[str, str]]
"""The ids removed from one collection: each an id, or with tenants a `(tenant, id)` pair."""

Removals = Mapping[str, RemovedIds] | Callable[[str], RemovedIds]
"""Ids removed from the service, by collection (`endpoints`, ...), or a function giving them."""

RESUME_TOKENS = "resume_tokens"
"""The resource state's key of every tenant's resume token (None: its list was read to its
end), for a source of many tenants."""
STOPPED_TENANTS = "stopped_tenants"
"""The resource state's key of why each tenant that failed in the latest run stopped."""

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


def column_hints(
    resource: Resource[Any], *, nested: bool = False, tenants: bool = False
) -> dict[str, dict[str, Any]]:
    """dlt column hints of a resource's columns (by wire name): its published fields, `extra`
    (JSON), and the deletion flag; `updated_at`, where typed, sorts duplicates of an id.

    With `nested`, lists and objects (and `extra`) get no hint, so dlt may flatten them into
    columns and nested tables (`max_table_nesting` above 0). With `tenants` (a source of many
    organisations), a `tenant` column (text, not null) comes first.
    """
    hints: dict[str, dict[str, Any]] = {}
    if tenants:
        hints[TENANT_COLUMN] = {"data_type": "text", "nullable": False}
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


def _row_packer(
    resource: Resource[Any],
) -> Callable[[dict[str, Any], dict[str, Any]], dict[str, Any]]:
    """Turns a checked wire dict into the row dlt loads, after the columns already in `row`
    (the tenant's, or none): the published fields, then `extra`, the fields the model does not
    type (at any depth, in their shape; None when none)."""
    columns = record_columns(resource.model)[:-1]
    known = frozenset(column.name for column in columns)
    nested = nested_columns(columns)

    def pack(record: dict[str, Any], row: dict[str, Any]) -> dict[str, Any]:
        extra = unknown_keys(record, known, nested)
        row.update(_known_only(record, known, nested) if extra else record)
        row[EXTRA_COLUMN] = extra or None
        return row

    return pack


_DLT_INTEGERS = range(-(2**63), 2**64)
"""The integers dlt's JSON writer (orjson) writes as numbers."""


def _loadable(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A page's rows as dlt can load them, every number exact: dlt writes its items with orjson,
    which refuses an integer past 64 bits, so in a page holding one each such integer becomes a
    `Decimal` of the same value (which dlt loads as the text of its exact digits), never a
    rounded float or a failed load. Other pages are the rows themselves."""
    try:
        orjson.dumps(rows)
    except TypeError:
        return [_exact(row) for row in rows]
    return rows


def _exact(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: _exact(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_exact(item) for item in value]
    if value.__class__ is int and value not in _DLT_INTEGERS:
        return Decimal(value)
    return value


def _resource_named(name: str) -> Resource[Any]:
    for resource in RESOURCES:
        if name in (resource.attribute, resource.segment):
            return resource
    names = ", ".join(resource.attribute for resource in RESOURCES)
    raise ValueError(f"unknown collection {name!r}; the collections are {names}")


def _removed_ids(removed: Removals | None, resource: Resource[Any]) -> list[Any]:
    if removed is None:
        return []
    if callable(removed):
        return list(removed(resource.attribute))
    return list(removed.get(resource.attribute, removed.get(resource.segment, ())))


def _removed_pairs(
    removed: Removals | None, resource: Resource[Any], tenants: Sequence[str]
) -> list[tuple[str, str]]:
    """The `(tenant, id)` pairs removed from a collection; ConfigurationError for a bare id or
    a tenant the source does not read."""
    pairs = []
    for given in _removed_ids(removed, resource):
        if (
            not isinstance(given, tuple | list)
            or len(given) != 2
            or not all(isinstance(part, str) for part in given)
        ):
            raise ConfigurationError(
                f"removed {resource.attribute}: a source of many tenants needs each removed id "
                f"as a (tenant, id) pair, since an id is only unique within its organisation; "
                f"got {given!r}"
            )
        tenant, record_id = given
        if tenant not in tenants:
            raise ConfigurationError(
                f"removed {resource.attribute}: ({tenant!r}, {record_id!r}) names a tenant this "
                f"source does not read{closest(tenant, tenants)}; its tenants are "
                f"{', '.join(tenants)}"
            )
        pairs.append((tenant, record_id))
    return pairs


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
                    yield _loadable([pack(record, {}) for record in page.items])
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


class _Opened:
    """The tenants' clients of one run, on the event loop they were opened in."""

    __slots__ = ("clients", "loop", "users")

    def __init__(self, clients: TenantClients, loop: asyncio.AbstractEventLoop) -> None:
        self.clients = clients
        self.loop = loop
        self.users = 0


class _SharedClients:
    """Lends the tenants' clients to the source's resources: opened by the first resource of a
    run to start, on the loop dlt drives them on, and closed by the last to finish, so each
    tenant's rate limit and the pool's ceiling hold over every collection read at once."""

    def __init__(
        self, keys: tuple[TenantKey, ...], max_connections: int, options: Mapping[str, Any]
    ) -> None:
        self._keys = keys
        self._max_connections = max_connections
        self._options = dict(options)
        self._opened: _Opened | None = None
        self.make()  # every setting checked now, before any request (nothing opens yet)

    def make(self) -> TenantClients:
        """New clients of the tenants (unopened: they open on their first request)."""
        return TenantClients._of_keys(
            self._keys, max_connections=self._max_connections, **self._options
        )

    @property
    def names(self) -> tuple[str, ...]:
        """The tenants' names, in the order given."""
        return tuple(key.tenant.name for key in self._keys)

    @asynccontextmanager
    async def lent(self) -> AsyncIterator[TenantClients]:
        """The run's clients, for one resource's extract."""
        loop = asyncio.get_running_loop()
        opened = self._opened
        if opened is None or opened.loop is not loop:
            opened = self._opened = _Opened(self.make(), loop)
        opened.users += 1
        try:
            yield opened.clients
        finally:
            opened.users -= 1
            if opened.users == 0:
                if self._opened is opened:
                    self._opened = None
                await opened.clients.close()


def _resume_tokens(state: Mapping[str, Any], names: Sequence[str]) -> dict[str, str | None]:
    """Where each tenant's list starts this run, from where the last run left them: a token
    continues a tenant that stopped; a tenant whose list completed (None) waits while another
    is part-way through a `max_items` backfill (stopped, but not by a failure), so that the
    backfill of every tenant ends, and otherwise starts from the beginning, as does a tenant
    new to the source."""
    saved: Mapping[str, str | None] = state.get(RESUME_TOKENS) or {}
    failed = state.get(STOPPED_TENANTS) or {}
    backfilling = any(
        saved.get(name) is not None and name not in failed for name in names if name in saved
    )
    tokens: dict[str, str | None] = {}
    for name in names:
        token = saved.get(name)
        if token is not None or (backfilling and name in saved):
            tokens[name] = token
    return tokens


def _tenant_records(
    resource: Resource[Any],
    shared: _SharedClients,
    page_size: int | None,
    max_items: int | None,
    removed: Removals | None,
) -> Callable[[], AsyncIterator[Any]]:
    """The async generator function of one collection's dlt resource over many tenants."""

    async def records() -> AsyncIterator[Any]:
        dlt = require("dlt", "The dlt source")
        state = dlt.current.resource_state()
        names = shared.names
        gone = dict.fromkeys(_removed_pairs(removed, resource, names))
        pack = _row_packer(resource)
        tokens = _resume_tokens(state, names)
        for key in ("resume_token", "stopped", STOPPED_TENANTS):  # a single tenant's too
            state.pop(key, None)
        async with shared.lent() as clients:
            pager = TenantPager(
                resource,
                {
                    name: checked_dicts(
                        getattr(clients[name], resource.attribute).list(
                            page_size=page_size,
                            max_items=max_items,
                            resume_token=tokens.get(name),
                        )
                    )
                    for name in names
                    if name not in tokens or tokens[name] is not None
                },
                tuple(name for name in names if name in tokens and tokens[name] is None),
            )
            places = state[RESUME_TOKENS] = pager.resume_tokens
            try:
                async for tagged in pager.pages():
                    tenant, page = tagged.tenant, tagged.page
                    if gone:
                        for record in page.items:
                            gone.pop((tenant, record["id"]), None)
                    if page.items:
                        yield _loadable(
                            [pack(record, {TENANT_COLUMN: tenant}) for record in page.items]
                        )
                    places[tenant] = page.resume_token  # the tenant's place after this page
                state[RESUME_TOKENS] = pager.resume_tokens
            except TenantErrors as errors:
                state[RESUME_TOKENS] = dict(errors.resume_tokens)
                stopped = state[STOPPED_TENANTS] = {}
                for tenant, error in errors.failed.items():
                    stopped[tenant] = f"{type(error).__name__}: {error}"
                    logger.warning(
                        "%s/%s: stopped after %s records of this run, the next run continues "
                        "from there: %s",
                        resource.attribute,
                        tenant,
                        error.items_yielded,
                        stopped[tenant],
                    )
        if gone:
            yield [
                {TENANT_COLUMN: tenant, "id": record_id, DELETED_COLUMN: True}
                for tenant, record_id in gone
            ]

    records.__name__ = resource.attribute
    return records


def _tenant_keys(
    tenants: Iterable[Tenant] | str | os.PathLike[str], environ: Mapping[str, str] | None
) -> tuple[TenantKey, ...]:
    """Every tenant's key, its token read now (ConfigurationError for what is missing)."""
    if isinstance(tenants, Tenant):
        raise ConfigurationError(
            "tenants= takes Tenant values (tenants=[tenant]) or a tenants file's path, not one "
            "Tenant"
        )
    if isinstance(tenants, str | os.PathLike):
        tenants = load_tenants(tenants, environ=environ)
    return read_keys(tenants, environ)


def remedy_source(
    base_url: str | None = None,
    token: str | None = None,
    *,
    tenants: Iterable[Tenant] | str | os.PathLike[str] | None = None,
    environ: Mapping[str, str] | None = None,
    max_connections: int | None = None,
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

    `tenants` (a tenants file's path, or `Tenant` values) reads many organisations as one
    source: rows gain a `tenant` column and the key `("tenant", "id")`, each tenant's own
    base URL, rate limit and token apply (not `base_url` or `token`: ConfigurationError), tokens
    are read from `environ` (default: `os.environ`) now, before any request, `client_options`
    go to every tenant's client, `max_connections` bounds the connections of all of them
    together (100 by default), `max_items` caps each tenant's records per run, and `removed`
    gives `(tenant, id)` pairs.
    """
    dlt = require("dlt", "The dlt source")
    chosen = [_resource_named(c) for c in collections] if collections else list(RESOURCES)
    options = dict(client_options or {})
    make_records: Callable[[Resource[Any]], Callable[[], AsyncIterator[Any]]]
    if tenants is None:
        if max_connections is not None or environ is not None:
            raise ConfigurationError(
                "max_connections= and environ= are for a source of many tenants (tenants=); "
                "one organisation's client takes its settings in client_options"
            )

        def connect() -> RemedyClient:
            return RemedyClient(base_url, token=token, **options)

        def make_records(resource: Resource[Any]) -> Callable[[], AsyncIterator[Any]]:
            return _records(resource, connect, page_size, max_items, removed)

    else:
        if base_url is not None or token is not None:
            raise ConfigurationError(
                "with tenants=, each tenant's token and base URL come from its Tenant (or the "
                "tenants file), so leave out base_url and token (client_options' base_url is "
                "the default for tenants without their own)"
            )
        keys = _tenant_keys(tenants, environ)
        ceiling = DEFAULT_MAX_CONNECTIONS if max_connections is None else max_connections
        shared = _SharedClients(keys, ceiling, options)
        if removed is not None and not callable(removed):
            removed = {
                resource.attribute: _removed_pairs(removed, resource, shared.names)
                for resource in chosen
            }

        def make_records(resource: Resource[Any]) -> Callable[[], AsyncIterator[Any]]:
            return _tenant_records(resource, shared, page_size, max_items, removed)

    key: str | tuple[str, str] = "id" if tenants is None else (TENANT_COLUMN, "id")
    resources = [
        dlt.resource(
            make_records(resource),
            name=resource.attribute,
            primary_key=key,
            write_disposition="merge",
            columns=column_hints(
                resource, nested=max_table_nesting != 0, tenants=tenants is not None
            ),
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
    completed. For a source of many tenants, each tenant that stopped is named after its
    collection: `vulnerability_findings/acme`."""
    sources = pipeline.state.get("sources", {})
    resources = sources.get(source_name, {}).get("resources", {})
    found: dict[str, str | None] = {}
    for name, state in resources.items():
        if state.get("resume_token") is not None:
            found[name] = state.get("stopped")
        stopped = state.get(STOPPED_TENANTS) or {}
        for tenant, token in (state.get(RESUME_TOKENS) or {}).items():
            if token is not None or tenant in stopped:
                found[f"{name}/{tenant}"] = stopped.get(tenant)
    return found
