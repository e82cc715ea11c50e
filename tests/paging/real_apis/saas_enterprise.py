"""Enterprise SaaS: Atlassian, identity providers and Salesforce."""

from __future__ import annotations

from collections.abc import Sequence

from ._kit import (
    RESOURCE,
    SAAS,
    RealApi,
    Record,
    Reply,
    Request,
    Sizing,
    Tokens,
    Window,
    compact,
    integer,
    link_header,
    offset_window,
    page_window,
    path_of,
    require,
    token_window,
    url_with,
)
from ._reference import LinkNext, Offset, PageNumber, Reference, TokenAt, UrlAt

# --- Atlassian: Jira ----------------------------------------------------------------------------

_JIRA_PROJECTS = Sizing("maxResults", 50, 100)


def _jira_projects(request: Request, records: Sequence[Record]) -> Reply:
    window = offset_window(request, records, _JIRA_PROJECTS, "startAt")
    body: dict[str, object] = {
        "self": str(request.url),
        "maxResults": window.per_page,
        "startAt": window.start,
        "total": window.total,
        "isLast": not window.more,
        "values": window.items,
    }
    if window.more:
        body["nextPage"] = url_with(request, startAt=window.end, maxResults=window.per_page)
    return Reply(200, body)


JIRA_PROJECT_SEARCH = RealApi(
    name="Jira Cloud REST v3: Get projects paginated (GET /rest/api/3/project/search)",
    category=SAAS,
    source=(
        "https://developer.atlassian.com/cloud/jira/platform/rest/v3/api-group-projects/"
        "#api-rest-api-3-project-search-get",
        "https://developer.atlassian.com/cloud/jira/platform/rest/v3/intro/#pagination",
    ),
    shape="items in `values`; `startAt`/`maxResults` echoed with `total` and `isLast`; next page "
    "URL at `nextPage` (absent on the last page)",
    respond=_jira_projects,
    reference=Reference(("values",), UrlAt(("nextPage",))),
    sizing=_JIRA_PROJECTS,
    base_path="/rest/api/3",
    assumptions="maxResults is capped at 100",
)

_JQL = Sizing("maxResults", 50, 5000)
_jql_tokens = Tokens("jira-jql")


def _jira_search_jql(request: Request, records: Sequence[Record]) -> Reply:
    require(request, "jql")
    window = token_window(request, records, _JQL, _jql_tokens, "nextPageToken")
    return Reply(
        200,
        compact(
            {
                "issues": window.items,
                "isLast": not window.more,
                "nextPageToken": _jql_tokens.after(window),
            }
        ),
    )


JIRA_SEARCH_JQL = RealApi(
    name="Jira Cloud REST v3: Search for issues using JQL (GET /rest/api/3/search/jql)",
    category=SAAS,
    source=(
        "https://developer.atlassian.com/cloud/jira/platform/rest/v3/api-group-issue-search/"
        "#api-rest-api-3-search-jql-get",
    ),
    shape="items in `issues`; token at `nextPageToken` (absent on the last page) sent back as "
    "`nextPageToken`, beside `isLast`; no total",
    respond=_jira_search_jql,
    reference=Reference(("issues",), TokenAt(("nextPageToken",), "nextPageToken")),
    sizing=_JQL,
    base_path="/rest/api/3",
    required_params={"jql": "project = CORPUS ORDER BY key"},
)

# --- Atlassian: Confluence ----------------------------------------------------------------------

_CONFLUENCE_V1 = Sizing("limit", 25, 200)


def _confluence_content(request: Request, records: Sequence[Record]) -> Reply:
    window = offset_window(request, records, _CONFLUENCE_V1, "start")
    wiki = f"{request.url.origin()}/wiki"

    def relative(start: int) -> str:
        return path_of(url_with(request, start=start, limit=window.per_page), strip="/wiki")

    links = {"base": wiki, "context": "/wiki", "self": str(request.url)}
    if window.more:
        links["next"] = relative(window.end)
    if window.start > 0:
        links["prev"] = relative(max(0, window.start - window.per_page))
    return Reply(
        200,
        {
            "results": window.items,
            "start": window.start,
            "limit": window.per_page,
            "size": len(window.items),
            "_links": links,
        },
    )


