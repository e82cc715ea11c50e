"""Plain values for one HTTP exchange, shared by the pure core and the aiohttp layer.

Only `_sending/_transport` turns them into aiohttp's types and back.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from attrs import field, frozen
from yarl import URL

REQUEST_ID_HEADER = "X-Request-Id"


@frozen
class AttemptTimeout:
    """Limits for one attempt, in seconds (None: no limit of that kind).

    `total` bounds the whole exchange, `connect` getting a connection (pool wait included),
    `sock_connect` the socket connect alone, and `sock_read` the gap between two reads.
    """

    total: float | None = None
    connect: float | None = None
    sock_connect: float | None = None
    sock_read: float | None = None
    ceil_threshold: float = 5.0
    """Timeouts above this many seconds are rounded up to whole seconds (aiohttp's rule)."""


WireTurn = Callable[[URL], Awaitable[None]]
"""A request's turn at the wire under the client's rate limit: `await turn(url)` books the time
the request to `url` goes out and returns when it may go, or raises APITimeoutError (send
nothing then)."""


@frozen
class Request:
    """A request to send: method and absolute URL with its query, and its turn at the wire
    under the client's rate limit. Never holds credentials."""

    method: str
    url: URL
    turn: WireTurn | None = field(default=None, eq=False, repr=False)
    """Under the client's rate limit, given to a transport that takes turns: await
    `request.turn(request.url)` once the connection is in hand, right before the request's
    bytes go out (again before any resend); if it raises, send nothing. None otherwise."""


@frozen
class Response:
    """A complete response: status, headers and the whole body as bytes."""

    request: Request
    status: int
    headers: Mapping[str, str]
    body: bytes

    @property
    def url(self) -> URL:
        """The URL the request went to."""
        return self.request.url

    @property
    def request_id(self) -> str | None:
        """The service's id for this exchange (`X-Request-Id`), for support tickets."""
        return self.headers.get(REQUEST_ID_HEADER)

    @property
    def content_type(self) -> str:
        """The media type without parameters, lower-cased ("" when absent)."""
        return self.headers.get("Content-Type", "").split(";", 1)[0].strip().lower()


@frozen
class JSONResponse:
    """A successful response whose body has been decoded from JSON."""

    url: URL
    """The URL that answered."""
    status: int
    """The HTTP status, a 2xx."""
    headers: Mapping[str, str]
    """The response's headers, read case-insensitively."""
    body: Any
    """The decoded JSON body: dicts, lists, strings, numbers, booleans and None."""

    @property
    def request_id(self) -> str | None:
        """The service's id for this exchange (`X-Request-Id`)."""
        return self.headers.get(REQUEST_ID_HEADER)
