"""The token never shows in any str, repr or traceback of what a failing call leaves behind."""

from __future__ import annotations

import traceback

import pytest

from remedy_async import (
    APIError,
    AuthenticationError,
    ClientEvent,
    MockRequest,
    MockResponse,
    RequestOptions,
    RetryPolicy,
)
from tests.loopback import CANARY
from tests.mock_service import Routes


def echo_everything(request: MockRequest, **path: str) -> MockResponse:
    """A hostile service: echoes the credential in the body, a header and the error message."""
    credential = request.headers.get("Authorization", "")
    body = {
        "error": {"code": credential, "message": f"denied for {credential}"},
        "token": credential,
    }
    return MockResponse.json(401, body, headers={"X-Echo": credential})


async def test_a_hostile_echo_never_surfaces_the_token() -> None:
    """Errors, their traceback text, the client, its pager and events never show the token."""
    service = Routes({"/v1/endpoints": echo_everything, "/v1/endpoints/{id}": echo_everything})
    events: list[ClientEvent] = []
    async with service.client(token=CANARY, event_hooks=[events.append]) as client:
        pager = client.endpoints.list(options=RequestOptions(retry=RetryPolicy(attempts=1)))
        caught: list[APIError] = []
        for call in (client.endpoints.get("ep-1"), pager.collect()):
            with pytest.raises(AuthenticationError) as info:
                await call
            caught.append(info.value)
        shown = [repr(client), str(client), repr(client.endpoints), repr(pager), repr(events)]
    for error in caught:
        shown += [
            str(error),
            repr(error),
            error.message,
            error.code or "",
            error.body_excerpt or "",
        ]
        shown.append("".join(traceback.format_exception(error)))
    for text in shown:
        assert CANARY not in text
    assert any("[REDACTED]" in text for text in shown)
