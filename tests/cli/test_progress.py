"""Progress with totals: a share and an ETA when the list announces its size (offset and page
lists do), nothing more when it does not (cursor lists), on time that passes only as pages are
asked for. Offset lists come from the published contract in a MockTransport; cursor lists and
a service failing mid-export from simulators."""

from __future__ import annotations

import asyncio
import importlib.util
import re
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest

from remedy_async import MockRequest, MockResponse, MockTransport
from remedy_async.cli._meters import Meters
from remedy_async.simulator import FaultSpec, Simulator, SimulatorConfig

from .conftest import Outcome, Published, cli_here

SHARE = re.compile(r", \d+% of [\d,]+, ETA \d+:\d\d:\d\d$")


class PageTime:
    """Time that moves one second each time the service is asked for a page, and a wait for
    the progress lines that ends then: a line a page asked for, at once, the meters as the
    records written left them. (The list reads ahead from its third page, so from then a page
    is asked for while the ones before are still being written: which records a line counts
    depends on how fast the writer goes, so the tests check what every line must say.)"""

    def __init__(self) -> None:
        self.now = 0.0
        self._asked = asyncio.Event()

    def clock(self) -> float:
        """The seconds passed: as many as pages asked for."""
        return self.now

    async def serve(self, seconds: float) -> None:
        """The wait before answering a page (a simulator's latency fault, or a MockTransport
        handler's): move time on."""
        self.now += 1.0
        self._asked.set()

    async def wait(self, seconds: float) -> None:
        """The progress lines' wait: until the next page is asked for."""
        await self._asked.wait()
        self._asked.clear()


def _paced(paging: str) -> tuple[SimulatorConfig, PageTime]:
    """A simulator of 20 endpoints in `paging`, every list request paced by a PageTime."""
    config = SimulatorConfig(
        seed=3,
        size=20,
        paging=paging,
        faults=[FaultSpec("latency", 1.0, "list:*", latency_ms=1)],
    )
    return config, PageTime()


async def _run_paced(paging: str, *args: str) -> Outcome:
    """Run the command line on 20 endpoints, every list request paced by a PageTime: an offset
    list is the published contract's, in a MockTransport; a cursor list a simulator's."""
    assert paging in ("offset", "cursor")
    if paging == "cursor":
        config, time = _paced(paging)
        async with Simulator(config, sleep=time.serve) as simulator:
            return await cli_here(
                *args, "--base-url", simulator.url, clock=time.clock, sleep=time.wait
            )
    time = PageTime()
    service = Published()
    assert service.count("endpoints") == 20

    async def paced(request: MockRequest) -> MockResponse:
        await time.serve(0)
        await asyncio.sleep(0)  # a socket's wait: the progress lines' task runs before the answer
        return service.handler(request)

    return await cli_here(
        *args, "--base-url", service.url, clock=time.clock, sleep=time.wait,
        transport=MockTransport(paced),
    )  # fmt: skip


def _progress_lines(stderr: str, name: str) -> list[str]:
    """The progress lines of `name` on stderr (not its summary), without their prefix."""
    prefix = f"remedy-async: {name}: "
    return [
        line.removeprefix(prefix)
        for line in stderr.splitlines()
        if line.startswith(prefix) and " records, " in line
    ]


def test_a_meter_keeps_the_total_a_page_announced() -> None:
    """A page's total sets the meter's; a page announcing none keeps it."""
    meter = Meters(clock=lambda: 0.0).add("endpoints", None)
    meter.add(5, total=20)
    meter.add(5)
    assert (meter.records, meter.total) == (10, 20)


DUCKDB = pytest.mark.skipif(
    importlib.util.find_spec("duckdb") is None, reason="the duckdb extra is not installed"
)


@pytest.mark.parametrize(
    "target",
    [("--out", "{dir}"), pytest.param(("--to", "duckdb:{dir}/remedy.duckdb"), marks=DUCKDB)],
    ids=["files", "duckdb"],
)
async def test_export_shows_share_and_eta_when_the_list_announces_its_total(
    tmp_path: Path, target: tuple[str, str]
) -> None:
    """An offset list announces its size: each progress line after the first page has the
    share done and the time left, whether the export writes files or DuckDB tables. (Pages
    after the first repeat 2 records of the one before, to prove the list goes on: 3 new
    records a page of 5, issue 33.)"""
    flag, value = target
    outcome = await _run_paced(
        "offset", "export", "endpoints", flag, value.format(dir=tmp_path), "--page-size", "5"
    )
    assert outcome.code == 0, outcome.stderr
    lines = _progress_lines(outcome.stderr, "endpoints")
    assert lines[0] == "0 records, 0/s"
    assert_shares_of_whole_pages(lines[1:], first_page=5, of=20)


