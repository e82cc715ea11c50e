"""Every paging convention over real sockets: completeness, sizes, cursors and links."""

from __future__ import annotations

import base64

import aiohttp
import pytest
from yarl import URL

from remedy_async.simulator import Simulator

from .helpers import RESOURCES, StartSimulator, get_json, list_all_ids, message_of

SCHEMES = ("none", "offset", "page", "cursor", "link")
FINDINGS = "vulnerability-findings"


@pytest.mark.parametrize("scheme", SCHEMES)
@pytest.mark.parametrize("resource", RESOURCES)
async def test_every_scheme_lists_every_record_once_in_order(
    sim: Simulator, session: aiohttp.ClientSession, scheme: str, resource: str
) -> None:
    """Walking all pages gives exactly the data set's ids, in order."""
    ids = await list_all_ids(session, sim.url, resource, scheme, size=37)
    assert ids == list(sim.dataset.ids(resource))


@pytest.mark.parametrize("scheme", ["offset", "page", "cursor"])
@pytest.mark.parametrize("items_key", ["data", "results"])
async def test_envelopes_use_the_configured_items_key(
    serve: StartSimulator, session: aiohttp.ClientSession, scheme: str, items_key: str
) -> None:
    """With items_key set, envelopes name their array `data` or `results`."""
    simulator = await serve(items_key=items_key, paging=scheme)
    ids = await list_all_ids(session, simulator.url, "scopes", scheme, items_key=items_key)
    assert ids == list(simulator.dataset.ids("scopes"))


@pytest.mark.parametrize("scheme", SCHEMES)
async def test_filtered_lists_page_through_the_matches(
    sim: Simulator, session: aiohttp.ClientSession, scheme: str
) -> None:
    """Paging a filtered list gives exactly the matching ids, the filters kept on every page."""
    filters = [("osFamily", "windows"), ("osFamily", "macos"), ("hasAgent", "true")]
    ids = await list_all_ids(session, sim.url, "endpoints", scheme, size=3, filters=filters)
    expected = sim.dataset.ids("endpoints", {"osFamily": ["windows", "macos"], "hasAgent": "true"})
    assert ids == list(expected)
    assert 3 < len(ids) < sim.dataset.count("endpoints")


async def test_run_scheme_is_used_without_the_header(
    serve: StartSimulator, session: aiohttp.ClientSession
) -> None:
    """The run's configured scheme applies when no X-Simulator-Paging header is sent."""
    simulator = await serve(paging="page")
    _, body, _ = await get_json(session, f"{simulator.url}/v1/scopes")
    assert set(body) == {"data", "page", "pageSize", "total", "totalPages"}


async def test_the_default_envelope_is_exactly_the_published_one(
    sim: Simulator, session: aiohttp.ClientSession
) -> None:
    """A default list answers `data`, `total`, `limit`, `offset` and nothing else: the default
    limit is the published 50, the offset 0, the total the whole collection's."""
    for resource in RESOURCES:
        status, body, headers = await get_json(session, f"{sim.url}/v1/{resource}")
        assert status == 200
        assert set(body) == {"data", "total", "limit", "offset"}
        count = sim.dataset.count(resource)
        assert (body["total"], body["limit"], body["offset"]) == (count, 50, 0)
        assert [item["id"] for item in body["data"]] == list(sim.dataset.ids(resource))[:50]
        assert "Link" not in headers


async def test_default_page_size_is_50(sim: Simulator, session: aiohttp.ClientSession) -> None:
    """Without a limit a page holds 50 records; the next page is at offset 50."""
    url = f"{sim.url}/v1/{FINDINGS}"
    _, body, _ = await get_json(session, url)
    assert len(body["data"]) == 50
    _, second, _ = await get_json(session, url, {"offset": "50"})
    expected = list(sim.dataset.ids(FINDINGS))[50:100]
    assert [item["id"] for item in second["data"]] == expected


async def test_configured_page_sizes_apply(
    serve: StartSimulator, session: aiohttp.ClientSession
) -> None:
    """page_size and max_page_size are configurable."""
    simulator = await serve(page_size=10, max_page_size=20)
    url = f"{simulator.url}/v1/{FINDINGS}"
    _, body, _ = await get_json(session, url)
    assert len(body["data"]) == 10
    status, body, _ = await get_json(session, url, {"limit": "21"})
    assert (status, body) == (422, {"error": "limit must be between 1 and 20."})


