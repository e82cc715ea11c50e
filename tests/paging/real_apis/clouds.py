"""Cloud providers' list operations: AWS, Azure, Google Cloud, Kubernetes and smaller clouds."""

from __future__ import annotations

import re
from collections.abc import Sequence

from ._kit import (
    CLOUD,
    PASCAL_RESOURCE,
    RESOURCE,
    RealApi,
    Record,
    Reply,
    Request,
    Sizing,
    Tokens,
    Window,
    bad_request,
    compact,
    headers_of,
    index_after,
    link_header,
    page_window,
    require,
    token_window,
    url_with,
)
from ._reference import HeaderToken, NextRange, PageNumber, Reference, TokenAt, UrlAt

# --- AWS ----------------------------------------------------------------------------------------

_LAMBDA = Sizing("MaxItems", 50, 50)
_lambda_tokens = Tokens("aws-lambda")


def _lambda_functions(request: Request, records: Sequence[Record]) -> Reply:
    window = token_window(request, records, _LAMBDA, _lambda_tokens, "Marker")
    return Reply(
        200, compact({PASCAL_RESOURCE: window.items, "NextMarker": _lambda_tokens.after(window)})
    )


AWS_LAMBDA_FUNCTIONS = RealApi(
    name="AWS Lambda: ListFunctions (GET /2015-03-31/functions/)",
    category=CLOUD,
    source=("https://docs.aws.amazon.com/lambda/latest/api/API_ListFunctions.html",),
    shape="PascalCase: items under the resource's name (`Functions`); token at `NextMarker` "
    "(absent on the last page) sent back as `Marker`; `MaxItems` up to 50",
    respond=_lambda_functions,
    reference=Reference((PASCAL_RESOURCE,), TokenAt(("NextMarker",), "Marker")),
    sizing=_LAMBDA,
    base_path="/2015-03-31",
)

_KMS = Sizing("Limit", 100, 1000)
_kms_tokens = Tokens("aws-kms")


def _kms_keys(request: Request, records: Sequence[Record]) -> Reply:
    window = token_window(request, records, _KMS, _kms_tokens, "Marker")
    return Reply(
        200,
        compact(
            {
                PASCAL_RESOURCE: window.items,
                "Truncated": window.more,
                "NextMarker": _kms_tokens.after(window),
            }
        ),
    )


AWS_KMS_KEYS = RealApi(
    name="AWS KMS: ListKeys",
    category=CLOUD,
    source=("https://docs.aws.amazon.com/kms/latest/APIReference/API_ListKeys.html",),
    shape="PascalCase: items under the resource's name (`Keys`); `Truncated` flag and token "
    "`NextMarker` (absent when not truncated) sent back as `Marker`; `Limit` up to 1000",
    respond=_kms_keys,
    reference=Reference(
        (PASCAL_RESOURCE,), TokenAt(("NextMarker",), "Marker", more_at=("Truncated",))
    ),
    sizing=_KMS,
    assumptions="the real call is a JSON-protocol POST (X-Amz-Target), modelled over GET with "
    "its request members as query parameters",
)

_APIGW = Sizing("limit", 25, 500)
_apigw_tokens = Tokens("aws-apigateway")


def _apigateway_restapis(request: Request, records: Sequence[Record]) -> Reply:
    window = token_window(request, records, _APIGW, _apigw_tokens, "position")
    return Reply(200, compact({"item": window.items, "position": _apigw_tokens.after(window)}))


AWS_APIGATEWAY_RESTAPIS = RealApi(
    name="Amazon API Gateway: GetRestApis (GET /restapis)",
    category=CLOUD,
    source=("https://docs.aws.amazon.com/apigateway/latest/api/API_GetRestApis.html",),
    shape="items in `item` (singular); token at `position` (absent on the last page) sent back "
    "as `position`: the continuation and its parameter share a word that reads as an offset",
    respond=_apigateway_restapis,
    reference=Reference(("item",), TokenAt(("position",), "position")),
    sizing=_APIGW,
)

