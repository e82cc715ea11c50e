"""`status_error`: a complete error response becomes its typed error, explained from its body,
with the request id and Retry-After it carries, and never the echoed credential."""

from __future__ import annotations

import orjson
import pytest
from multidict import CIMultiDict, CIMultiDictProxy
from yarl import URL

from remedy_async._errors import (
    EXCERPT_LIMIT,
    APIStatusError,
    AuthenticationError,
    BadRequestError,
    ConflictError,
    NotFoundError,
    PermissionDeniedError,
    RateLimitError,
    ServerError,
    UnprocessableEntityError,
)
from remedy_async._redact import REDACTED
from remedy_async._sending._status import status_error
from remedy_async._wire._http import Request, Response

URL_ = URL("https://api.example.com/v1/endpoints?limit=10")
TOKEN = "tok_live_5f3a9c0e1b2d"
JSON = "application/json"


def headers(*pairs: tuple[str, str]) -> CIMultiDictProxy[str]:
    """Response headers as aiohttp gives them."""
    return CIMultiDictProxy(CIMultiDict(pairs))


def response(
    status: int,
    body: bytes = b"",
    *pairs: tuple[str, str],
    content_type: str | None = None,
    request_id: str | None = None,
) -> Response:
    """A complete response to `GET URL_`."""
    extra = list(pairs)
    if content_type is not None:
        extra.append(("Content-Type", content_type))
    if request_id is not None:
        extra.append(("X-Request-Id", request_id))
    return Response(request=Request("GET", URL_), status=status, headers=headers(*extra), body=body)


def json_body(value: object) -> bytes:
    return orjson.dumps(value)


# ---------------------------------------------------------------------------------------------
# status -> class


@pytest.mark.parametrize(
    ("status", "error_class"),
    [
        (400, BadRequestError),
        (401, AuthenticationError),
        (403, PermissionDeniedError),
        (404, NotFoundError),
        (409, ConflictError),
        (422, UnprocessableEntityError),
        (429, RateLimitError),
        (500, ServerError),
        (502, ServerError),
        (503, ServerError),
        (504, ServerError),
        (418, APIStatusError),
        (302, APIStatusError),
    ],
)
def test_status_maps_to_its_error_class(status: int, error_class: type[APIStatusError]) -> None:
    """Each error status becomes exactly its typed error class."""
    error = status_error(response(status))
    assert type(error) is error_class
    assert error.status == status
    assert error.method == "GET"
    assert error.url == str(URL_)


def test_redirect_error_mentions_the_location() -> None:
    """A 3xx that was not followed names where it pointed."""
    error = status_error(response(302, b"", ("Location", "https://login.example.com/sso")))
    assert "https://login.example.com/sso" in str(error)
    assert "redirect" in error.message


def test_redirect_without_location_still_says_redirect() -> None:
    """A 3xx without a Location still says it was a redirect that was not followed."""
    assert "redirect" in status_error(response(307)).message


# ---------------------------------------------------------------------------------------------
# code, message, excerpt, request id


def test_error_envelope_gives_code_and_message() -> None:
    """An `{"error": {"code", "message"}}` body gives the error's code and message."""
    body = json_body({"error": {"code": "endpoint_not_found", "message": "No endpoint ep-9"}})
    error = status_error(response(404, body, content_type="application/json; charset=utf-8"))
    assert error.code == "endpoint_not_found"
    assert error.message == "No endpoint ep-9"
    assert "[endpoint_not_found] No endpoint ep-9" in str(error)


def test_error_as_string_gives_the_message() -> None:
    """An `{"error": "..."}` body gives the message."""
    error = status_error(response(400, json_body({"error": "bad filter"}), content_type=JSON))
    assert error.message == "bad filter"
    assert error.code is None


def test_problem_json_gives_type_and_detail() -> None:
    """An RFC 7807 body gives its type as code and its detail as message."""
    body = json_body(
        {
            "type": "https://errors.example.com/invalid-filter",
            "title": "Invalid filter",
            "detail": "severity must be one of low, medium, high, critical",
            "status": 422,
        }
    )
    error = status_error(response(422, body, content_type="application/problem+json"))
    assert error.code == "https://errors.example.com/invalid-filter"
    assert error.message == "severity must be one of low, medium, high, critical"


def test_problem_json_without_detail_uses_title() -> None:
    """An RFC 7807 body without detail gives its title; `about:blank` is no code."""
    body = json_body({"type": "about:blank", "title": "Not Found", "status": 404})
    error = status_error(response(404, body, content_type="application/problem+json"))
    assert error.code is None
    assert error.message == "Not Found"


def test_html_body_gives_a_short_excerpt() -> None:
    """An HTML body is shown as an excerpt of at most 500 characters."""
    page = "<html><body>" + "Bad gateway. " * 200 + "</body></html>"
    error = status_error(response(502, page.encode(), content_type="text/html"))
    assert error.code is None
    assert error.message == "HTTP 502"
    assert error.body_excerpt is not None
    assert len(error.body_excerpt) <= EXCERPT_LIMIT
    assert error.body_excerpt.startswith("<html><body>Bad gateway.")


