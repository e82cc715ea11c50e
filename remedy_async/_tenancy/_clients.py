"""Many organisations in one event loop: `TenantClients`, one client per tenant over one pool.

Each tenant's `RemedyClient` has its own token, gate and rate budget, so a 429 for one key
pauses that key only and each key's `RateLimit` holds at the service (its turn at the wire
included); all of them send through one `ConnectionPool`, the process's ceiling of
connections. A list over the tenants (`list`) is a `TenantPager` of each tenant's `Pager`.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Mapping
from typing import Any, Literal, overload

from attrs import evolve

from remedy_async._client import RemedyClient
from remedy_async._collection import ResourceCollection
from remedy_async._errors import ConfigurationError
from remedy_async._models import (
    RESOURCES,
    Endpoint,
    RemediationTarget,
    Resource,
    Scope,
    VulnerabilityFinding,
)
from remedy_async._paging._pager import Pager
from remedy_async._sending._budget import RateLimit
from remedy_async._sending._credential import TokenFrom
from remedy_async._sending._transport import ConnectionPool
from remedy_async._settings import closest

from ._pager import TenantPager
from ._tenant import Tenant, TenantKey, longest_window, read_keys
from ._tenants_file import load_tenants

DEFAULT_MAX_CONNECTIONS = 100
"""The default ceiling of connections over every tenant's client."""

OWN_SETTINGS = ("token", "pool", "session")
"""Client arguments `TenantClients` sets itself, per tenant, so it refuses them."""

COLLECTIONS: Mapping[str, Resource[Any]] = {
    **{resource.attribute: resource for resource in RESOURCES},
    **{resource.segment: resource for resource in RESOURCES},
}
"""The collections by client attribute (`remediation_targets`) and path segment."""


def resource_named(name: str | Resource[Any]) -> Resource[Any]:
    """The resource a collection name stands for (`vulnerability_findings` or
    `vulnerability-findings`); ConfigurationError naming the closest otherwise."""
    if isinstance(name, Resource):
        return name
    found = COLLECTIONS.get(name) if isinstance(name, str) else None
    if found is None:
        names = [resource.attribute for resource in RESOURCES]
        raise ConfigurationError(
            f"unknown collection {name!r}{closest(str(name), COLLECTIONS)}; the collections "
            f"are {', '.join(names)}"
        )
    return found