async def test_maximum_page_size_is_allowed(sim: Simulator, session: aiohttp.ClientSession) -> None:
    """limit=100, the published maximum, is the largest accepted page."""
    status, body, _ = await get_json(session, f"{sim.url}/v1/{FINDINGS}", {"limit": "100"})
    assert status == 200
    assert len(body["data"]) == 100


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"limit": "0"}, "limit must be between 1 and 100."),
        ({"limit": "101"}, "limit must be between 1 and 100."),
        ({"limit": "abc"}, "limit must be an integer between 1 and 100."),
        ({"limit": "1.5"}, "limit must be an integer between 1 and 100."),
        ({"offset": "-1"}, "offset must be at least 0."),
        ({"offset": "x"}, "offset must be an integer at least 0."),
    ],
)
async def test_paging_parameters_out_of_bounds_are_422_with_the_published_body(
    sim: Simulator, session: aiohttp.ClientSession, params: dict[str, str], message: str
) -> None:
    """limit outside 1..100 or not an integer, offset below 0 or not an integer: 422 with
    `{"error": "<message naming the parameter and its bound>"}`, on every list."""
    for resource in RESOURCES:
        status, body, _ = await get_json(session, f"{sim.url}/v1/{resource}", params)
        assert (status, body) == (422, {"error": message})


@pytest.mark.parametrize(
    ("scheme", "params", "name"),
    [
        ("cursor", {"limit": "101"}, "limit"),
        ("cursor", {"limit": "0"}, "limit"),
        ("link", {"limit": "-3"}, "limit"),
        ("offset", {"limit": "ten"}, "limit"),
        ("offset", {"offset": "-1"}, "offset"),
        ("page", {"pageSize": "5000"}, "pageSize"),
        ("page", {"page": "0"}, "page"),
        ("offset", [("limit", "5"), ("limit", "6")], "limit"),
    ],
)
async def test_bad_paging_parameters_are_422(
    serve: StartSimulator, session: aiohttp.ClientSession, scheme: str, params: object, name: str
) -> None:
    """Out-of-range or malformed paging parameters give 422 invalid_parameter naming them."""
    simulator = await serve(error_format="error")
    headers = {"X-Simulator-Paging": scheme}
    status, body, _ = await get_json(session, f"{simulator.url}/v1/endpoints", params, headers)
    assert status == 422
    assert body["error"]["code"] == "invalid_parameter"
    assert body["error"]["message"].startswith(f"{name} must be")


async def test_unused_paging_parameters_are_ignored(
    sim: Simulator, session: aiohttp.ClientSession
) -> None:
    """Parameters of other schemes (cursor, page, pageSize) are ignored, never filters."""
    params = {"page": "3", "pageSize": "7", "limit": "4", "offset": "2"}
    status, body, _ = await get_json(session, f"{sim.url}/v1/endpoints", params)
    assert status == 200
    assert [item["id"] for item in body["data"]] == list(sim.dataset.ids("endpoints"))[2:6]


@pytest.mark.parametrize("convention", ["none", "cursor", "odata", "spring", "header-page"])
@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("pageSize", "101"),
        ("pageSize", "oops"),
        ("limit", "0"),
        ("offset", "-1"),
        ("page", "0"),
        ("page", str(2**31)),
        ("offset", "1.5"),
    ],
)
async def test_contract_paging_parameters_keep_their_bounds_in_every_convention(
    sim: Simulator, session: aiohttp.ClientSession, convention: str, name: str, value: str
) -> None:
    """offset, limit, page and pageSize outside the contract's bounds are 422 whatever the
    convention, even one that ignores them (unless it reads that name by its own rule)."""
    headers = {"X-Simulator-Paging": convention}
    params = {name: value}
    status, body, _ = await get_json(session, f"{sim.url}/v1/endpoints", params, headers)
    own = convention == "spring" and (name, value) == ("page", "0")
    assert (status, None if own else message_of(body).startswith(f"{name} must be")) == (
        (200, None) if own else (422, True)
    )


