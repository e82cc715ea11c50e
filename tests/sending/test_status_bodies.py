"""An error status keeps the whole body: parsed JSON (numbers exact) or text, bounded at
BODY_LIMIT with the cut said, the token redacted wherever it appears; message and excerpt as
before. Over a MockTransport, and over loopback for the streamed download's error body."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest
from multidict import CIMultiDict, CIMultiDictProxy
from yarl import URL

from remedy_async import (
    MockResponse,
    NotFoundError,
    PermissionDeniedError,
    RateLimitError,
    RemedyClient,
    RetryPolicy,
    ServerError,
)
from remedy_async._errors import BODY_LIMIT, EXCERPT_LIMIT
from remedy_async._redact import REDACTED
from remedy_async._sending._status import status_error
from remedy_async._wire._http import Request, Response
from tests.fakes import FakeTime
from tests.loopback import CANARY, serve_handler
from tests.mock_service import Routes, Script

URL_ = URL("https://api.furl.ai/v1/endpoints/00000000-0000-4000-8000-000000000009")
ID = "00000000-0000-4000-8000-000000000009"


def response(status: int, body: bytes, content_type: str | None = "application/json") -> Response:
    """A complete response to `GET URL_`."""
    pairs = [] if content_type is None else [("Content-Type", content_type)]
    headers = CIMultiDictProxy(CIMultiDict(pairs))
    return Response(request=Request("GET", URL_), status=status, headers=headers, body=body)


def test_a_json_error_body_is_kept_parsed_with_every_number_exact() -> None:
    """The published `{"error": ...}` body, with more beside it, is kept as parsed JSON; an
    integer past 64 bits stays that int; the message is the service's as before."""
    raw = b'{"error": "Endpoint not found.", "trace": {"n": 1180591620717411303425, "f": 0.1}}'
    error = status_error(response(404, raw))
    assert isinstance(error, NotFoundError)
    assert error.body == {"error": "Endpoint not found.", "trace": {"n": 2**70 + 1, "f": 0.1}}
    assert error.body_truncated is False
    assert error.message == "Endpoint not found."
    assert error.body_excerpt == raw.decode()


def test_a_json_body_without_a_json_content_type_is_still_parsed() -> None:
    """A body that begins with `{` or `[` and parses is JSON whatever its label."""
    error = status_error(response(500, b'[{"error": "boom"}]', content_type="text/plain"))
    assert error.body == [{"error": "boom"}]


def test_a_text_body_is_kept_as_its_text() -> None:
    """A body that is not JSON (an HTML page, plain text) is kept as text, whitespace and all."""
    page = "<html><head><title>502 Bad Gateway</title></head>\n<body>upstream</body></html>\n"
    error = status_error(response(502, page.encode(), content_type="text/html"))
    assert error.body == page
    assert error.body_truncated is False


def test_a_number_labelled_text_stays_text() -> None:
    """Plain text that happens to be JSON (`404`) is not turned into a number."""
    assert status_error(response(404, b"404", content_type="text/plain")).body == "404"


def test_json_that_does_not_parse_is_kept_as_text() -> None:
    """A body labelled JSON but cut or broken is kept as its text, not dropped."""
    error = status_error(response(500, b'{"error": "bo', content_type="application/json"))
    assert error.body == '{"error": "bo'


def test_an_empty_body_is_none() -> None:
    """No body at all: `body` is None, as `body_excerpt` is."""
    error = status_error(response(503, b""))
    assert (error.body, error.body_excerpt, error.body_truncated) == (None, None, False)


def test_a_body_over_the_limit_keeps_its_first_bytes_as_text_and_says_it_was_cut() -> None:
    """A JSON body one byte over BODY_LIMIT is kept as the text of its first BODY_LIMIT bytes,
    with `body_truncated`; the excerpt stays at its own bound."""
    filler = "x" * BODY_LIMIT
    raw = orjson.dumps({"error": "too big", "filler": filler})
    error = status_error(response(500, raw))
    assert error.body_truncated is True
    assert error.body == raw[:BODY_LIMIT].decode()
    assert error.message == "too big"  # read from the whole body, as before
    assert error.body_excerpt is not None
    assert len(error.body_excerpt) == EXCERPT_LIMIT


def test_a_body_of_exactly_the_limit_is_whole() -> None:
    """BODY_LIMIT bytes exactly are kept whole (parsed when JSON)."""
    value = "y" * (BODY_LIMIT - len(b'{"error":""}'))
    raw = orjson.dumps({"error": value})
    assert len(raw) == BODY_LIMIT
    error = status_error(response(400, raw))
    assert (error.body, error.body_truncated) == ({"error": value}, False)


def test_the_token_is_redacted_wherever_a_json_body_holds_it() -> None:
    """The token in a value, a key, nested, and JSON-escaped is replaced by [REDACTED]; the
    rest of the body is kept as sent."""
    sent = {
        "error": f"bad key {CANARY}",
        CANARY: 1,
        "echo": {"headers": [f"Bearer {CANARY}", "other"]},
        "count": 3,
    }
    error = status_error(response(401, orjson.dumps(sent)), secrets=(CANARY,))
    assert error.body == {
        "error": f"bad key {REDACTED}",
        REDACTED: 1,
        "echo": {"headers": [f"Bearer {REDACTED}", "other"]},
        "count": 3,
    }
    assert CANARY not in repr(error.body)


