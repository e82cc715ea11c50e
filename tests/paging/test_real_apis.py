"""Issue 23's target: the default client follows real public APIs' list paging as they are.

Each modelled API of the corpus is served over a loopback socket and listed by the default
client, as a new user would (`RemedyClient(base_url, token=...)`, `client.endpoints.list()`),
with default settings and, where the API has a size parameter, with `page_size=7`. An API whose
documented paging can be listed safely must list every id exactly once, in order; one that no
client can list safely without configuration must raise PaginationError before claiming the
end. Never a prefix without an error, never a loop (the server's request budget catches one).

An API that caps its lists at an odd size with no paging signal at all, and does not read
`limit` (YouTrack's 42), has a first page that reads like a whole list, so it is listed by
pinning its documented convention, which the corpus states as data (`pinned(api.reference)`).
(Discord's default of 1 is not such a cap: the client always asks a page size, as `limit`,
which Discord reads.) Every documented
convention, pinned, lists its API; and every refusal that advises a convention is right: the
advised convention, pinned, lists the API. `scripts/real-apis` prints the table.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from remedy_async import Convention
from tests.paging.real_api_server import (
    SMALL_PAGE,
    TABLE,
    Run,
    composed_cell,
    measure,
    result_cell,
    table_rows,
)
from tests.paging.real_apis import CATALOGUE, RealApi
from tests.paging.real_apis._reference import pinned

IDS = [api.name for api in CATALOGUE]
DOCUMENTED = table_rows((Path(__file__).parents[2] / TABLE).read_text(encoding="utf-8"))
"""The documentation table's rows, by API name."""


def describe(api: RealApi, run: Run) -> str:
    """What went wrong, with what the API looks like, for the failure message."""
    error = f"; {run.error_type}: {run.error}" if run.error_type else ""
    return (
        f"{api.name} (page_size={run.page_size}): {run.outcome}, {run.delivered} of "
        f"{run.expected} ids in {run.requests} requests{error}\n  shape: {api.shape}"
    )


async def runs_of(api: RealApi, paginator: object = None) -> list[Run]:
    """The API listed with default settings and, where it has a size parameter, page_size=7."""
    runs = [await measure(api, paginator=paginator)]  # type: ignore[arg-type]
    if api.size_param is not None:
        runs.append(await measure(api, page_size=SMALL_PAGE, paginator=paginator))  # type: ignore[arg-type]
    return runs


@pytest.mark.parametrize("api", CATALOGUE, ids=IDS)
async def test_the_default_client_lists_the_api_or_refuses_it_safely(api: RealApi) -> None:
    """Every id once in order, or a PaginationError before the end where the docs make safe
    listing impossible; with default settings and with a small page size; as the documentation
    table says."""
    runs = await runs_of(api)
    assert DOCUMENTED.get(api.name) == (composed_cell(runs[0].convention), result_cell(api)), (
        f"{TABLE} is not current: run scripts/real-apis --markdown {TABLE}"
    )
    if api.expected == "lists-when-pinned":
        return  # its default run is not asserted: see the next tests
    for run in runs:
        if api.expected == "lists":
            assert run.outcome == "exact", describe(api, run)
        else:
            assert run.refused_safely, describe(api, run)


@pytest.mark.parametrize("api", CATALOGUE, ids=IDS)
async def test_the_detected_convention_printed_and_pinned_lists_the_api(api: RealApi) -> None:
    """What detection found (`pager.convention`), printed as Convention(...) and pasted back
    as `paginator=`, lists every id once in order: a composed convention is data."""
    for run in await runs_of(api):
        if run.convention is None or api.expected != "lists":
            continue
        pasted = eval(repr(run.convention), {"Convention": Convention})  # its own repr
        assert pasted == run.convention
        (again,) = [
            rerun for rerun in await runs_of(api, pasted) if rerun.page_size == run.page_size
        ]
        assert again.outcome == "exact", describe(api, again)


@pytest.mark.parametrize(
    "api",
    [api for api in CATALOGUE if api.expected == "lists-when-pinned"],
    ids=[api.name for api in CATALOGUE if api.expected == "lists-when-pinned"],
)
async def test_an_api_with_a_silent_odd_cap_lists_with_its_convention_pinned(api: RealApi) -> None:
    """A list capped at an odd size with no paging signal lists exactly with its documented
    convention pinned."""
    for run in await runs_of(api, pinned(api.reference)):
        assert run.outcome == "exact", describe(api, run)


@pytest.mark.parametrize("api", CATALOGUE, ids=IDS)
async def test_a_refusal_that_advises_a_convention_is_right(api: RealApi) -> None:
    """Where the default client refuses and advises a convention, pinning it lists the API."""
    advised = [run for run in await runs_of(api) if run.suggestion is not None]
    for run in advised:
        (again,) = [
            rerun
            for rerun in await runs_of(api, run.suggestion)
            if rerun.page_size == run.page_size
        ]
        assert again.outcome == "exact", describe(api, again)
