"""Composed modes keep the simulator's guarantees: signed cursors, bounds, moving lists, faults.

Forged cursors are 400 invalid_cursor wherever the continuation travels (query or request
header), bad positions and page sizes are 422 invalid_parameter within the composition's own
bounds, hidden records leave offsets and totals while cursors and keyset ids resume after their
place, expired-cursor faults hit requests that carry a continuation, and a seed gives the same
pages every time.
"""

from __future__ import annotations

from typing import Any

import aiohttp
import pytest
import pytest_asyncio

from remedy_async.simulator import Composition, FaultSpec, Simulator

from .helpers import StartSimulator, get_json

SCOPES = "scopes"
TOKEN = "compose:follow=token,items=data,next=meta.next_cursor,param=after,size=limit"
HEADER_TOKEN = "compose:follow=token,next=next,param=header:X-Cursor,default=5"
URL_LINK = "compose:follow=url,items=-,next=header:Link,param=cursor,size=per_page"
OFFSET = "compose:follow=offset,items=results,param=start,size=count,total=total,max=10"
KEYSET = "compose:follow=keyset,items=data,param=after_id,size=limit,more=has_more"
PAGES = "compose:follow=page-token,items=-,next=header:X-Next-Page,param=page,first=0,default=4"


@pytest_asyncio.fixture
async def sim(serve: StartSimulator) -> Simulator:
    """A simulator of 20 endpoints whose error bodies carry a code (`error_format="error"`)."""
    return await serve(error_format="error")


async def answer(
    sim: Simulator,
    session: aiohttp.ClientSession,
    spec: str,
    params: Any = None,
    headers: dict[str, str] | None = None,
) -> tuple[int, Any, Any]:
    """A list of scopes served by `spec`: (status, body, headers)."""
    sent = {"X-Simulator-Paging": spec, **(headers or {})}
    return await get_json(session, f"{sim.url}/v1/{SCOPES}", params, sent)


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
    sim: Simulator,
    session: aiohttp.ClientSession,
    spec: str,
    params: Any,
    headers: dict[str, str] | None,
) -> None:
    """A cursor the run did not issue is refused, in the query or in a request header."""
    status, body, _ = await answer(sim, session, spec, params, headers)
    assert (status, body["error"]["code"]) == (400, "invalid_cursor")


async def test_a_cursor_is_bound_to_its_filters(
    sim: Simulator, session: aiohttp.ClientSession
) -> None:
    """A composed cursor issued for one filtered list is refused for another."""
    url, headers = f"{sim.url}/v1/endpoints", {"X-Simulator-Paging": TOKEN}
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
    sim: Simulator, session: aiohttp.ClientSession, spec: str, params: dict[str, str]
) -> None:
    """Positions before the first, ids outside the list and page sizes past the composition's
    maximum (or the run's) are refused; so is a contract parameter out of bounds."""
    status, body, _ = await answer(sim, session, spec, params)
    assert (status, body["error"]["code"]) == (422, "invalid_parameter")


async def test_default_and_maximum_page_sizes_apply(
    sim: Simulator, session: aiohttp.ClientSession
) -> None:
    """`default` sizes a page asked without a size; `max` is the largest one served."""
    ids = list(sim.dataset.ids(SCOPES))
    _, paged, headers = await answer(sim, session, PAGES)
    assert [item["id"] for item in paged] == ids[:4]
    assert headers["X-Next-Page"] == "1"
    _, body, _ = await answer(sim, session, OFFSET, {"count": "10", "start": "20"})
    assert [item["id"] for item in body["results"]] == ids[20:24]
    assert body["total"] == len(ids)


async def test_cursors_resume_after_their_place_when_records_are_hidden(
    sim: Simulator, session: aiohttp.ClientSession
) -> None:
    """Hiding records around a composed cursor neither skips nor repeats a visible one."""
    ids = list(sim.dataset.ids(SCOPES))
    _, first, _ = await answer(sim, session, TOKEN, {"limit": "5"})
    sim.dataset.hide(SCOPES, [ids[4], ids[5], ids[1]])
    cursor = first["meta"]["next_cursor"]
    _, second, _ = await answer(sim, session, TOKEN, {"limit": "5", "after": cursor})
    assert [item["id"] for item in second["data"]] == ids[6:11]


async def test_keyset_ids_and_offsets_follow_the_visible_records(
    sim: Simulator, session: aiohttp.ClientSession
) -> None:
    """A hidden keyset id still marks its place; offsets and totals count visible records."""
    ids = list(sim.dataset.ids(SCOPES))
    sim.dataset.hide(SCOPES, [ids[2], ids[3]])
    _, keyset, _ = await answer(sim, session, KEYSET, {"after_id": ids[2], "limit": "2"})
    assert [item["id"] for item in keyset["data"]] == ids[4:6]
    _, offset, _ = await answer(sim, session, OFFSET, {"start": "2", "count": "2"})
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
