"""Business SaaS: CRMs, support desks, productivity and incident tools."""

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
    compact,
    cursor_window,
    keyset_window,
    offset_window,
    page_window,
    path_of,
    token_window,
    url_with,
)
from ._reference import Offset, Reference, TokenAt, UrlAt

# --- HubSpot ------------------------------------------------------------------------------------

_HUBSPOT = Sizing("limit", 10, 100)
_hubspot_tokens = Tokens("hubspot")


def _hubspot_objects(request: Request, records: Sequence[Record]) -> Reply:
    window = token_window(request, records, _HUBSPOT, _hubspot_tokens, "after")
    body: dict[str, object] = {"results": window.items}
    if window.more:
        after = _hubspot_tokens.encode(window.end)
        body["paging"] = {"next": {"after": after, "link": f"?after={after}"}}
    return Reply(200, body)


HUBSPOT_OBJECTS = RealApi(
    name="HubSpot CRM v3: List contacts (GET /crm/v3/objects/contacts)",
    category=SAAS,
    source=(
        "https://developers.hubspot.com/docs/api/crm/contacts",
        "https://developers.hubspot.com/docs/api/crm/understanding-the-crm#paging",
    ),
    shape="items in `results`; token three levels down at `paging.next.after` sent back as "
    '`after`, beside a query-only link `paging.next.link` ("?after=..."); `paging` absent on '
    "the last page",
    respond=_hubspot_objects,
    reference=Reference(("results",), TokenAt(("paging", "next", "after"), "after")),
    sizing=_HUBSPOT,
    base_path="/crm/v3/objects",
)

# --- Zendesk ------------------------------------------------------------------------------------

_ZENDESK = Sizing("page[size]", 100, 100)
_zendesk_tokens = Tokens("zendesk")


def _zendesk_tickets(request: Request, records: Sequence[Record]) -> Reply:
    window = cursor_window(
        request, records, _ZENDESK, _zendesk_tokens, "page[after]", "page[before]"
    )
    after = _zendesk_tokens.encode(window.end) if window.items else None
    before = _zendesk_tokens.encode(window.start) if window.items else None
    links = {
        "prev": url_with(request, **{"page[before]": before, "page[after]": None})
        if before
        else None,
        "next": url_with(request, **{"page[after]": after, "page[before]": None})
        if after
        else None,
    }
    meta = {"has_more": window.more, "after_cursor": after, "before_cursor": before}
    return Reply(200, {RESOURCE: window.items, "meta": meta, "links": links})


ZENDESK_TICKETS = RealApi(
    name="Zendesk Support API: List tickets, cursor pagination (GET /api/v2/tickets.json)",
    category=SAAS,
    source=(
        "https://developer.zendesk.com/api-reference/introduction/pagination/"
        "#using-cursor-pagination",
    ),
    shape="items under the resource's name (`tickets`) at a path ending in `.json`; "
    "`meta.has_more`, `meta.after_cursor` "
    "(sent as `page[after]`) and `links.next`; on the last page has_more is false while "
    "after_cursor and links.next are still set",
    respond=_zendesk_tickets,
    reference=Reference((RESOURCE,), UrlAt(("links", "next"), more_at=("meta", "has_more"))),
    sizing=_ZENDESK,
    base_path="/api/v2",
    extension=".json",
    assumptions="the last non-empty page keeps `after_cursor` and `links.next` (the docs say to "
    "stop on has_more false, not on a missing cursor); a page past the end has null cursors",
)

_ZENDESK_OFFSET = Sizing("per_page", 100, 100)


def _zendesk_tickets_offset(request: Request, records: Sequence[Record]) -> Reply:
    window = page_window(request, records, _ZENDESK_OFFSET, "page")
    page, size = window.page_number(), window.per_page
    body = {
        RESOURCE: window.items,
        "next_page": url_with(request, page=page + 1, per_page=size) if window.more else None,
        "previous_page": url_with(request, page=page - 1, per_page=size) if page > 1 else None,
        "count": window.total,
    }
    if "users" in request.query.get("include", "").split(","):
        body["users"] = [
            {"id": 900_000 + window.start + index, "name": f"requester {window.start + index}"}
            for index in range(len(window.items))
        ]
    return Reply(200, body)


