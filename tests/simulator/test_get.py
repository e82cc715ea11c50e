"""Get by id over real sockets: found, not found, and ids that need percent-encoding."""

from __future__ import annotations

import aiohttp
import pytest
from yarl import URL

from remedy_async.simulator import Simulator

from .helpers import RESOURCES, StartSimulator, get_json, record_url


@pytest.mark.parametrize("resource", RESOURCES)
async def test_get_returns_the_record(
    sim: Simulator, session: aiohttp.ClientSession, resource: str
) -> None:
    """GET /v1/<collection>/<id> answers the data set's record."""
    record_id = list(sim.dataset.ids(resource))[-1]
    status, body, headers = await get_json(session, record_url(sim.url, resource, record_id))
    assert status == 200
    assert headers["Content-Type"] == "application/json"
    assert body == sim.dataset.get(resource, record_id)


@pytest.mark.parametrize("record_id", ["ep-99999999", "ep-1", "nope", "ep-00000001 "])
async def test_unknown_id_is_404_not_found(
    sim: Simulator, session: aiohttp.ClientSession, record_id: str
) -> None:
    """An id that does not exist gives 404 with code not_found."""
    status, body, _ = await get_json(session, record_url(sim.url, "endpoints", record_id))
    assert status == 404
    assert body["error"]["code"] == "not_found"


@pytest.mark.parametrize("char", ["/", "?", "#", "%", " ", "é", "%2F", "+"])
async def test_ids_with_reserved_characters_round_trip(
    serve: StartSimulator, session: aiohttp.ClientSession, char: str
) -> None:
    """An id holding / ? # % space or é, percent-encoded as one segment, is found."""
    simulator = await serve(size=2, id_prefix=f"t{char}x:")
    record_id = next(simulator.dataset.ids("remediation-targets"))
    assert char in record_id
    url = record_url(simulator.url, "remediation-targets", record_id)
    status, body, _ = await get_json(session, url)
    assert (status, body["id"]) == (200, record_id)


async def test_an_unencoded_slash_is_not_an_id(
    serve: StartSimulator, session: aiohttp.ClientSession
) -> None:
    """`/v1/endpoints/a/b` is not a get of id `a/b`: ids are exactly one segment."""
    simulator = await serve(size=2, id_prefix="t/")
    url = URL(f"{simulator.url}/v1/endpoints/t/ep-00000001", encoded=True)
    status, body, _ = await get_json(session, url)
    assert (status, body["error"]["code"]) == (404, "not_found")


async def test_id_is_decoded_exactly_once(
    serve: StartSimulator, session: aiohttp.ClientSession
) -> None:
    """`%252F` is the id `%2F`, not `/`."""
    simulator = await serve(size=2, id_prefix="%2F")
    record_id = next(simulator.dataset.ids("scopes"))
    url = URL(f"{simulator.url}/v1/scopes/%252Fsc-00000001", encoded=True)
    status, body, _ = await get_json(session, url)
    assert (status, body["id"]) == (200, record_id)


async def test_invalid_utf8_in_an_id_is_404(sim: Simulator, session: aiohttp.ClientSession) -> None:
    """A percent-encoding that is not UTF-8 names no record."""
    url = URL(f"{sim.url}/v1/scopes/%FF%FE", encoded=True)
    status, body, _ = await get_json(session, url)
    assert (status, body["error"]["code"]) == (404, "not_found")


async def test_trailing_slash_is_not_a_list(sim: Simulator, session: aiohttp.ClientSession) -> None:
    """`/v1/scopes/` is not a route."""
    status, _, _ = await get_json(session, f"{sim.url}/v1/scopes/")
    assert status == 404
