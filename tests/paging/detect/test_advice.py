"""Advice on refusals: a preset is named only when detection composes it from the page;
otherwise the composed `Convention(...)` is printed, ready to pin; or the undecided axis is
said. Advice applied reads the page it was given for."""

from __future__ import annotations

from typing import Any

import attrs
import pytest

import remedy_async
from remedy_async._paging._conventions import CONVENTIONS
from remedy_async._paging._detect._advice import advised
from remedy_async._paging._paginators._auto import AutoPaginator
from remedy_async._paging._paginators._convention import ConventionPaginator
from remedy_async._paging._paginators._pinned import (
    CursorPaginator,
    LinkHeaderPaginator,
    OffsetPaginator,
    UnpagedPaginator,
)
from remedy_async._paging._protocol import Convention, PageRequest, Paginator, PagingFault
from tests.paging.responses import page, records

ITEMS = records(3)


def refusal(paginator: Paginator, body: Any, *headers: tuple[str, str]) -> PagingFault:
    """The fault a paginator raises reading a first page (the test fails if it reads it)."""
    with pytest.raises(PagingFault) as info:
        paginator.read(paginator.first(None), page(body, *headers))
    return info.value


def test_a_preset_is_named_when_detection_composes_it() -> None:
    """A cursor page refused by an offset paginator advises pinning the 'cursor' preset."""
    fault = refusal(OffsetPaginator(), {"items": ITEMS, "nextCursor": "c"})
    assert "pin it with paginator=remedy_async.CONVENTIONS['cursor']" in str(fault)
    assert fault.suggestion == CONVENTIONS["cursor"]


def test_a_composition_is_printed_as_its_convention_expression() -> None:
    """A page no preset reads alike gets the composed Convention(...) to pin, as code."""
    fault = refusal(OffsetPaginator(), {"data": ITEMS, "next_cursor": "c"})
    suggestion = fault.suggestion
    assert f"paginator=remedy_async.{suggestion!r}" in str(fault)
    assert suggestion.next_at == ("next_cursor",)


def test_the_printed_convention_evaluates_to_the_suggestion() -> None:
    """The advice's expression, after `from remedy_async import Convention`, is the value."""
    fault = refusal(
        LinkHeaderPaginator(), {"data": ITEMS, "meta": {"pagination": {"next_cursor": "c"}}}
    )
    text = str(fault).split("paginator=remedy_async.", 1)[1].split(" (its param", 1)[0]
    assert eval(text, {"Convention": remedy_async.Convention}) == fault.suggestion


def test_a_guessed_parameter_is_said_to_be_a_guess() -> None:
    """When the composed convention's parameter is a guess, the advice says so."""
    fault = refusal(OffsetPaginator(), {"data": ITEMS, "next_cursor": "c"})
    assert "its param is a guess" in str(fault)


def test_a_convention_without_a_parameter_is_not_said_to_guess_one() -> None:
    """Advice for a page of the size asked, announcing nothing, does not speak of a param."""
    paginator = OffsetPaginator()
    with pytest.raises(PagingFault) as info:
        paginator.read(paginator.first(3), page(ITEMS))
    assert "param" not in str(info.value).split("; ", 1)[1]


def test_a_page_contradicting_its_own_convention_gets_no_suggestion() -> None:
    """When detection composes the very convention that failed, no pinning helps."""
    convention = CONVENTIONS["offset"]
    request = PageRequest(params=(("offset", "3"),), convention=convention)
    fault = advised(
        PagingFault("echoed"), request, page({"items": ITEMS, "offset": 0, "limit": 3, "total": 9})
    )
    assert fault.suggestion is None
    assert "contradicts the convention" in str(fault)


def test_an_undecidable_page_says_why() -> None:
    """No convention can be composed: the advice says why and how to describe one."""
    fault = refusal(UnpagedPaginator(), {"items": ITEMS, "nxt_tok_x": "c"})
    assert fault.suggestion is None
    assert "no convention could be composed from this page" in str(fault)
    assert "paginator=remedy_async.Convention(...)" in str(fault)


def test_advice_for_a_page_without_items_names_the_keys_seen() -> None:
    """A page with no array of records: the advice keeps the keys it saw."""
    fault = refusal(UnpagedPaginator(), {"status": "ok", "count": 3})
    assert "keys at the top: count, status" in str(fault)


