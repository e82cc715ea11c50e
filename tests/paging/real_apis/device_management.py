"""Endpoint management: MDM, RMM, directory and CMDB inventories of devices."""

from __future__ import annotations

from collections.abc import Sequence

from ._kit import (
    PASCAL_RESOURCE,
    RESOURCE,
    VENDOR,
    RealApi,
    Record,
    Reply,
    Request,
    Sizing,
    Tokens,
    compact,
    keyset_window,
    offset_window,
    page_window,
    token_window,
    url_with,
)
from ._reference import Keyset, Offset, PageNumber, Reference, TokenAt, UrlAt

# --- Microsoft Graph: Intune --------------------------------------------------------------------

_INTUNE = Sizing("$top", 1000, 1000)
_graph_tokens = Tokens("microsoft-graph")


def _intune_devices(request: Request, records: Sequence[Record]) -> Reply:
    window = token_window(request, records, _INTUNE, _graph_tokens, "$skiptoken")
    body: dict[str, object] = {
        "@odata.context": "https://graph.microsoft.com/v1.0/$metadata#deviceManagement/"
        "managedDevices",
        "value": window.items,
    }
    if window.more:
        body["@odata.nextLink"] = url_with(
            request, **{"$skiptoken": _graph_tokens.encode(window.end)}
        )
    return Reply(200, body)


INTUNE_MANAGED_DEVICES = RealApi(
    name="Microsoft Graph (Intune): List managedDevices (GET /deviceManagement/managedDevices)",
    category=VENDOR,
    source=(
        "https://learn.microsoft.com/en-us/graph/api/intune-devices-manageddevice-list",
        "https://learn.microsoft.com/en-us/graph/paging",
    ),
    shape="OData: items in `value`; next page URL at `@odata.nextLink` carrying an opaque "
    "`$skiptoken` (absent on the last page); `$top` sets the size",
    respond=_intune_devices,
    reference=Reference(("value",), UrlAt(("@odata.nextLink",))),
    sizing=_INTUNE,
    base_path="/v1.0/deviceManagement",
    assumptions="the service's default page is 1,000 devices (Graph documents server-driven "
    "page sizes without giving this one)",
)

# --- Jamf Pro -----------------------------------------------------------------------------------

_JAMF = Sizing("page-size", 100, 2000)


def _jamf_inventory(request: Request, records: Sequence[Record]) -> Reply:
    window = page_window(request, records, _JAMF, "page", first=0)
    return Reply(200, {"totalCount": window.total, "results": window.items})


JAMF_PRO_INVENTORY = RealApi(
    name="Jamf Pro API: computers inventory (GET /api/v1/computers-inventory)",
    category=VENDOR,
    source=("https://developer.jamf.com/jamf-pro/reference/get_v1-computers-inventory",),
    shape="items in `results`; zero-based `page` and kebab `page-size`; total at `totalCount`; "
    "no continuation, nothing echoed",
    respond=_jamf_inventory,
    reference=Reference(("results",), PageNumber("page", 0, total_at=("totalCount",))),
    sizing=_JAMF,
    base_path="/api",
    assumptions="page-size is capped at 2,000",
)

# --- Kandji -------------------------------------------------------------------------------------

_KANDJI = Sizing("limit", 300, 300)


def _kandji_devices(request: Request, records: Sequence[Record]) -> Reply:
    return Reply(200, offset_window(request, records, _KANDJI, "offset").items)


KANDJI_DEVICES = RealApi(
    name="Kandji: List Devices (GET /api/v1/devices)",
    category=VENDOR,
    source=("https://api-docs.kandji.io/ (Device Information: List Devices)",),
    shape="bare array of at most 300 (the default and the cap); `limit`/`offset`; no signal of "
    "any kind that more exist",
    respond=_kandji_devices,
    reference=Reference((), Offset("offset")),
    sizing=_KANDJI,
    base_path="/api",
)

# --- Automox ------------------------------------------------------------------------------------

_AUTOMOX = Sizing("limit", 500, 500)


def _automox_servers(request: Request, records: Sequence[Record]) -> Reply:
    return Reply(200, page_window(request, records, _AUTOMOX, "page", first=0).items)


