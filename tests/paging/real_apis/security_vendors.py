"""EDR/XDR platforms, identity-based device trust and vulnerability scanners: the service's kind."""

from __future__ import annotations

import bisect
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
    Window,
    bad_request,
    keyset_window,
    offset_window,
    page_window,
    token_window,
    url_with,
)
from ._reference import Offset, PageNumber, Reference, TokenAt, UrlAt

# --- CrowdStrike Falcon -------------------------------------------------------------------------

_FALCON_HOSTS = Sizing("limit", 100, 10000)
_falcon_hosts_tokens = Tokens("crowdstrike-hosts")


def _falcon_meta(pagination: dict[str, object]) -> dict[str, object]:
    return {
        "query_time": 0.012,
        "pagination": pagination,
        "powered_by": "device-api",
        "trace_id": "7e1c3f0a-0000-4000-8000-000000000000",
    }


def _crowdstrike_hosts(request: Request, records: Sequence[Record]) -> Reply:
    window = token_window(request, records, _FALCON_HOSTS, _falcon_hosts_tokens, "offset")
    pagination: dict[str, object] = {
        "offset": request.query.get("offset", ""),
        "limit": window.per_page,
        "total": window.total,
        "expires_at": 1767225600000000000,
    }
    if window.more:
        pagination["next"] = _falcon_hosts_tokens.encode(window.end)
    return Reply(200, {"meta": _falcon_meta(pagination), "resources": window.items, "errors": []})


CROWDSTRIKE_HOSTS = RealApi(
    name="CrowdStrike Falcon: Hosts CombinedDevicesByFilter (GET /devices/combined/devices/v1)",
    category=VENDOR,
    source=(
        "https://www.falconpy.io/Service-Collections/Hosts.html (CombinedDevicesByFilter)",
        "https://github.com/CrowdStrike/rusty-falcon/blob/main/src/models/deviceapi_device_paging_v2.rs",
    ),
    shape="items in `resources`; string token at `meta.pagination.next` sent back as `offset`; "
    "`meta.pagination.offset` echoes the string sent; total at `meta.pagination.total`; "
    "`next` absent on the last page",
    respond=_crowdstrike_hosts,
    reference=Reference(("resources",), TokenAt(("meta", "pagination", "next"), "offset")),
    sizing=_FALCON_HOSTS,
    assumptions="the last page omits `meta.pagination.next` (the SDK model marks it optional; "
    "the docs say to stop when none is returned)",
)

_SPOTLIGHT = Sizing("limit", 100, 5000)
_spotlight_tokens = Tokens("crowdstrike-spotlight")


def _crowdstrike_spotlight(request: Request, records: Sequence[Record]) -> Reply:
    window = token_window(request, records, _SPOTLIGHT, _spotlight_tokens, "after")
    pagination: dict[str, object] = {"limit": window.per_page, "total": window.total}
    if window.more:
        pagination["after"] = _spotlight_tokens.encode(window.end)
    return Reply(200, {"meta": _falcon_meta(pagination), "resources": window.items, "errors": []})


CROWDSTRIKE_SPOTLIGHT = RealApi(
    name="CrowdStrike Falcon Spotlight: combined vulnerabilities "
    "(GET /spotlight/combined/vulnerabilities/v1)",
    category=VENDOR,
    source=("https://www.falconpy.io/Service-Collections/Spotlight-Vulnerabilities.html",),
    shape="items in `resources`; token at `meta.pagination.after` sent back as `after`; total at "
    "`meta.pagination.total`; `after` absent on the last page",
    respond=_crowdstrike_spotlight,
    reference=Reference(("resources",), TokenAt(("meta", "pagination", "after"), "after")),
    sizing=_SPOTLIGHT,
    assumptions="the last page omits `meta.pagination.after` (PSFalcon's loop stops there)",
)

# --- Microsoft Defender for Endpoint ------------------------------------------------------------

_MDE = Sizing("$top", 10000, 10000)


