"""TLS over loopback: verification is on, a custom SSLContext is honoured, TLS errors are final."""

from __future__ import annotations

import ssl
from collections.abc import AsyncIterator

import pytest
import trustme

from remedy_async import APIConnectionError, MockRequest, MockResponse, RemedyClient
from tests.fakes import endpoint_record
from tests.loopback import serve_handler
from tests.mock_service import Routes


@pytest.fixture(scope="module")
def authority() -> trustme.CA:
    return trustme.CA()


@pytest.fixture
async def tls_url(authority: trustme.CA) -> AsyncIterator[str]:
    """An https loopback server whose certificate is signed by a private test CA."""

    def endpoint(request: MockRequest, id: str) -> MockResponse:
        return MockResponse.json(200, endpoint_record(id))

    server_context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    authority.issue_cert("127.0.0.1").configure_cert(server_context)
    async with serve_handler(Routes({"/v1/endpoints/{id}": endpoint}), server_context) as url:
        yield url


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