def test_a_number_spelling_the_token_is_redacted() -> None:
    """A token made of digits, echoed as a JSON number, is shown as [REDACTED]."""
    token = "8675309112233"
    error = status_error(response(400, b'{"error": "no", "key": 8675309112233}'), secrets=(token,))
    assert error.body == {"error": "no", "key": REDACTED}


def test_the_token_is_redacted_from_a_text_body_and_a_cut_one() -> None:
    """In a text body, and in a cut body ending with the token's beginning, nothing of it
    shows."""
    text = status_error(
        response(500, f"key={CANARY}; bad".encode(), "text/plain"), secrets=[CANARY]
    )
    assert text.body == f"key={REDACTED}; bad"
    raw = b"a" * (BODY_LIMIT - 6) + CANARY.encode()
    cut = status_error(response(500, raw, "text/plain"), secrets=[CANARY])
    assert cut.body_truncated is True
    assert isinstance(cut.body, str)
    assert cut.body.endswith(REDACTED)
    assert CANARY[:6] not in cut.body


async def test_a_client_error_carries_the_body_the_service_sent() -> None:
    """Through the client (MockTransport): a 404 keeps the service's body, with the status,
    headers and request id it always had."""
    sent = {"error": "Endpoint not found.", "hint": "check the id"}
    script = Script(MockResponse.json(404, sent, headers={"X-Request-Id": "req-42"}))
    async with script.client(token=CANARY) as client:
        with pytest.raises(NotFoundError) as caught:
            await client.endpoints.get(ID)
    error = caught.value
    assert (error.body, error.body_truncated) == (sent, False)
    assert (error.status, error.request_id, error.headers["x-request-id"]) == (
        404,
        "req-42",
        "req-42",
    )
    assert str(error).startswith("404 Endpoint not found. (GET ")


async def test_a_429_that_ends_the_retries_keeps_its_body() -> None:
    """The error ending a call keeps the last response's body (the token redacted)."""
    time = FakeTime()
    sent = {"error": f"slow down {CANARY}", "limit": 600}
    script = Script(MockResponse.json(429, sent, headers={"Retry-After": "1"}))
    async with script.client(
        token=CANARY, retry=RetryPolicy(attempts=2), clock=time.clock, sleep=time.sleep
    ) as client:
        with pytest.raises(RateLimitError) as caught:
            await client.endpoints.get(ID)
    assert caught.value.body == {"error": f"slow down {REDACTED}", "limit": 600}
    assert caught.value.attempts == 2


async def test_a_streamed_error_body_over_the_limit_is_read_one_byte_past_it_and_cut(
    tmp_path: Path,
) -> None:
    """Over loopback, a download answered 500 with a 100 KiB body: the error keeps the first
    64 KiB, says it was cut, and the file is not written."""
    broken = MockResponse(500, {"Content-Type": "text/plain"}, b"E" * (100 * 1024))
    service = Routes({"/v1/agent-configuration": lambda request: broken})
    async with (
        serve_handler(service) as url,
        RemedyClient(url, token=CANARY, retry=RetryPolicy(attempts=1)) as client,
    ):
        with pytest.raises(ServerError) as caught:
            await client.download_agent_configuration(tmp_path / "agent.conf")
    assert caught.value.body_truncated is True
    assert caught.value.body == "E" * BODY_LIMIT
    assert list(tmp_path.iterdir()) == []


async def test_a_streamed_error_body_within_the_limit_is_whole(tmp_path: Path) -> None:
    """Over loopback, a download answered 403 with a JSON body keeps it whole and parsed."""
    refused = MockResponse.json(403, {"error": "Not allowed.", "scope": "agents"})
    service = Routes({"/v1/agent-configuration": lambda request: refused})
    async with serve_handler(service) as url, RemedyClient(url, token=CANARY) as client:
        with pytest.raises(PermissionDeniedError) as caught:
            await client.download_agent_configuration(tmp_path / "agent.conf")
    assert caught.value.body == {"error": "Not allowed.", "scope": "agents"}
    assert caught.value.body_truncated is False


async def test_a_wait_too_long_to_honour_keeps_the_body_of_the_429_that_asked_it() -> None:
    """A Retry-After past max_retry_after raises RateLimitError at once, with the 429's body."""
    sent = {"error": "daily quota spent", "resets": "tomorrow"}
    script = Script(MockResponse.json(429, sent, headers={"Retry-After": "86400"}))
    async with script.client(token=CANARY) as client:
        with pytest.raises(RateLimitError) as caught:
            await client.endpoints.get(ID)
    error = caught.value
    assert (error.retry_after, error.body, error.body_truncated) == (86400.0, sent, False)
    assert error.body_excerpt == orjson.dumps(sent).decode()
    assert len(script.requests) == 1
