"""Composed paging modes (`compose:...`): the simulator serves any combination of paging axes.

Proven without the client's detector: for compositions drawn by `tests.paging.compositions`, a
reference walker that follows what the composition says (`compose_walker`) lists every id once
in order, for several page sizes, with filters, under a base path and in echo mode; the text
form round-trips, bad specs are refused naming the bad part.

Composed modes keep the simulator's guarantees: forged cursors are 400 invalid_cursor wherever
the continuation travels (query or request header), bad positions and page sizes are 422
invalid_parameter within the composition's own bounds, hidden records leave offsets and totals
while cursors and keyset ids resume after their place, expired-cursor faults hit requests that
carry a continuation, and a seed gives the same pages every time.

The named conventions, written as compositions, serve the same pages: every row of
`remedy_async.CONVENTIONS` is a composition written in the text form (`odata`'s dotted key as
`@odata%2EnextLink`, `link`'s rel="first" as `start=header:Link`); the simulator serves each both
ways, and every page (body and paging headers) is the same. The first page's URL (`start`)
goes in a body or a Link header on every page, and a key with a dot round-trips.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import aiohttp
import orjson
import pytest
import pytest_asyncio
from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st
from yarl import URL

from remedy_async import CONVENTIONS, Convention
from remedy_async.simulator import Composition, FaultSpec, Simulator, SimulatorConfig
from remedy_async.simulator.__main__ import main
from tests.budget import examples
from tests.paging.compositions import (
    ComposedService,
    composed_service,
    compositions,
    serving_compositions,
)

from .compose_walker import walk_composition
from .helpers import StartSimulator, get_json, message_of
from .walker import PAGING_HEADER, dig, items_path, next_target

__all__ = ["composed_service"]

SMALL_SIZES = (3, 5, 7)
"""Default page sizes that make the shared simulator's lists a few pages long."""
CASES = (
    ("scopes", ()),
    ("endpoints", ()),
    ("endpoints", (("osFamily", "windows"), ("osFamily", "linux"))),
    ("endpoints", (("osFamily", "macos"), ("hasAgent", "true"))),
    ("remediation-targets", (("note", "undeclared: ignored"),)),
)
"""Lists to walk: whole collections, and filtered ones (filters, and a parameter the list
ignores, ride in every next link)."""
DECLARED = frozenset({"osFamily", "hasAgent"})
"""The published filters (of endpoints)."""
CREDENTIAL = "s3cr3t-echo"
WALKS = settings(
    max_examples=examples(120),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)


def expected(
    service: ComposedService, resource: str, filters: tuple[tuple[str, str], ...]
) -> list[str]:
    """The ids of the list, in order (a parameter the list does not declare changes none)."""
    wanted: dict[str, list[str]] = {}
    for name, value in filters:
        if name in DECLARED:
            wanted.setdefault(name, []).append(value)
    return service.expected_ids(resource, wanted or None)


def walked_ids(
    service: ComposedService,
    composition: Composition,
    case: tuple[str, tuple[tuple[str, str], ...]],
    size: int | None,
    **options: object,
) -> tuple[list[str], list[str]]:
    """(walked, expected) ids of one list of `service` by the reference walker."""
    resource, filters = case
    if size is not None and composition.max_size is not None:
        size = min(size, composition.max_size)
    note(f"{composition} on {resource} {filters} size={size}")
    ids = expected(service, resource, filters)

    async def scenario() -> list[str]:
        async with aiohttp.ClientSession() as session:
            walk = await walk_composition(
                session, service.url, resource, composition, expected_total=len(ids),
                size=size, filters=filters, **options,  # type: ignore[arg-type]
            )  # fmt: skip
            return walk.ids

    return service.run(scenario()), ids


@given(composition=compositions())
def test_the_text_form_round_trips(composition: Composition) -> None:
    """`Composition.parse(str(c)) == c`, and the text is a valid run paging."""
    assert Composition.parse(str(composition)) == composition
    assert SimulatorConfig(paging=str(composition)).paging == str(composition)


