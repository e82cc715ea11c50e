"""RetryPolicy: settings, full-jitter backoff, which failures are retried, and `decide`; the
hints a response gives (`retry_after_seconds`: Retry-After and retry-after-ms)."""

from __future__ import annotations

import asyncio
import math
import ssl
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from email.utils import format_datetime

import aiohttp
import attrs
import pytest
from aiohttp.client_reqrep import ConnectionKey
from hypothesis import given
from hypothesis import strategies as st
from multidict import CIMultiDict, CIMultiDictProxy

from remedy_async._errors import (
    APIConnectionError,
    APIError,
    APIStatusError,
    APITimeoutError,
    AuthenticationError,
    BadRequestError,
    ClientClosedError,
    ConflictError,
    DecodeError,
    NotFoundError,
    PaginationError,
    PermissionDeniedError,
    RateLimitError,
    RemedyError,
    ResponseTooLargeError,
    ServerError,
    UnprocessableEntityError,
)
from remedy_async._sending._retry import RETRYABLE_STATUSES, RetryPolicy, retry_after_seconds

METHOD = "GET"
URL_ = "http://h/x"

Uniform = Callable[[float, float], float]


def headers(*pairs: tuple[str, str]) -> CIMultiDictProxy[str]:
    """Response headers as aiohttp gives them."""
    return CIMultiDictProxy(CIMultiDict(pairs))


def status(
    code: int, *, request_id: str | None = None, header_map: Mapping[str, str] | None = None
) -> APIStatusError:
    """The error an HTTP status becomes (the class the response reader would pick)."""
    classes: dict[int, type[APIStatusError]] = {
        400: BadRequestError,
        401: AuthenticationError,
        403: PermissionDeniedError,
        404: NotFoundError,
        409: ConflictError,
        422: UnprocessableEntityError,
        429: RateLimitError,
    }
    error_class = ServerError if code >= 500 else classes.get(code, APIStatusError)
    return error_class(
        "m", method=METHOD, url=URL_, status=code, request_id=request_id, headers=header_map
    )


def connection(cause: BaseException | None = None) -> APIConnectionError:
    """A connection failure whose `__cause__` is `cause`."""
    error = APIConnectionError("connection failed", method=METHOD, url=URL_)
    error.__cause__ = cause
    return error


def connection_key() -> ConnectionKey:
    """The connection key aiohttp attaches to connector errors."""
    return ConnectionKey("h", 443, True, True, None, None, None)


def top(low: float, high: float) -> float:
    """A `uniform` that always draws the upper bound."""
    return high


def bottom(low: float, high: float) -> float:
    """A `uniform` that always draws the lower bound."""
    return low


def fraction_of(fraction: float) -> Uniform:
    """A `uniform` that draws `fraction` of the way from the lower bound to the upper."""
    return lambda low, high: low + fraction * (high - low)


class Recorder:
    """A `uniform` that records the bounds it was asked for and draws the upper one."""

    def __init__(self) -> None:
        self.calls: list[tuple[float, float]] = []

    def __call__(self, low: float, high: float) -> float:
        self.calls.append((low, high))
        return high


def retrying_only(*codes: int) -> RetryPolicy:
    """A policy that retries exactly these statuses."""
    chosen: frozenset[int] = frozenset(codes)
    # mypy reads the attrs converter=frozenset as an unsolved Iterable[_T_co] parameter.
    return RetryPolicy(retry_statuses=chosen)


# ---------------------------------------------------------------------------------------------
# settings


def test_defaults_match_the_issue() -> None:
    """The default policy: 3 attempts, 0.5 s base, 8 s cap, 60 s max hint, 60 s deadline."""
    policy = RetryPolicy()
    assert policy.attempts == 3
    assert policy.backoff_base == 0.5
    assert policy.backoff_cap == 8.0
    assert policy.max_retry_after == 60.0
    assert policy.deadline == 60.0
    assert policy.retry_statuses == frozenset({408, 429, 500, 502, 503, 504})
    assert policy.retry_statuses == RETRYABLE_STATUSES


@pytest.mark.parametrize("attempts", [0, -1, -100])
def test_attempts_below_one_are_refused(attempts: int) -> None:
    """attempts < 1 is a ValueError."""
    with pytest.raises(ValueError, match="attempts"):
        RetryPolicy(attempts=attempts)