_SECURITYHUB = Sizing("MaxResults", 100, 100)
_securityhub_tokens = Tokens("aws-securityhub")


def _securityhub_findings(request: Request, records: Sequence[Record]) -> Reply:
    window = token_window(request, records, _SECURITYHUB, _securityhub_tokens, "NextToken")
    return Reply(
        200, compact({"Findings": window.items, "NextToken": _securityhub_tokens.after(window)})
    )


AWS_SECURITYHUB_FINDINGS = RealApi(
    name="AWS Security Hub: GetFindings (POST /findings)",
    category=CLOUD,
    source=("https://docs.aws.amazon.com/securityhub/1.0/APIReference/API_GetFindings.html",),
    shape="PascalCase: items in `Findings`; token at `NextToken` (absent on the last page) sent "
    "back as `NextToken`; `MaxResults` up to 100",
    respond=_securityhub_findings,
    reference=Reference(("Findings",), TokenAt(("NextToken",), "NextToken")),
    sizing=_SECURITYHUB,
    assumptions="the real call is a POST with NextToken and MaxResults in its JSON body, "
    "modelled over GET with query parameters",
)

# --- Azure Resource Manager ---------------------------------------------------------------------

_ARM = Sizing("$top", 1000, 1000)
_arm_tokens = Tokens("azure-arm")


def _arm_resources(request: Request, records: Sequence[Record]) -> Reply:
    require(request, "api-version")
    window = token_window(request, records, _ARM, _arm_tokens, "$skiptoken")
    body: dict[str, object] = {"value": window.items}
    if window.more:
        body["nextLink"] = url_with(request, **{"$skiptoken": _arm_tokens.encode(window.end)})
    return Reply(200, body)


AZURE_ARM_RESOURCES = RealApi(
    name="Azure Resource Manager: Resources - List (GET /subscriptions/{id}/resources)",
    category=CLOUD,
    source=(
        "https://learn.microsoft.com/en-us/rest/api/resources/resources/list",
        "https://learn.microsoft.com/en-us/azure/azure-resource-manager/management/"
        "azure-services-resource-providers",
    ),
    shape="items in `value`; next page URL at `nextLink` (no @odata prefix; absent on the last "
    "page) carrying `$skiptoken`; `api-version` required on every request",
    respond=_arm_resources,
    reference=Reference(("value",), UrlAt(("nextLink",))),
    sizing=_ARM,
    base_path="/subscriptions/00000000-0000-0000-0000-000000000000",
    required_params={"api-version": "2021-04-01"},
    assumptions="the service's default page is 1,000 resources",
)

# --- Google Cloud -------------------------------------------------------------------------------

_COMPUTE = Sizing("maxResults", 500, 500)
_compute_tokens = Tokens("gcp-compute")


def _compute_instances(request: Request, records: Sequence[Record]) -> Reply:
    window = token_window(request, records, _COMPUTE, _compute_tokens, "pageToken")
    return Reply(
        200,
        compact(
            {
                "kind": "compute#instanceList",
                "id": "projects/demo/zones/a",
                "items": window.items,
                "selfLink": str(request.url),
                "nextPageToken": _compute_tokens.after(window),
            }
        ),
    )


GCP_COMPUTE_INSTANCES = RealApi(
    name="Google Compute Engine: instances.list",
    category=CLOUD,
    source=("https://cloud.google.com/compute/docs/reference/rest/v1/instances/list",),
    shape="items in `items`; token at `nextPageToken` (absent on the last page) sent back as "
    "`pageToken`; `maxResults` up to 500",
    respond=_compute_instances,
    reference=Reference(("items",), TokenAt(("nextPageToken",), "pageToken")),
    sizing=_COMPUTE,
    base_path="/compute/v1/projects/demo/zones/us-central1-a",
)

