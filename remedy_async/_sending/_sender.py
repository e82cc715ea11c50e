"""Sends one call to the service: attempts under the retry policy, behind the client's gate.

Every attempt waits out any pause the service asked for and takes one of the client's in-flight
slots; those waits and the exchange together are bounded by the attempt timeout and by the
call's deadline, so no call outlives them. A pause or a queue longer than what is left fails the
attempt at once (RateLimitError with `retry_after`, APITimeoutError). Under the client's rate
limit an attempt books its turn up front, and the request it hands the transport carries its
turn at the wire (`Request.turn`, `_at_wire`): the transport awaits it, its connection in hand,
for the time each request goes out; for a transport that does not take turns (no
`takes_turns = True`), `TurnFirst` takes each one just before handing it the request. A
failed attempt is retried as the policy decides; the error that ends the call records how many
attempts it sent.
A redirect is followed only when the client says so, and only where it may be (`redirect_target`,
pure, no I/O). With a token provider (`_credential`), each attempt asks it for the token first,
and a 401 is retried once with the token it gives then, if that is another.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine, Mapping, Sequence
from contextlib import asynccontextmanager
from functools import partial
from operator import itemgetter
from typing import Any, NamedTuple, TypeVar, overload

from attrs import evolve
from yarl import URL

from remedy_async._errors import (
    BODY_LIMIT,
    APIError,
    APIStatusError,
    APITimeoutError,
    AuthenticationError,
    RateLimitError,
    RemedyError,
    excerpt,
)
from remedy_async._redact import redact, scrub_error, shown_url
from remedy_async._wire._http import REQUEST_ID_HEADER, AttemptTimeout, Request, Response
from remedy_async._wire._urls import url_problem

from ._budget import SendTimes
from ._credential import Credential
from ._events import ClientEvent, Events
from ._gate import RequestGate
from ._retry import RetryPolicy, retry_after_seconds
from ._status import status_error
from ._transport import StreamedResponse, Transport

R = TypeVar("R")
A = TypeVar("A")

Sleep = Callable[[float], Awaitable[None]]
Attempt = Callable[[Request, Mapping[str, str], AttemptTimeout, int], Awaitable[R]]
ReadBody = Callable[[StreamedResponse], Awaitable[R]]

NOT_MODIFIED = 304
"""Passed to a stream's `read_body`, which alone knows whether its request was conditional."""
ERROR_BODY_LIMIT = BODY_LIMIT + 1
"""Bytes of a streamed response's error body read for its error: one more than the error
keeps, so a longer body is known to be cut."""


class Answer(NamedTuple):
    """A call's 2xx response, and how long the exchange that answered it took (seconds, on the
    client's clock: from its request to the transport until its response was read)."""

    response: Response
    elapsed: float


_response_of: Callable[[Answer], Response] = itemgetter(0)


def attempt_timeout(timeout: AttemptTimeout, time_left: float) -> AttemptTimeout:
    """Cap an attempt's total timeout by the time left before the call's deadline."""
    if timeout.total is not None and timeout.total <= time_left:
        return timeout
    return evolve(timeout, total=max(time_left, 0.001))


