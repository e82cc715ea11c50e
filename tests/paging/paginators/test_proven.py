"""An offset list proven page by page (`ProvenPaginator`): what proving cost (`Shifts`, the
`shift` event), resume tokens that carry digests of the last ids delivered, and `on_shift`, the
service answering as the published reference does, its data changed between pages; then the
paginator itself, without I/O."""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest

from remedy_async import ClientEvent, MockRequest, MockResponse, PaginationError, Shifts
from remedy_async._paging._conventions import CONVENTIONS
from remedy_async._paging._paginators._convention import ConventionPaginator
from remedy_async._paging._paginators._proof import OVERLAP
from remedy_async._paging._paginators._proven import (
    Delivered,
    ListProof,
    ProvenPaginator,
    ShiftPolicy,
)
from remedy_async._paging._protocol import PageRequest, PagingFault
from remedy_async._paging._resume import TOKEN_PREFIX
from remedy_async._wire._http import JSONResponse
from tests.mock_service import mock_client
from tests.paging.responses import page as response_page
from tests.published import TOKEN, PublishedService, Record, dataset, endpoint

Change = Callable[[list[Record]], None]


class Moving:
    """The published service over `size` endpoints, with `changes[n]` applied to the list
    before its n-th request is answered (counted from 0, re-reads included)."""

    def __init__(self, size: int, changes: dict[int, Change] | None = None) -> None:
        self.service = PublishedService(dataset(sizes={"endpoints": size}))
        self.records = self.service.records["endpoints"]
        self.original = [record["id"] for record in self.records]
        self.changes = changes if changes is not None else {}
        self.rng = random.Random(3)
        self.service.between_pages = self._between

    def _between(self, resource: str, served: int) -> None:
        change = self.changes.get(served)
        if resource == "endpoints" and change is not None:
            change(self.records)

    def new(self) -> Record:
        return endpoint(self.rng, 50_000 + self.rng.randrange(10**6))

    def ids(self) -> list[str]:
        return [record["id"] for record in self.records]


def remove(*keys: str) -> Change:
    def change(records: list[Record]) -> None:
        records[:] = [record for record in records if record["id"] not in keys]

    return change


def move_to_end(*keys: str) -> Change:
    def change(records: list[Record]) -> None:
        moved = [record for record in records if record["id"] in keys]
        records[:] = [record for record in records if record["id"] not in keys] + moved

    return change


async def test_a_quiet_list_costs_no_shift() -> None:
    moving = Moving(30)
    async with mock_client(moving.service.handler, token=TOKEN) as client:
        pager = client.endpoints.list(page_size=10).as_dicts()
        pages = [page async for page in pager.pages()]
    assert [record["id"] for page in pages for record in page.items] == moving.original
    assert pager.shifts == Shifts()
    assert not pager.shifts
    assert all(page.shifts == Shifts() for page in pages)


async def test_a_record_created_before_the_frontier_counts_a_realignment() -> None:
    moving = Moving(30)
    moving.changes[1] = lambda records: records.insert(0, moving.new())
    async with mock_client(moving.service.handler, token=TOKEN) as client:
        pager = client.endpoints.list(page_size=10).as_dicts()
        pages = [page async for page in pager.pages()]
    assert [page.shifts for page in pages][:2] == [Shifts(), Shifts(realignments=1)]
    assert pager.shifts == Shifts(realignments=1)
    assert [record["id"] for page in pages for record in page.items] == moving.original


async def test_records_removed_past_the_overlap_count_a_reread() -> None:
    moving = Moving(30)
    moving.changes[1] = remove(*moving.original[5:8])  # 3 removals: more than the overlap
    async with mock_client(moving.service.handler, token=TOKEN) as client:
        pager = client.endpoints.list(page_size=10).as_dicts()
        ids = [record["id"] async for record in pager]
    assert ids == moving.original
    # The page read again starts before the last ids delivered: it is realigned too.
    assert pager.shifts == Shifts(realignments=1, rereads=1)
    assert str(pager.shifts) == "1 realigned, 1 re-read"


async def test_a_shift_is_told_as_an_event() -> None:
    moving = Moving(30)
    moving.changes[1] = lambda records: records.insert(0, moving.new())
    events: list[ClientEvent] = []
    async with mock_client(
        moving.service.handler, token=TOKEN, event_hooks=[events.append]
    ) as client:
        await client.endpoints.list(page_size=10).collect()
    shifts = [event for event in events if event.kind == "shift"]
    assert [event.detail for event in shifts] == ["1 realigned"]
    assert shifts[0].url == "https://remedy.test/v1/endpoints"
    assert shifts[0].call_id is not None


