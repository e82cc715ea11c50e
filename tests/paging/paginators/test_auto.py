"""The auto paginator: composes a list's convention on page 1, verifies guesses by the pages they
bring (probes), keeps the convention for the whole list, and offers fallbacks for a refused first
request."""

from __future__ import annotations

from typing import Any

import attrs
import pytest
from yarl import URL

from remedy_async._paging._conventions import CONVENTIONS
from remedy_async._paging._paginators._auto import AutoPaginator
from remedy_async._paging._protocol import Convention, PageRequest, Paginator, PagingFault, Probe
from remedy_async._wire._types import WireFault
from tests.paging.responses import page, records, req, run, url_of

ITEMS = records(2)
OFFSET = CONVENTIONS["offset"]


def first_page(body: Any, *headers: tuple[str, str], size: int | None = 2) -> Any:
    """Page 1 of a list read by a fresh auto paginator."""
    auto = AutoPaginator()
    request = auto.first(size)
    return auto.read(request, page(body, *headers, url=url_of(request)))


# The first request and its fallbacks


def test_the_auto_paginator_is_a_paginator() -> None:
    """AutoPaginator implements the Paginator protocol."""
    assert isinstance(AutoPaginator(), Paginator)


def test_first_sends_the_page_size_as_limit_alone() -> None:
    """first(N) sends the page size once, under its published name `limit`, with no
    convention."""
    first = AutoPaginator().first(25)
    assert (first.params, first.convention) == ((("limit", "25"),), None)


def test_first_without_page_size_sends_nothing() -> None:
    """first(None) adds no parameters."""
    assert AutoPaginator().first(None) == PageRequest()


def test_fallbacks_try_the_other_size_name() -> None:
    """A first request refused (400) is retried with `pageSize` instead of `limit`, and one
    sent with `pageSize` with `limit` instead."""
    auto = AutoPaginator()
    fallbacks = auto.fallbacks(auto.first(25))
    assert [request.params for request in fallbacks] == [(("pageSize", "25"),)]
    assert [request.params for request in auto.fallbacks(req(("pageSize", "25")))] == [
        (("limit", "25"),)
    ]


def test_fallbacks_keep_other_parameters() -> None:
    """Other parameters of the first request stay in every fallback."""
    request = req(("q", "x"), ("limit", "5"))
    fallbacks = AutoPaginator().fallbacks(request)
    assert [dict(fallback.params) for fallback in fallbacks] == [{"q": "x", "pageSize": "5"}]


@pytest.mark.parametrize(
    "request_",
    [
        PageRequest(),
        req(("limit", "5"), ("pageSize", "5")),
        PageRequest(params=(("limit", "5"),), convention=OFFSET),
        PageRequest(url=URL("https://api.example.com/v1/endpoints?limit=5")),
    ],
    ids=["no-size", "both-sizes", "convention-known", "url"],
)
def test_no_fallbacks_without_one_size_name_to_swap(request_: PageRequest) -> None:
    """Only a first request carrying its page size under one known name has a fallback."""
    assert AutoPaginator().fallbacks(request_) == ()


# Composing and keeping the convention


def test_page_one_composes_the_convention_and_the_next_request_carries_it() -> None:
    """The convention composed on page 1 rides on its result and its next request."""
    result = first_page({"items": ITEMS, "offset": 0, "limit": 2, "total": 5})
    assert result.convention == OFFSET
    assert result.next is not None
    assert result.next.convention == OFFSET
    assert result.next.params == (("offset", "2"), ("limit", "2"))


def test_a_whole_list_is_one_page() -> None:
    """A plain envelope is read whole, with the 'none' preset."""
    result = first_page({"data": ITEMS}, size=None)
    assert (result.items, result.next, result.items_path) == (ITEMS, None, "$.data")
    assert result.convention == CONVENTIONS["none"]


def test_a_later_page_is_read_by_the_lists_convention_not_redetected() -> None:
    """A page contradicting the list's convention (a new kind of next link) is refused."""
    following = PageRequest(params=(("cursor", "c2"),), convention=CONVENTIONS["cursor"])
    contradicting = {"items": [{"id": "x"}], "nextCursor": None, "links": {"next": "/v1/x"}}
    with pytest.raises(PagingFault, match=r"links\.next, which auto-detection does not read"):
        AutoPaginator().read(following, page(contradicting))


