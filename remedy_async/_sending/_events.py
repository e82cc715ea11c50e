"""What the client tells the outside world: log lines and events for users' hooks.

Every request, response, failed exchange and wait is logged on the `remedy_async` logger at
DEBUG, with the credential header redacted; what a service owner wants in ordinary logs is
logged at INFO, one line each: a retry (with the wait chosen), a pause the service asked every
request of the client's key to make (429 with `Retry-After`, or no rate budget left: `paused`),
and an offset list realigned, re-read or restarted because records moved under it (`shift`).
`REMEDY_LOG=info` or `debug` (`switch_logging`, read when a client is made) sets the logger's
level, and gives it a stderr handler when the application configured no logging. Every event is
also passed as a `ClientEvent` to each hook given to the client (for metrics), then to the
client's telemetry (OpenTelemetry, when installed).
Each logical call (a get, a list's whole iteration, one of its pages, a get_many, a download)
is framed by a `call` and an `end` event; every event inside it carries the call's id, and a
call started inside another names it as its parent, across tasks too (the id travels in a
context variable, set only while the call's own code runs, never while a list hands an item
to its caller). Whatever the service sent that an event shows (a URL, a request id) has the
client's secrets redacted here, for every event whoever made it; a line names the client's key
only by a fingerprint (`key_fingerprint`). A hook that raises is logged and otherwise ignored:
metrics never break a call. Nobody listening costs nothing: the hot path asks `active` (and, for
the rare notable events, `noting`) before it builds anything.
"""

from __future__ import annotations

import hashlib
import itertools
import logging
import os
import sys
import time
from collections.abc import AsyncGenerator, Awaitable, Callable, Mapping, Sequence
from contextvars import ContextVar
from typing import Literal, Protocol, TextIO, TypeVar

from attrs import evolve, frozen
from yarl import URL

from remedy_async._errors import ConfigurationError
from remedy_async._redact import REDACTED, redact, shown_url

LOGGER = logging.getLogger("remedy_async")
"""The library's logger: DEBUG for every event, INFO for retries, pauses and shifts."""

LOG_ENV = "REMEDY_LOG"
"""The environment variable that switches the library's log on: `info` or `debug`."""
LOG_LEVELS: Mapping[str, int] = {"info": logging.INFO, "debug": logging.DEBUG}
"""What `REMEDY_LOG` takes (in any letter case), and the level each sets."""
LOG_FORMAT = "%(asctime)s %(name)s %(levelname)s %(message)s"
"""How the handler `REMEDY_LOG` attaches writes each line."""
NOTABLE: frozenset[str] = frozenset({"retry", "shift"})
"""The kinds of event logged at INFO (with pauses, which are no event); the rest at DEBUG."""


class SwitchedHandler(logging.StreamHandler[TextIO]):
    """The handler `REMEDY_LOG` attaches: writes to whatever `sys.stderr` is when a line is
    written (as logging's last resort does), so a replaced stderr is followed."""

    def __init__(self, level: int) -> None:
        logging.Handler.__init__(self, level)
        self.setFormatter(logging.Formatter(LOG_FORMAT))

    @property
    def stream(self) -> TextIO:
        return sys.stderr

    @stream.setter
    def stream(self, value: TextIO) -> None:
        """Ignored: the stream is always the current stderr."""


def switch_logging(environ: Mapping[str, str] | None = None) -> int | None:
    """Apply `REMEDY_LOG`: set the `remedy_async` logger's level to it and, when no handler
    would receive the logger's lines (the application configured no logging), attach one
    writing to stderr, at most one in a process; never touch the root logger. Return the level
    set, or None when the variable is unset or empty (nothing is changed).

    ConfigurationError names the values it takes when it holds another.

    Args:
        environ: Where the variable is read. Default: `os.environ`.
    """
    raw = (os.environ if environ is None else environ).get(LOG_ENV, "")
    if not raw.strip():
        return None
    level = LOG_LEVELS.get(raw.strip().lower())
    if level is None:
        raise ConfigurationError(
            f"{LOG_ENV} must be one of {', '.join(LOG_LEVELS)} (or unset), got {raw!r}"
        )
    LOGGER.setLevel(level)
    attached = [handler for handler in LOGGER.handlers if isinstance(handler, SwitchedHandler)]
    for handler in attached:
        handler.setLevel(level)
    if not attached and not LOGGER.hasHandlers():
        LOGGER.addHandler(SwitchedHandler(level))
    return level


