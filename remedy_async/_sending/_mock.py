"""A transport that answers from a function, for unit tests of code that uses the client.

`MockTransport(handler)` calls `handler(MockRequest)` for every attempt and sends back the
`MockResponse` it returns, with no socket: everything above the transport (retries, the gate,
redirects, status errors, events, paging detection) runs as it does against a real service.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Mapping
from contextlib import asynccontextmanager
from typing import Any, ClassVar

import orjson
from attrs import field, frozen
from multidict import CIMultiDict, CIMultiDictProxy, MultiDictProxy
from yarl import URL

from remedy_async._wire._http import AttemptTimeout, Request, Response

from ._transport import StreamedResponse, too_large, transport_error

HeadersInput = Mapping[str, str] | Iterable[tuple[str, str]]
"""Headers as a test writes them: a mapping, or (name, value) pairs to repeat a name."""


def _headers(value: HeadersInput | None) -> CIMultiDictProxy[str]:
    if isinstance(value, CIMultiDictProxy):
        return value
    return CIMultiDictProxy(CIMultiDict(value or ()))


@frozen
class MockRequest:
    """A request as a MockTransport handler sees it: method, URL with its query, headers.

    Headers are read case-insensitively: `request.headers["authorization"]`.
    """

    method: str
    """The request's method, `GET`."""
    url: URL
    """The request's URL, with its query."""
    headers: CIMultiDictProxy[str] = field(factory=lambda: _headers(None), converter=_headers)
    """Every header the client sends, its credential included; a mapping, or (name, value) pairs to
    repeat a name."""

    @property
    def path(self) -> str:
        """The URL's path, e.g. `/v1/endpoints`."""
        return self.url.path

    @property
    def query(self) -> MultiDictProxy[str]:
        """The URL's query parameters, decoded: `request.query.get("cursor")`."""
        return self.url.query


@frozen
class MockResponse:
    """What a MockTransport handler answers: a status, headers and the body's bytes.

    `MockResponse.json(200, {"items": []})` and `MockResponse.text(503, "down")` build the
    usual ones; `MockResponse(200, {"Content-Type": "application/zip"}, b"...")` any other.
    """

    status: int
    """The HTTP status."""
    headers: CIMultiDictProxy[str] = field(factory=lambda: _headers(None), converter=_headers)
    """The response's headers: a mapping, or (name, value) pairs to repeat a name. Default: none."""
    body: bytes = b""
    """The body's bytes."""

    @classmethod
    def json(cls, status: int, data: Any, *, headers: HeadersInput | None = None) -> MockResponse:
        """A response whose body is `data` encoded as JSON, labelled `application/json`.

        Args:
            status: The HTTP status.
            data: Any value orjson encodes (dicts, lists, strings, numbers, ...); dict keys
                that are not plain `str` (a request's header names, which are `istr`; numbers)
                are written as strings, as `json.dumps` writes them.
            headers: More headers, or ones replacing `Content-Type`.
        """
        merged = CIMultiDict({"Content-Type": "application/json"})
        merged.update(_headers(headers))
        return cls(status, merged, orjson.dumps(data, option=orjson.OPT_NON_STR_KEYS))

    @classmethod
    def text(cls, status: int, text: str, *, headers: HeadersInput | None = None) -> MockResponse:
        """A response whose body is `text` in UTF-8, labelled `text/plain`.

        Args:
            status: The HTTP status.
            text: The body.
            headers: More headers, or ones replacing `Content-Type`.
        """
        merged = CIMultiDict({"Content-Type": "text/plain; charset=utf-8"})
        merged.update(_headers(headers))
        return cls(status, merged, text.encode())


Handler = Callable[[MockRequest], MockResponse | Awaitable[MockResponse]]
"""A function, plain or async, from the request to the response."""


@frozen
class _BytesBody:
    """A body already in memory, streamed in the chunks the reader asks for."""

    body: bytes

    async def chunks(self, size: int) -> AsyncIterator[bytes]:
        for start in range(0, len(self.body), size):
            yield self.body[start : start + size]

    async def read(self, limit: int) -> bytes:
        return self.body[:limit]


class MockTransport:
    """Answers every request with what `handler(request)` returns, without a network.

        def handler(request: MockRequest) -> MockResponse:
            if request.path == "/v1/endpoints":
                return MockResponse.json(200, {"data": [], "total": 0, "limit": 100, "offset": 0})
            return MockResponse.json(404, {"error": "Endpoint not found."})

        client = RemedyClient("https://api.furl.ai", transport=MockTransport(handler))

    The handler gets a `MockRequest` and returns a `MockResponse`, directly or awaited. It may
    raise `TimeoutError` or `ConnectionError` (`ConnectionResetError`, ...) to stand for a
    timeout or a lost connection: the client sees APITimeoutError or APIConnectionError, and
    retries them as it would. An async handler still running when the attempt's timeout ends
    is cancelled (APITimeoutError). A body over the client's `max_response_bytes` is
    ResponseTooLargeError. Under the client's rate limit, each request takes its turn at the
    wire just before the handler is called, as a connection in hand would.

    Args:
        handler: Answers each request: a function, plain or async, from a MockRequest to a
            MockResponse.
    """

    takes_turns: ClassVar[bool] = True
    """It awaits each request's turn under the client's rate limit (see `Transport`)."""

    def __init__(self, handler: Handler) -> None:
        self.handler = handler
        """The function, plain or async, that answers each request."""

    def __repr__(self) -> str:
        return f"<MockTransport handler={getattr(self.handler, '__qualname__', self.handler)!r}>"

    async def _answer(
        self, request: Request, headers: Mapping[str, str], timeout: AttemptTimeout
    ) -> MockResponse:
        """Run the handler under the attempt's timeout; its failures as the library's errors."""
        try:
            async with asyncio.timeout(timeout.total):
                if request.turn is not None:  # under the client's rate limit: as at the wire
                    await request.turn(request.url)
                returned = self.handler(MockRequest(request.method, request.url, headers))
                answer = await returned if inspect.isawaitable(returned) else returned
        except (TimeoutError, ConnectionError) as exc:
            raise transport_error(request, exc) from exc
        if not isinstance(answer, MockResponse):
            raise TypeError(f"a MockTransport handler must return a MockResponse, not {answer!r}")
        return answer

    async def send(
        self,
        request: Request,
        headers: Mapping[str, str],
        timeout: AttemptTimeout,
        max_body: int,
    ) -> Response:
        """Return the handler's answer as a complete response (the client calls it).

        Args:
            request: As for `Transport.send`.
            headers: As for `Transport.send`.
            timeout: As for `Transport.send`.
            max_body: As for `Transport.send`.
        """
        answer = await self._answer(request, headers, timeout)
        if len(answer.body) > max_body:
            raise too_large(request, f"{len(answer.body)} bytes", max_body)
        return Response(
            request=request, status=answer.status, headers=answer.headers, body=answer.body
        )

    @asynccontextmanager
    async def stream(
        self, request: Request, headers: Mapping[str, str], timeout: AttemptTimeout
    ) -> AsyncIterator[StreamedResponse]:
        """Open the handler's answer as a response whose body is read in chunks.

        Args:
            request: As for `Transport.send`.
            headers: As for `Transport.send`.
            timeout: As for `Transport.send`.
        """
        answer = await self._answer(request, headers, timeout)
        yield StreamedResponse(request, answer.status, answer.headers, _BytesBody(answer.body))
