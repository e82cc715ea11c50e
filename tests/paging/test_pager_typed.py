"""Pager over pages of typed views (`TypedItem`): the items the decode engine reads straight
into their records' views are paged as JSON objects are: an offset list is proven page by page
(exact while records are removed before its frontier), repeats are skipped, a resume token
continues it, and `as_dicts()` never hands one over as a JSON object. Over a loopback socket,
the pages turned into views as they arrive, and each view into a record as it is handed over.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import attrs
import msgspec
import pytest
from msgspec.structs import replace

from remedy_async import DecodeError, RemedyClient
from remedy_async._paging._call import WIRE_OBJECTS
from remedy_async._paging._pager import Pager
from remedy_async._paging._protocol import PageRequest
from remedy_async._wire._http import JSONResponse
from remedy_async._wire._types import TypedItem, WireFault
from tests.loopback import serve_handler
from tests.published import TOKEN, Churn, PublishedService, dataset


class Row(msgspec.Struct, TypedItem, frozen=True):
    """A typed view of an endpoint: its id and hostname."""

    id: str
    hostname: str


class Rows:
    """Turns each typed view into the record a list yields (here: a dict of its fields)."""

    model: type[dict[str, Any]] = dict

    def hook_for(self, items: Sequence[Any]) -> Any:
        def record(item: object, _: object) -> dict[str, Any]:
            if not isinstance(item, Row):
                raise WireFault("$", "expected a typed view")
            return {"id": item.id, "hostname": item.hostname}

        return record

    def fault(self, exc: BaseException, path: str) -> WireFault:
        return WireFault(path, str(exc))


def typed(pager: Pager[Any], *, reader: Any = None) -> Pager[Any]:
    """The pager's list, each page's items read into `Row`s as they arrive."""
    call = pager._call
    fetch = call.fetch

    async def fetch_typed(
        request: PageRequest, answered: Callable[[], None] | None = None, /
    ) -> JSONResponse:
        response = await fetch(request, answered)
        body = response.body
        rows = [msgspec.convert(item, Row) for item in body["data"]]
        return attrs.evolve(response, body={**body, "data": rows})

    return Pager(replace(call, fetch_records=fetch_typed, reader=reader or Rows()))


async def listed(service: PublishedService, page_size: int, **options: Any) -> list[str]:
    """Every id a typed list of the service's endpoints yields."""
    async with serve_handler(service.handler) as url, RemedyClient(url, token=TOKEN) as client:
        pager = typed(client.endpoints.list(page_size=page_size, **options))
        return [record["id"] async for record in pager]


async def test_a_typed_offset_list_is_proven_page_by_page() -> None:
    """Each page after the first is asked from the overlap, as a list of JSON objects is."""
    service = PublishedService(dataset(sizes={"endpoints": 23}))
    expected = [record["id"] for record in service.records["endpoints"]]
    assert await listed(service, 5) == expected
    offsets = [path for path in service.requests if "offset=3&" in path or "offset=3" in path]
    assert offsets, service.requests  # the second page starts two records back, at 3


@pytest.mark.parametrize("options", [{}, {"prefetch": 2}, {"concurrency": 3}])
async def test_a_typed_list_loses_nothing_when_records_are_removed_before_its_frontier(
    options: dict[str, Any],
) -> None:
    """Records removed before the page being read: every survivor is delivered once."""
    service = PublishedService(dataset(sizes={"endpoints": 40}))
    churn = Churn(service, {2: [("remove", 0), ("remove", 1), ("remove", 2)]})
    service.between_pages = churn
    ids = await listed(service, 6, **options)
    assert len(ids) == len(set(ids))
    survivors = [key for key in churn.original if key not in churn.removed]
    assert [key for key in ids if key in set(survivors)] == survivors


async def test_a_typed_list_resumes_from_a_token_with_nothing_lost_or_repeated() -> None:
    """A token taken part-way through a page of views continues right after the last one."""
    service = PublishedService(dataset(sizes={"endpoints": 23}))
    expected = [record["id"] for record in service.records["endpoints"]]
    async with serve_handler(service.handler) as url, RemedyClient(url, token=TOKEN) as client:
        pager = typed(client.endpoints.list(page_size=5))
        first: list[str] = []
        async for record in pager:
            first.append(record["id"])
            if len(first) == 7:
                break
        token = pager.resume_token
        assert token is not None
        rest = typed(client.endpoints.list(page_size=5, resume_token=token))
        after = [record["id"] async for record in rest]
    assert first + after == expected


async def test_as_dicts_never_hands_over_a_typed_view_as_a_json_object() -> None:
    """A page of views reaching a list of wire dicts is refused, not handed over unchecked."""
    service = PublishedService(dataset(sizes={"endpoints": 8}))
    async with serve_handler(service.handler) as url, RemedyClient(url, token=TOKEN) as client:
        pager = typed(client.endpoints.list(page_size=5), reader=WIRE_OBJECTS)
        with pytest.raises(DecodeError, match="expected an object"):
            await pager.collect()
