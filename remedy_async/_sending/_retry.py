"""When to try a request again and how long to wait first; pure decisions, no I/O.

The send loop asks `RetryPolicy.decide` after each failed attempt. It answers with a wait or
with None (give up), from the attempt number, the failure, the service's hint and the time left
before the call's deadline.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Iterable, Mapping
from email.utils import parsedate_to_datetime

from attrs import field, frozen

from remedy_async._errors import (
    APIConnectionError,
    APIError,
    APIStatusError,
    ProxyError,
    RateLimitError,
    RemedyError,
)

from ._transport import TLS_FAILURES

RETRYABLE_STATUSES = frozenset({408, 429, 500, 502, 503, 504})
PROXY_RETRY_STATUSES = frozenset({None, 502, 503, 504})
"""A proxy that could not be reached (None) or could not reach the service is tried again; one
that wants credentials or refuses the tunnel is not."""


def _positive(_: object, attribute: object, value: float) -> None:
    if isinstance(value, bool) or not (0 < value < math.inf):
        raise ValueError(f"{getattr(attribute, 'name', 'value')} must be a positive finite number")


def _statuses(codes: Iterable[int]) -> frozenset[int]:
    statuses = frozenset(codes)
    if not all(isinstance(code, int) and 100 <= code <= 599 for code in statuses):
        raise ValueError("retry_statuses must be HTTP status codes (ints from 100 to 599)")
    return statuses


def _at_least_one(_: object, attribute: object, value: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError("attempts must be an int >= 1")


@frozen
class RetryPolicy:
    """How a request is retried: attempts, backoff, hints from the service, and a deadline.

    Connection failures, timeouts, bodies cut short and the `retry_statuses` are retried; a
    `retry-after-ms` or `Retry-After` hint from the service makes the wait at least the hint.
    `RetryPolicy(attempts=1)` turns retries off.
    """

    attempts: int = field(default=3, validator=_at_least_one)
    """Every try counts, the first included (3: the first and two retries); 1 turns retries off."""
    backoff_base: float = field(default=0.5, validator=_positive)
    """Seconds: the wait before retry `n` is random (full jitter), up to `backoff_base * 2**(n -
    1)`."""
    backoff_cap: float = field(default=8.0, validator=_positive)
    """The most seconds a backoff wait may reach."""
    max_retry_after: float = field(default=60.0, validator=_positive)
    """The longest wait the service may ask for (`Retry-After`, `retry-after-ms`); a longer one
    raises RateLimitError at once."""
    deadline: float = field(default=60.0, validator=_positive)
    """Seconds a call's attempts and waits may take together: a wait that would end past it is not
    started."""
    retry_statuses: frozenset[int] = field(default=RETRYABLE_STATUSES, converter=_statuses)
    """The HTTP statuses worth another try."""

    def backoff(
        self, retry: int, uniform: Callable[[float, float], float] = random.uniform
    ) -> float:
        """Return the full-jitter wait before a retry.

        Args:
            retry: The retry's number (1 for the first retry).
            uniform: Draws the wait between two bounds; tests pass a fixed one.
        """
        doublings = min(retry - 1, 64)  # past that the cap has long been reached
        return uniform(0.0, min(self.backoff_cap, self.backoff_base * 2.0**doublings))

    def retryable(self, error: BaseException) -> bool:
        """Whether a failed attempt may be tried again.

        Yes for connection failures, timeouts and bodies cut short, and for the statuses in
        `retry_statuses`; no for TLS failures, a proxy's refusal (407, 403), other statuses,
        bodies that arrived whole but are not the JSON expected, and anything that is not a
        RemedyError (cancellation too).

        Args:
            error: What the attempt raised.
        """
        if isinstance(error, APIStatusError):
            return error.status in self.retry_statuses
        if isinstance(error, ProxyError):
            return error.status in PROXY_RETRY_STATUSES
        if isinstance(error, APIConnectionError):
            return not isinstance(error.__cause__, TLS_FAILURES)
        return False

    def decide(
        self,
        error: RemedyError,
        *,
        attempt: int,
        hint: float | None,
        time_left: float,
        uniform: Callable[[float, float], float] = random.uniform,
    ) -> float | None:
        """Return how long to wait before the next attempt, or None to give up with `error`
        (also when the wait would end at or past the deadline, leaving the attempt no time).

        Raises RateLimitError when the service asks for a wait longer than `max_retry_after`.

        Args:
            error: What the attempt raised.
            attempt: The attempt's number (1 for the first).
            hint: The wait the service asked for, in seconds, if it did.
            time_left: Seconds left before the call's deadline.
            uniform: Draws the backoff between two bounds; tests pass a fixed one.
        """
        if not isinstance(error, APIError) or not self.retryable(error) or attempt >= self.attempts:
            return None
        if hint is not None and not math.isfinite(hint):
            hint = None
        if hint is not None and hint > self.max_retry_after:
            raise _too_long(error, hint, self.max_retry_after)
        wait = self.backoff(attempt, uniform)
        if hint is not None:
            wait = max(wait, hint)
        # A wait that ends at the deadline would leave the next attempt no time at all: it
        # would go out only to time out (the gate refuses such a pause the same way).
        return wait if wait < time_left else None


def _too_long(error: APIError, hint: float, cap: float) -> RateLimitError:
    limited = RateLimitError(
        f"the service asked to wait {hint:.0f} s, more than max_retry_after ({cap:.0f} s)",
        method=error.method,
        url=error.url,
        status=error.status if isinstance(error, APIStatusError) else 429,
        request_id=getattr(error, "request_id", None),
        headers=getattr(error, "headers", None),
        retry_after=hint,
        body_excerpt=getattr(error, "body_excerpt", None),
        body=getattr(error, "body", None),
        body_truncated=getattr(error, "body_truncated", False),
    )
    limited.__cause__ = error
    return limited


def retry_after_seconds(
    headers: Mapping[str, str],
    *,
    now: float | None = None,
    wall: Callable[[], float] = time.time,
) -> float | None:
    """Return the wait the service asked for, in seconds, or None when absent or unusable.

    Reads `retry-after-ms`, then `Retry-After` as seconds or as an HTTP date (counted from
    `now`, else from what `wall` says is the Unix time). A negative, non-finite or unparseable
    hint counts as absent.
    """
    milliseconds = _finite(headers.get("retry-after-ms"))
    if milliseconds is not None and milliseconds >= 0:
        return milliseconds / 1000
    value = headers.get("Retry-After")
    if value is None:
        return None
    seconds = _finite(value)
    if seconds is not None:
        return seconds if seconds >= 0 else None
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        return None
    wait = when.timestamp() - (wall() if now is None else now)
    return max(wait, 0.0)


def _finite(value: str | None) -> float | None:
    if value is None:
        return None
    try:
        number = float(value.strip())
    except ValueError:
        return None
    return number if math.isfinite(number) else None
