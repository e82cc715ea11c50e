"""The client's way out: the sender its requests go through, and the session it may own.

A client given a `transport=` or `session=` sends through it from the start. Otherwise the
session is opened on the first request, in the event loop running it, and belongs to that
loop: a request from another loop raises ClientClosedError saying so, as does one after
`close()`, which closes the session.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping

import aiohttp

from ._errors import ClientClosedError
from ._sending._retry import RetryPolicy
from ._sending._sender import Sender
from ._sending._transport import Transport, attempt_timeout_of
from ._settings import RequestOptions
from ._wire._http import AttemptTimeout, Request, Response

Settings = tuple[Mapping[str, str], AttemptTimeout, RetryPolicy]
"""What a request is sent with: headers, the attempt's timeout, the retry policy."""


class Connection:
    """Sends a client's requests with its settings, opening its own session when it has none.

    `name` describes the client in errors (its repr); `make_sender` makes the Sender of a
    transport, with the client's gate, events and limits; `open_session` opens the client's own
    session, and returns it with the transport that sends through it.
    """

    def __init__(
        self,
        *,
        name: Callable[[], str],
        settings: Settings,
        transport: Transport | None,
        make_sender: Callable[..., Sender],
        open_session: Callable[[], tuple[aiohttp.ClientSession, Transport]],
    ) -> None:
        self._name = name
        self._settings = settings
        self._make_sender = make_sender
        self._open_session = open_session
        self._sender = None if transport is None else make_sender(transport=transport)
        self.owned_session: aiohttp.ClientSession | None = None
        self._owned_loop: asyncio.AbstractEventLoop | None = None
        """The event loop the client's own connections were opened in (they cannot leave it)."""
        self.closed = False

    def sender(self) -> Sender:
        """The sender to use now, opening the client's own session on first use."""
        if self.closed:
            raise ClientClosedError(f"{self._name()} is closed; create a new client")
        loop = self._owned_loop
        if loop is not None and loop is not asyncio.get_running_loop():
            raise ClientClosedError(
                f"{self._name()} opened its connections in another event loop"
                + (" (now closed)" if loop.is_closed() else "")
                + ", and connections cannot move between loops: create the client inside the "
                "asyncio.run() (or loop) that uses it, with 'async with', once per loop"
            )
        if self._sender is None:
            self._owned_loop = asyncio.get_running_loop()
            self.owned_session, transport = self._open_session()
            self._sender = self._make_sender(transport=transport)
        return self._sender

    def settings(self, options: RequestOptions | None) -> Settings:
        """The headers, attempt timeout and retry policy of a call with these options."""
        if options is None:
            return self._settings
        headers, timeout, retry = self._settings
        if options.headers:
            headers = {**headers, **options.headers}
        if options.timeout is not None:
            timeout = attempt_timeout_of(options.timeout)
        return headers, timeout, options.retry or retry

    def send(self, request: Request, options: RequestOptions | None) -> Awaitable[Response]:
        """Send a request under the client's settings; returns the sender's own coroutine."""
        sender = self.sender()
        return sender.send(request, *self.settings(options))

    async def close(self) -> None:
        """Close the session the client opened, if any; sending fails from now on."""
        self.closed = True
        session, self.owned_session = self.owned_session, None
        if session is not None:
            await session.close()

    @property
    def left_open(self) -> bool:
        """Whether the client's own session is still open (it should have been closed)."""
        return self.owned_session is not None and not self.owned_session.closed
