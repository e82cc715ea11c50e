"""Checks that keep a page sequence safe: where a next page may be fetched from, whether a
request was already followed, and whether a list that ends has delivered what it announced.

Pure functions; the walk raises `PaginationError` with what they report.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

from yarl import URL

from remedy_async._wire._urls import url_problem

from ._protocol import PageRequest

TOTAL_KEYS = (
    "total",
    "totalCount",
    "total_count",
    "totalSize",
    "totalElements",
    "totalItems",
    "total_items",
    "TotalCount",
    "count",
    "@odata.count",
)
"""Keys a list response may announce its total number of items under."""
TOTAL_PARENTS = ("meta", "page", "pagination", "paging")
TOTAL_HEADERS = ("X-Total-Count", "X-Total")


def request_identity(request: PageRequest) -> int:
    """A hash of a page request as the server sees it: fragment dropped, query order ignored."""
    url = request.url
    if url is None:
        return hash((request.convention, tuple(sorted(request.params)), request.headers))
    query = tuple(sorted(url.query.items()))
    return hash((url.scheme, url.host, url.port, url.path, query))


def target_problem(url: URL, base: URL, trusted_origins: Collection[str]) -> str | None:
    """Why a next-page URL must not be fetched, or None when it is safe to send credentials to."""
    problem = url_problem(url)
    if problem is not None:
        return f"the next-page link {problem}"
    origin = str(url.origin())
    if origin != str(base.origin()) and origin not in trusted_origins:
        return (
            f"the next page is on another origin ({origin}); credentials are only sent to "
            f"{base.origin()} (add it to trusted_origins to follow it)"
        )
    prefix = base.path.rstrip("/") + "/"
    if origin == str(base.origin()) and not url.path.startswith(prefix):
        return f"the next page is outside the API's base path {prefix!r}"
    return None


def declared_total(body: Any, headers: Mapping[str, str]) -> int | None:
    """The total number of items a list response announces, if it announces one."""
    places = [body] if isinstance(body, dict) else []
    if isinstance(body, dict):
        places += [body[key] for key in TOTAL_PARENTS if isinstance(body.get(key), dict)]
    for place in places:
        for key in TOTAL_KEYS:
            value = place.get(key)
            if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
                return value
    for name in TOTAL_HEADERS:
        text = headers.get(name, "").strip()
        if text.isdigit():
            return int(text)
    return None
