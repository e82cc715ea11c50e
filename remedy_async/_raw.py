"""A call's response as it came, for the caller who needs more than its value: `RawResponse`.

`client.endpoints.with_raw_response.get(id)` and `client.with_raw_response.health()` send the
request exactly as the plain call does (same retries, limits and errors: an error status still
raises its typed error) and return the 2xx response that answered: its status, headers (a
secret the service echoed redacted, as `Page.headers` redacts one), request id, the time its
exchange took, its URL, and `parse()`, which builds the value the plain call returns, from the
same decoding code, once. A list's responses are its pages (`pager.pages()`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from functools import partial
from typing import Any, Generic, TypeVar

from attrs import field, frozen
from multidict import CIMultiDict, CIMultiDictProxy

from ._redact import redact, redact_headers, shown_url
from ._wire._http import Response

T = TypeVar("T")

_UNPARSED: Any = object()


@frozen(eq=False)
class RawResponse(Generic[T]):
    """The 2xx response a call got, as it came, and the typed value it holds: what
    `with_raw_response` returns (`client.endpoints.with_raw_response.get(id)`).

    Read the response (`status`, `headers`, `request_id`, `elapsed`, `url`), then `parse()`
    for the value the plain call returns (a record, a `HealthStatus`, a `JSONResponse`): the
    body is decoded when `parse()` is first called, so a body that does not fit raises its
    DecodeError there, and the value is built once. An error status raises its typed error
    as the plain call does, carrying the same status, headers and request id.

        raw = await client.endpoints.with_raw_response.get(endpoint_id)
        remaining = raw.headers.get("X-RateLimit-Remaining")
        endpoint = raw.parse()

    Anything the service echoed of the client's token is redacted from `headers`,
    `request_id` and `url`; two raw responses are equal only when they are the same.
    """

    status: int
    """The response's HTTP status (a 2xx)."""
    headers: Mapping[str, str] = field(repr=False)
    """The response's headers, read-only and read case-insensitively
    (`raw.headers["x-ratelimit-remaining"]`); a secret the service echoed into one redacted."""
    request_id: str | None
    """The service's id of the request (`X-Request-Id`), when it sent one."""
    elapsed: float
    """Seconds the exchange that answered took, on the client's clock: from its request
    leaving for the transport until its whole body was read (the attempt that answered, not
    the retries or waits before it; the `elapsed` of its `response` event)."""
    url: str
    """The URL that answered (after any redirects followed), a secret the service echoed into
    it redacted."""
    _decode: Callable[[], T] = field(repr=False, alias="decode")
    """Builds the value from the body (the library's own: `parse()` calls it once)."""
    _parsed: Any = field(init=False, default=_UNPARSED, repr=False)

    def parse(self) -> T:
        """Return the value the plain call returns, built from the body on the first call and
        kept; raises DecodeError (as the plain call would) when the body does not fit."""
        parsed = self._parsed
        if parsed is _UNPARSED:
            parsed = self._decode()
            object.__setattr__(self, "_parsed", parsed)
        value: T = parsed
        return value


def raw_response(
    response: Response,
    elapsed: float,
    decode: Callable[[Response], T],
    secrets: Sequence[str],
) -> RawResponse[T]:
    """The RawResponse of a 2xx `response` whose exchange took `elapsed` seconds, `decode`
    building its value from it; every text shown scrubbed of `secrets`."""
    headers = redact_headers(response.headers, secrets)
    if not isinstance(headers, CIMultiDictProxy):
        headers = CIMultiDictProxy(CIMultiDict(headers))
    request_id = response.request_id
    return RawResponse(
        status=response.status,
        headers=headers,
        request_id=None if request_id is None else redact(request_id, secrets),
        elapsed=elapsed,
        url=shown_url(response.url, secrets, query=True),
        decode=partial(decode, response),
    )