AUTOMOX_DEVICES = RealApi(
    name="Automox: List all devices (GET /api/servers)",
    category=VENDOR,
    source=("https://developer.automox.com/openapi/axconsole/operation/getDevices/",),
    shape="bare array of at most 500 (default and cap); zero-based `page` with `limit`; no "
    "signal of any kind that more exist",
    respond=_automox_servers,
    reference=Reference((), PageNumber("page", 0)),
    sizing=_AUTOMOX,
    base_path="/api",
)

# --- NinjaOne -----------------------------------------------------------------------------------

_NINJA = Sizing("pageSize", None)


def _ninja_devices(request: Request, records: Sequence[Record]) -> Reply:
    return Reply(200, keyset_window(request, records, _NINJA, "after").items)


NINJAONE_DEVICES = RealApi(
    name="NinjaOne: List devices (GET /v2/devices)",
    category=VENDOR,
    source=("https://app.ninjarmm.com/apidocs/?links.active=core#/devices/getDevices",),
    shape="bare array; `pageSize` and keyset `after` (the last device id of the previous page); "
    "no signal of any kind that more exist",
    respond=_ninja_devices,
    reference=Reference((), Keyset("after")),
    sizing=_NINJA,
    assumptions="without pageSize the whole list comes back (the docs give no default); "
    "`after` compares ids in list order",
)

# --- Datto RMM ----------------------------------------------------------------------------------

_DATTO = Sizing("max", 250, 250)


def _datto_devices(request: Request, records: Sequence[Record]) -> Reply:
    window = page_window(request, records, _DATTO, "page", first=0)
    number = window.page_number(0)
    details = {
        "count": len(window.items),
        "totalCount": window.total,
        "prevPageUrl": url_with(request, page=number - 1) if number > 0 else None,
        "nextPageUrl": url_with(request, page=number + 1, max=window.per_page)
        if window.more
        else None,
    }
    return Reply(200, {"pageDetails": details, RESOURCE: window.items})


DATTO_RMM_DEVICES = RealApi(
    name="Datto RMM API v2: account devices (GET /api/v2/account/devices)",
    category=VENDOR,
    source=(
        "https://help.aem.autotask.net/en/Content/2SETUP/APIv2.htm",
        "https://merlot-api.centrastage.net/api/swagger-ui.html",
    ),
    shape="items under the resource's name (`devices`); next page URL at "
    "`pageDetails.nextPageUrl` (null on the last page) beside `prevPageUrl`; total at "
    "`pageDetails.totalCount`; zero-based `page`, size `max`",
    respond=_datto_devices,
    reference=Reference((RESOURCE,), UrlAt(("pageDetails", "nextPageUrl"))),
    sizing=_DATTO,
    base_path="/api",
)

# --- JumpCloud ----------------------------------------------------------------------------------

_JUMPCLOUD = Sizing("limit", 10, 100)


def _jumpcloud_systems(request: Request, records: Sequence[Record]) -> Reply:
    window = offset_window(request, records, _JUMPCLOUD, "skip")
    return Reply(200, {"totalCount": window.total, "results": window.items})


JUMPCLOUD_SYSTEMS = RealApi(
    name="JumpCloud API v1: List all systems (GET /api/systems)",
    category=VENDOR,
    source=("https://docs.jumpcloud.com/api/1.0/index.html#tag/Systems/operation/systems_list",),
    shape="items in `results`; `skip`/`limit`; total at `totalCount`; nothing echoed, no "
    "continuation",
    respond=_jumpcloud_systems,
    reference=Reference(("results",), Offset("skip", total_at=("totalCount",))),
    sizing=_JUMPCLOUD,
    base_path="/api",
)

# --- Workspace ONE UEM --------------------------------------------------------------------------

_WS1 = Sizing("pagesize", 500)


def _workspace_one_devices(request: Request, records: Sequence[Record]) -> Reply:
    window = page_window(request, records, _WS1, "page", first=0)
    return Reply(
        200,
        {
            PASCAL_RESOURCE: window.items,
            "Page": window.page_number(0),
            "PageSize": window.per_page,
            "Total": window.total,
        },
    )


WORKSPACE_ONE_DEVICES = RealApi(
    name="Omnissa Workspace ONE UEM: Search devices (GET /API/mdm/devices/search)",
    category=VENDOR,
    source=(
        "https://{uem-host}/API/help/#!/DevicesV1/DevicesV1_SearchAsync (in-product "
        "reference of the MDM API v1)",
    ),
    shape="PascalCase: items under the resource's name (`Devices`); zero-based `page` and "
    "`pagesize` echoed as `Page`/`PageSize` with `Total`; no continuation",
    respond=_workspace_one_devices,
    reference=Reference((PASCAL_RESOURCE,), PageNumber("page", 0, total_at=("Total",))),
    sizing=_WS1,
    base_path="/API/mdm",
)

