"""The error tree, and what each error shows: the request, never the credential."""

from __future__ import annotations

import pytest
from yarl import URL

from remedy_async._errors import (
    EXCERPT_LIMIT,
    APIConnectionError,
    APIError,
    APIStatusError,
    APITimeoutError,
    AuthenticationError,
    BadRequestError,
    ClientClosedError,
    ConfigurationError,
    ConflictError,
    DecodeError,
    NotFoundError,
    PaginationError,
    PermissionDeniedError,
    RateLimitError,
    RemedyError,
    ServerError,
    UnprocessableEntityError,
    excerpt,
    public_url,
    status_error_class,
)

SECRET_URL = "https://alice:hunter2@api.example.com/v1/endpoints/ep-1?expand=os"
PUBLIC = "https://api.example.com/v1/endpoints/ep-1?expand=os"

STATUS_CLASSES = [
    (APIStatusError, 418),
    (BadRequestError, 400),
    (AuthenticationError, 401),
    (PermissionDeniedError, 403),
    (NotFoundError, 404),
    (ConflictError, 409),
    (UnprocessableEntityError, 422),
    (RateLimitError, 429),
    (ServerError, 503),
]
ALL_CLASSES = [
    RemedyError,
    ConfigurationError,
    ClientClosedError,
    APIError,
    APIConnectionError,
    APITimeoutError,
    DecodeError,
    PaginationError,
    *(cls for cls, _ in STATUS_CLASSES),
]


def assert_no_userinfo(text: str) -> None:
    assert "alice" not in text
    assert "hunter2" not in text


# ---------------------------------------------------------------------------------------------
# public_url


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        (SECRET_URL, PUBLIC),
        ("https://alice@api.example.com/x", "https://api.example.com/x"),
        ("https://:hunter2@api.example.com/x", "https://api.example.com/x"),
        (
            "https://alice:hunter2@api.example.com:8443/x#frag",
            "https://api.example.com:8443/x#frag",
        ),
        (PUBLIC, PUBLIC),
    ],
)
def test_public_url_drops_userinfo(url: str, shown: str) -> None:
    """public_url removes user and password and keeps everything else."""
    assert public_url(url) == shown
    assert public_url(URL(url)) == shown


# ---------------------------------------------------------------------------------------------
# str and repr


@pytest.mark.parametrize(("error_class", "status"), STATUS_CLASSES)
def test_status_error_str_names_status_request_and_request_id(
    error_class: type[APIStatusError], status: int
) -> None:
    """str() of a status error shows status, method, URL and request id, without userinfo."""
    error = error_class(
        "it failed", method="GET", url=SECRET_URL, status=status, request_id="req-42", code="oops"
    )
    text = str(error)
    assert str(status) in text
    assert "GET" in text
    assert PUBLIC in text
    assert "req-42" in text
    assert "[oops]" in text
    assert "it failed" in text
    assert_no_userinfo(text)


@pytest.mark.parametrize(("error_class", "status"), STATUS_CLASSES)
def test_status_error_repr_names_status_request_and_request_id(
    error_class: type[APIStatusError], status: int
) -> None:
    """repr() of a status error shows its class, status, method, URL and request id."""
    error = error_class("it failed", method="GET", url=SECRET_URL, status=status, request_id="r-1")
    text = repr(error)
    assert text.startswith(f"{error_class.__name__}(")
    assert f"status={status}" in text
    assert "method='GET'" in text
    assert f"url={PUBLIC!r}" in text
    assert "request_id='r-1'" in text
    assert_no_userinfo(text)


def test_status_error_str_without_request_id_or_code() -> None:
    """str() of a status error without request id or code omits them cleanly."""
    error = NotFoundError("gone", method="GET", url=PUBLIC, status=404)
    assert str(error) == f"404 gone (GET {PUBLIC})"


def test_status_error_url_attribute_has_no_userinfo() -> None:
    """A status error's `url` attribute holds the public URL."""
    error = ServerError("x", method="GET", url=URL(SECRET_URL), status=500)
    assert error.url == PUBLIC


def test_status_error_headers_are_a_copy() -> None:
    """A status error keeps a plain copy of the response headers."""
    given = {"X-Request-Id": "r"}
    error = ServerError("x", method="GET", url=PUBLIC, status=500, headers=given)
    given["X-Request-Id"] = "changed"
    assert error.headers == {"X-Request-Id": "r"}