def _defender_machines(request: Request, records: Sequence[Record]) -> Reply:
    window = offset_window(request, records, _MDE, "$skip")
    body: dict[str, object] = {
        "@odata.context": "https://api.securitycenter.microsoft.com/api/$metadata#Machines",
        "value": window.items,
    }
    if window.more:
        body["@odata.nextLink"] = url_with(request, **{"$skip": window.end})
    return Reply(200, body)


DEFENDER_MACHINES = RealApi(
    name="Microsoft Defender for Endpoint: List machines (GET /api/machines)",
    category=VENDOR,
    source=("https://learn.microsoft.com/en-us/defender-endpoint/api/get-machines",),
    shape="OData: items in `value`; `$top` (max 10,000) and `$skip`; next page URL at "
    "`@odata.nextLink` (absent on the last page)",
    respond=_defender_machines,
    reference=Reference(("value",), UrlAt(("@odata.nextLink",))),
    sizing=_MDE,
    base_path="/api",
    assumptions="past 10,000 machines the service sends `@odata.nextLink` carrying `$skip` "
    "(the page documents $top/$skip only)",
)

# --- SentinelOne --------------------------------------------------------------------------------

_S1 = Sizing("limit", 10, 1000)
_s1_tokens = Tokens("sentinelone")


def _sentinelone_agents(request: Request, records: Sequence[Record]) -> Reply:
    if "cursor" in request.query:
        window = token_window(request, records, _S1, _s1_tokens, "cursor")
    else:
        window = offset_window(request, records, _S1, "skip")
        if window.start > 1000:
            raise bad_request("skip must be at most 1000; use cursor to iterate further")
    cursor = _s1_tokens.after(window)
    return Reply(
        200,
        {"data": window.items, "pagination": {"nextCursor": cursor, "totalItems": window.total}},
    )


SENTINELONE_AGENTS = RealApi(
    name="SentinelOne: Get Agents (GET /web/api/v2.1/agents)",
    category=VENDOR,
    source=(
        "https://{tenant}.sentinelone.net/api-doc/api-details?category=agents&api=get-agents",
        "https://docs.blinkops.com/docs/integrations/sentinelone/actions/list-agents",
    ),
    shape="items in `data`; token at `pagination.nextCursor` (null on the last page) sent back "
    "as `cursor`; total at `pagination.totalItems`; `skip` offsets up to 1000",
    respond=_sentinelone_agents,
    reference=Reference(("data",), TokenAt(("pagination", "nextCursor"), "cursor")),
    sizing=_S1,
    base_path="/web/api/v2.1",
)

# --- Sophos Central -----------------------------------------------------------------------------

_SOPHOS = Sizing("pageSize", 50, 500)
_sophos_tokens = Tokens("sophos")


def _sophos_endpoints(request: Request, records: Sequence[Record]) -> Reply:
    window = token_window(request, records, _SOPHOS, _sophos_tokens, "pageFromKey")
    pages: dict[str, object] = {"size": window.per_page, "maxSize": 500}
    if "pageFromKey" in request.query:
        pages["fromKey"] = request.query["pageFromKey"]
    if window.more:
        pages["nextKey"] = _sophos_tokens.encode(window.end)
    if request.query.get("pageTotal") == "true":
        pages |= {"total": window.pages, "items": window.total}
    return Reply(200, {"items": window.items, "pages": pages})


SOPHOS_ENDPOINTS = RealApi(
    name="Sophos Central: Endpoint API list endpoints (GET /endpoint/v1/endpoints)",
    category=VENDOR,
    source=(
        "https://developer.sophos.com/docs/endpoint-v1/1/routes/endpoints/get",
        "https://developer.sophos.com/intro#pagination",
    ),
    shape="items in `items`; key at `pages.nextKey` sent back as `pageFromKey`; `pages.fromKey` "
    "echoes it; totals only with pageTotal=true; `nextKey` absent on the last page",
    respond=_sophos_endpoints,
    reference=Reference(("items",), TokenAt(("pages", "nextKey"), "pageFromKey")),
    sizing=_SOPHOS,
    base_path="/endpoint",
)

# --- Trend Vision One ---------------------------------------------------------------------------

