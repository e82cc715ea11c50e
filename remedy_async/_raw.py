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
from typing import Any, Generic, TypeVar

from attrs import field, frozen
from multidict import CIMultiDict, CIMultiDictProxy

from ._redact import redact, redact_headers, shown_url
from ._wire._http import Response

T = TypeVar("T")


@frozen(eq=False, repr=False)
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
    `request_id` and `url` (each made when first read); two raw responses are equal only when
    they are the same.
    """

    status: int
    """The response's HTTP status (a 2xx)."""
    elapsed: float
    """Seconds the exchange that answered took, on the client's clock: from its request
    leaving for the transport until its whole body was read (the attempt that answered, not
    the retries or waits before it; the `elapsed` of its `response` event)."""
    _response: Response = field(alias="response")
    """The response itself (the library's own)."""
    _secrets: Sequence[str] = field(alias="secrets")
    """What is redacted from what the response shows: the client's tokens."""
    _decode: Callable[[Response], T] = field(alias="decode")
    """Builds the value from the response (the library's own: `parse()` calls it once)."""
    _made: dict[str, Any] = field(init=False, factory=dict)

    def __repr__(self) -> str:
        return (
            f"RawResponse(status={self.status}, request_id={self.request_id!r}, "
            f"elapsed={self.elapsed!r}, url={self.url!r})"
        )

    @property
    def headers(self) -> Mapping[str, str]:
        """The response's headers, read-only and read case-insensitively
        (`raw.headers["x-ratelimit-remaining"]`); a secret the service echoed into one
        redacted."""
        made = self._made
        headers: Mapping[str, str] | None = made.get("headers")
        if headers is None:
            headers = redact_headers(self._response.headers, self._secrets)
            if not isinstance(headers, CIMultiDictProxy):
                headers = CIMultiDictProxy(CIMultiDict(headers))
            made["headers"] = headers
        return headers

    @property
    def request_id(self) -> str | None:
        """The service's id of the request (`X-Request-Id`), when it sent one."""
        request_id = self._response.request_id
        return None if request_id is None else redact(request_id, self._secrets)

    @property
    def url(self) -> str:
        """The URL that answered (after any redirects followed), a secret the service echoed
        into it redacted."""
        made = self._made
        url: str | None = made.get("url")
        if url is None:
            url = made["url"] = shown_url(self._response.url, self._secrets, query=True)
        return url

    def parse(self) -> T:
        """Return the value the plain call returns, built from the body on the first call and
        kept; raises DecodeError (as the plain call would) when the body does not fit."""
        made = self._made
        if "value" not in made:
            made["value"] = self._decode(self._response)
        value: T = made["value"]
        return value