ZENDESK_TICKETS_OFFSET = RealApi(
    name="Zendesk Support API: List tickets with side-loaded users, offset pagination "
    "(GET /api/v2/tickets.json?include=users)",
    category=SAAS,
    source=(
        "https://developer.zendesk.com/api-reference/introduction/pagination/"
        "#using-offset-pagination",
        "https://developer.zendesk.com/api-reference/ticketing/tickets/tickets/#list-tickets",
        "https://developer.zendesk.com/documentation/ticketing/using-the-zendesk-api/side_loading/",
    ),
    shape="items under the resource's name (`tickets`) at a path ending in `.json`; next page "
    "URL at `next_page` (null on the last page) carrying `page` and `per_page`; "
    "`previous_page`; total at `count`; the side-loaded `users` array beside the items "
    "carries ids too",
    respond=_zendesk_tickets_offset,
    reference=Reference((RESOURCE,), UrlAt(("next_page",))),
    sizing=_ZENDESK_OFFSET,
    base_path="/api/v2",
    extension=".json",
    required_params={"include": "users"},
    assumptions="one side-loaded user (the requester) per ticket, each with an integer id; "
    "the docs cap offset pagination at 100 pages: the corpus's lists are shorter",
)

# --- Notion -------------------------------------------------------------------------------------

_NOTION = Sizing("page_size", 100, 100)
_notion_tokens = Tokens("notion")


def _notion_users(request: Request, records: Sequence[Record]) -> Reply:
    window = token_window(request, records, _NOTION, _notion_tokens, "start_cursor")
    cursor = _notion_tokens.after(window)
    return Reply(
        200,
        {
            "object": "list",
            "results": window.items,
            "next_cursor": cursor,
            "has_more": window.more,
            "type": "user",
            "user": {},
        },
    )


NOTION_USERS = RealApi(
    name="Notion API: List all users (GET /v1/users)",
    category=SAAS,
    source=(
        "https://developers.notion.com/reference/intro#pagination",
        "https://developers.notion.com/reference/get-users",
    ),
    shape="items in `results`; `has_more` and `next_cursor` (null on the last page) sent back "
    "as `start_cursor`: the parameter is not the key's name",
    respond=_notion_users,
    reference=Reference(("results",), TokenAt(("next_cursor",), "start_cursor")),
    sizing=_NOTION,
)

# --- Airtable -----------------------------------------------------------------------------------

_AIRTABLE = Sizing("pageSize", 100, 100)
_airtable_tokens = Tokens("airtable", prefix="itr")


def _airtable_records(request: Request, records: Sequence[Record]) -> Reply:
    try:
        window = token_window(request, records, _AIRTABLE, _airtable_tokens, "offset")
    except Rejected:
        return Reply(422, {"error": {"type": "LIST_RECORDS_ITERATOR_NOT_AVAILABLE"}})
    return Reply(200, compact({"records": window.items, "offset": _airtable_tokens.after(window)}))


AIRTABLE_RECORDS = RealApi(
    name="Airtable Web API: List records (GET /v0/{baseId}/{tableIdOrName})",
    category=SAAS,
    source=("https://airtable.com/developers/web/api/list-records",),
    shape="items in `records`; an opaque string token under `offset` (absent on the last page) "
    "sent back as `offset`; an unknown token is a 422",
    respond=_airtable_records,
    reference=Reference(("records",), TokenAt(("offset",), "offset")),
    sizing=_AIRTABLE,
    base_path="/v0/appCorpus",
)

# --- Pipedrive ----------------------------------------------------------------------------------

_PIPEDRIVE = Sizing("limit", 100, 500)


def _pipedrive_persons(request: Request, records: Sequence[Record]) -> Reply:
    window = offset_window(request, records, _PIPEDRIVE, "start")
    pagination: dict[str, object] = {
        "start": window.start,
        "limit": window.per_page,
        "more_items_in_collection": window.more,
    }
    if window.more:
        pagination["next_start"] = window.end
    return Reply(
        200, {"success": True, "data": window.items, "additional_data": {"pagination": pagination}}
    )


PIPEDRIVE_PERSONS = RealApi(
    name="Pipedrive API v1: Get all persons (GET /v1/persons)",
    category=SAAS,
    source=("https://pipedrive.readme.io/docs/core-api-concepts-pagination",),
    shape="items in `data`; next offset three levels down at "
    "`additional_data.pagination.next_start` (absent at the end) sent as `start`, beside "
    "`more_items_in_collection`",
    respond=_pipedrive_persons,
    reference=Reference(
        ("data",), TokenAt(("additional_data", "pagination", "next_start"), "start")
    ),
    sizing=_PIPEDRIVE,
)

# --- Asana --------------------------------------------------------------------------------------

_ASANA = Sizing("limit", None, 100)
_asana_tokens = Tokens("asana")


