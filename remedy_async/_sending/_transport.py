"""The thin aiohttp layer: sends a Request and returns a complete Response or a typed error.

This is the one place aiohttp is called for requests, so it is the one seam a test replaces:
`RemedyClient(transport=...)` takes any `Transport` instead (`MockTransport`, in `_mock`, answers
from a function). aiohttp's own types (sessions, timeouts, responses) do not leave this module;
the rest of the library speaks `Request`, `Response` and `AttemptTimeout`.
"""

from __future__ import annotations

import asyncio
import ssl
from collections.abc import AsyncIterator, Coroutine, Mapping, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Any, Protocol

import aiohttp
from attrs import field, frozen
from multidict import CIMultiDict

from remedy_async._errors import (
    APIConnectionError,
    APITimeoutError,
    ClientClosedError,
    ProxyError,
    ResponseTooLargeError,
)
from remedy_async._wire._http import AttemptTimeout, Request, Response, WireTurn

from ._proxies import (
    NO_PROXY,
    PROXY_AUTHENTICATION_REQUIRED,
    Proxy,
    ProxyRoutes,
    proxy_refused,
    through,
)
from ._slots import InFlightSlots


class Transport(Protocol):
    """What sends the client's requests: `RemedyClient(transport=...)` takes any object with
    these two methods instead of its aiohttp session.

    `MockTransport` is the one to use in tests; the default sends through aiohttp. Both are
    given each attempt after the client's gate, and what they return goes through the same
    retries, redirects, status errors, events and paging as any response. The arguments are the
    library's own values (the request's method and URL, its headers, the attempt's timeout, the
    most body bytes to accept): they may gain fields in a minor release, so prefer a
    MockTransport handler to a transport of your own.

    Under the client's `rate_limit`, each request also carries its turn at the wire:
    `request.turn`, an async function of the URL. A transport that can tell when its
    connection is in hand says so with an attribute `takes_turns = True` (of its class or of
    the instance); it is then given each request with its turn, and must
    `await request.turn(request.url)` once the connection is ready, right before the request's
    bytes go out (again before a resend on another connection), and send nothing if that
    raises (APITimeoutError: the limit would hold the request past its timeout). So a request
    that waited for a new connection cannot reach the service together with later ones that
    found a warm one. Any other transport is
    given requests without a turn (`request.turn` is None): the client takes each turn itself
    just before calling `send` or `stream`, so the limit holds at those calls, though not
    against a connection that comes late inside the transport. Without a rate limit,
    `request.turn` is always None.
    """

    async def send(
        self,
        request: Request,
        headers: Mapping[str, str],
        timeout: AttemptTimeout,
        max_body: int,
    ) -> Response:
        """Send a request and return the complete response.

        Args:
            request: The request: its method, its URL with the query and, under a rate limit
                for a transport with `takes_turns = True`, its turn (`request.turn`).
            headers: Every header to send, the credential's included.
            timeout: The attempt's limits in seconds (total, connect, read).
            max_body: The most body bytes to accept; a longer body raises ResponseTooLargeError.
        """
        ...

    def stream(
        self, request: Request, headers: Mapping[str, str], timeout: AttemptTimeout
    ) -> AbstractAsyncContextManager[StreamedResponse]:
        """Open a response whose body is read in chunks; it is released on exit.

        Args:
            request: As for `send`.
            headers: As for `send`.
            timeout: As for `send`.
        """
        ...


class BodySource(Protocol):
    """Where a streamed response's body comes from: the network, or a test's bytes."""

    def chunks(self, size: int) -> AsyncIterator[bytes]:
        """Yield the body in chunks of at most `size` bytes."""
        ...

    async def read(self, limit: int) -> bytes:
        """Return the body's first `limit` bytes (all of it, when it is shorter)."""
        ...