def test_rate_limit_error_defaults_to_429_and_carries_retry_after() -> None:
    """RateLimitError's status defaults to 429 and it carries retry_after."""
    error = RateLimitError("slow down", method="GET", url=PUBLIC, retry_after=2.5)
    assert error.status == 429
    assert error.retry_after == 2.5


@pytest.mark.parametrize(
    "error_class", [APIError, APIConnectionError, APITimeoutError, PaginationError]
)
def test_request_error_str_and_repr_name_the_request(error_class: type[APIError]) -> None:
    """str() and repr() of a transport or paging error show method and URL, never userinfo."""
    error = error_class("connection reset", method="GET", url=SECRET_URL)
    assert str(error) == f"connection reset (GET {PUBLIC})"
    assert (
        repr(error) == f"{error_class.__name__}('connection reset', method='GET', url={PUBLIC!r})"
    )
    assert error.url == PUBLIC


def test_decode_error_str_names_path_status_request_and_request_id() -> None:
    """str() of a DecodeError shows the path, method, URL, status and request id."""
    error = DecodeError(
        "expected a string",
        method="GET",
        url=SECRET_URL,
        path="$.items[3].id",
        status=200,
        request_id="req-5",
    )
    assert (
        str(error)
        == f"expected a string at $.items[3].id (GET {PUBLIC}, status 200, request id req-5)"
    )
    assert_no_userinfo(repr(error))


def test_decode_error_str_without_status() -> None:
    """str() of a DecodeError without status or request id omits them."""
    error = DecodeError("bad", method="GET", url=PUBLIC)
    assert str(error) == f"bad at $ (GET {PUBLIC})"


def test_decode_error_repr_names_status_and_request_id() -> None:
    """repr() of a DecodeError shows its status and request id."""
    error = DecodeError("bad", method="GET", url=PUBLIC, status=200, request_id="req-5")
    assert "200" in repr(error)
    assert "req-5" in repr(error)


# ---------------------------------------------------------------------------------------------
# The tree


@pytest.mark.parametrize("error_class", ALL_CLASSES)
def test_every_error_is_a_remedy_error(error_class: type[Exception]) -> None:
    """Every error class subclasses RemedyError."""
    assert issubclass(error_class, RemedyError)


@pytest.mark.parametrize("error_class", [cls for cls, _ in STATUS_CLASSES])
def test_status_errors_are_api_status_errors(error_class: type[Exception]) -> None:
    """Every status error subclasses APIStatusError and APIError."""
    assert issubclass(error_class, APIStatusError)
    assert issubclass(error_class, APIError)


def test_timeout_is_a_connection_error() -> None:
    """APITimeoutError is an APIConnectionError."""
    assert issubclass(APITimeoutError, APIConnectionError)


@pytest.mark.parametrize("error_class", [DecodeError, PaginationError, APIConnectionError])
def test_non_status_request_errors_are_api_errors(error_class: type[Exception]) -> None:
    """Decode, paging and connection errors are APIErrors but not status errors."""
    assert issubclass(error_class, APIError)
    assert not issubclass(error_class, APIStatusError)


def test_configuration_error_is_a_value_error() -> None:
    """ConfigurationError is also a ValueError."""
    assert issubclass(ConfigurationError, ValueError)


def test_client_closed_error_is_a_runtime_error() -> None:
    """ClientClosedError is also a RuntimeError."""
    assert issubclass(ClientClosedError, RuntimeError)


@pytest.mark.parametrize(
    ("status", "error_class"),
    [
        (400, BadRequestError),
        (404, NotFoundError),
        (429, RateLimitError),
        (500, ServerError),
        (599, ServerError),
        (418, APIStatusError),
        (304, APIStatusError),
    ],
)
def test_status_error_class(status: int, error_class: type[APIStatusError]) -> None:
    """status_error_class maps a status to its class, 5xx to ServerError, others to the base."""
    assert status_error_class(status) is error_class


# ---------------------------------------------------------------------------------------------
# excerpt


def test_excerpt_keeps_short_text() -> None:
    """Text within the limit is kept whole."""
    assert excerpt("x" * EXCERPT_LIMIT) == "x" * EXCERPT_LIMIT


def test_excerpt_cuts_long_text_with_a_mark() -> None:
    """Longer text is cut to the limit, ending in an ellipsis."""
    cut = excerpt("x" * (EXCERPT_LIMIT + 1))
    assert len(cut) == EXCERPT_LIMIT
    assert cut.endswith("…")