def _asana_projects(request: Request, records: Sequence[Record]) -> Reply:
    try:
        window = token_window(request, records, _ASANA, _asana_tokens, "offset")
    except Rejected:
        return Reply(400, {"errors": [{"message": "offset: Your pagination token is invalid."}]})
    if window.size is None:
        return Reply(200, {"data": window.items})
    next_page = None
    if window.more:
        offset = _asana_tokens.encode(window.end)
        uri = url_with(request, offset=offset)
        next_page = {"offset": offset, "path": path_of(uri, strip="/api/1.0"), "uri": uri}
    return Reply(200, {"data": window.items, "next_page": next_page})


ASANA_PROJECTS = RealApi(
    name="Asana API: Get multiple projects (GET /api/1.0/projects)",
    category=SAAS,
    source=("https://developers.asana.com/docs/pagination",),
    shape="items in `data`; unpaginated without `limit`; with it, `next_page` {offset (opaque "
    "string token under `offset`), path relative to /api/1.0, uri} or null on the last page",
    respond=_asana_projects,
    reference=Reference(("data",), UrlAt(("next_page", "uri"))),
    sizing=_ASANA,
    base_path="/api/1.0",
)

# --- HubSpot legacy deals ----------------------------------------------------------------------

_HUBSPOT_DEALS = Sizing("limit", 100, 250)


def _hubspot_deals(request: Request, records: Sequence[Record]) -> Reply:
    window = offset_window(request, records, _HUBSPOT_DEALS, "offset")
    return Reply(200, {RESOURCE: window.items, "hasMore": window.more, "offset": window.end})


HUBSPOT_DEALS_V1 = RealApi(
    name="HubSpot Deals API v1 (legacy): Get all deals (GET /deals/v1/deal/paged)",
    category=SAAS,
    source=("https://legacydocs.hubspot.com/docs/methods/deals/get-all-deals",),
    shape="items under the resource's name (`deals`); `hasMore`; `offset` announces where the "
    "next page starts (it does not echo the one served) and is sent back as `offset`; "
    "`limit` up to 250",
    respond=_hubspot_deals,
    reference=Reference((RESOURCE,), TokenAt(("offset",), "offset", more_at=("hasMore",))),
    sizing=_HUBSPOT_DEALS,
    base_path="/deals/v1/deal/paged",
    assumptions="the docs call `offset` the value to send for the next page without saying "
    "what it counts: here the index of the next deal; the default `limit` is taken as 100",
)

# --- Mailchimp ----------------------------------------------------------------------------------

_MAILCHIMP = Sizing("count", 10, 1000)


def _mailchimp_members(request: Request, records: Sequence[Record]) -> Reply:
    window = offset_window(request, records, _MAILCHIMP, "offset")
    here = str(request.url.with_query(None))
    links = [
        {"rel": "self", "href": here, "method": "GET"},
        {"rel": "parent", "href": here.rsplit("/", 1)[0], "method": "GET"},
        {"rel": "create", "href": here, "method": "POST"},
    ]
    return Reply(
        200,
        {
            RESOURCE: window.items,
            "list_id": "57afe96172",
            "total_items": window.total,
            "_links": links,
        },
    )


MAILCHIMP_MEMBERS = RealApi(
    name="Mailchimp Marketing API: List members info (GET /3.0/lists/{list_id}/members)",
    category=SAAS,
    source=("https://mailchimp.com/developer/marketing/docs/methods-parameters/#pagination",),
    shape="items under the resource's name (`members`); `count`/`offset` in, nothing echoed; "
    "total at `total_items`; a HATEOAS `_links` array with no next link",
    respond=_mailchimp_members,
    reference=Reference((RESOURCE,), Offset("offset", total_at=("total_items",))),
    sizing=_MAILCHIMP,
    base_path="/3.0/lists/57afe96172",
)

# --- PagerDuty ----------------------------------------------------------------------------------

_PAGERDUTY = Sizing("limit", 25, 100)


def _pagerduty_incidents(request: Request, records: Sequence[Record]) -> Reply:
    window = offset_window(request, records, _PAGERDUTY, "offset")
    total = window.total if request.query.get("total") == "true" else None
    return Reply(
        200,
        {
            RESOURCE: window.items,
            "limit": window.per_page,
            "offset": window.start,
            "more": window.more,
            "total": total,
        },
    )


PAGERDUTY_INCIDENTS = RealApi(
    name="PagerDuty REST API v2: List incidents (GET /incidents)",
    category=SAAS,
    source=("https://developer.pagerduty.com/docs/pagination",),
    shape="items under the resource's name (`incidents`); `offset`/`limit` echoed; `more` flag; "
    "`total` null unless total=true",
    respond=_pagerduty_incidents,
    reference=Reference((RESOURCE,), Offset("offset", more_at=("more",))),
    sizing=_PAGERDUTY,
)

