"""Issue 23's target: the default client follows real public APIs' list paging as they are.

Each modelled API of the corpus is served over a loopback socket and listed by the default
client, as a new user would (`RemedyClient(base_url, token=...)`, `client.endpoints.list()`),
with default settings and, where the API has a size parameter, with `page_size=7`. An API whose
documented paging can be listed safely must list every id exactly once, in order; one that no
client can list safely without configuration must raise PaginationError before claiming the
end. Never a prefix without an error, never a loop (the server's request budget catches one).

Today's client fails most of these: that is the point (see `scripts/real-apis` for the table).
"""

from __future__ import annotations

import pytest

from tests.paging.real_api_server import SMALL_PAGE, Run, measure
from tests.paging.real_apis import CATALOGUE, RealApi


def describe(api: RealApi, run: Run) -> str:
    """What went wrong, with what the API looks like, for the failure message."""
    error = f"; {run.error_type}: {run.error}" if run.error_type else ""
    return (
        f"{api.name} (page_size={run.page_size}): {run.outcome}, {run.delivered} of "
        f"{run.expected} ids in {run.requests} requests{error}\n  shape: {api.shape}"
    )


@pytest.mark.parametrize("api", CATALOGUE, ids=[api.name for api in CATALOGUE])
async def test_the_default_client_lists_the_api_or_refuses_it_safely(api: RealApi) -> None:
    """Every id once in order, or a PaginationError before the end where the docs make safe
    listing impossible; with default settings and with a small page size."""
    runs = [await measure(api)]
    if api.size_param is not None:
        runs.append(await measure(api, page_size=SMALL_PAGE))
    for run in runs:
        if api.expected == "lists":
            assert run.outcome == "exact", describe(api, run)
        else:
            assert run.refused_safely, describe(api, run)