@pytest.mark.parametrize("attempts", [True, False])
def test_attempts_as_bool_is_refused(attempts: bool) -> None:
    """A bool is not an attempt count, even though it is an int."""
    with pytest.raises(ValueError, match="attempts"):
        RetryPolicy(attempts=attempts)


@pytest.mark.parametrize("attempts", [2.0, 2.5, "3"])
def test_attempts_that_are_not_an_int_are_refused(attempts: object) -> None:
    """attempts must be an int, not a float or a string."""
    with pytest.raises(ValueError, match="attempts"):
        RetryPolicy(attempts=attempts)  # type: ignore[arg-type]


def test_one_attempt_is_allowed() -> None:
    """RetryPolicy(attempts=1) is valid: it turns retries off."""
    assert RetryPolicy(attempts=1).attempts == 1


@pytest.mark.parametrize("name", ["backoff_base", "backoff_cap", "max_retry_after", "deadline"])
@pytest.mark.parametrize("value", [0, 0.0, -1.0, math.inf, -math.inf, math.nan, True])
def test_durations_must_be_positive_and_finite(name: str, value: float) -> None:
    """A zero, negative, non-finite or bool duration is a ValueError naming the setting."""
    with pytest.raises(ValueError, match=name):
        RetryPolicy(**{name: value})  # type: ignore[arg-type]


@pytest.mark.parametrize("name", ["backoff_base", "backoff_cap", "max_retry_after", "deadline"])
def test_small_positive_durations_are_allowed(name: str) -> None:
    """Any positive finite duration is accepted, however small."""
    policy = RetryPolicy(**{name: 1e-9})  # type: ignore[arg-type]
    assert getattr(policy, name) == 1e-9


def test_policy_is_frozen() -> None:
    """A policy cannot be changed after it is made."""
    policy = RetryPolicy()
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        policy.attempts = 5  # type: ignore[misc]


def test_retry_statuses_become_a_frozenset() -> None:
    """retry_statuses given as any iterable is stored as a frozenset."""
    given_statuses: list[int] = [503, 503, 429]
    policy = RetryPolicy(retry_statuses=given_statuses)
    assert policy.retry_statuses == frozenset({429, 503})
    assert isinstance(policy.retry_statuses, frozenset)


# ---------------------------------------------------------------------------------------------
# backoff


@pytest.mark.parametrize(
    ("retry", "ceiling"),
    [(1, 0.5), (2, 1.0), (3, 2.0), (4, 4.0), (5, 8.0), (6, 8.0), (10, 8.0), (100, 8.0)],
)
def test_backoff_ceiling_doubles_up_to_the_cap(retry: int, ceiling: float) -> None:
    """Retry k draws from uniform(0, min(8, 0.5 * 2**(k-1)))."""
    recorder = Recorder()
    assert RetryPolicy().backoff(retry, recorder) == ceiling
    assert recorder.calls == [(0.0, ceiling)]


def test_backoff_returns_what_uniform_draws() -> None:
    """The wait is the jittered draw itself (full jitter), down to zero."""
    policy = RetryPolicy()
    assert policy.backoff(3, bottom) == 0.0
    assert policy.backoff(3, fraction_of(0.25)) == 0.5


def test_backoff_uses_the_policy_base_and_cap() -> None:
    """A custom base and cap shape the ceiling."""
    policy = RetryPolicy(backoff_base=2.0, backoff_cap=5.0)
    assert [policy.backoff(k, top) for k in (1, 2, 3, 4)] == [2.0, 4.0, 5.0, 5.0]


def test_backoff_with_the_default_uniform_stays_in_range() -> None:
    """Without an injected uniform, draws still fall within [0, ceiling]."""
    policy = RetryPolicy()
    draws = [policy.backoff(3) for _ in range(200)]
    assert all(0.0 <= draw <= 2.0 for draw in draws)