@frozen
class StreamedResponse:
    """A response whose body has not been read yet; read it with `chunks()` or `read()`."""

    request: Request
    status: int
    headers: Mapping[str, str]
    _body: BodySource

    def chunks(self, size: int) -> AsyncIterator[bytes]:
        """Yield the body in chunks of at most `size` bytes; a cut body is APIConnectionError."""
        return self._body.chunks(size)

    async def read(self, limit: int) -> Response:
        """Read at most `limit` bytes of the body into a complete Response (for error reports)."""
        body = await self._body.read(limit)
        return Response(request=self.request, status=self.status, headers=self.headers, body=body)


@frozen
class _AiohttpBody:
    """An aiohttp response's body, its failures raised as the library's errors."""

    request: Request
    response: aiohttp.ClientResponse

    async def chunks(self, size: int) -> AsyncIterator[bytes]:
        try:
            async for chunk in self.response.content.iter_chunked(size):
                yield chunk
        except TRANSPORT_FAILURES as exc:
            raise transport_error(self.request, exc) from safe_cause(exc)

    async def read(self, limit: int) -> bytes:
        # aiohttp's read(n) gives what has arrived, up to n bytes: read on to the limit.
        content, parts, size = self.response.content, [], 0
        try:
            while size < limit and (part := await content.read(limit - size)):
                parts.append(part)
                size += len(part)
        except TRANSPORT_FAILURES as exc:
            raise transport_error(self.request, exc) from safe_cause(exc)
        return b"".join(parts)


_TIMEOUT_FIELDS = ("total", "connect", "sock_connect", "sock_read", "ceil_threshold")
"""What `AttemptTimeout` and aiohttp.ClientTimeout both hold, under the same names."""


def attempt_timeout_of(timeout: aiohttp.ClientTimeout) -> AttemptTimeout:
    """Return the library's value for a timeout given as an aiohttp.ClientTimeout."""
    return AttemptTimeout(**{name: getattr(timeout, name) for name in _TIMEOUT_FIELDS})


def _client_timeout(timeout: AttemptTimeout) -> aiohttp.ClientTimeout:
    return aiohttp.ClientTimeout(**{name: getattr(timeout, name) for name in _TIMEOUT_FIELDS})


def open_session(
    *,
    max_connections: int,
    ssl_context: ssl.SSLContext | None,
    headers: Mapping[str, str],
    credential_headers: frozenset[str],
    timeout: AttemptTimeout,
    trace_configs: Sequence[aiohttp.TraceConfig],
    proxies: ProxyRoutes | None,
) -> tuple[aiohttp.ClientSession, AiohttpTransport]:
    """Open the session a client owns (its own pool, no environment proxies, no cookies) and
    the transport that sends through it.

    Headers every request carries live in the session, so aiohttp does not merge them per
    request; credentials (`credential_headers`, lower-case) stay per request, to be dropped on
    a redirect elsewhere.
    """
    shared = {k: v for k, v in headers.items() if k.lower() not in credential_headers}
    connector = PacedConnector(
        limit=max_connections, ssl=ssl_context if ssl_context is not None else True
    )
    session = aiohttp.ClientSession(
        connector=connector,
        timeout=_client_timeout(timeout),
        headers=shared,
        trust_env=False,
        cookie_jar=aiohttp.DummyCookieJar(),
        trace_configs=list(trace_configs) or None,
    )
    return session, AiohttpTransport(session, session_headers=shared, proxies=proxies)