class Sender:
    """Runs calls with retries, the shared gate, redirects (when enabled) and events."""

    def __init__(
        self,
        *,
        transport: Transport,
        gate: RequestGate,
        events: Events,
        secrets: Sequence[str],
        credential_headers: frozenset[str],
        follow_redirects: bool,
        max_response_bytes: int,
        clock: Callable[[], float] = time.monotonic,
        sleep: Sleep,
        uniform: Callable[[float, float], float] = random.uniform,
        credential: Credential | None = None,
    ) -> None:
        self.transport = transport
        self.gate = gate
        self._outgoing: Transport = transport
        """What each attempt hands its requests to: the transport, or under a rate limit, one
        that does not take turns behind `TurnFirst`, which takes them for it."""
        if gate.limit is not None and getattr(transport, "takes_turns", False) is not True:
            self._outgoing = TurnFirst(transport)
        self._events = events
        self._secrets = secrets
        self._credential_headers = credential_headers
        self._follow_redirects = follow_redirects
        self._max_response_bytes = max_response_bytes
        self._clock = clock
        self._sleep = sleep
        self._uniform = uniform
        self._credential = credential
        """A token provider's, asked before each attempt; None when the headers carry the
        token already (a static one) or there is none."""

    def send(
        self,
        request: Request,
        headers: Mapping[str, str],
        timeout: AttemptTimeout,
        policy: RetryPolicy,
    ) -> Coroutine[Any, Any, Response]:
        """Return the 2xx response to a request, or raise the typed error of the last attempt.

        A plain function handing back `run`'s coroutine: one frame less for every resumption.
        Without events to emit or redirects to follow, each attempt is the transport's own
        coroutine, checked by `_checked` (one more frame less).
        """
        if self._events.active or self._follow_redirects:
            return self.run(request, headers, timeout, policy, self._answered, finish=_response_of)
        return self.run(request, headers, timeout, policy, self._exchange, finish=self._checked)

    def answer(
        self,
        request: Request,
        headers: Mapping[str, str],
        timeout: AttemptTimeout,
        policy: RetryPolicy,
    ) -> Coroutine[Any, Any, Answer]:
        """As `send`, with how long the exchange that answered took (for a raw response)."""
        return self.run(request, headers, timeout, policy, self._answered)

    async def stream(
        self,
        request: Request,
        headers: Mapping[str, str],
        timeout: AttemptTimeout,
        policy: RetryPolicy,
        read_body: ReadBody[R],
    ) -> R:
        """Stream a 2xx (or 304) response's body into `read_body`, under the rules of `send`.

        Each attempt opens the response, lets the gate see it, raises the typed error of
        another status (from the first 64 KiB of its body) and otherwise returns what
        `read_body` made of the response. Redirects are not followed.
        """

        events = self._events

        async def attempt(
            request: Request, headers: Mapping[str, str], timeout: AttemptTimeout, number: int
        ) -> R:
            url = self._shown(request.url) if events.active else ""
            if url:
                events.emit(ClientEvent("request", request.method, url, number), headers)
            started = self._clock()
            responded = False
            try:
                async with self._outgoing.stream(request, headers, timeout) as response:
                    responded = True
                    if url:
                        events.emit(
                            ClientEvent(
                                "response", request.method, url, number, status=response.status,
                                request_id=response.headers.get(REQUEST_ID_HEADER),
                                elapsed=self._clock() - started,
                            )
                        )  # fmt: skip
                    if (pause := self.gate.observe(response.status, response.headers)) and (
                        events.noting
                    ):
                        self._paused(response, pause)
                    if not (200 <= response.status < 300 or response.status == NOT_MODIFIED):
                        body = await response.read(ERROR_BODY_LIMIT)
                        raise status_error(body, secrets=self._secrets)
                    return await read_body(response)
            except BaseException as error:
                if url and not responded:
                    self._lost(request, url, number, started, error)
                raise

        return await self.run(request, headers, timeout, policy, attempt)

    @overload
    async def run(
        self,
        request: Request,
        headers: Mapping[str, str],
        timeout: AttemptTimeout,
        policy: RetryPolicy,
        attempt: Attempt[R],
    ) -> R: ...

    @overload
    async def run(
        self,
        request: Request,
        headers: Mapping[str, str],
        timeout: AttemptTimeout,
        policy: RetryPolicy,
        attempt: Attempt[A],
        finish: Callable[[A], R],
    ) -> R: ...

    async def run(
        self,
        request: Request,
        headers: Mapping[str, str],
        timeout: AttemptTimeout,
        policy: RetryPolicy,
        attempt: Attempt[Any],
        finish: Callable[[Any], Any] | None = None,
    ) -> Any:
        """Run `attempt` until it succeeds, the policy gives up, or the deadline would pass.

        `finish`, when given, turns an attempt's result into the call's result (or raises); it
        counts as part of the attempt, so an error it raises is retried like any other.
        """
        clock, gate, credential = self._clock, self.gate, self._credential
        now = clock()
        deadline_at = now + policy.deadline
        total = timeout.total
        number = sent = 0
        carried = headers  # what this attempt sends: `headers`, and a provider's token
        renewal: Mapping[str, str] | None = None  # carrying the token asked for after a 401
        renewed = False
        while True:
            number += 1
            if credential is not None:
                carried = renewal if renewal is not None else await credential.headers(headers)
                renewal = None
                now = clock()
            # An attempt's time runs from when it asks to go out: waiting for the shared pause
            # or for an in-flight slot counts against its timeout, as against the deadline.
            ends_at = deadline_at if total is None else min(deadline_at, now + total)
            try:
                if gate.resume_at > now or gate.limit is not None or not gate.slots.take():
                    now = await self._admitted(request, number, policy, ends_at)
                sent += 1
                out = request if gate.limit is None else self._turned(request, number, ends_at)
                try:
                    result = await attempt(
                        out, carried, attempt_timeout(timeout, ends_at - now), number
                    )
                finally:
                    gate.slots.give_back()
                return result if finish is None else finish(result)
            except RemedyError as error:
                if isinstance(error, APIError):
                    scrub_error(error, self._secrets)
                if (
                    credential is not None
                    and not renewed
                    and isinstance(error, AuthenticationError)
                    and deadline_at > clock()
                ):
                    # The token was refused: the provider is asked once more, and the request
                    # sent once more at once, if it gives another token.
                    renewed = True
                    renewal = await credential.renewed(headers, carried)
                    if renewal is not None:
                        self._retrying(request, number, 0.0, error)
                        continue
                hint = _hint(error, gate.wall)
                try:
                    wait = policy.decide(
                        error,
                        attempt=number,
                        hint=hint,
                        time_left=deadline_at - clock(),
                        uniform=self._uniform,
                    )
                except RateLimitError as too_long:
                    too_long.attempts = sent
                    raise too_long from error
                if wait is None:
                    error.attempts = sent
                    raise
                self._retrying(request, number, wait, error)
            await self._sleep(wait)
            now = clock()

    def _retrying(self, request: Request, number: int, wait: float, error: RemedyError) -> None:
        """Tell the hooks (and the log at INFO) a failed attempt is retried after `wait` seconds."""
        if self._events.noting:
            self._events.emit(
                ClientEvent(
                    "retry",
                    request.method,
                    self._shown(request.url),
                    number,
                    wait=wait,
                    status=getattr(error, "status", None),
                    error=type(error).__name__,
                )
            )

    async def _admitted(
        self, request: Request, number: int, policy: RetryPolicy, ends_at: float
    ) -> float:
        """Wait until the gate lets an attempt go, holding one of its slots on return; the time.

        A shared pause that would end at or after `ends_at` (leaving the exchange no time), or
        is longer than the policy accepts, fails the attempt at once with RateLimitError
        carrying the pause as `retry_after`; a slot that does not come free before `ends_at`,
        or a turn under the client's rate limit that would come after it, with APITimeoutError.
        A slot is held while waiting for the turn, so requests leave in the order of turns.
        """
        gate, clock = self.gate, self._clock
        while True:
            now = clock()
            pause = gate.pause_left()
            if pause > 0:
                if pause > policy.max_retry_after or now + pause >= ends_at:
                    raise RateLimitError(
                        f"the service asked every request to wait {pause:.1f} s, longer than "
                        "this attempt's timeout, the call's deadline or max_retry_after leave",
                        method=request.method,
                        url=self._shown(request.url),
                        retry_after=pause,
                    )
                self._waiting(request, number, pause, "pause")
                await self._sleep(pause)
                continue
            if not gate.slots.take():
                await self._free_slot(request, ends_at)
                now = clock()
            if gate.limit is not None and gate.pause_left() <= 0:
                try:
                    now = await self._turn(request, number, ends_at)
                except BaseException:
                    gate.slots.give_back()
                    raise
            if gate.pause_left() <= 0:
                return now
            gate.slots.give_back()  # a pause began while this attempt queued: wait it out

    async def _turn(self, request: Request, number: int, ends_at: float) -> float:
        """Book this attempt's turn under the client's rate limit and wait for it; the time.

        A turn after `ends_at` is not booked: the attempt fails at once with APITimeoutError."""
        budget = self.gate.budget
        assert budget is not None
        return await self._booked(
            budget.turns,
            request,
            number,
            ends_at,
            "this attempt",
            advice=" (fewer tasks at once, or a longer timeout, let every request wait its turn)",
        )

    def _turned(self, request: Request, number: int, ends_at: float) -> Request:
        """The request an attempt hands the transport: `request` carrying its turn at the wire
        (`Request.turn`: `_at_wire` for this attempt)."""
        turn = partial(self._at_wire, request=request, number=number, ends_at=ends_at)
        return Request(request.method, request.url, turn)

    async def _at_wire(self, url: URL, *, request: Request, number: int, ends_at: float) -> None:
        """Book the time an attempt's request to `url` goes out under the rate limit, its
        connection in hand, and wait for it.

        The transport awaits this (as `Request.turn`) for every request it sends (a redirect
        hop, a resend on a fresh connection). A time after `ends_at` is not booked: the attempt
        fails at once, unsent, with APITimeoutError."""
        budget = self.gate.budget
        assert budget is not None
        if url != request.url:
            request = Request(request.method, url)
        held = "this request with its connection in hand"
        await self._booked(budget.wire, request, number, ends_at, held)

    async def _booked(
        self,
        times: SendTimes,
        request: Request,
        number: int,
        ends_at: float,
        held: str,
        advice: str = "",
    ) -> float:
        """Book the next time `times` allow and wait for it; the time. A time after `ends_at`
        is not booked: APITimeoutError says the rate limit would hold `held` past it."""
        budget, now = self.gate.budget, self._clock()
        assert budget is not None
        at = times.next_at(now)
        if at > ends_at:
            raise APITimeoutError(
                f"the client's rate limit ({budget.limit}) would hold {held} {at - now:.1f} s, "
                f"past its timeout or the call's deadline{advice}",
                method=request.method,
                url=self._shown(request.url),
            )
        times.book(now)
        if at <= now:
            return now
        self._waiting(request, number, at - now, "rate limit")
        await self._sleep(at - now)
        return self._clock()

    def _lost(
        self, request: Request, url: str, number: int, started: float, error: BaseException
    ) -> None:
        """Tell the hooks an exchange ended without a response, and why."""
        self._events.emit(
            ClientEvent(
                "error", request.method, url, number, elapsed=self._clock() - started,
                error=type(error).__name__,
            )
        )  # fmt: skip

    def _waiting(self, request: Request, number: int, seconds: float, reason: str) -> None:
        """Tell the hooks an attempt waits `seconds` before it may go, and why."""
        if self._events.active:
            url = self._shown(request.url)
            self._events.emit(
                ClientEvent("wait", request.method, url, number, wait=seconds, detail=reason)
            )

    async def _free_slot(self, request: Request, ends_at: float) -> None:
        """Queue for an in-flight slot until `ends_at` (held on return); APITimeoutError if
        none comes free in time."""
        slots = self.gate.slots
        left = ends_at - self._clock()
        if left > 0:
            try:
                async with asyncio.timeout(left):
                    await slots.wait()
            except TimeoutError:
                pass
            else:
                if self._clock() <= ends_at:
                    return
                slots.give_back()
        raise APITimeoutError(
            f"no in-flight slot came free in time (all {self.gate.max_in_flight} were busy "
            "until this attempt's timeout or the call's deadline)",
            method=request.method,
            url=self._shown(request.url),
        )

    def _exchange(
        self,
        request: Request,
        headers: Mapping[str, str],
        timeout: AttemptTimeout,
        number: int,
    ) -> Awaitable[Response]:
        """One attempt without events or redirects: the transport's coroutine itself."""
        return self._outgoing.send(request, headers, timeout, self._max_response_bytes)

    def _checked(self, response: Response) -> Response:
        """Let the gate see a final response, and raise its typed error unless it is a 2xx."""
        if (pause := self.gate.observe(response.status, response.headers)) and self._events.noting:
            self._paused(response, pause)
        if not 200 <= response.status < 300:
            raise status_error(response, secrets=self._secrets)
        return response

    async def _answered(
        self,
        request: Request,
        headers: Mapping[str, str],
        timeout: AttemptTimeout,
        number: int,
    ) -> Answer:
        """One attempt: the exchange, and any redirects it is allowed to follow; its 2xx
        response and how long the exchange that answered took."""
        events = self._events
        for _ in range(MAX_REDIRECTS + 1):
            started = self._clock()
            url = self._shown(request.url) if events.active else ""
            if url:
                events.emit(ClientEvent("request", request.method, url, number), headers)
            try:
                response = await self._outgoing.send(
                    request, headers, timeout, self._max_response_bytes
                )
            except BaseException as error:
                if url:
                    self._lost(request, url, number, started, error)
                raise
            elapsed = self._clock() - started
            if url:
                events.emit(
                    ClientEvent(
                        "response", request.method, url, number, status=response.status,
                        request_id=response.request_id, elapsed=elapsed,
                    )
                )  # fmt: skip
            target = redirect_target(response, self._secrets) if self._follow_redirects else None
            if target is None:
                return Answer(self._checked(response), elapsed)
            if (pause := self.gate.observe(response.status, response.headers)) and events.noting:
                self._paused(response, pause)
            if target.origin() != request.url.origin():
                headers = {
                    k: v for k, v in headers.items() if k.lower() not in self._credential_headers
                }
            request = Request(request.method, target, request.turn)  # each hop takes a turn
        raise status_error(response, secrets=self._secrets)  # still redirected after the limit

    def _paused(self, response: Response | StreamedResponse, seconds: float) -> None:
        """Tell the log that a response paused every request of the client (`Events.paused`)."""
        request = response.request
        self._events.paused(request.method, self._shown(request.url), response.status, seconds)

    def _shown(self, url: URL) -> str:
        """A request's URL as events and errors show it: without user information or fragment,
        any secret the service echoed into it (a cursor, a next link, a redirect) redacted."""
        return shown_url(url, self._secrets, query=True)


