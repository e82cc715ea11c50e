"""Developer tools SaaS: payments, chat, error tracking, code hosting, monitoring, messaging."""

from __future__ import annotations

from collections.abc import Sequence

from ._kit import (
    RESOURCE,
    SAAS,
    RealApi,
    Record,
    Rejected,
    Reply,
    Request,
    Sizing,
    Tokens,
    Window,
    bad_request,
    headers_of,
    index_after,
    integer,
    keyset_window,
    link_header,
    offset_window,
    page_window,
    path_of,
    reject_unknown,
    token_window,
    url_with,
)
from ._reference import Keyset, LinkNext, Offset, Reference, TokenAt, UrlAt

# --- Stripe -------------------------------------------------------------------------------------

_STRIPE = Sizing("limit", 10, 100, strict=True)
_STRIPE_PARAMS = (
    "limit",
    "starting_after",
    "ending_before",
    "created",
    "email",
    "expand[]",
    "test_clock",
)


def _stripe_customers(request: Request, records: Sequence[Record]) -> Reply:
    reject_unknown(request, _STRIPE_PARAMS)
    before = request.query.get("ending_before")
    if before is None:
        window = keyset_window(request, records, _STRIPE, "starting_after", must_exist=True)
        has_more = window.more
    else:
        if all(str(record["id"]) != before for record in records):
            raise bad_request(f"No such customer: '{before}'", code="resource_missing")
        end, size = index_after(records, before) - 1, _STRIPE.of(request) or 10
        window = Window(records, max(0, end - size), end - max(0, end - size))
        has_more = window.start > 0
    return Reply(
        200, {"object": "list", "url": "/v1/customers", "has_more": has_more, "data": window.items}
    )


STRIPE_CUSTOMERS = RealApi(
    name="Stripe: List all customers (GET /v1/customers)",
    category=SAAS,
    source=(
        "https://docs.stripe.com/api/pagination",
        "https://docs.stripe.com/api/customers/list",
        "https://docs.stripe.com/api/errors (parameter_unknown)",
    ),
    shape="keyset: items in `data`, `has_more`; next request `starting_after=<last id>` (or "
    "`ending_before=<first id>`); an unknown query parameter is a 400",
    respond=_stripe_customers,
    reference=Reference(("data",), Keyset("starting_after", more_at=("has_more",))),
    sizing=_STRIPE,
    rejects_unknown_params=True,
)

# --- Slack --------------------------------------------------------------------------------------

_SLACK = Sizing("limit", 100, 1000)
_slack_tokens = Tokens("slack")


def _slack_conversations(request: Request, records: Sequence[Record]) -> Reply:
    try:
        window = token_window(request, records, _SLACK, _slack_tokens, "cursor")
    except Rejected:
        return Reply(200, {"ok": False, "error": "invalid_cursor"})
    cursor = _slack_tokens.encode(window.end) if window.more else ""
    return Reply(
        200, {"ok": True, RESOURCE: window.items, "response_metadata": {"next_cursor": cursor}}
    )


SLACK_CONVERSATIONS = RealApi(
    name="Slack Web API: conversations.list",
    category=SAAS,
    source=(
        "https://api.slack.com/methods/conversations.list",
        "https://api.slack.com/apis/pagination",
    ),
    shape="items under the resource's name (`channels`); token two levels down at "
    '`response_metadata.next_cursor`, "" on the last page, sent back as `cursor`; errors are '
    "HTTP 200 with `ok: false`",
    respond=_slack_conversations,
    reference=Reference((RESOURCE,), TokenAt(("response_metadata", "next_cursor"), "cursor")),
    sizing=_SLACK,
    base_path="/api",
)

# --- Sentry -------------------------------------------------------------------------------------

_SENTRY = Sizing("per_page", 100, 100)


def _sentry_cursor(request: Request) -> tuple[int, bool]:
    raw = request.query.get("cursor")
    if raw is None:
        return 0, False
    parts = raw.split(":")
    if len(parts) != 3 or parts[2] not in ("0", "1"):
        raise bad_request("Invalid cursor parameter.")
    offset = integer(parts[1], "cursor")
    if offset < 0:
        raise bad_request("Invalid cursor parameter.")
    return offset, parts[2] == "1"


