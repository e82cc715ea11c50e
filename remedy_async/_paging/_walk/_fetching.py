"""Fetches a page whose request is a guess, or a list's first request, with a way around a 400.

A list's first request carries the page size under the published name, `limit`; a service that
refuses it as an unknown parameter (400) gets it again as `pageSize`, and the user is told.
A guess (a request carrying a `Probe`) that the service refuses (400, or 422 for a value it cannot
read, as a FastAPI service answers a page number sent where it reads an id) gives way to the
next guess; when none is left, the list ends, or stops with the probe's refusal.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence

from remedy_async._errors import (
    BadRequestError,
    ContractDriftWarning,
    PaginationError,
    UnprocessableEntityError,
)
from remedy_async._paging._protocol import FetchPage, PageRequest
from remedy_async._redact import scrub_error
from remedy_async._wire._http import JSONResponse


async def fetch_first(
    fetch: FetchPage, request: PageRequest, fallbacks: Sequence[PageRequest]
) -> tuple[PageRequest, JSONResponse]:
    """The response to a list's first request, or to the first fallback the service accepts;
    the first refusal when it accepts none."""
    refused: BadRequestError | None = None
    for attempt in (request, *fallbacks):
        try:
            response = await fetch(attempt)
        except BadRequestError as error:
            refused = refused or error
            continue
        if attempt is not request:
            sent = dict(attempt.params)
            dropped = sorted({name for name, _ in request.params} - set(sent))
            instead = sorted(set(sent) - {name for name, _ in request.params})
            warnings.warn(
                ContractDriftWarning(
                    "the service refused the list's first request with the page size "
                    f"parameter {', '.join(dropped)} (400 Bad Request); listing with "
                    f"{', '.join(instead) or 'no page size'} instead"
                ),
                stacklevel=5,
            )
        return attempt, response
    assert refused is not None
    raise refused


async def fetch_guess(
    fetch: FetchPage, request: PageRequest, secrets: Sequence[str]
) -> tuple[PageRequest, JSONResponse | None]:
    """The response to a guess, or to the first later guess the service does not refuse (400 or
    422); None when it refuses every one and nothing announced more."""
    while True:
        try:
            return request, await fetch(request)
        except (BadRequestError, UnprocessableEntityError) as refused:
            probe = request.probe
            assert probe is not None
            following = probe.next_try()
            if following is not None:
                request = following
                continue
            if probe.refusal is None:
                return request, None
            error = PaginationError(probe.refusal, method="GET", url=refused.url)
            error.suggestion = None
            scrub_error(error, secrets)
            raise error from refused
