"""Signals a convention does not read are refused (`UnreadSignal`), naming where they are;
backward cursors, end values and the followed URL's own token are not."""

from __future__ import annotations

from typing import Any

import pytest
from yarl import URL

from remedy_async._paging._protocol import Convention, PageRequest
from remedy_async._paging._read._signals import UnreadSignal, refuse_unread_signals
from tests.paging.responses import page

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
