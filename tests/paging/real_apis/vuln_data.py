"""Vulnerability databases, software-composition scanners and threat-intelligence lists."""

from __future__ import annotations

from collections.abc import Sequence

from ._kit import (
    VENDOR,
    RealApi,
    Record,
    Reply,
    Request,
    Sizing,
    Tokens,
    compact,
    cursor_window,
    headers_of,
    link_header,
    offset_window,
    page_window,
    path_of,
    require,
    token_window,
    url_with,
)
from ._reference import LinkNext, Offset, PageNumber, Reference, TokenAt, UrlAt

# --- Snyk REST API ------------------------------------------------------------------------------

_SNYK = Sizing("limit", 10, 100)
_snyk_tokens = Tokens("snyk", prefix="v1.")


def _snyk_projects(request: Request, records: Sequence[Record]) -> Reply:
    require(request, "version")
    window = cursor_window(request, records, _SNYK, _snyk_tokens, "starting_after", "ending_before")

    def link(**params: object) -> str:
        cursors = {"starting_after": None, "ending_before": None}
        return path_of(url_with(request, **(cursors | params)), strip="/rest")

    links = {"self": path_of(str(request.url), strip="/rest"), "first": link()}
    if window.start > 0:
        links["prev"] = link(ending_before=_snyk_tokens.encode(window.start))
    if window.more:
        links["next"] = link(starting_after=_snyk_tokens.encode(window.end))
    return Reply(200, {"jsonapi": {"version": "1.0"}, "data": window.items, "links": links})


SNYK_PROJECTS = RealApi(
    name="Snyk REST API: List projects (GET /rest/orgs/{org_id}/projects)",
    category=VENDOR,
    source=("https://docs.snyk.io/snyk-api/rest-api/about-the-rest-api#pagination",),
    shape="JSON:API: items in `data`; `links.next` and `links.prev` are paths relative to the "
    "base URL's `/rest` (e.g. /orgs/...?starting_after=v1.x), absent at either end; "
    "`version` is required on every request",
    respond=_snyk_projects,
    reference=Reference(("data",), UrlAt(("links", "next"), base="/rest")),
    sizing=_SNYK,
    base_path="/rest",
    required_params={"version": "2024-10-15"},
)

# --- NVD API 2.0 --------------------------------------------------------------------------------

_NVD = Sizing("resultsPerPage", 2000, 2000)


def _nvd_cves(request: Request, records: Sequence[Record]) -> Reply:
    window = offset_window(request, records, _NVD, "startIndex")
    return Reply(
        200,
        {
            "resultsPerPage": len(window.items),
            "startIndex": window.start,
            "totalResults": window.total,
            "format": "NVD_CVE",
            "version": "2.0",
            "timestamp": "2026-01-01T00:00:00.000",
            "vulnerabilities": window.items,
        },
    )


NVD_CVES = RealApi(
    name="NVD CVE API 2.0 (GET /rest/json/cves/2.0)",
    category=VENDOR,
    source=(
        "https://nvd.nist.gov/developers/vulnerabilities",
        "https://nvd.nist.gov/developers/start-here#divPaging",
    ),
    shape="items in `vulnerabilities`; `startIndex`/`resultsPerPage` in, both echoed, with "
    "`totalResults`; no continuation: the end is startIndex + results reaching the total",
    respond=_nvd_cves,
    reference=Reference(("vulnerabilities",), Offset("startIndex", total_at=("totalResults",))),
    sizing=_NVD,
    base_path="/rest/json/cves/2.0",
    assumptions='each real item wraps its record as {"cve": {...}}; the corpus serves records '
    "flat; the echoed `resultsPerPage` is the number of results on the page",
)

# --- OSV ----------------------------------------------------------------------------------------

_OSV = Sizing(None, 1000)
_osv_tokens = Tokens("osv")


def _osv_query(request: Request, records: Sequence[Record]) -> Reply:
    window = token_window(request, records, _OSV, _osv_tokens, "page_token")
    return Reply(
        200, compact({"vulns": window.items, "next_page_token": _osv_tokens.after(window)})
    )


OSV_QUERY = RealApi(
    name="OSV: Query affected vulnerabilities (POST /v1/query)",
    category=VENDOR,
    source=("https://google.github.io/osv.dev/post-v1-query/#pagination",),
    shape="items in `vulns`; token at `next_page_token` (absent on the last page) sent back as "
    "`page_token`; page size chosen by the server; no totals",
    respond=_osv_query,
    reference=Reference(("vulns",), TokenAt(("next_page_token",), "page_token")),
    sizing=_OSV,
    assumptions="the real call is a POST carrying page_token in its JSON body, modelled over GET "
    "with a query parameter; the server's page size is modelled as 1,000",
)

# --- VirusTotal ---------------------------------------------------------------------------------

_VT = Sizing("limit", 10, 40)
_vt_tokens = Tokens("virustotal")


def _virustotal_collection(request: Request, records: Sequence[Record]) -> Reply:
    window = token_window(request, records, _VT, _vt_tokens, "cursor")
    body: dict[str, object] = {"data": window.items, "links": {"self": str(request.url)}}
    if window.more:
        cursor = _vt_tokens.encode(window.end)
        body["meta"] = {"cursor": cursor}
        body["links"] = {"self": str(request.url), "next": url_with(request, cursor=cursor)}
    return Reply(200, body)


