"""The tenant as a column: each record batch of a list over many tenants says whose it is.

A batch of a tenant's records has the resource's fixed columns (`remedy_async.columnar`) after
a `tenant` column, a non-null string holding the tenant's name, so batches of every tenant share
one schema and a table of them can be grouped, filtered or partitioned by tenant.
"""

from __future__ import annotations

from typing import Any, Final

from remedy_async._columnar._arrow import arrow_schema
from remedy_async._columnar._extras import require

TENANT_COLUMN: Final = "tenant"
"""The column holding the tenant's name."""

PURPOSE: Final = "Arrow batches of many tenants"

_SCHEMAS: dict[type[Any], Any] = {}


def tenant_schema(model: type[Any]) -> Any:
    """The Arrow schema of a resource's records over many tenants: `tenant`, then its columns."""
    schema = _SCHEMAS.get(model)
    if schema is None:
        pa = require("pyarrow", PURPOSE)
        schema = arrow_schema(model).insert(0, pa.field(TENANT_COLUMN, pa.string(), nullable=False))
        _SCHEMAS[model] = schema
    return schema


def with_tenant(batch: Any, tenant: str) -> Any:
    """A record batch of one tenant's records with the `tenant` column before its own."""
    pa = require("pyarrow", PURPOSE)
    names = pa.repeat(pa.scalar(tenant, pa.string()), batch.num_rows)
    return batch.add_column(0, pa.field(TENANT_COLUMN, pa.string(), nullable=False), names)