@given(
    retry=st.integers(min_value=1, max_value=10**9),
    base=st.floats(min_value=1e-3, max_value=1e3),
    cap=st.floats(min_value=1e-3, max_value=1e3),
    fraction=st.floats(min_value=0.0, max_value=1.0),
)
def test_backoff_is_always_within_the_full_jitter_range(
    retry: int, base: float, cap: float, fraction: float
) -> None:
    """For any retry k >= 1 and any draw, 0 <= wait <= min(cap, base * 2**(k-1))."""
    policy = RetryPolicy(backoff_base=base, backoff_cap=cap)
    # cap / base <= 1e6 < 2**64, so from 64 doublings on the ceiling is the cap.
    ceiling = cap if retry > 64 else min(cap, base * 2.0 ** (retry - 1))
    wait = policy.backoff(retry, fraction_of(fraction))
    assert 0.0 <= wait <= ceiling * (1 + 1e-12)
    assert wait <= cap * (1 + 1e-12)


def test_backoff_for_a_very_late_retry_is_the_cap() -> None:
    """A retry number past 1024 waits the cap instead of overflowing float (regression)."""
    assert RetryPolicy().backoff(1025, top) == 8.0
    assert RetryPolicy().backoff(10**6, top) == 8.0


def test_decide_with_many_attempts_does_not_crash() -> None:
    """A policy allowing thousands of attempts keeps answering with a capped wait (regression)."""
    policy = RetryPolicy(attempts=2000, deadline=1000.0)
    wait = policy.decide(status(503), attempt=1500, hint=None, time_left=100.0, uniform=top)
    assert wait == 8.0


# ---------------------------------------------------------------------------------------------
# retryable


@pytest.mark.parametrize("code", [408, 429, 500, 502, 503, 504])
def test_retryable_statuses_are_retried(code: int) -> None:
    """408, 429, 500, 502, 503 and 504 may be tried again."""
    assert RetryPolicy().retryable(status(code))


@pytest.mark.parametrize("code", [400, 401, 403, 404, 409, 410, 418, 422, 501, 505])
def test_other_statuses_are_not_retried(code: int) -> None:
    """Other 4xx statuses, and 5xx outside the list, are final."""
    assert not RetryPolicy().retryable(status(code))


def test_rate_limit_error_is_retried() -> None:
    """A RateLimitError (429) is retryable."""
    error = RateLimitError("slow down", method=METHOD, url=URL_, retry_after=2.0)
    assert RetryPolicy().retryable(error)


@pytest.mark.parametrize(
    "cause",
    [
        None,
        ConnectionResetError(),
        ConnectionRefusedError(),
        aiohttp.ServerDisconnectedError(),
        aiohttp.ClientPayloadError("Response payload is not completed"),
        aiohttp.ClientConnectorError(connection_key(), OSError(111, "refused")),
    ],
    ids=["no-cause", "reset", "refused", "disconnected", "truncated-body", "connector"],
)
def test_connection_errors_are_retried(cause: BaseException | None) -> None:
    """Refused, reset or cut-short connections (truncated or broken bodies) are retryable."""
    assert RetryPolicy().retryable(connection(cause))


def test_timeouts_are_retried() -> None:
    """An attempt that ran out of time is retryable."""
    error = APITimeoutError("timed out", method=METHOD, url=URL_)
    error.__cause__ = TimeoutError()
    assert RetryPolicy().retryable(error)


@pytest.mark.parametrize(
    "cause",
    [
        ssl.SSLError(),
        ssl.SSLCertVerificationError(1, "certificate verify failed"),
        aiohttp.ClientSSLError(connection_key(), OSError(1, "tls")),
        aiohttp.ClientConnectorCertificateError(connection_key(), ssl.SSLError()),
    ],
    ids=["ssl-error", "cert-verification", "client-ssl-error", "connector-certificate"],
)
def test_tls_failures_are_not_retried(cause: BaseException) -> None:
    """A connection error caused by TLS will fail the same way again: not retryable."""
    assert not RetryPolicy().retryable(connection(cause))


def test_tls_timeout_cause_is_not_retried() -> None:
    """A timeout whose cause is a TLS failure is not retried either."""
    error = APITimeoutError("timed out", method=METHOD, url=URL_)
    error.__cause__ = ssl.SSLError()
    assert not RetryPolicy().retryable(error)


@pytest.mark.parametrize(
    "error",
    [
        DecodeError("not JSON", method=METHOD, url=URL_, status=200),
        PaginationError("cursor repeated", method=METHOD, url=URL_),
        ResponseTooLargeError("too big", method=METHOD, url=URL_),
        ClientClosedError("closed"),
        ValueError("not ours"),
        asyncio.CancelledError(),
        KeyboardInterrupt(),
    ],
    ids=["decode", "pagination", "too-large", "closed", "value-error", "cancelled", "interrupt"],
)
def test_other_failures_are_not_retried(error: BaseException) -> None:
    """A whole body that is not JSON, paging faults, foreign errors and cancellation are final."""
    assert not RetryPolicy().retryable(error)