def test_an_unknown_continuation_is_refused_on_page_one() -> None:
    """A next marker in unknown words is refused, never read as the end."""
    with pytest.raises(PagingFault, match="nxt_tok_x"):
        first_page({"items": ITEMS, "nxt_tok_x": "x"})


def test_a_body_that_is_no_list_is_refused() -> None:
    """A body that is neither an array nor an object cannot be read."""
    with pytest.raises((PagingFault, WireFault)):
        first_page("text")


@pytest.mark.parametrize("body", [ITEMS, {"items": ITEMS, "offset": 0}, {"items": ITEMS}])
def test_a_link_next_is_followed_whatever_the_body_echoes(body: Any) -> None:
    """A Link rel="next" beside an array, an echoed offset or a plain envelope is followed."""
    result = first_page(body, ("Link", '<?page=2>; rel="next"'))
    assert result.next is not None
    assert result.next.url == URL("https://api.example.com/v1/endpoints?page=2")


def test_a_link_next_beside_a_different_cursor_is_refused() -> None:
    """Two continuations that disagree are refused (the Link no longer wins over them)."""
    with pytest.raises(PagingFault, match="disagree"):
        first_page({"items": ITEMS, "nextCursor": "c2"}, ("Link", '<?page=2>; rel="next"'))


def test_predictions_wait_for_the_convention() -> None:
    """Nothing is predicted before page 1; afterwards, what the convention computes."""
    auto = AutoPaginator()
    assert auto.predict_next(auto.first(2)) is None
    predicted = auto.predict_next(
        PageRequest(params=(("offset", "2"), ("limit", "2")), convention=OFFSET)
    )
    assert predicted is not None
    assert predicted.params == (("offset", "4"), ("limit", "2"))


def test_a_preset_is_found_by_name_for_older_tokens() -> None:
    """`named()` gives a preset by name; an unknown name is refused."""
    auto = AutoPaginator()
    assert auto.named("cursor") == CONVENTIONS["cursor"]
    with pytest.raises(PagingFault, match="'gone' convention, unknown here"):
        auto.named("gone")


def test_the_given_presets_name_the_parameters_filters_may_not_use() -> None:
    """Every parameter any given preset sets is reserved; only the given presets count."""
    skip = Convention(name="skip", follow="offset", param="skip", size_param="top")
    auto = AutoPaginator(conventions=(skip, CONVENTIONS["none"]))
    assert auto.parameter_names == {"skip", "top"}
    assert {"offset", "cursor", "pageToken"} <= AutoPaginator().parameter_names


# Probes


def test_a_guess_is_sent_as_a_probe_with_the_guesses_after_it() -> None:
    """A token whose parameter is a guess is tried on page 2, carrying the other guesses."""
    result = first_page({"data": ITEMS, "next_cursor": "c2"})
    assert result.next is not None
    probe = result.next.probe
    assert probe is not None
    assert probe.first_id == "ep-0"
    assert dict(result.next.params)["cursor"] == "c2"
    assert "c2" in [dict(other.params).get("next_cursor") for other in probe.others]
    assert probe.refusal is not None


def test_next_try_is_the_next_guess_carrying_the_rest() -> None:
    """`Probe.next_try` gives the next guess's request, with the probe minus that guess."""
    second, third = req(("b", "1")), req(("c", "1"))
    probe = Probe("ep-0", (second, third), refusal="no")
    following = probe.next_try()
    assert following is not None
    assert following.params == second.params
    assert following.probe == Probe("ep-0", (third,), refusal="no")
    last = following.probe.next_try()
    assert last is not None
    assert last.probe == Probe("ep-0", (), refusal="no")
    assert last.probe.next_try() is None


def probed(probe: Probe, body: Any, convention: Convention = OFFSET) -> Any:
    """Read the page a probe brought."""
    request = PageRequest(params=(("offset", "2"),), convention=convention, probe=probe)
    return AutoPaginator().read(request, page(body, url=url_of(request)))