# --- Kubernetes ---------------------------------------------------------------------------------

_KUBE = Sizing("limit", None)
_kube_tokens = Tokens("kubernetes")


def _kube_list(request: Request, records: Sequence[Record]) -> Reply:
    window = token_window(request, records, _KUBE, _kube_tokens, "continue")
    metadata: dict[str, object] = {"resourceVersion": "48213"}
    if window.more:
        metadata["continue"] = _kube_tokens.encode(window.end)
        metadata["remainingItemCount"] = window.total - window.end
    return Reply(
        200,
        {"kind": "EndpointsList", "apiVersion": "v1", "metadata": metadata, "items": window.items},
    )


KUBERNETES_LIST = RealApi(
    name="Kubernetes API: list endpoints (GET /api/v1/endpoints)",
    category=CLOUD,
    source=(
        "https://kubernetes.io/docs/reference/using-api/api-concepts/"
        "#retrieving-large-results-sets-in-chunks",
    ),
    shape="items in `items`; whole list unless `limit`; then token at `metadata.continue` "
    "(omitted on the last page) sent back as `continue`, with `metadata.remainingItemCount`",
    respond=_kube_list,
    reference=Reference(("items",), TokenAt(("metadata", "continue"), "continue")),
    sizing=_KUBE,
    base_path="/api",
)

# --- DigitalOcean -------------------------------------------------------------------------------

_DO = Sizing("per_page", 20, 200)


def _digitalocean_droplets(request: Request, records: Sequence[Record]) -> Reply:
    window = page_window(request, records, _DO, "page")
    number, last = window.page_number(), window.pages
    pages: dict[str, str] = {}
    if number > 1:
        pages |= {"first": url_with(request, page=1), "prev": url_with(request, page=number - 1)}
    if window.more:
        pages |= {"next": url_with(request, page=number + 1), "last": url_with(request, page=last)}
    links = {"pages": pages} if pages else {}
    return Reply(200, {RESOURCE: window.items, "links": links, "meta": {"total": window.total}})


DIGITALOCEAN_DROPLETS = RealApi(
    name="DigitalOcean: List all Droplets (GET /v2/droplets)",
    category=CLOUD,
    source=(
        "https://docs.digitalocean.com/reference/api/digitalocean/#section/Introduction/"
        "Links-and-Pagination",
    ),
    shape="items under the resource's name (`droplets`); next page URL three levels down at "
    "`links.pages.next` beside first/prev/last (the last page has only first and prev, a single "
    "page an empty `links`); total "
    "at `meta.total`; `page`/`per_page`",
    respond=_digitalocean_droplets,
    reference=Reference((RESOURCE,), UrlAt(("links", "pages", "next"))),
    sizing=_DO,
    base_path="/v2",
)

# --- Cloudflare ---------------------------------------------------------------------------------

_CLOUDFLARE = Sizing("per_page", 20, 50)


def _cloudflare_zones(request: Request, records: Sequence[Record]) -> Reply:
    window = page_window(request, records, _CLOUDFLARE, "page")
    info = {
        "page": window.page_number(),
        "per_page": window.per_page,
        "count": len(window.items),
        "total_count": window.total,
        "total_pages": window.pages,
    }
    return Reply(
        200,
        {
            "result": window.items,
            "result_info": info,
            "success": True,
            "errors": [],
            "messages": [],
        },
    )


CLOUDFLARE_ZONES = RealApi(
    name="Cloudflare API v4: List Zones (GET /client/v4/zones)",
    category=CLOUD,
    source=(
        "https://developers.cloudflare.com/api/resources/zones/methods/list/",
        "https://developers.cloudflare.com/fundamentals/api/how-to/make-api-calls/#pagination",
    ),
    shape="items in `result`; one-based `page`/`per_page` echoed in `result_info` with `count`, "
    "`total_count`, `total_pages`; no continuation",
    respond=_cloudflare_zones,
    reference=Reference(("result",), PageNumber("page", pages_at=("result_info", "total_pages"))),
    sizing=_CLOUDFLARE,
    base_path="/client/v4",
)

