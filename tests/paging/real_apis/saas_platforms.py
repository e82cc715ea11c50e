"""Platform SaaS: AI model APIs, hosting, headless content and messaging protocols.

Their lists page by the last id seen (`after`, `after_id`), by a token or a timestamp sent back
under a name of its own (`from`, `until`), or by page numbers in bracketed parameters.
"""

from __future__ import annotations

import bisect
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
    keyset_window,
    page_window,
    token_window,
)
from ._reference import Keyset, PageNumber, Reference, TokenAt

# --- OpenAI -------------------------------------------------------------------------------------

_OPENAI = Sizing("limit", 20, 100)


def _openai_assistants(request: Request, records: Sequence[Record]) -> Reply:
    window = keyset_window(request, records, _OPENAI, "after")
    items = window.items
    return Reply(
        200,
        {
            "object": "list",
            "data": items,
            "first_id": str(items[0]["id"]) if items else None,
            "last_id": window.last_id,
            "has_more": window.more,
        },
    )


OPENAI_ASSISTANTS = RealApi(
    name="OpenAI API: List assistants (GET /v1/assistants)",
    category=SAAS,
    source=(
        "https://platform.openai.com/docs/api-reference/assistants/listAssistants",
        "https://platform.openai.com/docs/api-reference/pagination",
    ),
    shape="keyset: items in `data`; `first_id`, `last_id` and `has_more`; the next request is "
    "`after=<last_id>` (`before=<first_id>` back); `limit` 1 to 100, default 20",
    respond=_openai_assistants,
    reference=Reference(("data",), Keyset("after", more_at=("has_more",))),
    sizing=_OPENAI,
    assumptions="the list is served in the harness's order (the API's default is `order=desc` "
    "by creation time); unknown query parameters are ignored",
)

# --- Anthropic ----------------------------------------------------------------------------------

_ANTHROPIC = Sizing("limit", 20, 1000)


def _anthropic_batches(request: Request, records: Sequence[Record]) -> Reply:
    window = keyset_window(request, records, _ANTHROPIC, "after_id")
    items = window.items
    return Reply(
        200,
        {
            "data": items,
            "has_more": window.more,
            "first_id": str(items[0]["id"]) if items else None,
            "last_id": window.last_id,
        },
    )


ANTHROPIC_BATCHES = RealApi(
    name="Anthropic API: List Message Batches (GET /v1/messages/batches)",
    category=SAAS,
    source=(
        "https://docs.anthropic.com/en/api/listing-message-batches",
        "https://docs.anthropic.com/en/api/models-list (the same paging)",
    ),
    shape="keyset: items in `data`; `has_more`, `first_id`, `last_id`; the next request is "
    "`after_id=<last_id>` (`before_id=<first_id>` back); `limit` 1 to 1000, default 20",
    respond=_anthropic_batches,
    reference=Reference(("data",), Keyset("after_id", more_at=("has_more",))),
    sizing=_ANTHROPIC,
    base_path="/v1/messages",
    assumptions="the list is served in the harness's order (the API lists the most recent "
    "first); unknown query parameters are ignored",
)

# --- Vercel -------------------------------------------------------------------------------------

_VERCEL = Sizing("limit", 20, 100)
_VERCEL_EPOCH = 1_700_000_000_000
"""The creation time (ms) of the list's first deployment; each later one is a second older."""


def _created(index: int) -> int:
    """The creation time of the deployment at `index` (the list is newest first)."""
    return _VERCEL_EPOCH - 1000 * index


def _vercel_deployments(request: Request, records: Sequence[Record]) -> Reply:
    until = request.query.get("until")
    start = 0
    if until is not None:
        # the first deployment created before `until`: times fall as the index grows
        older = [-_created(index) for index in range(len(records))]
        start = bisect.bisect_right(older, -integer(until, "until"))
    window = Window(records, start, _VERCEL.of(request))
    items = window.items
    pagination = {
        "count": len(items),
        "next": _created(window.end - 1) if window.more else None,
        "prev": _created(window.start) if items and window.start > 0 else None,
    }
    return Reply(200, {RESOURCE: items, "pagination": pagination})


