"""Error bodies of every common convention: the service's explanation reaches the exception."""

from __future__ import annotations

from typing import Any

import orjson
import pytest
from multidict import CIMultiDict, CIMultiDictProxy
from yarl import URL

from remedy_async import ERROR_SHAPES, APIStatusError, AuthenticationError, ServerError
from remedy_async._sending._status import status_error
from remedy_async._wire._error_bodies import Explanation, explain
from remedy_async._wire._http import Request, Response

JSON = "application/json"


def response(status: int, body: bytes, content_type: str = JSON, **headers: str) -> Response:
    return Response(
        request=Request("GET", URL("https://api.example.com/v1/endpoints")),
        status=status,
        headers=CIMultiDictProxy(CIMultiDict({"Content-Type": content_type, **headers})),
        body=body,
    )


def js(value: Any) -> bytes:
    return orjson.dumps(value)


SHAPES = [
    (
        "error",
        js({"error": {"code": "bad_filter", "message": "unknown filter"}}),
        JSON,
        "unknown filter",
        "bad_filter",
    ),
    (
        "problem",
        js(
            {
                "type": "https://e/x",
                "title": "Out of credit",
                "detail": "balance is 30",
                "status": 403,
            }
        ),
        "application/problem+json",
        "balance is 30",
        "https://e/x",
    ),
    ("detail", js({"detail": "Not found."}), JSON, "Not found.", None),
    (
        "fastapi",
        js({"detail": [{"loc": ["query", "limit"], "msg": "must be <= 1000", "type": "x"}]}),
        JSON,
        "query.limit: must be <= 1000",
        None,
    ),
    (
        "json-api",
        js(
            {
                "errors": [
                    {
                        "status": "422",
                        "code": "E1",
                        "title": "Invalid",
                        "detail": "name is required",
                    }
                ]
            }
        ),
        "application/vnd.api+json",
        "name is required",
        "E1",
    ),
    (
        "graphql",
        js({"errors": [{"message": "field x is unknown"}]}),
        JSON,
        "field x is unknown",
        None,
    ),
    (
        "oauth",
        js({"error": "invalid_token", "error_description": "the token expired"}),
        JSON,
        "the token expired",
        "invalid_token",
    ),
    ("message", js({"message": "quota exceeded", "code": 42}), JSON, "quota exceeded", "42"),
    (
        "pascal-message",
        js({"Message": "User is not authorized"}),
        JSON,
        "User is not authorized",
        None,
    ),
    ("error-string", js({"error": "Forbidden"}), JSON, "Forbidden", None),
    (
        "strings",
        js({"errors": ["limit too large", "cursor invalid"]}),
        JSON,
        "limit too large; cursor invalid",
        None,
    ),
    (
        "text",
        b"  Service Unavailable: try later\nsecond line\n",
        "text/plain",
        "Service Unavailable: try later",
        None,
    ),
    (
        "html",
        b"<html><head><title>502 Bad Gateway</title></head><body>"
        + b"<p>x</p>" * 5000
        + b"</body></html>",
        "text/html",
        "502 Bad Gateway",
        None,
    ),
    (
        "html-heading",
        b"<html><body><h1>Access &amp; denied</h1></body></html>",
        "text/html",
        "Access & denied",
        None,
    ),
]


@pytest.mark.parametrize(
    ("body", "content_type", "message", "code"),
    [shape[1:] for shape in SHAPES],
    ids=[shape[0] for shape in SHAPES],
)
def test_each_error_body_convention_is_explained(
    body: bytes, content_type: str, message: str, code: str | None
) -> None:
    """The exception's message and code come from the body; its text stays short."""
    error = status_error(response(400, body, content_type))
    assert error.message == message
    assert error.code == code
    assert message in str(error)
    assert len(str(error)) < 500


def test_a_problem_detail_is_kept_as_detail() -> None:
    """RFC 9457's `detail` is also the error's `detail`."""
    body = js({"type": "about:blank", "title": "Bad", "detail": "limit is 1000 at most"})
    error = status_error(response(400, body, "application/problem+json"))
    assert error.detail == "limit is 1000 at most"
    assert error.code is None


def test_an_unknown_shape_shows_a_short_excerpt() -> None:
    """A body in no known shape gives the status line and an excerpt of the body."""
    error = status_error(response(500, js({"weird": ["x" * 2000]})))
    assert error.message == "HTTP 500"
    assert error.body_excerpt is not None
    assert len(error.body_excerpt) <= 500


