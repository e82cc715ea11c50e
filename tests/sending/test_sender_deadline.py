"""No call outlives its timeout and deadline: waits on the shared pause and the in-flight slots
count against them, on the injected clock, whatever the service's hint was."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from datetime import UTC
from email.utils import format_datetime

import pytest
from aiohttp import web
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from remedy_async import (
    APITimeoutError,
    MockRequest,
    MockResponse,
    RateLimitError,
    RemedyClient,
    RemedyError,
    RequestOptions,
    RetryPolicy,
)
from tests.budget import examples
from tests.fakes import FakeTime, endpoint_record
from tests.loopback import Serve, serve_handler
from tests.mock_service import Routes

ONE_TRY = RetryPolicy(attempts=1)
SLACK = 1e-6
"""Floating-point room when comparing sums of waits with bounds."""


class Armed:
    """A MockTransport handler: the first request after `arm` gets a 429 with the armed hint;
    every other one a record."""

    def __init__(self) -> None:
        self.hint = ""
        self.armed = False
        self.requests = 0

    def arm(self, hint: str) -> None:
        self.hint, self.armed = hint, True

    def answer(self, request: MockRequest, id: str) -> MockResponse:
        self.requests += 1
        if self.armed:
            self.armed = False
            return MockResponse.json(
                429, {"error": "slow down"}, headers={"Retry-After": self.hint}
            )
        return MockResponse.json(200, endpoint_record(id))

    def served(self) -> AbstractAsyncContextManager[str]:
        """This service over a loopback socket; yields its base URL."""
        return serve_handler(Routes({"/v1/endpoints/{id}": self.answer}))


@pytest.fixture(scope="module")
def limited() -> Iterator[tuple[asyncio.Runner, Armed, str]]:
    """A loopback server answering as `Armed`, in a loop that lives for the module."""
    with asyncio.Runner() as runner:
        script = Armed()
        server = script.served()
        url = runner.run(server.__aenter__())
        yield runner, script, url
        runner.run(server.__aexit__(None, None, None))


hints = st.one_of(
    st.integers(min_value=-10, max_value=10**25).map(str),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.datetimes(timezones=st.just(UTC)).map(format_datetime),
    st.text(alphabet=st.characters(min_codepoint=32, max_codepoint=126), max_size=20),
)


@given(
    hint=hints,
    timeout=st.floats(min_value=5, max_value=120),
    attempts=st.integers(min_value=1, max_value=4),
    deadline=st.floats(min_value=1, max_value=120),
)
@example(hint="1" + "0" * 20, timeout=2.0, attempts=1, deadline=60.0)
@example(hint="1.0", timeout=5.0, attempts=2, deadline=1.0)
@settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_no_call_outlives_its_timeout_or_deadline_while_the_client_is_paused(
    limited: tuple[asyncio.Runner, Armed, str],
    hint: str,
    timeout: float,
    attempts: int,
    deadline: float,
) -> None:
    """After a 429 with any hint, the next call waits at most its deadline (and, with one
    attempt, its timeout); it answers, or raises RateLimitError carrying the pause at once."""
    runner, script, url = limited
    time = FakeTime()
    options = RequestOptions(
        timeout=timeout, retry=RetryPolicy(attempts=attempts, deadline=deadline)
    )

    async def scenario() -> tuple[RemedyError | None, float, int]:
        async with RemedyClient(url, clock=time.clock, sleep=time.sleep, retry=ONE_TRY) as client:
            script.arm(hint)
            with pytest.raises(RateLimitError):
                await client.endpoints.get("first")
            started, sent = time.now, script.requests
            try:
                await client.endpoints.get("second", options=options)
            except RemedyError as error:
                return error, time.now - started, script.requests - sent
            return None, time.now - started, script.requests - sent

    error, waited, sent = runner.run(scenario())
    assert waited <= deadline + SLACK
    if attempts == 1:
        assert waited <= timeout + SLACK
    if error is not None:
        assert isinstance(error, RateLimitError)
        assert error.retry_after is not None
        assert error.attempts == sent
    else:
        assert sent >= 1


@asynccontextmanager
async def paused_client(script: Armed, time: FakeTime, hint: str) -> AsyncIterator[RemedyClient]:
    """A client on the injected clock, paused by a 429 with `hint` to its first request."""
    async with (
        script.served() as url,
        RemedyClient(url, clock=time.clock, sleep=time.sleep, retry=ONE_TRY) as client,
    ):
        script.arm(hint)
        with pytest.raises(RateLimitError):
            await client.endpoints.get("first")
        yield client


async def test_an_absurd_hint_fails_the_next_one_attempt_call_at_once() -> None:
    """After Retry-After 10^20, a call with timeout 2 and one attempt raises RateLimitError
    carrying the pause without waiting or sending."""
    script, time = Armed(), FakeTime()
    async with paused_client(script, time, "1" + "0" * 20) as client:
        with pytest.raises(RateLimitError) as caught:
            await client.endpoints.get("second", options=RequestOptions(timeout=2))
    assert time.waits == []
    assert script.requests == 1
    assert caught.value.retry_after == pytest.approx(60.0)
    assert caught.value.attempts == 0


async def test_a_pause_within_the_timeout_is_waited_out_then_sent() -> None:
    """A pause shorter than the attempt's timeout is waited out and the call succeeds."""
    script, time = Armed(), FakeTime()
    async with paused_client(script, time, "3") as client:
        record = await client.endpoints.get("second", options=RequestOptions(timeout=10))
    assert record.id == "second"
    assert time.waits == [pytest.approx(3.0)]