@given(
    composition=compositions(SMALL_SIZES),
    case=st.sampled_from(CASES),
    size=st.sampled_from((None, 1, 4, 9)),
)
@WALKS
def test_every_composition_lists_every_id_once_in_order(
    composed_service: ComposedService,
    composition: Composition,
    case: tuple[str, tuple[tuple[str, str], ...]],
    size: int | None,
) -> None:
    """Walked by its own rules, a composed list gives exactly the data set's ids in order,
    with truthful signals on every page, whatever the page size and filters."""
    walked, ids = walked_ids(composed_service, composition, case, size)
    assert walked == ids


@pytest.fixture(scope="module")
def based_service() -> Iterator[ComposedService]:
    """A simulator mounted under `/wiki/rest/api`."""
    with serving_compositions(base_path="/wiki/rest/api") as service:
        yield service


@given(composition=compositions(SMALL_SIZES), case=st.sampled_from(CASES))
@settings(WALKS, max_examples=examples(40))
def test_compositions_list_under_a_base_path(
    based_service: ComposedService,
    composition: Composition,
    case: tuple[str, tuple[tuple[str, str], ...]],
) -> None:
    """Under a base path, absolute, root-relative and base-relative links all lead on."""
    walked, ids = walked_ids(based_service, composition, case, 4)
    assert walked == ids


@pytest.fixture(scope="module")
def echoing_service() -> Iterator[ComposedService]:
    """A hostile simulator echoing the credential into its cursors and links."""
    with serving_compositions(echo_token=True, token=CREDENTIAL) as service:
        yield service


@given(composition=compositions(SMALL_SIZES), case=st.sampled_from(CASES))
@settings(WALKS, max_examples=examples(40))
def test_compositions_echo_the_credential_in_echo_mode(
    echoing_service: ComposedService,
    composition: Composition,
    case: tuple[str, tuple[tuple[str, str], ...]],
) -> None:
    """In echo mode every cursor and URL handed out carries the credential, and the list
    still pages through."""
    auth = {"Authorization": f"Bearer {CREDENTIAL}"}
    walked, ids = walked_ids(echoing_service, composition, case, 4, headers=auth, echo=CREDENTIAL)
    assert walked == ids


def test_a_composition_names_the_convention_that_reads_it() -> None:
    """`Composition.convention` holds every place, parameter and signal, the redundant and
    backward continuations as ignored, and base-relative links."""
    composition = Composition.parse(
        "compose:follow=page-token,items=response.{resource:snake},next=header:X-Next-Page,"
        "param=page,size=per_page,first=0,end=blank,total=header:X-Total,pages=meta.total_pages,"
        "position=meta.page,served-size=meta.per_page,prev=links.prev,also=header:Link,links=base"
    )
    assert composition.convention == Convention(
        name="composed",
        summary=str(composition),
        follow="token",
        items=(("response", "{resource}"),),
        next_header="X-Next-Page",
        param="page",
        size_param="per_page",
        total_header="X-Total",
        pages_at=("meta", "total_pages"),
        position_at=("meta", "page"),
        size_at=("meta", "per_page"),
        first_page=0,
        ignore=(("links", "prev"),),
        ignore_headers=("Link",),
        links_from="base",
    )


async def test_a_request_header_can_carry_the_continuation(
    sim: Simulator, session: aiohttp.ClientSession
) -> None:
    """`param=header:NAME`: the cursor is read from that request header, not the query."""
    composition = Composition.parse(
        "compose:follow=token,next=next,param=header:X-Cursor,default=5"
    )
    assert composition.param_in == "header"
    assert composition.convention.param_in == "header"
    url, paging = f"{sim.url}/v1/scopes", {"X-Simulator-Paging": str(composition)}
    _, first, _ = await get_json(session, url, None, paging)
    cursor = first["next"]
    _, second, _ = await get_json(session, url, None, {**paging, "X-Cursor": cursor})
    _, ignored, _ = await get_json(session, url, {"X-Cursor": cursor}, paging)
    ids = list(sim.dataset.ids("scopes"))
    assert [item["id"] for item in second["items"]] == ids[5:10]
    assert ignored["items"] == (await get_json(session, url, None, paging))[1]["items"]
    assert set(first) == {"items", "next"}


