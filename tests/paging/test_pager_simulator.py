"""The pager against the simulator: every paging convention gives the same items, and resumes
exactly."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator

import pytest
from yarl import URL

from remedy_async import (
    CONVENTIONS,
    APIError,
    ClientEvent,
    RemedyClient,
    RequestOptions,
    RetryPolicy,
)
from remedy_async.simulator import FaultSpec, Simulator, SimulatorConfig

CONVENTION_NAMES = ("none", "offset", "page", "cursor", "link")
FINDINGS = "vulnerability-findings"


@pytest.fixture
async def simulator() -> AsyncIterator[Simulator]:
    async with Simulator(SimulatorConfig(seed=11, size=8)) as running:
        yield running


def served_as(name: str) -> RequestOptions:
    """Per-request options that make the simulator answer in one paging convention."""
    return RequestOptions(headers={"X-Simulator-Paging": name})


@pytest.mark.parametrize("paging", CONVENTION_NAMES)
@pytest.mark.parametrize("page_size", [1, 7, 100])
@pytest.mark.parametrize("max_items", [None, 0, 1, 13])
async def test_every_convention_lists_the_same_ids(
    simulator: Simulator, paging: str, page_size: int, max_items: int | None
) -> None:
    """Whatever the convention and page size, ids come in the service's order, up to max_items."""
    expected = list(simulator.dataset.ids(FINDINGS))[:max_items]
    async with RemedyClient(simulator.url) as client:
        pager = client.vulnerability_findings.list(
            page_size=page_size, max_items=max_items, options=served_as(paging)
        )
        assert [finding.id async for finding in pager] == expected


@pytest.mark.parametrize("paging", list(CONVENTIONS))
@pytest.mark.parametrize("page_size", [7, 100])
async def test_every_convention_lists_every_id_whatever_page_size_is_asked(
    simulator: Simulator, paging: str, page_size: int
) -> None:
    """Detected from the first page, every convention lists every id once, even where the
    service did not read the size asked on the first request (`limit`: page's `pageSize`,
    spring's `size`, header-page's `per_page` are not it) and page numbers count in the size it
    served."""
    expected = list(simulator.dataset.ids(FINDINGS))
    async with RemedyClient(simulator.url) as client:
        pager = client.vulnerability_findings.list(page_size=page_size, options=served_as(paging))
        assert [finding.id async for finding in pager] == expected


@pytest.mark.parametrize("paging", CONVENTION_NAMES)
async def test_max_items_fetches_no_page_it_does_not_need(paging: str) -> None:
    """With max_items=13 and pages of 7, exactly two pages are fetched (one if unpaged;
    three by offset, whose pages overlap by 2 to prove each continues the list, issue 33). The
    service serves 7 a page by default too, so a convention whose size parameter is not the
    `limit` the client asks in (page's `pageSize`) pages alike."""
    async with (
        Simulator(SimulatorConfig(seed=11, size=8, page_size=7)) as simulator,
        RemedyClient(simulator.url) as client,
    ):
        await client.vulnerability_findings.list(
            page_size=7, max_items=13, options=served_as(paging)
        ).collect()
    expected = {"none": 1, "offset": 3}.get(paging, 2)
    assert simulator.counters.requests[f"list:{FINDINGS}"] == expected