def test_custom_retry_statuses_replace_the_defaults() -> None:
    """retry_statuses decides which statuses are retried: listed yes, others (even 503) no."""
    policy = retrying_only(409)
    assert policy.retryable(status(409))
    assert not policy.retryable(status(503))
    assert not policy.retryable(status(429))
    assert policy.retryable(connection())


# ---------------------------------------------------------------------------------------------
# decide


@pytest.mark.parametrize(
    "error",
    [
        status(404),
        status(400),
        DecodeError("not JSON", method=METHOD, url=URL_, status=200),
        PaginationError("cursor repeated", method=METHOD, url=URL_),
        connection(ssl.SSLError()),
        ClientClosedError("closed"),
    ],
    ids=["404", "400", "decode", "pagination", "tls", "closed"],
)
def test_decide_gives_up_on_non_retryable_errors(error: RemedyError) -> None:
    """A failure that is not retryable is given up at once (None)."""
    assert RetryPolicy().decide(error, attempt=1, hint=None, time_left=60.0, uniform=top) is None


def test_decide_gives_up_on_non_retryable_error_even_with_a_huge_hint() -> None:
    """A non-retryable error with a hint over max_retry_after is given up, not turned into 429."""
    assert RetryPolicy().decide(status(404), attempt=1, hint=3600.0, time_left=60.0) is None


def test_decide_retries_until_the_attempts_are_used() -> None:
    """With 3 attempts, failures 1 and 2 are retried and failure 3 is final."""
    policy = RetryPolicy()
    error = status(503)
    assert policy.decide(error, attempt=1, hint=None, time_left=60.0, uniform=top) == 0.5
    assert policy.decide(error, attempt=2, hint=None, time_left=60.0, uniform=top) == 1.0
    assert policy.decide(error, attempt=3, hint=None, time_left=60.0, uniform=top) is None
    assert policy.decide(error, attempt=4, hint=None, time_left=60.0, uniform=top) is None


def test_decide_with_one_attempt_never_retries() -> None:
    """RetryPolicy(attempts=1) gives up after the first failure."""
    policy = RetryPolicy(attempts=1)
    assert policy.decide(status(503), attempt=1, hint=None, time_left=60.0) is None


def test_decide_backs_off_for_the_retry_it_is_about_to_make() -> None:
    """After attempt n fails, the wait is the backoff for retry n."""
    recorder = Recorder()
    policy = RetryPolicy(attempts=5)
    for attempt in (1, 2, 3, 4):
        policy.decide(status(503), attempt=attempt, hint=None, time_left=60.0, uniform=recorder)
    assert recorder.calls == [(0.0, 0.5), (0.0, 1.0), (0.0, 2.0), (0.0, 4.0)]


def test_decide_retries_connection_errors_and_timeouts() -> None:
    """A connection failure or a timeout gets a backoff wait."""
    timeout = APITimeoutError("timed out", method=METHOD, url=URL_)
    policy = RetryPolicy()
    assert policy.decide(connection(), attempt=1, hint=None, time_left=60.0, uniform=top) == 0.5
    assert policy.decide(timeout, attempt=1, hint=None, time_left=60.0, uniform=top) == 0.5


def test_hint_larger_than_backoff_wins() -> None:
    """The wait is the hint when the service asks for longer than the backoff."""
    wait = RetryPolicy().decide(status(429), attempt=1, hint=5.0, time_left=60.0, uniform=top)
    assert wait == 5.0


def test_backoff_larger_than_hint_wins() -> None:
    """The wait is the backoff when it is longer than the service's hint."""
    wait = RetryPolicy().decide(status(503), attempt=2, hint=0.2, time_left=60.0, uniform=top)
    assert wait == 1.0


def test_zero_hint_leaves_the_backoff() -> None:
    """A hint of 0 does not cancel the backoff."""
    wait = RetryPolicy().decide(status(429), attempt=1, hint=0.0, time_left=60.0, uniform=top)
    assert wait == 0.5


