"""Every error-body shape (`--errors`): the client reads each one's explanation over the wire."""

from __future__ import annotations

import argparse

import aiohttp
import orjson
import pytest

from remedy_async import (
    ERROR_SHAPES,
    AuthenticationError,
    BadRequestError,
    NotFoundError,
    RemedyClient,
    UnprocessableEntityError,
)
from remedy_async.simulator import (
    ERROR_FORMATS,
    FaultSpec,
    SimulatorConfig,
    add_serve_arguments,
    config_from_args,
)
from remedy_async.simulator._responses import SHAPES

from .helpers import StartSimulator, get_json, record_url

TOKEN = "shape-token"
UNKNOWN = "00000000-0000-4000-8000-000000000000"
CODE_AS_READ = {
    "error": "{code}",
    "problem": "{code}",
    "json-api": "{code}",
    "graphql": "{code}",
    "oauth": "{code}",
    "message": "{code}",
}
"""The shapes with a code the client reads, and how (a problem's `code` member, not its `type`)."""


def expected_code(shape: str, code: str) -> str | None:
    template = CODE_AS_READ.get(shape)
    return None if template is None else template.format(code=code)


def test_every_shape_has_a_renderer_and_the_clients_name() -> None:
    """The simulator renders, in order, exactly the shapes the client tells apart."""
    assert tuple(SHAPES) == ERROR_FORMATS == ERROR_SHAPES
    assert len(set(ERROR_FORMATS)) == 13
    assert SimulatorConfig().error_format == "error-string"  # the published {"error": "..."}


@pytest.mark.parametrize("shape", ERROR_FORMATS)
async def test_a_missing_id_is_not_found_with_the_simulators_message(
    serve: StartSimulator, shape: str
) -> None:
    """A get of an unknown id raises NotFoundError showing the simulator's explanation."""
    simulator = await serve(error_format=shape, size=2)
    async with RemedyClient(simulator.url) as client:
        with pytest.raises(NotFoundError) as caught:
            await client.endpoints.get(UNKNOWN)
    error = caught.value
    assert "Endpoint not found." in str(error)
    assert len(str(error)) < 500
    assert error.code == expected_code(shape, "not_found")
    assert error.body_shape == shape
    assert error.request_id


@pytest.mark.parametrize("shape", ERROR_FORMATS)
async def test_a_wrong_token_is_an_authentication_error_with_the_explanation(
    serve: StartSimulator, shape: str
) -> None:
    """A 401 raises AuthenticationError showing why, in every shape."""
    simulator = await serve(error_format=shape, size=2, token=TOKEN)
    async with RemedyClient(simulator.url, token="wrong") as client:
        with pytest.raises(AuthenticationError) as caught:
            await client.scopes.list().collect()
    error = caught.value
    assert "Missing or invalid API key." in str(error)
    assert len(str(error)) < 500
    assert error.code == expected_code(shape, "unauthorized")
    assert error.body_shape == shape
    assert error.headers["WWW-Authenticate"] == 'Bearer realm="remedy"'


@pytest.mark.parametrize("shape", ERROR_FORMATS)
async def test_a_page_size_over_the_limit_is_unprocessable_with_its_code(
    serve: StartSimulator, shape: str
) -> None:
    """A 422 raises UnprocessableEntityError with the explanation and, where the shape has
    one, its code."""
    simulator = await serve(error_format=shape, size=2, page_size=10, max_page_size=50)
    async with RemedyClient(simulator.url) as client:
        with pytest.raises(UnprocessableEntityError) as caught:
            await client.endpoints.list(page_size=51).collect()
    error = caught.value
    assert "limit must be between 1 and 50." in str(error)
    assert len(str(error)) < 500
    assert error.code == expected_code(shape, "invalid_parameter")
    assert error.body_shape == shape


@pytest.mark.parametrize("shape", ERROR_FORMATS)
async def test_a_malformed_id_is_a_bad_request_with_the_published_message(
    serve: StartSimulator, shape: str
) -> None:
    """A 400 raises BadRequestError with the explanation and, where the shape has one, its code."""
    simulator = await serve(error_format=shape, size=2)
    async with RemedyClient(simulator.url) as client:
        with pytest.raises(BadRequestError) as caught:
            await client.endpoints.get("no-such-id")
    error = caught.value
    assert "Invalid endpoint ID format." in str(error)
    assert error.code == expected_code(shape, "invalid_id")
    assert error.body_shape == shape


