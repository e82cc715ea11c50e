"""Reads the service's rate-limit signals: how long a response asks every request to pause.

A 429 with a wait hint (`Retry-After`, `retry-after-ms`), or `X-RateLimit-Remaining: 0` with
`X-RateLimit-Reset` (a Unix time or seconds from now). Pure functions; the gate acts on them.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping

from ._retry import retry_after_seconds

EPOCH_THRESHOLD = 1_000_000_000
"""An `X-RateLimit-Reset` at or above this is a Unix time; below it, seconds from now."""


def reset_delay(
    headers: Mapping[str, str], *, now: float | None = None, wall: Callable[[], float] = time.time
) -> float | None:
    """Seconds until the rate-limit window resets, when the response says none remain (a Unix
    time counts from `now`, else from what `wall` says is the Unix time)."""
    if headers.get("X-RateLimit-Remaining", "").strip() != "0":
        return None
    try:
        reset = float(headers.get("X-RateLimit-Reset", ""))
    except ValueError:
        return None
    if not reset >= 0 or reset == float("inf"):
        return None
    if reset >= EPOCH_THRESHOLD:
        return max(0.0, reset - (wall() if now is None else now))
    return reset


def pause_asked(
    status: int, headers: Mapping[str, str], wall: Callable[[], float] = time.time
) -> float | None:
    """Seconds a response asks the whole client to wait (429 hint, or no budget left); `wall`
    tells the Unix time, for a hint given as a date."""
    pause = retry_after_seconds(headers, wall=wall) if status == 429 else None
    if pause is None:
        pause = reset_delay(headers, wall=wall)
    return pause