# --- Hetzner Cloud ------------------------------------------------------------------------------

_HETZNER = Sizing("per_page", 25, 50)


def _hetzner_servers(request: Request, records: Sequence[Record]) -> Reply:
    window = page_window(request, records, _HETZNER, "page")
    number, last = window.page_number(), window.pages
    pagination = {
        "page": number,
        "per_page": window.per_page,
        "previous_page": number - 1 if number > 1 else None,
        "next_page": number + 1 if window.more else None,
        "last_page": last,
        "total_entries": window.total,
    }
    link = link_header(
        (url_with(request, page=number - 1) if number > 1 else None, "prev"),
        (url_with(request, page=number + 1) if window.more else None, "next"),
        (url_with(request, page=last), "last"),
    )
    body = {RESOURCE: window.items, "meta": {"pagination": pagination}}
    return Reply(200, body, headers_of(("Link", link)))


HETZNER_SERVERS = RealApi(
    name="Hetzner Cloud: List Servers (GET /v1/servers)",
    category=CLOUD,
    source=("https://docs.hetzner.cloud/#pagination",),
    shape="items under the resource's name (`servers`); page numbers at "
    "`meta.pagination.next_page` (null on the last page), `previous_page`, `last_page`, "
    "`total_entries`; the same in a Link header (prev/next/last)",
    respond=_hetzner_servers,
    reference=Reference((RESOURCE,), TokenAt(("meta", "pagination", "next_page"), "page")),
    sizing=_HETZNER,
)

# --- Linode (Akamai) ----------------------------------------------------------------------------

_LINODE = Sizing("page_size", 100, 500, minimum=25)


def _linode_instances(request: Request, records: Sequence[Record]) -> Reply:
    window = page_window(request, records, _LINODE, "page")
    return Reply(
        200,
        {
            "data": window.items,
            "page": window.page_number(),
            "pages": window.pages,
            "results": window.total,
        },
    )


LINODE_INSTANCES = RealApi(
    name="Linode API v4: List Linodes (GET /v4/linode/instances)",
    category=CLOUD,
    source=("https://techdocs.akamai.com/linode-api/reference/pagination",),
    shape="items in `data`; one-based `page` echoed with `pages` (page count) and `results` "
    "(total); `page_size` 25 to 500; no continuation",
    respond=_linode_instances,
    reference=Reference(("data",), PageNumber("page", pages_at=("pages",))),
    sizing=_LINODE,
    base_path="/v4/linode",
)

# --- Vultr --------------------------------------------------------------------------------------

_VULTR = Sizing("per_page", 100, 500)
_vultr_tokens = Tokens("vultr")


def _vultr_instances(request: Request, records: Sequence[Record]) -> Reply:
    window = token_window(request, records, _VULTR, _vultr_tokens, "cursor")
    links = {
        "next": _vultr_tokens.encode(window.end) if window.more else "",
        "prev": _vultr_tokens.encode(window.start) if window.start else "",
    }
    return Reply(200, {RESOURCE: window.items, "meta": {"total": window.total, "links": links}})


VULTR_INSTANCES = RealApi(
    name="Vultr API v2: List Instances (GET /v2/instances)",
    category=CLOUD,
    source=("https://www.vultr.com/api/#section/Introduction/Meta-and-Pagination",),
    shape="items under the resource's name (`instances`); a bare token (not a URL) at "
    '`meta.links.next`, "" on the last page, sent back as `cursor`; `meta.links.prev` beside; '
    "total at `meta.total`",
    respond=_vultr_instances,
    reference=Reference((RESOURCE,), TokenAt(("meta", "links", "next"), "cursor")),
    sizing=_VULTR,
    base_path="/v2",
    assumptions="a `prev` cursor resumes at the page's first record (the docs do not say how "
    "far back it reaches)",
)

