"""The named conventions, written as compositions, serve the same pages.

Eighteen of the twenty rows of `remedy_async.CONVENTIONS` are a composition too; the simulator
serves each both ways, and every page (body and paging headers) is the same, so the compose
mode speaks the rows exactly where it can. `odata` keeps its continuation under a key with a
dot (`@odata.nextLink`), which the text form cannot write, and `link` adds a rel="first" link,
which no composition sends.
"""

from __future__ import annotations

from typing import Any

import aiohttp
import orjson
import pytest
import pytest_asyncio
from yarl import URL

from remedy_async import CONVENTIONS, Convention
from remedy_async.simulator import Composition, Simulator

from .helpers import StartSimulator
from .walker import PAGING_HEADER, dig, items_path, next_target

AS_COMPOSITIONS = {
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
async def sim(serve: StartSimulator) -> Simulator:
    """A simulator of 20 endpoints keeping items under `items`, a composition's default."""
    return await serve(items_key="items")


def test_every_row_but_two_is_written_as_a_composition() -> None:
    """Only `odata` and `link` have no composition serving the same pages."""
    assert set(CONVENTIONS) - set(AS_COMPOSITIONS) == {"odata", "link"}


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
    sim: Simulator, session: aiohttp.ClientSession, name: str
) -> None:
    """Page by page through a filtered list, the row and its composition answer alike."""
    row, composition = CONVENTIONS[name], Composition.parse(AS_COMPOSITIONS[name])
    assert composition.convention.param == row.param
    url = URL(f"{sim.url}/v1/{ENDPOINTS}")
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
    assert seen == sim.dataset.count(ENDPOINTS, {"osFamily": "windows"})
    assert pages > (2 if row.size_param else 0)


def _page(body: Any, row: Convention) -> list[Any]:
    """The records of a page of the row."""
    page = dig(body, items_path(row, ENDPOINTS, "items"))
    assert isinstance(page, list), body
    return page