_TREND = Sizing("top", 50, 1000)
_trend_tokens = Tokens("trend-vision-one")


def _trend_endpoints(request: Request, records: Sequence[Record]) -> Reply:
    window = token_window(request, records, _TREND, _trend_tokens, "skipToken")
    body: dict[str, object] = {"items": window.items}
    if window.more:
        body["nextLink"] = url_with(request, skipToken=_trend_tokens.encode(window.end))
    return Reply(200, body)


TREND_VISION_ONE = RealApi(
    name="Trend Vision One: list endpoints (GET /v3.0/endpointSecurity/endpoints)",
    category=VENDOR,
    source=("https://automation.trendmicro.com/xdr/api-v3#tag/Endpoint-Security",),
    shape="items in `items`; next page URL at `nextLink` carrying an opaque `skipToken` "
    "(absent on the last page); `top` sets the size",
    respond=_trend_endpoints,
    reference=Reference(("items",), UrlAt(("nextLink",))),
    sizing=_TREND,
    base_path="/v3.0/endpointSecurity",
    assumptions="`top` defaults to 50 and accepts up to 1000 (other v3.0 lists use 50 to 1000)",
)

# --- Cisco Secure Endpoint ----------------------------------------------------------------------

_CISCO = Sizing("limit", 500, 500)


def _cisco_computers(request: Request, records: Sequence[Record]) -> Reply:
    window = offset_window(request, records, _CISCO, "offset")
    links: dict[str, str] = {"self": str(request.url)}
    if window.more:
        links["next"] = url_with(request, offset=window.end, limit=window.per_page)
    if window.start > 0:
        links["prev"] = url_with(request, offset=max(0, window.start - window.per_page))
    results = {
        "total": window.total,
        "current_item_count": len(window.items),
        "index": window.start,
        "items_per_page": window.per_page,
    }
    return Reply(
        200,
        {
            "version": "v1.2.0",
            "metadata": {"links": links, "results": results},
            "data": window.items,
        },
    )


CISCO_SECURE_ENDPOINT = RealApi(
    name="Cisco Secure Endpoint (AMP): List computers (GET /v1/computers)",
    category=VENDOR,
    source=(
        "https://api-docs.amp.cisco.com/api_actions/details?api_action=GET+%2Fv1%2Fcomputers"
        "&api_host=api.amp.cisco.com&api_resource=Computer&api_version=v1",
    ),
    shape="items in `data`; next page URL at `metadata.links.next` (absent on the last page) "
    "beside `prev` and `self`; total at `metadata.results.total`; `offset`/`limit`",
    respond=_cisco_computers,
    reference=Reference(("data",), UrlAt(("metadata", "links", "next"))),
    sizing=_CISCO,
)

# --- Duo ----------------------------------------------------------------------------------------

_DUO = Sizing("limit", 100, 500)


def _duo_endpoints(request: Request, records: Sequence[Record]) -> Reply:
    window = offset_window(request, records, _DUO, "offset")
    metadata: dict[str, object] = {"total_objects": window.total}
    if window.more:
        metadata["next_offset"] = window.end
    if window.start > 0:
        metadata["prev_offset"] = max(0, window.start - window.per_page)
    return Reply(200, {"stat": "OK", "response": window.items, "metadata": metadata})


DUO_ENDPOINTS = RealApi(
    name="Duo Admin API: Retrieve Endpoints (GET /admin/v1/endpoints)",
    category=VENDOR,
    source=(
        "https://duo.com/docs/adminapi#endpoints",
        "https://duo.com/docs/adminapi#response-paging",
    ),
    shape="items in `response`; next offset (integer) at `metadata.next_offset`, absent on the "
    "last page, sent as `offset`; total at `metadata.total_objects`; `prev_offset` beside",
    respond=_duo_endpoints,
    reference=Reference(("response",), TokenAt(("metadata", "next_offset"), "offset")),
    sizing=_DUO,
    base_path="/admin",
)

# --- Tenable Vulnerability Management -----------------------------------------------------------

_TENABLE_AGENTS = Sizing("limit", 50, 5000)


