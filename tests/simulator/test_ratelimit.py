"""Rate limiting: a token bucket with 429, Retry-After and X-RateLimit-* headers, and the
sliding window each tenant's token is limited by."""

from __future__ import annotations

import aiohttp

from remedy_async.simulator._ratelimit import SlidingWindow, TokenBucket

from .helpers import FakeClock, StartSimulator, get_json


async def test_limited_responses_carry_rate_limit_headers(
    serve: StartSimulator, session: aiohttp.ClientSession, clock: FakeClock
) -> None:
    """A passing request reports limit, remaining and the reset time."""
    simulator = await serve(rate_limit=5)
    status, _, headers = await get_json(session, f"{simulator.url}/v1/scopes")
    assert status == 200
    assert headers["X-RateLimit-Limit"] == "5"
    assert headers["X-RateLimit-Remaining"] == "4"
    assert int(headers["X-RateLimit-Reset"]) == int(clock.now) + 1


async def test_over_the_limit_is_429_with_retry_after(
    serve: StartSimulator, session: aiohttp.ClientSession, clock: FakeClock
) -> None:
    """The request after a burst of N gets 429 rate_limited with Retry-After seconds."""
    simulator = await serve(rate_limit=2, error_format="error")
    url = f"{simulator.url}/v1/scopes"
    for _ in range(2):
        assert (await get_json(session, url))[0] == 200
    status, body, headers = await get_json(session, url)
    assert status == 429
    assert body["error"]["code"] == "rate_limited"
    assert headers["Retry-After"] == "1"
    assert headers["X-RateLimit-Remaining"] == "0"
    assert int(headers["X-RateLimit-Reset"]) == int(clock.now) + 1
    assert simulator.counters.responses[429] == 1


async def test_bucket_refills_with_time(
    serve: StartSimulator, session: aiohttp.ClientSession, clock: FakeClock
) -> None:
    """After waiting (on the fake clock) requests pass again."""
    simulator = await serve(rate_limit=1)
    url = f"{simulator.url}/v1/scopes"
    assert (await get_json(session, url))[0] == 200
    assert (await get_json(session, url))[0] == 429
    clock.advance(1.0)
    assert (await get_json(session, url))[0] == 200


async def test_health_is_not_rate_limited(
    serve: StartSimulator, session: aiohttp.ClientSession
) -> None:
    """Health checks pass and do not spend tokens."""
    simulator = await serve(rate_limit=1)
    for _ in range(3):
        status, _, headers = await get_json(session, f"{simulator.url}/v1/health")
        assert status == 200
        assert "X-RateLimit-Limit" not in headers
    assert (await get_json(session, f"{simulator.url}/v1/scopes"))[0] == 200


def test_slow_rates_wait_several_seconds() -> None:
    """At 0.25 requests per second, the refused request is told to wait 4 seconds."""
    clock = FakeClock(100.0)
    bucket = TokenBucket(0.25, clock)
    assert bucket.take().allowed
    refused = bucket.take()
    assert not refused.allowed
    assert refused.retry_after == 4
    assert refused.headers()["X-RateLimit-Limit"] == "0.25"
    assert refused.headers()["Retry-After"] == "4"


def test_bucket_never_holds_more_than_its_burst() -> None:
    """A long idle time refills to the burst size, no further."""
    clock = FakeClock(0.0)
    bucket = TokenBucket(3, clock)
    clock.advance(3600)
    assert [bucket.take().allowed for _ in range(4)] == [True, True, True, False]


def test_clock_going_backwards_does_not_add_tokens() -> None:
    """A clock that steps back neither refills nor crashes the bucket."""
    clock = FakeClock(50.0)
    bucket = TokenBucket(1, clock)
    assert bucket.take().allowed
    clock.advance(-10)
    assert not bucket.take().allowed


def test_a_window_admits_its_limit_then_refuses() -> None:
    """Three in a window of three pass at once, the fourth is refused until the first leaves."""
    clock = FakeClock(100.0)
    window = SlidingWindow(3, 2.0, clock)
    assert [window.take().remaining for _ in range(3)] == [2, 1, 0]
    refused = window.take()
    assert (refused.allowed, refused.retry_after, refused.remaining) == (False, 2, 0)
    assert refused.headers()["Retry-After"] == "2"
    assert refused.headers()["X-RateLimit-Limit"] == "3"


def test_a_window_slides_with_each_admitted_request() -> None:
    """A slot frees exactly when its request is `window` seconds old, not all at once as a
    bucket refills: requests at 0 and 0.5 let one in at 1.0 and the next at 1.5."""
    clock = FakeClock(0.0)
    window = SlidingWindow(2, 1.0, clock)
    assert window.take().allowed
    clock.advance(0.5)
    assert window.take().allowed
    clock.advance(0.25)
    assert not window.take().allowed
    clock.advance(0.25)
    assert window.take().allowed
    assert not window.take().allowed
    clock.advance(0.5)
    assert window.take().allowed


def test_refused_requests_do_not_hold_the_window() -> None:
    """Only admitted requests count: hammering a full window does not push its end back."""
    clock = FakeClock(10.0)
    window = SlidingWindow(1, 5.0, clock)
    assert window.take().allowed
    for _ in range(10):
        clock.advance(0.4)
        assert not window.take().allowed
    clock.advance(1.0)
    assert window.take().allowed


def test_a_window_resets_when_its_oldest_request_leaves() -> None:
    """X-RateLimit-Reset is the Unix time, to the millisecond, when the window's oldest
    request leaves it and one more may pass."""
    clock = FakeClock(1000.2)
    window = SlidingWindow(2, 3.0, clock)
    window.take()
    clock.advance(1.0)
    decision = window.take()
    assert decision.reset == 1003.2  # the first request, at 1000.2, leaves 3 s later
    assert decision.headers()["X-RateLimit-Reset"] == "1003.2"
    assert "Retry-After" not in decision.headers()


def test_a_window_says_what_it_holds_in_its_repr() -> None:
    """The repr names the limit, the window and how many requests it holds."""
    window = SlidingWindow(4, 2.5, FakeClock(0.0))
    window.take()
    assert repr(window) == "SlidingWindow(limit=4, window=2.5, admitted=1)"


def test_a_window_counts_each_request_at_its_own_arrival() -> None:
    """Requests decided out of their arrival order (a busy simulator gets to them late) are
    each counted at the time they arrived: the window holds the right ones."""
    clock = FakeClock(100.0)
    window = SlidingWindow(2, 1.0, clock)
    assert window.take(100.5).allowed
    assert window.take(100.2).allowed
    assert not window.take(100.9).allowed
    decision = window.take(101.25)  # 100.2 has left; 100.5 is still in the window
    assert decision.allowed
    assert decision.remaining == 0
    assert decision.reset == 101.5
