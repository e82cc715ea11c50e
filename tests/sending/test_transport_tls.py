"""TLS over loopback: verification is on, a custom SSLContext is honoured, TLS errors are final."""

from __future__ import annotations

import ssl
from collections.abc import AsyncIterator

import pytest
import trustme
from aiohttp import web

from remedy_async import APIConnectionError, RemedyClient
from tests.fakes import endpoint_record


@pytest.fixture(scope="module")
def authority() -> trustme.CA:
    return trustme.CA()


@pytest.fixture
async def tls_url(authority: trustme.CA) -> AsyncIterator[str]:
    """An https loopback server whose certificate is signed by a private test CA."""
    served = 0

    async def endpoint(request: web.Request) -> web.Response:
        nonlocal served
        served += 1
        return web.json_response(endpoint_record(request.match_info["id"], served=served))

    server_context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    authority.issue_cert("127.0.0.1").configure_cert(server_context)
    app = web.Application()
    app.router.add_get("/v1/endpoints/{id}", endpoint)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0, ssl_context=server_context)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    try:
        yield f"https://127.0.0.1:{port}"
    finally:
        await runner.cleanup()


async def test_untrusted_certificate_fails_without_retry(tls_url: str) -> None:
    """A certificate from an unknown CA is refused on the first attempt, not retried."""
    async with RemedyClient(tls_url) as client:
        with pytest.raises(APIConnectionError) as caught:
            await client.endpoints.get("ep-1")
    assert caught.value.attempts == 1
    assert isinstance(caught.value.__cause__, ssl.SSLError | OSError)


async def test_custom_ssl_context_is_used(tls_url: str, authority: trustme.CA) -> None:
    """An SSLContext trusting the private CA lets the client verify and connect."""
    context = ssl.create_default_context()
    authority.configure_trust(context)
    async with RemedyClient(tls_url, ssl_context=context) as client:
        endpoint = await client.endpoints.get("ep-1")
    assert endpoint.id == "ep-1"
