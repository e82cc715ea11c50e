"""What the client tells the outside world: DEBUG log lines and events for users' hooks.

Every request, response, retry and wait is logged on the `remedy_async` logger at DEBUG, with
the credential header redacted, and passed as a `ClientEvent` to each hook given to the client
(for metrics). Whatever the service sent that an event shows (a URL, a request id) has the
client's secrets redacted here, for every event whoever made it. A hook that raises is logged
and otherwise ignored: metrics never break a call.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from typing import Literal

from attrs import evolve, frozen

from remedy_async._redact import REDACTED, redact

LOGGER = logging.getLogger("remedy_async")

EventKind = Literal["request", "response", "retry", "wait", "paging"]


@frozen
class ClientEvent:
    """One thing the client did: sent a request, got a response, will retry, waits, or chose
    a list's paging convention (`detail` says which)."""

    kind: EventKind
    method: str
    url: str
    attempt: int
    status: int | None = None
    request_id: str | None = None
    elapsed: float | None = None
    """Seconds the attempt took (response events)."""
    wait: float | None = None
    """Seconds the client will wait (retry and wait events)."""
    error: str | None = None
    """Why the attempt failed (retry events)."""
    detail: str | None = None
    """What was decided (paging events: the convention a list follows)."""


EventHook = Callable[[ClientEvent], None]


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
    ) -> None:
        self._hooks = tuple(hooks)
        self._secret_headers = secret_headers
        self._secrets = tuple(secret for secret in secrets if secret)

    @property
    def active(self) -> bool:
        """Whether anyone listens; lets the hot path skip building events."""
        return bool(self._hooks) or LOGGER.isEnabledFor(logging.DEBUG)

    def emit(self, event: ClientEvent, headers: Mapping[str, str] | None = None) -> None:
        """Log the event at DEBUG (with redacted headers) and pass it to every hook."""
        if self._secrets:
            event = self._scrubbed(event)
        if LOGGER.isEnabledFor(logging.DEBUG):
            shown = (
                ""
                if headers is None
                else f" headers={redacted_headers(headers, self._secret_headers)}"
            )
            LOGGER.debug(
                "%s %s %s attempt=%d status=%s request_id=%s elapsed=%s wait=%s error=%s%s%s",
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
                shown,
            )
        for hook in self._hooks:
            try:
                hook(event)
            except Exception:
                LOGGER.exception("event hook %r failed", hook)

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
