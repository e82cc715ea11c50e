"""`api -i` (gh's `--include`): the status line and the response's headers before the body, a
secret the service echoed into a header redacted, the head of a failed response too. Against
the published contract in a MockTransport, with a route of its own beside it."""

from __future__ import annotations

import orjson
import pytest

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


async def test_include_prints_the_head_and_body_of_a_failed_response(published: Published) -> None:
    """An error status, as gh api -i shows it: its status line, headers and JSON body on stdout,
    the error line on stderr, exit 1."""
    outcome = await published.run(
        "api", "--include", f"/v1/endpoints/{MISSING}", "--base-url", published.url
    )
    assert outcome.code == 1
    assert outcome.stdout.startswith(b"HTTP/1.1 404 Not Found\n")
    head, _, body = outcome.stdout.partition(b"\n\n")
    assert b"Content-Type: application/json" in head
    assert orjson.loads(body) == {"error": "Endpoint not found."}
    assert "NotFoundError: 404" in outcome.stderr


def failing(status: int, body: bytes, content_type: str) -> object:
    """A route answering `status` with `body`, echoing the credential into the body."""

    def answer(request: MockRequest) -> MockResponse:
        said = body.replace(b"TOKEN", request.headers.get("Authorization", "").encode())
        return MockResponse(status, [("Content-Type", content_type)], said)

    return answer


async def test_include_prints_a_text_error_body_as_text_with_the_token_scrubbed() -> None:
    """A 403 whose text body echoes the credential: the body follows the head as text, the
    token redacted; stderr has the error line."""
    service = Published(
        token=CANARY, beside={"/v1/denied": failing(403, b"no: TOKEN", "text/plain")}
    )
    outcome = await service.run(
        "api", "-i", "/v1/denied", "--base-url", service.url, "--token", CANARY
    )
    assert outcome.code == 1
    head, _, body = outcome.stdout.partition(b"\n\n")
    assert head.startswith(b"HTTP/1.1 403 Forbidden\n")
    assert body == b"no: Bearer [REDACTED]\n"
    assert CANARY not in outcome.stdout.decode() + outcome.stderr


async def test_include_says_when_an_error_body_was_cut() -> None:
    """An error body past what the client keeps: its start on stdout, a note on stderr."""
    big = b"x" * (200 * 1024)
    service = Published(beside={"/v1/huge": failing(500, big, "text/plain")})
    outcome = await service.run(
        "api", "-i", "/v1/huge", "--base-url", service.url, "--retries", "0"
    )
    assert outcome.code == 1
    _, _, body = outcome.stdout.partition(b"\n\n")
    assert 0 < len(body) < len(big)
    assert set(body.strip()) == {ord("x")}
    assert "only its start is shown" in outcome.stderr


async def test_include_with_paginate_is_a_usage_error(published: Published) -> None:
    """One response's head and many pages' records as one array do not mix: exit 2 at once."""
    outcome = await published.run(
        "api", "-i", "--paginate", "/v1/scopes", "--base-url", published.url
    )
    assert outcome.code == 2
    assert "--include" in outcome.stderr
    assert published.requests == []


async def test_api_takes_a_query_in_the_path(published: Published) -> None:
    """`api '/v1/scopes?limit=1'` sends that query, as gh api takes it, with -F fields after."""
    outcome = await published.run(
        "api", "/v1/scopes?limit=1&offset=2", "-F", "note=x", "--base-url", published.url
    )
    assert outcome.code == 0, outcome.stderr
    (request,) = published.requests
    assert request.path == "/v1/scopes"
    assert list(request.query.items()) == [("limit", "1"), ("offset", "2"), ("note", "x")]
    assert [scope["id"] for scope in orjson.loads(outcome.stdout)["data"]] == published.ids(
        "scopes"
    )[2:3]


async def test_api_paginate_takes_a_limit_in_the_path_as_its_page_size(
    published: Published,
) -> None:
    """`api '/v1/endpoints?osFamily=linux&limit=7' --paginate` asks pages of 7 with the filter,
    and prints every matching record."""
    outcome = await published.run(
        "api", "/v1/endpoints?osFamily=linux&limit=7", "--paginate", "--base-url", published.url
    )
    assert outcome.code == 0, outcome.stderr
    expected = [
        r["id"]
        for r in published.records["endpoints"]
        if r["operating_system"]["family"] == "linux"
    ]
    assert [record["id"] for record in orjson.loads(outcome.stdout)] == expected
    assert {request.query["limit"] for request in published.requests} == {"7"}
    assert {request.query["osFamily"] for request in published.requests} == {"linux"}


@pytest.mark.parametrize(
    ("path", "said"),
    [
        ("/v1/endpoints?offset=3", "--paginate follows the pages itself: leave them out"),
        ("/v1/endpoints?limit=500", "limit must be at most 100, got 500"),
        ("/v1/endpoints?limit=x", "limit is one whole number, got 'x'"),
    ],
    ids=["offset", "too-large", "not-a-number"],
)
async def test_api_paginate_refuses_paging_of_its_own(
    published: Published, path: str, said: str
) -> None:
    """A paging parameter --paginate sets itself, or a page size it cannot ask, is a usage
    error in the command's words (no Python argument named), before any request."""
    outcome = await published.run("api", path, "--paginate", "--base-url", published.url)
    assert outcome.code == 2
    assert said in outcome.stderr
    assert "page_size" not in outcome.stderr
    assert published.requests == []


async def test_api_refuses_a_fragment(published: Published) -> None:
    """A `#fragment` is never sent to a server: refused rather than sent as part of a value."""
    outcome = await published.run("api", "/v1/scopes?limit=1#top", "--base-url", published.url)
    assert outcome.code == 2
    assert "a fragment (#...) is never sent to a server" in outcome.stderr
    assert published.requests == []