class TenantClients:
    """Reads many organisations in one event loop: one `RemedyClient` per tenant, each with its
    own token, gate and rate budget, all sharing one pool of connections.

        async with TenantClients(load_tenants("tenants.toml"), max_connections=64) as clients:
            async for item in clients.list("vulnerability_findings"):
                save(item.tenant, item.record)

    A tenant's `rate_limit` holds for its key at the service, and a 429 for one key pauses that
    key only; `max_connections` bounds the connections of all of them together. Every token is
    read and every setting checked here, before any request (ConfigurationError).

    Args:
        tenants: The tenants (`Tenant` values), or a tenants file's path (`load_tenants`).
        max_connections: The most connections open at once over every tenant.
        environ: Where tokens in environment variables are read. Default: `os.environ`.
        **client_options: `RemedyClient` arguments for every tenant's client (`timeout`,
            `retry`, `max_in_flight`, `paginator`, `event_hooks`, ...): a tenant's own
            `base_url` and `rate_limit` win over `base_url=` and `rate_limit=` here. Not
            `token`, `pool` or `session`, which are the tenant's and the pool's
            (`ssl_context` and `trace_configs` go to the pool); with `transport=` (a
            `MockTransport` in tests) every client sends through it instead of the pool.
    """

    def __init__(
        self,
        tenants: Iterable[Tenant] | str | os.PathLike[str],
        *,
        max_connections: int = DEFAULT_MAX_CONNECTIONS,
        environ: Mapping[str, str] | None = None,
        **client_options: Any,
    ) -> None:
        if isinstance(tenants, str | os.PathLike):
            tenants = load_tenants(tenants, environ=environ)
        self._setup(read_keys(tenants, environ), max_connections, client_options)

    @classmethod
    def _of_keys(
        cls,
        keys: Iterable[TenantKey],
        *,
        max_connections: int = DEFAULT_MAX_CONNECTIONS,
        **client_options: Any,
    ) -> TenantClients:
        """The clients of tenants whose tokens were read already (by an engine's driver, for a
        worker that may not see the same environment or files)."""
        clients = cls.__new__(cls)
        clients._setup(read_keys(keys), max_connections, client_options)
        return clients

    def _setup(
        self,
        keys: tuple[TenantKey, ...],
        max_connections: int,
        client_options: dict[str, Any],
    ) -> None:
        refused = [name for name in OWN_SETTINGS if name in client_options]
        if refused:
            raise ConfigurationError(
                f"TenantClients sets {', '.join(refused)} itself (each tenant's token, one "
                "shared pool): leave them out"
            )
        self._pool: ConnectionPool | None = None
        if client_options.get("transport") is None:
            self._pool = ConnectionPool(
                max_connections,
                ssl_context=client_options.pop("ssl_context", None),
                trace_configs=client_options.pop("trace_configs", ()),
            )
        self._clients = {key.tenant.name: self._client(key, client_options) for key in keys}
        self._keys = {key.tenant.name: key for key in keys}
        self._tenants = tuple(key.tenant for key in keys)
        self._default_rate = client_options.get("rate_limit")

    def _client(self, key: TenantKey, options: Mapping[str, Any]) -> RemedyClient:
        settings = dict(options)
        tenant = key.tenant
        if tenant.base_url is not None:
            settings["base_url"] = tenant.base_url
        if tenant.rate_limit is not None:
            settings["rate_limit"] = tenant.rate_limit
        if isinstance(settings.get("rate_limit"), RateLimit):  # one value is one budget: each
            settings["rate_limit"] = evolve(settings["rate_limit"])  # key gets its own
        try:
            token = TokenFrom(key.token, f"{tenant.token_source} (tenant {tenant.name!r})")
            return RemedyClient(token=token, pool=self._pool, **settings)
        except ConfigurationError as error:
            raise ConfigurationError(f"tenant {tenant.name!r}: {error}") from None

    def __repr__(self) -> str:
        pool = "" if self._pool is None else f" max_connections={self._pool.max_connections}"
        return f"<TenantClients tenants={len(self._clients)}{pool}>"

    @property
    def tenants(self) -> tuple[Tenant, ...]:
        """The tenants, in the order given."""
        return self._tenants

    def rate_window(self, tenants: Iterable[str]) -> float:
        """The longest rate-limit window of these tenants' keys, the client's margin included
        (0 when none has a limit): how long a new holder of the keys waits before its first
        request when an earlier one (a process or worker that died) may have been sending, so
        that their requests never share a window at the service.

        Args:
            tenants: The tenants' names.
        """
        return longest_window((self._keys[name] for name in tenants), self._default_rate)

    def __getitem__(self, name: str) -> RemedyClient:
        """The client of the tenant of this name."""
        try:
            return self._clients[name]
        except KeyError:
            raise KeyError(f"no tenant named {name!r}{closest(name, self._clients)}") from None

    def __iter__(self) -> Iterator[str]:
        return iter(self._clients)

    def __len__(self) -> int:
        return len(self._clients)

    async def __aenter__(self) -> TenantClients:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()

    async def close(self) -> None:
        """Close every tenant's client and the pool; safe to call twice."""
        for client in self._clients.values():
            await client.close()
        if self._pool is not None:
            await self._pool.close()

    @overload
    def list(
        self,
        collection: Literal["endpoints"],
        *,
        tenants: Iterable[str] | None = None,
        resume_tokens: Mapping[str, str | None] | None = None,
        **list_options: Any,
    ) -> TenantPager[Endpoint]: ...

    @overload
    def list(
        self,
        collection: Literal["remediation_targets", "remediation-targets"],
        *,
        tenants: Iterable[str] | None = None,
        resume_tokens: Mapping[str, str | None] | None = None,
        **list_options: Any,
    ) -> TenantPager[RemediationTarget]: ...

    @overload
    def list(
        self,
        collection: Literal["scopes"],
        *,
        tenants: Iterable[str] | None = None,
        resume_tokens: Mapping[str, str | None] | None = None,
        **list_options: Any,
    ) -> TenantPager[Scope]: ...

    @overload
    def list(
        self,
        collection: Literal["vulnerability_findings", "vulnerability-findings"],
        *,
        tenants: Iterable[str] | None = None,
        resume_tokens: Mapping[str, str | None] | None = None,
        **list_options: Any,
    ) -> TenantPager[VulnerabilityFinding]: ...

    @overload
    def list(
        self,
        collection: str | Resource[Any],
        *,
        tenants: Iterable[str] | None = None,
        resume_tokens: Mapping[str, str | None] | None = None,
        **list_options: Any,
    ) -> TenantPager[Any]: ...

    def list(
        self,
        collection: str | Resource[Any],
        *,
        tenants: Iterable[str] | None = None,
        resume_tokens: Mapping[str, str | None] | None = None,
        **list_options: Any,
    ) -> TenantPager[Any]:
        """List one collection across the tenants at once; nothing is fetched until iterated.

        Each tenant's list is `client.<collection>.list(**list_options)`, checked here before
        any request as that call checks it (filters, page size, ...).

        Args:
            collection: `endpoints`, `remediation_targets`, `scopes` or
                `vulnerability_findings` (a path segment such as `vulnerability-findings` too).
            tenants: The names of the tenants to list. Default: every tenant.
            resume_tokens: Where to continue, by tenant, as `TenantPager.resume_tokens` (or
                `TenantErrors.resume_tokens`) gave it: a token continues that tenant's list,
                None marks a tenant listed to its end (left out), and a tenant not named
                starts from the beginning.
            **list_options: Arguments of the collection's `list()` for every tenant
                (`page_size`, `concurrency`, filters such as `os_family`, ...), but
                `resume_token`, which `resume_tokens` gives per tenant.
        """
        resource = resource_named(collection)
        if "resume_token" in list_options:
            raise ConfigurationError(
                "give each tenant's resume token in resume_tokens={tenant: token}, not "
                "resume_token="
            )
        names = list(self._clients) if tenants is None else list(tenants)
        for name in names:
            self[name]  # an unknown name raises KeyError naming the closest
        given = dict(resume_tokens or {})
        unknown = sorted(set(given) - set(self._clients))
        if unknown:
            raise ConfigurationError(f"resume_tokens names unknown tenants: {', '.join(unknown)}")
        complete = tuple(name for name in names if name in given and given[name] is None)
        pagers: dict[str, Pager[Any]] = {}
        for name in names:
            if name in complete:
                continue
            listed: ResourceCollection[Any] = getattr(self._clients[name], resource.attribute)
            try:
                pagers[name] = listed.list(resume_token=given.get(name), **list_options)
            except (TypeError, ValueError) as error:
                error.add_note(f"tenant: {name}")
                raise
        return TenantPager(resource, pagers, complete)
