"""What the client tells the outside world: DEBUG log lines and events for users' hooks.

Every request, response, failed exchange, retry and wait is logged on the `remedy_async` logger
at DEBUG, with the credential header redacted, and passed as a `ClientEvent` to each hook given
to the client (for metrics), then to the client's telemetry (OpenTelemetry, when installed).
Each logical call (a get, a list's whole iteration, one of its pages, a get_many, a download)
is framed by a `call` and an `end` event; every event inside it carries the call's id, and a
call started inside another names it as its parent, across tasks too (the id travels in a
context variable, set only while the call's own code runs, never while a list hands an item
to its caller). Whatever the service sent that an event shows (a URL, a request id) has the
client's secrets redacted here, for every event whoever made it. A hook that raises is logged
and otherwise ignored: metrics never break a call.
"""

from __future__ import annotations

import itertools
import logging
import time
from collections.abc import AsyncGenerator, Awaitable, Callable, Mapping, Sequence
from contextvars import ContextVar
from typing import Literal, Protocol, TypeVar

from attrs import evolve, frozen
from yarl import URL

from remedy_async._redact import REDACTED, redact, shown_url

LOGGER = logging.getLogger("remedy_async")

R = TypeVar("R")
Y = TypeVar("Y")

EventKind = Literal[
    "request", "response", "error", "retry", "wait", "paging", "shift", "call", "end"
]

CURRENT_CALL: ContextVar[int] = ContextVar("remedy_async_call", default=0)
"""The id of the logical call whose code is running (0: none)."""

_CALL_IDS = itertools.count(1)


@frozen
class ClientEvent:
    """One thing the client did: sent a request, got a response, lost an exchange (`error`:
    no response came), will retry, waits (`detail`: for the service's `pause` or the client's
    `rate limit`), chose a list's paging convention (`detail` says which), had to realign,
    re-read or restart an offset list because records moved under it (`shift`: `detail` says
    how often, for the page at `url`), or began (`call`)
    or finished (`end`) a logical call named by `operation` (`endpoints.get`,
    `vulnerability_findings.list`, `vulnerability_findings.page`, ...)."""

    kind: EventKind
    """What happened: `request`, `response`, `error`, `retry`, `wait`, `paging`, `shift`, `call`
    or `end`."""
    method: str
    """The request's method (`GET`)."""
    url: str
    """The request's URL, without credentials or secrets the service echoed."""
    attempt: int
    """The attempt's number (1 for the first; 0 for events of no attempt)."""
    status: int | None = None
    """The response's HTTP status (response events)."""
    request_id: str | None = None
    """The service's id of the request (`X-Request-Id`), when it sent one."""
    elapsed: float | None = None
    """Seconds the attempt took (response events)."""
    wait: float | None = None
    """Seconds the client will wait (retry and wait events)."""
    error: str | None = None
    """Why the attempt failed (retry events)."""
    detail: str | None = None
    """What was decided (paging events: the convention a list follows; shift events: what
    proving the page cost, as `Shifts` says it; wait events: why)."""
    call_id: int | None = None
    """The logical call the event belongs to (None outside any)."""
    parent_id: int | None = None
    """For a call event: the call it was made inside (a list's page, a get_many's gets)."""
    operation: str | None = None
    """For call and end events: what was called, as `collection.method`."""


EventHook = Callable[[ClientEvent], None]


class Telemetry(Protocol):
    """What Events hands every event to after the hooks (the OpenTelemetry bridge)."""

    @property
    def listening(self) -> bool:
        """Whether anyone receives what it makes (else events are not built for it)."""
        ...

    def __call__(self, event: ClientEvent) -> None: ...


def redacted_headers(headers: Mapping[str, str], secret_headers: frozenset[str]) -> dict[str, str]:
    """Return headers for display, with every credential-bearing header's value hidden."""
    return {
        name: REDACTED if name.lower() in secret_headers else value
        for name, value in headers.items()
    }