LINE = re.compile(r"^(\d+) records, (\d+)/s, (\d+)% of ([\d,]+), ETA (\d+):(\d\d):(\d\d)$")


def assert_shares_of_whole_pages(lines: list[str], *, first_page: int, of: int) -> None:
    """At least three lines, each with the records of whole pages written (`first_page`, then 3
    more a page), their share of `of` and a time left that the rate says: never going back."""
    assert len(lines) >= 3, lines
    counts = []
    for line in lines:
        match = LINE.match(line)
        assert match, line
        records, rate, share, total = (int(match.group(n)) for n in (1, 2, 3, 4))
        hours, minutes, seconds = (int(match.group(n)) for n in (5, 6, 7))
        assert (records - first_page) % 3 == 0, line
        assert (total, share) == (of, records * 100 // of), line
        left = hours * 3600 + minutes * 60 + seconds
        assert rate > 0, line
        assert abs(left - (of - records) / rate) <= (of - records) / rate / 2 + 1, line
        counts.append(records)
    assert counts == sorted(counts)
    assert counts[-1] > counts[0]


async def test_export_shows_no_share_when_the_list_announces_no_total(tmp_path: Path) -> None:
    """A cursor list announces no size: the progress lines have the count and rate only."""
    outcome = await _run_paced(
        "cursor", "export", "endpoints", "--out", str(tmp_path), "--page-size", "5"
    )
    assert outcome.code == 0, outcome.stderr
    lines = _progress_lines(outcome.stderr, "endpoints")
    assert len(lines) >= 4
    assert all(line.endswith("/s") for line in lines)


async def test_a_resumed_export_shows_its_share_of_the_whole_list(tmp_path: Path) -> None:
    """A resumed export counts the records of its first run in the share, and its ETA reads
    the rate of this run. (Pages after the first overlap the page before by 2: the first run's
    two pages hold 8 records, each later page brings 3; the resumed list is proven too.)"""
    config, time = _paced("offset")
    base = ("export", "endpoints", "--out", str(tmp_path), "--page-size", "5", "--retries", "0")
    async with Simulator(config, sleep=_failing_from(3, time)) as simulator:
        stopped = await cli_here(*base, "--base-url", simulator.url, "--progress", "never")
    assert stopped.code == 3, stopped.stderr
    config, time = _paced("offset")
    async with Simulator(config, sleep=time.serve) as simulator:
        resumed = await cli_here(
            *base, "--resume", "--base-url", simulator.url, clock=time.clock, sleep=time.wait
        )
    assert resumed.code == 0, resumed.stderr
    lines = _progress_lines(resumed.stderr, "endpoints")
    assert lines[0] == "8 records, 0/s"
    assert_shares_of_whole_pages(lines[1:], first_page=8, of=20)


def _failing_from(count: int, time: PageTime) -> Callable[[float], Awaitable[None]]:
    """The simulator's wait of `time`, failing the `count`th page request and every later one
    (the service answers 500)."""
    asked = 0

    async def serve(seconds: float) -> None:
        nonlocal asked
        asked += 1
        if asked >= count:
            raise RuntimeError("the service fails from here on")
        await time.serve(seconds)

    return serve


@pytest.mark.parametrize(
    ("paging", "max_items", "of"),
    [("offset", None, 20), ("offset", "12", 12), ("cursor", None, None)],
    ids=["offset", "offset-capped", "cursor"],
)
async def test_list_progress_lines_show_a_share_only_when_the_total_is_known(
    paging: str, max_items: str | None, of: int | None
) -> None:
    """`list` (data into a pipe, progress into a log) shows the share of the list's total,
    or of `--max-items` when fewer; nothing when the list announces no total."""
    cap = ("--max-items", max_items) if max_items else ()
    outcome = await _run_paced(paging, "list", "endpoints", "--page-size", "5", *cap)
    assert outcome.code == 0, outcome.stderr
    lines = _progress_lines(outcome.stderr, "endpoints")
    shown = [line for line in lines if SHARE.search(line)]
    if of is None:
        assert shown == []
        return
    assert lines[0] == "0 records, 0/s"
    assert shown == lines[1:]
    if max_items is None:
        assert_shares_of_whole_pages(shown, first_page=5, of=of)
    else:  # a cap of 12 shows the first pages' 5 and 8 records
        assert [line.split(", ")[2] for line in shown][:2] == ["42% of 12", "67% of 12"]
