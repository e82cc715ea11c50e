"""Errors the command line reports give its advice, not the library's: flags and environment
variables where the library names Python arguments. Run in this process against the
published contract in a MockTransport."""

from __future__ import annotations

import re

import pytest

from remedy_async.cli._errors import in_flags

from .conftest import Published, cli_here

PYTHON_ADVICE = re.compile(r"\b[a-z_]+=(?:\W|$)|RemedyClient\(")
"""Python advice in a message: an argument to pass (`token=`, `page_size=...`) or a call."""

TOKEN = "furl_sk_live_0123456789abcdefghijklmnop"


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (("--base-url", TOKEN), "--base-url (or REMEDY_BASE_URL) looks like a token"),
        (("--base-url", "ftp://x"), "--base-url (or REMEDY_BASE_URL) must be an absolute"),
        (("--base-url", "https://u:p@api.example.com"), "pass --token or set REMEDY_API_TOKEN"),
        (("--base-url", "http://api.example.com"), "pass --allow-insecure-http"),
        (("--page-size", "500"), "--page-size must be at most 100"),
    ],
    ids=["token-as-url", "not-a-url", "credentials", "plain-http", "page"],
)
async def test_a_configuration_error_gives_command_line_advice(
    published: Published, args: tuple[str, ...], said: str
) -> None:
    """Each names the flag (or variable) the user sets, never a Python argument, and never
    repeats a token given in the wrong place; exit 2 before any request."""
    outcome = await published.run("list", "scopes", "--base-url", published.url, *args)
    assert (outcome.code, outcome.stdout) == (2, b"")
    assert said in outcome.stderr
    assert PYTHON_ADVICE.search(outcome.stderr) is None, outcome.stderr
    assert TOKEN not in outcome.stderr
    assert published.requests == []


async def test_a_token_given_as_the_proxy_is_named_in_flags() -> None:
    """`--proxy TOKEN` says where the token goes (the variable, or --token) and where a proxy's
    credentials go, without repeating it; the client is refused before any connection."""
    outcome = await cli_here(
        "list", "scopes", "--base-url", "https://api.example.com", "--proxy", TOKEN
    )
    assert (outcome.code, outcome.stdout) == (2, b"")
    assert "--proxy looks like a token" in outcome.stderr
    assert "the API token goes in REMEDY_API_TOKEN (or --token)" in outcome.stderr
    assert PYTHON_ADVICE.search(outcome.stderr) is None, outcome.stderr
    assert TOKEN not in outcome.stderr


@pytest.mark.parametrize(
    ("args", "env", "said"),
    [
        (("--token", "wrong"), {}, "from --token or REMEDY_API_TOKEN"),
        ((), {"REMEDY_API_TOKEN": "wrong"}, "from --token or REMEDY_API_TOKEN"),
        ((), {}, "neither --token nor REMEDY_API_TOKEN was given"),
    ],
    ids=["flag", "variable", "none"],
)
async def test_a_401_says_where_the_token_came_from_in_flags(
    args: tuple[str, ...], env: dict[str, str], said: str
) -> None:
    """A refused or missing token is described by the flag and the variable, exit 1."""
    service = Published(token="right")
    outcome = await service.run("list", "scopes", "--base-url", service.url, *args, env=env)
    assert outcome.code == 1
    assert said in outcome.stderr
    assert PYTHON_ADVICE.search(outcome.stderr) is None, outcome.stderr


def test_every_argument_is_respelt_as_its_flag() -> None:
    """The mapping rewrites a library message's arguments, leaving the rest as it was."""
    assert in_flags("max_in_flight must be at least 1, got 0") == (
        "--max-in-flight must be at least 1, got 0"
    )
    assert in_flags("nothing to change") == "nothing to change"