def test_a_fault_is_advised_once() -> None:
    """A fault that already carries advice is passed on unchanged."""
    request = PageRequest()
    response = page({"items": ITEMS, "nextCursor": "c"})
    once = advised(PagingFault("x"), request, response)
    assert advised(once, request, response) is once
    assert str(once).count("pin it") == 1


def test_advice_after_every_guess_failed_names_no_convention_already_tried() -> None:
    """After every guessed parameter failed, the advice names no convention already tried."""
    auto = AutoPaginator()
    same = {"items": records(2), "nextCursor": "c2"}
    following = auto.read(auto.first(2), page(same)).next
    tried = []

    def read_every_guess() -> None:
        nonlocal following
        while following is not None and len(tried) < 50:  # every guess: page 1 again
            tried.append(following.convention)
            following = auto.read(following, page(same)).next

    with pytest.raises(PagingFault) as info:
        read_every_guess()
    assert len(tried) >= 2
    assert "CONVENTIONS['cursor']" not in str(info.value)
    assert info.value.suggestion not in tried


@pytest.mark.parametrize(
    ("body", "headers"),
    [
        (ITEMS, (("Link", '<http://[oops/x>; rel="next"'),)),
        ({"data": ITEMS, "has_more": True, "next_cursor": None}, ()),
    ],
    ids=["unusable-link", "more-without-continuation"],
)
def test_a_refused_first_page_is_not_advised_the_convention_it_failed(
    body: Any, headers: tuple[tuple[str, str], ...]
) -> None:
    """A refused page 1 is not advised the very convention it was refused by."""
    auto = AutoPaginator()
    with pytest.raises(PagingFault) as info:
        auto.read(auto.first(None), page(body, *headers))
    suggestion = info.value.suggestion
    if suggestion is not None:
        pinned = ConventionPaginator(suggestion)
        pinned.read(pinned.first(None), page(body, *headers))


# Advice applied reads the page

REFUSED = [
    (OffsetPaginator(), {"items": ITEMS, "nextCursor": "c"}, ()),
    (OffsetPaginator(), {"data": ITEMS, "next_cursor": "c"}, ()),
    (CursorPaginator(), {"value": ITEMS, "@odata.nextLink": "https://api.example.com/v1/x"}, ()),
    (UnpagedPaginator(), ITEMS, ("Link", '<?page=2>; rel="next"')),
    (UnpagedPaginator(), {"data": ITEMS, "paging": {"next": {"after": "a"}}}, ()),
    (LinkHeaderPaginator(), {"rows": ITEMS, "meta": {"pagination": {"next_cursor": "c"}}}, ()),
    (OffsetPaginator(), {"records": ITEMS, "done": True, "nextRecordsUrl": None}, ()),
    (CursorPaginator(), {"data": ITEMS, "has_more": True}, ()),
]


@pytest.mark.parametrize(("paginator", "body", "header"), REFUSED)
def test_the_advised_convention_reads_the_refused_page(
    paginator: Paginator, body: Any, header: tuple[str, str] | tuple[()]
) -> None:
    """Pinning what the advice suggests reads the page that was refused, without a fault."""
    headers = (header,) if header else ()
    fault = refusal(paginator, body, *headers)
    suggestion = fault.suggestion
    assert suggestion is not None, str(fault)
    pinned = ConventionPaginator(suggestion)
    result = pinned.read(pinned.first(None), page(body, *headers))
    assert [item["id"] for item in result.items] == ["ep-0", "ep-1", "ep-2"]


def test_advice_never_shows_a_continuations_value() -> None:
    """The advice prints where signals are, never what they hold (they may echo secrets)."""
    fault = refusal(OffsetPaginator(), {"data": ITEMS, "next_cursor": "s3cr3t-value"})
    assert "s3cr3t-value" not in str(fault)


def test_a_suggestion_is_a_convention_value() -> None:
    """The suggestion rides on the fault as a Convention, to pin or write to configuration."""
    fault = refusal(OffsetPaginator(), {"data": ITEMS, "next_cursor": "c"})
    assert isinstance(fault.suggestion, Convention)
    assert attrs.evolve(fault.suggestion, name="mine").next_at == ("next_cursor",)
