"""A shard read into Arrow blocks, exactly once across attempts, without an engine: the run's
ledger in this process, and a worker's death stood in for by an attempt abandoned part-way."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Mapping
from typing import Any

import pyarrow as pa

from remedy_async import MockTransport, RateLimit, Tenant
from remedy_async._sending._budget import margin
from remedy_async._tenancy._blocks import BlockReader
from remedy_async._tenancy._ledger import Ledger, ShardState
from remedy_async._tenancy._plan import plan_shards, plan_units
from remedy_async._tenancy._tenant import read_keys
from tests.published import Churn
from tests.tenancy.tenants_service import PublishedTenants

SIZES = {"acme": 260, "globex": 90}


class InProcess:
    """The ledger's calls as an engine's worker makes them, to a ledger in this process."""

    def __init__(self, ledger: Ledger) -> None:
        self.ledger = ledger

    def begin(self, index: int) -> ShardState:
        return self.ledger.begin(index)

    def commit(
        self, index: int, place: int, block: Any, progress: Mapping[str, str | None]
    ) -> None:
        self.ledger.commit(index, place, block, progress)

    def finish(self, index: int) -> None:
        self.ledger.finish(index)

    def block(self, kept: Any) -> Any:
        return kept


class Waits:
    """A sleep that records how long it was asked to wait, and returns at once."""

    def __init__(self) -> None:
        self.waits: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.waits.append(seconds)


def reader(
    service: PublishedTenants, waits: Waits, tenants: list[Tenant] | None = None
) -> BlockReader:
    keys = read_keys(tenants or service.tenants, service.environ)
    (shard,) = plan_shards(plan_units([key.tenant.name for key in keys], ["endpoints"]), 1)
    return BlockReader(
        shard,
        keys,
        "endpoints",
        list_options={"page_size": 50},
        client_options={
            "transport": MockTransport(service.handler),
            "base_url": "https://api.example.test",
        },
        max_connections=4,
        block_rows=60,
        sleep=waits,
    )


def rows(tables: list[Any]) -> list[tuple[str, str]]:
    table = pa.concat_tables(tables)
    tenants, ids = table.column("tenant").to_pylist(), table.column("id").to_pylist()
    return list(zip(tenants, ids, strict=True))


def taken(blocks: Iterator[Any], count: int) -> list[Any]:
    """The first `count` blocks an attempt hands over; then it dies (is abandoned)."""
    found = [next(blocks) for _ in range(count)]
    blocks.close()  # type: ignore[attr-defined]
    return found


def test_a_shard_hands_every_record_of_its_tenants_over_once() -> None:
    """Blocks of about `block_rows` rows, a tenant column first, every record once."""
    service = PublishedTenants(SIZES)
    ledger = Ledger()
    tables = list(reader(service, Waits()).blocks(InProcess(ledger)))
    assert all(table.schema.names[0] == "tenant" for table in tables)
    assert Counter(tenant for tenant, _ in rows(tables)) == SIZES
    assert len(set(rows(tables))) == sum(SIZES.values())
    state = ledger.begin(0)
    assert state.finished
    assert len(state.blocks) == len(tables)
    assert set(state.progress.values()) == {None}


def test_a_retried_shard_hands_over_the_same_blocks_then_the_rest() -> None:
    """An attempt that dies after three blocks: the next hands those three over again, whole
    and in order, then the rest from where they left each tenant; the engine's output (the
    first attempt's three, then the second's from there) holds every record once, though the
    data changed in between."""
    service = PublishedTenants(SIZES)
    churn = Churn(
        service.services["acme"], {n: [("remove", 7 * n + 3), ("insert", 5)] for n in range(20)}
    )
    service.services["acme"].between_pages = churn
    ledger, waits = Ledger(), Waits()
    first = taken(reader(service, waits).blocks(InProcess(ledger)), 3)
    second = list(reader(service, waits).blocks(InProcess(ledger)))
    for before, again in zip(first, second[:3], strict=True):
        assert before.equals(again)
    output = rows([*first, *second[3:]])
    assert len(output) == len(set(output)), "nothing handed over twice"
    acme = [record_id for tenant, record_id in output if tenant == "acme"]
    assert set(churn.throughout) <= set(acme), "every record present throughout delivered"
    assert Counter(tenant for tenant, _ in output)["globex"] == 90


def test_a_retry_waits_one_window_of_its_keys_first() -> None:
    """The second attempt waits the longest rate-limit window of its keys (with its margin)
    before its first request, so its requests and the dead attempt's never share a window."""
    service = PublishedTenants(SIZES)
    tenants = [
        Tenant("acme", token_env="ACME_TOKEN", rate_limit=RateLimit(20, per=2.0)),
        Tenant("globex", token_env="GLOBEX_TOKEN", rate_limit="50/s"),
    ]
    ledger, waits = Ledger(), Waits()
    taken(reader(service, waits, tenants).blocks(InProcess(ledger)), 1)
    assert waits.waits == []
    list(reader(service, waits, tenants).blocks(InProcess(ledger)))
    assert waits.waits == [2.0 + margin(2.0)]


def test_a_finished_shard_run_again_hands_over_the_same_blocks_unfetched() -> None:
    """An engine rebuilding lost output gets the same blocks, and no request is made."""
    service = PublishedTenants(SIZES)
    ledger = Ledger()
    first = list(reader(service, Waits()).blocks(InProcess(ledger)))
    asked = sum(len(s.requests) for s in service.services.values())
    again = list(reader(service, Waits()).blocks(InProcess(ledger)))
    assert [table.num_rows for table in again] == [table.num_rows for table in first]
    assert all(a.equals(b) for a, b in zip(first, again, strict=True))
    assert sum(len(s.requests) for s in service.services.values()) == asked