@pytest.mark.parametrize(
    ("shape", "content_type"),
    [
        ("problem", "application/problem+json"),
        ("json-api", "application/vnd.api+json"),
        ("text", "text/plain; charset=utf-8"),
        ("html", "text/html; charset=utf-8"),
        ("fastapi", "application/json"),
    ],
)
async def test_each_shape_has_its_content_type(
    serve: StartSimulator, session: aiohttp.ClientSession, shape: str, content_type: str
) -> None:
    """Errors are labelled as their convention labels them, and keep their request id."""
    simulator = await serve(error_format=shape, size=2)
    async with session.get(record_url(simulator.url, "scopes", UNKNOWN)) as response:
        assert response.status == 404
        assert response.headers["Content-Type"] == content_type
        assert response.headers["X-Request-Id"]


async def test_fastapi_locations_name_the_parameter_path_or_header(
    serve: StartSimulator, session: aiohttp.ClientSession
) -> None:
    """FastAPI's `loc` names what was wrong: a query parameter, the id, the auth header."""
    simulator = await serve(error_format="fastapi", size=2, token=TOKEN)
    auth = {"Authorization": f"Bearer {TOKEN}"}
    cases = [
        (f"{simulator.url}/v1/endpoints", {"offset": "x"}, auth, ["query", "offset"]),
        (f"{simulator.url}/v1/endpoints", {"limit": "0"}, auth, ["query", "limit"]),
        (f"{simulator.url}/v1/endpoints", {"osFamily": "red"}, auth, ["query", "osFamily"]),
        (record_url(simulator.url, "endpoints", "x"), None, auth, ["path", "id"]),
        (f"{simulator.url}/v1/endpoints", None, None, ["header", "Authorization"]),
        (f"{simulator.url}/v2/nowhere", None, auth, []),
    ]
    for url, params, headers, location in cases:
        _, body, _ = await get_json(session, url, params, headers)
        (entry,) = body["detail"]
        assert entry["loc"] == location, url
        assert entry["msg"]
        assert entry["type"]


async def test_html_page_carries_status_and_message_in_its_title(
    serve: StartSimulator, session: aiohttp.ClientSession
) -> None:
    """The proxy page's title is `<status> <phrase>: <message>`, escaped; the body is filler."""
    simulator = await serve(error_format="html", size=2, strict_params=True)
    url = f"{simulator.url}/v1/scopes?%3Cx%3E=1"
    async with session.get(url) as response:
        page = await response.text()
    title = page.split("<title>", 1)[1]
    assert title.startswith("422 Unprocessable ")  # Entity, or Content from Python 3.13
    assert ": Unknown query parameter: &lt;x&gt; (" in title
    assert len(page) > 1000


async def test_text_carries_the_message_on_its_first_line(
    serve: StartSimulator, session: aiohttp.ClientSession
) -> None:
    """A text/plain error is the message and a newline."""
    simulator = await serve(error_format="text", size=2)
    async with session.get(record_url(simulator.url, "scopes", "x")) as response:
        assert await response.read() == b"Invalid scope ID format.\n"


async def test_a_fault_answers_in_the_runs_shape(
    serve: StartSimulator, session: aiohttp.ClientSession
) -> None:
    """Injected faults go through the same shapes, keeping their Retry-After."""
    simulator = await serve(error_format="oauth", size=2, faults=[FaultSpec("http-429", 1.0)])
    async with session.get(f"{simulator.url}/v1/scopes") as response:
        assert response.status == 429
        assert response.headers["Retry-After"] == "1"
        body = orjson.loads(await response.read())
    assert body == {"error": "rate_limited", "error_description": "too many requests; retry later"}


def parse(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    add_serve_arguments(parser)
    return parser.parse_args(argv)


@pytest.mark.parametrize("option", ["--errors", "--error-format"])
def test_errors_option_and_its_alias_pick_the_shape(option: str) -> None:
    """--errors SHAPE (or the older --error-format) sets error_format."""
    assert config_from_args(parse(option, "json-api")).error_format == "json-api"


def test_errors_help_lists_every_shape() -> None:
    """--help shows the option under both its names, and names every shape.

    Checked whatever way argparse lays the names out (Python 3.13 writes the metavar once:
    `--errors, --error-format SHAPE`; earlier ones after each name).
    """
    parser = argparse.ArgumentParser()
    add_serve_arguments(parser)
    (action,) = (a for a in parser._actions if a.dest == "error_format")
    assert action.option_strings == ["--errors", "--error-format"]
    shown = "".join(parser.format_help().split())
    assert all(name in shown for name in action.option_strings)
    assert ",".join(ERROR_FORMATS) in shown
