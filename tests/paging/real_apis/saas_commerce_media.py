"""Commerce, content, media, social and recruiting SaaS."""

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
    compact,
    cursor_window,
    keyset_window,
    link_header,
    offset_window,
    page_window,
    token_window,
    url_with,
)
from ._reference import Keyset, LinkNext, Offset, Reference, TokenAt, UrlAt

# --- Shopify ------------------------------------------------------------------------------------

_SHOPIFY = Sizing("limit", 50, 250)
_shopify_tokens = Tokens("shopify")


def _shopify_products(request: Request, records: Sequence[Record]) -> Reply:
    window = token_window(request, records, _SHOPIFY, _shopify_tokens, "page_info")
    size = window.per_page

    def page(start: int) -> str:
        return str(
            request.url.with_query({"limit": size, "page_info": _shopify_tokens.encode(start)})
        )

    link = link_header(
        (page(max(0, window.start - size)) if window.start > 0 else None, "previous"),
        (page(window.end) if window.more else None, "next"),
    )
    return Reply(200, {RESOURCE: window.items}, (("Link", link),) if link else ())


SHOPIFY_PRODUCTS = RealApi(
    name="Shopify Admin REST API: Retrieve a list of products (GET /admin/api/{v}/products.json)",
    category=SAAS,
    source=("https://shopify.dev/docs/api/usage/pagination-rest",),
    shape="items under the resource's name (`products`) at a path ending in `.json`; Link "
    'header rel="next"/"previous" whose URLs carry only `limit` and an opaque `page_info`; '
    "no next on the last page",
    respond=_shopify_products,
    reference=Reference((RESOURCE,), LinkNext()),
    sizing=_SHOPIFY,
    base_path="/admin/api/2024-01",
    extension=".json",
)

# --- Facebook Graph API -------------------------------------------------------------------------

_GRAPH = Sizing("limit", 25, 100)
_graph_tokens = Tokens("facebook-graph")


def _facebook_edge(request: Request, records: Sequence[Record]) -> Reply:
    window = cursor_window(request, records, _GRAPH, _graph_tokens, "after", "before")
    if not window.items:
        return Reply(200, {"data": []})
    before, after = _graph_tokens.encode(window.start), _graph_tokens.encode(window.end)
    paging: dict[str, object] = {"cursors": {"before": before, "after": after}}
    if window.start > 0:
        paging["previous"] = url_with(request, before=before, after=None)
    if window.more:
        paging["next"] = url_with(request, after=after, before=None)
    return Reply(200, {"data": window.items, "paging": paging})


FACEBOOK_GRAPH_EDGE = RealApi(
    name="Meta Graph API: an edge, cursor-based (e.g. GET /v19.0/me/accounts)",
    category=SAAS,
    source=("https://developers.facebook.com/docs/graph-api/results",),
    shape="items in `data`; backward and forward cursors at `paging.cursors.before`/`after` on "
    "every page; next page URL at `paging.next` (absent on the last page), `paging.previous`",
    respond=_facebook_edge,
    reference=Reference(("data",), UrlAt(("paging", "next"))),
    sizing=_GRAPH,
    base_path="/v19.0/me",
)

# --- Spotify ------------------------------------------------------------------------------------

_SPOTIFY = Sizing("limit", 20, 50)


def _spotify_playlists(request: Request, records: Sequence[Record]) -> Reply:
    window = offset_window(request, records, _SPOTIFY, "offset")
    size = window.per_page
    return Reply(
        200,
        {
            "href": str(request.url),
            "limit": size,
            "next": url_with(request, offset=window.end, limit=size) if window.more else None,
            "offset": window.start,
            "previous": url_with(request, offset=max(0, window.start - size), limit=size)
            if window.start
            else None,
            "total": window.total,
            "items": window.items,
        },
    )


SPOTIFY_PLAYLISTS = RealApi(
    name="Spotify Web API: Get current user's playlists (GET /v1/me/playlists)",
    category=SAAS,
    source=(
        "https://developer.spotify.com/documentation/web-api/reference/"
        "get-a-list-of-current-users-playlists",
    ),
    shape="paging object: items in `items`; next page URL at `next` (null on the last page), "
    "`previous`, `offset`, `limit`, `total`, `href`",
    respond=_spotify_playlists,
    reference=Reference(("items",), UrlAt(("next",))),
    sizing=_SPOTIFY,
    base_path="/v1/me",
)