async def test_a_longer_pause_is_retried_after_it_when_attempts_and_deadline_allow() -> None:
    """A pause longer than one attempt's timeout but within the deadline fails that attempt
    unsent, then the retry waits the pause out and succeeds."""
    script, time = Armed(), FakeTime()
    async with paused_client(script, time, "20") as client:
        options = RequestOptions(timeout=5, retry=RetryPolicy(attempts=2, deadline=60))
        record = await client.endpoints.get("second", options=options)
    assert record.id == "second"
    assert script.requests == 2
    assert sum(time.waits) >= 20


async def test_a_pause_using_up_the_deadline_is_not_waited_for_an_attempt_with_no_time() -> None:
    """A pause as long as the call's whole deadline leaves a retry no time: the call raises
    RateLimitError carrying the pause at once, never sending an attempt with nothing left of
    its deadline (whose outcome would depend on how fast the service answers in real time)."""
    script, time = Armed(), FakeTime()
    async with paused_client(script, time, "1.0") as client:
        options = RequestOptions(timeout=5, retry=RetryPolicy(attempts=2, deadline=1.0))
        with pytest.raises(RateLimitError) as caught:
            await client.endpoints.get("second", options=options)
    assert script.requests == 1
    assert time.waits == []
    assert caught.value.retry_after == pytest.approx(1.0)
    assert caught.value.attempts == 0


async def test_an_attempt_queued_for_a_slot_past_its_time_fails_unsent(serve: Serve) -> None:
    """A call queued behind max_in_flight whose time runs out while it waits gives the slot
    back and raises APITimeoutError without sending."""
    release = asyncio.Event()
    arrived = asyncio.Event()
    seen: list[str] = []

    # An aiohttp handler: the answer is held back until released, past the queued call's time.
    async def slow(request: web.Request) -> web.Response:
        seen.append(request.match_info["id"])
        arrived.set()
        await release.wait()
        return web.json_response(endpoint_record(request.match_info["id"]))

    url = await serve({"/v1/endpoints/{id}": slow})
    time = FakeTime()
    async with RemedyClient(
        url, clock=time.clock, sleep=time.sleep, retry=ONE_TRY, max_in_flight=1
    ) as client:
        holder = asyncio.create_task(client.endpoints.get("holder"))
        await arrived.wait()
        queued = asyncio.create_task(
            client.endpoints.get("queued", options=RequestOptions(timeout=5))
        )
        await asyncio.sleep(0)
        time.now += 6
        release.set()
        assert (await holder).id == "holder"
        with pytest.raises(APITimeoutError, match="no in-flight slot came free in time"):
            await queued
        assert (await client.endpoints.get("after")).id == "after"
    assert seen == ["holder", "after"]