# --- Zoom ---------------------------------------------------------------------------------------

_ZOOM = Sizing("page_size", 30, 300)
_zoom_tokens = Tokens("zoom")


def _zoom_users(request: Request, records: Sequence[Record]) -> Reply:
    window = token_window(request, records, _ZOOM, _zoom_tokens, "next_page_token")
    return Reply(
        200,
        {
            "next_page_token": _zoom_tokens.encode(window.end) if window.more else "",
            "page_count": window.pages,
            "page_number": window.page_number(),
            "page_size": window.per_page,
            "total_records": window.total,
            RESOURCE: window.items,
        },
    )


ZOOM_USERS = RealApi(
    name="Zoom API v2: List users (GET /v2/users)",
    category=SAAS,
    source=(
        "https://developers.zoom.us/docs/api/using-zoom-apis/#pagination",
        "https://developers.zoom.us/docs/api/users/#tag/users/GET/users",
    ),
    shape='items under the resource\'s name (`users`); token at `next_page_token`, "" on the '
    "last page, sent back as `next_page_token`; `page_count`, `page_size`, `total_records`",
    respond=_zoom_users,
    reference=Reference((RESOURCE,), TokenAt(("next_page_token",), "next_page_token")),
    sizing=_ZOOM,
    base_path="/v2",
)

# --- Intercom -----------------------------------------------------------------------------------

_INTERCOM = Sizing("per_page", 50, 150)
_intercom_tokens = Tokens("intercom")


def _intercom_contacts(request: Request, records: Sequence[Record]) -> Reply:
    window = token_window(request, records, _INTERCOM, _intercom_tokens, "starting_after")
    number = window.page_number()
    pages: dict[str, object] = {
        "type": "pages",
        "page": number,
        "per_page": window.per_page,
        "total_pages": window.pages,
    }
    if window.more:
        pages["next"] = {"page": number + 1, "starting_after": _intercom_tokens.encode(window.end)}
    return Reply(
        200, {"type": "list", "data": window.items, "total_count": window.total, "pages": pages}
    )


INTERCOM_CONTACTS = RealApi(
    name="Intercom API: List all contacts (GET /contacts)",
    category=SAAS,
    source=(
        "https://developers.intercom.com/docs/build-an-integration/learn-more/rest-apis/"
        "pagination-cursor",
    ),
    shape="items in `data`; token three levels down at `pages.next.starting_after` (no "
    "`pages.next` on the last page) sent as `starting_after`; `total_count`, `pages.total_pages`",
    respond=_intercom_contacts,
    reference=Reference(("data",), TokenAt(("pages", "next", "starting_after"), "starting_after")),
    sizing=_INTERCOM,
)


# --- Paddle Billing -----------------------------------------------------------------------------

_PADDLE = Sizing("per_page", 50, 200)


def _paddle_customers(request: Request, records: Sequence[Record]) -> Reply:
    window = keyset_window(request, records, _PADDLE, "after")
    pagination = {
        "per_page": window.per_page,
        "next": url_with(request, after=window.last_id) if window.last_id else None,
        "has_more": window.more,
        "estimated_total": window.total,
    }
    meta = {"request_id": "corpus-0001", "pagination": pagination}
    return Reply(200, {"data": window.items, "meta": meta})


PADDLE_CUSTOMERS = RealApi(
    name="Paddle Billing API: List customers (GET /customers)",
    category=SAAS,
    source=("https://developer.paddle.com/api-reference/about/pagination",),
    shape="keyset `after=<last id>`: items in `data`; `meta.pagination.next` is a URL carrying "
    "it, present on the last page too, beside `has_more` false; `estimated_total`",
    respond=_paddle_customers,
    reference=Reference(
        ("data",), UrlAt(("meta", "pagination", "next"), more_at=("meta", "pagination", "has_more"))
    ),
    sizing=_PADDLE,
    assumptions="the last page keeps `meta.pagination.next` (the docs tell clients to stop on "
    "has_more false)",
)

CATALOGUE: tuple[RealApi, ...] = (
    HUBSPOT_OBJECTS,
    ZENDESK_TICKETS,
    ZENDESK_TICKETS_OFFSET,
    NOTION_USERS,
    AIRTABLE_RECORDS,
    PIPEDRIVE_PERSONS,
    ASANA_PROJECTS,
    HUBSPOT_DEALS_V1,
    MAILCHIMP_MEMBERS,
    PAGERDUTY_INCIDENTS,
    ZOOM_USERS,
    INTERCOM_CONTACTS,
    PADDLE_CUSTOMERS,
)