def _sentry_issues(request: Request, records: Sequence[Record]) -> Reply:
    offset, backwards = _sentry_cursor(request)
    size = _SENTRY.of(request) or 100
    start = max(0, offset - size) if backwards else offset
    window = Window(records, start, size)

    def link(rel: str, cursor: str, results: bool) -> tuple[str, str, str, str]:
        flag = "true" if results else "false"
        return (url_with(request, cursor=cursor), rel, f'results="{flag}"', f'cursor="{cursor}"')

    header = link_header(
        link("previous", f"0:{window.start}:1", window.start > 0),
        link("next", f"0:{window.end}:0", window.more),
    )
    return Reply(200, window.items, (("Link", header),))


SENTRY_ISSUES = RealApi(
    name="Sentry: List an organization's issues (GET /api/0/organizations/{org}/issues/)",
    category=SAAS,
    source=("https://docs.sentry.io/api/pagination/",),
    shape='bare array; Link header always carries rel="previous" and rel="next" with '
    '`results="true|false"` and `cursor="0:<offset>:<is_prev>"`; the last page\'s next link '
    'is still there with results="false"',
    respond=_sentry_issues,
    reference=Reference((), LinkNext()),
    sizing=_SENTRY,
    base_path="/api/0/organizations/acme",
)

# --- GitLab -------------------------------------------------------------------------------------

_GITLAB = Sizing("per_page", 20, 100)


def _gitlab_projects(request: Request, records: Sequence[Record]) -> Reply:
    window = page_window(request, records, _GITLAB, "page")
    number, last = window.page_number(), window.pages
    link = link_header(
        (url_with(request, page=number - 1) if number > 1 else None, "prev"),
        (url_with(request, page=number + 1) if window.more else None, "next"),
        (url_with(request, page=1), "first"),
        (url_with(request, page=last), "last"),
    )
    headers = headers_of(
        ("Link", link),
        ("X-Next-Page", str(number + 1) if window.more else ""),
        ("X-Page", str(number)),
        ("X-Per-Page", str(window.per_page)),
        ("X-Prev-Page", str(number - 1) if number > 1 else ""),
        ("X-Total", str(window.total)),
        ("X-Total-Pages", str(last)),
    )
    return Reply(200, window.items, headers)


GITLAB_PROJECTS = RealApi(
    name="GitLab REST API: List all projects (GET /api/v4/projects)",
    category=SAAS,
    source=("https://docs.gitlab.com/api/rest/#offset-based-pagination",),
    shape="bare array; two redundant continuations: a Link header (prev/next/first/last) and "
    '`X-Next-Page` ("" on the last page), with X-Page, X-Per-Page, X-Total, X-Total-Pages',
    respond=_gitlab_projects,
    reference=Reference((), LinkNext()),
    sizing=_GITLAB,
    base_path="/api/v4",
)

# --- Bitbucket Cloud ----------------------------------------------------------------------------

_BITBUCKET = Sizing("pagelen", 10, 100)


def _bitbucket_repositories(request: Request, records: Sequence[Record]) -> Reply:
    window = page_window(request, records, _BITBUCKET, "page")
    number = window.page_number()
    body: dict[str, object] = {
        "pagelen": window.per_page,
        "size": window.total,
        "page": number,
        "values": window.items,
    }
    if window.more:
        body["next"] = url_with(request, page=number + 1)
    if number > 1:
        body["previous"] = url_with(request, page=number - 1)
    return Reply(200, body)


BITBUCKET_REPOSITORIES = RealApi(
    name="Bitbucket Cloud REST 2.0: List repositories in a workspace (GET /2.0/repositories/{ws})",
    category=SAAS,
    source=("https://developer.atlassian.com/cloud/bitbucket/rest/intro/#pagination",),
    shape="items in `values`; next page URL at `next` (absent on the last page), `previous`; "
    "`page`, `pagelen`, `size` (total)",
    respond=_bitbucket_repositories,
    reference=Reference(("values",), UrlAt(("next",))),
    sizing=_BITBUCKET,
    base_path="/2.0/repositories/acme",
)