def _tenable_agents(request: Request, records: Sequence[Record]) -> Reply:
    window = offset_window(request, records, _TENABLE_AGENTS, "offset")
    pagination = {
        "total": window.total,
        "limit": window.per_page,
        "offset": window.start,
        "sort": [{"name": "name", "order": "asc"}],
    }
    return Reply(200, {RESOURCE: window.items, "pagination": pagination})


TENABLE_AGENTS = RealApi(
    name="Tenable Vulnerability Management: List agents (GET /scanners/{scanner_id}/agents)",
    category=VENDOR,
    source=("https://developer.tenable.com/reference/agents-list",),
    shape="items under the resource's name (`agents`); `offset`/`limit` echoed in `pagination` "
    "with `total`; no continuation: the end is offset + limit reaching the total",
    respond=_tenable_agents,
    reference=Reference((RESOURCE,), Offset("offset", total_at=("pagination", "total"))),
    sizing=_TENABLE_AGENTS,
    base_path="/scanners/1",
)

_TENABLE_ASSETS_CAP = 5000


def _tenable_assets(request: Request, records: Sequence[Record]) -> Reply:
    return Reply(200, {RESOURCE: list(records[:_TENABLE_ASSETS_CAP]), "total": len(records)})


TENABLE_ASSETS = RealApi(
    name="Tenable Vulnerability Management: List assets (GET /assets)",
    category=VENDOR,
    source=("https://developer.tenable.com/reference/assets-list-assets",),
    shape="items under the resource's name (`assets`), at most 5,000, with `total`; no paging "
    "parameter at all (the asset export API is the way past 5,000)",
    respond=_tenable_assets,
    reference=Reference((RESOURCE,), None),
    sizing=Sizing(None, _TENABLE_ASSETS_CAP),
    expected="refuses",
    expected_refusal_reason="the list is capped at 5,000 with no continuation; `total` shows it "
    "incomplete and only a different API (asset export) reaches the rest",
)

# --- Rapid7 InsightVM ---------------------------------------------------------------------------

_INSIGHTVM = Sizing("size", 10, 500)


def _insightvm_assets(request: Request, records: Sequence[Record]) -> Reply:
    window = page_window(request, records, _INSIGHTVM, "page", first=0)
    number, size, last = window.page_number(0), window.per_page, window.pages - 1

    def link(page: int, rel: str) -> dict[str, str]:
        return {"href": url_with(request, page=page, size=size), "rel": rel}

    links = [link(0, "first")]
    links += [link(number - 1, "prev")] if number > 0 else []
    links += [{"href": str(request.url), "rel": "self"}]
    links += [link(number + 1, "next")] if window.more else []
    links += [link(last, "last")]
    page = {
        "number": number,
        "size": size,
        "totalResources": window.total,
        "totalPages": window.pages,
    }
    return Reply(200, {"resources": window.items, "page": page, "links": links})


INSIGHTVM_ASSETS = RealApi(
    name="Rapid7 InsightVM API v3: Assets (GET /api/3/assets)",
    category=VENDOR,
    source=("https://help.rapid7.com/insightvm/en-us/api/index.html#section/Overview/Paging",),
    shape="items in `resources`; zero-based `page` and `size`, echoed in `page` with "
    "`totalResources`/`totalPages`; HATEOAS `links` array of {href, rel} with rel next/prev/"
    "first/last/self (no next on the last page)",
    respond=_insightvm_assets,
    reference=Reference(("resources",), PageNumber("page", 0, pages_at=("page", "totalPages"))),
    sizing=_INSIGHTVM,
    base_path="/api/3",
)

# --- Qualys CSAM --------------------------------------------------------------------------------

_QUALYS = Sizing("pageSize", 100, 300)


def _qualys_assets(request: Request, records: Sequence[Record]) -> Reply:
    window = keyset_window(request, records, _QUALYS, "lastSeenAssetId")
    return Reply(
        200,
        {
            "responseMessage": "Valid API Access",
            "count": len(window.items),
            "responseCode": "SUCCESS",
            "lastSeenAssetId": window.last_id,
            "hasMore": 1 if window.more else 0,
            "assetListData": {"asset": window.items},
        },
    )


