"""Composing what a page's names do not give (issue 34), each a guess page 2 verifies: the
resource's name from a path with an extension, a last id's keyset parameter, a token's
parameter from a larger table, bracketed page parameters, an offset that announces the next
page, and items and a link found by structure. What stays unsafe stays refused."""

from __future__ import annotations

from typing import Any

import pytest
from yarl import URL

from remedy_async._paging._detect._compose import TOKEN_PARAMS, detect
from remedy_async._paging._paginators._auto import AutoPaginator
from remedy_async._paging._protocol import RESOURCE, PageRequest, PagingFault
from remedy_async._paging._read._items import find_items, locate_items, resource_names
from remedy_async._paging._read._vocabulary import LAST_ID_PARAMS, param_candidates
from tests.paging.responses import LIST_URL, nested, page, records, url_of

ITEMS = records(3)
JSON_URL = URL("https://api.example.com/api/v2/endpoints.json")


def detected(body: Any, url: URL = LIST_URL, request: PageRequest | None = None) -> Any:
    return detect(request or PageRequest(), page(body, url=url))


def params_tried(body: Any) -> list[str | None]:
    return [guess.param for guess in detected(body).guesses]


# The resource's name without its extension


@pytest.mark.parametrize(
    ("path", "name"),
    [
        ("/api/v2/tickets.json", "tickets"),
        ("/2010-04-01/Accounts/AC1/Messages.json", "messages"),
        ("/admin/api/2024-01/products.json", "products"),
        ("/v1/remediation-targets.xml", "remediation_targets"),
    ],
)
def test_the_resource_name_is_the_last_segment_without_its_extension(path: str, name: str) -> None:
    """`tickets.json` names `tickets`, in every spelling the placeholder matches."""
    assert name in resource_names(URL(f"https://api.example.com{path}"))


def test_items_beside_side_loaded_records_are_told_apart_at_a_json_path() -> None:
    """At `/endpoints.json`, `endpoints` beside side-loaded `users` (both with ids) is the
    items, written with the placeholder; at a path naming neither, the page is refused."""
    body = {"endpoints": ITEMS, "users": records(3, "user"), "next_page": None}
    found = detected(body, JSON_URL)
    assert found.convention.items == ((RESOURCE,),)
    assert locate_items(found.convention, page(body, url=JSON_URL))[1] == ("endpoints",)
    with pytest.raises(PagingFault, match="several arrays of records"):
        detected(body, URL("https://api.example.com/v1/things.json"))


# A last id sent back as `after` and its kin


def test_a_last_id_token_is_tried_as_the_keyset_parameters() -> None:
    """`last_id` + `has_more` (OpenAI, Anthropic) tries the key, then `starting_after`,
    `after`, `after_id`, `since_id`; the flag ends the list."""
    body = {"data": ITEMS, "first_id": "ep-0", "last_id": "ep-2", "has_more": True}
    found = detected(body)
    tried = [guess.param for guess in found.guesses]
    assert tried[0] == "last_id"
    positions = [tried.index(param) for param in LAST_ID_PARAMS]
    assert positions == sorted(positions)
    assert {guess.next_at for guess in found.guesses} == {("last_id",)}
    assert {guess.more_at for guess in found.guesses} == {("has_more",)}


@pytest.mark.parametrize("key", ["last_id", "lastId", "LastKey", "lastSeenAssetId"])
def test_a_key_naming_the_last_id_seen_is_given_the_keyset_parameters(key: str) -> None:
    """Any spelling of a last id (or key) seen gets the keyset parameters after its own."""
    found = param_candidates(key)
    assert found[:1] == (key[:1].lower() + key[1:],) or found[0] == key
    assert set(LAST_ID_PARAMS) <= set(found)


def test_a_first_id_is_not_a_way_forward() -> None:
    """`first_id` alone, with `has_more`, is a backward id: the keyset guesses, not a token."""
    found = detected({"data": ITEMS, "first_id": "ep-0", "has_more": True})
    assert {guess.follow for guess in found.guesses} == {"keyset"}


