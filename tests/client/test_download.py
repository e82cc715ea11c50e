"""Agent-configuration download: streaming, atomic writes, file objects, failures.

Streaming and cut bodies run over loopback; the download's own logic on a MockTransport.
"""

from __future__ import annotations

import hashlib
import io
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest
from aiohttp import web

from remedy_async import (
    APIConnectionError,
    ClientEvent,
    MockRequest,
    MockResponse,
    NotFoundError,
    RemedyClient,
    RetryPolicy,
)
from remedy_async._download import CHUNK_SIZE, safe_filename
from tests.loopback import ScriptedServer, Serve, http_response
from tests.mock_service import Routes

PAYLOAD = bytes(range(256)) * 8192  # 2 MiB, many chunks


def config_handler(
    filename: str = "remedy-agent.conf",
) -> Callable[[web.Request], Awaitable[web.StreamResponse]]:
    """An aiohttp handler: the payload is streamed in 100 kB writes (a body in chunks, which a
    MockResponse's bytes are not)."""

    async def handler(request: web.Request) -> web.StreamResponse:
        response = web.StreamResponse(
            headers={
                "Content-Type": "application/octet-stream",
                "Content-Disposition": f'attachment; filename="{filename}"',
                "ETag": '"abc"',
            }
        )
        response.content_length = len(PAYLOAD)
        await response.prepare(request)
        for start in range(0, len(PAYLOAD), 100_000):
            await response.write(PAYLOAD[start : start + 100_000])
        await response.write_eof()
        return response

    return handler


def mock_config(filename: str = "remedy-agent.conf") -> Routes:
    """A service whose agent configuration is PAYLOAD, named `filename`, at both paths."""

    def answer(request: MockRequest) -> MockResponse:
        headers = {
            "Content-Type": "application/octet-stream",
            "Content-Disposition": f'attachment; filename="{filename}"',
            "ETag": '"abc"',
        }
        return MockResponse(200, headers, PAYLOAD)

    return Routes({"/v1/agent-configuration": answer, "/agents/config": answer})


async def test_download_to_a_path_writes_the_file_and_reports_it(tmp_path: Path) -> None:
    """A download to a path writes every byte and reports size, type, name, ETag and sha256."""
    destination = tmp_path / "agent.conf"
    async with mock_config().client() as client:
        result = await client.download_agent_configuration(destination)
    assert destination.read_bytes() == PAYLOAD
    assert result.path == destination
    assert result.bytes_written == len(PAYLOAD)
    assert result.sha256 == hashlib.sha256(PAYLOAD).hexdigest()
    assert result.content_type == "application/octet-stream"
    assert result.filename == "remedy-agent.conf"
    assert result.etag == '"abc"'
    assert sorted(p.name for p in tmp_path.iterdir()) == ["agent.conf"]


class ChunkRecorder(io.BytesIO):
    """A binary file that remembers the size of every write."""

    def __init__(self) -> None:
        super().__init__()
        self.write_sizes: list[int] = []

    def write(self, data: bytes) -> int:  # type: ignore[override]
        self.write_sizes.append(len(data))
        return super().write(data)


async def test_download_streams_in_bounded_chunks_to_a_file_object(serve: Serve) -> None:
    """A file object receives the body in chunks of at most CHUNK_SIZE and stays open."""
    url = await serve({"/v1/agent-configuration": config_handler()})
    target = ChunkRecorder()
    async with RemedyClient(url) as client:
        result = await client.download_agent_configuration(target)
    assert target.getvalue() == PAYLOAD
    assert len(target.write_sizes) > 1
    assert max(target.write_sizes) <= CHUNK_SIZE
    assert result.path is None
    assert not target.closed


async def test_download_into_a_directory_uses_a_safe_server_name(tmp_path: Path) -> None:
    """A directory destination gets the server's file name, reduced to one harmless component."""
    async with mock_config("../../etc/passwd").client() as client:
        result = await client.download_agent_configuration(tmp_path)
    assert result.path == tmp_path / "passwd"
    assert result.path.read_bytes() == PAYLOAD


@pytest.mark.parametrize(
    ("suggested", "expected"),
    [
        (None, "fallback"),
        ("", "fallback"),
        ("..", "fallback"),
        ("a b/c.conf", "c.conf"),
        ("..\\x.conf", "x.conf"),
    ],
)
def test_safe_filename(suggested: str | None, expected: str) -> None:
    """Server-suggested names lose directories, leading dots and unusual characters."""
    assert safe_filename(suggested, "fallback") == expected


async def test_truncated_download_leaves_nothing_behind(tmp_path: Path) -> None:
    """A cut body raises APIConnectionError; the old file stays and no temp file remains."""
    destination = tmp_path / "agent.conf"
    destination.write_bytes(b"previous version")
    cut = http_response(200, b"x" * 1000, content_length=5000)
    async with (
        ScriptedServer([cut]) as server,
        RemedyClient(server.url, retry=RetryPolicy(attempts=1)) as client,
    ):
        with pytest.raises(APIConnectionError, match="cut short"):
            await client.download_agent_configuration(destination)
    assert destination.read_bytes() == b"previous version"
    assert [p.name for p in tmp_path.iterdir()] == ["agent.conf"]