VERCEL_DEPLOYMENTS = RealApi(
    name="Vercel REST API: List deployments (GET /v6/deployments)",
    category=SAAS,
    source=(
        "https://vercel.com/docs/rest-api/reference/welcome#pagination",
        "https://vercel.com/docs/rest-api/reference/endpoints/deployments/list-deployments",
    ),
    shape="items under the resource's name (`deployments`), newest first; a millisecond "
    "timestamp at `pagination.next` (null on the last page) sent back as `until`; "
    "`pagination.count` counts the page, `pagination.prev` beside; `limit` up to 100",
    respond=_vercel_deployments,
    reference=Reference((RESOURCE,), TokenAt(("pagination", "next"), "until")),
    sizing=_VERCEL,
    base_path="/v6",
    assumptions="`next` is the creation time of the page's last deployment and `until` "
    "answers those created strictly before it (the docs: `until` lists deployments created "
    "before the timestamp); creation times are distinct; unknown parameters are ignored",
)

# --- Strapi -------------------------------------------------------------------------------------

_STRAPI = Sizing("pagination[pageSize]", 25, 100)


def _strapi_entries(request: Request, records: Sequence[Record]) -> Reply:
    window = page_window(request, records, _STRAPI, "pagination[page]")
    pagination = {
        "page": window.page_number(),
        "pageSize": window.per_page,
        "pageCount": window.pages,
        "total": window.total,
    }
    return Reply(200, {"data": window.items, "meta": {"pagination": pagination}})


STRAPI_ENTRIES = RealApi(
    name="Strapi v4 REST API: Get entries, page-based (GET /api/{pluralApiId})",
    category=SAAS,
    source=(
        "https://docs-v4.strapi.io/dev-docs/api/rest/sort-pagination#pagination-by-page",
        "https://docs-v4.strapi.io/dev-docs/api/rest#get-entries",
    ),
    shape="items in `data`; one-based page in the bracketed `pagination[page]`, size in "
    "`pagination[pageSize]` (default 25, at most 100); `meta.pagination` echoes `page` and "
    "`pageSize` with `pageCount` and `total`; no continuation",
    respond=_strapi_entries,
    reference=Reference(
        ("data",), PageNumber("pagination[page]", pages_at=("meta", "pagination", "pageCount"))
    ),
    sizing=_STRAPI,
    base_path="/api",
    assumptions="parameters the API does not read (`limit`) are ignored; the default "
    "`maxLimit` of 100",
)

# --- Matrix -------------------------------------------------------------------------------------

_MATRIX = Sizing("limit", 50, None)
_matrix_tokens = Tokens("matrix")


def _matrix_notifications(request: Request, records: Sequence[Record]) -> Reply:
    window = token_window(request, records, _MATRIX, _matrix_tokens, "from")
    return Reply(200, compact({RESOURCE: window.items, "next_token": _matrix_tokens.after(window)}))


MATRIX_NOTIFICATIONS = RealApi(
    name="Matrix Client-Server API v1.x: Get notifications (GET /_matrix/client/v3/notifications)",
    category=SAAS,
    source=("https://spec.matrix.org/v1.10/client-server-api/#get_matrixclientv3notifications",),
    shape="items under the resource's name (`notifications`); an opaque token at `next_token` "
    "(omitted when there are no more) sent back as `from`: the parameter shares no word with "
    "the key; `limit` sets the size",
    respond=_matrix_notifications,
    reference=Reference((RESOURCE,), TokenAt(("next_token",), "from")),
    sizing=_MATRIX,
    base_path="/_matrix/client/v3",
    assumptions="the spec leaves the default `limit` to the server: 50 here; unknown "
    "parameters are ignored, as Matrix servers do",
)


CATALOGUE: tuple[RealApi, ...] = (
    OPENAI_ASSISTANTS,
    ANTHROPIC_BATCHES,
    VERCEL_DEPLOYMENTS,
    STRAPI_ENTRIES,
    MATRIX_NOTIFICATIONS,
)
