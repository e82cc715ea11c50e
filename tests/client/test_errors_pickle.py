"""Errors pickle (to another process, a Ray worker's result) with all they show and nothing
more: their message, status, headers, request id and kept body, the token already redacted; and
their repr shows no token either."""

from __future__ import annotations

import pickle

import pytest

from remedy_async import (
    APIConnectionError,
    APIStatusError,
    AuthenticationError,
    ConfigurationError,
    DecodeError,
    MissingDependencyError,
    MockResponse,
    NotFoundError,
    PaginationError,
    RateLimitError,
    RemedyError,
    RetryPolicy,
    StateVersionError,
)
from remedy_async._redact import REDACTED
from tests.fakes import FakeTime
from tests.loopback import CANARY
from tests.mock_service import Script

ID = "00000000-0000-4000-8000-000000000003"


async def raised_by(response: MockResponse, **settings: object) -> RemedyError:
    """The error a get answered with `response` raises, token and all as a client makes it."""
    time = FakeTime()
    script = Script(response)
    async with script.client(
        token=CANARY, retry=RetryPolicy(attempts=1), clock=time.clock, sleep=time.sleep, **settings
    ) as client:
        with pytest.raises(RemedyError) as caught:
            await client.get_json(f"/v1/endpoints/{ID}", params={"key": CANARY})
    return caught.value


def same(error: BaseException) -> BaseException:
    return pickle.loads(pickle.dumps(error))


async def test_a_status_error_pickles_with_everything_it_shows() -> None:
    """A 404 with an echoed token comes back from a pickle equal in every attribute, headers
    still read case-insensitively, and neither the pickle nor the repr holds the token."""
    error = await raised_by(
        MockResponse.json(
            404,
            {"error": f"no endpoint for {CANARY}"},
            headers={"X-Request-Id": "req-7", "X-Echo": CANARY},
        )
    )
    assert isinstance(error, NotFoundError)
    error.add_note("while syncing")
    data = pickle.dumps(error)
    assert CANARY.encode() not in data
    loaded = pickle.loads(data)
    assert type(loaded) is NotFoundError
    assert vars(loaded) == vars(error)
    assert (str(loaded), repr(loaded)) == (str(error), repr(error))
    assert loaded.args == error.args
    assert loaded.headers["x-echo"] == REDACTED
    assert loaded.body == {"error": f"no endpoint for {REDACTED}"}
    assert loaded.attempts == 1
    assert loaded.__notes__ == ["while syncing"]
    assert CANARY not in repr(loaded)
    assert CANARY not in str(loaded)


async def test_a_rate_limit_error_keeps_its_retry_after_through_a_pickle() -> None:
    """A 429's `retry_after` and body survive the pickle."""
    error = await raised_by(
        MockResponse.json(429, {"error": "slow"}, headers={"Retry-After": "120"})
    )
    assert isinstance(error, RateLimitError)
    loaded = same(error)
    assert isinstance(loaded, RateLimitError)
    assert (loaded.retry_after, loaded.status, loaded.body) == (120.0, 429, {"error": "slow"})


async def test_a_decode_error_pickles_with_its_path_and_body() -> None:
    """A body that is not JSON: its DecodeError comes back with path, status and text body."""
    error = await raised_by(MockResponse.text(200, f"oops {CANARY}"))
    assert isinstance(error, DecodeError)
    loaded = same(error)
    assert isinstance(loaded, DecodeError)
    assert vars(loaded) == vars(error)
    assert loaded.body == f"oops {REDACTED}"
    assert CANARY.encode() not in pickle.dumps(error)


@pytest.mark.parametrize(
    "error",
    [
        ConfigurationError("no base URL"),
        MissingDependencyError("needs pyarrow", package="pyarrow", extra="arrow"),
        StateVersionError("newer", path="state.db", version=9),
        APIConnectionError("reset", method="GET", url="https://api.furl.ai/v1/endpoints"),
        PaginationError("lost its place", method="GET", url="https://api.furl.ai/v1/scopes"),
        AuthenticationError(
            "Missing or invalid API key.",
            method="GET",
            url="https://api.furl.ai/v1/scopes",
            status=401,
            headers=[("WWW-Authenticate", "Bearer"), ("Vary", "a"), ("Vary", "b")],  # type: ignore[arg-type]
        ),
    ],
    ids=lambda error: type(error).__name__,
)
def test_every_kind_of_error_pickles_whatever_its_arguments(error: RemedyError) -> None:
    """Errors made with keyword-only arguments come back as the same class with the same
    attributes (repeated headers kept)."""
    loaded = same(error)
    assert type(loaded) is type(error)
    assert vars(loaded) == vars(error)
    assert str(loaded) == str(error)
    if isinstance(error, APIStatusError):
        assert isinstance(loaded, APIStatusError)
        assert loaded.headers.getall("Vary") == ["a", "b"]  # type: ignore[attr-defined]