class ConnectionPool:
    """A pool of connections several clients share: at most `max_connections` open at once
    across all of them, reused between them (`RemedyClient(pool=pool)`).

    Each client keeps its own token, headers, retries, in-flight cap, pauses and rate limit
    (its turn at the wire included); only connections are shared. The pool opens in the event
    loop of its first request and belongs to it; a client's `close()` leaves it open, `await
    pool.close()` (or `async with pool:`) closes it. `TenantClients` reads many organisations
    through one.

    Args:
        max_connections: The most connections open at once, over every client.
        ssl_context: TLS settings, such as a private CA. Default: the system's trust store.
        trace_configs: `aiohttp.TraceConfig`s of the pool's session, to see connection-level
            events (DNS, connection reuse) aiohttp reports.
    """

    def __init__(
        self,
        max_connections: int = 100,
        *,
        ssl_context: ssl.SSLContext | None = None,
        trace_configs: Sequence[aiohttp.TraceConfig] = (),
    ) -> None:
        if isinstance(max_connections, bool) or not isinstance(max_connections, int):
            raise TypeError(f"max_connections must be an int, got {max_connections!r}")
        if max_connections < 1:
            raise ValueError(f"max_connections must be at least 1, got {max_connections!r}")
        self.max_connections = max_connections
        """The most connections open at once, over every client sending through the pool."""
        self.slots = InFlightSlots(max_connections)
        """The ceiling's slots: each request in flight through the pool holds one, taken in its
        client's gate before it reaches a connection (so none waits inside aiohttp's pool)."""
        self._ssl_context = ssl_context
        self._trace_configs = list(trace_configs)
        self._session: aiohttp.ClientSession | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self.closed = False
        """Whether `close()` was called: no client can send through the pool any more."""

    def __repr__(self) -> str:
        state = "closed" if self.closed else "open" if self._session is not None else "unopened"
        return f"<ConnectionPool max_connections={self.max_connections} {state}>"

    def _transport(self, proxies: ProxyRoutes | None) -> AiohttpTransport:
        """A transport sending through the pool (opened now if need be), which takes its
        client's rate-limit turns at the wire; `proxies` are its client's own."""
        if self.closed:
            raise ClientClosedError(f"{self!r} is closed; make a new pool")
        session = self._session
        if session is None:
            self._loop = asyncio.get_running_loop()
            connector = PacedConnector(
                limit=self.max_connections,
                ssl=self._ssl_context if self._ssl_context is not None else True,
            )
            session = self._session = aiohttp.ClientSession(
                connector=connector,
                trust_env=False,
                cookie_jar=aiohttp.DummyCookieJar(),
                trace_configs=self._trace_configs or None,
            )
        elif self._loop is not asyncio.get_running_loop():
            raise ClientClosedError(
                f"{self!r} opened its connections in another event loop, and connections "
                "cannot move between loops: make one pool per loop"
            )
        return AiohttpTransport(session, proxies=proxies)

    async def close(self) -> None:
        """Close every connection; clients sending through the pool fail from now on."""
        self.closed = True
        session, self._session = self._session, None
        if session is not None:
            await session.close()

    async def __aenter__(self) -> ConnectionPool:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()


READ_CHUNK = 64 * 1024
"""The most bytes a plain connection asks its socket for in one read.

asyncio asks for 256 KiB a read, and CPython allocates that whole buffer for every read before
trimming it to what came. That is past glibc's mmap threshold (128 KiB by default), so
depending on how the process's heap has grown, every such buffer can be mapped and unmapped
on its own: three system calls and fresh pages for each small response (cpython#85451). On
this machine that was 12 µs a read, about a sixth of a `get` at zero latency. Reads of 64 KiB
come from the heap; a larger body takes a few more reads, each as full as the socket allows.
(A TLS connection reads its socket into one buffer it keeps, and over loopback here it showed
no mapping per read, so it keeps asyncio's size.)"""


def read_in_chunks(transport: asyncio.BaseTransport | None) -> None:
    """Make a new plain connection read at most `READ_CHUNK` bytes at a time.

    This sets asyncio's own read size (`max_size`) where its transport has one; transports
    without it (a TLS connection's, uvloop's) keep their own reads.
    """
    if isinstance(getattr(transport, "max_size", None), int):
        transport.max_size = READ_CHUNK  # type: ignore[union-attr]