async def test_offset_page_reports_total(sim: Simulator, session: aiohttp.ClientSession) -> None:
    """The offset envelope echoes offset and limit and gives the total."""
    headers = {"X-Simulator-Paging": "offset"}
    params = {"offset": "3", "limit": "5"}
    _, body, _ = await get_json(session, f"{sim.url}/v1/scopes", params, headers)
    assert (body["offset"], body["limit"], body["total"]) == (3, 5, sim.dataset.count("scopes"))
    assert [item["id"] for item in body["data"]] == list(sim.dataset.ids("scopes"))[3:8]


async def test_offset_past_the_end_is_an_empty_page(
    sim: Simulator, session: aiohttp.ClientSession
) -> None:
    """An offset beyond the total gives no items, not an error."""
    headers = {"X-Simulator-Paging": "offset"}
    _, body, _ = await get_json(session, f"{sim.url}/v1/scopes", {"offset": "999"}, headers)
    assert body == {"data": [], "total": sim.dataset.count("scopes"), "limit": 50, "offset": 999}


async def test_numbered_page_reports_total_pages(
    sim: Simulator, session: aiohttp.ClientSession
) -> None:
    """The page envelope gives total and totalPages (rounded up)."""
    headers = {"X-Simulator-Paging": "page"}
    params = {"page": "2", "pageSize": "10"}
    _, body, _ = await get_json(session, f"{sim.url}/v1/scopes", params, headers)
    assert (body["page"], body["pageSize"], body["total"], body["totalPages"]) == (2, 10, 24, 3)
    assert [item["id"] for item in body["data"]] == list(sim.dataset.ids("scopes"))[10:20]


CURSOR = {"X-Simulator-Paging": "cursor"}


async def test_last_cursor_page_has_null_next_cursor(
    sim: Simulator, session: aiohttp.ClientSession
) -> None:
    """A page that ends the list says nextCursor: null."""
    _, body, _ = await get_json(session, f"{sim.url}/v1/scopes", {"limit": "24"}, CURSOR)
    assert body["nextCursor"] is None


async def first_cursor(simulator: Simulator, session: aiohttp.ClientSession) -> str:
    params = [("osFamily", "windows"), ("limit", "3")]
    _, body, _ = await get_json(session, f"{simulator.url}/v1/endpoints", params, CURSOR)
    cursor: str = body["nextCursor"]
    return cursor


def flip_a_bit(cursor: str) -> str:
    raw = bytearray(base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)))
    raw[10] ^= 1
    return base64.urlsafe_b64encode(bytes(raw)).rstrip(b"=").decode()


@pytest.mark.parametrize(
    ("mutate", "params"),
    [
        (flip_a_bit, [("osFamily", "windows")]),
        (lambda cursor: cursor[:-2], [("osFamily", "windows")]),
        (lambda cursor: "not a cursor!", [("osFamily", "windows")]),
        (lambda cursor: cursor, [("osFamily", "linux")]),
        (lambda cursor: cursor, []),
    ],
    ids=["forged", "garbled", "junk", "other-filters", "no-filters"],
)
async def test_bad_cursors_are_400_invalid_cursor(
    sim: Simulator, session: aiohttp.ClientSession, mutate: object, params: list[tuple[str, str]]
) -> None:
    """Forged, garbled or re-targeted cursors give 400 invalid_cursor."""
    cursor = mutate(await first_cursor(sim, session))  # type: ignore[operator]
    url = f"{sim.url}/v1/endpoints"
    status, body, _ = await get_json(session, url, [*params, ("cursor", cursor)], CURSOR)
    assert status == 400
    assert message_of(body).startswith("invalid cursor")


async def test_cursor_of_another_collection_is_refused(
    sim: Simulator, session: aiohttp.ClientSession
) -> None:
    """A cursor only works on the collection that issued it."""
    _, body, _ = await get_json(session, f"{sim.url}/v1/endpoints", {"limit": "2"}, CURSOR)
    params = {"cursor": body["nextCursor"]}
    status, error, _ = await get_json(session, f"{sim.url}/v1/scopes", params, CURSOR)
    assert status == 400
    assert message_of(error).startswith("invalid cursor")


