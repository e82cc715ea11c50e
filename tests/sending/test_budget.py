"""The client's own rate limit (RateLimit): a budget shared by every task of one client, on the
injected clock, checked where it matters: the times the server saw each request arrive."""

from __future__ import annotations

import asyncio
import copy
import io
import pickle
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AsyncExitStack
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from remedy_async import (
    APITimeoutError,
    ConfigurationError,
    MockRequest,
    MockResponse,
    MockTransport,
    RateLimit,
    RemedyClient,
    RequestOptions,
    RetryPolicy,
    Tenant,
    TenantClients,
)
from remedy_async._sending._budget import RequestBudget, margin
from tests.fakes import endpoint_record, page
from tests.loopback import MockHandler, serve_handler
from tests.mock_service import Routes
from tests.sending.parked_time import SLACK, ParkedTime, most_in_any_window

ServeHandler = Callable[[MockHandler], Awaitable[str]]
"""The `served` fixture: serve a MockTransport handler over loopback; returns its base URL."""


@pytest.fixture
async def served() -> AsyncIterator[ServeHandler]:
    """Serve MockTransport handlers over loopback (serve_handler) until the test ends."""
    async with AsyncExitStack() as stack:

        async def start(handler: MockHandler) -> str:
            return await stack.enter_async_context(serve_handler(handler))

        yield start


class Stamps:
    """A service stamping each request's arrival on the virtual clock, served over loopback:
    when each request reaches the wire is what the budget's tests read."""

    def __init__(self, time: ParkedTime, *, limited_first: float | None = None) -> None:
        self.time = time
        self.arrivals: list[float] = []
        self.paths: list[str] = []
        self._limited_first = limited_first

    def answer(self, request: MockRequest, id: str = "x") -> MockResponse:
        self.arrivals.append(self.time.clock())
        self.paths.append(request.path)
        if self._limited_first is not None:
            wait, self._limited_first = self._limited_first, None
            return MockResponse.json(429, {"error": "later"}, headers={"Retry-After": f"{wait:g}"})
        if request.path.endswith("agent-configuration"):
            return MockResponse(200, {"Content-Type": "application/octet-stream"}, b"agent: {}\n")
        if request.path.endswith("/endpoints"):
            offset = int(request.query.get("offset", "0"))
            records = [endpoint_record(f"ep-{n}") for n in range(offset, min(offset + 5, 40))]
            return MockResponse.json(200, page(records, total=40, offset=offset, limit=5))
        return MockResponse.json(200, endpoint_record(id))

    async def url(self, served: ServeHandler) -> str:
        paths = ("/v1/endpoints", "/v1/endpoints/{id}", "/v1/agent-configuration")
        return await served(Routes(dict.fromkeys(paths, self.answer)))


def virtual_client(url: str, limit: RateLimit | str, **settings: object) -> RemedyClient:
    """A client on a ParkedTime, which moves only while its requests in flight are parked."""
    time = ParkedTime()
    client = RemedyClient(
        url,
        rate_limit=limit,
        clock=time.clock,
        sleep=time.sleep,
        event_hooks=[time],
        **settings,  # type: ignore[arg-type]
    )
    client.virtual_time = time  # type: ignore[attr-defined]
    return client


async def stamped(served: ServeHandler, **stamps: float) -> tuple[Stamps, str, ParkedTime]:
    time = ParkedTime()
    service = Stamps(time, **stamps)
    return service, await service.url(served), time


def clocked(service: Stamps, client: RemedyClient) -> None:
    """Let the service stamp arrivals on the client's virtual clock."""
    service.time = client.virtual_time  # type: ignore[attr-defined]


async def test_a_get_many_never_exceeds_the_budget_and_reaches_it(served: ServeHandler) -> None:
    """60 gets from 16 tasks under 10/s: never over 10 in any second, all done in 5 windows
    (of 1.05 s: the 5% margin)."""
    service, url, _ = await stamped(served)
    async with virtual_client(url, RateLimit(10, per=1.0)) as client:
        clocked(service, client)
        ids = [f"ep-{n}" for n in range(60)]
        results = [result async for result in client.endpoints.get_many(ids, concurrency=16)]
    assert all(result.ok for result in results)
    assert most_in_any_window(service.arrivals, 1.0) == 10
    assert max(service.arrivals) - min(service.arrivals) == pytest.approx(5.25)