def test_hint_equal_to_max_retry_after_is_honoured() -> None:
    """A hint exactly at max_retry_after is waited for, not refused."""
    policy = RetryPolicy(max_retry_after=10.0)
    assert policy.decide(status(429), attempt=1, hint=10.0, time_left=60.0, uniform=top) == 10.0


def test_hint_over_max_retry_after_raises_rate_limit_error() -> None:
    """A hint above max_retry_after raises RateLimitError at once, chained to the failure."""
    original = status(503, request_id="req-1", header_map={"Retry-After": "120"})
    with pytest.raises(RateLimitError) as caught:
        RetryPolicy().decide(original, attempt=1, hint=120.0, time_left=600.0, uniform=top)
    error = caught.value
    assert error.retry_after == 120.0
    assert error.__cause__ is original
    assert error.method == METHOD
    assert error.url == URL_
    assert error.status == 503
    assert error.request_id == "req-1"
    assert error.headers == {"Retry-After": "120"}
    assert "120" in error.message


def test_hint_over_max_on_a_429_keeps_its_details() -> None:
    """A 429 whose hint is too long becomes a new RateLimitError carrying the hint."""
    original = RateLimitError("slow", method=METHOD, url=URL_, request_id="r9", retry_after=90.0)
    with pytest.raises(RateLimitError) as caught:
        RetryPolicy(max_retry_after=30.0).decide(original, attempt=1, hint=90.0, time_left=600.0)
    assert caught.value is not original
    assert caught.value.__cause__ is original
    assert caught.value.status == 429
    assert caught.value.retry_after == 90.0
    assert caught.value.request_id == "r9"


def test_hint_over_max_on_a_connection_error_reports_429() -> None:
    """Without a status of its own, the too-long-hint error reports 429."""
    with pytest.raises(RateLimitError) as caught:
        RetryPolicy().decide(connection(), attempt=1, hint=61.0, time_left=600.0)
    assert caught.value.status == 429
    assert caught.value.retry_after == 61.0
    assert caught.value.request_id is None


def test_wait_past_the_time_left_is_not_started() -> None:
    """A backoff that would end past the deadline is given up (None)."""
    policy = RetryPolicy()
    assert policy.decide(status(503), attempt=1, hint=None, time_left=0.4, uniform=top) is None


@pytest.mark.parametrize("hint", [0.5, 1.0])
def test_a_wait_ending_at_the_deadline_is_not_started(hint: float) -> None:
    """A wait that uses up exactly the time left is given up: the next attempt would go out
    with no time, only to time out."""
    policy = RetryPolicy()
    assert policy.decide(status(503), attempt=1, hint=None, time_left=0.5, uniform=top) is None
    assert policy.decide(status(429), attempt=1, hint=hint, time_left=hint, uniform=top) is None
    assert policy.decide(status(429), attempt=1, hint=hint, time_left=hint + 0.01) == hint


def test_hint_past_the_time_left_is_not_started() -> None:
    """A hint longer than the time left gives up rather than waiting in vain."""
    policy = RetryPolicy()
    assert policy.decide(status(429), attempt=1, hint=10.0, time_left=5.0, uniform=bottom) is None


def test_no_time_left_gives_up() -> None:
    """With the deadline already passed, no wait is started."""
    policy = RetryPolicy()
    assert policy.decide(status(503), attempt=1, hint=None, time_left=-1.0, uniform=bottom) is None


def test_custom_retry_statuses_drive_decide() -> None:
    """decide retries the statuses the policy lists and gives up on the rest."""
    policy = retrying_only(409, 503)
    assert policy.decide(status(409), attempt=1, hint=None, time_left=60.0, uniform=top) == 0.5
    assert policy.decide(status(503), attempt=1, hint=None, time_left=60.0, uniform=top) == 0.5
    assert policy.decide(status(500), attempt=1, hint=None, time_left=60.0, uniform=top) is None


errors = st.sampled_from(
    [status(code) for code in sorted(RETRYABLE_STATUSES)]
    + [connection(), APITimeoutError("t", method=METHOD, url=URL_)]
)


