"""Where a redirect leads, and whether it may be followed: pure, no I/O."""

from __future__ import annotations

from yarl import URL

from remedy_async._errors import excerpt
from remedy_async._http import Response
from remedy_async._redact import redact, shown_url
from remedy_async._wire._urls import url_problem

from ._status import status_error

MAX_REDIRECTS = 5
REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})


def redirect_target(response: Response, secrets: tuple[str, ...]) -> URL | None:
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