async def test_every_kind_of_call_shares_one_budget(served: ServeHandler) -> None:
    """Parallel list pages, a get_many, gets and downloads at once stay within one budget."""
    service, url, _ = await stamped(served)
    async with virtual_client(url, RateLimit(4, per=2.0)) as client:
        clocked(service, client)
        await asyncio.gather(
            client.endpoints.list(page_size=5, concurrency=4).collect(),
            client.endpoints.get_many([f"ep-{n}" for n in range(8)]).__anext__(),
            client.endpoints.get("ep-99"),
            client.download_agent_configuration(io.BytesIO()),
            client.download_agent_configuration(io.BytesIO()),
        )
    assert len(service.arrivals) >= 13
    assert most_in_any_window(service.arrivals, 2.0) <= 4


async def test_a_burst_cap_spaces_requests_within_the_window(served: ServeHandler) -> None:
    """With burst=2 under 10/s, never over 2 in any 0.2 s nor over 10 in any second: a pair
    every 0.21 s (the 5% margin)."""
    service, url, _ = await stamped(served)
    async with virtual_client(url, RateLimit(10, per=1.0, burst=2)) as client:
        clocked(service, client)
        await asyncio.gather(*(client.endpoints.get(f"ep-{n}") for n in range(30)))
    assert most_in_any_window(service.arrivals, 0.2) == 2
    assert most_in_any_window(service.arrivals, 1.0) == 10
    assert max(service.arrivals) - min(service.arrivals) == pytest.approx(14 * 0.21)


async def test_the_budget_composes_with_a_429_pause(served: ServeHandler) -> None:
    """After a 429 asks every request to wait 3 s, nothing arrives during the pause and the
    requests that follow still keep to the budget."""
    service, url, _ = await stamped(served, limited_first=3.0)
    async with virtual_client(url, RateLimit(5, per=1.0)) as client:
        clocked(service, client)
        await asyncio.gather(*(client.endpoints.get(f"ep-{n}") for n in range(12)))
    first = service.arrivals[0]
    after = [at for at in service.arrivals[1:] if at > first]
    assert all(at >= first + 3.0 - SLACK for at in after)
    assert most_in_any_window(service.arrivals, 1.0) <= 5


async def test_a_turn_past_the_timeout_fails_unsent(served: ServeHandler) -> None:
    """A turn that would come after the attempt's timeout fails at once, unsent, as a timeout
    naming the rate limit; the call before it went out."""
    service, url, _ = await stamped(served)
    async with virtual_client(url, RateLimit(1, per=60.0), timeout=5.0) as client:
        clocked(service, client)
        once = RequestOptions(retry=RetryPolicy(attempts=1))
        await client.endpoints.get("ep-1", options=once)
        with pytest.raises(APITimeoutError, match=r"rate limit \(1/min\)") as caught:
            await client.endpoints.get("ep-2", options=once)
    assert caught.value.attempts == 0
    assert len(service.arrivals) == 1


async def test_a_turn_is_waited_for_within_the_deadline(served: ServeHandler) -> None:
    """A turn before the timeout and the deadline is waited for on the injected sleep (a
    minute and the margin's 0.1 s)."""
    service, url, _ = await stamped(served)
    patient = RetryPolicy(deadline=120.0)
    async with virtual_client(url, "2/min", timeout=90.0, retry=patient) as client:
        clocked(service, client)
        await asyncio.gather(*(client.endpoints.get(f"ep-{n}") for n in range(3)))
        time = client.virtual_time  # type: ignore[attr-defined]
    assert [round(wait, 6) for wait in time.sleeps] == [60.1]
    assert service.arrivals[2] - service.arrivals[0] == pytest.approx(60.1)


async def test_cancelling_a_waiting_request_frees_its_slot(served: ServeHandler) -> None:
    """A request cancelled while it waits its turn gives its in-flight slot back."""
    service, url, _ = await stamped(served)
    async with virtual_client(url, RateLimit(1, per=10.0), max_in_flight=1) as client:
        clocked(service, client)
        await client.endpoints.get("ep-1")
        waiting = asyncio.create_task(client.endpoints.get("ep-2"))
        for _ in range(5):
            await asyncio.sleep(0)
        waiting.cancel()
        with pytest.raises(asyncio.CancelledError):
            await waiting
        assert client._gate.slots.take()
        client._gate.slots.give_back()


