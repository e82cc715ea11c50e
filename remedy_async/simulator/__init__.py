"""An embedded implementation of the service's public API, for demos, tests and benchmarks.

    from remedy_async.simulator import FaultSpec, Simulator, SimulatorConfig

    config = SimulatorConfig(seed=7, size=1000, faults=[FaultSpec("http-503", 0.1)])
    async with Simulator(config) as sim:
        ...  # sim.url, sim.counters, sim.dataset

By default it serves the service's published contract (Furl's public read-only API, written
in `remedy_async/openapi.yaml`): snake_case records with the published fields and UUID ids,
`limit`/`offset` paging with `data`/`total`/`limit`/`offset` (`limit` 1 to 100, default 50),
`osFamily`/`hasAgent` on endpoints, undeclared query parameters ignored, `{"error":
"<message>"}` bodies with the published messages. What is unpublished (the fields of targets
and findings, the other lists' paging, health and agent-configuration paths) is assumed; see
`SimulatorConfig`. From a shell: `python -m remedy_async.simulator --size 1000`. Every run
serves the OpenAPI document of what it serves at `GET /openapi.json` (`openapi_document(config)`, or
`--print-spec` to print it): `openapi.yaml` itself for the default run, rewritten for another
paging convention, naming, error shape, auth header or page size.

Lists speak any paging convention of `remedy_async.CONVENTIONS`, rendered from the row's data
(adding a row adds a mode): `SimulatorConfig(paging="odata")` or `--paging odata` for the run,
the `X-Simulator-Paging: <name>` request header for one request, `--paging list` for the names.
`SimulatorConfig(disguise_paging=True)` (`--disguise-paging`) serves the same pages with the
continuation signals renamed to names no client knows (`nxt_tok_x`, `nxt_tok_y`, ... in the
body, `Nxt-Tok-X` for a next-page header), to check that a client fails loudly rather than
stopping after the first page.

Errors come in any common body shape (`SimulatorConfig(error_format="fastapi")`, `--errors
fastapi`; the names are `ERROR_FORMATS`). `SimulatorConfig(echo_token=True)` (`--echo-token`)
is a hostile server: it echoes each request's credential into cursors, next links, error bodies
and a redirect of every get, to check that a client never shows it.

A composed mode serves any combination of paging axes real APIs use: `paging="compose:..."`
(a `Composition` in its text form: items path, continuation kind and place, request
parameter, end evidence, flags, totals, echoes, backward and redundant continuations, link
form, page sizes), and `Composition.convention` is the convention that reads it.
`SimulatorConfig(base_path="/wiki/rest/api")` mounts every route under a path.

`sim.dataset.hide(resource, ids)` and `sim.dataset.show(resource, ids)` make a list shrink or
grow while it is being listed (see `Dataset`): totals, offsets and page numbers follow the
visible records; a cursor resumes after its place in the list order. The data can change by
itself between pages (`SimulatorConfig(churn_count=2, churn_every=1)`, `--churn-count 2
--churn-every 1`: two records removed, modified and added before every list request), and
`SimulatorConfig(order="updated")` (`--order updated`) lists records by last change, so an update
moves a record to the end of the list (the default, `created`, keeps every record in place).

One simulator can serve many organisations, as the service's API keys are per organisation:
`SimulatorConfig(tenants=3, size=1000)` (`--tenants 3`) serves `org-01`, `org-02` and `org-03`,
each with its own token (`sim.tenants`, each a `SimulatedTenant`) and records (`size` shared out,
the first getting `tenant_skew` of it), churned by its own lists; a request's token picks whose
records it sees. `tenant_rate_limit` limits each token (429 with `Retry-After`, for that token
only); `sim.counters.tenants` and `sim.arrivals(name)` say what each token was used for, and
`sim.write_tenants_file(directory)` (`--write-tenants DIR`) writes the keys for a client.

Modules, from the top down (each imports only modules listed after it):

- serving: `_arguments` (the command line and `serve`; the server imported on first use),
  `_server` (`Simulator` on a socket, and the sockets' protocol that answers what aiohttp
  refuses), `_handler` (routing, auth, rate limits, faults, the routes, and sending the answer,
  bent by a shaping fault), `_openapi` (the run's OpenAPI document);
- tenants: `_tenants` (the organisations a run serves: `SimulatedTenant`, how `size` is shared
  out, their seeds and tokens, the state each is served from, and the tenants file);
- lists: `_pages` (the one page server, `ListResponder`: every page by its composition),
  `_places` (where a request wants to be: offsets, page numbers, keyset ids, signed cursors),
  `_layout` (where a page's items and signals go), `_rows` (a named convention as the
  composition that serves it, disguised or not);
- answers: `_agent_configuration` (the agent configuration download), `_injector` (which fault
  hits a request), `_responses` (`Payload`, `ApiError` and the error-body shapes);
- data: `_dataset` (`Dataset`: records hidden, changed, filtered and encoded), `_churn` (a data
  set that changes over time), `_matching` (the filters each list takes, and which records they
  match), `_records` (whole records, and their keys respelled), `_world` (ids, relations and
  cheap per-record facts), `_catalog` (the vulnerability catalog and word lists), `_prng`
  (stateless seeded randomness), `_cache` (an LRU bounded by size);
- the run: `_run_config` (`SimulatorConfig`, `FaultSpec`), `_composition` (`Composition`, its
  text form and what it must hold together); and two leaves, `_ratelimit` (a token bucket and
  a sliding window) and `_counters` (what the simulator saw and did, per tenant too).
"""

from importlib import import_module as _import_module
from typing import TYPE_CHECKING as _TYPE_CHECKING

from ._arguments import (
    add_serve_arguments,
    config_from_args,
    paging_listing,
    printed_spec,
    serve,
)
from ._composition import Composition, Slot
from ._counters import SimulatorCounters, TenantCounts
from ._run_config import (
    ERROR_FORMATS,
    ITEMS_KEYS,
    PAGING_CONVENTIONS,
    RESOURCES,
    ROUTE_NAMES,
    FaultKind,
    FaultKindName,
    FaultSpec,
    SimulatorConfig,
)

if _TYPE_CHECKING:
    from ._dataset import Dataset
    from ._injector import FaultCounts
    from ._openapi import openapi_document, openapi_json
    from ._server import Simulator
    from ._tenants import SimulatedTenant

_LAZY = {
    "Dataset": "._dataset",
    "FaultCounts": "._injector",
    "SimulatedTenant": "._tenants",
    "Simulator": "._server",
    "openapi_document": "._openapi",
    "openapi_json": "._openapi",
}
"""Names whose module is imported on first use (PEP 562): the server (and aiohttp.web), the
data set, the tenants and the OpenAPI builder, which a command line that only adds or reads the
options (`remedy-async --help`) never needs."""

__all__ = [
    "ERROR_FORMATS",
    "ITEMS_KEYS",
    "PAGING_CONVENTIONS",
    "RESOURCES",
    "ROUTE_NAMES",
    "Composition",
    "Dataset",
    "FaultCounts",
    "FaultKind",
    "FaultKindName",
    "FaultSpec",
    "SimulatedTenant",
    "Simulator",
    "SimulatorConfig",
    "SimulatorCounters",
    "Slot",
    "TenantCounts",
    "add_serve_arguments",
    "config_from_args",
    "openapi_document",
    "openapi_json",
    "paging_listing",
    "printed_spec",
    "serve",
]


def __getattr__(name: str) -> object:
    """Import a lazily loaded name on first use, and keep it."""
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(_import_module(module, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    """Every name of the package, the lazily loaded ones included."""
    return sorted({*globals(), *_LAZY})