# --- Oracle Cloud Infrastructure ----------------------------------------------------------------

_OCI = Sizing("limit", 100, 1000)
_oci_tokens = Tokens("oci")


def _oci_instances(request: Request, records: Sequence[Record]) -> Reply:
    require(request, "compartmentId")
    window = token_window(request, records, _OCI, _oci_tokens, "page")
    next_page = _oci_tokens.after(window)
    headers = headers_of(("opc-request-id", "corpus/0001"), ("opc-next-page", next_page))
    return Reply(200, window.items, headers)


OCI_INSTANCES = RealApi(
    name="Oracle Cloud Infrastructure Compute: ListInstances (GET /20160918/instances)",
    category=CLOUD,
    source=(
        "https://docs.oracle.com/en-us/iaas/api/#/en/iaas/20160918/Instance/ListInstances",
        "https://docs.oracle.com/en-us/iaas/Content/API/Concepts/usingapi.htm#nine",
    ),
    shape="bare array; token in the `opc-next-page` response header (absent on the last page) "
    "sent back as `page`; `limit` sets the size",
    respond=_oci_instances,
    reference=Reference((), HeaderToken("opc-next-page", "page")),
    sizing=_OCI,
    base_path="/20160918",
    required_params={"compartmentId": "ocid1.compartment.oc1..corpus"},
    assumptions="limit defaults to 100 (the docs give the range, not the default)",
)

# --- Heroku -------------------------------------------------------------------------------------

_HEROKU = Sizing(None, 200, 1000)
_RANGE = re.compile(r"^id\s+(?:\](?P<after>[^.\s;]+))?\.\.(?:\s*;\s*max=(?P<max>\d+))?\s*$")


def _heroku_apps(request: Request, records: Sequence[Record]) -> Reply:
    wanted = request.headers.get("Range")
    size = _HEROKU.default or 200
    if wanted is None:
        window = Window(records, 0, size)
    else:
        match = _RANGE.match(wanted)
        if match is None:
            raise bad_request(f"invalid Range header {wanted!r}", code="invalid_range")
        size = min(int(match["max"] or size), _HEROKU.maximum or size)
        after = match["after"]
        window = Window(records, 0 if after is None else index_after(records, after), size)
    first, last = (window.items[0]["id"], window.last_id) if window.items else ("", "")
    headers = headers_of(
        ("Accept-Ranges", "id, name"),
        ("Content-Range", f"id {first}..{last}; max={size}"),
        ("Next-Range", f"id ]{last}..; max={size}" if window.more else None),
    )
    return Reply(206 if window.more else 200, window.items, headers)


HEROKU_APPS = RealApi(
    name="Heroku Platform API: App List (GET /apps)",
    category=CLOUD,
    source=("https://devcenter.heroku.com/articles/platform-api-reference#ranges",),
    shape="bare array; 206 Partial Content while more remain, with `Next-Range: id ]<last>..; "
    "max=200` to be sent back as the `Range` request header; 200 and no Next-Range at the end",
    respond=_heroku_apps,
    reference=Reference((), NextRange()),
    sizing=_HEROKU,
)

CATALOGUE: tuple[RealApi, ...] = (
    AWS_LAMBDA_FUNCTIONS,
    AWS_KMS_KEYS,
    AWS_APIGATEWAY_RESTAPIS,
    AWS_SECURITYHUB_FINDINGS,
    AZURE_ARM_RESOURCES,
    GCP_COMPUTE_INSTANCES,
    KUBERNETES_LIST,
    DIGITALOCEAN_DROPLETS,
    CLOUDFLARE_ZONES,
    HETZNER_SERVERS,
    LINODE_INSTANCES,
    VULTR_INSTANCES,
    OCI_INSTANCES,
    HEROKU_APPS,
)
