"""Offset lists of the published service whose data changes between pages: every record
present throughout is delivered exactly once, in order (issue 33). The issue's two cases, and
the smallest false refusals of the first overlap (its diagnosis), through the default client.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence

import pytest

from remedy_async import PaginationError
from tests.mock_service import mock_client
from tests.published import TOKEN, PublishedService, dataset, endpoint

Op = tuple[str, int]
"""`("remove", i)`: remove the i-th record of the original list (by id); `("insert", at)`: a
new record inserted at position `at` of the list as it stands; `("move", i)`: the i-th
original record moved to the list's end (an update under an `updated_at` order)."""


async def listed(
    size: int, page_size: int, script: Mapping[int, Sequence[Op]]
) -> tuple[list[str], list[str], set[str], set[str], list[str]]:
    """List `size` endpoints in pages of `page_size`, applying `script[n]` before the n-th
    request is answered (from 0, re-reads included): the ids delivered, the original ids,
    every id that ever existed, the ids removed or moved, and the requests sent."""
    service = PublishedService(dataset(sizes={"endpoints": size}))
    records = service.records["endpoints"]
    original = [item["id"] for item in records]
    existed = set(original)
    gone: set[str] = set()
    rng = random.Random(7)

    def between(resource: str, served: int) -> None:
        for kind, where in script.get(served, []) if resource == "endpoints" else []:
            if kind == "insert":
                added = endpoint(rng, 10_000 + len(existed))
                existed.add(added["id"])
                records.insert(where, added)
                continue
            key = original[where]
            gone.add(key)
            moved = [item for item in records if item["id"] == key]
            records[:] = [item for item in records if item["id"] != key]
            if kind == "move":
                records.extend(moved)

    service.between_pages = between
    async with mock_client(service.handler, token=TOKEN) as client:
        ids = [item["id"] async for item in client.endpoints.list(page_size=page_size).as_dicts()]
    return ids, original, existed, gone, service.requests


def assert_exact(ids: list[str], original: list[str], existed: set[str], gone: set[str]) -> None:
    survivors = [key for key in original if key not in gone]
    kept = set(survivors)
    assert len(ids) == len(set(ids)), "a record was delivered twice"
    assert set(ids) <= existed, "a record that never existed was delivered"
    assert [key for key in ids if key in kept] == survivors, "a survivor lost or misplaced"


async def test_a_record_of_page_one_removed_after_page_one_loses_no_survivor() -> None:
    """The issue's first case: 237 endpoints, pages of 50; one record of page 1 removed after
    page 1 was served. Main delivered 236 records, one survivor silently missing."""
    ids, original, existed, gone, requests = await listed(237, 50, {1: [("remove", 10)]})
    assert_exact(ids, original, existed, gone)
    assert len(ids) == 237  # the record removed was delivered on page 1, before its removal
    assert len(requests) == 5


async def test_a_record_inserted_at_the_head_is_not_delivered_twice() -> None:
    """The issue's second case: one record created at the head after page 1."""
    ids, original, existed, gone, _ = await listed(237, 50, {1: [("insert", 0)]})
    assert_exact(ids, original, existed, gone)


@pytest.mark.parametrize(
    ("size", "page_size", "script"),
    [
        pytest.param(
            237, 50, {2: [("remove", 10)], 3: [("remove", 20), ("remove", 21)]}, id="1-removals"
        ),
        pytest.param(5, 3, {1: [("insert", 2)]}, id="2-created-in-overlap"),
        pytest.param(
            237, 50, {1: [("insert", 27), ("insert", 48)], 2: [("remove", 135)]}, id="3-created"
        ),
        pytest.param(5, 2, {1: [("insert", 0)]}, id="4-same-ids-as-page-before"),
        pytest.param(
            11,
            2,
            {2: [("remove", 7)], 4: [("remove", 5), ("remove", 2), ("remove", 3)]},
            id="5-offset-asked-twice",
        ),
        pytest.param(
            5, 2, {1: [("remove", 1), ("remove", 0)], 2: [("remove", 3)]}, id="6-start-anchor"
        ),
        pytest.param(
            6,
            3,
            {2: [("insert", 2)], 3: [("remove", 1), ("remove", 2)], 4: [("insert", 0)] * 2},
            id="7-creations-near-head",
        ),
    ],
)
async def test_the_first_overlaps_false_refusals_list_exactly(
    size: int, page_size: int, script: Mapping[int, Sequence[Op]]
) -> None:
    ids, original, existed, gone, _ = await listed(size, page_size, script)
    assert_exact(ids, original, existed, gone)


async def test_a_record_moved_past_the_frontier_raises() -> None:
    """A delivered record moved behind undelivered ones (an `updated_at` order) shows out of
    its delivered order on the next page: refused, never guessed."""
    with pytest.raises(PaginationError, match="order moved"):
        await listed(20, 5, {1: [("move", 2), ("move", 1)]})