class Events:
    """Sends each event to the DEBUG log and to the user's hooks."""

    def __init__(
        self,
        hooks: Sequence[EventHook],
        secret_headers: frozenset[str],
        secrets: tuple[str, ...] = (),
        *,
        telemetry: Telemetry | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._hooks = tuple(hooks)
        self._secret_headers = secret_headers
        self._secrets = tuple(secret for secret in secrets if secret)
        self._telemetry = telemetry
        self._clock = clock

    @property
    def active(self) -> bool:
        """Whether anyone listens; lets the hot path skip building events."""
        return (
            bool(self._hooks)
            or LOGGER.isEnabledFor(logging.DEBUG)
            or (self._telemetry is not None and self._telemetry.listening)
        )

    async def traced(self, operation: str, url: URL, work: Awaitable[R]) -> R:
        """Await `work` (a GET of `url`), as one logical call when anyone listens."""
        if not self.active:
            return await work
        shown = shown_url(url, self._secrets, query=True)
        return await self.call(operation, "GET", shown, work)

    async def call(self, operation: str, method: str, url: str, work: Awaitable[R]) -> R:
        """Run `work` as one logical call: framed by call and end events, its own events
        carrying its id (call it only when `active`; `work` is awaited here)."""
        call_id, parent = next(_CALL_IDS), CURRENT_CALL.get()
        token = CURRENT_CALL.set(call_id)
        started = self._begin(operation, method, url, call_id, parent)
        try:
            result = await work
        except BaseException as error:
            self._end(operation, method, url, call_id, started, error)
            raise
        finally:
            CURRENT_CALL.reset(token)
        self._end(operation, method, url, call_id, started, None)
        return result

    async def iteration(
        self, operation: str, method: str, url: str, steps: AsyncGenerator[Y, None]
    ) -> AsyncGenerator[Y, None]:
        """Iterate `steps` as one logical call, from the first item asked for until the
        iteration ends, fails, is cancelled or is closed early (`detail="closed early"`).

        The call's id is current only while `steps` runs (so tasks it starts belong to the
        call), never while the caller holds an item."""
        parent, call_id = CURRENT_CALL.get(), next(_CALL_IDS)
        token = CURRENT_CALL.set(call_id)
        started = self._begin(operation, method, url, call_id, parent)
        failure: BaseException | None = None
        detail = None
        try:
            while True:
                try:
                    item = await anext(steps)
                except StopAsyncIteration:
                    return
                finally:
                    CURRENT_CALL.reset(token)
                yield item
                token = CURRENT_CALL.set(call_id)
        except GeneratorExit:
            detail = "closed early"
            token = CURRENT_CALL.set(call_id)
            try:
                await steps.aclose()
            finally:
                CURRENT_CALL.reset(token)
            raise
        except BaseException as error:
            failure = error
            raise
        finally:
            self._end(operation, method, url, call_id, started, failure, detail)

    def _begin(self, operation: str, method: str, url: str, call_id: int, parent: int) -> float:
        self.emit(
            ClientEvent(
                "call", method, url, 0, call_id=call_id, parent_id=parent or None,
                operation=operation,
            )
        )  # fmt: skip
        return self._clock()

    def _end(
        self,
        operation: str,
        method: str,
        url: str,
        call_id: int,
        started: float,
        error: BaseException | None,
        detail: str | None = None,
    ) -> None:
        self.emit(
            ClientEvent(
                "end", method, url, 0, elapsed=self._clock() - started, call_id=call_id,
                operation=operation, error=None if error is None else type(error).__name__,
                detail=detail,
            )
        )  # fmt: skip

    def emit(self, event: ClientEvent, headers: Mapping[str, str] | None = None) -> None:
        """Log the event at DEBUG (with redacted headers), pass it to every hook, then to the
        telemetry; an event made inside a logical call is stamped with the call's id."""
        if event.call_id is None and (call_id := CURRENT_CALL.get()):
            event = evolve(event, call_id=call_id)
        if self._secrets:
            event = self._scrubbed(event)
        if LOGGER.isEnabledFor(logging.DEBUG):
            shown = (
                ""
                if headers is None
                else f" headers={redacted_headers(headers, self._secret_headers)}"
            )
            LOGGER.debug(
                "%s %s %s attempt=%d status=%s request_id=%s elapsed=%s wait=%s error=%s%s%s%s",
                event.kind,
                event.method,
                event.url,
                event.attempt,
                event.status,
                event.request_id,
                None if event.elapsed is None else round(event.elapsed, 4),
                None if event.wait is None else round(event.wait, 3),
                event.error,
                "" if event.detail is None else f" detail={event.detail}",
                _call_fields(event),
                shown,
            )
        for hook in self._hooks:
            try:
                hook(event)
            except Exception:
                LOGGER.exception("event hook %r failed", hook)
        telemetry = self._telemetry
        if telemetry is not None and telemetry.listening:
            try:
                telemetry(event)
            except Exception:
                LOGGER.exception("telemetry failed on a %s event", event.kind)

    def _scrubbed(self, event: ClientEvent) -> ClientEvent:
        """The event with the secrets redacted from every text the service may have echoed."""
        secrets = self._secrets
        shown = evolve(
            event,
            url=redact(event.url, secrets),
            request_id=_redacted(event.request_id, secrets),
            detail=_redacted(event.detail, secrets),
            error=_redacted(event.error, secrets),
        )
        return event if shown == event else shown


def _redacted(text: str | None, secrets: tuple[str, ...]) -> str | None:
    return None if text is None else redact(text, secrets)


def _call_fields(event: ClientEvent) -> str:
    """The log line's part naming the call an event belongs to (empty outside calls)."""
    if event.call_id is None:
        return ""
    shown = f" call={event.call_id}"
    if event.parent_id is not None:
        shown += f" parent={event.parent_id}"
    if event.operation is not None:
        shown += f" operation={event.operation}"
    return shown
