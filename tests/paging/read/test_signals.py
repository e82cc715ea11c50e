"""Every paging signal of a page, found in the envelope (any depth up to four, the items
excluded) and in the headers; and signals a convention does not read refused (`UnreadSignal`),
naming where they are, while backward cursors, end values and the followed URL's own token
are not."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from multidict import CIMultiDict
from yarl import URL

from remedy_async._paging._protocol import Convention, PageRequest
from remedy_async._paging._read._signals import (
    MAX_SIGNAL_DEPTH,
    Signal,
    UnreadSignal,
    body_signals,
    header_signals,
    kind_of,
    looks_like_url,
    refuse_unread_signals,
)
from tests.paging.responses import nested, page, records

RECORDS = records(2)
KEYS = st.text(min_size=1, max_size=10)

CURSOR = Convention(name="c", follow="token", next_at=("meta", "nextCursor"), param="cursor")
WHOLE = Convention(name="whole")
NEXT = PageRequest(params=(("cursor", "c2"),))


def refuse(
    convention: Convention,
    body: Any,
    *headers: tuple[str, str],
    following: PageRequest | None = None,
    reader: str | None = None,
) -> None:
    """Check a page whose items are at `items` (or the body, for an array)."""
    items = () if isinstance(body, list) else ("items",)
    refuse_unread_signals(convention, page(body, *headers), items, following, reader)


@pytest.mark.parametrize(
    ("body", "where"),
    [
        ({"items": [], "nxt_tok_x": "a"}, "nxt_tok_x"),
        ({"items": [], "meta": {"nextCursor": "a"}}, "meta.nextCursor"),
        ({"items": [], "has_more": True}, "has_more"),
        ({"items": [], "last": False}, "last"),
        ({"items": [], "isLastPage": False}, "isLastPage"),
        ({"items": [], "done": False}, "done"),
        ({"items": [], "NextToken": "a"}, "NextToken"),
        ({"items": [], "@odata.nextLink": "u"}, "@odata.nextLink"),
        ({"items": [], "_links": {"next": {"href": "u"}}}, "_links.next.href"),
        ({"items": [], "meta": {"pagination": {"next_start": 5}}}, "meta.pagination.next_start"),
    ],
)
def test_an_unread_continuation_is_refused_naming_where_it_is(body: Any, where: str) -> None:
    """A continuation, an unknown next-page word or a flag saying more is refused by name."""
    with pytest.raises(UnreadSignal) as info:
        refuse(WHOLE, body)
    assert info.value.signal.where == where
    assert where in str(info.value)


def test_the_refusal_names_the_reader() -> None:
    """The message names the convention, or the reader given (auto-detection)."""
    with pytest.raises(UnreadSignal, match="the 'whole' convention"):
        refuse(WHOLE, {"items": [], "nextCursor": "a"})
    with pytest.raises(UnreadSignal, match="which auto-detection does not read"):
        refuse(WHOLE, {"items": [], "nextCursor": "a"}, reader="auto-detection")


@pytest.mark.parametrize(
    "body",
    [
        {"items": [], "nextCursor": None},
        {"items": [], "nextCursor": ""},
        {"items": [], "next_start": 0},
        {"items": [], "has_more": False},
        {"items": [], "last": True},
        {"items": [], "total": 5, "page": 1, "links": {"prev": "u", "self": "u"}},
        {"items": [{"id": "a", "nextCursor": "inside an item"}]},
    ],
)
def test_end_values_and_other_keys_pass(body: Any) -> None:
    """Null, empty and zero continuations, end flags, metadata and the items pass."""
    refuse(WHOLE, body)


@pytest.mark.parametrize(
    "body",
    [
        {"items": [], "prev": "/v1/endpoints?page=1"},
        {"items": [], "before_cursor": "b"},
        {"items": [], "previous_token": "p"},
        {"items": [], "pageInfo": {"startCursor": "s"}},
        {"items": [], "paging": {"cursors": {"before": "b"}}},
    ],
    ids=["prev", "before_cursor", "previous_token", "startCursor", "paging.cursors.before"],
)
def test_backward_cursors_are_never_refused(body: Any) -> None:
    """A way back to earlier pages is not a way forward (issue 23: they were refused)."""
    refuse(WHOLE, body)


@pytest.mark.parametrize("header", ["Link", "link"])
def test_a_backward_link_passes(header: str) -> None:
    """A Link header with only prev/first/last relations passes."""
    refuse(WHOLE, [], (header, '<?p=1>; rel="prev", <?p=9>; rel="last"'))


def test_signals_the_convention_reads_pass() -> None:
    """A signal at a path the convention reads is not refused."""
    refuse(CURSOR, {"items": [], "meta": {"nextCursor": "a"}}, following=NEXT)


def test_headers_the_convention_reads_pass_in_any_case() -> None:
    """A header the convention reads passes, whatever its letter case."""
    convention = Convention(name="h", follow="token", next_header="X-Next-Page", param="page")
    refuse(convention, [], ("x-next-page", "2"), following=NEXT)


def test_ignored_signals_pass() -> None:
    """Signals named in `ignore` and `ignore_headers` are not refused."""
    convention = Convention(
        name="i", ignore=(("paging", "next", "after"),), ignore_headers=("X-Next-Page",)
    )
    refuse(convention, {"items": [], "paging": {"next": {"after": "a"}}}, ("X-Next-Page", "2"))


def test_an_unread_continuation_header_is_refused() -> None:
    """A continuation header the convention does not read is refused by name."""
    with pytest.raises(UnreadSignal, match="the X-Next-Page header"):
        refuse(WHOLE, [], ("X-Next-Page", "2"))


def test_a_link_next_is_refused_when_the_convention_reads_the_body() -> None:
    """A Link rel="next" beside a body continuation that is read is a second, unread way."""
    with pytest.raises(UnreadSignal, match="the Link header"):
        refuse(
            CURSOR,
            {"items": [], "meta": {"nextCursor": "a"}},
            ("Link", '</v1/endpoints?p=2>; rel="next"'),
            following=NEXT,
        )


def test_an_end_flag_beside_a_way_forward_is_a_contradiction() -> None:
    """`has_more: false` or `last: true` while the convention goes on is refused."""
    with pytest.raises(UnreadSignal, match="has_more"):
        refuse(
            CURSOR, {"items": [], "meta": {"nextCursor": "a"}, "has_more": False}, following=NEXT
        )
    with pytest.raises(UnreadSignal, match="last"):
        refuse(CURSOR, {"items": [], "meta": {"nextCursor": "a"}, "last": True}, following=NEXT)


def test_a_page_count_name_holding_a_flag_is_read_as_a_last_flag() -> None:
    """`lastPage` counts pages as a number, but as a flag it says the end: unread, `false`
    (more follow) is refused, and `true` is refused while the convention goes on."""
    with pytest.raises(UnreadSignal, match="lastPage"):
        refuse(WHOLE, {"items": [], "lastPage": False})
    with pytest.raises(UnreadSignal, match="lastPage"):
        refuse(CURSOR, {"items": [], "meta": {"nextCursor": "a"}, "lastPage": True}, following=NEXT)
    refuse(WHOLE, {"items": [], "lastPage": True})
    refuse(WHOLE, {"items": [], "lastPage": 3})


def test_an_end_flag_at_the_end_passes() -> None:
    """`has_more: false` on a page the convention ends on agrees with it."""
    refuse(CURSOR, {"items": [], "has_more": False})


def test_the_followed_urls_own_token_is_acknowledged() -> None:
    """A token that is part of the next URL being followed is that URL's, not a second way."""
    convention = Convention(name="u", follow="url", next_at=("next",))
    following = PageRequest(url=URL("https://api.example.com/v1/endpoints?cursor=abc%2B1"))
    refuse(
        convention,
        {"items": [], "next": str(following.url), "next_cursor": "abc+1"},
        following=following,
    )


