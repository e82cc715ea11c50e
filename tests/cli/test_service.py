"""`api -i` (gh's `--include`): the status line and the response's headers before the body, a
secret the service echoed into a header redacted, the head of a failed response too. Against
the published contract in a MockTransport, with a route of its own beside it."""

from __future__ import annotations

import orjson

from remedy_async import MockRequest, MockResponse
from remedy_async.cli._service import status_line
from tests.loopback import CANARY

from .conftest import MISSING, Published


def echo(request: MockRequest) -> MockResponse:
    """A route that echoes the credential it got into a header, as a careless service might,
    and repeats another header."""
    headers = [
        ("X-Request-Id", "req-42"),
        ("X-Seen-Authorization", request.headers.get("Authorization", "")),
        ("Link", "<https://a.example/1>"),
        ("Link", "<https://a.example/2>"),
        ("Content-Type", "application/json"),
    ]
    return MockResponse(200, headers, f'{{"big": {2**70}, "ok": true}}'.encode())


def test_the_status_line_names_the_status_and_ends_in_a_blank_line() -> None:
    """`HTTP/1.1 200 OK`, a line per header in order, then an empty line; an unknown status
    has no reason phrase."""
    assert status_line(200, {"A": "1", "B": "2"}) == b"HTTP/1.1 200 OK\nA: 1\nB: 2\n\n"
    assert status_line(599, {}) == b"HTTP/1.1 599\n\n"


async def test_include_prints_the_head_then_the_body() -> None:
    """`api -i PATH`: status line, every header (a repeated one on each of its lines), a blank
    line, then the JSON body with its numbers exact; the echoed token is redacted."""
    service = Published(token=CANARY, beside={"/v1/echo": echo})
    outcome = await service.run(
        "api", "-i", "/v1/echo", "--base-url", service.url, "--token", CANARY
    )
    assert outcome.code == 0, outcome.stderr
    head, _, body = outcome.stdout.partition(b"\n\n")
    lines = head.decode().splitlines()
    assert lines[0] == "HTTP/1.1 200 OK"
    assert "X-Request-Id: req-42" in lines
    assert "X-Seen-Authorization: Bearer [REDACTED]" in lines
    assert [line for line in lines if line.startswith("Link: ")] == [
        "Link: <https://a.example/1>",
        "Link: <https://a.example/2>",
    ]
    assert orjson.loads(body) == {"big": 2**70, "ok": True}
    assert str(2**70).encode() in body
    assert CANARY not in outcome.stdout.decode() + outcome.stderr


async def test_without_include_only_the_body_is_printed() -> None:
    """`api PATH` prints the JSON body alone, as before."""
    service = Published(beside={"/v1/echo": echo})
    outcome = await service.run("api", "/v1/echo", "--base-url", service.url)
    assert outcome.code == 0, outcome.stderr
    assert outcome.stdout.startswith(b"{")
    assert orjson.loads(outcome.stdout) == {"big": 2**70, "ok": True}


async def test_include_prints_the_head_of_a_failed_response(published: Published) -> None:
    """An error status: its status line and headers on stdout, the error line on stderr, exit 1."""
    outcome = await published.run(
        "api", "--include", f"/v1/endpoints/{MISSING}", "--base-url", published.url
    )
    assert outcome.code == 1
    assert outcome.stdout.startswith(b"HTTP/1.1 404 Not Found\n")
    assert outcome.stdout.endswith(b"\n\n")
    assert "NotFoundError: 404" in outcome.stderr


async def test_include_with_paginate_is_a_usage_error(published: Published) -> None:
    """One response's head and many pages' records as one array do not mix: exit 2 at once."""
    outcome = await published.run(
        "api", "-i", "--paginate", "/v1/scopes", "--base-url", published.url
    )
    assert outcome.code == 2
    assert "--include" in outcome.stderr
    assert published.requests == []