# --- Google Admin SDK: ChromeOS devices ---------------------------------------------------------

_CHROME = Sizing("maxResults", 100, 300)
_chrome_tokens = Tokens("google-admin")


def _chrome_devices(request: Request, records: Sequence[Record]) -> Reply:
    window = token_window(request, records, _CHROME, _chrome_tokens, "pageToken")
    return Reply(
        200,
        compact(
            {
                "kind": "directory#chromeosdevices",
                "etag": '"x"',
                RESOURCE: window.items,
                "nextPageToken": _chrome_tokens.after(window),
            }
        ),
    )


CHROMEOS_DEVICES = RealApi(
    name="Google Admin SDK Directory: chromeosdevices.list",
    category=VENDOR,
    source=(
        "https://developers.google.com/admin-sdk/directory/reference/rest/v1/chromeosdevices/list",
    ),
    shape="items under the resource's name (`chromeosdevices`); token at `nextPageToken` "
    "(absent on the last page) sent back as `pageToken`; `maxResults` sets the size",
    respond=_chrome_devices,
    reference=Reference((RESOURCE,), TokenAt(("nextPageToken",), "pageToken")),
    sizing=_CHROME,
    base_path="/admin/directory",
    assumptions="maxResults defaults to 100 (300 is the documented maximum)",
)

# --- ManageEngine Endpoint Central --------------------------------------------------------------

_MANAGEENGINE = Sizing("pagelimit", 25)


def _manageengine_computers(request: Request, records: Sequence[Record]) -> Reply:
    window = page_window(request, records, _MANAGEENGINE, "page")
    response = {
        "total": window.total,
        "limit": window.per_page,
        "page": window.page_number(),
        RESOURCE: window.items,
    }
    return Reply(
        200,
        {
            "message_type": "computers",
            "message_response": response,
            "message_version": "1.4",
            "status": "success",
        },
    )


MANAGEENGINE_COMPUTERS = RealApi(
    name="ManageEngine Endpoint Central API 1.4: SoM computers (GET /api/1.4/som/computers)",
    category=VENDOR,
    source=("https://www.manageengine.com/products/desktop-central/api/api-som-computers.html",),
    shape="items two levels down under the resource's name (`message_response.computers`); "
    "one-based `page` and `pagelimit` echoed as `page`/`limit` with `total`; no continuation",
    respond=_manageengine_computers,
    reference=Reference(
        ("message_response", RESOURCE),
        PageNumber("page", total_at=("message_response", "total")),
    ),
    sizing=_MANAGEENGINE,
    base_path="/api/1.4/som",
    assumptions="pagelimit defaults to 25 (seen on a live server; the page does not say)",
)

# --- SimpleMDM ----------------------------------------------------------------------------------

_SIMPLEMDM = Sizing("limit", 10, 100)


def _simplemdm_devices(request: Request, records: Sequence[Record]) -> Reply:
    window = keyset_window(request, records, _SIMPLEMDM, "starting_after")
    return Reply(200, {"data": window.items, "has_more": window.more})


SIMPLEMDM_DEVICES = RealApi(
    name="SimpleMDM API v1: List all devices (GET /api/v1/devices)",
    category=VENDOR,
    source=("https://api.simplemdm.com/#pagination", "https://api.simplemdm.com/#list-all-7"),
    shape="Stripe-like keyset: items in `data`, `has_more`; next request `starting_after=<last "
    "id>`; `limit` 1 to 100, default 10",
    respond=_simplemdm_devices,
    reference=Reference(("data",), Keyset("starting_after", more_at=("has_more",))),
    sizing=_SIMPLEMDM,
    base_path="/api",
)


CATALOGUE: tuple[RealApi, ...] = (
    INTUNE_MANAGED_DEVICES,
    JAMF_PRO_INVENTORY,
    KANDJI_DEVICES,
    AUTOMOX_DEVICES,
    NINJAONE_DEVICES,
    DATTO_RMM_DEVICES,
    JUMPCLOUD_SYSTEMS,
    WORKSPACE_ONE_DEVICES,
    CHROMEOS_DEVICES,
    MANAGEENGINE_COMPUTERS,
    SIMPLEMDM_DEVICES,
)