class PacedConnector(aiohttp.TCPConnector):
    """aiohttp's connector, which lets each request go only when its client's rate limit
    allows it, once its connection is in hand (from the pool, or opened: TLS done, a proxy's
    tunnel up), outside aiohttp's connect timeout: the request's turn, which `AiohttpTransport`
    hands over with the request's timeout (`TimeoutWithTurn`, aiohttp's one value that reaches
    `connect` from each request). Its plain connections read `READ_CHUNK` bytes at most at a
    time."""

    async def _create_connection(
        self, req: aiohttp.ClientRequest, traces: list[Any], timeout: aiohttp.ClientTimeout
    ) -> aiohttp.client_proto.ResponseHandler:
        """aiohttp's new connection, set to read at most `READ_CHUNK` bytes at a time."""
        protocol = await super()._create_connection(req, traces, timeout)
        read_in_chunks(protocol.transport)
        return protocol

    def connect(
        self, req: aiohttp.ClientRequest, traces: list[Any], timeout: aiohttp.ClientTimeout
    ) -> Coroutine[Any, Any, aiohttp.connector.Connection]:
        """aiohttp's connect; for a request with a turn, waiting for it once connected.

        A plain function handing back aiohttp's own coroutine when there is no turn: no frame
        of its own on a request's way."""
        if isinstance(timeout, TimeoutWithTurn):
            return self._connect_in_turn(req, traces, timeout)
        return super().connect(req, traces, timeout)

    async def _connect_in_turn(
        self, req: aiohttp.ClientRequest, traces: list[Any], timeout: TimeoutWithTurn
    ) -> aiohttp.connector.Connection:
        connection = await super().connect(req, traces, timeout)
        try:
            await timeout.turn(req.url)
        except BaseException:
            connection.release()
            raise
        return connection


@frozen
class TimeoutWithTurn(aiohttp.ClientTimeout):
    """aiohttp's timeout for one request under a rate limit, carrying the request's turn to
    `PacedConnector.connect` (aiohttp hands each request's timeout to the connector as given)."""

    turn: WireTurn = field(kw_only=True)


def _with_turn(timeout: aiohttp.ClientTimeout, turn: WireTurn) -> TimeoutWithTurn:
    return TimeoutWithTurn(
        total=timeout.total,
        connect=timeout.connect,
        sock_read=timeout.sock_read,
        sock_connect=timeout.sock_connect,
        ceil_threshold=timeout.ceil_threshold,
        turn=turn,
    )


TLS_FAILURES = (ssl.SSLError, aiohttp.ClientSSLError)
"""Failures of the TLS handshake or certificate check: trying again would fail the same way."""

TRANSPORT_FAILURES = (asyncio.TimeoutError, aiohttp.ClientError)
"""What aiohttp raises for a failed exchange; `transport_error` says which error it is to us."""


class TransportFailure(Exception):
    """Stands in for an aiohttp error whose repr would show the request's headers."""


def safe_cause(exc: BaseException) -> BaseException:
    """The cause to chain to a transport error: `exc`, unless it would show a credential.

    aiohttp's response errors carry `request_info`, whose repr includes every request header,
    the credential header among them; those are replaced by their type and message alone.
    """
    if getattr(exc, "request_info", None) is None:
        return exc
    status = getattr(exc, "status", None)
    message = getattr(exc, "message", "")
    return TransportFailure(f"{type(exc).__name__}: {status} {message}".strip())


def transport_error(
    request: Request, exc: BaseException, proxy: Proxy | None = None
) -> APIConnectionError:
    """The library's error for an aiohttp or timeout failure of a request (through `proxy`)."""
    method, url = request.method, request.url
    if proxy is not None and isinstance(exc, aiohttp.ClientHttpProxyError):
        return ProxyError(
            f"the proxy {proxy.shown} refused the tunnel: {exc.status} {exc.message}".rstrip(),
            method=method,
            url=url,
            proxy=proxy.shown,
            status=exc.status,
        )
    if proxy is not None and isinstance(exc, aiohttp.ClientProxyConnectionError):
        return ProxyError(
            f"cannot connect to the proxy {proxy.shown}: {exc.os_error or exc}",
            method=method,
            url=url,
            proxy=proxy.shown,
        )
    if isinstance(exc, asyncio.TimeoutError | aiohttp.ServerTimeoutError):
        return APITimeoutError("the request timed out", method=method, url=url)
    if isinstance(exc, aiohttp.ClientPayloadError):
        return APIConnectionError(
            f"the response body was cut short or malformed: {exc}", method=method, url=url
        )
    if plain_http_answered(exc):
        place = f"{url.host}:{url.port}"
        return APIConnectionError(
            f"the server at {place} answered plain HTTP to a TLS handshake: is the URL "
            f"http://{place}? (https:// needs a server speaking TLS there)",
            method=method,
            url=url,
        )
    reason = str(exc) or type(exc).__name__
    return APIConnectionError(f"connection failed: {reason}", method=method, url=url)


