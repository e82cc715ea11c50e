"""Many organisations on Ray: every tenant's records of a collection as a `ray.data.Dataset`.

    from remedy_async import ray as remedy_ray

    findings = remedy_ray.read("vulnerability_findings", "tenants.toml", page_size=100)
    findings.write_parquet("/lake/findings")        # or .iter_batches(), .to_pandas(), ...

Needs Ray (`pip install 'remedy-async[ray]'`); without it, importing this module raises
`MissingDependencyError` saying so. `read` runs on the cluster `ray.init()` joined (a local one
when none was), through Ray's public datasource API (`TenantsDatasource`).

How the work is spread: the tenants are read on the driver (every token checked there, before
any request), cut into shards of whole tenants (`shards`: one per CPU of the cluster by
default; never more than the tenants), and each shard is one read task: an event loop reading
all its tenants at once (`TenantClients`), the key of each tenant held by that one task, so its
`RateLimit` holds at the service whatever the number of workers, its turn at the wire included.
A 429 for one key pauses that key only.

Exactly once, a worker killed included: before a read task hands a block over it commits the
block and every tenant's resume token after it to the run's ledger, an actor of the driver's
(no CPU of its own) that keeps the blocks in Ray's object store (which spills to disk) while
the Dataset is alive. Ray retries a task whose worker died by running it again; the new attempt
hands the committed blocks over again, in order (so Ray, which keeps what was already handed
over by its place, gets the same output as before), waits one rate-limit window, then resumes
every tenant from its token. Each tenant's list is today's `Pager`, so an offset list stays
exact while the service's data changes (see Paging). A tenant that fails past its client's
retries fails the read (`TenantErrors`), after its shard's other tenants are done.

Tokens travel from the driver to the read tasks inside Ray's task arguments, in memory; the
library never writes one anywhere.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Awaitable, Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any, TypeVar

from remedy_async._columnar._extras import require
from remedy_async._tenancy._blocks import (
    DEFAULT_BLOCK_ROWS,
    DEFAULT_BLOCK_SECONDS,
    BlockReader,
)
from remedy_async._tenancy._clients import DEFAULT_MAX_CONNECTIONS, TenantClients, resource_named
from remedy_async._tenancy._ledger import Ledger, ShardState
from remedy_async._tenancy._plan import Shard, plan_shards, plan_units
from remedy_async._tenancy._tenant import Tenant, TenantKey, longest_window, read_keys
from remedy_async._tenancy._tenants_file import load_tenants

try:
    import ray
    import ray.data
    from ray.data.block import BlockMetadata
    from ray.data.datasource import Datasource, ReadTask
except ImportError:  # pragma: no cover - the test suite installs the extra
    require("ray.data", "reading many tenants on Ray (remedy_async.ray)")  # names the extra
    raise

__all__ = ["Report", "TenantsDatasource", "read", "run_shards"]

R = TypeVar("R")

Report = Callable[[str, int], None]
"""How a shard's work tells the driver its progress: `report("acme/endpoints", records)`, the
records a unit has delivered so far (the latest count wins)."""


class _StoredLedger(Ledger):
    """The run's ledger as a Ray actor: each committed block goes to the object store, owned
    by the actor, so it outlives the worker that made it."""

    def commit(
        self, index: int, place: int, block: Any, progress: Mapping[str, str | None]
    ) -> None:
        super().commit(index, place, ray.put(block), progress)


_LedgerActor = ray.remote(num_cpus=0, max_restarts=0)(_StoredLedger)


class _LedgerCalls:
    """A read task's calls to the run's ledger actor, each waited for."""

    def __init__(self, actor: Any) -> None:
        self._actor = actor

    def begin(self, index: int) -> ShardState:
        state: ShardState = ray.get(self._actor.begin.remote(index))
        return state

    def commit(
        self, index: int, place: int, block: Any, progress: Mapping[str, str | None]
    ) -> None:
        ray.get(self._actor.commit.remote(index, place, block, progress))

    def finish(self, index: int) -> None:
        ray.get(self._actor.finish.remote(index))

    def block(self, kept: Any) -> Any:
        return ray.get(kept)


class TenantsDatasource(Datasource):
    """A Ray datasource of one collection over many tenants: one read task per shard.

    `read()` makes one; give it to `ray.data.read_datasource` yourself to set Ray's own
    options. Its blocks have the collection's columns after a `tenant` column.

    Args:
        readers: One `BlockReader` per shard of the run.
        ledger: The run's ledger actor.
    """

    def __init__(self, readers: Sequence[BlockReader], ledger: Any) -> None:
        super().__init__()  # type: ignore[no-untyped-call]
        self._readers = tuple(readers)
        self._ledger = ledger

    def get_name(self) -> str:
        """The read tasks' name in Ray's dashboard and progress bars."""
        return "RemedyTenants"

    def estimate_inmemory_data_size(self) -> int | None:
        """Unknown until read: the service announces each list's size on its first page."""
        return None

    def get_read_tasks(
        self,
        parallelism: int,
        per_task_row_limit: int | None = None,
        data_context: Any = None,
    ) -> list[ReadTask]:
        """One read task per shard, whatever `parallelism` asks: a shard holds its tenants'
        keys, so shards are planned by `read()` (`shards=`), not cut again here.

        Args:
            parallelism: Ray's suggested number of tasks (not used: see above).
            per_task_row_limit: The most rows a task may return (a `limit()` pushed down).
            data_context: Ray's data context (not used).
        """
        ledger = self._ledger
        tasks = []
        for reader in self._readers:
            tasks.append(
                ReadTask(
                    _read_function(reader, ledger),
                    BlockMetadata(
                        num_rows=None, size_bytes=None, input_files=None, exec_stats=None
                    ),
                    schema=reader.schema,
                    per_task_row_limit=per_task_row_limit,
                )
            )
        return tasks


