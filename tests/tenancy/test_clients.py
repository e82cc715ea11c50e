"""`TenantClients`: one client per tenant, and one collection listed across all of them."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pyarrow as pa
import pytest

from remedy_async import (
    AuthenticationError,
    ConfigurationError,
    MockTransport,
    RateLimit,
    Tenant,
    TenantClients,
    TenantErrors,
    TenantPage,
    TenantRecord,
)
from remedy_async._models import ENDPOINTS
from remedy_async.columnar import arrow_schema
from tests.tenancy.tenants_service import PublishedTenants

SIZES = {"acme": 230, "globex": 7, "initech": 0}


def clients_of(service: PublishedTenants, **options: object) -> TenantClients:
    return TenantClients(
        service.tenants,
        environ=service.environ,
        transport=MockTransport(service.handler),
        base_url="https://api.example.test",
        **options,  # type: ignore[arg-type]
    )


async def test_every_tenants_records_arrive_once_tagged_with_their_tenant() -> None:
    """Each record of each tenant is yielded once, with its tenant's name, in its list's order."""
    service = PublishedTenants(SIZES)
    async with clients_of(service) as clients:
        seen = await clients.list("endpoints").collect()
    for name in SIZES:
        assert [item.record.id for item in seen if item.tenant == name] == service.ids(name)
    assert len(seen) == sum(SIZES.values())


async def test_a_tenant_s_client_is_its_own() -> None:
    """Each tenant's client has its own token, and its own rate limit when the tenant has one."""
    service = PublishedTenants({"acme": 1, "globex": 1})
    tenants = [
        Tenant("acme", token_env="ACME_TOKEN", rate_limit="5/s"),
        Tenant("globex", token_env="GLOBEX_TOKEN"),
    ]
    async with TenantClients(
        tenants, environ=service.environ, transport=MockTransport(service.handler),
        base_url="https://api.example.test", rate_limit="50/s",
    ) as clients:  # fmt: skip
        assert clients["acme"]._gate.budget is not None
        assert clients["acme"]._gate.budget.limit == RateLimit(5)
        assert clients["globex"]._gate.budget is not None
        assert clients["globex"]._gate.budget.limit == RateLimit(50)
        assert clients["acme"]._gate is not clients["globex"]._gate
        assert list(clients) == ["acme", "globex"]
        with pytest.raises(KeyError, match="did you mean 'acme'"):
            clients["acm"]


async def test_a_failing_tenant_is_named_once_the_others_are_done() -> None:
    """A tenant whose key is refused does not stop the others; TenantErrors names it at the
    end, with every tenant's resume token."""
    service = PublishedTenants(SIZES)
    service.services["globex"].token = "rotated"
    async with clients_of(service) as clients:
        pager = clients.list("endpoints")
        seen: list[TenantRecord[object]] = []

        async def read_all() -> None:
            async for item in pager:
                seen.append(item)

        with pytest.raises(TenantErrors) as caught:
            await read_all()
    assert Counter(item.tenant for item in seen) == {"acme": 230}
    (error,) = caught.value.exceptions
    assert isinstance(error, AuthenticationError)
    assert error.tenant == "globex"
    assert caught.value.failed == {"globex": error}
    assert caught.value.resume_tokens["acme"] is None
    assert caught.value.resume_tokens["globex"] is not None
    assert pager.failures == {"globex": error}


async def test_tokens_of_a_stop_mid_page_continue_each_tenant_exactly() -> None:
    """Stopping part-way through a page, the resume tokens continue every tenant right after
    the last record handed out: nothing repeated, nothing missed."""
    service = PublishedTenants(SIZES)
    async with clients_of(service) as clients:
        pager = clients.list("endpoints", page_size=50)
        first: list[TenantRecord[object]] = []
        async for item in pager:
            first.append(item)
            if len(first) == 77:
                break
        tokens = pager.resume_tokens
        rest = await clients.list("endpoints", page_size=50, resume_tokens=tokens).collect()
    for name in SIZES:
        ids = [item.record.id for item in [*first, *rest] if item.tenant == name]  # type: ignore[attr-defined]
        assert ids == service.ids(name), name


async def test_a_tenant_marked_complete_is_not_listed_again() -> None:
    """A resume token of None marks a tenant listed to its end: no request is made for it."""
    service = PublishedTenants(SIZES)
    async with clients_of(service) as clients:
        items = await clients.list("endpoints", resume_tokens={"acme": None}).collect()
    assert {item.tenant for item in items} == {"globex"}
    assert service.services["acme"].requests == []


async def test_pages_come_tagged_with_their_tenant() -> None:
    """`pages()` yields each tenant's pages with the tenant's name."""
    service = PublishedTenants(SIZES)
    async with clients_of(service) as clients:
        pages = [page async for page in clients.list("endpoints", tenants=["acme"]).pages()]
    assert all(isinstance(page, TenantPage) and page.tenant == "acme" for page in pages)
    assert [len(page.page.items) for page in pages] == [100, 98, 32]


async def test_arrow_batches_carry_a_tenant_column_first() -> None:
    """Each batch has the resource's columns after a non-null `tenant` column."""
    service = PublishedTenants(SIZES)
    async with clients_of(service) as clients:
        batches = [batch async for batch in clients.list("endpoints").arrow_batches()]
    table = pa.Table.from_batches(batches)
    assert table.schema.names == ["tenant", *arrow_schema(ENDPOINTS).names]
    assert not table.schema.field("tenant").nullable
    assert Counter(table.column("tenant").to_pylist()) == {"acme": 230, "globex": 7}


async def test_a_bad_filter_is_refused_before_any_request() -> None:
    """List options are checked for every tenant as `list()` checks them, before any I/O."""
    service = PublishedTenants(SIZES)
    async with clients_of(service) as clients:
        with pytest.raises(TypeError, match="os_family"):
            clients.list("endpoints", os_famly="macos")
        with pytest.raises(ConfigurationError, match="resume_tokens="):
            clients.list("endpoints", resume_token="r1.x")
        with pytest.raises(ConfigurationError, match="did you mean 'scopes'"):
            clients.list("scope")
        with pytest.raises(ConfigurationError, match="unknown tenants: nobody"):
            clients.list("endpoints", resume_tokens={"nobody": None})
    assert all(not s.requests for s in service.services.values())


def test_settings_the_tenants_own_are_refused() -> None:
    """A token, a pool or a session given for all tenants is refused: those are per tenant."""
    service = PublishedTenants({"acme": 1})
    with pytest.raises(ConfigurationError, match="token"):
        TenantClients(service.tenants, environ=service.environ, token="x")


def test_a_bad_client_setting_names_the_tenant() -> None:
    """A tenant's base URL the client refuses is named with its tenant."""
    tenants = [Tenant("acme", token_env="A", base_url="http://example.com")]
    with pytest.raises(ConfigurationError, match="tenant 'acme': refusing plain http"):
        TenantClients(tenants, environ={"A": "k"})


async def test_a_tenants_file_path_is_read(tmp_path: Path) -> None:
    """A path is read as a tenants file."""
    path = tmp_path / "tenants.toml"
    path.write_text('[[tenant]]\nname = "acme"\ntoken_env = "A"\n')
    async with TenantClients(path, environ={"A": "k"}) as clients:
        assert [tenant.name for tenant in clients.tenants] == ["acme"]
        assert "max_connections=100" in repr(clients)
