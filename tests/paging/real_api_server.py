"""One modelled real API as a service, and a measurement of today's client against it.

`RealApiService` is a MockTransport handler answering as a `RealApi` at
`{base_path}/v1/endpoints` (with the API's extension: `/v1/endpoints.json`; and paths below it,
where a model's continuation is a locator path); it counts every request, and answers 410 past
its request budget, so a client that loops is detected rather than waited for. `measure` serves
it on 127.0.0.1:0 (`serve_handler`) and lists the served records with the default client and
its default transport, as a new user would, and classifies the run;
for an API whose list paths end in an extension, the client's endpoints collection lives at
`/v1/endpoints.json` (`client_for`), so every request it sends names that path, as a client of
such an API sends.
"""

from __future__ import annotations

import asyncio
import json
import math
import warnings
from collections.abc import Sequence
from typing import Any, Literal
from unittest import mock

import attrs
from attrs import field, frozen

from remedy_async import (
    CONVENTIONS,
    Convention,
    MockRequest,
    MockResponse,
    PaginationError,
    RemedyClient,
    RemedyError,
    _client,
)
from remedy_async._settings import MAX_PAGE_SIZE
from tests.loopback import CANARY, serve_handler
from tests.paging.real_apis import RealApi, Request, make_records

Outcome = Literal["exact", "refused", "silent-loss", "duplicates", "misordered", "loop"]
OUTCOMES: tuple[Outcome, ...] = (
    "exact",
    "refused",
    "silent-loss",
    "duplicates",
    "misordered",
    "loop",
)
"""Every class a run falls in: every id once in order; a RemedyError; ended without error with
ids missing; an id delivered twice; every id once, out of order; the request budget hit."""

SMALL_PAGE = 7
"""The small page size the second run asks for."""
RUN_TIMEOUT = 30.0
"""Seconds one run may take before it counts as a loop (a guard: runs take far less)."""


def request_budget(api: RealApi, records: int, page_size: int | None) -> int:
    """20 times the pages a list of `records` needs at the smallest size in play (the API's
    default, and the size the client asks for: `page_size`, else its default), plus 20."""
    asked = MAX_PAGE_SIZE if page_size is None else page_size
    sizes = [size for size in (api.default_page_size, asked) if size]
    pages = math.ceil(records / min(sizes)) if sizes else 1
    return 20 * max(1, pages) + 20


class RealApiService:
    """Answer as one modelled API, within a request budget: a MockTransport handler.

    Answers GETs at the API's collection path (and paths below it) with `api.reply()`, any
    other path with a 404; counts every request, and answers 410 past `budget`."""

    def __init__(self, api: RealApi, records: Sequence[dict[str, Any]], budget: int) -> None:
        self.api = api
        self.records = records
        self.budget = budget
        self.requests = 0
        self.exhausted = False

    def __call__(self, request: MockRequest) -> MockResponse:
        self.requests += 1
        if self.requests > self.budget:
            self.exhausted = True
            body = {"error": {"code": "request_budget_exhausted", "message": "loop detected"}}
            return MockResponse.json(410, body)
        path = self.api.collection_path
        if request.path != path and not request.path.startswith(path + "/"):
            return MockResponse.text(404, "404: Not Found")
        if request.method != "GET":
            return MockResponse.text(405, "405: Method Not Allowed")
        reply = self.api.reply(Request(request.url, request.headers), self.records)
        if reply.body is None:
            return MockResponse(reply.status, reply.headers)
        headers = (("Content-Type", "application/json"), *reply.headers)
        return MockResponse(reply.status, headers, json.dumps(reply.body).encode())


@frozen
class Run:
    """One list call's result against one API."""

    api: str
    page_size: int | None
    outcome: Outcome
    delivered: int
    expected: int
    requests: int
    error_type: str | None = None
    error: str | None = None
    warnings: tuple[str, ...] = ()
    suggestion: Convention | None = field(default=None, eq=False)
    """The convention a refusal advised pinning, if it advised one."""
    convention: Convention | None = field(default=None, eq=False)
    """The convention the list followed (`pager.convention`)."""

    @property
    def refused_safely(self) -> bool:
        """A PaginationError before claiming the end, without looping."""
        return self.outcome == "refused" and self.error_type == PaginationError.__name__