class TurnFirst:
    """Takes each request's turn at the wire for a transport that does not take turns itself,
    just before handing it the request (without the turn, so it is not taken twice).

    The budget then holds at the calls to the transport: each redirect hop and each retry
    counts as with any transport. What it cannot see is when the transport's connection is in
    hand, so a request that waits inside the transport for a new connection can still reach
    the service closer to the next ones than the budget allows.
    """

    def __init__(self, transport: Transport) -> None:
        self.transport = transport
        """The transport requests go to once their turn came."""

    def __repr__(self) -> str:
        return f"<TurnFirst {self.transport!r}>"

    async def send(
        self,
        request: Request,
        headers: Mapping[str, str],
        timeout: AttemptTimeout,
        max_body: int,
    ) -> Response:
        """Wait for the request's turn, then send it through the transport."""
        request = await _turn_taken(request)
        return await self.transport.send(request, headers, timeout, max_body)

    @asynccontextmanager
    async def stream(
        self, request: Request, headers: Mapping[str, str], timeout: AttemptTimeout
    ) -> AsyncIterator[StreamedResponse]:
        """Wait for the request's turn, then open its response through the transport."""
        request = await _turn_taken(request)
        async with self.transport.stream(request, headers, timeout) as response:
            yield response


async def _turn_taken(request: Request) -> Request:
    """Wait for the request's turn, if it carries one, and return it without the turn."""
    turn = request.turn
    if turn is None:
        return request
    await turn(request.url)
    return evolve(request, turn=None)