def test_a_token_is_acknowledged_only_as_a_value_of_the_followed_url() -> None:
    """A token occurring only as text in the followed URL (`1` in `/v1/`) is unread."""
    convention = Convention(name="u", follow="url", next_at=("next",))
    following = PageRequest(url=URL("https://api.example.com/v1/endpoints?page=2"))
    with pytest.raises(UnreadSignal, match="next_cursor"):
        refuse(
            convention,
            {"items": [], "next": str(following.url), "next_cursor": "1"},
            following=following,
        )


def test_the_signal_value_is_never_shown() -> None:
    """A refused signal's value (which may echo a secret) is not in the message."""
    with pytest.raises(UnreadSignal) as caught:
        refuse(WHOLE, {"items": [], "nxt": "secret-value"})
    assert "secret-value" not in str(caught.value)


@given(st.lists(KEYS.filter(lambda key: key != "items"), max_size=MAX_SIGNAL_DEPTH - 1))
def test_a_continuation_is_found_at_any_depth_up_to_four(parents: list[str]) -> None:
    """A `next_cursor` 1 to 4 levels deep, under any keys, is a forward token signal there."""
    path = (*parents, "next_cursor")
    body = {"items": RECORDS, **nested(path, "c2")}
    (signal,) = body_signals(body, ("items",))
    assert signal.path == path
    assert (signal.role, signal.kind, signal.value) == ("forward", "token", "c2")


