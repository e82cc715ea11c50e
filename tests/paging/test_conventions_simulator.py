"""Every paging convention of the table, over the simulator on real sockets.

For each row: the default client lists a 2,503-record list exactly under faults and resumes
exactly from a token taken mid-page; the same service with its continuation renamed to
something unknown fails loudly at page 1; and every fixed paginator pointed at it either lists
it exactly or raises PaginationError within three pages, never repeating or dropping a record.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from remedy_async import (
    CONVENTIONS,
    BadRequestError,
    CursorPaginator,
    LinkHeaderPaginator,
    OffsetPaginator,
    PageNumberPaginator,
    PaginationError,
    Paginator,
    RemedyClient,
    RetryPolicy,
    UnpagedPaginator,
)
from remedy_async.simulator import FaultSpec, Simulator, SimulatorConfig
from tests.fakes import FakeTime

ROWS = list(CONVENTIONS)
PAGED_ROWS = [name for name, row in CONVENTIONS.items() if row.follow != "none"]
FAULTS = (
    FaultSpec("http-503", 0.08, routes=["list:*"]),
    FaultSpec("reset", 0.04, routes=["list:*"]),
    FaultSpec("http-429", 0.04, routes=["list:*"], retry_after=1),
    FaultSpec("truncate", 0.02, routes=["list:*"]),
)
PATIENT = RetryPolicy(attempts=10)
COUNT = 2503
MID_PAGE = 1234


@pytest.fixture(scope="module")
def expected_ids() -> list[str]:
    """The ids of the 2,503 endpoints of the seeded data set, in list order."""

    async def ids() -> list[str]:
        async with Simulator(SimulatorConfig(seed=5, size=COUNT)) as simulator:
            return list(simulator.dataset.ids("endpoints"))

    with asyncio.Runner() as runner:
        found = runner.run(ids())
    assert len(found) == COUNT
    return found


@pytest.mark.parametrize("name", ROWS)
async def test_each_convention_lists_exactly_and_resumes_mid_page(
    name: str, expected_ids: list[str]
) -> None:
    """2,503 records in pages of 100 under faults arrive exactly; a mid-page token resumes."""
    time = FakeTime()
    config = SimulatorConfig(seed=5, size=COUNT, paging=name, faults=FAULTS)
    async with Simulator(config) as simulator:
        async with RemedyClient(
            simulator.url, retry=PATIENT, clock=time.clock, sleep=time.sleep
        ) as client:
            pager = client.endpoints.list(page_size=100)
            assert [record.id async for record in pager] == expected_ids
            assert pager.convention == CONVENTIONS[name]

            head, pager = [], client.endpoints.list(page_size=100)
            async for record in pager:
                head.append(record.id)
                if len(head) == MID_PAGE:
                    break
            token = pager.resume_token
            assert token is not None
            tail = [r.id async for r in client.endpoints.list(page_size=100, resume_token=token)]
            assert head + tail == expected_ids
        assert simulator.counters.total_faults > 0


@pytest.mark.parametrize("name", PAGED_ROWS)
async def test_an_unknown_continuation_fails_loudly_at_the_first_page(name: str) -> None:
    """With the row's continuation renamed (`nxt_tok_x`), the default client raises at page 1."""
    config = SimulatorConfig(seed=5, size=250, paging=name, disguise_paging=True)
    async with Simulator(config) as simulator, RemedyClient(simulator.url) as client:
        with pytest.raises(PaginationError, match="signals a next page") as caught:
            await client.endpoints.list(page_size=100).collect()
        assert simulator.counters.total_requests == 1
    assert caught.value.resume_token is not None


FIXED: dict[str, Paginator | Any] = {
    "OffsetPaginator": OffsetPaginator(),
    "PageNumberPaginator": PageNumberPaginator(),
    "CursorPaginator": CursorPaginator(),
    "LinkHeaderPaginator": LinkHeaderPaginator(),
    "UnpagedPaginator": UnpagedPaginator(),
    **{f"pinned:{name}": row for name, row in CONVENTIONS.items()},
}


@pytest.mark.parametrize("served", ROWS)
@pytest.mark.parametrize("fixed", list(FIXED))
async def test_a_fixed_paginator_lists_exactly_or_fails_within_three_pages(
    fixed: str, served: str
) -> None:
    """Any fixed paginator against any convention: exact, or a loud failure by page 3.

    Loud is PaginationError, or the service refusing a parameter it reads differently (a page
    number where it expects its own cursor): a 400, never a silent gap or repeat.
    """
    config = SimulatorConfig(seed=5, size=250, paging=served)
    async with Simulator(config) as simulator:
        expected = list(simulator.dataset.ids("endpoints"))
        async with RemedyClient(simulator.url, paginator=FIXED[fixed]) as client:
            got: list[str] = []
            try:
                async for record in client.endpoints.list(page_size=100):
                    got.append(record.id)
            except (PaginationError, BadRequestError):
                assert simulator.counters.total_requests <= 3
                assert got == expected[: len(got)]
            else:
                assert got == expected
