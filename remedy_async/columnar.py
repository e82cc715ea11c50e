"""Records in bulk: checked wire dicts, and Arrow batches of a fixed schema per resource.

    batches = arrow_batches(client.vulnerability_findings.list())
    async for batch in batches:          # a pyarrow.RecordBatch per page
        writer.write_batch(batch)
        save(batches.resume_token)

The schema of each resource is fixed by its model, never by the data: every published field is
a column under its wire (snake_case) name; strings and enums (unknown values kept) as `string`,
timestamps as `timestamp[us, UTC]`, numbers as `float64`/`int64`, booleans as `bool`, lists of
strings or enum values as `list<string>`, nested objects (an endpoint's `operating_system`, a
scope's `subject_filter`, `endpoint_filter` and `finding_filter`) as structs of their own typed
fields; then `extra`, one JSON string column: an object of every key the model does not type,
at any depth, in the shape it arrived (`{"severity": "high", "operating_system": {"kernel":
"6.1"}}`), null when there is none. Remediation targets and vulnerability findings type only
`id`, `created_at` and `updated_at` (their schemas are unpublished), so the rest of each of
their records is in `extra`: in DuckDB, `extra->>'severity'` or `json_extract_string(extra,
'$.severity')`. A null field and an absent one are both null. `records_of(batch)` gives the wire
dicts back. Arrow needs pyarrow (`pip install 'remedy-async[arrow]'`): without it these raise
`MissingDependencyError` naming the extra. Importing this module imports no pyarrow.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from remedy_async._columnar._arrow import ArrowBatches, BatchBuilder, arrow_batches, records_of
from remedy_async._columnar._arrow import arrow_schema as _arrow_schema
from remedy_async._columnar._checked import checked_dicts
from remedy_async._models import Resource

__all__ = [
    "ArrowBatches",
    "arrow_batches",
    "arrow_schema",
    "checked_dicts",
    "record_batch",
    "records_of",
]

_BUILDERS: dict[type[Any], BatchBuilder] = {}


def _model(resource: Resource[Any] | type[Any]) -> type[Any]:
    return resource.model if isinstance(resource, Resource) else resource


def arrow_schema(resource: Resource[Any] | type[Any]) -> Any:
    """The fixed `pyarrow.Schema` of a resource's records (a `Resource` or its model)."""
    return _arrow_schema(_model(resource))


def record_batch(resource: Resource[Any] | type[Any], rows: Sequence[Mapping[str, Any]]) -> Any:
    """One `pyarrow.RecordBatch` of a resource's fixed schema from snake_case wire dicts that
    its model accepts (as `checked_dicts` yields them)."""
    model = _model(resource)
    builder = _BUILDERS.get(model)
    if builder is None:
        builder = _BUILDERS[model] = BatchBuilder(model)
    return builder.build(rows)


for _name in __all__:
    globals()[_name].__module__ = __name__
del _name