# --- Box ----------------------------------------------------------------------------------------

_BOX = Sizing("limit", 100, 1000)


def _box_items(request: Request, records: Sequence[Record]) -> Reply:
    window = offset_window(request, records, _BOX, "offset")
    return Reply(
        200,
        {
            "total_count": window.total,
            "entries": window.items,
            "offset": window.start,
            "limit": window.per_page,
            "order": [{"by": "type", "direction": "ASC"}, {"by": "name", "direction": "ASC"}],
        },
    )


BOX_FOLDER_ITEMS = RealApi(
    name="Box API: List items in folder, offset-based (GET /2.0/folders/{id}/items)",
    category=SAAS,
    source=("https://developer.box.com/guides/api-calls/pagination/offset-based/",),
    shape="items in `entries`; `offset`/`limit` echoed with `total_count`; no continuation",
    respond=_box_items,
    reference=Reference(("entries",), Offset("offset", total_at=("total_count",))),
    sizing=_BOX,
    base_path="/2.0/folders/0",
)

# --- Discord ------------------------------------------------------------------------------------

_DISCORD = Sizing("limit", 1, 1000)


def _discord_members(request: Request, records: Sequence[Record]) -> Reply:
    return Reply(200, keyset_window(request, records, _DISCORD, "after").items)


DISCORD_MEMBERS = RealApi(
    name="Discord API: List Guild Members (GET /guilds/{guild.id}/members)",
    category=SAAS,
    source=("https://discord.com/developers/docs/resources/guild#list-guild-members",),
    shape="bare array, one member by default (`limit` 1 to 1000), no signal of any kind; keyset "
    "`after` = the highest user id of the previous page",
    respond=_discord_members,
    reference=Reference((), Keyset("after")),
    sizing=_DISCORD,
    base_path="/api/v10/guilds/81384788765712384",
    # One record by default reads like a whole list, but the client always asks a page size
    # (`limit`, which Discord reads): a full page of it is checked for a second one.
)

# --- X (Twitter) API v2 -------------------------------------------------------------------------

_TWITTER = Sizing("max_results", 100, 1000)
_twitter_tokens = Tokens("twitter")


def _twitter_followers(request: Request, records: Sequence[Record]) -> Reply:
    window = token_window(request, records, _TWITTER, _twitter_tokens, "pagination_token")
    meta: dict[str, object] = {"result_count": len(window.items)}
    if window.more:
        meta["next_token"] = _twitter_tokens.encode(window.end)
    if window.start > 0:
        meta["previous_token"] = _twitter_tokens.encode(max(0, window.start - window.per_page))
    return Reply(200, {"data": window.items, "meta": meta})


TWITTER_FOLLOWERS = RealApi(
    name="X API v2: Followers lookup (GET /2/users/{id}/followers)",
    category=SAAS,
    source=("https://docs.x.com/x-api/fundamentals/pagination",),
    shape="items in `data`; `meta.next_token` (absent on the last page) and "
    "`meta.previous_token`, either sent back as `pagination_token`; `meta.result_count`",
    respond=_twitter_followers,
    reference=Reference(("data",), TokenAt(("meta", "next_token"), "pagination_token")),
    sizing=_TWITTER,
    base_path="/2/users/2244994945",
)

# --- Greenhouse ---------------------------------------------------------------------------------

_GREENHOUSE = Sizing("per_page", 100, 500)


def _greenhouse_candidates(request: Request, records: Sequence[Record]) -> Reply:
    window = page_window(request, records, _GREENHOUSE, "page")
    number = window.page_number()
    link = link_header(
        (url_with(request, page=number + 1) if window.more else None, "next"),
        (url_with(request, page=number - 1) if number > 1 else None, "prev"),
        (url_with(request, page=window.pages), "last"),
    )
    return Reply(200, window.items, (("Link", link),))


