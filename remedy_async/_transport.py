"""The thin aiohttp layer: sends a Request and returns a complete Response or a typed error.

This is the one place aiohttp is called for requests, so it is the one seam a test replaces.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Mapping
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Protocol

import aiohttp
from attrs import frozen

from ._errors import APIConnectionError, APITimeoutError, ResponseTooLargeError
from ._http import Request, Response


class Transport(Protocol):
    """Sends requests; the client's only way out to the network."""

    async def send(
        self,
        request: Request,
        headers: Mapping[str, str],
        timeout: aiohttp.ClientTimeout,
        max_body: int,
    ) -> Response:
        """Send a request and return the complete response (a body over max_body is an error)."""
        ...

    def stream(
        self, request: Request, headers: Mapping[str, str], timeout: aiohttp.ClientTimeout
    ) -> AbstractAsyncContextManager[StreamedResponse]:
        """Open a response whose body is read in chunks; it is released on exit."""
        ...


@frozen
class StreamedResponse:
    """A response whose body has not been read yet; read it with `chunks()` or `read()`."""

    request: Request
    status: int
    headers: Mapping[str, str]
    _response: aiohttp.ClientResponse

    async def chunks(self, size: int) -> AsyncIterator[bytes]:
        """Yield the body in chunks of at most `size` bytes; a cut body is APIConnectionError."""
        with translate_errors(self.request):
            async for chunk in self._response.content.iter_chunked(size):
                yield chunk

    async def read(self, limit: int) -> Response:
        """Read at most `limit` bytes of the body into a complete Response (for error reports)."""
        with translate_errors(self.request):
            body = await self._response.content.read(limit)
        return Response(request=self.request, status=self.status, headers=self.headers, body=body)


class translate_errors:
    """Turns aiohttp and timeout exceptions into the library's transport errors."""

    def __init__(self, request: Request) -> None:
        self._request = request

    def __enter__(self) -> None:
        return None

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, _: object
    ) -> None:
        if exc is None or not isinstance(exc, Exception):
            return
        method, url = self._request.method, self._request.url
        if isinstance(exc, asyncio.TimeoutError | aiohttp.ServerTimeoutError):
            raise APITimeoutError("the request timed out", method=method, url=url) from exc
        if isinstance(exc, aiohttp.ClientPayloadError):
            raise APIConnectionError(
                f"the response body was cut short or malformed: {exc}", method=method, url=url
            ) from exc
        if isinstance(exc, aiohttp.ClientError):
            reason = str(exc) or type(exc).__name__
            raise APIConnectionError(
                f"connection failed: {reason}", method=method, url=url
            ) from exc


async def _read_capped(request: Request, response: aiohttp.ClientResponse, limit: int) -> bytes:
    length = response.content_length
    if length is not None and length > limit:
        raise _too_large(request, f"Content-Length {length}", limit)
    if length is not None and "Content-Encoding" not in response.headers:
        return await response.read()  # aiohttp reads exactly Content-Length bytes
    chunks: list[bytes] = []
    size = 0
    async for chunk in response.content.iter_any():
        size += len(chunk)
        if size > limit:
            raise _too_large(request, f"over {size} bytes decoded", limit)
        chunks.append(chunk)
    return b"".join(chunks)


def _too_large(request: Request, seen: str, limit: int) -> ResponseTooLargeError:
    return ResponseTooLargeError(
        f"response body too large ({seen}; max_response_bytes is {limit})",
        method=request.method,
        url=request.url,
    )


class AiohttpTransport:
    """Sends requests through an aiohttp.ClientSession, without following redirects."""

    def __init__(self, session: aiohttp.ClientSession) -> None:
        self.session = session

    def __repr__(self) -> str:
        return f"<AiohttpTransport session={'closed' if self.session.closed else 'open'}>"

    async def send(
        self,
        request: Request,
        headers: Mapping[str, str],
        timeout: aiohttp.ClientTimeout,
        max_body: int,
    ) -> Response:
        """Send a request and return the complete response.

        A body over `max_body` bytes raises ResponseTooLargeError: refused from Content-Length
        before reading when it can be, otherwise counted while streaming (after decompression).
        """
        with translate_errors(request):
            async with self.session.request(
                request.method, request.url, headers=headers, timeout=timeout, allow_redirects=False
            ) as response:
                body = await _read_capped(request, response, max_body)
                return Response(
                    request=request, status=response.status, headers=response.headers, body=body
                )

    @asynccontextmanager
    async def stream(
        self, request: Request, headers: Mapping[str, str], timeout: aiohttp.ClientTimeout
    ) -> AsyncIterator[StreamedResponse]:
        """Open a response whose body is read in chunks; it is released on exit."""
        with translate_errors(request):
            response = await self.session.request(
                request.method, request.url, headers=headers, timeout=timeout, allow_redirects=False
            )
        try:
            yield StreamedResponse(
                request=request, status=response.status, headers=response.headers, response=response
            )
        finally:
            response.release()