def key_fingerprint(secrets: Sequence[str]) -> str:
    """How a log line names the client's key, never showing it: `sha256:` and the first 8 hex
    digits of its token's SHA-256 (the newest token, with a provider); `none` without one."""
    token = next((secret for secret in secrets if secret), None)
    if token is None:
        return "none"
    return "sha256:" + hashlib.sha256(token.encode()).hexdigest()[:8]


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
    """Sends each event to the log and to the user's hooks, and tells the log of pauses.

    Made once per client: it applies `REMEDY_LOG` then (`switch_logging`), so a bad value is a
    ConfigurationError from the client's constructor, before any I/O. `secrets` is read live
    (a token provider's tokens are added to it as they are handed out).
    """

    def __init__(
        self,
        hooks: Sequence[EventHook],
        secret_headers: frozenset[str],
        secrets: Sequence[str] = (),
        *,
        telemetry: Telemetry | None = None,
        clock: Callable[[], float] = time.monotonic,
        environ: Mapping[str, str] | None = None,
    ) -> None:
        switch_logging(environ)
        self._hooks = tuple(hooks)
        self._secret_headers = secret_headers
        self._secrets: Sequence[str] = (
            tuple(secret for secret in secrets if secret) if isinstance(secrets, tuple) else secrets
        )
        self._telemetry = telemetry
        self._clock = clock
        self._paused_until = -float("inf")
        """When the latest pause logged ends, on the clock (a pause is logged once)."""

    @property
    def active(self) -> bool:
        """Whether anyone listens to every event; lets the hot path skip building events."""
        return (
            bool(self._hooks)
            or LOGGER.isEnabledFor(logging.DEBUG)
            or (self._telemetry is not None and self._telemetry.listening)
        )

    @property
    def noting(self) -> bool:
        """Whether anyone listens to the notable events (retries, pauses, shifts): `active`, or
        the log at INFO; asked only where one happens, never on the hot path."""
        return LOGGER.isEnabledFor(logging.INFO) or self.active

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
        """Log the event (a retry or shift at INFO, see `NOTABLE`; the rest at DEBUG, with
        redacted headers), pass it to every hook, then to the telemetry; an event made inside a
        logical call is stamped with the call's id."""
        if event.call_id is None and (call_id := CURRENT_CALL.get()):
            event = evolve(event, call_id=call_id)
        if self._secrets:
            event = self._scrubbed(event)
        if event.kind in NOTABLE:
            if LOGGER.isEnabledFor(logging.INFO):
                self._note(event)
        elif LOGGER.isEnabledFor(logging.DEBUG):
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

    def _note(self, event: ClientEvent) -> None:
        """Log a notable event at INFO: one line with all it says, the key by its fingerprint."""
        if event.kind == "retry":
            failed = "" if event.status is None else f"status={event.status} "
            LOGGER.info(
                "retry %s %s attempt=%d %serror=%s wait=%.3fs key=%s%s",
                event.method,
                event.url,
                event.attempt,
                failed,
                event.error,
                event.wait or 0.0,
                key_fingerprint(self._secrets),
                _call_fields(event),
            )
        else:
            LOGGER.info(
                "shift %s %s detail=%s (records were added or removed while the list was "
                "read) key=%s%s",
                event.method,
                event.url,
                event.detail,
                key_fingerprint(self._secrets),
                _call_fields(event),
            )

    def paused(self, method: str, url: str, status: int, seconds: float) -> None:
        """Log at INFO, once per pause, that a response made every request of the client's key
        wait `seconds` (a 429's `Retry-After`, or no rate budget left); a response that only
        extends a pause already logged is not logged again (its retry is).

        Args:
            method: The method of the request the response answered.
            url: Its URL as shown (`shown_url`); the secrets are redacted again here.
            status: The response's status.
            seconds: How long every request now waits.
        """
        if not LOGGER.isEnabledFor(logging.INFO):
            return
        now = self._clock()
        logged, self._paused_until = self._paused_until, max(self._paused_until, now + seconds)
        if now < logged:
            return
        call = CURRENT_CALL.get()
        LOGGER.info(
            "pause %s %s status=%d wait=%.3fs key=%s (every request of this key waits)%s",
            method,
            redact(url, self._secrets) if self._secrets else url,
            status,
            seconds,
            key_fingerprint(self._secrets),
            f" call={call}" if call else "",
        )

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


def _redacted(text: str | None, secrets: Sequence[str]) -> str | None:
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