@pytest.mark.parametrize("stop", [1, 2, 7, 8, 9, 10, 17, 25, 29])
async def test_a_token_resumes_a_list_that_moved_meanwhile_exactly(stop: int) -> None:
    """Stopped after `stop` records, then records before where it stopped are removed and
    created: the resumed list proves its first page by the marks its token carries. Every
    record there throughout comes once, in order."""
    moving = Moving(30)
    async with mock_client(moving.service.handler, token=TOKEN) as client:
        pager = client.endpoints.list(page_size=10).as_dicts()
        got: list[str] = []
        async for record in pager:
            got.append(record["id"])
            if len(got) == stop:
                break
        token = pager.resume_token
        assert token is not None
        assert token.startswith(TOKEN_PREFIX)
        removed = {moving.original[stop + 3 - 30 * (stop >= 27)]}
        if stop >= 3:
            removed.add(moving.original[stop - 3])
        remove(*removed)(moving.records)
        created = moving.new()
        moving.records.insert(stop // 3, created)
        rest = client.endpoints.list(page_size=10, resume_token=token).as_dicts()
        got += [record["id"] async for record in rest]
    assert [key for key in got if key in moving.original and key not in removed] == [
        key for key in moving.original if key not in removed
    ]
    assert set(got) <= {*moving.original, created["id"]}
    assert len(got) == len(set(got))


async def test_a_token_whose_newest_marks_are_gone_raises_rather_than_guess() -> None:
    """The token keeps 8 marks; when the newest are removed, the older ones show after
    records the resumed list cannot tell (delivered before its marks, or created): it raises
    rather than deliver from a place it cannot prove."""
    moving = Moving(30)
    async with mock_client(moving.service.handler, token=TOKEN) as client:
        pager = client.endpoints.list(page_size=10).as_dicts()
        async for record in pager:
            if record["id"] == moving.original[16]:
                break
        remove(*moving.original[13:17])(moving.records)
        rest = client.endpoints.list(page_size=10, resume_token=pager.resume_token)
        with pytest.raises(PaginationError, match=r"found again|no new record"):
            await rest.collect()


async def test_a_token_taken_on_the_last_page_resumes_to_the_end() -> None:
    moving = Moving(25)
    async with mock_client(moving.service.handler, token=TOKEN) as client:
        pager = client.endpoints.list(page_size=10).as_dicts()
        got = []
        async for record in pager:
            got.append(record["id"])
            if len(got) == 23:
                break
        rest = client.endpoints.list(page_size=10, resume_token=pager.resume_token).as_dicts()
        got += [record["id"] async for record in rest]
    assert got == moving.original


async def test_a_token_whose_records_are_all_gone_raises_rather_than_guess() -> None:
    moving = Moving(40)
    async with mock_client(moving.service.handler, token=TOKEN) as client:
        pager = client.endpoints.list(page_size=10).as_dicts()
        async for _ in pager.pages():
            break
        remove(*moving.original[:10])(moving.records)
        rest = client.endpoints.list(page_size=10, resume_token=pager.resume_token)
        with pytest.raises(PaginationError, match=r"found again|no new record"):
            await rest.collect()


async def test_a_moved_order_raises_with_a_token_by_default() -> None:
    moving = Moving(30)
    moving.changes[1] = move_to_end(*moving.original[3:5])
    async with mock_client(moving.service.handler, token=TOKEN) as client:
        with pytest.raises(PaginationError, match="order moved") as caught:
            await client.endpoints.list(page_size=10).collect()
    assert caught.value.resume_token is not None
    assert "on_shift='restart'" in str(caught.value)


async def test_on_shift_restart_lists_a_moved_order_from_its_start_delivering_each_once() -> None:
    moving = Moving(30)
    moving.changes[1] = move_to_end(*moving.original[3:5])
    async with mock_client(moving.service.handler, token=TOKEN) as client:
        pager = client.endpoints.list(page_size=10, on_shift="restart").as_dicts()
        ids = [record["id"] async for record in pager]
    assert sorted(ids) == sorted(moving.original)
    assert len(ids) == len(set(ids))
    assert pager.shifts.restarts == 1
    assert "offset=0&" in moving.service.requests[2]


async def test_on_shift_restart_gives_up_after_three_restarts() -> None:
    moving = Moving(30)
    for request in range(1, 1000):  # the order turns around before every request
        moving.changes[request] = list.reverse
    async with mock_client(moving.service.handler, token=TOKEN) as client:
        pager = client.endpoints.list(page_size=10, on_shift="restart").as_dicts()
        with pytest.raises(PaginationError, match="after 3 restarts"):
            await pager.collect()
    assert pager.shifts.restarts == 3
    assert len(moving.service.requests) < 100


async def requests_listing_a_list_turning_around(prefetch: int | str) -> int:
    """The requests `as_dicts()` makes of a list whose order turns around before every request,
    until it gives up after its restarts."""
    moving = Moving(30)
    for request in range(1, 1000):
        moving.changes[request] = list.reverse
    async with mock_client(moving.service.handler, token=TOKEN) as client:
        pager = client.endpoints.list(page_size=10, on_shift="restart", prefetch=prefetch)
        with pytest.raises(PaginationError, match="after 3 restarts"):
            await pager.as_dicts().collect()
    return len(moving.service.requests)


async def test_no_page_is_guessed_ahead_while_the_list_moves() -> None:
    """Reading ahead guesses the next page only after a page that continued the list as it
    stood: a list that moves at every page costs the requests of one read in step, none
    guessed and wasted."""
    assert await requests_listing_a_list_turning_around("auto") == (
        await requests_listing_a_list_turning_around(0)
    )


async def test_a_resumed_list_cannot_restart() -> None:
    moving = Moving(30)
    async with mock_client(moving.service.handler, token=TOKEN) as client:
        pager = client.endpoints.list(page_size=10).as_dicts()
        async for _ in pager.pages():
            break
        token = pager.resume_token
        moving.changes[len(moving.service.requests) + 1] = move_to_end(*moving.original[10:12])
        rest = client.endpoints.list(page_size=10, resume_token=token, on_shift="restart")
        with pytest.raises(PaginationError, match="resumed from a token cannot restart"):
            await rest.collect()


def test_an_unknown_shift_policy_is_refused_before_any_request() -> None:
    moving = Moving(3)
    client = mock_client(moving.service.handler, token=TOKEN)
    with pytest.raises(ValueError, match="on_shift must be one of"):
        client.endpoints.list(on_shift="ignore")  # type: ignore[call-overload]
    assert moving.service.requests == []


async def test_a_record_moved_from_beyond_the_window_raises_rather_than_repeat() -> None:
    """A record delivered on page 1 moves to the end once the window (4 pages and one more)
    no longer holds it: the list recognises it by the hashes it keeps of every id delivered."""
    moving = Moving(60)
    moving.changes[8] = move_to_end(moving.original[1])
    async with mock_client(moving.service.handler, token=TOKEN) as client:
        pager = client.endpoints.list(page_size=5).as_dicts()
        got: list[str] = []

        async def drain() -> None:
            async for record in pager:
                got.append(record["id"])

        with pytest.raises(PaginationError, match="shows again after where the list stands"):
            await drain()
    assert len(got) == len(set(got))
    assert pager.resume_token is not None


async def test_on_shift_restart_skips_a_record_moved_from_beyond_the_window() -> None:
    moving = Moving(60)
    moving.changes[8] = move_to_end(moving.original[1])
    async with mock_client(moving.service.handler, token=TOKEN) as client:
        pager = client.endpoints.list(page_size=5, on_shift="restart").as_dicts()
        got = [record["id"] async for record in pager]
    assert sorted(got) == sorted(moving.original)
    assert len(got) == len(set(got))


def test_the_ids_kept_forget_whole_pages_past_their_cap() -> None:
    delivered = Delivered(cap=4)
    for page in (["a", "b", "c"], ["d", "e"], ["f"]):
        assert not delivered.again(page)
        delivered.add(page)
    assert len(delivered) == 3  # ["a", "b", "c"] forgotten: 6 was past the cap of 4
    assert delivered.again(["x", "e"])
    assert not delivered.again(["a"])


def test_the_ids_kept_are_the_last_whole_pages_within_the_cap_however_long_the_list() -> None:
    delivered = Delivered(cap=5)
    pages = [[f"r{number}-{index}" for index in range(2)] for number in range(1000)]
    for page in pages:
        assert not delivered.again(page)
        delivered.add(page)
    assert delivered.keys == {*pages[-2], *pages[-1]}  # a third page would be past the cap
    assert delivered.again([pages[-2][0]])
    assert not delivered.again(pages[-3])
    assert len(delivered._order) <= 4 * 5  # what was forgotten is dropped as the list goes on


def test_every_id_is_kept_without_a_cap() -> None:
    delivered = Delivered(cap=None)
    for key in range(100):
        delivered.add([key])
    assert len(delivered) == 100
    assert 0 in delivered.keys


async def test_a_page_ending_the_list_short_of_its_total_raises_without_restart_advice() -> None:
    """A last page short of the total the service announces is the service's paging, not a
    shift: no restart would mend it, so none is advised."""
    records = [{"id": f"r{index}", "hostname": "h"} for index in range(30)]

    def short(request: MockRequest) -> MockResponse:
        offset = int(request.query.get("offset", "0"))
        served = records[offset : offset + (10 if offset == 0 else 5)]
        return MockResponse.json(200, {"data": served, "total": 30, "limit": 10, "offset": offset})

    async with mock_client(short, token=TOKEN) as client:
        with pytest.raises(PaginationError, match="does not page by this offset") as caught:
            await client.endpoints.list(page_size=10).as_dicts().collect()
    assert "on_shift" not in str(caught.value)


# ---------------------------------------------------------------------------------------------
# the paginator itself, without I/O: pages read in turn, the proof's state on each request

PAGE = 4
PUBLISHED = ConventionPaginator(CONVENTIONS["offset"])
FIRST = PUBLISHED.first(PAGE)


def published_page(request: PageRequest, ids: list[str], total: int | None = 10) -> JSONResponse:
    """The published page answering `request` over the records `ids` (a total or none)."""
    offset = int(dict(request.params).get("offset", "0"))
    body: dict[str, object] = {
        "data": [{"id": key} for key in ids[offset : offset + PAGE]],
        "limit": PAGE,
        "offset": offset,
    }
    if total is not None:
        body["total"] = total
    return response_page(body)


def proving(*, from_start: bool = True, on_shift: ShiftPolicy = "raise") -> ProvenPaginator:
    return ProvenPaginator.around(PUBLISHED, FIRST, on_shift, from_start=from_start)


IDS = [f"ep-{n}" for n in range(10)]


def test_the_proofs_state_rides_on_the_requests_it_forms() -> None:
    """A qualifying first page is proven: its records are chosen, and the page after is asked
    from the overlap, carrying where the proof stands; the paginator keeps nothing itself."""
    paginator = proving()
    result = paginator.read(FIRST, published_page(FIRST, IDS))
    assert (list(result.deliver or ()), result.checked, result.again) == ([0, 1, 2, 3], True, False)
    following = result.next
    assert following is not None
    assert dict(following.params)["offset"] == str(PAGE - OVERLAP)
    assert isinstance(following.proof, ListProof)
    assert paginator.read(FIRST, published_page(FIRST, IDS)) == result  # no state kept
    second = paginator.read(following, published_page(following, IDS))
    assert list(second.deliver or ()) == [2, 3]  # the overlap's two records were delivered
    assert second.next is not None
    assert dict(second.next.params)["offset"] == str(2 * (PAGE - OVERLAP))


def test_prediction_and_plan_follow_the_overlap_up_to_the_total() -> None:
    """Prefetch guesses and parallel plans step by a page less the overlap, stopping at the
    total, and plan no size to hold the list to (each page is proven instead)."""
    paginator = proving()
    response = published_page(FIRST, IDS)
    result = paginator.read(FIRST, response)
    following = result.next
    assert following is not None
    guess = paginator.predict_next(following)
    assert guess is not None
    assert dict(guess.params)["offset"] == "4"
    plan = paginator.plan(FIRST, response, result, 5)
    assert plan is not None
    assert plan.size is None
    assert [dict(request.params)["offset"] for request in plan.requests] == ["2", "4", "6", "8"]


def test_a_list_that_does_not_qualify_is_the_wrapped_paginators_alone() -> None:
    """No total (or a list resumed without a proof): the wrapped paginator's result, as is."""
    response = published_page(FIRST, IDS, total=None)
    assert proving().read(FIRST, response) == PUBLISHED.read(FIRST, response)
    response = published_page(FIRST, IDS)
    assert proving(from_start=False).read(FIRST, response) == PUBLISHED.read(FIRST, response)


def test_a_page_that_cannot_be_proven_is_a_paging_fault() -> None:
    """The proof refuses as every paginator does, with a `PagingFault` (the walk adds the
    page's URL): here a record without an id on a later page."""
    paginator = proving()
    following = paginator.read(FIRST, published_page(FIRST, IDS)).next
    assert following is not None
    broken = published_page(following, IDS)
    del broken.body["data"][1]["id"]
    with pytest.raises(PagingFault, match="a record without an id"):
        paginator.read(following, broken)


def test_a_page_showing_nothing_delivered_is_read_again_from_further_back() -> None:
    """More removals before the frontier than the overlap: nothing of the page is handed over,
    and the list reads the page a page less the overlap further back (`again`)."""
    paginator = proving()
    following = paginator.read(FIRST, published_page(FIRST, IDS)).next
    assert following is not None
    moved = published_page(following, IDS[4:])  # ep-0 to ep-3 removed
    result = paginator.read(following, moved)
    assert result.again
    assert result.next is not None
    assert dict(result.next.params)["offset"] == "0"
