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

import asyncio
import json
import re
import sys
import warnings
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st

from remedy_async import (
    ClientEvent,
    ContractDriftWarning,
    Convention,
    DuplicateItemWarning,
    PaginationError,
    RemedyClient,
    UnprocessableEntityError,
)
from remedy_async.simulator import Composition
from tests.budget import examples
from tests.paging.compositions import (
    ComposedService,
    allowed_page_size,
    composed_service,
    compositions,
    serving_compositions,
)

__all__ = ["composed_service"]

RESOURCES = ("scopes", "endpoints", "remediation-targets")
SIZES = st.one_of(st.none(), st.integers(min_value=1, max_value=30))
"""Page sizes asked (None: the client's default, 100), each lowered to the composition's maximum
(`allowed_page_size`)."""
ADVISED = re.compile(r"paginator=remedy_async\.(Convention\(.*?'<its parameter>'.*?\))(?: |$)")
"""The Convention(...) a refusal prints with its undecided parameter marked."""
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
    size = allowed_page_size(composition, page_size)

    async def scenario() -> None:
        async with RemedyClient(
            service.url,
            headers=service.headers(composition),
            event_hooks=[listing.saw],
            paginator=paginator,
        ) as client:
            pager = getattr(client, resource.replace("-", "_")).list(page_size=size)
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
        # Pages overlapping (a page number the service reads as an offset, echoed as `page`)
        # are told as DuplicateItemWarning; what this suite holds is the ids delivered.
        warnings.simplefilter("ignore", DuplicateItemWarning)
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
@example(  # a zero-based list echoing the next page: the lie shows on the empty page
    composition=Composition.parse(
        "compose:follow=page,param=page,first=0,position=page,position-shows=next,default=50"
    ),
    resource="remediation-targets",
    page_size=None,
)
@example(  # a page number under an offset's name, echoed: offset 50 is page 50, empty, though
    # the first page said hasMore; the guess is refuted, never the list's silent end
    composition=Composition.parse(
        "compose:follow=page,param=startAt,first=0,more=hasMore,position=startAt"
    ),
    resource="remediation-targets",
    page_size=None,
)
@example(  # a page number under an offset's name, silently capped at 50, two pages in a
    # header: offset 50 is page 50, empty, and the page count says it is not the end
    composition=Composition.parse(
        "compose:follow=page,items=-,param=offset,first=0,pages=header:X-Total-Pages"
    ),
    resource="remediation-targets",
    page_size=None,
)
@example(  # a page number read as an offset: page 1 is the list from its second record
    composition=Composition.parse("compose:follow=offset,param=page,pages=header:X-Total-Pages"),
    resource="endpoints",
    page_size=20,
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
@example(  # a full first page saying hasMore=false: the guessed page convention reads the flag
    composition=Composition.parse("compose:follow=page,param=page,first=0,more=hasMore"),
    page_size=24,  # the simulator's scopes, exactly
)
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
@example(  # a full first page saying hasMore=false: the guessed page convention reads the flag
    composition=Composition.parse("compose:follow=page,param=page,first=0,more=hasMore"),
    page_size=24,  # the simulator's scopes, exactly
)
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


@given(
    composition=compositions(),
    page_size=SIZES,
    stop=st.integers(min_value=1, max_value=40),
)
@settings(
    max_examples=examples(200),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
def test_a_resume_token_taken_anywhere_continues_exactly(
    composed_service: ComposedService, composition: Composition, page_size: int | None, stop: int
) -> None:
    """A composed list stopped after any item resumes from its token, in a new client, with
    nothing lost and nothing repeated."""
    expected = composed_service.expected_ids("scopes")
    head: list[str] = []
    tail: list[str] = []
    size = allowed_page_size(composition, page_size)

    async def scenario() -> str | None:
        headers = composed_service.headers(composition)
        async with RemedyClient(composed_service.url, headers=headers) as client:
            pager = client.scopes.list(page_size=size)
            async for record in pager:
                head.append(record.id)
                if len(head) == stop:
                    break
            token = pager.resume_token
        async with RemedyClient(composed_service.url, headers=headers) as fresh:
            async for record in fresh.scopes.list(page_size=size, resume_token=token):
                tail.append(record.id)
        return token

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ContractDriftWarning)
        try:
            token = composed_service.run(scenario())
        except PaginationError:
            assume(False)  # a refused composition: the generative test above covers those
    if token is None:  # the list was complete before `stop` items: nothing to resume
        assert (head, tail) == (expected, expected), str(composition)
    else:
        assert head + tail == expected, str(composition)


def test_a_resume_token_continues_a_composed_list_in_another_process(
    composed_service: ComposedService,
) -> None:
    """A token taken mid-page from a composed list (a nested token, a header total, a backward
    cursor) resumes exactly in another Python process."""
    composition = Composition.parse(
        "compose:follow=token,items=response.values,next=meta.pagination.next_cursor,"
        "param=cursor,end=blank,total=header:X-Total-Count,prev=meta.pagination.prev_cursor,"
        "default=7"
    )
    expected = composed_service.expected_ids("scopes")

    async def head() -> tuple[list[str], str | None]:
        headers = composed_service.headers(composition)
        async with RemedyClient(composed_service.url, headers=headers) as client:
            pager = client.scopes.list()
            ids = []
            async for record in pager:
                ids.append(record.id)
                if len(ids) == 10:  # mid-way through page 2
                    break
            assert pager.convention is not None
            assert pager.convention.follow == "token"
            return ids, pager.resume_token

    ids, token = composed_service.run(head())
    assert token is not None
    script = (
        "import asyncio, json, sys\n"
        "from remedy_async import RemedyClient\n"
        "url, header, token = sys.argv[1:4]\n"
        "async def main():\n"
        "    async with RemedyClient(url, headers={'X-Simulator-Paging': header}) as client:\n"
        "        pager = client.scopes.list(resume_token=token)\n"
        "        print(json.dumps([record.id async for record in pager]))\n"
        "asyncio.run(main())\n"
    )

    async def resumed_elsewhere() -> bytes:
        process = await asyncio.create_subprocess_exec(
            sys.executable, "-c", script, composed_service.url, str(composition), token,
            stdout=asyncio.subprocess.PIPE,
        )  # fmt: skip
        out, _ = await process.communicate()
        assert process.returncode == 0
        return out

    assert ids + json.loads(composed_service.run(resumed_elsewhere())) == expected


def possible(spec: str) -> bool:
    """Whether the simulator can serve a spec (checked by parsing it)."""
    try:
        Composition.parse(spec)
    except ValueError:
        return False
    return True


UNDERIVABLE = (
    st.builds(
        "compose:follow={},items={},next={},param={},end={},default=7".format,
        st.sampled_from(["token", "url", "number"]),
        st.sampled_from(["items", "data.rows", "result", "-"]),
        st.sampled_from(["next_cursor", "meta.pagination.nextPageToken", "header:X-Next-Cursor"]),
        st.sampled_from(["$skiptoken", "pageKey", "fromToken", "position_marker"]),
        st.sampled_from(["null", "absent", "blank"]),
    )
    .filter(possible)
    .map(Composition.parse)
)
"""Continuations sent back in a parameter no rule derives from their name."""


@given(composition=UNDERIVABLE, page_size=SIZES)
@settings(
    max_examples=examples(100),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
def test_a_refusal_that_leaves_the_parameter_open_lists_once_it_is_filled_in(
    composed_service: ComposedService, composition: Composition, page_size: int | None
) -> None:
    """A refusal printing `Convention(..., param='<its parameter>')`, with the service's
    parameter filled in and pinned, delivers every record in order (what it left undecided was
    all that was missing; a contradicting end after them may still be refused)."""
    listing = list_once(composed_service, composition, "scopes", page_size)
    printed = ADVISED.search(str(listing.error)) if listing.error is not None else None
    assume(printed is not None and composition.convention.param_in == "query")
    assert printed is not None
    text = printed.group(1).replace("'<its parameter>'", repr(composition.convention.param))
    advised = eval(text, {"Convention": Convention})  # the message's own expression
    pinned = list_once(composed_service, composition, "scopes", page_size, advised)
    assert pinned.ids == composed_service.expected_ids("scopes"), f"{composition}: {text}"


def test_a_default_page_size_above_a_services_maximum_is_its_422(
    composed_service: ComposedService,
) -> None:
    """The client asks 100 a page by default; a service whose `limit` stops at 25 refuses it
    with its 422 (its message in the typed error) before any record, and lists exactly when
    asked a page size it allows."""
    composition = Composition.parse("compose:follow=offset,param=offset,size=limit,max=25")
    expected = composed_service.expected_ids("scopes")

    async def scenario(page_size: int | None) -> list[str]:
        headers = composed_service.headers(composition)
        async with RemedyClient(composed_service.url, headers=headers) as client:
            return [record.id async for record in client.scopes.list(page_size=page_size)]

    with pytest.raises(UnprocessableEntityError, match="limit must be between 1 and 25"):
        composed_service.run(scenario(None))
    assert composed_service.run(scenario(25)) == expected
