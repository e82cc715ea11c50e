"""Redirect targets from a hostile server: followed when safe, else a typed error naming the
redirect, never a bare Python error and never a credential sent on."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Iterator
from typing import Any

import aiohttp
import pytest
from aiohttp.abc import AbstractResolver, ResolveResult
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from remedy_async import APIStatusError, RemedyClient, RemedyError, RequestOptions, RetryPolicy
from tests.budget import examples
from tests.fakes import endpoint_body
from tests.loopback import CANARY

ONE_TRY = RequestOptions(retry=RetryPolicy(attempts=1))
RECORD = endpoint_body("ep-1")


class LoopbackOnly(AbstractResolver):
    """Resolves loopback names only: a test never reaches a host a Location names."""

    async def resolve(
        self, host: str, port: int = 0, family: socket.AddressFamily = socket.AF_INET
    ) -> list[ResolveResult]:
        if host not in ("127.0.0.1", "localhost"):
            raise OSError(f"{host[:40]} is not resolved in tests")
        return [
            ResolveResult(
                hostname=host, host="127.0.0.1", port=port, family=socket.AF_INET,
                proto=0, flags=socket.AI_NUMERICHOST,
            )
        ]  # fmt: skip

    async def close(self) -> None:
        return None


class RedirectServer:
    """A raw server: `/v1/endpoints/ep-1` answers 302 to the current Location; any other path
    answers the record. Keeps each request's head. Raw because a hostile Location goes out
    byte for byte, as no aiohttp response would write it, and a TLS handshake is cut at once."""

    def __init__(self) -> None:
        self.location = b"/"
        self.heads: list[bytes] = []
        self.port = 0

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            first = await reader.readexactly(1)
            if first == b"\x16":  # a TLS handshake (an https Location): refuse it at once
                raise ConnectionError
            head = first + await reader.readuntil(b"\r\n\r\n")
        except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, ConnectionError):
            writer.close()
            return
        self.heads.append(head)
        path = head.split(b" ", 2)[1]
        if path == b"/v1/endpoints/ep-1":
            writer.write(
                b"HTTP/1.1 302 Found\r\nLocation: " + self.location
                + b"\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
            )  # fmt: skip
        else:
            writer.write(
                b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: "
                + str(len(RECORD)).encode() + b"\r\nConnection: close\r\n\r\n" + RECORD
            )  # fmt: skip
        await writer.drain()
        writer.close()


@pytest.fixture(scope="module")
def redirecting() -> Iterator[tuple[asyncio.Runner, RedirectServer, RemedyClient]]:
    """A redirecting server and a client following redirects, in a loop for the module."""
    with asyncio.Runner() as runner:
        server = RedirectServer()
        listening = runner.run(asyncio.start_server(server.handle, "127.0.0.1", 0))
        server.port = listening.sockets[0].getsockname()[1]

        async def open_client() -> tuple[RemedyClient, aiohttp.ClientSession]:
            session = aiohttp.ClientSession(
                connector=aiohttp.TCPConnector(resolver=LoopbackOnly(), force_close=True)
            )
            client = RemedyClient(
                f"http://127.0.0.1:{server.port}",
                token=CANARY,
                follow_redirects=True,
                session=session,
            )
            return client, session

        client, session = runner.run(open_client())
        yield runner, server, client
        runner.run(session.close())
        listening.close()
        runner.run(listening.wait_closed())


def outcome(
    redirecting: tuple[asyncio.Runner, RedirectServer, RemedyClient], location: bytes
) -> Any:
    runner, server, client = redirecting
    server.location = location.replace(b"SELF", f"127.0.0.1:{server.port}".encode())
    server.heads = []
    return runner.run(client.endpoints.get("ep-1", options=ONE_TRY))


def sent_credentials(server: RedirectServer) -> list[bytes]:
    """Every Authorization header the server saw after the first request."""
    return [
        line
        for head in server.heads[1:]
        for line in head.split(b"\r\n")
        if line.lower().startswith(b"authorization:")
    ]


@pytest.mark.parametrize(
    ("location", "reason"),
    [
        ("http://u:p@127.0.0.1:{port}/v1/other", "carries user information"),
        ("http://" + "a" * 64 + ".example/v1/x", "has no valid host"),
        ("http://" + "abc." * 75 + "com/v1/x", "has no valid host"),
        ("http://x y/v1/x", "has no valid host"),
        ("http://a..b/v1/x", "has no valid host"),
        ("ftp://127.0.0.1/v1/x", "has the scheme 'ftp'"),
        ("http://[::1/v1/x", "is not a usable URL"),
        ("http://127.0.0.1:99999/v1/x", "is not a usable URL"),
    ],
)
def test_an_unfollowable_location_is_a_status_error_naming_the_redirect(
    redirecting: tuple[asyncio.Runner, RedirectServer, RemedyClient], location: str, reason: str
) -> None:
    """A Location with user information, a bad host, scheme or port raises the 302's
    APIStatusError saying why, after one request only."""
    server = redirecting[1]
    with pytest.raises(APIStatusError) as caught:
        outcome(redirecting, location.format(port=server.port).encode())
    assert caught.value.status == 302
    assert "redirect to" in caught.value.message
    assert reason in caught.value.message
    assert "u:p" not in str(caught.value)
    assert len(server.heads) == 1


def test_a_same_origin_redirect_is_followed_with_the_credential(
    redirecting: tuple[asyncio.Runner, RedirectServer, RemedyClient],
) -> None:
    """A safe Location on the same origin is followed, the credential going along."""
    server = redirecting[1]
    record = outcome(redirecting, f"http://127.0.0.1:{server.port}/v1/moved".encode())
    assert record.id == "ep-1"
    assert len(server.heads) == 2
    assert sent_credentials(server) == [b"Authorization: Bearer " + CANARY.encode()]


hosts = st.one_of(
    st.just("SELF"),  # this server's own host and port
    st.builds(
        "{}:{}".format,
        st.one_of(
            st.just("127.0.0.1"),
            st.just("localhost"),
            st.text(alphabet="ab.-_ é[]:%", max_size=300),
        ),
        st.one_of(st.integers(-1, 70000).map(str), st.just(""), st.text(max_size=5)),
    ),
)
locations = st.one_of(
    st.text(),
    st.builds(
        "{}://{}{}/{}".format,
        st.sampled_from(["http", "https", "HTTP", "ftp", "", "javascript"]),
        st.sampled_from(["", "u@", "u:p@", ":@", "%40@"]),
        hosts,
        st.text(max_size=40),
    ),
).map(lambda text: text.replace("\r", "").replace("\n", "").encode("utf-8", "surrogatepass"))


@given(location=locations)
@example(location=b"http://u:p@SELF/x")
@example(location=("http://" + "a" * 300 + "/x").encode())
@settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_any_location_gives_a_record_or_a_remedy_error(
    redirecting: tuple[asyncio.Runner, RedirectServer, RemedyClient], location: bytes
) -> None:
    """Whatever Location a server sends, a get returns the record or raises a RemedyError,
    and no user information from the Location is ever sent as a credential."""
    server = redirecting[1]
    try:
        record = outcome(redirecting, location)
    except RemedyError:
        pass
    else:
        assert record.id == "ep-1"
    for line in sent_credentials(server):
        assert line == b"Authorization: Bearer " + CANARY.encode()