def test_a_long_message_is_cut() -> None:
    """A message over 300 characters is cut, so the error's text stays readable."""
    error = status_error(response(400, js({"message": "m" * 5000})))
    assert len(error.message) <= 300
    assert len(str(error)) < 500


def test_www_authenticate_explains_a_401_without_a_body() -> None:
    """A bare 401's challenge gives the scheme and the error, never a credential."""
    challenge = 'Bearer realm="api", error="invalid_token", error_description="expired"'
    error = status_error(response(401, b"", "text/plain", **{"WWW-Authenticate": challenge}))
    assert isinstance(error, AuthenticationError)
    assert error.message == "Bearer authentication required: invalid_token (expired)"
    assert error.code == "invalid_token"


def test_an_echoed_secret_is_redacted_from_the_explanation() -> None:
    """A token the service echoes in its explanation never reaches the exception."""
    body = js({"errors": [{"detail": "token s3cr3t-token is revoked", "code": "s3cr3t-token"}]})
    error = status_error(response(401, body), secrets=("s3cr3t-token",))
    assert "s3cr3t-token" not in str(error) + repr(error) + (error.code or "")


@pytest.mark.parametrize("status", [999, 600, 103])
def test_status_outside_the_known_classes_is_the_base_error(status: int) -> None:
    """A status no class covers (999) raises the documented base APIStatusError."""
    error = status_error(response(status, b""))
    assert type(error) is APIStatusError


def test_5xx_is_a_server_error() -> None:
    """Every 5xx, known or not, is a ServerError."""
    assert type(status_error(response(599, b""))) is ServerError


def test_blank_body_explains_nothing() -> None:
    """A blank body gives an empty explanation."""
    assert explain(b" \n", "text/plain").message is None


@pytest.mark.parametrize(
    ("body", "content_type", "shape"),
    [(shape[1], shape[2], shape[0].removesuffix("-heading")) for shape in SHAPES],
    ids=[shape[0] for shape in SHAPES],
)
def test_each_error_body_convention_is_named(body: bytes, content_type: str, shape: str) -> None:
    """The error says which convention its body followed, by a name of ERROR_SHAPES."""
    assert shape in ERROR_SHAPES
    assert status_error(response(400, body, content_type)).body_shape == shape


def test_every_named_shape_is_covered_here() -> None:
    """Each name in ERROR_SHAPES has an example body above."""
    assert {shape[0].removesuffix("-heading") for shape in SHAPES} == set(ERROR_SHAPES)


def test_a_body_that_explains_nothing_has_no_shape() -> None:
    """An unknown JSON shape, broken JSON and an empty body name no convention."""
    for body in (js({"weird": 1}), b"{not json", b""):
        assert status_error(response(500, body)).body_shape is None


def test_a_problem_code_member_is_preferred_to_its_type() -> None:
    """RFC 9457 allows extension members; a `code` one is the machine code, not the type URI."""
    body = js({"type": "urn:x:not_found", "title": "Not Found", "detail": "gone", "code": "E404"})
    assert status_error(response(404, body, "application/problem+json")).code == "E404"


@pytest.mark.parametrize(
    ("status", "message", "error_class"),
    [
        (400, "Invalid endpoint ID format.", "BadRequestError"),
        (401, "Missing or invalid API key.", "AuthenticationError"),
        (404, "Endpoint not found.", "NotFoundError"),
        (500, "Internal server error.", "ServerError"),
    ],
)
def test_the_published_error_bodies_give_their_messages_as_sent(
    status: int, message: str, error_class: str
) -> None:
    """Each documented error of the reference, `{"error": "<message>"}`, raises its typed
    error carrying the published message exactly, and no code (the body has none)."""
    error = status_error(response(status, js({"error": message})))
    assert type(error).__name__ == error_class
    assert (error.message, error.code, error.body_shape) == (message, None, "error-string")
    assert message in str(error)


def test_an_integer_past_64_bits_is_explained_with_all_its_digits() -> None:
    """A code or detail holding an integer past 64 bits shows its every digit, not 1e+20."""
    said = explain(
        b'{"error": {"code": 100000000000000000001, "message": "over quota",'
        b' "details": {"limit": 100000000000000000002}}}',
        "application/json",
    )
    assert (said.code, said.detail) == ("100000000000000000001", '{"limit":100000000000000000002}')


def test_a_number_too_large_for_a_float_explains_nothing() -> None:
    """An error body holding `1e400` is not read (its excerpt shows it), never infinity."""
    assert explain(b'{"error": 1e400}', "application/json") == Explanation()