def _hint(error: RemedyError, wall: Callable[[], float]) -> float | None:
    """The wait the service asked for: its headers' hint, or a pause the gate imposed."""
    if isinstance(error, APIStatusError):
        hint = retry_after_seconds(error.headers, wall=wall)
        if hint is None and isinstance(error, RateLimitError):
            return error.retry_after
        return hint
    return None


MAX_REDIRECTS = 5
REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})


def redirect_target(response: Response, secrets: Sequence[str]) -> URL | None:
    """Where a redirect leads; None when the response is not a redirect.

    A Location that cannot be followed safely is the response's status error, saying why:
    never a bare error from aiohttp, never a credential sent."""
    if response.status not in REDIRECT_STATUSES:
        return None
    location = response.headers.get("Location")
    if not location:
        return None
    try:
        target = response.request.url.join(URL(location))
    except (ValueError, TypeError, UnicodeError):
        problem: str | None = "is not a usable URL"
        shown = redact(location, secrets)
    else:
        problem = url_problem(target)
        shown = shown_url(target, secrets, query=True)
    if problem is None:
        return target
    error = status_error(response, secrets=secrets)
    shown = excerpt(shown, 120)
    error.message = f"redirect to {shown!r} not followed: the target {problem}"
    error.args = (error.message,)
    raise error