def test_a_probe_bringing_new_records_is_kept() -> None:
    """A guessed page whose first id differs from page 1's is read on by the guess."""
    result = probed(Probe("ep-0"), {"items": records(2, start=2), "offset": 2})
    assert [item["id"] for item in result.items] == ["ep-2", "ep-3"]
    assert result.convention == OFFSET
    assert result.notice is None


def test_a_kept_guess_on_a_page_that_announced_nothing_is_told() -> None:
    """A service paging a list that announced nothing is followed, with a notice to pin."""
    result = probed(Probe("ep-0", unannounced=True), {"items": records(2, start=2)})
    assert result.notice is not None
    assert "announced no paging" in result.notice
    assert "paginator=remedy_async.Convention(" in result.notice


def test_a_probe_answered_with_page_one_tries_the_next_guess() -> None:
    """The same first id as page 1: the service ignored the guess; no items, the next guess."""
    other = PageRequest(params=(("page", "2"),), convention=CONVENTIONS["page"])
    result = probed(Probe("ep-0", (other,)), {"items": records(2), "offset": 2})
    assert result.items == ()
    assert result.next is not None
    assert result.next.params == (("page", "2"),)
    assert result.next.probe == Probe("ep-0")


def test_a_probe_answered_with_most_of_page_one_tries_the_next_guess() -> None:
    """A page starting with page 1's second record (a page number read as an offset) refutes
    the guess: none of its records is yielded, the next guess is tried."""
    other = PageRequest(params=(("page", "2"),), convention=CONVENTIONS["page"])
    first_ids = tuple(f"ep-{n}" for n in range(20))
    probe = Probe("ep-0", (other,), first_ids=first_ids)
    result = probed(probe, {"items": records(20, start=1)})
    assert result.items == ()
    assert result.next is not None
    assert result.next.params == (("page", "2"),)


def test_a_probe_page_repeating_page_one_but_echoing_the_offset_asked_is_kept() -> None:
    """A page starting with page 1's last record, echoing the offset the guess sent, is a list
    that moved: the guess is kept (the walk drops the repeat)."""
    probe = Probe("ep-0", first_ids=("ep-0", "ep-1"))
    result = probed(probe, {"items": records(2, start=1), "offset": 2})
    assert [item["id"] for item in result.items] == ["ep-1", "ep-2"]


def test_a_probe_page_repeating_page_one_without_an_echo_is_refuted_loudly() -> None:
    """The same page with no echo of its position refutes the guess; with no guess left the
    list stops with PaginationError, not at its first page: the service does page it."""
    probe = Probe("ep-0", first_ids=("ep-0", "ep-1"), unannounced=True)
    with pytest.raises(PagingFault, match="repeated the page before it"):
        probed(probe, {"items": records(2, start=1)})


def test_a_misread_guess_makes_the_guesses_after_it_refuse_when_they_fail() -> None:
    """A guess the service read otherwise leaves the next guess a refusal to raise, should
    that one be ignored too."""
    other = PageRequest(params=(("page", "2"),), convention=CONVENTIONS["page"])
    probe = Probe("ep-0", (other,), first_ids=("ep-0", "ep-1"), unannounced=True)
    result = probed(probe, {"items": records(2, start=1)})
    assert result.next is not None
    assert result.next.probe is not None
    assert result.next.probe.refusal is not None
    with pytest.raises(PagingFault, match="repeated the page before it"):
        probed(result.next.probe, {"items": records(2)})


def test_a_kept_offset_guess_is_confirmed_by_the_page_after() -> None:
    """The request after a page an offset guess brought carries a confirming probe, which
    refutes the guess for good when that page starts inside this one."""
    kept = probed(Probe("ep-0", first_ids=("ep-0", "ep-1")), {"items": records(2, start=2)})
    assert kept.next is not None
    confirm = kept.next.probe
    assert confirm is not None
    assert confirm.confirming
    assert confirm.first_ids == ("ep-2", "ep-3")
    request = attrs.evolve(kept.next, convention=OFFSET)
    with pytest.raises(PagingFault, match="repeated the page before it"):
        AutoPaginator().read(request, page({"items": records(2, start=3)}, url=url_of(request)))
    confirmed = AutoPaginator().read(
        request, page({"items": records(2, start=4)}, url=url_of(request))
    )
    assert [item["id"] for item in confirmed.items] == ["ep-4", "ep-5"]
    assert confirmed.next is None or confirmed.next.probe is None