GREENHOUSE_CANDIDATES = RealApi(
    name="Greenhouse Harvest API: List candidates (GET /v1/candidates)",
    category=SAAS,
    source=("https://developers.greenhouse.io/harvest.html#pagination",),
    shape="bare array; Link header with rel next (absent on the last page), prev and last; "
    "one-based `page`, `per_page` up to 500",
    respond=_greenhouse_candidates,
    reference=Reference((), LinkNext()),
    sizing=_GREENHOUSE,
)

# --- Contentful ---------------------------------------------------------------------------------

_CONTENTFUL = Sizing("limit", 100, 1000)


def _contentful_entries(request: Request, records: Sequence[Record]) -> Reply:
    window = offset_window(request, records, _CONTENTFUL, "skip")
    return Reply(
        200,
        {
            "sys": {"type": "Array"},
            "total": window.total,
            "skip": window.start,
            "limit": window.per_page,
            "items": window.items,
        },
    )


CONTENTFUL_ENTRIES = RealApi(
    name="Contentful Content Delivery API: Entries collection (GET /spaces/{s}/entries)",
    category=SAAS,
    source=(
        "https://www.contentful.com/developers/docs/references/content-delivery-api/"
        "#/introduction/collection-resources-and-pagination",
    ),
    shape="items in `items`; `skip`/`limit` echoed with `total`; no continuation",
    respond=_contentful_entries,
    reference=Reference(("items",), Offset("skip", total_at=("total",))),
    sizing=_CONTENTFUL,
    base_path="/spaces/corpus/environments/master",
)

# --- Square -------------------------------------------------------------------------------------

_SQUARE = Sizing("limit", 100, 100)
_square_tokens = Tokens("square")


def _square_customers(request: Request, records: Sequence[Record]) -> Reply:
    window = token_window(request, records, _SQUARE, _square_tokens, "cursor")
    cursor = _square_tokens.after(window)
    return Reply(200, compact({RESOURCE: window.items or None, "cursor": cursor}))


SQUARE_CUSTOMERS = RealApi(
    name="Square API: List customers (GET /v2/customers)",
    category=SAAS,
    source=("https://developer.squareup.com/docs/build-basics/common-api-patterns/pagination",),
    shape="items under the resource's name (`customers`); token at `cursor` (absent on the "
    "last page) sent back as `cursor`; an empty list is the empty object {}",
    respond=_square_customers,
    reference=Reference((RESOURCE,), TokenAt(("cursor",), "cursor")),
    sizing=_SQUARE,
    base_path="/v2",
)


# --- SoundCloud ---------------------------------------------------------------------------------

_SOUNDCLOUD = Sizing("limit", 50, 200)
_soundcloud_tokens = Tokens("soundcloud")


def _soundcloud_tracks(request: Request, records: Sequence[Record]) -> Reply:
    window = token_window(request, records, _SOUNDCLOUD, _soundcloud_tokens, "cursor")
    if request.query.get("linked_partitioning") != "true":
        return Reply(200, window.items)
    cursor = _soundcloud_tokens.after(window)
    next_href = url_with(request, cursor=cursor) if cursor else None
    return Reply(200, {"collection": window.items, "next_href": next_href})


SOUNDCLOUD_TRACKS = RealApi(
    name="SoundCloud API: a user's tracks with linked_partitioning (GET /users/{id}/tracks)",
    category=SAAS,
    source=("https://developers.soundcloud.com/docs/api/guide#pagination",),
    shape="items in `collection`; next page URL at `next_href` (null on the last page) carrying "
    "an opaque `cursor`; only with linked_partitioning=true (else a bare array of `limit`)",
    respond=_soundcloud_tracks,
    reference=Reference(("collection",), UrlAt(("next_href",))),
    sizing=_SOUNDCLOUD,
    base_path="/users/3207",
    required_params={"linked_partitioning": "true"},
)

CATALOGUE: tuple[RealApi, ...] = (
    SHOPIFY_PRODUCTS,
    FACEBOOK_GRAPH_EDGE,
    SPOTIFY_PLAYLISTS,
    BOX_FOLDER_ITEMS,
    DISCORD_MEMBERS,
    TWITTER_FOLLOWERS,
    GREENHOUSE_CANDIDATES,
    CONTENTFUL_ENTRIES,
    SQUARE_CUSTOMERS,
    SOUNDCLOUD_TRACKS,
)
