"""Continuation signals a paginator did not read are refused, naming the signal."""

from __future__ import annotations

from typing import Any

import pytest
from multidict import CIMultiDict, CIMultiDictProxy
from yarl import URL

from remedy_async._http import JSONResponse
from remedy_async._paging._protocol import PagingFault
from remedy_async._paging._signals import body_signals, header_signals, refuse_unread_signals


def page(body: Any, **headers: str) -> JSONResponse:
    return JSONResponse(
        url=URL("https://api.example.com/v1/endpoints"),
        status=200,
        headers=CIMultiDictProxy(CIMultiDict(headers)),
        body=body,
    )


@pytest.mark.parametrize(
    ("body", "found"),
    [
        ({"items": [], "nxt_tok_x": "a"}, [("nxt_tok_x",)]),
        ({"items": [], "meta": {"nextCursor": "a"}}, [("meta", "nextCursor")]),
        ({"items": [], "has_more": True}, [("has_more",)]),
        ({"items": [], "last": False}, [("last",)]),
        ({"items": [], "isLastPage": False}, [("isLastPage",)]),
        ({"items": [], "done": False}, [("done",)]),
        ({"items": [], "NextToken": "a"}, [("NextToken",)]),
        ({"items": [], "@odata.nextLink": "u"}, [("@odata.nextLink",)]),
        ({"items": [], "_links": {"next": {"href": "u"}}}, [("_links", "next")]),
    ],
)
def test_continuation_keys_are_found(body: Any, found: list[tuple[str, ...]]) -> None:
    """Keys whose names speak of a next page, with a value, are continuation signals."""
    assert list(body_signals(body, ("items",))) == found


@pytest.mark.parametrize(
    "body",
    [
        {"items": [], "nextCursor": None},
        {"items": [], "has_more": False},
        {"items": [], "last": True},
        {"items": [], "next": ""},
        {"items": [], "total": 5, "page": 1, "links": {"prev": "u", "self": "u"}},
        {"items": [{"nextCursor": "inside an item"}]},
    ],
)
def test_ends_and_other_keys_are_not_signals(body: Any) -> None:
    """Null, false and empty continuations, other metadata and the items themselves are not."""
    assert list(body_signals(body, ("items",))) == []


def test_next_headers_are_found() -> None:
    """Headers announcing a next page are found; Retry-After and rel=prev links are not."""
    headers = CIMultiDict(
        {
            "X-Next-Page": "2",
            "Nxt-Tok-X": "a",
            "Retry-After": "3",
            "Link": '<u>; rel="prev"',
            "X-Request-Id": "r",
        }
    )
    assert list(header_signals(headers)) == ["X-Next-Page", "Nxt-Tok-X"]
    assert list(header_signals(CIMultiDict({"Link": '<u>; rel="next"'}))) == ["Link"]


def test_an_unread_signal_names_the_convention_that_reads_it() -> None:
    """The refusal names the signal and the known convention that would follow it."""
    with pytest.raises(PagingFault, match=r"@odata\.nextLink.*'odata'"):
        refuse_unread_signals(
            page({"items": [], "@odata.nextLink": "u"}), ("items",), (), None, "x"
        )


def test_an_unknown_signal_says_how_to_describe_the_convention() -> None:
    """A signal no convention reads is refused with the way to configure one."""
    with pytest.raises(PagingFault, match="Convention"):
        refuse_unread_signals(page({"items": [], "nxt_tok_x": "a"}), ("items",), (), None, "x")


def test_signals_the_reader_reads_pass() -> None:
    """A signal the reader reads, in the body or a header, is not refused."""
    refuse_unread_signals(
        page({"items": [], "meta": {"nextCursor": "a"}}),
        ("items",),
        [("meta", "nextCursor")],
        None,
        "x",
    )
    refuse_unread_signals(page([], **{"X-Next-Page": "2"}), (), (), "X-Next-Page", "x")


def test_the_signal_value_is_never_shown() -> None:
    """A refused signal's value (which may echo a secret) is not in the message."""
    with pytest.raises(PagingFault) as caught:
        refuse_unread_signals(page({"items": [], "nxt": "secret-value"}), ("items",), (), None, "x")
    assert "secret-value" not in str(caught.value)