def _keys_of(keys: Sequence[TenantKey], shard: Shard) -> list[TenantKey]:
    return [key for key in keys if key.tenant.name in shard.tenants]


def _cluster_cpus() -> int:
    """The CPUs of the cluster Ray has joined (starting a local one if need be)."""
    resources: dict[str, float] = ray.cluster_resources()  # type: ignore[no-untyped-call]
    return max(1, int(resources.get("CPU", 1)))


def _read_function(reader: BlockReader, ledger: Any) -> Any:
    def read_shard() -> Iterator[Any]:
        return reader.blocks(_LedgerCalls(ledger))

    return read_shard


def read(
    collection: str,
    tenants: Iterable[Tenant] | str | os.PathLike[str],
    *,
    shards: int | None = None,
    max_connections: int = DEFAULT_MAX_CONNECTIONS,
    block_rows: int = DEFAULT_BLOCK_ROWS,
    block_seconds: float = DEFAULT_BLOCK_SECONDS,
    environ: Mapping[str, str] | None = None,
    client_options: Mapping[str, Any] | None = None,
    ray_remote_args: Mapping[str, Any] | None = None,
    **list_options: Any,
) -> Any:
    """Read one collection of every tenant into a `ray.data.Dataset`, lazily, exactly once.

    Its rows are the collection's records as `remedy_async.columnar` types them, after a
    `tenant` column holding the tenant's name. Every token, setting and list option is checked
    here, before any request; nothing is fetched until the Dataset is consumed.

    Args:
        collection: `endpoints`, `remediation_targets`, `scopes` or `vulnerability_findings`.
        tenants: A tenants file's path (`load_tenants`), or `Tenant` values.
        shards: How many read tasks (each an event loop holding whole tenants). Default: the
            cluster's CPUs, at most one per tenant.
        max_connections: The most connections each read task opens at once.
        block_rows: Rows per block a task hands over (fewer at the end, or after
            `block_seconds`).
        block_seconds: The longest a task holds rows before handing them over.
        environ: Where tokens in environment variables are read (on the driver). Default:
            `os.environ`.
        client_options: `RemedyClient` arguments for every tenant's client (`timeout`,
            `retry`, `rate_limit` for tenants without their own, ...).
        ray_remote_args: Ray's options for the read tasks (`num_cpus`, `memory`,
            `max_retries`, ...).
        **list_options: Arguments of the collection's `list()` (`page_size`, `concurrency`,
            filters such as `os_family`), for every tenant.
    """
    resource = resource_named(collection)
    if isinstance(tenants, str | os.PathLike):
        tenants = load_tenants(tenants, environ=environ)
    keys = read_keys(tenants, environ)
    options = dict(client_options or {})
    TenantClients._of_keys(keys, max_connections=max_connections, **options).list(
        resource.attribute, **list_options
    )  # every setting and list option checked before any request; nothing opened
    ledger: Any = _LedgerActor.remote()
    count = shards if shards is not None else _cluster_cpus()
    units = plan_units((key.tenant.name for key in keys), [resource.attribute])
    readers = [
        BlockReader(
            shard,
            _keys_of(keys, shard),
            resource.attribute,
            list_options=list_options,
            client_options=options,
            max_connections=max_connections,
            block_rows=block_rows,
            block_seconds=block_seconds,
        )
        for shard in plan_shards(units, count)
    ]
    return ray.data.read_datasource(
        TenantsDatasource(readers, ledger),
        override_num_blocks=len(readers),
        concurrency=len(readers),
        ray_remote_args=dict(ray_remote_args or {}),
    )