VIRUSTOTAL = RealApi(
    name="VirusTotal API v3: collections (e.g. GET /api/v3/intelligence/hunting_notifications)",
    category=VENDOR,
    source=("https://docs.virustotal.com/reference/collections",),
    shape="items in `data`; the same continuation twice: token at `meta.cursor` (sent as "
    "`cursor`) and the next URL at `links.next`; both absent on the last page",
    respond=_virustotal_collection,
    reference=Reference(("data",), UrlAt(("links", "next"))),
    sizing=_VT,
    base_path="/api/v3",
)

# --- GitHub Dependabot alerts -------------------------------------------------------------------

_GITHUB_ALERTS = Sizing("per_page", 30, 100)
_github_tokens = Tokens("github-dependabot")


def _dependabot_alerts(request: Request, records: Sequence[Record]) -> Reply:
    window = cursor_window(request, records, _GITHUB_ALERTS, _github_tokens, "after", "before")
    after = _github_tokens.after(window)
    before = _github_tokens.encode(window.start) if window.start > 0 else None
    link = link_header(
        (url_with(request, before=before, after=None) if before else None, "prev"),
        (url_with(request, after=after, before=None) if after else None, "next"),
    )
    return Reply(200, window.items, headers_of(("Link", link or None)))


DEPENDABOT_ALERTS = RealApi(
    name="GitHub: List Dependabot alerts for an organization (GET /orgs/{org}/dependabot/alerts)",
    category=VENDOR,
    source=(
        "https://docs.github.com/en/rest/dependabot/alerts#list-dependabot-alerts-for-an-"
        "organization",
        "https://docs.github.com/en/rest/using-the-rest-api/using-pagination-in-the-rest-api",
    ),
    shape='bare array; RFC 8288 Link with rel="next" (cursor `after`) and rel="prev" (cursor '
    "`before`); no next on the last page; `per_page` up to 100",
    respond=_dependabot_alerts,
    reference=Reference((), LinkNext()),
    sizing=_GITHUB_ALERTS,
)

# --- FIRST EPSS ---------------------------------------------------------------------------------

_EPSS = Sizing("limit", 100)


def _epss_scores(request: Request, records: Sequence[Record]) -> Reply:
    window = offset_window(request, records, _EPSS, "offset")
    return Reply(
        200,
        {
            "status": "OK",
            "status-code": 200,
            "version": "1.0",
            "access": "public",
            "total": window.total,
            "offset": window.start,
            "limit": window.per_page,
            "data": window.items,
        },
    )


EPSS_SCORES = RealApi(
    name="FIRST EPSS API (GET /data/v1/epss)",
    category=VENDOR,
    source=("https://www.first.org/epss/api",),
    shape="items in `data`; `offset`/`limit` in, echoed, with `total`; no continuation",
    respond=_epss_scores,
    reference=Reference(("data",), Offset("offset", total_at=("total",))),
    sizing=_EPSS,
    base_path="/data",
)

# --- CISA KEV -----------------------------------------------------------------------------------


def _cisa_kev(request: Request, records: Sequence[Record]) -> Reply:
    return Reply(
        200,
        {
            "title": "CISA Catalog of Known Exploited Vulnerabilities",
            "catalogVersion": "2026.01.01",
            "dateReleased": "2026-01-01T00:00:00Z",
            "count": len(records),
            "vulnerabilities": list(records),
        },
    )


CISA_KEV = RealApi(
    name="CISA Known Exploited Vulnerabilities catalog (JSON feed)",
    category=VENDOR,
    source=(
        "https://www.cisa.gov/known-exploited-vulnerabilities-catalog",
        "https://www.cisa.gov/sites/default/files/feeds/known_exploited_vulnerabilities.json",
    ),
    shape="the whole list in one document: items in `vulnerabilities` with `count`; no paging",
    respond=_cisa_kev,
    reference=Reference(("vulnerabilities",), None),
    base_path="/sites/default/files/feeds",
)

# --- Shodan -------------------------------------------------------------------------------------

_SHODAN = Sizing(None, 100)


def _shodan_search(request: Request, records: Sequence[Record]) -> Reply:
    require(request, "query")
    window = page_window(request, records, _SHODAN, "page")
    return Reply(200, {"matches": window.items, "total": window.total, "facets": {}})


SHODAN_SEARCH = RealApi(
    name="Shodan: Search hosts (GET /shodan/host/search)",
    category=VENDOR,
    source=("https://developer.shodan.io/api",),
    shape="items in `matches`; fixed pages of 100 by one-based `page`; total at `total`; no "
    "continuation and no size parameter",
    respond=_shodan_search,
    reference=Reference(("matches",), PageNumber("page", total_at=("total",))),
    sizing=_SHODAN,
    base_path="/shodan/host",
    required_params={"query": "org:example"},
)

CATALOGUE: tuple[RealApi, ...] = (
    SNYK_PROJECTS,
    NVD_CVES,
    OSV_QUERY,
    VIRUSTOTAL,
    DEPENDABOT_ALERTS,
    EPSS_SCORES,
    CISA_KEV,
    SHODAN_SEARCH,
)