QUALYS_CSAM = RealApi(
    name="Qualys CyberSecurity Asset Management v2: search assets (/rest/2.0/search/am/asset)",
    category=VENDOR,
    source=("https://docs.qualys.com/en/csam/api/asset_management_apis/search_assets.htm",),
    shape="items two levels down at `assetListData.asset`; `hasMore` as integer 1/0; keyset "
    "`lastSeenAssetId` (the page's last id) sent back as `lastSeenAssetId`; `count` per page",
    respond=_qualys_assets,
    reference=Reference(
        ("assetListData", "asset"),
        TokenAt(("lastSeenAssetId",), "lastSeenAssetId", more_at=("hasMore",)),
    ),
    sizing=_QUALYS,
    base_path="/rest/2.0/search/am",
    assumptions="the real operation is a POST with a JSON filter body, modelled over GET; "
    "pageSize defaults to 100 (300 is the documented maximum)",
)

# --- Qualys VMDR --------------------------------------------------------------------------------

_QUALYS_VM = Sizing("truncation_limit", 1000, None)


def _qualys_hosts(request: Request, records: Sequence[Record]) -> Reply:
    id_min = request.query.get("id_min")
    ids = [str(record["id"]) for record in records]
    start = 0 if id_min is None else bisect.bisect_left(ids, id_min)
    window = Window(records, start, _QUALYS_VM.of(request) or None)
    response: dict[str, object] = {
        "DATETIME": "2026-01-01T00:00:00Z",
        "HOST_LIST": {"HOST": window.items},
    }
    if window.more:
        response["WARNING"] = {
            "CODE": "1980",
            "TEXT": f"{window.per_page} record limit exceeded. Use URL to get next batch of "
            "results.",
            "URL": url_with(request, id_min=ids[window.end]),
        }
    return Reply(200, {"HOST_LIST_OUTPUT": {"RESPONSE": response}})


QUALYS_VMDR_HOSTS = RealApi(
    name="Qualys VMDR API v2: Host List (GET /api/2.0/fo/asset/host/?action=list)",
    category=VENDOR,
    source=(
        "https://docs.qualys.com/en/vm/api/assets/host_lists/host_list.htm",
        "https://docs.qualys.com/en/vm/api/assets/host_lists/truncation_limit.htm",
    ),
    shape="items four levels down under upper-case keys at "
    "`HOST_LIST_OUTPUT.RESPONSE.HOST_LIST.HOST`; while truncated, `RESPONSE.WARNING` holds "
    "`CODE` 1980, a `TEXT` and the next batch's `URL` (with `id_min`), absent on the last batch; "
    "`truncation_limit` sets the size (default 1,000); `action=list` is required",
    respond=_qualys_hosts,
    reference=Reference(
        ("HOST_LIST_OUTPUT", "RESPONSE", "HOST_LIST", "HOST"),
        UrlAt(("HOST_LIST_OUTPUT", "RESPONSE", "WARNING", "URL")),
    ),
    sizing=_QUALYS_VM,
    base_path="/api/2.0/fo/asset/host",
    required_params={"action": "list"},
    assumptions="the API answers XML; the model serves its structure as JSON, element for key "
    "(as an XML-to-JSON conversion renders it, a repeated element as an array); `id_min` is "
    "the id of the next batch's first host; unknown parameters are ignored",
)


CATALOGUE: tuple[RealApi, ...] = (
    CROWDSTRIKE_HOSTS,
    CROWDSTRIKE_SPOTLIGHT,
    DEFENDER_MACHINES,
    SENTINELONE_AGENTS,
    SOPHOS_ENDPOINTS,
    TREND_VISION_ONE,
    CISCO_SECURE_ENDPOINT,
    DUO_ENDPOINTS,
    TENABLE_AGENTS,
    TENABLE_ASSETS,
    INSIGHTVM_ASSETS,
    QUALYS_CSAM,
    QUALYS_VMDR_HOSTS,
)
