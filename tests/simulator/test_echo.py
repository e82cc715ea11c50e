"""Echo mode (`echo_token`): the credential comes back in cursors, links, redirects and errors."""

from __future__ import annotations

from urllib.parse import quote

import aiohttp
import pytest
from yarl import URL

from remedy_async.simulator import SimulatorConfig

from .helpers import StartSimulator, get_json, record_url
from .test_cli import parse

TOKEN = "t/k+n=%&x y"
"""A credential with characters a URL must quote."""
AUTH = {"Authorization": f"Bearer {TOKEN}"}
QUOTED = quote(TOKEN, safe="")


async def test_cursors_carry_the_credential_and_are_accepted_back(
    serve: StartSimulator, session: aiohttp.ClientSession
) -> None:
    """Each cursor ends in `.<credential>`; sent back as given, it continues the list."""
    simulator = await serve(echo_token=True, token=TOKEN, paging="cursor")
    url = f"{simulator.url}/v1/endpoints"
    _, first, _ = await get_json(session, url, {"limit": "5"}, AUTH)
    assert first["nextCursor"].endswith(f".{TOKEN}")
    status, second, _ = await get_json(
        session, url, {"limit": "5", "cursor": first["nextCursor"]}, AUTH
    )
    assert status == 200
    assert second["data"][0]["id"] == list(simulator.dataset.ids("endpoints"))[5]


async def test_links_carry_the_credential_quoted_and_can_be_followed(
    serve: StartSimulator, session: aiohttp.ClientSession
) -> None:
    """Next and first links get `echo=<credential>`; the server ignores it when followed."""
    simulator = await serve(echo_token=True, paging="link")
    url = f"{simulator.url}/v1/scopes"
    _, _, headers = await get_json(session, url, {"limit": "3"}, AUTH)
    links = headers["Link"]
    assert links.count(f"echo={QUOTED}") == 2
    next_url = links.split(">", 1)[0].removeprefix("<")
    status, body, headers = await get_json(session, URL(next_url, encoded=True), None, AUTH)
    assert status == 200
    assert body[0]["id"] == list(simulator.dataset.ids("scopes"))[3]
    assert headers["Link"].count("echo=") == 2  # replaced, not repeated


async def test_a_get_is_redirected_to_the_same_url_with_the_echo(
    serve: StartSimulator, session: aiohttp.ClientSession
) -> None:
    """A get without `echo` is a 307 to the same path and query plus `echo=<credential>`."""
    simulator = await serve(echo_token=True, id_prefix="a b/")
    record_id = next(simulator.dataset.ids("endpoints"))
    url = record_url(simulator.url, "endpoints", record_id).with_query(view="x")
    async with session.get(url, headers=AUTH, allow_redirects=False) as response:
        assert response.status == 307
        location = response.headers["Location"]
    assert location == f"{url.raw_path}?view=x&echo={QUOTED}"
    status, body, _ = await get_json(session, URL(simulator.url + location, encoded=True))
    assert status == 200
    assert body["id"] == record_id


async def test_errors_echo_even_a_wrong_credential(
    serve: StartSimulator, session: aiohttp.ClientSession
) -> None:
    """A 401 for a wrong credential shows that credential in its message (and code)."""
    simulator = await serve(echo_token=True, token="right")
    _, body, _ = await get_json(session, f"{simulator.url}/v1/endpoints", None, AUTH)
    assert body["error"] == f"Missing or invalid API key. (credential {TOKEN})"
    coded = await serve(echo_token=True, token="right", error_format="error")
    _, body, _ = await get_json(session, f"{coded.url}/v1/endpoints", None, AUTH)
    assert body["error"]["code"] == f"unauthorized:{TOKEN}"
    assert TOKEN in body["error"]["message"]


async def test_without_a_credential_nothing_is_echoed(
    serve: StartSimulator, session: aiohttp.ClientSession
) -> None:
    """A request carrying no credential gets the plain answers."""
    simulator = await serve(echo_token=True, paging="cursor")
    _, body, _ = await get_json(session, f"{simulator.url}/v1/endpoints", {"limit": "2"})
    assert "." not in body["nextCursor"]
    unknown = "00000000-0000-4000-8000-000000000000"
    status, body, _ = await get_json(session, record_url(simulator.url, "endpoints", unknown))
    assert (status, body) == (404, {"error": "Endpoint not found."})


async def test_echo_is_off_by_default(
    serve: StartSimulator, session: aiohttp.ClientSession
) -> None:
    """By default nothing is echoed, `echo` is an undeclared parameter (ignored, or refused
    with `strict_params`) and echoed cursors are refused."""
    simulator = await serve(paging="cursor")
    url = f"{simulator.url}/v1/endpoints"
    _, first, _ = await get_json(session, url, {"limit": "2"}, AUTH)
    assert "." not in first["nextCursor"]
    cursor = f"{first['nextCursor']}.{TOKEN}"
    status, body, _ = await get_json(session, url, {"cursor": cursor}, AUTH)
    assert status == 400
    assert TOKEN not in body["error"]
    status, _, _ = await get_json(session, url, {"echo": "x"}, AUTH)
    assert status == 200
    strict = await serve(strict_params=True)
    status, body, _ = await get_json(session, f"{strict.url}/v1/endpoints", {"echo": "x"}, AUTH)
    assert status == 422
    assert body["error"].startswith("Unknown query parameter: echo ")


@pytest.mark.parametrize(("argv", "echo"), [((), False), (("--echo-token",), True)])
def test_echo_token_option(argv: tuple[str, ...], echo: bool) -> None:
    """--echo-token turns echo mode on."""
    assert parse(*argv) == SimulatorConfig(echo_token=echo)