CONFLUENCE_CONTENT = RealApi(
    name="Confluence Cloud REST v1: Get content (GET /wiki/rest/api/content)",
    category=SAAS,
    source=(
        "https://developer.atlassian.com/cloud/confluence/rest/v1/api-group-content/",
        "https://developer.atlassian.com/server/confluence/pagination-in-the-rest-api/",
    ),
    shape="items in `results`; `start`/`limit`/`size` echoed; next link at `_links.next` as a "
    "path relative to `_links.base` (the site's /wiki context), e.g. /rest/api/content?start=25",
    respond=_confluence_content,
    reference=Reference(("results",), UrlAt(("_links", "next"), base="/wiki")),
    sizing=_CONFLUENCE_V1,
    base_path="/wiki/rest/api",
    assumptions="limit is capped at 200",
)

_CONFLUENCE_V2 = Sizing("limit", 25, 250)
_confluence_tokens = Tokens("confluence-v2")


def _confluence_pages(request: Request, records: Sequence[Record]) -> Reply:
    window = token_window(request, records, _CONFLUENCE_V2, _confluence_tokens, "cursor")
    links: dict[str, str] = {"base": f"{request.url.origin()}/wiki"}
    headers: tuple[tuple[str, str], ...] = ()
    if window.more:
        links["next"] = path_of(url_with(request, cursor=_confluence_tokens.encode(window.end)))
        headers = (("Link", link_header((links["next"], "next"))),)
    return Reply(200, {"results": window.items, "_links": links}, headers)


CONFLUENCE_PAGES = RealApi(
    name="Confluence Cloud REST v2: Get pages (GET /wiki/api/v2/pages)",
    category=SAAS,
    source=(
        "https://developer.atlassian.com/cloud/confluence/rest/v2/intro/#using",
        "https://developer.atlassian.com/cloud/confluence/rest/v2/api-group-page/",
    ),
    shape="items in `results`; the same next link twice, as origin-relative paths: "
    '`_links.next` and a Link header rel="next" (both absent on the last page)',
    respond=_confluence_pages,
    reference=Reference(("results",), UrlAt(("_links", "next"))),
    sizing=_CONFLUENCE_V2,
    base_path="/wiki/api/v2",
)

# --- Okta ---------------------------------------------------------------------------------------

_OKTA = Sizing("limit", 200, 200)
_okta_tokens = Tokens("okta")


def _okta_users(request: Request, records: Sequence[Record]) -> Reply:
    window = token_window(request, records, _OKTA, _okta_tokens, "after")
    after = _okta_tokens.after(window)
    link = link_header(
        (str(request.url), "self"),
        (url_with(request, after=after, limit=window.per_page) if after else None, "next"),
    )
    return Reply(200, window.items, (("Link", link),))


OKTA_USERS = RealApi(
    name="Okta Management API: List all users (GET /api/v1/users)",
    category=SAAS,
    source=("https://developer.okta.com/docs/api/#pagination",),
    shape='bare array; Link header with rel="self" always and rel="next" (cursor `after`) '
    "while more remain; `limit` up to 200",
    respond=_okta_users,
    reference=Reference((), LinkNext()),
    sizing=_OKTA,
    base_path="/api",
)

# --- Auth0 --------------------------------------------------------------------------------------

_AUTH0 = Sizing("per_page", 50, 100)


def _auth0_users(request: Request, records: Sequence[Record]) -> Reply:
    window = page_window(request, records, _AUTH0, "page", first=0)
    if request.query.get("include_totals") != "true":
        return Reply(200, window.items)
    return Reply(
        200,
        {
            "start": window.start,
            "limit": window.per_page,
            "length": len(window.items),
            "total": window.total,
            RESOURCE: window.items,
        },
    )


AUTH0_USERS = RealApi(
    name="Auth0 Management API v2: List users (GET /api/v2/users)",
    category=SAAS,
    source=(
        "https://auth0.com/docs/api/management/v2/users/get-users",
        "https://auth0.com/docs/manage-users/user-search/view-search-results-by-page",
    ),
    shape="bare array of 50 by default with no signal at all; zero-based `page`, `per_page` up "
    "to 100; totals and an envelope only when include_totals=true",
    respond=_auth0_users,
    reference=Reference((), PageNumber("page", 0)),
    sizing=_AUTH0,
    base_path="/api/v2",
)