BAD_SPECS = [
    ("compose:follow", "must be KEY=VALUE"),
    ("compose:colour=red", "unknown key 'colour'"),
    ("compose:follow=url,follow=token", "follow is given twice"),
    ("compose:follow=scroll", "follow must be one of"),
    ("compose:follow=token,param=cursor", "needs a place for the continuation"),
    ("compose:follow=token,next=nextCursor", "needs the request parameter"),
    ("compose:follow=offset,param=offset,next=next", "computed by the client"),
    ("compose:follow=token,next=header:Link,param=c", "holds URLs: it needs follow=url"),
    ("compose:follow=url,next=header:Link,param=c,end=null", "end=null needs next at a body"),
    ("compose:follow=url,next=next,param=c,end=link-false", "needs next=header:Link"),
    ("compose:follow=url,next=next,param=c,end=flag", "needs a flag"),
    ("compose:follow=token,next=meta.next,param=c,total=meta", "overlap"),
    ("compose:follow=token,items=-,next=nextCursor,param=c", "bare array body has no place"),
    ("compose:follow=token,next=header:Retry-After,param=c", "sends Retry-After itself"),
    ("compose:follow=url,next=next,param=header:X-C", "not in param=header:X-C"),
    ("compose:follow=token,next=n,param=c,position=offset", "no offset or page number"),
    ("compose:follow=offset,param=offset,first=0", "first=0 applies to page numbers"),
    ("compose:follow=offset,param=offset,default=50,max=10", "default=50 exceeds max=10"),
    ("compose:follow=offset,param=offset,end=null", "has no continuation to end"),
    ("compose:items=a b", "body key 'a b'"),
    ("compose:items=a.b.c.d", "deeper than 3"),
    ("compose:follow=token,next=n,param=c,prev=header:X-Prev", "body path or header:Link"),
    ("compose:follow=url,next=n,param=c,start=header:X-First", "first page's URL is a body"),
    ("compose:start=first", "start=first does not apply to an unpaged list"),
    ("compose:follow=token,next=n,param=header:X-C,start=first", "cannot carry param=header"),
    ("compose:follow=url,next=n,param=c,start=n", "overlap"),
]


@pytest.mark.parametrize(("spec", "says"), BAD_SPECS, ids=[spec for spec, _ in BAD_SPECS])
def test_bad_specs_are_refused_naming_the_bad_part(spec: str, says: str) -> None:
    """Each bad spec is a ValueError that quotes the spec and says what is wrong."""
    with pytest.raises(ValueError, match="compose") as raised:
        Composition.parse(spec)
    assert says in str(raised.value)
    with pytest.raises(ValueError, match="compose"):
        SimulatorConfig(paging=spec)