@given(
    error=errors,
    attempt=st.integers(min_value=1, max_value=20),
    hint=st.none() | st.floats(min_value=0.0, max_value=60.0),
    time_left=st.floats(min_value=-10.0, max_value=120.0),
    fraction=st.floats(min_value=0.0, max_value=1.0),
)
def test_decide_never_waits_past_the_time_left(
    error: APIError, attempt: int, hint: float | None, time_left: float, fraction: float
) -> None:
    """Whatever decide answers, a wait never exceeds the time left."""
    policy = RetryPolicy(attempts=10)
    wait = policy.decide(
        error, attempt=attempt, hint=hint, time_left=time_left, uniform=fraction_of(fraction)
    )
    assert wait is None or 0.0 <= wait <= time_left


@given(
    error=errors,
    attempt=st.integers(min_value=1, max_value=9),
    hint=st.floats(min_value=0.0, max_value=60.0),
    time_left=st.floats(min_value=0.0, max_value=120.0),
    fraction=st.floats(min_value=0.0, max_value=1.0),
)
def test_decide_never_waits_less_than_a_valid_hint(
    error: APIError, attempt: int, hint: float, time_left: float, fraction: float
) -> None:
    """A wait is at least the service's hint, when the hint is within max_retry_after."""
    policy = RetryPolicy(attempts=10)
    wait = policy.decide(
        error, attempt=attempt, hint=hint, time_left=time_left, uniform=fraction_of(fraction)
    )
    assert wait is None or wait >= hint


@given(
    attempt=st.integers(min_value=1, max_value=9),
    hint=st.none() | st.floats(min_value=0.0, max_value=60.0),
    time_left=st.floats(min_value=0.0, max_value=120.0),
    fraction=st.floats(min_value=0.0, max_value=1.0),
)
def test_decide_is_the_larger_of_backoff_and_hint_when_it_fits(
    attempt: int, hint: float | None, time_left: float, fraction: float
) -> None:
    """A retryable failure with attempts left waits max(backoff, hint) iff that ends before
    the deadline (leaving the next attempt some time)."""
    policy = RetryPolicy(attempts=10)
    draw = fraction_of(fraction)
    expected = max(policy.backoff(attempt, draw), hint or 0.0)
    wait = policy.decide(status(503), attempt=attempt, hint=hint, time_left=time_left, uniform=draw)
    assert wait == (expected if expected < time_left else None)


@given(hint=st.floats(min_value=60.0, exclude_min=True, allow_nan=False, allow_infinity=False))
def test_decide_refuses_every_hint_over_max_retry_after(hint: float) -> None:
    """Any finite hint above max_retry_after raises RateLimitError carrying that hint."""
    with pytest.raises(RateLimitError) as caught:
        RetryPolicy().decide(status(429), attempt=1, hint=hint, time_left=1e9)
    assert caught.value.retry_after == hint


@pytest.mark.parametrize("hint", [math.inf, math.nan])
def test_decide_ignores_a_non_finite_hint(hint: float) -> None:
    """A non-finite hint falls back to backoff instead of raising."""
    wait = RetryPolicy().decide(status(429), attempt=1, hint=hint, time_left=1e9, uniform=max)
    assert wait == 0.5


# ---------------------------------------------------------------------------------------------
# hints read from headers, fed to decide


def hint_from(*pairs: tuple[str, str], now: float | None = None) -> float | None:
    """The hint a response with these headers carries."""
    return retry_after_seconds(headers(*pairs), now=now)


def test_retry_after_ms_takes_precedence_over_retry_after() -> None:
    """`retry-after-ms` is read before `Retry-After`."""
    hint = hint_from(("retry-after-ms", "2500"), ("Retry-After", "30"))
    assert hint == 2.5
    assert RetryPolicy().decide(status(429), attempt=1, hint=hint, time_left=60.0) == 2.5


def test_retry_after_seconds_hint_drives_the_wait() -> None:
    """A `Retry-After` in seconds becomes the wait when longer than the backoff."""
    hint = hint_from(("Retry-After", "7"))
    assert RetryPolicy().decide(status(503), attempt=1, hint=hint, time_left=60.0) == 7.0


def test_retry_after_http_date_hint_drives_the_wait() -> None:
    """A `Retry-After` HTTP date becomes the seconds from now until then."""
    now = 1_700_000_000.0
    when = format_datetime(datetime.fromtimestamp(now + 20, UTC), usegmt=True)
    hint = hint_from(("Retry-After", when), now=now)
    assert hint == 20.0
    assert RetryPolicy().decide(status(429), attempt=1, hint=hint, time_left=60.0) == 20.0