PLAIN_HTTP_REASONS = frozenset(
    {"WRONG_VERSION_NUMBER", "RECORD_LAYER_FAILURE", "PACKET_LENGTH_TOO_LONG"}
)
"""What OpenSSL calls a TLS handshake answered by bytes that are no TLS record, such as
`HTTP/1.1 400` (which reason depends on its version)."""


def plain_http_answered(exc: BaseException) -> bool:
    """Whether a failure is a TLS handshake the server answered in plain HTTP (or another
    protocol): an https URL pointing at an http port."""
    seen: BaseException | None = exc
    for _ in range(4):  # the aiohttp error, its OSError, their causes
        if seen is None:
            return False
        if isinstance(seen, ssl.SSLError) and getattr(seen, "reason", None) in PLAIN_HTTP_REASONS:
            return True
        seen = getattr(seen, "os_error", None) or seen.__cause__ or seen.__context__
    return False


async def _read_counted(request: Request, response: aiohttp.ClientResponse, limit: int) -> bytes:
    """Read a body of unknown decoded size, counting as it streams in."""
    chunks: list[bytes] = []
    size = 0
    async for chunk in response.content.iter_any():
        size += len(chunk)
        if size > limit:
            raise too_large(request, f"over {size} bytes decoded", limit)
        chunks.append(chunk)
    return b"".join(chunks)


def too_large(request: Request, seen: str, limit: int) -> ResponseTooLargeError:
    return ResponseTooLargeError(
        f"response body too large ({seen}; max_response_bytes is {limit})",
        method=request.method,
        url=request.url,
    )