def test_plain_text_body_is_the_excerpt_and_the_message() -> None:
    """A short plain-text body is the whole excerpt, stripped, and its first line the message."""
    error = status_error(response(503, b"  upstream unavailable\n", content_type="text/plain"))
    assert error.body_excerpt == "upstream unavailable"
    assert error.message == "upstream unavailable"


def test_empty_body_has_no_excerpt() -> None:
    """An empty or blank body gives no excerpt."""
    assert status_error(response(500, b" \n")).body_excerpt is None


def test_json_body_without_json_content_type_is_still_explained() -> None:
    """A JSON error body served as text/plain (a proxy's mislabel) is read as JSON."""
    body = json_body({"error": {"code": "x", "message": "y"}})
    error = status_error(response(400, body, content_type="text/plain"))
    assert (error.code, error.message) == ("x", "y")
    assert error.body_excerpt == body.decode()


def test_malformed_json_error_body_falls_back_to_status() -> None:
    """A broken JSON error body gives the status line and an excerpt."""
    error = status_error(response(500, b'{"error": {', content_type=JSON))
    assert error.message == "HTTP 500"
    assert error.body_excerpt == '{"error": {'


def test_request_id_comes_from_x_request_id() -> None:
    """The request id is read from X-Request-Id, case-insensitively, and shown in str()."""
    error = status_error(response(500, b"", ("x-request-id", "req-77")))
    assert error.request_id == "req-77"
    assert "req-77" in str(error)


def test_no_request_id_header_is_none() -> None:
    """Without X-Request-Id the request id is None."""
    assert status_error(response(500)).request_id is None


# ---------------------------------------------------------------------------------------------
# redaction


def test_echoed_token_is_redacted_from_message_str_and_repr() -> None:
    """A token the server echoes in its error message appears in neither str() nor repr()."""
    body = json_body({"error": {"code": "invalid_token", "message": f"token {TOKEN} expired"}})
    error = status_error(response(401, body, content_type=JSON), secrets=[TOKEN])
    assert TOKEN not in error.message
    assert REDACTED in error.message
    assert TOKEN not in str(error)
    assert TOKEN not in repr(error)
    assert error.body_excerpt is not None
    assert TOKEN not in error.body_excerpt


def test_echoed_token_is_redacted_from_code() -> None:
    """A token echoed as the error code is redacted."""
    body = json_body({"error": {"code": f"bad-{TOKEN}", "message": "no"}})
    error = status_error(response(401, body, content_type=JSON), secrets=[TOKEN])
    assert TOKEN not in str(error)
    assert TOKEN not in repr(error)


def test_echoed_token_is_redacted_from_a_plain_body_excerpt() -> None:
    """A token echoed in a non-JSON body is redacted from the excerpt."""
    body = f"Authorization: Bearer {TOKEN} rejected".encode()
    error = status_error(response(403, body, content_type="text/plain"), secrets=[TOKEN])
    assert error.body_excerpt == f"Authorization: Bearer {REDACTED} rejected"
    assert TOKEN not in str(error)
    assert TOKEN not in repr(error)


def test_secrets_given_as_a_generator_are_all_applied() -> None:
    """Secrets passed as a one-shot iterable still redact every field."""
    body = json_body({"error": {"code": TOKEN, "message": TOKEN}})
    error = status_error(response(401, body, content_type=JSON), secrets=iter([TOKEN]))
    assert TOKEN not in str(error)
    assert TOKEN not in (error.body_excerpt or "")


def test_json_escaped_echoed_token_is_redacted_from_body_excerpt() -> None:
    """A token echoed JSON-escaped (`\\/` for `/`) does not appear in the body excerpt."""
    token = "abc/DEF+ghi/jkl=="
    body = b'{"error":{"code":"bad","message":"token ' + token.replace("/", "\\/").encode() + b'"}}'
    error = status_error(response(401, body, content_type=JSON), secrets=[token])
    assert token not in error.message
    assert error.body_excerpt is not None
    assert token.replace("/", "\\/") not in error.body_excerpt


def test_token_straddling_the_read_limit_is_not_shown() -> None:
    """No part of a token leaks when the token straddles the 4096-byte display limit."""
    body = b" " * 4090 + TOKEN.encode()
    error = status_error(response(500, body, content_type="text/plain"), secrets=[TOKEN])
    assert TOKEN[:6] not in (error.body_excerpt or "")


# ---------------------------------------------------------------------------------------------
# Retry-After


def test_rate_limit_error_has_retry_after_seconds() -> None:
    """A 429 with `Retry-After: 3` carries retry_after 3.0."""
    error = status_error(response(429, b"", ("Retry-After", "3")))
    assert isinstance(error, RateLimitError)
    assert error.retry_after == 3.0


def test_rate_limit_error_without_hint_has_none() -> None:
    """A 429 without Retry-After carries retry_after None."""
    error = status_error(response(429))
    assert isinstance(error, RateLimitError)
    assert error.retry_after is None
