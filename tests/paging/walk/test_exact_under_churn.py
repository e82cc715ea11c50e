"""Offset lists of the published service read while records are inserted, removed and updated
between and during their page requests, over real loopback sockets (issue 33): every record
present for the whole list is delivered exactly once, nothing is delivered twice or invented,
a stable order never raises, and an order that moves raises `PaginationError` with a resume
token or stays exact: never a silent loss. By default (a page read ahead from the third), in
step (`prefetch=0`), with `prefetch=2`, with
`concurrency=4` planned parallel pages (whose requests interleave, so churn applied per request
lands during the list's pages), and with `on_shift="restart"`. The smallest counterexamples
random runs of the properties found are kept as cases of their own.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final, TypeVar

import pytest
from attrs import frozen
from hypothesis import HealthCheck, Phase, example, given, note, settings
from hypothesis import strategies as st

from remedy_async import PaginationError, RemedyClient
from remedy_async._paging._paginators._proof import OVERLAP
from tests.loopback import serve_handler
from tests.paging.walk.diagnosis import FALSE_REFUSALS as DIAGNOSIS
from tests.published import TOKEN, Churn, ChurnOp, PublishedService, dataset

STABLE: Final = ("insert", "remove", "drop", "update")
"""Changes that keep the survivors' order (updates change fields, not places)."""
MOVING: Final = (*STABLE, "move")
"""Changes under an order by `updated_at`: an update moves its record to the end."""
PROPERTY = settings(
    max_examples=50,
    derandomize=True,
    database=None,
    deadline=None,
    phases=(Phase.explicit, Phase.generate),
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
"""A few dozen fixed examples: the same runs everywhere, and no shrinking, so a run a mark
expects to fail costs no more than one that passes (a failure reports its first case, with its
requests and changes, in the notes)."""
RESTART: Final = {"on_shift": "restart"}
"""A list that restarts from its first page where it cannot prove a page, delivering only what
it did not deliver yet (it then remembers every id delivered)."""


def modes(
    marks: Sequence[pytest.MarkDecorator] = (),
    restart: Sequence[pytest.MarkDecorator] | None = None,
) -> list[Any]:
    """The `list()` options each property runs under, with the marks they expect (`restart`:
    those of the list that restarts instead of raising; default: the same)."""
    return [
        pytest.param({}, id="default", marks=marks),  # a page read ahead from the third
        pytest.param({"prefetch": 0}, id="in-step", marks=marks),
        pytest.param({"prefetch": 2}, id="prefetch-2", marks=marks),
        pytest.param({"concurrency": 4}, id="concurrency-4", marks=marks),
        pytest.param(RESTART, id="restart", marks=marks if restart is None else restart),
    ]


@frozen
class Case:
    """A list of `size` endpoints read in pages of `page_size`, with `plan[n]` applied before
    its n-th request is answered."""

    size: int
    page_size: int
    plan: Mapping[int, Sequence[ChurnOp]]

    def __repr__(self) -> str:
        return f"Case({self.size}, {self.page_size}, {dict(self.plan)!r})"


@frozen
class Listed:
    """What one list delivered, or the error it raised, and the ground truth."""

    ids: list[str]
    error: PaginationError | None
    churn: Churn
    requests: list[str]


@st.composite
def cases(draw: st.DrawFn, kinds: Sequence[str]) -> Case:
    """Lists of 5-300 records in pages of 2-60 (at most about 30 pages), with up to 12 changes
    spread over the requests the list takes, a few at a time."""
    size = draw(st.integers(5, 300))
    page_size = draw(st.integers(max(2, -(-size // 30)), 60))
    step = page_size - min(OVERLAP, page_size - 1)
    requests = -(-size // step) + 1
    ops = draw(
        st.lists(
            st.tuples(st.integers(0, requests), st.sampled_from(kinds), st.integers(0, 10**6)),
            max_size=12,
        )
    )
    plan: dict[int, list[ChurnOp]] = {}
    for served, kind, where in ops:
        plan.setdefault(served, []).append((kind, where))
    return Case(size, page_size, plan)


async def listing(case: Case, options: Mapping[str, Any]) -> Listed:
    """List the case's endpoints as a user would, over a loopback socket, churning meanwhile."""
    service = PublishedService(dataset(sizes={"endpoints": case.size}))
    churn = Churn(service, case.plan)
    service.between_pages = churn
    ids: list[str] = []
    error = None
    async with serve_handler(service.handler) as url, RemedyClient(url, token=TOKEN) as client:
        pager = client.endpoints.list(page_size=case.page_size, **options).as_dicts()
        try:
            async for item in pager:
                ids.append(item["id"])
        except PaginationError as refused:
            error = refused
    return Listed(ids, error, churn, service.requests)


def run(case: Case, options: Mapping[str, Any]) -> Listed:
    """The case listed with these `list()` options."""
    return asyncio.run(listing(case, options))


def listed(case: Case, options: Mapping[str, Any]) -> Listed:
    """The case listed, noted for Hypothesis's report."""
    note(f"{case!r} {dict(options)}")
    result = run(case, options)
    note(f"requests: {result.requests}")
    note(f"changes: {result.churn.log}")
    return result


def assert_exact(result: Listed, *, in_order: bool) -> None:
    """Every record present throughout delivered once (in list order when `in_order`), none
    twice, none that never existed."""
    ids, churn = result.ids, result.churn
    assert len(ids) == len(set(ids)), (
        f"delivered twice: {sorted({k for k in ids if ids.count(k) > 1})}"
    )
    assert set(ids) <= churn.existed, "a record that never existed was delivered"
    owed = churn.throughout
    missing = set(owed) - set(ids)
    assert not missing, f"{len(missing)} record(s) present throughout never delivered: {missing}"
    if in_order:
        kept = set(owed)
        assert [key for key in ids if key in kept] == owed, "records present throughout misplaced"


def assert_stable(result: Listed) -> None:
    """Not refused, and exact in list order."""
    assert result.error is None, f"refused: {result.error}"
    assert_exact(result, in_order=True)


def assert_moved_loses_nothing(result: Listed) -> None:
    """Refused with a resume token, or every record present throughout delivered; nothing
    invented either way."""
    assert set(result.ids) <= result.churn.existed, "a record that never existed was delivered"
    if result.error is not None:
        assert result.error.resume_token is not None, "a refusal without a resume token"
        return
    missing = set(result.churn.throughout) - set(result.ids)
    assert not missing, f"{len(missing)} record(s) present throughout never delivered: {missing}"


ISSUE_REMOVAL = Case(237, 50, {1: [("remove", 10)]})
"""The issue's first case: one record of page 1 removed after page 1 was served."""
ISSUE_INSERT = Case(237, 50, {1: [("insert", 0)]})
"""The issue's second case: one record created at the head after page 1."""
FALSE_REFUSALS = tuple(Case(*case) for case in DIAGNOSIS.values())
"""The first overlap's seven smallest false refusals (issue 33's diagnosis)."""
FORGOTTEN: Final = Case(40, 2, {1: [("move", 0)]})
"""The first record moved to the end after page 1, and shown again 38 records later: beyond
the proof's window, so only the hashes of every id delivered recognise it."""


Test = TypeVar("Test", bound=Callable[..., None])


def with_examples(*examples: Case) -> Callable[[Test], Test]:
    """Each case as an explicit `@example`, tried first in every run."""

    def decorate(test: Test) -> Test:
        for case in reversed(examples):
            test = example(case=case)(test)
        return test

    return decorate


@pytest.mark.parametrize("options", modes())
@given(case=cases(STABLE))
@with_examples(ISSUE_REMOVAL, ISSUE_INSERT, *FALSE_REFUSALS)
@PROPERTY
def test_a_stable_order_is_listed_exactly_and_never_refused(
    options: Mapping[str, Any], case: Case
) -> None:
    """Inserts, removals and in-place updates between and during pages: the list never
    raises, and delivers every record present throughout exactly once, in list order."""
    assert_stable(listed(case, options))


@pytest.mark.parametrize("options", modes())
@given(case=cases(MOVING))
@PROPERTY
def test_a_moving_order_raises_or_loses_nothing(options: Mapping[str, Any], case: Case) -> None:
    """Updates that move their record to the end (an `updated_at` order), among inserts and
    removals: the list raises `PaginationError` with a resume token, or every record present
    throughout is delivered and nothing invented: never a silent loss."""
    assert_moved_loses_nothing(listed(case, options))


@pytest.mark.parametrize("options", modes())
@given(case=cases(MOVING))
@example(case=FORGOTTEN)
@PROPERTY
def test_a_moving_order_raises_or_repeats_nothing(options: Mapping[str, Any], case: Case) -> None:
    """The same lists: the list raises `PaginationError`, or delivers every record at most
    once: a record moved to the end after it was delivered is recognised when it shows again."""
    result = listed(case, options)
    if result.error is None:
        assert_exact(result, in_order=False)
    else:
        assert len(result.ids) == len(set(result.ids)), "delivered twice before the refusal"


@pytest.mark.parametrize("options", modes())
def test_the_issues_removal_delivers_every_survivor_once(options: Mapping[str, Any]) -> None:
    """237 endpoints, pages of 50, one record of page 1 removed after page 1: all 236
    survivors once, and the removed record too, delivered on page 1 before its removal."""
    result = run(ISSUE_REMOVAL, options)
    assert result.error is None, f"refused: {result.error}"
    assert_exact(result, in_order=True)
    assert len(result.ids) == 237


@pytest.mark.parametrize("options", modes())
def test_the_issues_head_insert_repeats_nothing(options: Mapping[str, Any]) -> None:
    """237 endpoints, pages of 50, one record created at the head after page 1: every original
    record once, no `DuplicateItemWarning` (warnings are errors), the new one not at all (it
    sits before the frontier)."""
    result = run(ISSUE_INSERT, options)
    assert result.error is None, f"refused: {result.error}"
    assert_exact(result, in_order=True)
    assert result.ids == list(result.churn.original)


FALSE_REFUSALS_FOUND: Final = (
    pytest.param(Case(5, 2, {1: [("remove", 0), ("remove", 1)]}), id="page-one-removed"),
    pytest.param(Case(5, 2, {1: [("insert", 0), ("insert", 0)]}), id="a-page-created-at-head"),
    pytest.param(Case(30, 10, {1: [("insert", 0)] * 10}), id="ten-created-at-head"),
    pytest.param(Case(6, 2, {4: [("insert", 0), ("remove", 5)]}), id="same-ids-same-total"),
)
"""The smallest false refusals under a stable order that random runs of the property found,
fixed since: every record of page 1 removed (the first page then shows no delivered id: the
list's start anchors it); a page's worth created at the head (likewise); and a last page
repeating the page before at the next offset with the same total (once refused as a service
ignoring the offset; only a repeat of the first page is now)."""


@pytest.mark.parametrize("options", modes())
@pytest.mark.parametrize("case", FALSE_REFUSALS_FOUND)
def test_a_stable_order_is_not_refused_where_the_property_found_it(
    case: Case, options: Mapping[str, Any]
) -> None:
    """Each must list exactly, unrefused."""
    assert_stable(run(case, options))


@pytest.mark.parametrize("options", modes())
@pytest.mark.parametrize(
    "case",
    [
        pytest.param(
            Case(5, 4, {1: [("move", 0), ("remove", 1), ("remove", 2)]}), id="moved-to-the-end"
        ),
        pytest.param(
            Case(
                12,
                5,
                {0: [("insert", 0), ("remove", 0)], 3: [("drop", 0), ("move", 0), ("remove", 2)]},
            ),
            id="moved-past-the-frontier",
        ),
    ],
)
def test_a_record_moved_onto_the_frontier_loses_nothing(
    case: Case, options: Mapping[str, Any]
) -> None:
    """The smallest silent losses under a moving order the property found: after page 1
    (r0-r3 of 5), r0 moved to the end and r1, r2 removed made page 2 at offset 2 `[r0]`, and
    the list ended on it as if r1-r3 were gone: r4, present throughout, was never delivered.
    A page vouched for by one delivered id that is not the newest (or by the list's end) is
    now read again from further back. The list must raise or deliver every record there
    throughout."""
    assert_moved_loses_nothing(run(case, options))
