"""MockTransport handlers for tests of what sits above the transport: routes a test writes, and
a client answered by them, with no socket.

    service = Routes({"/v1/endpoints/{id}": lambda request, id: MockResponse.json(200, ...)})
    async with service.client(token=TOKEN) as client: ...

The published contract itself is `tests.published.PublishedService(...).handler`; any of these
handlers runs over a loopback socket, where the socket is the point, in
`tests.loopback.serve_handler(handler)`. Which fake to reach for: `tests/README.md`.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from remedy_async import MockRequest, MockResponse, MockTransport, RemedyClient

BASE_URL = "https://remedy.test"
"""The base URL of a client on a MockTransport: a reserved name no request ever leaves for."""

Route = Callable[..., MockResponse | Awaitable[MockResponse]]
"""Answers one route: called with the request and the path's `{name}` segments by name."""


def _pattern(path: str) -> re.Pattern[str]:
    parts = re.split(r"\{(\w+)\}", path)
    regex = "".join(
        re.escape(part) if index % 2 == 0 else f"(?P<{part}>[^/]+)"
        for index, part in enumerate(parts)
    )
    return re.compile(regex + r"\Z")


class Routes:
    """A MockTransport handler answering GETs from `{path: route}` as an aiohttp app would:
    `{name}` matches one decoded segment and is passed to the route by name; any other path is a
    404 `{"error": "Not Found"}`. Records every request it answers in `requests`."""

    def __init__(self, routes: Mapping[str, Route]) -> None:
        self.routes = [(_pattern(path), route) for path, route in routes.items()]
        self.requests: list[MockRequest] = []

    async def __call__(self, request: MockRequest) -> MockResponse:
        self.requests.append(request)
        for pattern, route in self.routes:
            matched = pattern.match(request.path)
            if matched is not None:
                answer = route(request, **matched.groupdict())
                return answer if isinstance(answer, MockResponse) else await answer
        return MockResponse.json(404, {"error": "Not Found"})

    def client(self, base_url: str = BASE_URL, **settings: Any) -> RemedyClient:
        """A client (not yet entered) whose every request this handler answers."""
        return mock_client(self, base_url, **settings)


def mock_client(
    handler: Callable[[MockRequest], Any], base_url: str = BASE_URL, **settings: Any
) -> RemedyClient:
    """A client (not yet entered) whose every request `handler` answers, with no socket."""
    return RemedyClient(base_url, transport=MockTransport(handler), **settings)


class Script:
    """A MockTransport handler answering each request with the next response of a script (the
    last one again once it runs out); records every request it answers in `requests`."""

    def __init__(self, *responses: MockResponse) -> None:
        self.responses = list(responses)
        self.requests: list[MockRequest] = []

    def __call__(self, request: MockRequest) -> MockResponse:
        answer = self.responses[min(len(self.requests), len(self.responses) - 1)]
        self.requests.append(request)
        return answer

    def client(self, base_url: str = BASE_URL, **settings: Any) -> RemedyClient:
        """A client (not yet entered) whose every request this script answers."""
        return mock_client(self, base_url, **settings)