def test_a_rate_limit_setting_that_is_not_one_is_a_configuration_error() -> None:
    """rate_limit takes a RateLimit or its text; anything else fails at construction."""
    with pytest.raises(ConfigurationError, match="rate_limit"):
        RemedyClient("http://127.0.0.1:9", rate_limit="fast")
    with pytest.raises(ConfigurationError, match="rate_limit must be a RateLimit"):
        RemedyClient("http://127.0.0.1:9", rate_limit=10)  # type: ignore[arg-type]


@given(
    requests=st.integers(1, 12),
    per=st.floats(0.01, 100.0),
    burst=st.none() | st.integers(1, 12),
    asks=st.lists(st.floats(0.0, 50.0), min_size=1, max_size=60),
)
def test_bookings_keep_both_windows_and_come_as_early_as_allowed(
    requests: int, per: float, burst: int | None, asks: list[float]
) -> None:
    """For any arrival pattern, booked times (turns up front, and times at the wire) never put
    more than `requests` in any `per` seconds and its margin, nor more than `burst` in any
    `burst x per / requests` and its margin; each comes no later than the earliest time both
    windows allow, and never before it was asked for."""
    burst = None if burst is None else min(burst, requests)
    limit = RateLimit(requests, per=per, burst=burst)
    budget = RequestBudget(limit)
    window = per + margin(per)
    burst_window = burst_per = 0.0
    if burst is not None:
        burst_per = burst * per / requests
        burst_window = burst_per + margin(burst_per)
    for book in (budget.turns.book, budget.wire.book):
        booked: list[float] = []
        for asked in sorted(asks):
            at = book(asked)
            assert at >= asked
            earliest = asked
            if len(booked) >= requests:
                earliest = max(earliest, booked[-requests] + window)
            if burst is not None and len(booked) >= burst:
                earliest = max(earliest, booked[-burst] + burst_window)
            assert at == pytest.approx(earliest, rel=1e-12)
            booked.append(at)
        assert most_in_any_window(booked, window) <= requests
        if burst is not None:
            assert most_in_any_window(booked, burst_window) <= burst


@pytest.mark.parametrize(
    ("window", "expected"),
    [(0.01, 0.0005), (0.2, 0.01), (1.0, 0.05), (2.0, 0.1), (60.0, 0.1), (3600.0, 0.1)],
)
def test_a_window_is_kept_five_percent_wider_and_at_most_a_tenth_of_a_second(
    window: float, expected: float
) -> None:
    """The margin: 5% of the window, never more than 0.1 s (what a request's way to the
    service may vary by; under 10/s it costs under 5% of the throughput)."""
    assert margin(window) == pytest.approx(expected)


@given(
    requests=st.integers(1, 10**6),
    per=st.floats(1e-3, 1e6, allow_nan=False),
    burst=st.none() | st.integers(1, 10**6),
)
def test_a_rate_limit_reads_back_from_its_text(
    requests: int, per: float, burst: int | None
) -> None:
    """`RateLimit.parse(str(limit))` gives the limit back (burst aside: text has none)."""
    limit = RateLimit(requests, per=per)
    assert RateLimit.parse(str(limit)) == limit
    if burst is not None and burst <= requests:
        assert str(RateLimit(requests, per=per, burst=burst)).endswith(f"(burst {burst})")


@given(
    requests=st.one_of(st.integers(max_value=0), st.booleans(), st.floats(), st.text()),
)
def test_a_request_count_below_one_or_not_an_int_is_refused(requests: object) -> None:
    """requests must be an int >= 1: zero, negatives, bools, floats and text are refused."""
    with pytest.raises(ValueError, match="requests must be an int >= 1"):
        RateLimit(requests)  # type: ignore[arg-type]


@given(per=st.one_of(st.floats(max_value=0.0), st.just(float("inf")), st.just(float("nan"))))
def test_a_window_that_is_not_a_positive_finite_number_is_refused(per: float) -> None:
    """per must be a positive, finite number of seconds."""
    with pytest.raises(ValueError, match=r"RateLimit\.per"):
        RateLimit(5, per=per)


def test_a_burst_above_the_budget_is_refused() -> None:
    """burst cannot exceed requests: the window would allow no more at once anyway."""
    with pytest.raises(ValueError, match="burst"):
        RateLimit(5, burst=6)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("10/s", RateLimit(10)),
        ("600/min", RateLimit(600, per=60)),
        ("3 / hour", RateLimit(3, per=3600)),
        ("5/2.5s", RateLimit(5, per=2.5)),
        ("100/10 seconds", RateLimit(100, per=10)),
    ],
)
def test_rates_read_from_text(text: str, expected: RateLimit) -> None:
    """The rate grammar: N/s, N/min, N/h, N/Xs, units spelt out or not."""
    assert RateLimit.parse(text) == expected