def test_retry_after_http_date_over_max_raises() -> None:
    """An HTTP date further away than max_retry_after raises RateLimitError."""
    now = 1_700_000_000.0
    when = format_datetime(datetime.fromtimestamp(now + 3600, UTC), usegmt=True)
    hint = hint_from(("Retry-After", when), now=now)
    with pytest.raises(RateLimitError) as caught:
        RetryPolicy().decide(status(429), attempt=1, hint=hint, time_left=60.0)
    assert caught.value.retry_after == 3600.0


@pytest.mark.parametrize(
    "value", ["soon", "", "-5", "inf", "-inf", "nan", "1e999", "Mon, 99 Foo 2024 00:00:00 GMT"]
)
def test_unusable_retry_after_falls_back_to_backoff(value: str) -> None:
    """A garbage, negative or non-finite `Retry-After` is no hint: the backoff applies."""
    hint = hint_from(("Retry-After", value))
    assert hint is None
    assert (
        RetryPolicy().decide(status(503), attempt=2, hint=hint, time_left=60.0, uniform=top) == 1.0
    )


@pytest.mark.parametrize("value", ["soon", "inf", "nan"])
def test_unusable_retry_after_ms_falls_back_to_retry_after(value: str) -> None:
    """A garbage or non-finite `retry-after-ms` is skipped and `Retry-After` read instead."""
    assert hint_from(("retry-after-ms", value), ("Retry-After", "3")) == 3.0


def test_negative_retry_after_ms_falls_back_to_retry_after() -> None:
    """A negative `retry-after-ms` counts as absent, so `Retry-After` is read (regression)."""
    assert hint_from(("retry-after-ms", "-100"), ("Retry-After", "3")) == 3.0


def test_hint_survives_lower_case_header_names_on_the_error() -> None:
    """The hint read from an error's headers ignores header-name case (regression)."""
    error = status(503, header_map=headers(("retry-after", "5")))
    hint = retry_after_seconds(error.headers)
    assert hint == 5.0
    assert RetryPolicy().decide(error, attempt=1, hint=hint, time_left=60.0, uniform=top) == 5.0


@pytest.mark.parametrize(("value", "seconds"), [("3", 3.0), ("0", 0.0), (" 2.5 ", 2.5)])
def test_retry_after_seconds(value: str, seconds: float) -> None:
    """Retry-After given in seconds is read as seconds."""
    assert hint_from(("Retry-After", value)) == seconds


def test_retry_after_http_date_is_relative_to_now() -> None:
    """Retry-After given as an HTTP date is the time from `now` to that date."""
    now = datetime(2015, 10, 21, 7, 27, 50, tzinfo=UTC).timestamp()
    value = "Wed, 21 Oct 2015 07:28:00 GMT"
    assert hint_from(("Retry-After", value), now=now) == 10.0


def test_retry_after_http_date_in_the_past_is_zero() -> None:
    """An HTTP date already past means retry now (0 seconds)."""
    now = datetime(2015, 10, 21, 8, 0, tzinfo=UTC).timestamp()
    value = "Wed, 21 Oct 2015 07:28:00 GMT"
    assert hint_from(("Retry-After", value), now=now) == 0.0


def test_retry_after_ms_is_read_in_milliseconds_first() -> None:
    """`retry-after-ms` wins over Retry-After and is converted to seconds."""
    assert hint_from(("Retry-After-Ms", "1500"), ("Retry-After", "9")) == 1.5


@pytest.mark.parametrize(
    "value",
    ["soon", "", "-1", "-0.5", "inf", "-inf", "nan", "1e400", "Wed, 99 Foo 2015 07:28:00 GMT"],
)
def test_unusable_retry_after_is_none(value: str) -> None:
    """A garbage, negative or non-finite Retry-After counts as absent."""
    assert hint_from(("Retry-After", value), now=0.0) is None


@pytest.mark.parametrize("value", ["-5", "nan", "inf", "x"])
def test_unusable_retry_after_ms_is_none(value: str) -> None:
    """A negative, non-finite or garbage retry-after-ms counts as absent."""
    assert hint_from(("retry-after-ms", value)) is None


def test_no_retry_after_is_none() -> None:
    """No hint at all gives None."""
    assert hint_from() is None