# --- Docker Hub ---------------------------------------------------------------------------------

_DOCKERHUB = Sizing("page_size", 10, 100)


def _dockerhub_repositories(request: Request, records: Sequence[Record]) -> Reply:
    window = page_window(request, records, _DOCKERHUB, "page")
    number = window.page_number()
    return Reply(
        200,
        {
            "count": window.total,
            "next": url_with(request, page=number + 1) if window.more else None,
            "previous": url_with(request, page=number - 1) if number > 1 else None,
            "results": window.items,
        },
    )


DOCKERHUB_REPOSITORIES = RealApi(
    name="Docker Hub API: List repositories (GET /v2/namespaces/{namespace}/repositories)",
    category=SAAS,
    source=("https://docs.docker.com/reference/api/hub/latest/#tag/repositories",),
    shape="Django REST framework style: items in `results`; next page URL at `next` (null on "
    "the last page), `previous`; total at `count`; `page`/`page_size`",
    respond=_dockerhub_repositories,
    reference=Reference(("results",), UrlAt(("next",))),
    sizing=_DOCKERHUB,
    base_path="/v2/namespaces/library",
)

# --- Datadog ------------------------------------------------------------------------------------

_DATADOG = Sizing("page[limit]", 10, 1000)
_datadog_tokens = Tokens("datadog")


def _datadog_signals(request: Request, records: Sequence[Record]) -> Reply:
    window = token_window(request, records, _DATADOG, _datadog_tokens, "page[cursor]")
    body: dict[str, object] = {"data": window.items}
    if window.more:
        cursor = _datadog_tokens.encode(window.end)
        body["links"] = {"next": url_with(request, **{"page[cursor]": cursor})}
        body["meta"] = {"page": {"after": cursor}}
    return Reply(200, body)


DATADOG_SIGNALS = RealApi(
    name="Datadog API v2: Get a list of security signals (GET /api/v2/security_monitoring/signals)",
    category=SAAS,
    source=(
        "https://docs.datadoghq.com/api/latest/security-monitoring/"
        "#get-a-quick-list-of-security-signals",
    ),
    shape="items in `data`; the same continuation twice: the next URL at `links.next` and the "
    "cursor three levels down at `meta.page.after` (sent as `page[cursor]`); both absent at the "
    "end",
    respond=_datadog_signals,
    reference=Reference(("data",), UrlAt(("links", "next"))),
    sizing=_DATADOG,
    base_path="/api/v2/security_monitoring",
    assumptions="the last page omits `links` and `meta.page` altogether",
)

# --- Twilio -------------------------------------------------------------------------------------

_TWILIO = Sizing("PageSize", 50, 1000)
_twilio_tokens = Tokens("twilio", prefix="PA")


def _twilio_messages(request: Request, records: Sequence[Record]) -> Reply:
    size = _TWILIO.of(request) or 50
    page = integer(request.query.get("Page", "0"), "Page")
    token = request.query.get("PageToken")
    start = _twilio_tokens.start(token) if token else page * size
    window = Window(records, start, size)

    def uri(**params: object) -> str:
        return path_of(url_with(request, PageSize=size, **params))

    return Reply(
        200,
        {
            RESOURCE: window.items,
            "start": window.start,
            "end": max(window.start, window.end - 1),
            "page": page,
            "page_size": size,
            "uri": path_of(str(request.url)),
            "first_page_uri": uri(Page=0, PageToken=None),
            "next_page_uri": uri(Page=page + 1, PageToken=_twilio_tokens.encode(window.end))
            if window.more
            else None,
            "previous_page_uri": uri(
                Page=page - 1, PageToken=_twilio_tokens.encode(max(0, window.start - size))
            )
            if page > 0
            else None,
        },
    )