def run_shards(
    work: Callable[[TenantClients, Shard, Report], Awaitable[R]],
    tenants: Iterable[Tenant] | str | os.PathLike[str],
    collections: Iterable[str],
    *,
    shards: int | None = None,
    max_connections: int = DEFAULT_MAX_CONNECTIONS,
    environ: Mapping[str, str] | None = None,
    client_options: Mapping[str, Any] | None = None,
    ray_remote_args: Mapping[str, Any] | None = None,
    retry_wait: bool = True,
    on_progress: Callable[[Mapping[str, int]], None] | None = None,
    progress_every: float = 1.0,
) -> list[R]:
    """Run your own async work over many tenants on Ray, one task per shard of whole tenants:
    what `read` does for a Dataset, for work of any other shape (the command line's `export
    --engine ray` writes each tenant's files with it).

    Each task calls `await work(clients, shard, report)` in an event loop of its own, with the
    `TenantClients` of its shard's tenants (their keys held by that task alone, so each key's
    `RateLimit` holds at the service) and returns its result; the results come back in shard
    order. Ray runs a task whose worker died again: `work` must then continue where the dead
    attempt stopped (from its own checkpoints), and with `retry_wait` the new attempt first
    waits one rate-limit window of its keys. `report` tells the driver a unit's progress;
    `on_progress` is called on the driver every `progress_every` seconds with every unit's
    latest count. An exception `work` raises fails the run, as Ray raises it.

    Args:
        work: An async function of (clients, shard, report); picklable (a module-level
            function, or a `functools.partial` of one), since Ray ships it to the workers.
        tenants: A tenants file's path (`load_tenants`), or `Tenant` values.
        collections: The collections of the run (a unit is a tenant and a collection).
        shards: How many tasks. Default: the cluster's CPUs, at most one per tenant.
        max_connections: The most connections each task opens at once.
        environ: Where tokens in environment variables are read (on the driver).
        client_options: `RemedyClient` arguments for every tenant's client.
        ray_remote_args: Ray's options for the tasks (`num_cpus`, `max_retries`, ...).
            Default: 3 retries of a task whose worker died.
        retry_wait: Whether a retried task waits one rate-limit window of its keys first.
        on_progress: Called on the driver with each unit's latest count (`tenant/collection`).
        progress_every: Seconds between `on_progress` calls.
    """
    if isinstance(tenants, str | os.PathLike):
        tenants = load_tenants(tenants, environ=environ)
    keys = read_keys(tenants, environ)
    chosen = [resource_named(name).attribute for name in collections]
    options = dict(client_options or {})
    TenantClients._of_keys(keys, max_connections=max_connections, **options)  # checked now
    ledger: Any = _LedgerActor.remote()
    count = shards if shards is not None else _cluster_cpus()
    plan = plan_shards(plan_units((key.tenant.name for key in keys), chosen), count)
    task: Any = ray.remote(_run_shard).options(**{"max_retries": 3, **(ray_remote_args or {})})
    refs = [
        task.remote(
            work, shard, _keys_of(keys, shard), max_connections, options, ledger, retry_wait
        )
        for shard in plan
    ]
    pending = list(refs)
    while pending:
        _, pending = ray.wait(pending, num_returns=len(pending), timeout=progress_every)
        if on_progress is not None:
            on_progress(ray.get(ledger.counts.remote()))
    results: list[R] = ray.get(refs)
    return results


def _run_shard(
    work: Callable[[TenantClients, Shard, Report], Awaitable[R]],
    shard: Shard,
    keys: Sequence[TenantKey],
    max_connections: int,
    client_options: Mapping[str, Any],
    ledger: Any,
    retry_wait: bool,
) -> R:
    """One task of `run_shards`: the shard's work in an event loop of its own."""
    state: ShardState = ray.get(ledger.begin.remote(shard.index))
    retried = retry_wait and state.attempt > 1
    wait = longest_window(keys, client_options.get("rate_limit")) if retried else 0.0

    def report(unit: str, records: int) -> None:
        ledger.count.remote(unit, records)

    async def run() -> R:
        if wait:
            await asyncio.sleep(wait)
        clients = TenantClients._of_keys(keys, max_connections=max_connections, **client_options)
        async with clients:
            return await work(clients, shard, report)

    return asyncio.run(run())