def test_a_bad_spec_on_the_command_line_is_a_usage_error(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """`--paging compose:...` with a bad part exits 2 naming it."""
    with pytest.raises(SystemExit) as exited:
        main(["--paging", "compose:follow=token,next=n", "--print-spec"])
    assert exited.value.code == 2
    assert "needs the request parameter" in capsys.readouterr().err


async def test_a_bad_spec_in_the_request_header_is_400(
    sim: Simulator, session: aiohttp.ClientSession
) -> None:
    """`X-Simulator-Paging: compose:...` with a bad part is 400 naming the part."""
    headers = {"X-Simulator-Paging": "compose:follow=token,next=n,param=c,total=n"}
    status, body, _ = await get_json(session, f"{sim.url}/v1/scopes", None, headers)
    assert status == 400
    assert "overlap" in message_of(body)


async def test_a_composed_run_serves_without_the_header(
    serve: StartSimulator, session: aiohttp.ClientSession
) -> None:
    """`SimulatorConfig(paging="compose:...")` makes the run speak the composition."""
    spec = "compose:follow=token,items=result.rows,next=meta.next_cursor,param=after"
    simulator = await serve(paging=spec)
    _, body, _ = await get_json(session, f"{simulator.url}/v1/scopes")
    assert [item["id"] for item in body["result"]["rows"]] == list(simulator.dataset.ids("scopes"))
    assert body["meta"] == {"next_cursor": None}


# Composed modes keep the simulator's guarantees: signed cursors, bounds, moving lists, faults.

SCOPES = "scopes"
TOKEN = "compose:follow=token,items=data,next=meta.next_cursor,param=after,size=limit"
HEADER_TOKEN = "compose:follow=token,next=next,param=header:X-Cursor,default=5"
URL_LINK = "compose:follow=url,items=-,next=header:Link,param=cursor,size=per_page"
OFFSET = "compose:follow=offset,items=results,param=start,size=count,total=total,max=10"
KEYSET = "compose:follow=keyset,items=data,param=after_id,size=limit,more=has_more"
PAGES = "compose:follow=page-token,items=-,next=header:X-Next-Page,param=page,first=0,default=4"


@pytest_asyncio.fixture
async def coded_sim(serve: StartSimulator) -> Simulator:
    """A simulator of 20 endpoints whose error bodies carry a code (`error_format="error"`)."""
    return await serve(error_format="error")


async def answer(
    coded_sim: Simulator,
    session: aiohttp.ClientSession,
    spec: str,
    params: Any = None,
    headers: dict[str, str] | None = None,
) -> tuple[int, Any, Any]:
    """A list of scopes served by `spec`: (status, body, headers)."""
    sent = {"X-Simulator-Paging": spec, **(headers or {})}
    return await get_json(session, f"{coded_sim.url}/v1/{SCOPES}", params, sent)


@pytest.mark.parametrize(
    ("spec", "params", "headers"),
    [
        (TOKEN, {"after": "not-a-cursor"}, None),
        (TOKEN, {"after": "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"}, None),
        (HEADER_TOKEN, None, {"X-Cursor": "forged"}),
        (URL_LINK, {"cursor": "forged"}, None),
    ],
)
async def test_forged_cursors_are_400_invalid_cursor(
    coded_sim: Simulator,
    session: aiohttp.ClientSession,
    spec: str,
    params: Any,
    headers: dict[str, str] | None,
) -> None:
    """A cursor the run did not issue is refused, in the query or in a request header."""
    status, body, _ = await answer(coded_sim, session, spec, params, headers)
    assert (status, body["error"]["code"]) == (400, "invalid_cursor")


async def test_a_cursor_is_bound_to_its_filters(
    coded_sim: Simulator, session: aiohttp.ClientSession
) -> None:
    """A composed cursor issued for one filtered list is refused for another."""
    url, headers = f"{coded_sim.url}/v1/endpoints", {"X-Simulator-Paging": TOKEN}
    params = {"osFamily": "windows", "limit": "2"}
    _, body, _ = await get_json(session, url, params, headers)
    cursor = body["meta"]["next_cursor"]
    params = {"osFamily": "linux", "after": cursor}
    status, refused, _ = await get_json(session, url, params, headers)
    assert (status, refused["error"]["code"]) == (400, "invalid_cursor")
    params = {"osFamily": "windows", "after": cursor}
    status, _, _ = await get_json(session, url, params, headers)
    assert status == 200


@pytest.mark.parametrize(
    ("spec", "params"),
    [
        (OFFSET, {"start": "-1"}),
        (OFFSET, {"count": "11"}),
        (OFFSET, {"count": "0"}),
        (KEYSET, {"after_id": "00000000-0000-4000-8000-000000000000"}),
        (PAGES, {"page": "-1"}),
        (PAGES, {"page": "two"}),
        (TOKEN, {"limit": "101"}),
        (TOKEN, {"offset": "-5"}),
    ],
)
async def test_bad_positions_and_sizes_are_422_invalid_parameter(
    coded_sim: Simulator, session: aiohttp.ClientSession, spec: str, params: dict[str, str]
) -> None:
    """Positions before the first, ids outside the list and page sizes past the composition's
    maximum (or the run's) are refused; so is a contract parameter out of bounds."""
    status, body, _ = await answer(coded_sim, session, spec, params)
    assert (status, body["error"]["code"]) == (422, "invalid_parameter")


async def test_default_and_maximum_page_sizes_apply(
    coded_sim: Simulator, session: aiohttp.ClientSession
) -> None:
    """`default` sizes a page asked without a size; `max` is the largest one served."""
    ids = list(coded_sim.dataset.ids(SCOPES))
    _, paged, headers = await answer(coded_sim, session, PAGES)
    assert [item["id"] for item in paged] == ids[:4]
    assert headers["X-Next-Page"] == "1"
    _, body, _ = await answer(coded_sim, session, OFFSET, {"count": "10", "start": "20"})
    assert [item["id"] for item in body["results"]] == ids[20:24]
    assert body["total"] == len(ids)


async def test_cursors_resume_after_their_place_when_records_are_hidden(
    coded_sim: Simulator, session: aiohttp.ClientSession
) -> None:
    """Hiding records around a composed cursor neither skips nor repeats a visible one."""
    ids = list(coded_sim.dataset.ids(SCOPES))
    _, first, _ = await answer(coded_sim, session, TOKEN, {"limit": "5"})
    coded_sim.dataset.hide(SCOPES, [ids[4], ids[5], ids[1]])
    cursor = first["meta"]["next_cursor"]
    _, second, _ = await answer(coded_sim, session, TOKEN, {"limit": "5", "after": cursor})
    assert [item["id"] for item in second["data"]] == ids[6:11]


async def test_keyset_ids_and_offsets_follow_the_visible_records(
    coded_sim: Simulator, session: aiohttp.ClientSession
) -> None:
    """A hidden keyset id still marks its place; offsets and totals count visible records."""
    ids = list(coded_sim.dataset.ids(SCOPES))
    coded_sim.dataset.hide(SCOPES, [ids[2], ids[3]])
    _, keyset, _ = await answer(coded_sim, session, KEYSET, {"after_id": ids[2], "limit": "2"})
    assert [item["id"] for item in keyset["data"]] == ids[4:6]
    _, offset, _ = await answer(coded_sim, session, OFFSET, {"start": "2", "count": "2"})
    assert [item["id"] for item in offset["results"]] == ids[4:6]
    assert offset["total"] == len(ids) - 2


@pytest.mark.parametrize("spec", [TOKEN, HEADER_TOKEN, KEYSET, PAGES])
async def test_expired_cursor_faults_hit_composed_continuations(
    serve: StartSimulator, session: aiohttp.ClientSession, spec: str
) -> None:
    """cursor-expired faults answer 410 to requests carrying the composition's continuation
    only (a first page is served)."""
    simulator = await serve(
        paging=spec, faults=[FaultSpec("cursor-expired", 1.0)], error_format="error"
    )
    composition = Composition.parse(spec)
    assert composition.param is not None
    _, first, headers = await answer(simulator, session, spec, {"limit": "3"})
    value = {
        TOKEN: lambda: first["meta"]["next_cursor"],
        HEADER_TOKEN: lambda: first["next"],
        KEYSET: lambda: first["data"][-1]["id"],
        PAGES: lambda: headers["X-Next-Page"],
    }[spec]()
    carried = {composition.param: value}
    in_header = composition.param_in == "header"
    status, body, _ = await answer(
        simulator, session, spec, None if in_header else carried, carried if in_header else None
    )
    assert (status, body["error"]["code"]) == (410, "cursor_expired")


async def test_a_seed_gives_the_same_composed_pages(
    serve: StartSimulator, session: aiohttp.ClientSession
) -> None:
    """Two runs of one seed serve byte-identical composed pages (cursors included)."""
    first, second = await serve(seed=3), await serve(seed=3)
    pages = []
    for simulator in (first, second):
        async with session.get(
            f"{simulator.url}/v1/{SCOPES}?limit=4", headers={"X-Simulator-Paging": TOKEN}
        ) as response:
            pages.append(await response.read())
    assert pages[0] == pages[1]


# The named conventions, written as compositions, serve the same pages.

AS_COMPOSITIONS = {
    "link": "follow=url,items=-,next=header:Link,param=cursor,size=limit,start=header:Link",
    "odata": "follow=url,items=value,next=@odata%2EnextLink,param=$skiptoken,size=$top,"
    "total=@odata%2Ecount",
    "cursor": "follow=token,next=nextCursor,param=cursor,size=limit",
    "meta-cursor": "follow=token,next=meta.nextCursor,param=cursor,size=limit",
    "continuation-token": "follow=token,next=continuationToken,param=continuationToken,size=limit",
    "aws": "follow=token,items=Items,next=NextToken,param=NextToken,size=MaxResults",
    "google": "follow=token,items={resource},next=nextPageToken,param=pageToken,size=pageSize,"
    "total=totalSize",
    "header-cursor": "follow=token,items=-,next=header:X-Next-Cursor,param=cursor,size=limit",
    "header-continuation": "follow=token,items=-,next=header:X-MS-ContinuationToken,"
    "param=continuationToken,size=limit",
    "header-page": "follow=page-token,items=-,next=header:X-Next-Page,param=page,size=per_page,"
    "end=blank",
    "offset": "follow=offset,param=offset,size=limit,position=offset,served-size=limit,total=total",
    "page": "follow=page,param=page,size=pageSize,position=page,served-size=pageSize,total=total,"
    "pages=totalPages",
    "spring": "follow=page,items=content,param=page,size=size,first=0,position=number,"
    "served-size=size,last=last,total=totalElements,pages=totalPages",
    "stripe": "follow=keyset,items=data,param=starting_after,size=limit,more=has_more",
    "next-url": "follow=url,items=results,next=next,param=page,size=page_size,total=count",
    "pagination-url": "follow=url,next=pagination.next_url,param=after,size=per_page",
    "json-api": "follow=url,items=data,next=links.next,param=page[cursor],size=page[size],"
    "total=meta.total",
    "hal": "follow=url,items=_embedded.{resource},next=_links.next.href,param=page,size=size,"
    "total=page.totalElements",
    "salesforce": "follow=url,items=records,next=nextRecordsUrl,param=locator,size=batchSize,"
    "last=done,total=totalSize",
    "none": "items=-",
}
ENDPOINTS = "endpoints"
UNRELATED = frozenset({"x-request-id", "content-type", "content-length", "date", "server"})


@pytest_asyncio.fixture
async def items_sim(serve: StartSimulator) -> Simulator:
    """A simulator of 20 endpoints keeping items under `items`, a composition's default."""
    return await serve(items_key="items")


def test_every_row_is_written_as_a_composition() -> None:
    """Every named convention has a composition serving the same pages."""
    assert set(AS_COMPOSITIONS) == set(CONVENTIONS)


async def fetch(
    session: aiohttp.ClientSession, target: URL, paging: str
) -> tuple[Any, dict[str, str]]:
    """A page's decoded body and paging headers, served by `paging`."""
    async with session.get(target, headers={PAGING_HEADER: paging}) as response:
        assert response.status == 200, await response.text()
        body = orjson.loads(await response.read())
        kept = {k: v for k, v in response.headers.items() if k.lower() not in UNRELATED}
        return body, kept


@pytest.mark.parametrize("name", sorted(AS_COMPOSITIONS))
async def test_a_row_and_its_composition_serve_the_same_pages(
    items_sim: Simulator, session: aiohttp.ClientSession, name: str
) -> None:
    """Page by page through a filtered list, the row and its composition answer alike."""
    row, composition = CONVENTIONS[name], Composition.parse(AS_COMPOSITIONS[name])
    assert composition.convention.param == row.param
    url = URL(f"{items_sim.url}/v1/{ENDPOINTS}")
    sized = [("osFamily", "windows"), *([(row.size_param, "3")] if row.size_param else [])]
    position = {"offset": [("offset", "0")], "page": [(row.param or "", str(row.first_page))]}
    target: URL | None = url.with_query(sized + position.get(row.follow, []))
    pages, seen = 0, 0
    while target is not None:
        by_row, row_headers = await fetch(session, target, name)
        by_composition, composition_headers = await fetch(session, target, str(composition))
        assert by_composition == by_row
        assert composition_headers == row_headers
        page = _page(by_row, row)
        seen += len(page)
        pages += 1
        target = next_target(row, url, sized, by_row, row_headers, page, seen, pages)
    assert seen == items_sim.dataset.count(ENDPOINTS, {"osFamily": "windows"})
    assert pages > (2 if row.size_param else 0)


def _page(body: Any, row: Convention) -> list[Any]:
    """The records of a page of the row."""
    page = dig(body, items_path(row, ENDPOINTS, "items"))
    assert isinstance(page, list), body
    return page


# The first page's URL, and keys holding a dot.


def test_a_key_with_a_dot_round_trips_in_the_text_form() -> None:
    """`%2E` writes a dot inside a key and `%25` a percent sign; `str()` writes them back."""
    composition = Composition.parse("compose:follow=url,next=@odata%2EnextLink,param=p%25")
    assert composition.next is not None
    assert composition.next.path == ("@odata.nextLink",)
    assert str(composition) == "compose:follow=url,next=@odata%2EnextLink,param=p%25"
    nested = Composition(follow="url", next=("a", "b.c%"), param="p")
    assert Composition.parse(str(nested)) == nested


async def test_the_first_pages_url_is_on_every_page(
    sim: Simulator, session: aiohttp.ClientSession
) -> None:
    """`start=links.first`: every page, the last too, holds the URL of the first page (its
    filters and size kept), and following it serves the first page again."""
    spec = "compose:follow=token,next=links.next,param=after,size=limit,start=links.first"
    url, paging = f"{sim.url}/v1/scopes", {"X-Simulator-Paging": spec}
    limit = str(-(-sim.dataset.count("scopes") // 2))
    _, first, _ = await get_json(session, url, {"limit": limit}, paging)
    assert first["links"]["next"] is not None
    after = {"limit": limit, "after": first["links"]["next"]}
    _, last, _ = await get_json(session, url, after, paging)
    assert last["links"]["next"] is None
    assert last["links"]["first"] == first["links"]["first"]
    assert URL(first["links"]["first"]).query == {"limit": limit}
    _, again, _ = await get_json(session, first["links"]["first"], None, paging)
    assert again == first
    assert Composition.parse(spec).convention.ignore == (("links", "first"),)


async def test_the_first_page_link_shares_the_link_header(
    sim: Simulator, session: aiohttp.ClientSession
) -> None:
    """`start=header:Link` beside `next=header:Link`: rel="next" then rel="first" while records
    follow, rel="first" alone on the last page."""
    spec = "compose:follow=url,next=header:Link,param=cursor,size=limit,start=header:Link"
    url, paging = f"{sim.url}/v1/scopes", {"X-Simulator-Paging": spec}
    limit = -(-sim.dataset.count("scopes") // 2)
    _, _, headers = await get_json(session, url, {"limit": str(limit)}, paging)
    first = f'<{url}?limit={limit}>; rel="first"'
    forward, backward = headers["Link"].split(", ")
    assert forward.endswith('; rel="next"')
    assert backward == first
    target = forward[1 : forward.index(">")]
    _, _, last = await get_json(session, target, None, paging)
    assert last["Link"] == first
