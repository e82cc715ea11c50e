"""The default client against any composition of paging axes (issue 23's generative test).

The simulator composes each list's responses from independent choices on every axis (the items'
key and depth; the continuation's kind, place, spelling and depth; its request parameter; the
end evidence; flags, totals and page counts in the body or headers; echoed positions and sizes;
backward and redundant continuations; link forms; silent caps of a round default size), over
real sockets. Whatever it draws, the default client lists every id exactly once in order, or
raises PaginationError before claiming the end: never a prefix without an error, never an
endless loop (a request budget stops one), never a repeat. A refusal that advises a convention
is right: pinning it lists the same service.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from remedy_async import (
    ClientEvent,
    ContractDriftWarning,
    Convention,
    PaginationError,
    RemedyClient,
)
from remedy_async.simulator import Composition
from tests.budget import examples
from tests.paging.compositions import (
    ComposedService,
    composed_service,
    compositions,
    serving_compositions,
)

__all__ = ["composed_service"]

RESOURCES = ("scopes", "endpoints", "remediation-targets")
SIZES = st.one_of(st.none(), st.integers(min_value=1, max_value=30))
EXTRA_REQUESTS = 30
"""Requests a list may spend beyond one per page of at least one record (guesses, checks)."""


class Listing:
    """What one list call did: the ids delivered, how it ended, and how many requests it sent."""

    def __init__(self, budget: int) -> None:
        self.ids: list[str] = []
        self.error: PaginationError | None = None
        self.requests = 0
        self.budget = budget
        self.convention: Convention | None = None

    def saw(self, event: ClientEvent) -> None:
        if event.kind == "request":
            self.requests += 1

    @property
    def looped(self) -> bool:
        return self.requests > self.budget


def list_once(
    service: ComposedService,
    composition: Composition,
    resource: str,
    page_size: int | None,
    paginator: Convention | None = None,
) -> Listing:
    """List `resource` of the composed service once, stopping past the request budget."""
    expected = service.expected_ids(resource)
    listing = Listing(len(expected) + EXTRA_REQUESTS)

    async def scenario() -> None:
        async with RemedyClient(
            service.url,
            headers=service.headers(composition),
            event_hooks=[listing.saw],
            paginator=paginator,
        ) as client:
            pager = getattr(client, resource.replace("-", "_")).list(page_size=page_size)
            try:
                async for record in pager:
                    listing.ids.append(record.id)
                    if listing.looped:
                        break
            except PaginationError as error:
                listing.error = error
            listing.convention = pager.convention

    with warnings.catch_warnings():  # a guess kept is told as a ContractDriftWarning
        warnings.simplefilter("ignore", ContractDriftWarning)
        service.run(scenario())
    return listing


def assert_exact_or_refused(listing: Listing, expected: list[str], what: str) -> None:
    """Every id once in order; or a prefix of them, then PaginationError; within budget."""
    assert not listing.looped, f"{what}: {listing.requests} requests (a loop)"
    if listing.error is None:
        assert listing.ids == expected, f"{what}: ended after {len(listing.ids)} of {len(expected)}"
    else:
        assert listing.ids == expected[: len(listing.ids)], f"{what}: repeated or skipped"


@given(
    composition=compositions(),
    resource=st.sampled_from(RESOURCES),
    page_size=SIZES,
)
@settings(
    max_examples=examples(400),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
def test_any_composition_is_listed_exactly_or_refused_before_its_end(
    composed_service: ComposedService,
    composition: Composition,
    resource: str,
    page_size: int | None,
) -> None:
    """The default client lists every id once in order, or raises PaginationError after a
    prefix of them; it never ends early without an error, never repeats, never loops."""
    expected = composed_service.expected_ids(resource)
    listing = list_once(composed_service, composition, resource, page_size)
    assert_exact_or_refused(listing, expected, str(composition))
    suggestion = None if listing.error is None else listing.error.suggestion
    if isinstance(suggestion, Convention):
        pinned = list_once(composed_service, composition, resource, page_size, suggestion)
        assert pinned.error is None, f"{composition}: advised {suggestion!r}: {pinned.error}"
        assert pinned.ids == expected


@given(composition=compositions(), page_size=SIZES)
@settings(
    max_examples=examples(150),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
def test_a_composition_followed_once_lists_the_same_when_pinned(
    composed_service: ComposedService, composition: Composition, page_size: int | None
) -> None:
    """What detection composed (`pager.convention`), pinned as `paginator=`, lists the same ids."""
    first = list_once(composed_service, composition, "scopes", page_size)
    if first.error is not None or first.convention is None:
        return
    again = list_once(composed_service, composition, "scopes", page_size, first.convention)
    assert (again.error, again.ids) == (None, first.ids), str(composition)


@pytest.fixture(scope="module")
def based_service() -> Iterator[ComposedService]:
    """A composed service under a base path, as Confluence's `/wiki/rest/api`."""
    with serving_compositions(base_path="/wiki/rest/api") as service:
        yield service


@given(composition=compositions(), page_size=SIZES)
@settings(
    max_examples=examples(150),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
def test_a_service_under_a_base_path_is_listed_exactly_or_refused(
    based_service: ComposedService, composition: Composition, page_size: int | None
) -> None:
    """Links relative to the origin, to the base path, or absolute: exact, or refused."""
    listing = list_once(based_service, composition, "scopes", page_size)
    assert_exact_or_refused(listing, based_service.expected_ids("scopes"), str(composition))