def classify(ids: Sequence[str], expected: Sequence[str], *, error: bool, looped: bool) -> Outcome:
    """The class of a run from the ids it delivered and how it ended."""
    if looped:
        return "loop"
    if error:
        return "refused"
    if len(set(ids)) != len(ids):
        return "duplicates"
    if list(ids) == list(expected):
        return "exact"
    return "silent-loss" if set(ids) < set(expected) else "misordered"


async def measure(
    api: RealApi,
    *,
    page_size: int | None = None,
    records: int | None = None,
    paginator: Convention | None = None,
) -> Run:
    """List `api`'s records with the default client (or one pinning `paginator`) and classify
    the run."""
    count = api.sample_size if records is None else records
    served = make_records(count)
    expected = [str(record["id"]) for record in served]
    service = RealApiService(api, served, request_budget(api, count, page_size))
    ids: list[str] = []
    failure: RemedyError | None = None
    timed_out = False
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        async with (
            serve_handler(service) as origin,
            client_for(api, origin + api.base_path, paginator) as client,
        ):
            pager = client.endpoints.list(
                page_size=page_size, extra_params=dict(api.required_params) or None
            )
            try:
                async with asyncio.timeout(RUN_TIMEOUT):
                    async for endpoint in pager:
                        ids.append(endpoint.id)
            except RemedyError as error:
                failure = error
            except TimeoutError:
                timed_out = True
    outcome = classify(
        ids, expected, error=failure is not None, looped=service.exhausted or timed_out
    )
    return Run(
        api=api.name,
        page_size=page_size,
        outcome=outcome,
        delivered=len(ids),
        expected=count,
        requests=service.requests,
        error_type=None if failure is None else type(failure).__name__,
        error=None if failure is None else " ".join(str(failure).split())[:150],
        suggestion=getattr(failure, "suggestion", None),
        convention=pager.convention,
        warnings=tuple(sorted({type(w.message).__name__ for w in caught})),
    )


def client_for(api: RealApi, base_url: str, paginator: Convention | None) -> RemedyClient:
    """The default client (or one pinning `paginator`), its endpoints collection at the API's
    path: `/v1/endpoints`, or `/v1/endpoints.json` for an API whose list paths end in `.json`.

    The library has no setting for a collection's path, so the collection is built with its
    resource's segment spelt with the extension; everything else is the client's own."""
    resource = attrs.evolve(_client.ENDPOINTS, segment=f"endpoints{api.extension}")
    with mock.patch.object(_client, "ENDPOINTS", resource):
        return RemedyClient(base_url, token=CANARY, paginator=paginator)


TABLE = "docs/real-apis.md"
"""The documentation page whose table `scripts/real-apis --markdown` writes from these runs."""


def composed_cell(convention: Convention | None) -> str:
    """The table's "the client composes" cell: a preset's name, or the Convention expression."""
    if convention is None:
        return "nothing (refused on the first page)"
    if CONVENTIONS.get(convention.name) == convention:
        return f"`CONVENTIONS[{convention.name!r}]`"
    return f"`{convention!r}`"


def result_cell(api: RealApi) -> str:
    """The table's result cell: what the default client does with the API, and why."""
    if api.expected == "lists":
        return "lists"
    if api.expected == "refuses":
        return f"refuses: {api.expected_refusal_reason}"
    return f"lists when pinned: {api.expected_refusal_reason}"


def table_rows(markdown: str) -> dict[str, tuple[str, str]]:
    """The (composes, result) cells of the documentation table, by API name."""
    rows: dict[str, tuple[str, str]] = {}
    for line in markdown.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split(" | ")]
        if len(cells) == 4 and not set(cells[0]) <= {"-", ":"} and cells[0] != "API":
            rows[cells[0].split(" *(")[0]] = (cells[2], cells[3])
    return rows
