"""Reads the service's rate-limit signals: how long a response asks every request to pause.

A 429 with a wait hint (`Retry-After`, `retry-after-ms`), or `X-RateLimit-Remaining: 0` with
`X-RateLimit-Reset` (a Unix time or seconds from now). Pure functions; the gate acts on them.
"""

from __future__ import annotations

import time
from collections.abc import Mapping

from ._retry import retry_after_seconds

EPOCH_THRESHOLD = 1_000_000_000
"""An `X-RateLimit-Reset` at or above this is a Unix time; below it, seconds from now."""


def reset_delay(headers: Mapping[str, str], *, now: float | None = None) -> float | None:
    """Seconds until the rate-limit window resets, when the response says none remain."""
    if headers.get("X-RateLimit-Remaining", "").strip() != "0":
        return None
    try:
        reset = float(headers.get("X-RateLimit-Reset", ""))
    except ValueError:
        return None
    if not reset >= 0 or reset == float("inf"):
        return None
    if reset >= EPOCH_THRESHOLD:
        return max(0.0, reset - (time.time() if now is None else now))
    return reset


def pause_asked(status: int, headers: Mapping[str, str]) -> float | None:
    """Seconds a response asks the whole client to wait (429 hint, or no budget left)."""
    pause = retry_after_seconds(headers) if status == 429 else None
    if pause is None:
        pause = reset_delay(headers)
    return pause