# Token parameters from a larger table


def test_a_token_whose_name_gives_no_parameter_is_tried_in_the_table() -> None:
    """Matrix's `next_token`, sent back as `from`: the names the key gives, then the table."""
    tried = params_tried({"notifications": ITEMS, "next_token": "t-2"})
    assert tried[:2] == ["pagination_token", "token"]
    assert "from" in tried
    assert tried.index("cursor") < tried.index("from")
    assert set(TOKEN_PARAMS) <= set(tried)


def test_a_unix_time_is_tried_as_until_and_since_first() -> None:
    """Vercel's `pagination.next`, a time in milliseconds, is tried as `until`, `since` before
    the offset and page parameters a number is tried in."""
    tried = params_tried(
        {"deployments": ITEMS, "pagination": {"count": 3, "next": 1_700_000_000_000}}
    )
    assert tried.index("until") < tried.index("since") < tried.index("offset")


def test_a_small_number_is_tried_as_an_offset_before_a_time() -> None:
    """A next offset (Armis' `data.next`) is an offset first; a time parameter comes later."""
    tried = params_tried({"data": {"results": ITEMS, "next": 3, "total": 9}})
    assert tried.index("from") < tried.index("until")


def test_a_token_that_every_parameter_ignores_is_refused_after_the_table() -> None:
    """Page 1 again for every parameter tried: refused, never ended, naming them."""
    auto = AutoPaginator()
    same = {"items": ITEMS, "next_token": "t-2"}
    following = auto.read(auto.first(3), page(same)).next
    tried = []

    def read_every_guess() -> None:
        nonlocal following
        while following is not None and len(tried) < 50:  # every guess: page 1 again
            tried.append(following.convention)
            following = auto.read(following, page(same, url=url_of(following))).next

    with pytest.raises(PagingFault, match="each parameter tried") as info:
        read_every_guess()
    assert len(tried) > len(TOKEN_PARAMS)
    assert "until" in str(info.value)


# Bracketed page parameters


def test_an_echoed_page_inside_an_object_is_tried_bracketed() -> None:
    """Strapi's `meta.pagination.page` is tried as `page`, then as `pagination[page]`."""
    body = {
        "data": ITEMS,
        "meta": {"pagination": {"page": 1, "pageSize": 3, "pageCount": 4, "total": 12}},
    }
    found = detected(body)
    assert [guess.param for guess in found.guesses] == ["page", "pagination[page]"]
    assert found.convention.position_at == ("meta", "pagination", "page")
    assert found.convention.pages_at == ("meta", "pagination", "pageCount")


def test_an_echo_at_the_top_is_not_bracketed() -> None:
    """An echoed offset at the top has no object to bracket it by."""
    tried = params_tried({"items": ITEMS, "offset": 0, "total": 9})
    assert not any("[" in (param or "") for param in tried)


# An offset announcing the next page


def test_an_offset_equal_to_the_page_s_count_announces_the_next_page() -> None:
    """HubSpot's legacy `offset` (3 after 3 records, none asked) is sent back as it is: a
    token at `offset`, verified by page 2, ended by `hasMore`."""
    found = detected({"deals": ITEMS, "hasMore": True, "offset": 3})
    assert found.convention.follow == "token"
    assert found.convention.next_at == ("offset",)
    assert found.convention.param == "offset"
    assert found.convention.more_at == ("hasMore",)
    assert found.guesses
    assert found.refusal is not None


@pytest.mark.parametrize(
    ("offset", "request_"),
    [(5, PageRequest()), (2, PageRequest()), (3, PageRequest(params=(("offset", "0"),)))],
    ids=["beyond-the-page", "inside-the-page", "asked-for-another"],
)
def test_any_other_offset_stays_an_echo_that_is_refused(offset: int, request_: PageRequest) -> None:
    """An offset that is neither the one served nor the page's count (or any, when an offset
    was asked) is read as an echo, which the page's reading then refuses: following it would
    skip or repeat records."""
    body = {"items": ITEMS, "offset": offset, "total": 9}
    found = detected(body, request=request_)
    assert found.convention.follow == "offset"
    assert found.convention.position_at == ("offset",)
    auto = AutoPaginator()
    with pytest.raises(PagingFault, match=f"echoed offset {offset}"):
        auto.read(auto.first(3) if not request_.params else request_, page(body))


