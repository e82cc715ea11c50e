"""The agent configuration download: headers, ETag, size, determinism and streaming."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping

import aiohttp

from remedy_async.simulator import Simulator
from remedy_async.simulator._agent_configuration import AgentConfiguration

from .helpers import StartSimulator

PATH = "/v1/agent-configuration"


async def download(
    simulator: Simulator, session: aiohttp.ClientSession
) -> tuple[bytes, Mapping[str, str]]:
    async with session.get(simulator.url + PATH) as response:
        assert response.status == 200
        return await response.read(), response.headers


async def test_download_headers(sim: Simulator, session: aiohttp.ClientSession) -> None:
    """It is an octet-stream attachment named remedy-agent.conf with length and ETag."""
    body, headers = await download(sim, session)
    assert headers["Content-Type"] == "application/octet-stream"
    assert headers["Content-Disposition"] == 'attachment; filename="remedy-agent.conf"'
    assert int(headers["Content-Length"]) == len(body) == 64 * 1024
    assert headers["X-Request-Id"]


async def test_etag_is_derived_from_the_content(
    sim: Simulator, session: aiohttp.ClientSession
) -> None:
    """The ETag is strong: the quoted first 32 hex digits of the body's SHA-256."""
    body, headers = await download(sim, session)
    assert headers["ETag"] == f'"{hashlib.sha256(body).hexdigest()[:32]}"'


async def test_content_depends_only_on_seed_and_size(
    serve: StartSimulator, session: aiohttp.ClientSession
) -> None:
    """Same seed and size give the same bytes; another seed gives another ETag."""
    first, _ = await download(await serve(seed=5), session)
    again, _ = await download(await serve(seed=5), session)
    _, other = await download(await serve(seed=6), session)
    assert first == again
    assert other["ETag"] != f'"{hashlib.sha256(first).hexdigest()[:32]}"'


async def test_size_is_configurable(serve: StartSimulator, session: aiohttp.ClientSession) -> None:
    """A multi-megabyte configuration arrives whole, exactly that long."""
    size = 3 * 1024 * 1024 + 17
    body, headers = await download(await serve(agent_configuration_size=size), session)
    assert len(body) == int(headers["Content-Length"]) == size
    assert body.startswith(b"# Remedy agent configuration\n")


async def test_big_downloads_compute_their_etag_off_the_loop(
    serve: StartSimulator, session: aiohttp.ClientSession
) -> None:
    """A configuration over the threading threshold still gets a correct ETag."""
    body, headers = await download(await serve(agent_configuration_size=5_000_000), session)
    assert headers["ETag"] == f'"{hashlib.sha256(body).hexdigest()[:32]}"'


async def test_if_none_match_gives_304(sim: Simulator, session: aiohttp.ClientSession) -> None:
    """Sending back the ETag in If-None-Match gives 304 with no body."""
    _, headers = await download(sim, session)
    for value in (headers["ETag"], f'W/{headers["ETag"]}, "other"', "*"):
        async with session.get(sim.url + PATH, headers={"If-None-Match": value}) as response:
            assert response.status == 304
            assert await response.read() == b""
    async with session.get(sim.url + PATH, headers={"If-None-Match": '"stale"'}) as response:
        assert response.status == 200


def test_huge_configurations_stream_in_bounded_chunks() -> None:
    """A 200 MB file is produced in chunks of at most 1 MiB, never as one piece."""
    configuration = AgentConfiguration(seed=0, size=200 * 1024 * 1024 + 5)
    total = 0
    for chunk in configuration.chunks():
        assert len(chunk) <= 1024 * 1024
        total += len(chunk)
    assert total == configuration.size


def test_blocks_differ_so_the_file_is_not_one_repeated_block() -> None:
    """Every 64 KiB block is marked with its number."""
    configuration = AgentConfiguration(seed=0, size=1)
    assert configuration.block(1) != configuration.block(2)
    assert configuration.block(2).startswith(b"# block 000000000002\n")