def test_a_signal_at_depth_four_is_found_and_at_five_is_not() -> None:
    """The envelope is scanned four levels deep, no deeper."""
    at_four = nested(["a", "b", "c", "next_cursor"], "c")
    at_five = nested(["a", "b", "c", "d", "next_cursor"], "c")
    assert [signal.path for signal in body_signals(at_four, ())] == [("a", "b", "c", "next_cursor")]
    assert body_signals(at_five, ()) == []


def test_the_items_are_not_scanned() -> None:
    """Keys inside the records (a record's own `nextCursor`) are not paging signals."""
    body = {"items": [{"id": "a", "nextCursor": "inside"}], "total": 1}
    assert [signal.path for signal in body_signals(body, ("items",))] == [("total",)]


@pytest.mark.parametrize(
    ("value", "kind"),
    [
        ("https://api.example.com/v1/x?p=2", "url"),
        ("/v1/x?p=2", "url"),
        ("?p=2", "url"),
        ("eyJvIjoxfQ==", "token"),
        (7, "number"),
        (True, "flag"),
        (None, "null"),
    ],
)
def test_a_signal_has_the_kind_of_its_value(value: Any, kind: str) -> None:
    """A continuation's value is a URL, a token, a number, a flag, or null."""
    (signal,) = body_signals({"next": value}, ())
    assert signal.kind == kind


def test_objects_and_arrays_are_not_signal_values() -> None:
    """A key whose value is an object or a plain array holds no signal of its own."""
    assert kind_of({"a": 1}) is None
    assert kind_of([1]) is None


def test_a_generic_key_is_read_under_its_parent() -> None:
    """`_links.next.href` is a forward URL; `_links.prev.href` a backward one."""
    body = {"_links": {"next": {"href": "/v1/x?p=2"}, "prev": {"href": "/v1/x?p=0"}}}
    found = {signal.path: signal.role for signal in body_signals(body, ())}
    assert found == {("_links", "next", "href"): "forward", ("_links", "prev", "href"): "backward"}


def test_relation_link_arrays_are_read_by_their_rel() -> None:
    """`links: [{"rel": "next", "href": ...}]` gives a forward URL at `links.[rel=next].href`."""
    body = {
        "links": [
            {"rel": "self", "href": "/v1/x?p=1"},
            {"rel": "next", "href": "/v1/x?p=2"},
            {"rel": "prev", "url": "/v1/x?p=0"},
        ]
    }
    found = [(signal.path, signal.role) for signal in body_signals(body, ())]
    assert found == [
        (("links", "[rel=self]", "href"), "backward"),
        (("links", "[rel=next]", "href"), "forward"),
        (("links", "[rel=prev]", "url"), "backward"),
    ]