def test_every_guess_failing_on_a_page_that_announced_nothing_ends_the_list() -> None:
    """No guess brought new records and nothing announced more: page 1 was the whole list."""
    result = probed(Probe("ep-0", unannounced=True), {"items": records(2), "offset": 2})
    assert (result.items, result.next) == ((), None)


def test_every_guess_failing_after_a_continuation_is_refused() -> None:
    """No guess brought new records although page 1 handed out more: the refusal is raised."""
    with pytest.raises(PagingFault, match="answered with its first page again"):
        probed(
            Probe("ep-0", refusal="the service answered with its first page again"),
            {"items": records(2), "offset": 2},
        )


def test_an_empty_page_brought_by_a_probe_ends_the_list() -> None:
    """A guess answered by an empty page: nothing more, the list ends."""
    result = probed(Probe("ep-0", unannounced=True), {"items": [], "offset": 2})
    assert (list(result.items), result.next) == ([], None)


def test_a_round_bare_array_is_probed_under_offset_first() -> None:
    """100 records announcing nothing: page 2 is asked for at `offset=100`, a probe."""
    result = first_page(records(100), size=None)
    assert result.next is not None
    assert result.next.params == (("offset", "100"),)
    assert result.next.probe is not None
    assert result.next.probe.unannounced


# Whole sequences


def test_offset_sequence() -> None:
    """An offset-paged list is read to its end by following offsets."""
    items, requests = run(
        AutoPaginator(),
        [
            ({"items": [1, 2], "offset": 0, "limit": 2, "total": 5}, ()),
            ({"items": [3, 4], "offset": 2, "limit": 2, "total": 5}, ()),
            ({"items": [5], "offset": 4, "limit": 2, "total": 5}, ()),
        ],
    )
    assert items == [1, 2, 3, 4, 5]
    assert [request.params for request in requests] == [
        (("limit", "2"),),
        (("offset", "2"), ("limit", "2")),
        (("offset", "4"), ("limit", "2")),
    ]
    assert {request.convention for request in requests[1:]} == {OFFSET}


def test_offset_sequence_without_echoed_limit() -> None:
    """An offset list that echoes no limit or total is read until an empty page."""
    items, requests = run(
        AutoPaginator(),
        [
            ({"data": [1, 2], "offset": 0}, ()),
            ({"data": [3], "offset": 2}, ()),
            ({"data": [], "offset": 3}, ()),
        ],
    )
    assert items == [1, 2, 3]
    assert [dict(request.params)["offset"] for request in requests[1:]] == ["2", "3"]


def test_page_number_sequence() -> None:
    """A page-number list is read to its end by following page numbers."""
    items, requests = run(
        AutoPaginator(),
        [
            ({"results": [1, 2], "page": 1, "totalPages": 3}, ()),
            ({"results": [3, 4], "page": 2, "totalPages": 3}, ()),
            ({"results": [5, 6], "page": 3, "totalPages": 3}, ()),
        ],
    )
    assert items == [1, 2, 3, 4, 5, 6]
    assert [dict(request.params).get("page") for request in requests] == [None, "2", "3"]


def test_cursor_sequence() -> None:
    """A cursor list is read to its end, its guessed parameter kept once page 2 is new."""
    items, requests = run(
        AutoPaginator(),
        [
            ({"items": records(2), "nextCursor": "c2"}, ()),
            ({"items": records(2, start=2), "nextCursor": "c3"}, ()),
            ({"items": records(1, start=4), "nextCursor": None}, ()),
        ],
    )
    assert [item["id"] for item in items] == [f"ep-{n}" for n in range(5)]
    assert [request.params for request in requests[1:]] == [
        (("cursor", "c2"), ("limit", "2")),
        (("cursor", "c3"), ("limit", "2")),
    ]
    assert requests[2].probe is None


