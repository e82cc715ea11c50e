"""The paging vocabulary: what a key or header name says it holds, in any spelling, and which
request parameter a token goes back in."""

from __future__ import annotations

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from remedy_async._paging._read._vocabulary import (
    _PARAMS,
    NOT_PAGING_HEADERS,
    UNKNOWN,
    param_candidates,
    role_of,
    spelled,
    words,
)

STYLES = ("camelCase", "PascalCase", "snake_case", "kebab-case")
"""A name in each spelling, as `spelled` takes it (the spelling of `like`)."""

PHRASES: dict[tuple[str, ...], str] = {
    ("next", "page", "token"): "forward",
    ("next", "cursor"): "forward",
    ("next", "marker"): "forward",
    ("next", "link"): "forward",
    ("next", "page", "url"): "forward",
    ("next", "records", "url"): "forward",
    ("continuation", "token"): "forward",
    ("next", "start"): "forward",
    ("end", "cursor"): "forward",
    ("prev",): "backward",
    ("previous", "token"): "backward",
    ("before", "cursor"): "backward",
    ("start", "cursor"): "backward",
    ("has", "more"): "more",
    ("has", "next", "page"): "more",
    ("is", "truncated"): "more",
    ("more", "items", "in", "collection"): "more",
    ("is", "last", "page"): "last",
    ("done",): "last",
    ("total",): "total",
    ("total", "count"): "total",
    ("total", "results"): "total",
    ("total", "items"): "total",
    ("total", "pages"): "pages",
    ("page", "count"): "pages",
    ("offset",): "offset",
    ("start", "index"): "offset",
    ("page", "number"): "page",
    ("current", "page"): "page",
    ("page", "size"): "size",
    ("per", "page"): "size",
    ("max", "results"): "size",
}
"""Paging phrases as lower-case words, and the role each says it holds."""

WORD = st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=2, max_size=8)


def spell(said: tuple[str, ...] | list[str], style: str) -> str:
    return spelled(list(said), style)


@given(st.lists(WORD, min_size=1, max_size=4), st.sampled_from(STYLES))
def test_words_read_back_any_spelling(said: list[str], style: str) -> None:
    """A name spelt in camel, Pascal, snake or kebab case splits into the words it was made of."""
    assert words(spell(said, style)) == tuple(said)


@given(st.sampled_from(sorted(PHRASES)), st.sampled_from(STYLES))
def test_a_phrase_means_the_same_in_every_spelling(said: tuple[str, ...], style: str) -> None:
    """A paging phrase has the same role whatever its spelling."""
    assert role_of(spell(said, style)) == PHRASES[said]


@pytest.mark.parametrize(
    ("header", "role"),
    [
        ("X-Next-Page", "forward"),
        ("X-Next-Cursor", "forward"),
        ("X-MS-ContinuationToken", "forward"),
        ("X-Total-Count", "total"),
        ("X-Total-Pages", "pages"),
        ("X-Page", "page"),
        ("X-Per-Page", "size"),
        ("x-next-page", "forward"),
    ],
)
def test_header_names_are_read_without_their_x_prefix(header: str, role: str) -> None:
    """A header's role comes from its words after the `X-` prefix, in any letter case."""
    assert role_of(header) == role


@pytest.mark.parametrize("name", ["@odata.nextLink", "odata.nextLink"])
def test_odata_annotations_are_read_by_their_words(name: str) -> None:
    """`@odata.nextLink` is a forward continuation; `@odata.count` a total."""
    assert role_of(name) == "forward"
    assert role_of(name.replace("nextLink", "count")) == "total"


@given(
    st.sampled_from(["href", "link", "url", "uri", "path", "value", "id", "offset", "page"]),
    st.sampled_from(STYLES),
)
def test_a_generic_child_takes_its_parents_direction(child: str, style: str) -> None:
    """`href`, `url`, `value`, ... under a `next` or `prev` object mean what the parent says."""
    assert role_of(child, spell(("next", "page"), style)) == "forward"
    assert role_of(child, spell(("previous",), style)) == "backward"


@pytest.mark.parametrize(("child", "role"), [("after", "forward"), ("before", "backward")])
def test_cursors_under_a_neutral_parent_keep_their_own_direction(child: str, role: str) -> None:
    """`paging.cursors.after` is a way forward and `.before` a way back."""
    assert role_of(child, "cursors") == role