# --- Salesforce ---------------------------------------------------------------------------------

_SALESFORCE = Sizing(None, 2000, 2000)
_salesforce_tokens = Tokens("salesforce", prefix="01gD0000002HU6KIAW-")


def _salesforce_query(request: Request, records: Sequence[Record]) -> Reply:
    collection, _, locator = request.url.path.partition("/v1/endpoints")
    if locator.strip("/"):
        start = _salesforce_tokens.start(locator.strip("/"))
    else:
        require(request, "q")
        start = 0
    size = _batch_size(request)
    window = Window(records, start, size)
    body: dict[str, object] = {
        "totalSize": window.total,
        "done": not window.more,
        "records": window.items,
    }
    if window.more:
        token = _salesforce_tokens.encode(window.end, n=size)
        body["nextRecordsUrl"] = f"{collection}/v1/endpoints/{token}"
    return Reply(200, body)


def _batch_size(request: Request) -> int:
    options = request.headers.get("Sforce-Query-Options", "")
    for option in options.split(","):
        name, _, value = option.strip().partition("=")
        if name == "batchSize":
            return min(max(integer(value, "batchSize"), 200), 2000)
    return _SALESFORCE.default or 2000


SALESFORCE_QUERY = RealApi(
    name="Salesforce REST API: Execute a SOQL query (GET /services/data/vXX.X/query?q=)",
    category=SAAS,
    source=(
        "https://developer.salesforce.com/docs/atlas.en-us.api_rest.meta/api_rest/"
        "resources_query.htm",
        "https://developer.salesforce.com/docs/atlas.en-us.api_rest.meta/api_rest/"
        "headers_queryoptions.htm",
    ),
    shape="items in `records`; `done` flag; origin-relative locator path at `nextRecordsUrl` "
    "(absent when done); `totalSize`; batch size only through the Sforce-Query-Options header",
    respond=_salesforce_query,
    reference=Reference(("records",), UrlAt(("nextRecordsUrl",))),
    sizing=_SALESFORCE,
    base_path="/services/data/v59.0",
    required_params={"q": "SELECT Id, Name FROM Endpoint__c"},
    assumptions="the query locator path is modelled under the collection path "
    "(/v1/endpoints/<locator>) where Salesforce serves /query/<locator>",
)

# --- SCIM 2.0 -----------------------------------------------------------------------------------

_SCIM = Sizing("count", 100)


def _scim_users(request: Request, records: Sequence[Record]) -> Reply:
    window = offset_window(request, records, _SCIM, "startIndex", base=1)
    return Reply(
        200,
        {
            "schemas": ["urn:ietf:params:scim:api:messages:2.0:ListResponse"],
            "totalResults": window.total,
            "itemsPerPage": len(window.items),
            "startIndex": window.start + 1,
            "Resources": window.items,
        },
    )


SCIM_USERS = RealApi(
    name="SCIM 2.0 (RFC 7644) ListResponse, as served by identity providers (GET /scim/v2/Users)",
    category=SAAS,
    source=("https://datatracker.ietf.org/doc/html/rfc7644#section-3.4.2.4",),
    shape="items in `Resources`; one-based `startIndex` and `count` in; `startIndex`, "
    "`itemsPerPage` and `totalResults` echoed; no continuation",
    respond=_scim_users,
    reference=Reference(("Resources",), Offset("startIndex", total_at=("totalResults",), base=1)),
    sizing=_SCIM,
    base_path="/scim",
    assumptions="count defaults to 100 (RFC 7644 leaves the default to the provider)",
)


CATALOGUE: tuple[RealApi, ...] = (
    JIRA_PROJECT_SEARCH,
    JIRA_SEARCH_JQL,
    CONFLUENCE_CONTENT,
    CONFLUENCE_PAGES,
    OKTA_USERS,
    AUTH0_USERS,
    SALESFORCE_QUERY,
    SCIM_USERS,
)
