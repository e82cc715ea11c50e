"""Per-call settings, given as one value instead of keyword arguments on every method."""

from __future__ import annotations

import math
from collections.abc import Mapping
from types import MappingProxyType

import aiohttp
from attrs import evolve, field, frozen

from ._sending._headers import check_headers
from ._sending._retry import RetryPolicy
from ._wire._query import QueryParams, encode_extra_params

Timeout = float | aiohttp.ClientTimeout
"""Seconds for the whole request, or an aiohttp.ClientTimeout for connect/read/total limits."""

DEFAULT_TIMEOUT = aiohttp.ClientTimeout(total=30, connect=10)
"""Per attempt: a call's 60 s deadline (RetryPolicy) leaves room for a retry. No separate read
timeout: the total bounds a stall, and a read timer costs a reschedule on every chunk."""


def to_client_timeout(timeout: Timeout) -> aiohttp.ClientTimeout:
    """Return an aiohttp.ClientTimeout for a timeout given in seconds or as one already."""
    if isinstance(timeout, aiohttp.ClientTimeout):
        return timeout
    if (
        isinstance(timeout, bool)
        or not isinstance(timeout, int | float)
        or not 0 < timeout < math.inf
    ):
        raise ValueError(f"timeout must be a positive number of seconds, got {timeout!r}")
    return aiohttp.ClientTimeout(total=float(timeout), connect=min(float(timeout), 10.0))


def frozen_headers(headers: Mapping[str, str]) -> Mapping[str, str]:
    """Return checked headers as a read-only mapping."""
    return MappingProxyType(check_headers(headers))


def _checked_timeout(timeout: Timeout | None) -> aiohttp.ClientTimeout | None:
    return None if timeout is None else to_client_timeout(timeout)


@frozen
class RequestOptions:
    """Settings for one call, overriding the client's: timeout, extra headers, retry policy,
    extra query parameters.

    For a list call they apply to every page request (the retry policy's deadline to each page).
    """

    timeout: aiohttp.ClientTimeout | None = field(default=None, converter=_checked_timeout)
    """The limit of each attempt, instead of the client's: seconds, or an
    `aiohttp.ClientTimeout`."""
    headers: Mapping[str, str] = field(factory=dict, converter=frozen_headers, hash=False)
    """Headers added to the client's (replacing any of the same name)."""
    retry: RetryPolicy | None = None
    """The retry policy, instead of the client's."""
    extra_params: QueryParams = field(default=(), converter=encode_extra_params)
    """Query parameters added, as given and unchecked, to a get's request and to a list's first
    request (a mapping of wire names to values); for filters the contract does not list."""


def with_headers(
    options: RequestOptions | None, headers: tuple[tuple[str, str], ...]
) -> RequestOptions:
    """A call's options with a page's own request headers (a header-borne continuation)."""
    if options is None:
        return RequestOptions(headers=dict(headers))
    return evolve(options, headers={**options.headers, **dict(headers)})
