"""Composed paging modes for generative tests: a Hypothesis strategy and a simulator serving them.

`compositions()` draws a `Composition` with every axis chosen independently (the item array's
path and depth, the continuation's kind, place, spelling and depth, the request parameter, the
end evidence, flags, totals and page counts in the body or headers, echoed position and size,
backward and redundant continuations, link forms, default and maximum page sizes), with only
the coherence the simulator needs (a Link holds URLs, `end=flag` needs a flag, a bare array
body has no body signals, ...) and one that only makes a client's task possible: an offset,
page or keyset list that shows no evidence of more records (no flag, total or page count) reads
the parameter a client would try (`offset`, `page`, `after`; see `PROBED`), since nothing could
tell another one from a complete list. One in five examples is such a silent cap, with a round
default page size. Small `default_sizes` (3, 5, 7) make short walks for tests that read the
composition itself; a client can only verify a signal-free page of a round or asked size.

One simulator serves every example, each request naming its composition in the
`X-Simulator-Paging` header (`ComposedService.headers`):

    from tests.paging.compositions import ComposedService, composed_service, compositions

    @given(composition=compositions())
    def test_lists_every_id(composed_service: ComposedService, composition: Composition) -> None:
        async def scenario() -> list[str]:
            async with RemedyClient(composed_service.url,
                                    headers=composed_service.headers(composition)) as client:
                return [item.id for item in await client.scopes.list().collect()]
        assert composed_service.run(scenario()) == composed_service.expected_ids("scopes")

`serving_compositions(**config)` starts another such simulator (a base path, echo mode, ...);
`serve_composition(composition, **config)` is the async form, for a test already in a loop.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Coroutine, Iterator, Sequence
from contextlib import asynccontextmanager, contextmanager
from typing import Any, TypeVar

import attrs
import pytest
from hypothesis import strategies as st

from remedy_async._settings import MAX_PAGE_SIZE
from remedy_async.simulator import Composition, Simulator, SimulatorConfig

T = TypeVar("T")
Path = tuple[str, ...]
PAGING_HEADER = "X-Simulator-Paging"
SERVICE_SIZE = 20
"""Endpoints of the shared simulator: 20 endpoints, 24 scopes, 55 remediation targets and about
400 findings, so small page sizes give lists of a few pages to a few dozen."""
ROUND_SIZES = (25, 50, 100, 200, 250, 500, 1000)
"""Default page sizes of services that cap lists silently."""

NAMINGS = ("camel", "snake", "pascal", "kebab")
ITEM_KEYS = (
    "items", "data", "results", "value", "values", "records", "entries", "rows", "resources",
    "result", "content", "nodes", "collection", "response", "Items", "children",
    "{resource}", "{resource:snake}", "{resource:pascal}", "{resource:kebab}",
)  # fmt: skip
ENVELOPES = ("data", "result", "response", "_embedded", "payload", "body", "list")
CONTAINERS: tuple[Path, ...] = (
    (), (), ("meta",), ("paging",), ("pagination",), ("meta", "pagination"),
    ("response_metadata",), ("additional_data", "pagination"), ("links",), ("pageInfo",),
    ("result_info",), ("page",),
)  # fmt: skip
"""Objects that hold paging signals (the empty path twice: the top level is the most common)."""
NEXT_WORDS = (
    "next cursor", "next page token", "next token", "next link", "next page url", "next",
    "next start", "next marker", "next url", "continuation token", "next page", "after",
)  # fmt: skip
NEXT_PATHS: tuple[Path, ...] = (
    ("next_cursor",), ("nextPageToken",), ("NextToken",), ("next-cursor",), ("nextLink",),
    ("next_page_url",), ("paging", "next", "after"), ("meta", "pagination", "next_cursor"),
    ("additional_data", "pagination", "next_start"), ("response_metadata", "next_cursor"),
    ("links", "pages", "next"), ("_links", "next", "href"), ("NextMarker",), ("next",),
)  # fmt: skip
NEXT_HEADERS = (
    "X-Next-Cursor", "X-Next-Page", "X-MS-ContinuationToken", "Next-Range", "X-Continuation",
    "X-Next-Token", "X-Pagination-Next",
)  # fmt: skip
PARAMS = (
    "cursor", "pageToken", "page_token", "after", "start", "offset", "skip", "startAt",
    "startIndex", "page", "page[cursor]", "NextToken", "marker", "starting_after", "after_id",
    "continuationToken", "next", "from", "$skiptoken", "pageNumber",
)  # fmt: skip
HEADER_PARAMS = ("X-Continuation", "x-ms-continuation", "X-Cursor", "X-Page-Token")
SIZE_PARAMS = (
    "limit", "pageSize", "page_size", "per_page", "maxResults", "size", "count", "$top",
    "MaxResults", "page[size]", "pagelen", "top",
)  # fmt: skip
MORE_WORDS = ("has more", "has next page", "more items in collection", "is truncated", "more")
LAST_WORDS = ("last", "is last", "done", "end of stream", "is last page", "last page")
TOTAL_WORDS = ("total", "total count", "total results", "total items", "total size", "count")
TOTAL_HEADERS = ("X-Total-Count", "X-Total", "Total-Count", "X-Total-Results")
PAGES_WORDS = ("total pages", "last page", "page count", "pages")
PAGES_HEADERS = ("X-Total-Pages", "X-Page-Count")
POSITION_WORDS = ("offset", "start", "start at", "page", "number", "current page", "start index")
SIZE_WORDS = ("limit", "page size", "per page", "max results", "size")
PREV_PATHS: tuple[Path, ...] = (
    ("prev",), ("previous",), ("before_cursor",), ("previous_token",), ("startCursor",),
    ("paging", "cursors", "before"), ("pageInfo", "startCursor"), ("prevPageToken",),
    ("links", "prev"), ("previous_page_url",),
)  # fmt: skip
ALSO_PATHS: tuple[Path, ...] = (("_links", "next", "href"), ("links", "next"), ("next_url",))
FOLLOWS = ("none", *(("url", "token", "number", "keyset", "offset", "page", "page-token") * 2))
"""Continuation kinds, an unpaged list half as likely as each paged kind."""
PROBED = {"offset": "offset", "page": "page", "keyset": "after"}
"""The parameter a client tries for each computed continuation when a list shows no signal
(issue 23: `offset`=count, `page`=2, `after`=the last id)."""
ENDS_BY_PLACE = {
    "body": ("null", "absent", "blank", "flag", "empty"),
    "header": ("absent", "blank", "flag", "empty"),
    "link": ("absent", "flag", "empty", "link-false", "link-false"),
}


def spelled(words: str, naming: str) -> str:
    """`"next page token"` as `naming` spells it: nextPageToken, next_page_token, ..."""
    parts = words.split()
    if naming == "snake":
        return "_".join(parts)
    if naming == "kebab":
        return "-".join(parts)
    if naming == "pascal":
        return "".join(part.title() for part in parts)
    return parts[0] + "".join(part.title() for part in parts[1:])


def signal_paths(words: Sequence[str], real: Sequence[Path] = ()) -> st.SearchStrategy[Path]:
    """A signal's body path: one of `words` in any spelling under any container (depth 1 to
    3), or one of the `real` paths public APIs use."""
    made = st.builds(
        lambda container, word, naming: (*container, spelled(word, naming)),
        st.sampled_from(CONTAINERS),
        st.sampled_from(words),
        st.sampled_from(NAMINGS),
    )
    return st.one_of(made, st.sampled_from(real)) if real else made


@st.composite
def item_paths(draw: st.DrawFn) -> Path:
    """Where the item array is: the bare body, or a path of depth 1 to 3."""
    depth = draw(st.sampled_from((0, 1, 1, 1, 2, 2, 3)))
    if depth == 0:
        return ()
    outer = draw(st.lists(st.sampled_from(ENVELOPES), min_size=depth - 1, max_size=depth - 1))
    return (*outer, draw(st.sampled_from(ITEM_KEYS)))


def _signal(draw: st.DrawFn, bare: bool, words: Sequence[str], headers: Sequence[str]) -> Any:
    """A body path or a header for a count; a header only when the body is a bare array."""
    if bare or draw(st.booleans()):
        return f"header:{draw(st.sampled_from(headers))}"
    return draw(signal_paths(words))


@st.composite
def compositions(
    draw: st.DrawFn, default_sizes: Sequence[int | None] = (None, *ROUND_SIZES)
) -> Composition:
    """A composition with every axis drawn independently (see the module's doc);
    `default_sizes` are the default page sizes to draw from (None: the run's)."""
    if draw(st.integers(0, 4)) == 0:
        return draw(silent_caps(default_sizes))
    items = draw(item_paths())
    bare = not items
    follow = draw(st.sampled_from(FOLLOWS))
    fields: dict[str, Any] = {"follow": follow, "items": items}
    flag = None if bare else draw(st.sampled_from((None, None, "more", "last")))
    if flag == "more":
        fields["more_at"] = draw(signal_paths(MORE_WORDS))
    elif flag == "last":
        fields["last_at"] = draw(signal_paths(LAST_WORDS))
    if draw(st.booleans()):
        fields["total"] = _signal(draw, bare, TOTAL_WORDS, TOTAL_HEADERS)
    if draw(st.integers(0, 3)) == 0:
        fields["pages"] = _signal(draw, bare, PAGES_WORDS, PAGES_HEADERS)
    if follow != "none":
        evidence = flag is not None or "total" in fields or "pages" in fields
        fields.update(draw(_continuation(follow, bare, flag is not None, evidence)))
        fields["default_size"] = size = draw(st.sampled_from(default_sizes))
        if size is not None and draw(st.booleans()):
            fields["max_size"] = draw(st.sampled_from((size, size * 2, max(1000, size))))
    try:
        return Composition(**fields)
    except ValueError:
        # Two drawn paths overlap (`total` inside `next`, ...): a service could not do that.
        return draw(st.nothing())


@st.composite
def _continuation(
    draw: st.DrawFn, follow: str, bare: bool, flagged: bool, evidence: bool
) -> dict[str, Any]:
    """The axes of a paged list: continuation, parameters, end, echoes, backward and
    redundant continuations, link form. A computed continuation with no evidence of more
    records (no flag, total or page count) takes the parameter such services use (see
    `PROBED`): nothing could tell another one from a complete list."""
    fields: dict[str, Any] = {}
    silent = follow in PROBED and not evidence
    header_param = follow != "url" and not silent and draw(st.integers(0, 5)) == 0
    name = draw(st.sampled_from(HEADER_PARAMS if header_param else PARAMS))
    if silent:
        name = PROBED[follow]
    fields["param"] = name
    fields["param_in"] = "header" if header_param else "query"
    fields["size_param"] = draw(st.one_of(st.none(), st.sampled_from(SIZE_PARAMS)))
    if follow in ("page", "page-token"):
        fields["first_page"] = draw(st.sampled_from((0, 1)))
    if follow in ("url", "token", "number", "page-token"):
        places = ("body", "header", "link", "link") if follow == "url" else ("body", "header")
        place = draw(st.sampled_from([place for place in places if place != "body" or not bare]))
        if place == "body":
            fields["next"] = draw(signal_paths(NEXT_WORDS, NEXT_PATHS))
        else:
            header = "Link" if place == "link" else draw(st.sampled_from(NEXT_HEADERS))
            fields["next"] = f"header:{header}"
        ends = [end for end in ENDS_BY_PLACE[place] if end != "flag" or flagged]
        fields["end"] = draw(st.sampled_from(ends))
        also = draw(st.sampled_from((None, None, "link", "header", "body")))
        urls_allowed = not header_param
        if also == "link" and place != "link" and urls_allowed:
            fields["also"] = "header:Link"
        elif also == "header" and place != "header":
            fields["also"] = "header:X-Next-Page"
        elif also == "body" and not bare and urls_allowed:
            fields["also"] = draw(st.sampled_from(ALSO_PATHS))
    if follow in ("offset", "page", "number", "page-token") and not bare and draw(st.booleans()):
        fields["position_at"] = draw(signal_paths(POSITION_WORDS))
        fields["position_shows"] = draw(st.sampled_from(("served", "served", "served", "next")))
    if not bare and draw(st.booleans()):
        fields["size_at"] = draw(signal_paths(SIZE_WORDS))
    prev = draw(st.sampled_from((None, None, "body", "link")))
    if prev == "body" and not bare:
        fields["prev"] = draw(st.sampled_from(PREV_PATHS))
    elif prev == "link" and not header_param:
        fields["prev"] = "header:Link"
    fields["links"] = draw(st.sampled_from(("absolute", "root", "base")))
    return fields


def allowed_page_size(composition: Composition, page_size: int | None) -> int:
    """The page size a test asks of `composition`: `page_size`, or the client's default (100)
    when None, lowered to the composition's maximum when it has a smaller one (a service
    answers a larger `limit` with a 422, as a FastAPI service does: see
    `test_a_default_page_size_above_a_services_maximum_is_its_422`)."""
    asked = MAX_PAGE_SIZE if page_size is None else page_size
    return asked if composition.max_size is None else min(asked, composition.max_size)


@st.composite
def silent_caps(draw: st.DrawFn, default_sizes: Sequence[int | None] = ROUND_SIZES) -> Composition:
    """A list capped without any signal: a bare array or a plain envelope of a fixed default
    size, while the service honours `offset` (and `limit`), `page` or `after=<last id>`."""
    follow = draw(st.sampled_from(sorted(PROBED)))
    return Composition(
        follow=follow,
        items=draw(st.sampled_from(((), ("items",), ("data",), ("results",), ("value",)))),
        param=PROBED[follow],
        size_param=draw(st.sampled_from((None, "limit", "per_page"))),
        default_size=draw(st.sampled_from([size for size in default_sizes if size] or [100])),
    )


@attrs.define
class ComposedService:
    """A running simulator that serves any composition named in a request's header."""

    runner: asyncio.Runner
    simulator: Simulator

    @property
    def url(self) -> str:
        """The simulator's base URL (with its base path, if any)."""
        return self.simulator.url

    @staticmethod
    def headers(composition: Composition) -> dict[str, str]:
        """The request headers that make the simulator serve `composition`."""
        return {PAGING_HEADER: str(composition)}

    def run(self, coroutine: Coroutine[Any, Any, T]) -> T:
        """Run a coroutine in the simulator's event loop (tests drive clients with it)."""
        return self.runner.run(coroutine)

    def expected_ids(self, resource: str, filters: dict[str, Any] | None = None) -> list[str]:
        """The ids a complete list of `resource` (with `filters`) has, in order."""
        return list(self.simulator.dataset.ids(resource, filters))


@contextmanager
def serving_compositions(**config: Any) -> Iterator[ComposedService]:
    """A simulator (`SERVICE_SIZE` endpoints unless told) in an event loop of its own."""
    options: dict[str, Any] = {"size": SERVICE_SIZE, **config}
    with asyncio.Runner() as runner:
        simulator = Simulator(SimulatorConfig(**options))
        runner.run(simulator.start())
        try:
            yield ComposedService(runner, simulator)
        finally:
            runner.run(simulator.stop())


@asynccontextmanager
async def serve_composition(composition: Composition, **config: Any) -> AsyncIterator[Simulator]:
    """A simulator whose run serves `composition` (no header needed), in the running loop."""
    options: dict[str, Any] = {"size": SERVICE_SIZE, **config, "paging": str(composition)}
    async with Simulator(SimulatorConfig(**options)) as simulator:
        yield simulator


@pytest.fixture(scope="module")
def composed_service() -> Iterator[ComposedService]:
    """One simulator for a module's examples: each request names its composition."""
    with serving_compositions() as service:
        yield service