async def test_download_error_status_is_typed_and_writes_nothing(tmp_path: Path) -> None:
    """A 404 for the configuration (its body in the published pattern) raises NotFoundError
    with the service's message and creates no file."""

    def missing(request: MockRequest) -> MockResponse:
        return MockResponse.json(404, {"error": "Agent configuration not found."})

    async with Routes({"/v1/agent-configuration": missing}).client() as client:
        with pytest.raises(NotFoundError, match=r"Agent configuration not found\."):
            await client.download_agent_configuration(tmp_path / "agent.conf")
    assert list(tmp_path.iterdir()) == []


async def test_download_path_is_configurable(tmp_path: Path) -> None:
    """agent_configuration_path changes where the download is fetched from."""
    service = mock_config()
    async with service.client(agent_configuration_path="/agents/config") as client:
        result = await client.download_agent_configuration(tmp_path / "a.conf")
    assert result.bytes_written == len(PAYLOAD)
    assert [request.path for request in service.requests] == ["/agents/config"]


async def test_destination_in_a_missing_directory_fails_before_any_request(tmp_path: Path) -> None:
    """A path in a directory that does not exist raises FileNotFoundError and sends nothing."""
    service = Routes({})
    async with service.client() as client:
        with pytest.raises(FileNotFoundError, match="not a directory"):
            await client.download_agent_configuration(tmp_path / "missing" / "a.conf")
        assert not service.requests


async def test_cut_download_to_a_path_is_retried_to_a_complete_file(tmp_path: Path) -> None:
    """A download cut short is retried; the file ends up whole, with no temp file left."""
    body = b"agent-config " * 100
    cut = http_response(200, body[:300], content_length=len(body))
    whole = http_response(200, body)
    waits: list[float] = []

    async def record(delay: float) -> None:
        waits.append(delay)

    destination = tmp_path / "agent.conf"
    async with (
        ScriptedServer([cut, whole]) as server,
        RemedyClient(server.url, sleep=record) as client,
    ):
        result = await client.download_agent_configuration(destination)
    assert destination.read_bytes() == body
    assert result.bytes_written == len(body)
    assert len(waits) == 1
    assert [p.name for p in tmp_path.iterdir()] == ["agent.conf"]


async def test_cut_download_to_a_file_object_is_not_retried() -> None:
    """A download into a file object fails on the first cut: written bytes cannot be taken back."""
    cut = http_response(200, b"x" * 300, content_length=1000)
    target = io.BytesIO()
    async with ScriptedServer([cut, cut]) as server, RemedyClient(server.url) as client:
        with pytest.raises(APIConnectionError) as caught:
            await client.download_agent_configuration(target)
    assert caught.value.attempts == 1
    assert len(server.requests) == 1


async def test_download_tells_event_hooks_of_each_exchange() -> None:
    """A download is one call framing its request and response events, like any other call."""
    events: list[ClientEvent] = []
    async with mock_config().client(event_hooks=[events.append]) as client:
        await client.download_agent_configuration(io.BytesIO())
    assert [(event.kind, event.status) for event in events] == [
        ("call", None),
        ("request", None),
        ("response", 200),
        ("end", None),
    ]
    assert events[0].operation == events[3].operation == "download_agent_configuration"
    assert {event.call_id for event in events} == {events[0].call_id}
    assert events[2].url.endswith("/v1/agent-configuration")
    assert events[2].elapsed is not None


async def test_download_accepts_any_file_type() -> None:
    """The download asks for a file, not JSON, so a strict server does not answer 406."""
    seen: list[str] = []

    def handler(request: MockRequest) -> MockResponse:
        seen.append(request.headers.get("Accept", ""))
        return MockResponse(200, {"Content-Type": "application/octet-stream"}, b"conf")

    async with Routes({"/v1/agent-configuration": handler}).client() as client:
        await client.download_agent_configuration(io.BytesIO())
    assert seen == ["application/octet-stream, */*;q=0.1"]


async def test_a_malformed_content_disposition_falls_back_to_the_default_name(
    tmp_path: Path,
) -> None:
    """A Content-Disposition aiohttp cannot parse gives the fallback name, and no warning."""

    def handler(request: MockRequest) -> MockResponse:
        return MockResponse(200, {"Content-Disposition": "in ut cillum"}, b"conf")

    async with Routes({"/v1/agent-configuration": handler}).client() as client:
        result = await client.download_agent_configuration(tmp_path)
    assert result.path is not None
    assert result.path.read_bytes() == b"conf"
    assert result.filename is None
