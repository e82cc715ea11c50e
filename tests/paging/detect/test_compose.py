"""Composing a list's convention from its first page, axis by axis (issue 23): the items by
structure, the continuation in any spelling and depth, its request parameter, end evidence,
totals, backward and redundant signals, guesses to verify, and refusals naming what was seen."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from yarl import URL

from remedy_async._paging._conventions import CONVENTIONS
from remedy_async._paging._detect._compose import detect
from remedy_async._paging._protocol import BODY, RESOURCE, PageRequest, PagingFault
from remedy_async._paging._read._items import locate_items
from remedy_async._paging._read._signals import UnreadSignal
from remedy_async._paging._read._vocabulary import param_candidates, spelled
from remedy_async._wire._types import WireFault
from tests.budget import examples
from tests.paging.responses import LIST_URL, page, records

if TYPE_CHECKING:
    from remedy_async._paging._detect._compose import Detection

ITEMS = records(3)
KEYSET_PARAMS = ["starting_after", "after", "after_id", "since_id"]
NEXT_URL = "https://api.example.com/v1/endpoints?page=2"


def detected(
    body: Any,
    *headers: tuple[str, str],
    url: URL = LIST_URL,
    request: PageRequest | None = None,
) -> Detection:
    return detect(request or PageRequest(), page(body, *headers, url=url))


# Items


@pytest.mark.parametrize(
    "key", ["values", "resources", "entries", "result", "rows", "collection", "nodes", "endpoints"]
)
def test_items_under_any_key_are_found_by_structure(key: str) -> None:
    """Items under keys the old table lacked (and the resource's own name) are read."""
    response = page({key: ITEMS})
    found = detect(PageRequest(), response)
    assert locate_items(found.convention, response) == (ITEMS, (key,))
    assert found.convention.follow == "none"


def test_items_under_the_resource_name_inside_an_envelope() -> None:
    """`response.<resource>` is found, and written with the placeholder."""
    found = detected({"response": {"endpoints": ITEMS}, "status": "ok"})
    assert found.convention.items == (("response", RESOURCE),)


@pytest.mark.parametrize(
    "body",
    [{"data": {"items": ITEMS}}, {"data": {"endpoints": {"nodes": ITEMS}}}],
    ids=["data.items", "data.endpoints.nodes"],
)
def test_items_nested_under_a_contract_key_are_found(body: dict[str, Any]) -> None:
    """Items 2-3 levels under `data` (GraphQL's `data.<resource>.nodes`) are read, no crash."""
    found = detected(body)
    assert found.convention.follow == "none"
    assert found.convention.items[0][0] == "data"


def test_a_page_without_items_is_refused_naming_the_keys_seen() -> None:
    """No array of records: refused, naming the keys at the top."""
    with pytest.raises(PagingFault, match=r"keys at the top: count, status"):
        detected({"status": "ok", "count": 3})


def test_several_arrays_of_records_are_refused_naming_them() -> None:
    """Two arrays of records nothing tells apart are refused, naming both."""
    with pytest.raises(PagingFault, match=r"several arrays of records \(users, groups\)"):
        detected({"users": ITEMS, "groups": records(2, "g")})


@pytest.mark.parametrize("body", ["text", 3, None])
def test_a_body_that_is_no_list_is_refused(body: Any) -> None:
    """A scalar body is no list response."""
    with pytest.raises((PagingFault, WireFault)):
        detected(body)


# Continuations combined with any items key


def test_items_with_a_next_page_token() -> None:
    """`items` + `nextPageToken`: a token sent back as `pageToken` (to verify)."""
    found = detected({"items": ITEMS, "nextPageToken": "t"})
    assert (found.convention.items, found.convention.next_at) == ((("items",),), ("nextPageToken",))
    assert (found.convention.follow, found.convention.param) == ("token", "pageToken")


def test_value_with_a_continuation_header() -> None:
    """`value` + `X-MS-ContinuationToken`: the header's token sent as `continuationToken`."""
    found = detected({"value": ITEMS}, ("X-MS-ContinuationToken", "t"))
    convention = found.convention
    assert (convention.items, convention.next_header) == ((("value",),), "X-MS-ContinuationToken")
    assert (convention.follow, convention.param) == ("token", "continuationToken")


def test_results_with_a_plain_next_url() -> None:
    """`results` + `next` URL reads like Django REST framework: the 'next-url' preset."""
    assert detected({"results": ITEMS, "next": NEXT_URL}).convention == CONVENTIONS["next-url"]


@pytest.mark.parametrize(
    ("key", "value", "follow", "param"),
    [
        ("next_cursor", "c", "token", "cursor"),
        ("nextLink", NEXT_URL, "url", None),
        ("nextToken", "t", "token", "nextToken"),
        ("NextMarker", "m", "token", "Marker"),
        ("next_page_url", NEXT_URL, "url", None),
    ],
)
def test_continuations_in_any_spelling(
    key: str, value: str, follow: str, param: str | None
) -> None:
    """Snake, camel and Pascal continuations are read: a URL followed, a token sent back."""
    convention = detected({"data": ITEMS, key: value}).convention
    assert (convention.next_at, convention.follow, convention.param) == ((key,), follow, param)


@pytest.mark.parametrize(
    ("body", "path", "param"),
    [
        (
            {"data": ITEMS, "additional_data": {"pagination": {"next_start": 3}}},
            ("additional_data", "pagination", "next_start"),
            "start",
        ),
        (
            {"data": ITEMS, "meta": {"pagination": {"next_cursor": "c"}}},
            ("meta", "pagination", "next_cursor"),
            "cursor",
        ),
        ({"data": ITEMS, "paging": {"next": {"after": "a"}}}, ("paging", "next", "after"), "after"),
        (
            {"members": ITEMS, "response_metadata": {"next_cursor": "c"}},
            ("response_metadata", "next_cursor"),
            "cursor",
        ),
    ],
    ids=["pipedrive", "meta.pagination", "facebook", "slack"],
)
def test_nested_token_continuations(
    body: dict[str, Any], path: tuple[str, ...], param: str
) -> None:
    """A token two or three levels deep is read there (it used to end the list silently)."""
    convention = detected(body).convention
    assert (convention.follow, convention.next_at, convention.param) == ("token", path, param)


def test_a_nested_next_url() -> None:
    """`links.pages.next` is a URL followed from three levels deep."""
    convention = detected({"data": ITEMS, "links": {"pages": {"next": NEXT_URL}}}).convention
    assert (convention.follow, convention.next_at) == ("url", ("links", "pages", "next"))


def test_a_relation_link_array() -> None:
    """`links: [{"rel": "next", "href": ...}]` is a URL followed at `[rel=next]`."""
    body = {
        "data": ITEMS,
        "links": [{"rel": "self", "href": "x"}, {"rel": "next", "href": NEXT_URL}],
    }
    convention = detected(body).convention
    assert (convention.follow, convention.next_at) == ("url", ("links", "[rel=next]", "href"))


# Words that meant something else


def test_an_opaque_string_under_offset_is_a_token() -> None:
    """A string `offset` is a token handed out (it used to end the list silently)."""
    convention = detected({"items": ITEMS, "offset": "b2Zmc2V0PTM="}).convention
    assert (convention.follow, convention.next_at, convention.param) == (
        "token",
        ("offset",),
        "offset",
    )


def test_an_integer_offset_is_an_echoed_position() -> None:
    """An integer `offset` is the position served: an offset list, read as the preset."""
    assert (
        detected({"items": ITEMS, "offset": 0, "limit": 3, "total": 9}).convention
        == (CONVENTIONS["offset"])
    )


@pytest.mark.parametrize(
    ("body", "path"),
    [
        ({"totalResults": 9}, ("totalResults",)),
        ({"total_count": 9}, ("total_count",)),
        ({"totalCount": 9}, ("totalCount",)),
        ({"total_items": 9}, ("total_items",)),
        ({"meta": {"pagination": {"total": 9}}}, ("meta", "pagination", "total")),
    ],
)
def test_totals_under_any_name(body: dict[str, Any], path: tuple[str, ...]) -> None:
    """A total under any name and depth is read, so it backs up the end."""
    convention = detected({"items": ITEMS, "next_cursor": "c", **body}).convention
    assert convention.total_at == path


def test_a_total_header() -> None:
    """`X-Total-Count` is read as the total."""
    convention = detected(ITEMS, ("Link", f'<{NEXT_URL}>; rel="next"'), ("X-Total-Count", "9"))
    assert convention.convention.total_header == "X-Total-Count"


def test_a_count_equal_to_a_page_that_goes_on_is_not_the_total() -> None:
    """A bare `count` equal to the page's items, beside a way forward, counts the page."""
    convention = detected({"results": ITEMS, "count": 3, "next": NEXT_URL}).convention
    assert convention.total_at == ()


# End evidence


def test_a_link_next_marked_without_results_is_read_as_the_link_convention() -> None:
    """A `results="false"` Link next is the Link convention, ended on this page."""
    found = detected(ITEMS, ("Link", f'<{NEXT_URL}>; rel="next"; results="false"'))
    assert found.convention.next_header == "Link"
    assert found.guesses == ()


def test_a_next_token_beside_has_more_false_reads_the_flag() -> None:
    """A token left beside `has_more: false` composes a convention that reads the flag."""
    convention = detected({"data": ITEMS, "has_more": False, "next_cursor": "c"}).convention
    assert (convention.more_at, convention.next_at) == (("has_more",), ("next_cursor",))


def test_an_empty_token_ends_on_the_first_page() -> None:
    """`nextPageToken: ""` names the continuation and says this page is the last."""
    found = detected({"items": ITEMS, "nextPageToken": ""})
    assert (found.convention.follow, found.convention.next_at) == ("token", ("nextPageToken",))
    assert found.guesses == ()


# Backward and redundant signals


@pytest.mark.parametrize(
    "body",
    [
        {"items": ITEMS, "prev": "/v1/endpoints?page=0", "next": NEXT_URL},
        {"items": ITEMS, "before_cursor": "b", "next_cursor": "a"},
        {"items": ITEMS, "previous_token": "b", "next_token": "a"},
        {"items": ITEMS, "pageInfo": {"startCursor": "s", "endCursor": "a", "hasNextPage": True}},
        {"items": ITEMS, "paging": {"cursors": {"before": "b", "after": "a"}}},
    ],
    ids=["prev", "before_cursor", "previous_token", "startCursor", "paging.cursors.before"],
)
def test_backward_cursors_are_ignored(body: dict[str, Any]) -> None:
    """A backward cursor beside a forward one is neither followed nor refused."""
    convention = detected(body).convention
    assert convention.follow in ("url", "token")
    assert convention.next_at[-1] in ("next", "next_cursor", "next_token", "endCursor", "after")


def test_a_page_with_only_a_backward_cursor_is_the_whole_list() -> None:
    """The last page of a list with only `prev` left ends it."""
    assert detected({"items": ITEMS, "prev": "/v1/endpoints?page=0"}).convention.follow == "none"


def test_a_link_and_an_agreeing_next_page_header_are_acknowledged() -> None:
    """Link next and an agreeing `X-Next-Page`: the Link followed, the header acknowledged."""
    found = detected(ITEMS, ("Link", f'<{NEXT_URL}>; rel="next"'), ("X-Next-Page", "2"))
    assert (found.convention.next_header, found.convention.ignore_headers) == (
        "Link",
        ("X-Next-Page",),
    )


def test_a_link_and_a_disagreeing_next_page_header_are_refused() -> None:
    """Link next to page 2 and `X-Next-Page: 3` disagree: refused, naming both."""
    with pytest.raises(PagingFault, match="Link header and the X-Next-Page header"):
        detected(ITEMS, ("Link", f'<{NEXT_URL}>; rel="next"'), ("X-Next-Page", "3"))


@pytest.mark.parametrize(("link_page", "header"), [("12", "2"), ("5", "1")])
def test_a_header_agrees_with_a_link_only_by_a_query_value(link_page: str, header: str) -> None:
    """`X-Next-Page: 2` does not agree with a link to page 12 because `2` occurs in it."""
    link = f'<https://api.example.com/v1/endpoints?page={link_page}>; rel="next"'
    with pytest.raises(PagingFault, match="disagree"):
        detected(ITEMS, ("Link", link), ("X-Next-Page", header))


def test_a_link_and_an_agreeing_body_link_are_acknowledged() -> None:
    """Link next and `_links.next.href` to the same page: one followed, one acknowledged."""
    body = {"items": ITEMS, "_links": {"next": {"href": "/v1/endpoints?page=2"}}}
    found = detected(body, ("Link", '</v1/endpoints?page=2>; rel="next"'))
    assert (found.convention.next_header, found.convention.ignore) == (
        "Link",
        (("_links", "next", "href"),),
    )


def test_a_link_and_a_disagreeing_body_link_are_refused() -> None:
    """Link next and `_links.next.href` to different pages are refused."""
    body = {"items": ITEMS, "_links": {"next": {"href": "/v1/endpoints?page=3"}}}
    with pytest.raises(PagingFault, match="disagree"):
        detected(body, ("Link", '</v1/endpoints?page=2>; rel="next"'))


def test_a_url_and_its_own_token_are_one_continuation() -> None:
    """A token that the next URL carries is acknowledged, not a second way forward."""
    body = {"data": ITEMS, "next": "/v1/endpoints?cursor=abc", "cursor": "abc"}
    found = detected(body)
    assert (found.convention.follow, found.convention.ignore) == ("url", (("cursor",),))


def test_two_different_tokens_are_refused() -> None:
    """Two tokens with different values: which leads on cannot be decided."""
    with pytest.raises(PagingFault, match=r"several different continuations \(nextCursor"):
        detected({"items": ITEMS, "nextCursor": "c", "next_token": "d"})


def test_a_filter_echo_beside_a_cursor_is_not_a_second_continuation() -> None:
    """An envelope echoing a time filter (`updated_after`) beside its cursor is a cursor list."""
    body = {"items": ITEMS, "nextCursor": "c", "updated_after": "2024-01-01T00:00:00Z"}
    assert detected(body).convention.next_at == ("nextCursor",)


def test_an_unknown_continuation_word_is_refused() -> None:
    """A name speaking of a next page in unknown words is refused, never guessed."""
    with pytest.raises(UnreadSignal, match=r"nxt_tok_x.*auto-detection"):
        detected({"items": ITEMS, "nxt_tok_x": "c"})


# Request parameters and keyset guesses


@pytest.mark.parametrize(
    ("key", "first", "others"),
    [
        ("next_start", "start", ("next_start", "cursor")),
        ("nextPageToken", "pageToken", ("nextPageToken", "cursor")),
        ("next_cursor", "cursor", ("next_cursor",)),
    ],
)
def test_a_tokens_parameter_is_derived_from_its_key(
    key: str, first: str, others: tuple[str, ...]
) -> None:
    """A token's parameter is its key without `next` first; the key and `cursor` are tried."""
    found = detected({"data": ITEMS, key: "t"})
    tried = [guess.param for guess in found.guesses]
    assert (found.convention.param, tried[0]) == (first, first)
    assert set(others) <= set(tried[1:])


def test_a_token_guess_is_refused_with_the_parameters_tried() -> None:
    """When no guess works, the refusal names every parameter tried and the axis to pin."""
    refusal = detected({"data": ITEMS, "next_start": 3}).refusal
    assert refusal is not None
    assert all(param in refusal for param in ("start", "next_start", "cursor"))
    assert "param='<its parameter>'" in refusal


def test_a_stripe_shaped_list_guesses_its_keyset_parameter() -> None:
    """`data` + `has_more` (Stripe) tries `starting_after`, `after`, `after_id`, `since_id` in
    turn."""
    found = detected({"object": "list", "data": ITEMS, "has_more": True})
    assert found.convention == CONVENTIONS["stripe"]
    assert [guess.param for guess in found.guesses] == KEYSET_PARAMS
    assert {guess.follow for guess in found.guesses} == {"keyset"}
    assert found.refusal is not None


def test_a_stripe_shaped_last_page_is_the_whole_list() -> None:
    """`has_more: false` on the first page: nothing to guess."""
    found = detected({"object": "list", "data": ITEMS, "has_more": False})
    assert (found.convention.follow, found.guesses) == ("none", ())


# Pages that announce nothing


@pytest.mark.parametrize("size", [25, 50, 100, 200, 250, 1000])
def test_a_round_page_that_announces_nothing_is_probed(size: int) -> None:
    """A bare array of a round size may be a silent cap: offset, page and last-id guesses."""
    found = detected(records(size))
    assert found.unannounced
    tried = [(guess.follow, guess.param, guess.first_page) for guess in found.guesses]
    assert tried[0][:2] == ("offset", "offset")
    assert {("page", "page", 0), ("page", "page", 1), ("keyset", "after", 1)} <= set(tried)


def test_a_page_of_the_size_asked_is_probed() -> None:
    """A page holding exactly the page size asked for is checked for a second page."""
    request = PageRequest(params=(("limit", "7"), ("pageSize", "7")))
    assert detected({"items": records(7)}, request=request).unannounced


def test_a_page_of_another_size_is_the_whole_list() -> None:
    """Seven records, not asked for seven, announcing nothing: the whole list, the preset."""
    found = detected(records(7))
    assert (found.convention, found.guesses) == (CONVENTIONS["none"], ())


def test_a_page_short_of_its_total_is_probed_and_refused_if_nothing_follows() -> None:
    """A page short of its total with no way on is probed, and refused if no guess works."""
    found = detected({"items": records(7), "total": 20})
    assert found.unannounced
    assert found.refusal is not None
    assert "announced 20 items" in found.refusal


def test_a_page_that_reaches_its_total_is_not_probed() -> None:
    """A page holding its whole announced total is not probed, even at the size asked."""
    request = PageRequest(params=(("limit", "3"), ("pageSize", "3")))
    found = detected({"items": ITEMS, "total": 3}, request=request)
    assert found.guesses == ()


# Links relative to the base path

WIKI = URL("https://wiki.example.com/wiki/v1/endpoints")


def test_links_leaving_the_base_path_are_guessed_relative_to_it() -> None:
    """A root-relative link leaving the base path is guessed relative to it (was refused)."""
    found = detected({"data": ITEMS, "links": {"next": "/v1/endpoints?cursor=x"}}, url=WIKI)
    assert found.convention.links_from == "base"
    assert found.guesses == (found.convention,)
    assert found.refusal is not None


def test_links_inside_the_base_path_resolve_as_given() -> None:
    """A root-relative link under the base path is followed as it is."""
    found = detected({"data": ITEMS, "links": {"next": "/wiki/v1/endpoints?c=x"}}, url=WIKI)
    assert (found.convention.links_from, found.guesses) == ("request", ())


# Presets


@pytest.mark.parametrize(
    ("name", "body", "headers"),
    [
        ("offset", {"items": ITEMS, "offset": 0, "limit": 3, "total": 9}, ()),
        ("page", {"items": ITEMS, "page": 1, "pageSize": 3, "total": 9, "totalPages": 3}, ()),
        ("spring", {"content": ITEMS, "number": 0, "size": 3, "totalPages": 3, "last": False}, ()),
        ("cursor", {"items": ITEMS, "nextCursor": "c"}, ()),
        ("google", {"endpoints": ITEMS, "nextPageToken": "c"}, ()),
        ("aws", {"Items": ITEMS, "NextToken": "c"}, ()),
        ("odata", {"value": ITEMS, "@odata.nextLink": NEXT_URL}, ()),
        ("hal", {"_embedded": {"endpoints": ITEMS}, "_links": {"next": {"href": NEXT_URL}}}, ()),
        ("json-api", {"data": ITEMS, "links": {"next": NEXT_URL}, "meta": {}}, ()),
        ("header-page", ITEMS, (("X-Next-Page", "2"),)),
        ("link", ITEMS, (("Link", f'<{NEXT_URL}>; rel="next"'),)),
    ],
)
def test_a_preset_is_named_when_it_reads_the_page_alike(
    name: str, body: Any, headers: tuple[tuple[str, str], ...]
) -> None:
    """Where a preset reads the page exactly as composed, detection names the preset."""
    assert detected(body, *headers).convention == CONVENTIONS[name]


def test_a_composed_convention_is_named_detected() -> None:
    """A composition no preset reads alike is named `detected`."""
    assert detected({"data": ITEMS, "next_cursor": "c"}).convention.name == "detected"


def test_a_preset_with_a_param_guess_keeps_its_verification() -> None:
    """A token preset is still a guess on page 1: its page 2 must bring new records."""
    found = detected({"items": ITEMS, "nextCursor": "c"})
    assert found.guesses[0] == CONVENTIONS["cursor"]


def test_the_items_placeholder_makes_a_bare_array_path_body() -> None:
    """A bare array composes the body itself as the items path."""
    found = detected(ITEMS, ("X-Next-Cursor", "c"))
    assert found.convention.items[0] == BODY


# Any spelling, any depth

TOKEN_PHRASES = [
    ("next", "cursor"),
    ("next", "page", "token"),
    ("next", "token"),
    ("continuation", "token"),
    ("next", "marker"),
    ("next", "start"),
]
URL_PHRASES = [("next", "link"), ("next", "page", "url"), ("next", "url"), ("next", "href")]
ITEM_WORDS = ["items", "data", "results", "values", "records", "entries", "rows", "nodes"]
PARENTS = ["meta", "pagination", "response_metadata", "additional_data", "page_info"]
STYLES = ["camelCase", "PascalCase", "snake_case", "kebab-case"]


@settings(max_examples=examples(200))
@given(
    st.sampled_from(TOKEN_PHRASES + URL_PHRASES),
    st.sampled_from(STYLES),
    st.lists(st.sampled_from(PARENTS), max_size=2, unique=True),
    st.sampled_from(ITEM_WORDS),
    st.sampled_from(STYLES),
)
def test_any_spelling_at_any_depth_composes_its_convention(
    phrase: tuple[str, ...],
    style: str,
    parents: list[str],
    item_word: str,
    item_style: str,
) -> None:
    """Items and a continuation in any spelling, up to 3 levels deep, are read there."""
    key = spelled(list(phrase), style)
    items_key = spelled([item_word], item_style)
    is_url = phrase in URL_PHRASES
    value = NEXT_URL if is_url else "opaque-token"
    body: Any = value
    for step in reversed([*parents, key]):
        body = {step: body}
    convention = detected({items_key: ITEMS, **body}).convention
    assert convention.next_at == (*parents, key)
    assert convention.follow == ("url" if is_url else "token")
    if not is_url:
        parent = parents[-1] if parents else None
        assert convention.param == param_candidates(key, parent)[0]
    response = page({items_key: ITEMS, **body})
    assert locate_items(convention, response)[1] == (items_key,)


@settings(max_examples=examples(100))
@given(
    st.sampled_from([("total",), ("total", "count"), ("total", "results"), ("total", "items")]),
    st.sampled_from(STYLES),
    st.lists(st.sampled_from(PARENTS), max_size=2, unique=True),
)
def test_a_total_in_any_spelling_at_any_depth_is_read(
    phrase: tuple[str, ...], style: str, parents: list[str]
) -> None:
    """A total spelt any way, up to three levels deep, backs up the end."""
    body: Any = 9
    path = (*parents, spelled(list(phrase), style))
    for step in reversed(path):
        body = {step: body}
    convention = detected({"items": ITEMS, "next_cursor": "c", **body}).convention
    assert convention.total_at == path