TWILIO_MESSAGES = RealApi(
    name="Twilio REST 2010-04-01: Read multiple Message resources (GET .../Messages.json)",
    category=SAAS,
    source=(
        "https://www.twilio.com/docs/usage/twilios-response#pagination",
        "https://www.twilio.com/docs/messaging/api/message-resource#read-multiple-message-"
        "resources",
    ),
    shape="items under the resource's name (`messages`) at a path ending in `.json`; "
    "origin-relative next page path at "
    "`next_page_uri` (null on the last page) carrying `Page` and an opaque `PageToken`; `page`, "
    "`page_size`, `start`, `end`, first/previous page paths beside",
    respond=_twilio_messages,
    reference=Reference((RESOURCE,), UrlAt(("next_page_uri",))),
    sizing=_TWILIO,
    base_path="/2010-04-01/Accounts/AC00000000000000000000000000000000",
    extension=".json",
)


_TWILIO_V2 = Sizing("PageSize", 50, 1000)
_twilio_v2_tokens = Tokens("twilio-v2", prefix="PA")


def _twilio_verify_services(request: Request, records: Sequence[Record]) -> Reply:
    size = _TWILIO_V2.of(request) or 50
    page = integer(request.query.get("Page", "0"), "Page")
    token = request.query.get("PageToken")
    window = Window(records, _twilio_v2_tokens.start(token) if token else page * size, size)
    meta = {
        "page": page,
        "page_size": size,
        "first_page_url": url_with(request, Page=0, PageToken=None, PageSize=size),
        "previous_page_url": url_with(
            request,
            Page=page - 1,
            PageSize=size,
            PageToken=_twilio_v2_tokens.encode(max(0, window.start - size)),
        )
        if page
        else None,
        "url": str(request.url),
        "next_page_url": url_with(
            request, Page=page + 1, PageSize=size, PageToken=_twilio_v2_tokens.encode(window.end)
        )
        if window.more
        else None,
        "key": RESOURCE,
    }
    return Reply(200, {RESOURCE: window.items, "meta": meta})


TWILIO_VERIFY_SERVICES = RealApi(
    name="Twilio REST (v1/v2 APIs, e.g. Verify): Read multiple Services (GET /v2/Services)",
    category=SAAS,
    source=(
        "https://www.twilio.com/docs/usage/twilios-response#pagination",
        "https://www.twilio.com/docs/verify/api/service#read-multiple-service-resources",
    ),
    shape="items under the key named by `meta.key` (the resource's name); absolute next page URL "
    "at `meta.next_page_url` (null on the last page) with `Page` and an opaque `PageToken`; "
    "`meta.previous_page_url`, `first_page_url`, `page`, `page_size`",
    respond=_twilio_verify_services,
    reference=Reference((RESOURCE,), UrlAt(("meta", "next_page_url"))),
    sizing=_TWILIO_V2,
    base_path="/v2",
)

# --- YouTrack -----------------------------------------------------------------------------------

_YOUTRACK = Sizing("$top", 42)


def _youtrack_issues(request: Request, records: Sequence[Record]) -> Reply:
    return Reply(200, offset_window(request, records, _YOUTRACK, "$skip").items)


YOUTRACK_ISSUES = RealApi(
    name="YouTrack REST API: Get issues (GET /api/issues)",
    category=SAAS,
    source=("https://www.jetbrains.com/help/youtrack/devportal/api-concept-pagination.html",),
    shape="bare array of 42 by default (the documented default of `$top`), no signal of any "
    "kind; `$skip`/`$top` page it",
    respond=_youtrack_issues,
    reference=Reference((), Offset("$skip")),
    sizing=_YOUTRACK,
    base_path="/api",
    expected="lists-when-pinned",
    expected_refusal_reason="42 records and no paging signal read like a whole list: checking "
    "every signal-less page for a second one would double the requests of every unpaged list",
)

CATALOGUE: tuple[RealApi, ...] = (
    STRIPE_CUSTOMERS,
    SLACK_CONVERSATIONS,
    SENTRY_ISSUES,
    GITLAB_PROJECTS,
    BITBUCKET_REPOSITORIES,
    DOCKERHUB_REPOSITORIES,
    DATADOG_SIGNALS,
    TWILIO_MESSAGES,
    TWILIO_VERIFY_SERVICES,
    YOUTRACK_ISSUES,
)