class AiohttpTransport:
    """Sends requests through an aiohttp.ClientSession, without following redirects.

    `session_headers` are headers the session already sends with every request (its default
    headers); those are left out of each request's own headers rather than merged again. It
    takes each request's turn at the wire when the session's connector is a `PacedConnector`
    (a client's own session, a `ConnectionPool`'s); through a session of the user's own, the
    sender takes the turns.
    """

    def __init__(
        self,
        session: aiohttp.ClientSession,
        *,
        session_headers: Mapping[str, str] | None = None,
        proxies: ProxyRoutes | None = None,
    ) -> None:
        self.session = session
        self.proxies = proxies
        self.takes_turns = isinstance(session.connector, PacedConnector)
        """Whether its connector awaits each request's turn once the connection is in hand."""
        self._session_headers = CIMultiDict(session_headers or {})
        self._headers_for: tuple[Mapping[str, str], CIMultiDict[str] | None] | None = None
        self._timeout_for: tuple[AttemptTimeout, aiohttp.ClientTimeout] | None = None

    def _aiohttp_timeout(self, timeout: AttemptTimeout) -> aiohttp.ClientTimeout:
        """aiohttp's form of a timeout, converted once for the timeout most recently used."""
        cached = self._timeout_for
        if cached is not None and cached[0] is timeout:
            return cached[1]
        converted = _client_timeout(timeout)
        self._timeout_for = (timeout, converted)
        return converted

    def _request_headers(self, headers: Mapping[str, str]) -> CIMultiDict[str] | None:
        """The headers a request adds to the session's: what differs, computed once per mapping."""
        cached = self._headers_for
        if cached is not None and cached[0] is headers:
            return cached[1]
        session_headers = self._session_headers
        own = CIMultiDict(
            (name, value) for name, value in headers.items() if session_headers.get(name) != value
        )
        result = own or None
        self._headers_for = (headers, result)
        return result

    def _route(
        self, request: Request, own_headers: CIMultiDict[str] | None
    ) -> tuple[CIMultiDict[str] | None, Proxy | None, Mapping[str, Any]]:
        """The request's own headers, its proxy (if any) and aiohttp's arguments for it."""
        assert self.proxies is not None
        proxy = self.proxies.for_url(request.url)
        if proxy is None:
            return own_headers, None, NO_PROXY
        own_headers, arguments = through(proxy, request, own_headers)
        return own_headers, proxy, arguments

    def __repr__(self) -> str:
        return f"<AiohttpTransport session={'closed' if self.session.closed else 'open'}>"

    def _closed(self) -> ClientClosedError:
        return ClientClosedError(
            "the session (or ConnectionPool) this client sends through is closed; make a new one"
        )

    async def send(
        self,
        request: Request,
        headers: Mapping[str, str],
        timeout: AttemptTimeout,
        max_body: int,
    ) -> Response:
        """Send a request and return the complete response.

        A body over `max_body` bytes raises ResponseTooLargeError: refused from Content-Length
        before reading when it can be, otherwise counted while streaming (after decompression).
        """
        if self.session.closed:
            raise self._closed()
        own_headers = self._request_headers(headers)
        proxy, through = None, NO_PROXY
        if self.proxies is not None:
            own_headers, proxy, through = self._route(request, own_headers)
        try:
            # Awaited, not entered: aiohttp's context managers would add four coroutines to
            # every request; the `finally` below does what their exit does.
            response = await self.session.request(
                request.method,
                request.url,
                headers=own_headers,
                timeout=(
                    self._aiohttp_timeout(timeout)
                    if request.turn is None
                    else _with_turn(self._aiohttp_timeout(timeout), request.turn)
                ),
                allow_redirects=False,
                **through,
            )
            try:
                if proxy is not None and response.status == PROXY_AUTHENTICATION_REQUIRED:
                    raise proxy_refused(request, proxy)
                length = response.content_length
                if length is not None and length > max_body:
                    raise too_large(request, f"Content-Length {length}", max_body)
                # Without Content-Encoding, aiohttp reads exactly Content-Length bytes; a
                # compressed body's decoded size is only known by counting it.
                if length is not None and "Content-Encoding" not in response.headers:
                    body = await response.read()
                else:
                    body = await _read_counted(request, response, max_body)
                return Response(
                    request=request, status=response.status, headers=response.headers, body=body
                )
            finally:
                response.release()
                await response.wait_for_close()
        except TRANSPORT_FAILURES as exc:
            raise transport_error(request, exc, proxy) from safe_cause(exc)

    @asynccontextmanager
    async def stream(
        self, request: Request, headers: Mapping[str, str], timeout: AttemptTimeout
    ) -> AsyncIterator[StreamedResponse]:
        """Open a response whose body is read in chunks; it is released on exit."""
        if self.session.closed:
            raise self._closed()
        own_headers = self._request_headers(headers)
        proxy, through = None, NO_PROXY
        if self.proxies is not None:
            own_headers, proxy, through = self._route(request, own_headers)
        try:
            response = await self.session.request(
                request.method,
                request.url,
                headers=own_headers,
                timeout=(
                    self._aiohttp_timeout(timeout)
                    if request.turn is None
                    else _with_turn(self._aiohttp_timeout(timeout), request.turn)
                ),
                allow_redirects=False,
                **through,
            )
        except TRANSPORT_FAILURES as exc:
            raise transport_error(request, exc, proxy) from safe_cause(exc)
        if proxy is not None and response.status == PROXY_AUTHENTICATION_REQUIRED:
            response.release()
            raise proxy_refused(request, proxy)
        try:
            yield StreamedResponse(
                request, response.status, response.headers, _AiohttpBody(request, response)
            )
        finally:
            response.release()