async def test_cursor_from_another_seed_is_refused(
    serve: StartSimulator, session: aiohttp.ClientSession
) -> None:
    """Cursors are signed with the seed: another run's cursor is invalid."""
    first, second = await serve(seed=1), await serve(seed=2)
    _, body, _ = await get_json(session, f"{first.url}/v1/endpoints", {"limit": "2"}, CURSOR)
    params = {"cursor": body["nextCursor"]}
    status, _, _ = await get_json(session, f"{second.url}/v1/endpoints", params, CURSOR)
    assert status == 400


async def test_link_header_has_next_and_first(
    sim: Simulator, session: aiohttp.ClientSession
) -> None:
    """Link carries an absolute rel=next with cursor, limit and filters, and rel=first."""
    headers = {"X-Simulator-Paging": "link"}
    params = [("hasAgent", "true"), ("limit", "4")]
    async with session.get(f"{sim.url}/v1/endpoints", params=params, headers=headers) as response:
        links = response.links
    next_url = URL(str(links["next"]["url"]))
    assert next_url.is_absolute()
    assert str(next_url).startswith(sim.url)
    assert next_url.query.getall("hasAgent") == ["true"]
    assert next_url.query["limit"] == "4"
    assert next_url.query["cursor"]
    assert "cursor" not in URL(str(links["first"]["url"])).query


async def test_last_link_page_has_no_next(sim: Simulator, session: aiohttp.ClientSession) -> None:
    """The last page's Link has rel=first only."""
    headers = {"X-Simulator-Paging": "link"}
    async with session.get(f"{sim.url}/v1/scopes", headers=headers) as response:
        assert set(response.links) == {"first"}


async def test_link_urls_percent_encode_filter_values(
    serve: StartSimulator, session: aiohttp.ClientSession
) -> None:
    """Query values with reserved characters survive a trip through the Link header (a
    parameter the list does not declare is carried, and ignored, on every page)."""
    simulator = await serve(id_prefix="a,b;c <d>&e=f/é:")
    filters = [("osFamily", "windows"), ("note", "a,b;c <d>&e=f/é:")]
    headers = {"X-Simulator-Paging": "link"}
    url = f"{simulator.url}/v1/endpoints"
    ids = await list_all_ids(session, simulator.url, "endpoints", "link", size=3, filters=filters)
    assert ids == list(simulator.dataset.ids("endpoints", {"osFamily": "windows"}))
    async with session.get(url, params=[*filters, ("limit", "3")], headers=headers) as response:
        next_url = URL(str(response.links["next"]["url"]))
    assert next_url.query.getall("note") == ["a,b;c <d>&e=f/é:"]


async def test_bare_array_of_a_long_list_is_streamed(
    serve: StartSimulator, session: aiohttp.ClientSession
) -> None:
    """`none` streams long lists with chunked encoding and still sends every record."""
    simulator = await serve(size=60, paging="none")
    async with session.get(f"{simulator.url}/v1/{FINDINGS}") as response:
        assert response.headers["Transfer-Encoding"] == "chunked"
        body = await response.json()
    assert [item["id"] for item in body] == list(simulator.dataset.ids(FINDINGS))
    assert len(body) > 1000


async def test_unknown_paging_header_is_400(sim: Simulator, session: aiohttp.ClientSession) -> None:
    """An unknown X-Simulator-Paging value gives 400 invalid_parameter."""
    headers = {"X-Simulator-Paging": "scroll"}
    status, body, _ = await get_json(session, f"{sim.url}/v1/scopes", headers=headers)
    assert status == 400
    assert message_of(body).startswith("X-Simulator-Paging: ")


async def test_pages_are_stable_between_requests(
    serve: StartSimulator, session: aiohttp.ClientSession
) -> None:
    """The same request gives byte-identical pages, cached or not."""
    cached, uncached = await serve(), await serve(cache=False)
    bodies = []
    for simulator in (cached, cached, uncached):
        params = {"limit": "50"}
        async with session.get(f"{simulator.url}/v1/{FINDINGS}", params=params) as response:
            bodies.append(await response.read())
    assert bodies[0] == bodies[1] == bodies[2]