def test_a_generic_name_alone_is_not_paging() -> None:
    """`href` with no parent saying where it leads is not a paging signal."""
    assert role_of("href") is None


@pytest.mark.parametrize("name", ["nxt_tok_x", "nxtPg", "pagingKey", "contTok"])
def test_unknown_words_about_a_next_page_are_unknown(name: str) -> None:
    """A name speaking of a next page in unknown words is `unknown`, never guessed at."""
    assert role_of(name) == UNKNOWN


@pytest.mark.parametrize(
    "name", ["id", "name", "status", "severity", "hostname", "modifiedSince", "", "_"]
)
def test_other_names_are_not_paging(name: str) -> None:
    """Names that say nothing about paging have no role."""
    assert role_of(name) is None


@pytest.mark.parametrize("name", ["updated_after", "createdAfter", "modified_after"])
def test_filter_echoes_are_not_continuations(name: str) -> None:
    """A time filter echoed in the envelope (`updated_after`) is not a continuation."""
    assert role_of(name) != "forward"


@pytest.mark.parametrize(("name", "role"), [("last", "last"), ("isLastPage", "last")])
def test_last_is_a_flag_name(name: str, role: str) -> None:
    """`last` and `isLastPage` name an end flag (the value's type finishes the reading)."""
    assert role_of(name) == role


@pytest.mark.parametrize("header", ["Retry-After", "X-Request-Id", "Content-Range"])
def test_headers_that_share_words_with_paging_are_not_paging(header: str) -> None:
    """`Retry-After` and the like never say anything about a next page."""
    assert header.lower() in NOT_PAGING_HEADERS


# Request parameters


@pytest.mark.parametrize(
    ("key", "param"),
    [
        ("next_start", "start"),
        ("nextPageToken", "pageToken"),
        ("next_cursor", "cursor"),
        ("NextPageToken", "PageToken"),
        ("next-page-token", "page-token"),
    ],
)
def test_a_tokens_parameter_is_its_key_without_next(key: str, param: str) -> None:
    """The likeliest parameter is the key without its `next`, in the key's own spelling."""
    assert param_candidates(key)[0] == param


@given(
    st.lists(WORD.filter(lambda word: word != "next"), min_size=1, max_size=3),
    st.sampled_from(STYLES),
)
def test_the_rule_holds_in_any_spelling(said: list[str], style: str) -> None:
    """Any `next...` key's first guess drops `next` in its own spelling; the key follows. (A key
    of the table goes back where the service it comes from takes it: `nextToken` in
    `nextToken`, as AWS's does.)"""
    key = spell(["next", *said], style)
    assume(key not in _PARAMS)
    found = param_candidates(key)
    assert found[0] == spell(said, style)
    assert key in found


@pytest.mark.parametrize(
    ("key", "param"),
    [("NextToken", "NextToken"), ("NextMarker", "Marker"), ("endCursor", "after")],
)
def test_the_table_names_parameters_the_rule_would_not(key: str, param: str) -> None:
    """AWS keeps `NextToken`, S3 sends `Marker`, GraphQL's `endCursor` goes back as `after`."""
    assert param_candidates(key)[0] == param


def test_a_token_under_a_page_object_also_tries_json_api_forms() -> None:
    """Under a `page` object, `page[after]` and `page[cursor]` are guesses too."""
    found = param_candidates("after", "page")
    assert found[0] == "after"
    assert {"page[after]", "page[cursor]"} <= set(found)


@pytest.mark.parametrize(
    ("header", "param"),
    [
        ("X-Next-Cursor", "cursor"),
        ("X-Next-Page", "page"),
        ("X-MS-ContinuationToken", "continuationToken"),
        ("X-Continuation-Token", "continuationToken"),
    ],
)
def test_a_headers_token_goes_back_in_camel_case(header: str, param: str) -> None:
    """A continuation header's token goes back in the parameter its words name, camelCase."""
    assert param_candidates(header, header=True)[0] == param


def test_candidates_are_unique() -> None:
    """No parameter is guessed twice."""
    found = param_candidates("nextToken")
    assert len(found) == len(set(found))
