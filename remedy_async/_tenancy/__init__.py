"""Many organisations: each tenant's key, the tenants file, and reading many tenants at once.

In: tenants (`Tenant` values, or a tenants file), the clients' settings, and a collection with
its list options. Out: each tenant's records, pages or Arrow batches, tagged with the tenant,
and where each tenant stands (resume tokens); for an engine that spreads the work over
workers, the plan's units and the blocks a shard of them reads.

Modules:
- `_tenant`: `Tenant` (where a key's token comes from, its base URL and rate limit) and
  `TenantKey` (a tenant with its token read, never shown);
- `_tenants_file`: `load_tenants`, a tenants file read and checked line by line;
- `_clients`: `TenantClients`, one client per tenant over one connection pool;
- `_pager`: `TenantPager`, one collection listed across the tenants, and what it yields;
- `_columns`: the `tenant` column of Arrow batches.
"""
