"""Asset inventories and CMDBs: discovered devices, cloud resources and tracked hardware."""

from __future__ import annotations

from collections.abc import Sequence

from ._kit import (
    RESOURCE,
    VENDOR,
    RealApi,
    Record,
    Reply,
    Request,
    Sizing,
    Tokens,
    headers_of,
    link_header,
    offset_window,
    require,
    token_window,
    url_with,
)
from ._reference import LinkNext, Offset, Reference, TokenAt

# --- Armis --------------------------------------------------------------------------------------

_ARMIS = Sizing("length", 100, 10000)


def _armis_search(request: Request, records: Sequence[Record]) -> Reply:
    require(request, "aql")
    window = offset_window(request, records, _ARMIS, "from")
    data = {
        "count": len(window.items),
        "next": window.next_start,
        "prev": max(0, window.start - window.per_page) if window.start else None,
        "results": window.items,
        "total": window.total,
    }
    return Reply(200, {"data": data, "success": True})


ARMIS_SEARCH = RealApi(
    name="Armis: AQL search of devices (GET /api/v1/search/?aql=in:devices)",
    category=VENDOR,
    source=("https://docs.ic.armis.com/reference/search",),
    shape="items two levels down at `data.results`; next offset (integer, null at the end) at "
    "`data.next`, sent as `from`; `length` sets the size; total at `data.total`; `prev` beside",
    respond=_armis_search,
    reference=Reference(("data", "results"), TokenAt(("data", "next"), "from")),
    sizing=_ARMIS,
    base_path="/api",
    required_params={"aql": "in:devices"},
    assumptions="`length` defaults to 100 and is capped at 10,000",
)

# --- Wiz ----------------------------------------------------------------------------------------

_WIZ = Sizing("first", 500, 500)
_wiz_tokens = Tokens("wiz")


def _wiz_connection(request: Request, records: Sequence[Record]) -> Reply:
    window = token_window(request, records, _WIZ, _wiz_tokens, "after")
    page_info = {"hasNextPage": window.more, "endCursor": _wiz_tokens.encode(window.end)}
    connection = {"nodes": window.items, "pageInfo": page_info, "totalCount": window.total}
    return Reply(200, {"data": {RESOURCE: connection}})


WIZ_GRAPHQL = RealApi(
    name="Wiz: GraphQL connection (e.g. cloudResources), as served over GET",
    category=VENDOR,
    source=(
        "https://win.wiz.io/reference/pull-cloud-resources",
        "https://relay.dev/graphql/connections.htm",
    ),
    shape="items three levels down at `data.<field>.nodes`; `pageInfo.hasNextPage` and "
    "`pageInfo.endCursor` (present on the last page too) sent back as `after`; `first` sets the "
    "size; `totalCount` beside",
    respond=_wiz_connection,
    reference=Reference(
        ("data", RESOURCE, "nodes"),
        TokenAt(
            ("data", RESOURCE, "pageInfo", "endCursor"),
            "after",
            more_at=("data", RESOURCE, "pageInfo", "hasNextPage"),
        ),
    ),
    sizing=_WIZ,
    assumptions="GraphQL variables `first`/`after` are modelled as query parameters of a GET; "
    "`first` defaults to its documented maximum, 500",
)

# --- ServiceNow ---------------------------------------------------------------------------------

_SERVICENOW = Sizing("sysparm_limit", 10000, 10000)


def _servicenow_table(request: Request, records: Sequence[Record]) -> Reply:
    window = offset_window(request, records, _SERVICENOW, "sysparm_offset")
    size, last = window.per_page, (window.pages - 1) * window.per_page

    def at(offset: int) -> str:
        return url_with(request, sysparm_limit=size, sysparm_offset=offset)

    link = link_header(
        (at(0), "first"),
        (at(max(0, window.start - size)) if window.start > 0 else None, "prev"),
        (at(window.end) if window.more else None, "next"),
        (at(last), "last"),
        tight=True,
    )
    headers = headers_of(("Link", link), ("X-Total-Count", str(window.total)))
    return Reply(200, {"result": window.items}, headers)


SERVICENOW_TABLE = RealApi(
    name="ServiceNow Table API: cmdb_ci_computer (GET /api/now/table/{tableName})",
    category=VENDOR,
    source=(
        "https://www.servicenow.com/docs/bundle/xanadu-api-reference/page/integrate/"
        "inbound-rest/concept/c_TableAPI.html",
    ),
    shape='items in `result`; Link header without spaces (`<url>;rel="next",<url>;...`) with rel '
    "first/prev/next/last (no next on the last page); `X-Total-Count`; `sysparm_offset`/"
    "`sysparm_limit` (default 10,000)",
    respond=_servicenow_table,
    reference=Reference(("result",), LinkNext()),
    sizing=_SERVICENOW,
    base_path="/api/now/table",
)

# --- Snipe-IT -----------------------------------------------------------------------------------

_SNIPE_IT = Sizing("limit", 50, 500)


def _snipe_it_hardware(request: Request, records: Sequence[Record]) -> Reply:
    window = offset_window(request, records, _SNIPE_IT, "offset")
    return Reply(200, {"total": window.total, "rows": window.items})


SNIPE_IT_HARDWARE = RealApi(
    name="Snipe-IT API v1: List hardware assets (GET /api/v1/hardware)",
    category=VENDOR,
    source=("https://snipe-it.readme.io/reference/hardware-list",),
    shape="items in `rows`; `limit`/`offset` in, nothing echoed; total at `total`; no continuation",
    respond=_snipe_it_hardware,
    reference=Reference(("rows",), Offset("offset", total_at=("total",))),
    sizing=_SNIPE_IT,
    base_path="/api",
    assumptions="limit is capped at 500 (the server's configurable max_results default)",
)


CATALOGUE: tuple[RealApi, ...] = (
    ARMIS_SEARCH,
    WIZ_GRAPHQL,
    SERVICENOW_TABLE,
    SNIPE_IT_HARDWARE,
)