async def test_a_service_that_does_not_read_limit_is_paged_in_the_size_it_serves(
    simulator: Simulator,
) -> None:
    """The first request asks its size as `limit` only: a page-numbered service that reads
    `pageSize` alone serves its default (50), and the later pages are asked in that size, so
    page numbers keep counting the same records; every id once."""
    sent: list[dict[str, str]] = []

    def note(event: ClientEvent) -> None:
        if event.kind == "request" and event.url is not None:
            sent.append(dict(URL(event.url).query))

    expected = list(simulator.dataset.ids(FINDINGS))
    async with RemedyClient(simulator.url, event_hooks=[note]) as client:
        pager = client.vulnerability_findings.list(page_size=7, options=served_as("page"))
        assert [finding.id async for finding in pager] == expected
    assert pager.convention == CONVENTIONS["page"]
    served = simulator.config.page_size
    assert sent == [
        {"limit": "7"},
        *(
            {"page": str(number), "pageSize": str(served)}
            for number in range(2, -(-len(expected) // served) + 1)
        ),
    ]


@pytest.mark.parametrize("paging", CONVENTION_NAMES)
@pytest.mark.parametrize("seed", [1, 2, 3])
async def test_resuming_from_tokens_at_random_points_gives_every_item_once(
    simulator: Simulator, paging: str, seed: int
) -> None:
    """Stopping at random items and resuming from pager.resume_token yields each item once."""
    expected = list(simulator.dataset.ids(FINDINGS))
    stops = random.Random(seed)
    received: list[str] = []
    token: str | None = None
    async with RemedyClient(simulator.url) as client:
        for _ in range(len(expected) + 1):
            pager = client.vulnerability_findings.list(
                page_size=7, resume_token=token, options=served_as(paging)
            )
            stop_after = stops.randint(1, 20)
            async for finding in pager:
                received.append(finding.id)
                stop_after -= 1
                if stop_after == 0:
                    break
            token = pager.resume_token
            if token is None:
                break
    assert received == expected


@pytest.mark.parametrize("paging", CONVENTION_NAMES)
async def test_page_tokens_resume_after_the_page(simulator: Simulator, paging: str) -> None:
    """Each Page.resume_token continues right after that page; the last page's token is None."""
    expected = list(simulator.dataset.ids(FINDINGS))
    async with RemedyClient(simulator.url) as client:
        pages = [
            page
            async for page in client.vulnerability_findings.list(
                page_size=7, options=served_as(paging)
            ).pages()
        ]
        assert pages[-1].resume_token is None
        for index, page in enumerate(pages[:-1]):
            assert page.resume_token is not None
            rest = await client.vulnerability_findings.list(
                resume_token=page.resume_token, options=served_as(paging)
            ).collect()
            delivered = [item.id for p in pages[: index + 1] for item in p.items]
            assert delivered + [finding.id for finding in rest] == expected


@pytest.mark.parametrize("paging", ["offset", "page", "cursor", "link"])
async def test_failed_iteration_carries_a_token_that_continues_exactly(paging: str) -> None:
    """Under injected 500s, resuming from each error's resume_token yields every item once."""
    faults = [FaultSpec("http-500", 0.3, routes=[f"list:{FINDINGS}"])]
    config = SimulatorConfig(seed=5, size=8, page_size=10, faults=faults)  # page reads no limit
    async with Simulator(config) as simulator:
        expected = list(simulator.dataset.ids(FINDINGS))
        received: list[str] = []
        token: str | None = None
        failures = 0
        yielded_counts: list[int | None] = []
        tokens: list[str | None] = []
        async with RemedyClient(simulator.url, retry=RetryPolicy(attempts=1)) as client:
            while True:
                pager = client.vulnerability_findings.list(
                    page_size=10, resume_token=token, options=served_as(paging)
                )
                try:
                    async for finding in pager:
                        received.append(finding.id)
                    break
                except APIError as error:
                    failures += 1
                    yielded_counts.append(error.items_yielded)
                    token = error.resume_token
                    tokens.append(token)
    assert failures > 0
    assert None not in yielded_counts
    assert None not in tokens
    assert received == expected


async def test_cursor_expiry_can_be_resumed_from_the_error(simulator: Simulator) -> None:
    """A 410 for an expired cursor mid-list (in the published error body: a message, no code)
    carries a token, and resuming from it completes the list."""
    faults = [FaultSpec("cursor-expired", 0.5)]
    async with Simulator(
        SimulatorConfig(seed=3, size=12, paging="cursor", faults=faults)
    ) as faulty:
        expected = list(faulty.dataset.ids("remediation-targets"))
        received: list[str] = []
        refusals: list[tuple[int | None, str]] = []
        token: str | None = None
        async with RemedyClient(faulty.url) as client:
            for _ in range(200):
                pager = client.remediation_targets.list(page_size=3, resume_token=token)
                try:
                    async for target in pager:
                        received.append(target.id)
                    break
                except APIError as error:
                    refusals.append((getattr(error, "status", None), error.message))
                    token = error.resume_token
    assert received == expected
    assert refusals
    assert {status for status, _ in refusals} == {410}
    assert all("the cursor has expired" in message for _, message in refusals)
