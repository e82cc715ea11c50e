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


SINGULAR = {
    "endpoints": "endpoint",
    "remediation-targets": "remediation target",
    "scopes": "scope",
    "vulnerability-findings": "vulnerability finding",
}


@pytest.mark.parametrize("resource", RESOURCES)
@pytest.mark.parametrize(
    "record_id",
    [
        "ep-00000001",
        "nope",
        "1",
        "00000000-0000-4000-8000-00000000000",
        "00000000-0000-4000-8000-0000000000000",
        "00000000000040008000000000000000",
        "g0000000-0000-4000-8000-000000000000",
    ],
)
async def test_a_malformed_id_is_400_with_the_published_message(
    sim: Simulator, session: aiohttp.ClientSession, resource: str, record_id: str
) -> None:
    """An id that is no well-formed UUID: 400 `Invalid endpoint ID format.` (per resource)."""
    status, body, _ = await get_json(session, record_url(sim.url, resource, record_id))
    assert (status, body) == (400, {"error": f"Invalid {SINGULAR[resource]} ID format."})


@pytest.mark.parametrize("resource", RESOURCES)
async def test_an_unknown_uuid_is_404_with_the_published_message(
    serve: StartSimulator, session: aiohttp.ClientSession, resource: str
) -> None:
    """A well-formed UUID that names no record (any UUID, another resource's id, another
    seed's, a record past the end): 404 `Endpoint not found.` (per resource)."""
    simulator, other = await serve(), await serve(seed=1, size=40)
    others = [r for r in RESOURCES if r != resource]
    unknown = [
        "00000000-0000-4000-8000-000000000000",
        "6F9619FF-8B86-4011-B42D-00C04FC964FF",
        next(simulator.dataset.ids(others[0])),
        next(other.dataset.ids(resource)),
        list(other.dataset.ids(resource))[-1],
    ]
    expected = {"error": f"{SINGULAR[resource].capitalize()} not found."}
    for record_id in unknown:
        status, body, _ = await get_json(session, record_url(simulator.url, resource, record_id))
        assert (status, body) == (404, expected), record_id


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
    uuid = next(simulator.dataset.ids("endpoints")).removeprefix("t/")
    url = URL(f"{simulator.url}/v1/endpoints/t/{uuid}", encoded=True)
    status, _, _ = await get_json(session, url)
    assert status == 404


async def test_id_is_decoded_exactly_once(
    serve: StartSimulator, session: aiohttp.ClientSession
) -> None:
    """`%252F` is the id `%2F`, not `/`."""
    simulator = await serve(size=2, id_prefix="%2F")
    record_id = next(simulator.dataset.ids("scopes"))
    uuid = record_id.removeprefix("%2F")
    url = URL(f"{simulator.url}/v1/scopes/%252F{uuid}", encoded=True)
    status, body, _ = await get_json(session, url)
    assert (status, body["id"]) == (200, record_id)


async def test_invalid_utf8_in_an_id_is_400(sim: Simulator, session: aiohttp.ClientSession) -> None:
    """A percent-encoding that is not UTF-8 is no well-formed id."""
    url = URL(f"{sim.url}/v1/scopes/%FF%FE", encoded=True)
    status, body, _ = await get_json(session, url)
    assert (status, body) == (400, {"error": "Invalid scope ID format."})


async def test_trailing_slash_is_not_a_list(sim: Simulator, session: aiohttp.ClientSession) -> None:
    """`/v1/scopes/` is not a route."""
    status, _, _ = await get_json(session, f"{sim.url}/v1/scopes/")
    assert status == 404
