"""Per-call options: timeouts as aiohttp.ClientTimeout, headers that cannot split the request."""

from __future__ import annotations

import math

import aiohttp
import attrs
import pytest

from remedy_async._sending._headers import check_headers
from remedy_async._settings import DEFAULT_TIMEOUT, RequestOptions, to_client_timeout


@pytest.mark.parametrize("seconds", [0.5, 5, 30.0, 600])
def test_seconds_become_a_total_timeout(seconds: float) -> None:
    """A number of seconds becomes a ClientTimeout with that total."""
    timeout = to_client_timeout(seconds)
    assert isinstance(timeout, aiohttp.ClientTimeout)
    assert timeout.total == seconds
    assert timeout.connect is not None
    assert timeout.connect <= seconds


def test_client_timeout_is_kept() -> None:
    """A ClientTimeout is used as given."""
    given = aiohttp.ClientTimeout(total=12, sock_read=3)
    assert to_client_timeout(given) is given


@pytest.mark.parametrize("value", [0, 0.0, -1, -0.5, True, False, math.nan, "5", None])
def test_bad_timeout_is_a_value_error(value: object) -> None:
    """A zero, negative, bool, NaN or non-number timeout is a ValueError."""
    with pytest.raises(ValueError, match="timeout"):
        to_client_timeout(value)  # type: ignore[arg-type]


def test_default_timeout_is_bounded() -> None:
    """The default timeout bounds the whole request and the connect."""
    assert DEFAULT_TIMEOUT.total is not None
    assert DEFAULT_TIMEOUT.connect is not None


def test_check_headers_returns_a_dict_copy() -> None:
    """Good headers come back as a new dict."""
    given = {"X-Trace": "abc", "Accept-Language": "en"}
    checked = check_headers(given)
    assert checked == given
    assert checked is not given


@pytest.mark.parametrize("value", ["a\r\nInjected: 1", "a\nb", "a\rb", "a\x00b"])
def test_header_value_with_cr_lf_is_a_value_error(value: str) -> None:
    """A header value containing CR, LF or NUL is a ValueError."""
    with pytest.raises(ValueError, match="not allowed"):
        check_headers({"X-Trace": value})


@pytest.mark.parametrize("name", ["", "X Trace", "X-Trace:", "X-Trace\r\n", "X\tY"])
def test_bad_header_name_is_a_value_error(name: str) -> None:
    """An empty header name, or one with whitespace, CR/LF or a colon, is a ValueError."""
    with pytest.raises(ValueError, match="not allowed"):
        check_headers({name: "v"})


@pytest.mark.parametrize("headers", [{"X-Count": 1}, {b"X-Trace": "v"}, {"X-Trace": None}])
def test_non_str_header_is_a_type_error(headers: dict[object, object]) -> None:
    """A header name or value that is not a str is a TypeError."""
    with pytest.raises(TypeError):
        check_headers(headers)  # type: ignore[arg-type]


def test_request_options_defaults() -> None:
    """RequestOptions defaults to no timeout override and no extra headers."""
    options = RequestOptions()
    assert options.timeout is None
    assert options.headers == {}


def test_request_options_converts_seconds() -> None:
    """RequestOptions turns a timeout in seconds into a ClientTimeout."""
    options = RequestOptions(timeout=3)
    assert isinstance(options.timeout, aiohttp.ClientTimeout)
    assert options.timeout.total == 3.0


def test_request_options_keeps_a_client_timeout() -> None:
    """RequestOptions keeps a ClientTimeout as given."""
    given = aiohttp.ClientTimeout(total=9)
    assert RequestOptions(timeout=given).timeout is given


@pytest.mark.parametrize("value", [0, -2, True])
def test_request_options_rejects_a_bad_timeout(value: object) -> None:
    """RequestOptions refuses a zero, negative or bool timeout."""
    with pytest.raises(ValueError, match="timeout"):
        RequestOptions(timeout=value)  # type: ignore[arg-type]


def test_request_options_rejects_header_injection() -> None:
    """RequestOptions refuses a header value with CR/LF."""
    with pytest.raises(ValueError, match="not allowed"):
        RequestOptions(headers={"X-Trace": "a\r\nHost: evil"})


def test_request_options_is_frozen() -> None:
    """Assigning to a RequestOptions attribute raises FrozenInstanceError."""
    options = RequestOptions(timeout=5)
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        options.timeout = None  # type: ignore[misc]
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        options.headers = {}  # type: ignore[misc]