def test_non_paging_keys_are_not_signals() -> None:
    """Keys that say nothing about paging are left out."""
    assert body_signals({"status": "ok", "requestId": "r", "items": []}, ("items",)) == []


def test_a_bare_array_has_no_body_signals() -> None:
    """A body that is an array carries its paging, if any, in headers."""
    assert body_signals(RECORDS, ()) == []


def test_a_signal_says_where_it_is() -> None:
    """A body signal is shown by its path, a header signal by its name."""
    body = Signal(("meta", "next_cursor"), None, "forward", "token", "c")
    header = Signal((), "X-Next-Page", "forward", "token", "2")
    assert (body.where, body.key) == ("meta.next_cursor", "next_cursor")
    assert (header.where, header.key) == ("the X-Next-Page header", "X-Next-Page")


def test_continuation_and_size_headers_are_signals() -> None:
    """Next-page, total and page-count headers are found with their roles and kinds."""
    headers = CIMultiDict(
        [("X-Next-Page", "2"), ("X-Total-Count", "9"), ("X-Total-Pages", "3"), ("Nxt-Tok-X", "a")]
    )
    found = [(s.header, s.role, s.kind, s.value) for s in header_signals(headers)]
    assert found == [
        ("X-Next-Page", "forward", "token", "2"),
        ("X-Total-Count", "total", "number", 9),
        ("X-Total-Pages", "pages", "number", 3),
        ("Nxt-Tok-X", "unknown", "token", "a"),
    ]


@pytest.mark.parametrize(
    "header",
    [("Retry-After", "3"), ("X-Request-Id", "r"), ("X-RateLimit-Reset", "5"), ("Date", "x")],
)
def test_headers_that_are_not_paging_are_left_out(header: tuple[str, str]) -> None:
    """`Retry-After`, request ids and rate-limit headers are not paging signals."""
    assert header_signals(CIMultiDict([header])) == []


def test_a_count_header_that_is_not_a_number_is_left_out() -> None:
    """A total header whose value is not digits says nothing."""
    assert header_signals(CIMultiDict([("X-Total-Count", "many")])) == []


def test_a_blank_continuation_header_is_null() -> None:
    """An empty `X-Next-Page` (GitLab's last page) is a null continuation."""
    (signal,) = header_signals(CIMultiDict([("X-Next-Page", "")]))
    assert (signal.kind, signal.value) == ("null", None)


def test_a_repeated_header_is_one_signal() -> None:
    """A header sent twice (in any letter case) is read once."""
    headers = CIMultiDict([("X-Next-Page", "2"), ("x-next-page", "2")])
    assert len(header_signals(headers)) == 1


def test_link_relations_are_read_one_by_one() -> None:
    """Each Link relation is a signal: next forward, prev/first/last/self backward."""
    link = '<?p=2>; rel="next", <?p=0>; rel="prev", <?p=9>; rel="last", <?p=1>; rel="self"'
    found = [(s.role, s.value) for s in header_signals(CIMultiDict([("Link", link)]))]
    assert found == [
        ("forward", "?p=2"),
        ("backward", "?p=0"),
        ("backward", "?p=9"),
        ("backward", "?p=1"),
    ]


def test_a_link_next_marked_without_results_is_a_null_continuation() -> None:
    """`rel="next"; results="false"` (Sentry's last page) is a forward signal of kind null."""
    link = '<?cursor=x>; rel="next"; results="false"'
    (signal,) = header_signals(CIMultiDict([("Link", link)]))
    assert (signal.role, signal.kind) == ("forward", "null")


@pytest.mark.parametrize(
    ("text", "url"),
    [
        ("https://h/x", True),
        ("ftp://h/x", True),
        ("/v1/x", True),
        ("?p=2", True),
        ("abc", False),
        ("a/b", False),
        ("", False),
    ],
)
def test_what_looks_like_a_link(text: str, url: bool) -> None:
    """Absolute URLs of any scheme and links from the root or a query are links."""
    assert looks_like_url(text) is url