@pytest.mark.parametrize("text", ["10", "10/ms", "ten/s", "10/0s", "-1/s", "10/week"])
def test_text_that_is_no_rate_is_refused_saying_what_is(text: str) -> None:
    """Anything else is a ValueError naming the grammar (or the bad value)."""
    with pytest.raises(ValueError, match=r"rate is N/s|RateLimit"):
        RateLimit.parse(text)


def test_a_token_given_as_a_rate_is_refused_without_showing_it() -> None:
    """Text that looks like a token, given where a rate goes, is described, never repeated."""
    pasted = "furl_sk_live_4f9a8b7c6d5e4f3a2b1c"
    with pytest.raises(ValueError, match="rate is N/s") as caught:
        RateLimit.parse(pasted)
    assert pasted not in str(caught.value)
    assert "looks like a token" in str(caught.value)


def test_a_configuration_file_sets_the_rate_limit(tmp_path: Path) -> None:
    """`rate_limit = "600/min"` in a profile is the client's budget."""
    config = tmp_path / "remedy.toml"
    config.write_text('[default]\nbase_url = "https://api.test"\nrate_limit = "600/min"\n')
    client = RemedyClient.from_config(config)
    assert client._gate.limit == RateLimit(600, per=60)


# One value, one budget ---------------------------------------------------------------------


async def test_one_rate_limit_value_is_one_budget_in_an_event_loop() -> None:
    """Clients given the same RateLimit instance book into one budget; an equal value made
    apart, or the same rate as text, is another."""
    limit = RateLimit(10)
    one = RemedyClient("http://127.0.0.1:9", rate_limit=limit)
    other = RemedyClient("http://127.0.0.1:9", rate_limit=limit)
    apart = RemedyClient("http://127.0.0.1:9", rate_limit=RateLimit(10))
    text = RemedyClient("http://127.0.0.1:9", rate_limit="10/s")
    assert one._gate is not other._gate
    assert one._gate.budget is other._gate.budget
    assert apart._gate.budget is not one._gate.budget
    assert text._gate.budget is not one._gate.budget
    assert apart._gate.limit == text._gate.limit == limit


def test_each_event_loop_has_its_own_budget_of_a_value() -> None:
    """The same value used in two event loops (a budget is not thread-safe) is two budgets;
    a client keeps its budget within a loop."""
    limit = RateLimit(10)
    client = RemedyClient("http://127.0.0.1:9", rate_limit=limit)

    async def budget_here() -> object:
        first = client._gate.budget
        assert client._gate.budget is first
        return first

    assert asyncio.run(budget_here()) is not asyncio.run(budget_here())


async def test_clients_on_other_clocks_do_not_share_a_budget() -> None:
    """A budget's times are on one clock: clients given one value on different clocks each
    book into a budget of their clock."""
    limit, time = RateLimit(10), ParkedTime()
    real = RemedyClient("http://127.0.0.1:9", rate_limit=limit)
    virtual = RemedyClient("http://127.0.0.1:9", rate_limit=limit, clock=time.clock)
    assert real._gate.budget is not virtual._gate.budget


def test_a_copied_or_pickled_value_is_a_budget_of_its_own() -> None:
    """A value loaded from a pickle (another process's) or copied is equal, with its own
    budget."""
    limit = RateLimit(600, per=60, burst=10)
    for again in (pickle.loads(pickle.dumps(limit)), copy.copy(limit), copy.deepcopy(limit)):
        assert again == limit
        assert again._budgets is not limit._budgets


async def test_tenants_given_one_default_rate_limit_each_have_its_budget() -> None:
    """TenantClients gives each key its own budget of a shared default `rate_limit=` value:
    one value there is a limit per key, not one for all of them."""
    limit = RateLimit(20)
    tenants = [Tenant("acme", token_env="A_TOKEN"), Tenant("globex", token_env="G_TOKEN")]
    async with TenantClients(
        tenants,
        environ={"A_TOKEN": "a", "G_TOKEN": "g"},
        transport=MockTransport(lambda request: None),  # type: ignore[arg-type,return-value]
        base_url="https://api.example.test",
        rate_limit=limit,
    ) as clients:
        acme, globex = clients["acme"]._gate, clients["globex"]._gate
        assert acme.limit == globex.limit == limit
        assert acme.budget is not globex.budget
