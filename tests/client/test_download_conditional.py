"""Conditional downloads: `etag=` sends If-None-Match, and a 304 leaves the destination as it
was and says so (on a MockTransport serving an ETag and answering 304 to a match; one round
over the simulator, a 304 on a real connection)."""

from __future__ import annotations

import io
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from remedy_async import APIStatusError, MockRequest, MockResponse, RemedyClient
from remedy_async._download import entity_tag
from tests.mock_service import Routes

CURRENT = '"v7"'
"""The ETag of the configuration `conditional()` serves."""


def conditional(request: MockRequest) -> MockResponse:
    """The agent configuration (3000 bytes) with its ETag, or 304 when If-None-Match holds it."""
    if request.headers.get("If-None-Match") == CURRENT:
        return MockResponse(304, {"ETag": CURRENT})
    headers = {"ETag": CURRENT, "Content-Type": "application/octet-stream"}
    return MockResponse(200, headers, b"c" * 3000)


@pytest.fixture
async def client() -> AsyncIterator[RemedyClient]:
    """A client whose agent configuration is `conditional`'s."""
    async with Routes({"/v1/agent-configuration": conditional}).client() as opened:
        yield opened


async def test_a_download_reports_the_etag_to_send_next_time(
    client: RemedyClient, tmp_path: Path
) -> None:
    """A plain download writes the file and carries the service's ETag, not_modified False."""
    result = await client.download_agent_configuration(tmp_path / "agent.conf")
    assert result.etag is not None
    assert result.etag.startswith('"')
    assert result.not_modified is False
    assert result.bytes_written == 3000


@pytest.mark.remedy_simulator(agent_configuration_size=3000)
async def test_a_matching_etag_leaves_the_file_untouched(
    remedy_client: RemedyClient, tmp_path: Path
) -> None:
    """With the current ETag the service answers 304: the file keeps its bytes and mtime."""
    target = tmp_path / "agent.conf"
    first = await remedy_client.download_agent_configuration(target)
    target.write_bytes(b"edited here")
    before = target.stat().st_mtime_ns
    again = await remedy_client.download_agent_configuration(target, etag=first.etag)
    assert again.not_modified is True
    assert (again.path, again.bytes_written, again.sha256) == (target, 0, "")
    assert again.etag == first.etag
    assert target.read_bytes() == b"edited here"
    assert target.stat().st_mtime_ns == before


async def test_a_matching_etag_adds_nothing_to_a_directory(
    client: RemedyClient, tmp_path: Path
) -> None:
    """To a directory, a 304 writes no file (and no temporary file) and names none."""
    first = await client.download_agent_configuration(io.BytesIO())
    again = await client.download_agent_configuration(tmp_path, etag=first.etag)
    assert again.not_modified is True
    assert again.path is None
    assert list(tmp_path.iterdir()) == []


async def test_a_matching_etag_writes_nothing_to_a_file_object(client: RemedyClient) -> None:
    """To a file object, a 304 writes nothing."""
    first = await client.download_agent_configuration(io.BytesIO())
    sink = io.BytesIO(b"kept")
    again = await client.download_agent_configuration(sink, etag=first.etag)
    assert again.not_modified is True
    assert sink.getvalue() == b"kept"


async def test_a_stale_etag_downloads_the_file_again(client: RemedyClient, tmp_path: Path) -> None:
    """An ETag the service no longer has gets the whole file and the current ETag."""
    result = await client.download_agent_configuration(tmp_path / "agent.conf", etag='"0000"')
    assert result.not_modified is False
    assert result.bytes_written == 3000
    assert result.etag != '"0000"'


async def test_a_bare_etag_is_sent_quoted() -> None:
    """`etag="abc"` goes out as `If-None-Match: "abc"`, and the 304 is understood."""
    seen: list[str | None] = []

    def handler(request: MockRequest) -> MockResponse:
        seen.append(request.headers.get("If-None-Match"))
        return MockResponse(304, {"ETag": '"abc"'})

    async with Routes({"/v1/agent-configuration": handler}).client() as client:
        result = await client.download_agent_configuration(io.BytesIO(), etag="abc")
    assert seen == ['"abc"']
    assert result.not_modified is True


async def test_a_304_to_an_unconditional_download_is_an_error() -> None:
    """A 304 the client did not ask for is a status error, and nothing is written."""

    def handler(request: MockRequest) -> MockResponse:
        return MockResponse(304)

    sink = io.BytesIO()
    async with Routes({"/v1/agent-configuration": handler}).client() as client:
        with pytest.raises(APIStatusError, match="not conditional") as caught:
            await client.download_agent_configuration(sink)
    assert caught.value.status == 304
    assert sink.getvalue() == b""


@pytest.mark.parametrize("etag", ["", "a\nb", 'a"b', "\r"])
async def test_an_unusable_etag_is_refused_before_any_request(etag: str) -> None:
    """An empty or multi-line ETag, or one with a stray quote, is a ValueError, unsent."""
    service = Routes({"/v1/agent-configuration": conditional})
    async with service.client() as client:
        with pytest.raises(ValueError, match="etag"):
            await client.download_agent_configuration(io.BytesIO(), etag=etag)
    assert service.requests == []


@given(st.text(st.characters(exclude_characters='"\r\n\0', exclude_categories=["Cs"]), min_size=1))
def test_any_bare_etag_is_quoted_and_a_quoted_one_kept(value: str) -> None:
    """A bare value is quoted once; quoting its result again changes nothing (weak ones too)."""
    if value.strip() in {"", "*"}:  # blank is refused; `*` (any version) is sent as it is
        return
    quoted = entity_tag(value)
    assert quoted == f'"{value.strip()}"'
    assert entity_tag(quoted) == quoted
    assert entity_tag(f"W/{quoted}") == f"W/{quoted}"