def test_link_sequence() -> None:
    """A Link-paged list is read to its end; the last page has only a prev link."""
    items, requests = run(
        AutoPaginator(),
        [
            ([1, 2], (("Link", '</v1/endpoints?page=2&limit=2>; rel="next"'),)),
            (
                [3, 4],
                (("Link", '</v1/endpoints?page=1>; rel="prev", <?page=3&limit=2>; rel="next"'),),
            ),
            ([5], (("Link", '</v1/endpoints?page=2&limit=2>; rel="prev"'),)),
        ],
    )
    assert items == [1, 2, 3, 4, 5]
    assert [request.url for request in requests[1:]] == [
        URL("https://api.example.com/v1/endpoints?page=2&limit=2"),
        URL("https://api.example.com/v1/endpoints?page=3&limit=2"),
    ]
    assert {request.convention for request in requests[1:]} == {CONVENTIONS["link"]}


def test_link_sequence_ending_with_a_next_link_without_results() -> None:
    """Sentry's last page keeps a rel="next" marked `results="false"`: the list ends there."""
    items, _ = run(
        AutoPaginator(),
        [
            ([1, 2], (("Link", '<?cursor=b>; rel="next"; results="true"'),)),
            ([3], (("Link", '<?cursor=c>; rel="next"; results="false"'),)),
        ],
    )
    assert items == [1, 2, 3]


def test_nested_token_sequence() -> None:
    """A token three levels deep is followed page after page, then ends on null."""

    def body(start: int, token: str | None) -> dict[str, Any]:
        pagination = {"next_start": token, "more_items_in_collection": token is not None}
        return {"data": records(2, start=start), "additional_data": {"pagination": pagination}}

    items, requests = run(AutoPaginator(), [(body(0, "2"), ()), (body(2, None), ())])
    assert len(items) == 4
    assert dict(requests[1].params)["start"] == "2"


def test_a_token_beside_has_more_false_ends() -> None:
    """A next token left on the last page beside `has_more: false` is not followed."""
    items, _ = run(
        AutoPaginator(),
        [
            ({"data": records(2), "has_more": True, "next_cursor": "c2"}, ()),
            ({"data": records(1, start=2), "has_more": False, "next_cursor": "c3"}, ()),
        ],
    )
    assert len(items) == 3


def test_an_empty_end_token_ends() -> None:
    """`nextPageToken: ""` on the last page ends the list (it used to be refused)."""
    items, _ = run(
        AutoPaginator(),
        [
            ({"items": records(2), "nextPageToken": "t2"}, ()),
            ({"items": records(1, start=2), "nextPageToken": ""}, ()),
        ],
    )
    assert len(items) == 3


def test_a_stripe_shaped_list_whose_service_reads_after() -> None:
    """`data` + `has_more`: `starting_after` is ignored (page 1 again), `after` is kept."""
    auto = AutoPaginator()
    first = auto.read(auto.first(2), page({"data": records(2), "has_more": True}))
    assert first.next is not None
    assert dict(first.next.params)["starting_after"] == "ep-1"
    ignored = auto.read(first.next, page({"data": records(2), "has_more": True}))
    assert ignored.next is not None
    assert dict(ignored.next.params)["after"] == "ep-1"
    kept = auto.read(ignored.next, page({"data": records(1, start=2), "has_more": False}))
    assert [item["id"] for item in kept.items] == ["ep-2"]
    assert kept.next is None
    assert kept.convention is not None
    assert kept.convention.param == "after"


def test_an_unpaged_sequence_is_one_request() -> None:
    """An unpaged list of an unremarkable size is one request."""
    items, requests = run(AutoPaginator(), [(records(3), ())])
    assert len(items) == 3
    assert len(requests) == 1


def test_a_probed_request_resumes_plainly_once_kept() -> None:
    """After a guess is kept, later requests carry no probe."""
    auto = AutoPaginator()
    first = auto.read(auto.first(2), page({"data": records(2), "next_cursor": "c2"}))
    assert first.next is not None
    second = auto.read(first.next, page({"data": records(2, start=2), "next_cursor": "c3"}))
    assert second.next is not None
    assert second.next.probe is None


def test_an_unusable_link_next_target_is_refused() -> None:
    """A rel="next" target that is not a URL is refused as a paging fault, not a crash."""
    with pytest.raises(PagingFault, match="is not a valid URL"):
        first_page(ITEMS, ("Link", '<http://[oops/x>; rel="next"'))
