"""The request gate: reading rate-limit headers, the shared pause, and the in-flight cap."""

from __future__ import annotations

import asyncio
import time
from datetime import UTC, datetime
from email.utils import format_datetime

import pytest
from hypothesis import given
from hypothesis import strategies as st
from multidict import CIMultiDict, CIMultiDictProxy

from remedy_async._sending._gate import EPOCH_THRESHOLD, RequestGate, reset_delay

NOW = 1_700_000_000.0


def headers(*pairs: tuple[str, str]) -> CIMultiDictProxy[str]:
    """Response headers as aiohttp gives them."""
    return CIMultiDictProxy(CIMultiDict(pairs))


def exhausted(reset: str) -> CIMultiDictProxy[str]:
    """Headers saying no requests remain until `reset`."""
    return headers(("X-RateLimit-Remaining", "0"), ("X-RateLimit-Reset", reset))


class Clock:
    """A monotonic clock the test moves by hand."""

    def __init__(self, now: float = 500.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


def gate(max_in_flight: int = 4) -> tuple[RequestGate, Clock]:
    """A gate on a hand-moved clock."""
    clock = Clock()
    return RequestGate(max_in_flight, clock), clock


def http_date_in(seconds: int) -> tuple[str, float]:
    """An HTTP date `seconds` from now (whole seconds), and the wall-clock time it names."""
    when = int(time.time()) + seconds
    return format_datetime(datetime.fromtimestamp(when, UTC), usegmt=True), float(when)


# ---------------------------------------------------------------------------------------------
# reset_delay


@pytest.mark.parametrize("remaining", ["1", "10", "", "none", "-1"])
def test_reset_delay_is_none_while_requests_remain(remaining: str) -> None:
    """Only `X-RateLimit-Remaining: 0` means the window is used up."""
    pairs = (("X-RateLimit-Remaining", remaining), ("X-RateLimit-Reset", "30"))
    assert reset_delay(headers(*pairs), now=NOW) is None


def test_reset_delay_is_none_without_remaining() -> None:
    """A reset time alone, with no Remaining header, is no reason to pause."""
    assert reset_delay(headers(("X-RateLimit-Reset", "30")), now=NOW) is None


def test_reset_delay_accepts_padded_zero() -> None:
    """`X-RateLimit-Remaining` is read with surrounding whitespace ignored."""
    pairs = (("X-RateLimit-Remaining", " 0 "), ("X-RateLimit-Reset", "30"))
    assert reset_delay(headers(*pairs), now=NOW) == 30.0


def test_reset_delay_is_none_without_reset() -> None:
    """No requests remaining but no reset time: nothing to wait for."""
    assert reset_delay(headers(("X-RateLimit-Remaining", "0")), now=NOW) is None


@pytest.mark.parametrize("reset", ["", "soon", "-1", "-0.5", "inf", "-inf", "nan", "1e999"])
def test_reset_delay_is_none_for_an_unusable_reset(reset: str) -> None:
    """A garbage, negative or non-finite reset is ignored."""
    assert reset_delay(exhausted(reset), now=NOW) is None


@pytest.mark.parametrize(("reset", "delay"), [("30", 30.0), ("2.5", 2.5), ("0", 0.0)])
def test_reset_delay_small_values_are_seconds_from_now(reset: str, delay: float) -> None:
    """A reset below 1e9 is a number of seconds to wait."""
    assert reset_delay(exhausted(reset), now=NOW) == delay


def test_reset_delay_just_below_the_threshold_is_seconds() -> None:
    """999_999_999 is still read as seconds from now, not as a Unix time."""
    assert reset_delay(exhausted(str(EPOCH_THRESHOLD - 1)), now=NOW) == EPOCH_THRESHOLD - 1


def test_reset_delay_large_values_are_unix_times() -> None:
    """A reset at or above 1e9 is a Unix time; the delay is measured from `now`."""
    assert reset_delay(exhausted(str(int(NOW) + 45)), now=NOW) == 45.0


def test_reset_delay_at_the_threshold_is_a_unix_time() -> None:
    """Exactly 1e9 is a Unix time."""
    now = EPOCH_THRESHOLD - 10.0
    assert reset_delay(exhausted(str(EPOCH_THRESHOLD)), now=now) == 10.0


def test_reset_delay_unix_time_in_the_past_is_zero() -> None:
    """A reset time already passed means no wait, never a negative one."""
    assert reset_delay(exhausted(str(int(NOW) - 100)), now=NOW) == 0.0


def test_reset_delay_unix_time_defaults_to_the_wall_clock() -> None:
    """Without `now`, a Unix reset time is measured from time.time()."""
    delay = reset_delay(exhausted(str(int(time.time()) + 45)))
    assert delay is not None
    assert 43.0 < delay <= 45.0


def test_reset_delay_header_names_are_case_insensitive() -> None:
    """Lower-case header names, as HTTP/2 sends them, are read too."""
    pairs = (("x-ratelimit-remaining", "0"), ("x-ratelimit-reset", "12"))
    assert reset_delay(headers(*pairs), now=NOW) == 12.0


@given(reset=st.text(max_size=30) | st.floats().map(repr) | st.integers().map(str))
def test_reset_delay_is_never_negative_or_infinite(reset: str) -> None:
    """Whatever the reset header says, the delay is None or a finite number >= 0."""
    delay = reset_delay(exhausted(reset), now=NOW)
    assert delay is None or 0.0 <= delay < float("inf")


# ---------------------------------------------------------------------------------------------
# observe


def test_new_gate_has_no_pause() -> None:
    """A fresh gate lets requests through at once."""
    requests, _ = gate()
    assert requests.pause_left() == 0.0


def test_429_with_retry_after_seconds_pauses_everyone() -> None:
    """A 429 with `Retry-After: 30` pauses the gate for 30 s."""
    requests, _ = gate()
    assert requests.observe(429, headers(("Retry-After", "30"))) == 30.0
    assert requests.pause_left() == 30.0


def test_429_with_retry_after_ms_pauses_everyone() -> None:
    """A 429 with `retry-after-ms` pauses for that many milliseconds."""
    requests, _ = gate()
    assert requests.observe(429, headers(("retry-after-ms", "1500"))) == 1.5
    assert requests.pause_left() == 1.5


def test_429_with_retry_after_http_date_pauses_everyone() -> None:
    """A 429 with an HTTP-date `Retry-After` pauses until that time."""
    requests, _ = gate()
    when, _ = http_date_in(120)
    pause = requests.observe(429, headers(("Retry-After", when)))
    assert pause is not None
    assert 118.0 < pause <= 120.0
    assert requests.pause_left() == pytest.approx(pause)


def test_429_without_hint_does_not_pause() -> None:
    """A 429 that names no wait leaves the gate open (the retry backoff handles it)."""
    requests, _ = gate()
    assert requests.observe(429, headers()) is None
    assert requests.pause_left() == 0.0


@pytest.mark.parametrize("value", ["soon", "-5", "inf", "nan"])
def test_429_with_unusable_hint_does_not_pause(value: str) -> None:
    """A garbage, negative or non-finite `Retry-After` on a 429 is no pause."""
    requests, _ = gate()
    assert requests.observe(429, headers(("Retry-After", value))) is None
    assert requests.pause_left() == 0.0


def test_429_with_zero_hint_does_not_pause() -> None:
    """`Retry-After: 0` asks for no pause."""
    requests, _ = gate()
    assert requests.observe(429, headers(("Retry-After", "0"))) == 0.0
    assert requests.pause_left() == 0.0


def test_429_without_hint_uses_an_exhausted_budget() -> None:
    """A 429 with no Retry-After but no requests remaining pauses until the reset."""
    requests, _ = gate()
    assert requests.observe(429, exhausted("20")) == 20.0
    assert requests.pause_left() == 20.0


def test_429_hint_is_preferred_to_the_reset() -> None:
    """On a 429 the Retry-After hint is used over X-RateLimit-Reset."""
    requests, _ = gate()
    pairs = (("Retry-After", "5"), ("X-RateLimit-Remaining", "0"), ("X-RateLimit-Reset", "40"))
    assert requests.observe(429, headers(*pairs)) == 5.0


def test_success_with_exhausted_budget_pauses_until_reset() -> None:
    """A 200 with `X-RateLimit-Remaining: 0` and a reset pauses everyone until then."""
    requests, _ = gate()
    assert requests.observe(200, exhausted("12")) == 12.0
    assert requests.pause_left() == 12.0


def test_success_with_exhausted_budget_and_unix_reset_pauses() -> None:
    """A Unix-time reset is turned into seconds from now."""
    requests, _ = gate()
    pause = requests.observe(200, exhausted(str(int(time.time()) + 45)))
    assert pause is not None
    assert 43.0 < pause <= 45.0
    assert requests.pause_left() == pytest.approx(pause)


def test_success_with_budget_left_does_not_pause() -> None:
    """Requests remaining in the window: no pause."""
    requests, _ = gate()
    pairs = (("X-RateLimit-Remaining", "3"), ("X-RateLimit-Reset", "12"))
    assert requests.observe(200, headers(*pairs)) is None
    assert requests.pause_left() == 0.0


@pytest.mark.parametrize("status", [200, 500, 502, 503, 504, 408])
def test_retry_after_outside_429_does_not_pause_everyone(status: int) -> None:
    """A Retry-After on any status but 429 is for the one request, not the whole client."""
    requests, _ = gate()
    assert requests.observe(status, headers(("Retry-After", "30"))) is None
    assert requests.pause_left() == 0.0


def test_503_with_exhausted_budget_still_pauses() -> None:
    """An exhausted budget pauses everyone whatever the status."""
    requests, _ = gate()
    assert requests.observe(503, exhausted("9")) == 9.0
    assert requests.pause_left() == 9.0


# ---------------------------------------------------------------------------------------------
# the pause over time


def test_pause_left_counts_down_with_the_clock() -> None:
    """pause_left shrinks as the injected clock moves, and stops at 0."""
    requests, clock = gate()
    requests.observe(429, headers(("Retry-After", "30")))
    clock.advance(10)
    assert requests.pause_left() == 20.0
    clock.advance(19.5)
    assert requests.pause_left() == 0.5
    clock.advance(0.5)
    assert requests.pause_left() == 0.0
    clock.advance(100)
    assert requests.pause_left() == 0.0


def test_longer_pause_wins() -> None:
    """A later, longer pause extends the current one."""
    requests, _ = gate()
    requests.observe(429, headers(("Retry-After", "10")))
    requests.observe(429, headers(("Retry-After", "30")))
    assert requests.pause_left() == 30.0


def test_shorter_pause_does_not_shorten() -> None:
    """A later, shorter pause leaves the longer one in place."""
    requests, _ = gate()
    requests.observe(429, headers(("Retry-After", "30")))
    requests.observe(429, headers(("Retry-After", "5")))
    assert requests.pause_left() == 30.0


def test_pause_is_measured_from_when_it_was_asked() -> None:
    """A pause asked later ends `seconds` after that later time when that is later still."""
    requests, clock = gate()
    requests.pause_for(10)
    clock.advance(8)
    requests.pause_for(5)
    assert requests.pause_left() == 5.0


def test_pause_after_a_pause_ended_starts_afresh() -> None:
    """Once a pause has run out, a new one counts from the current time."""
    requests, clock = gate()
    requests.pause_for(10)
    clock.advance(50)
    requests.pause_for(3)
    assert requests.pause_left() == 3.0


@given(
    steps=st.lists(
        st.tuples(
            st.floats(min_value=0.0, max_value=100.0), st.floats(min_value=0.0, max_value=100.0)
        ),
        max_size=20,
    ),
    later=st.floats(min_value=0.0, max_value=100.0),
)
def test_pause_left_is_the_furthest_end_asked(
    steps: list[tuple[float, float]], later: float
) -> None:
    """After any sequence of pauses, the gate reopens at the latest end any of them asked."""
    clock = Clock(0.0)
    requests = RequestGate(1, clock)
    ends = [0.0]
    for advance, seconds in steps:
        clock.advance(advance)
        requests.pause_for(seconds)
        ends.append(clock.now + seconds)
    clock.advance(later)
    assert requests.pause_left() == pytest.approx(max(0.0, max(ends) - clock.now))
    assert requests.pause_left() >= 0.0


# ---------------------------------------------------------------------------------------------
# in-flight slots


async def settle() -> None:
    """Let every ready task run until it blocks."""
    for _ in range(20):
        await asyncio.sleep(0)


async def test_slot_admits_at_most_max_in_flight() -> None:
    """No more than max_in_flight holders are inside a slot at once; the rest wait their turn."""
    requests, _ = gate(max_in_flight=2)
    release = asyncio.Event()
    inside = 0
    peak = 0
    finished = 0

    async def holder() -> None:
        nonlocal inside, peak, finished
        async with requests.slots:
            inside += 1
            peak = max(peak, inside)
            await release.wait()
            inside -= 1
        finished += 1

    tasks = [asyncio.create_task(holder()) for _ in range(5)]
    await settle()
    assert inside == 2
    assert finished == 0
    release.set()
    await asyncio.gather(*tasks)
    assert peak == 2
    assert finished == 5
    assert inside == 0


async def test_slot_is_freed_when_the_holder_finishes() -> None:
    """A waiting request gets the slot as soon as the holder leaves it."""
    requests, _ = gate(max_in_flight=1)
    first_release = asyncio.Event()
    order: list[str] = []

    async def first() -> None:
        async with requests.slots:
            order.append("first in")
            await first_release.wait()
        order.append("first out")

    async def second() -> None:
        async with requests.slots:
            order.append("second in")

    tasks = [asyncio.create_task(first()), asyncio.create_task(second())]
    await settle()
    assert order == ["first in"]
    first_release.set()
    await asyncio.gather(*tasks)
    assert order == ["first in", "first out", "second in"]


async def test_slot_is_freed_when_the_holder_fails() -> None:
    """A request that raises inside its slot still gives the slot back."""
    requests, _ = gate(max_in_flight=1)
    with pytest.raises(RuntimeError, match="boom"):
        async with requests.slots:
            raise RuntimeError("boom")
    entered = False
    async with asyncio.timeout(1), requests.slots:
        entered = True
    assert entered


async def test_slot_is_freed_when_the_holder_is_cancelled() -> None:
    """A cancelled request gives its slot back to the next one."""
    requests, _ = gate(max_in_flight=1)
    hold = asyncio.Event()

    async def holder() -> None:
        async with requests.slots:
            await hold.wait()

    task = asyncio.create_task(holder())
    await settle()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    async with asyncio.timeout(1), requests.slots:
        pass


def test_repr_shows_max_in_flight_and_pause() -> None:
    """The repr names the in-flight cap and the pause left."""
    requests, _ = gate(max_in_flight=7)
    assert "max_in_flight=7" in repr(requests)
    assert "pause=0.00s" in repr(requests)
    requests.pause_for(2.5)
    assert "pause=2.50s" in repr(requests)


def test_max_in_flight_is_kept() -> None:
    """The gate exposes the cap it was built with."""
    requests, _ = gate(max_in_flight=3)
    assert requests.max_in_flight == 3


async def test_a_freed_slot_goes_to_the_longest_waiter_not_a_newcomer() -> None:
    """Slots are first come, first served: a request arriving as a slot frees queues behind."""
    requests, _ = gate(max_in_flight=1)
    slots = requests.slots
    assert slots.take()
    order: list[str] = []

    async def waiter(name: str) -> None:
        async with slots:
            order.append(name)

    first = asyncio.create_task(waiter("first"))
    await settle()
    slots.give_back()
    assert not slots.take()  # the freed slot already belongs to the queued request
    second = asyncio.create_task(waiter("second"))
    await asyncio.gather(first, second)
    assert order == ["first", "second"]
    assert slots.take()


async def test_a_waiter_cancelled_after_being_handed_a_slot_passes_it_on() -> None:
    """A slot handed to a request that is cancelled before it runs goes to the next waiter."""
    requests, _ = gate(max_in_flight=1)
    slots = requests.slots
    assert slots.take()
    got: list[str] = []

    async def waiter(name: str) -> None:
        async with slots:
            got.append(name)

    doomed = asyncio.create_task(waiter("doomed"))
    lucky = asyncio.create_task(waiter("lucky"))
    await settle()
    slots.give_back()  # hands the slot to "doomed" ...
    doomed.cancel()  # ... which is cancelled before it can run
    with pytest.raises(asyncio.CancelledError):
        await doomed
    await asyncio.wait_for(lucky, 1)
    assert got == ["lucky"]
    assert slots.take()
    assert not slots.take()


async def test_a_cancelled_waiter_leaves_the_queue() -> None:
    """A request cancelled while queued takes no slot, and the count is unchanged afterwards."""
    requests, _ = gate(max_in_flight=1)
    slots = requests.slots
    assert slots.take()
    waiting = asyncio.create_task(slots.wait())
    await settle()
    waiting.cancel()
    with pytest.raises(asyncio.CancelledError):
        await waiting
    assert "waiting=0" in repr(slots)
    slots.give_back()
    assert slots.take()
    assert not slots.take()


def test_an_absurd_pause_is_capped_for_everyone() -> None:
    """A Retry-After of a year pauses the client only as long as its cap allows."""
    now = [100.0]
    requests = RequestGate(4, lambda: now[0], max_pause=60.0)
    year = str(365 * 24 * 3600)
    assert requests.observe(429, CIMultiDictProxy(CIMultiDict({"Retry-After": year}))) == 60.0
    assert requests.pause_left() == 60.0


def test_an_exhausted_budget_in_lower_case_headers_pauses_everyone() -> None:
    """The headers of an exhausted budget are found whatever their case, as HTTP has it."""
    requests, _ = gate()
    pairs = (("x-ratelimit-remaining", "0"), ("x-ratelimit-reset", "7"))
    assert requests.observe(200, headers(*pairs)) == 7.0


def test_a_response_without_rate_limit_headers_asks_nothing() -> None:
    """A 200 with no rate-limit headers neither pauses nor returns a pause."""
    requests, _ = gate()
    assert requests.observe(200, headers(("Content-Type", "application/json"))) is None
    assert requests.pause_left() == 0.0
