"""decode_json: a complete response's body becomes a JSONResponse, or a DecodeError with the
status, request id and a short excerpt, never the echoed credential."""

from __future__ import annotations

import sys

import pytest
from multidict import CIMultiDict, CIMultiDictProxy
from yarl import URL

from remedy_async._errors import EXCERPT_LIMIT, DecodeError
from remedy_async._redact import REDACTED
from remedy_async._wire._decode import decode_json
from remedy_async._wire._http import JSONResponse, Request, Response

URL_ = URL("https://api.example.com/v1/endpoints?limit=10")
TOKEN = "tok_live_5f3a9c0e1b2d"
JSON = "application/json"


def response(
    status: int, body: bytes, *, content_type: str | None = None, request_id: str | None = None
) -> Response:
    """A complete response to `GET URL_`, with the headers given."""
    given = {"Content-Type": content_type, "X-Request-Id": request_id}
    pairs = CIMultiDict((name, value) for name, value in given.items() if value is not None)
    return Response(
        request=Request("GET", URL_), status=status, headers=CIMultiDictProxy(pairs), body=body
    )


def test_valid_json_becomes_a_json_response() -> None:
    """A valid JSON body decodes into a JSONResponse with URL, status and headers."""
    ok = response(200, b'[{"id": "ep-1"}]', content_type=JSON, request_id="req-1")
    decoded = decode_json(ok)
    assert decoded == JSONResponse(url=URL_, status=200, headers=ok.headers, body=[{"id": "ep-1"}])
    assert decoded.request_id == "req-1"


def test_invalid_json_is_a_decode_error_with_context() -> None:
    """A body that is not JSON raises DecodeError with status, request id and an excerpt."""
    bad = response(200, b"<html>maintenance</html>", content_type="text/html", request_id="r-9")
    with pytest.raises(DecodeError) as info:
        decode_json(bad)
    error = info.value
    assert error.status == 200
    assert error.request_id == "r-9"
    assert error.body_excerpt == "<html>maintenance</html>"
    assert error.path == "$"
    assert "not valid JSON" in error.message
    assert "text/html" in error.message
    assert "r-9" in str(error)
    assert "200" in str(error)


def test_truncated_json_is_a_decode_error() -> None:
    """A JSON body cut short raises DecodeError."""
    with pytest.raises(DecodeError) as info:
        decode_json(response(200, b'[{"id": "ep-1"}, {"id"', content_type=JSON))
    assert info.value.body_excerpt == '[{"id": "ep-1"}, {"id"'


def test_empty_body_is_a_decode_error() -> None:
    """An empty body raises DecodeError saying so, with no excerpt."""
    with pytest.raises(DecodeError) as info:
        decode_json(response(200, b"", request_id="r-0"))
    error = info.value
    assert "empty body" in error.message
    assert error.status == 200
    assert error.request_id == "r-0"
    assert error.body_excerpt is None


def test_a_body_nested_past_the_recursion_limit_is_a_decode_error() -> None:
    """Nesting no parser can build on this interpreter is a DecodeError saying so, never a
    RecursionError escaping the call (deeper than any recursion limit the suite may have set)."""
    depth = max(100_000, 2 * sys.getrecursionlimit())
    body = b'{"a":' * depth + b"1" + b"}" * depth
    with pytest.raises(DecodeError) as info:
        decode_json(response(200, body, content_type=JSON, request_id="r-deep"))
    assert "nested too deeply" in info.value.message
    assert info.value.request_id == "r-deep"


def test_decode_error_excerpt_is_short() -> None:
    """A long non-JSON body is shown as an excerpt of at most 500 characters."""
    with pytest.raises(DecodeError) as info:
        decode_json(response(200, b"x" * 10_000, content_type="text/plain"))
    assert info.value.body_excerpt is not None
    assert len(info.value.body_excerpt) <= EXCERPT_LIMIT


def test_echoed_token_is_redacted_from_a_decode_error() -> None:
    """A token echoed in a body that is not JSON is redacted from the DecodeError."""
    body = f"<html>hello {TOKEN}</html>".encode()
    with pytest.raises(DecodeError) as info:
        decode_json(response(200, body, content_type="text/html"), secrets=[TOKEN])
    assert info.value.body_excerpt == f"<html>hello {REDACTED}</html>"
    assert TOKEN not in str(info.value)
    assert TOKEN not in repr(info.value)


def test_numbers_decode_exactly() -> None:
    """Integers of any size stay ints, and floats are the floats sent, -0.0 and 5e-324 too."""
    body = b'{"items": [100000000000000000001, -100000000000000000001, 1e308, 5e-324, 0.1, -0.0]}'
    (big, negative, largest, smallest, tenth, zero) = decode_json(response(200, body)).body["items"]
    assert (type(big), big, negative) == (int, 10**20 + 1, -(10**20) - 1)
    assert [largest, smallest, tenth] == [1e308, 5e-324, 0.1]
    assert str(zero) == "-0.0"


@pytest.mark.parametrize(
    ("body", "path"),
    [
        (b"1e400", "$"),
        (b'{"items": [{"id": "a"}, {"id": "b", "score": -1e400}]}', "$.items[1].score"),
        (b'{"odd key": {"x": [0, 1E+999]}}', '$["odd key"].x[1]'),
    ],
)
def test_a_number_too_large_for_a_float_is_a_decode_error_at_its_path(
    body: bytes, path: str
) -> None:
    """A number no float holds is a DecodeError naming its JSON path, never infinity."""
    with pytest.raises(DecodeError) as info:
        decode_json(response(200, body, content_type=JSON))
    assert info.value.path == path
    assert "a number too large for a float" in info.value.message
    assert JSON in info.value.message
    assert info.value.body_excerpt == body.decode()