# Items and a link found by structure


QUALYS = ("HOST_LIST_OUTPUT", "RESPONSE", "HOST_LIST", "HOST")
NEXT = "https://api.example.com/v1/endpoints?action=list&id_min=ep-3"


def qualys(items: list[dict[str, str]], url: str | None = NEXT) -> dict[str, Any]:
    response: dict[str, Any] = {"DATETIME": "2026-01-01", "HOST_LIST": {"HOST": items}}
    if url is not None:
        response["WARNING"] = {"CODE": "1980", "TEXT": "limit exceeded", "URL": url}
    return {"HOST_LIST_OUTPUT": {"RESPONSE": response}}


def test_items_under_upper_case_keys_are_found_four_levels_down() -> None:
    """An XML document's elements (upper case) nest a level each: items are found deeper."""
    found = find_items(qualys(ITEMS), ())
    assert (found.path, found.items) == (QUALYS, ITEMS)
    assert find_items(nested(["A", "B", "C", "D", "E", "F"], ITEMS), ()).path == tuple("ABCDEF")


@pytest.mark.parametrize(
    "path", [["A", "B", "C", "d"], ["a", "B", "C", "D"], list("ABCDEFG")], ids=str
)
def test_items_deeper_than_three_levels_otherwise_are_not_found(path: list[str]) -> None:
    """Past three levels, a lower-case key on the way, or past six, the page has no items."""
    with pytest.raises(PagingFault, match="no array of records"):
        find_items(nested(path, ITEMS), ())


def test_a_link_to_the_list_itself_under_a_plain_url_key_is_followed_once_verified() -> None:
    """Qualys' `WARNING.URL` (the list's path with `id_min`) is a way forward to verify; the
    last batch, without it, ends the list."""
    found = detected(qualys(ITEMS), request=PageRequest(params=(("action", "list"),)))
    assert found.convention.follow == "url"
    assert found.convention.next_at == (*QUALYS[:2], "WARNING", "URL")
    assert found.guesses == (found.convention,)
    auto = AutoPaginator()
    first = auto.read(auto.first(None), page(qualys(ITEMS), url=LIST_URL.with_query(action="list")))
    assert first.next is not None
    assert str(first.next.url) == NEXT
    second = auto.read(first.next, page(qualys(records(2, start=3), None), url=URL(NEXT)))
    assert [item["id"] for item in second.items] == ["ep-3", "ep-4"]
    assert second.next is None


def test_a_link_that_brings_the_first_page_again_is_refused() -> None:
    """Following the link brought page 1 again: refused, not ended."""
    auto = AutoPaginator()
    first = auto.read(auto.first(None), page(qualys(ITEMS)))
    assert first.next is not None
    with pytest.raises(PagingFault, match="links to its own list"):
        auto.read(first.next, page(qualys(ITEMS), url=URL(NEXT)))


@pytest.mark.parametrize(
    "link",
    [
        "https://api.example.com/v1/endpoints",  # the list itself, nothing added (`url`, Stripe)
        "https://api.example.com/v1/other?id_min=3",  # another path
        "https://elsewhere.example.com/v1/endpoints?id_min=3",  # another origin
    ],
)
def test_other_links_are_not_a_way_forward(link: str) -> None:
    """A link adding no parameter, to another path or another origin, is not followed."""
    found = detected({"data": ITEMS, "url": link})
    assert found.convention.follow != "url"


def test_a_link_under_a_paging_word_is_read_by_its_word() -> None:
    """`self.href`, `first_page_uri`: their words say backward; never the way forward."""
    body = {"data": ITEMS, "first_page_uri": "/v1/endpoints?page=0", "self": {"href": NEXT}}
    assert detected(body).convention.follow != "url"
