"""The command line's infrastructure options: conditional downloads (--etag, --etag-file), a
request-rate budget (--rate) and proxies (--proxy, REMEDY_PROXY, the standard variables)."""

from __future__ import annotations

from pathlib import Path

import pytest

from remedy_async import MockTransport
from remedy_async.cli._connection import open_client
from remedy_async.cli._options import DEFAULT_BASE_URL
from remedy_async.cli._parser import parse_command_line
from remedy_async.simulator import Simulator
from tests.mock_service import BASE_URL, Routes
from tests.proxy import ForwardProxy

from .conftest import UNPUBLISHED, cli_here, health_ok

AGENT = MockTransport(Routes({"/v1/agent-configuration": UNPUBLISHED["/v1/agent-configuration"]}))
"""The agent configuration download in a MockTransport: a file, its ETag, a 304 for it."""


async def test_an_etag_file_downloads_only_a_changed_file(tmp_path: Path) -> None:
    """--etag-file saves the ETag of a download; the next run sends it, is told the file is
    unchanged, writes nothing and says notModified."""
    target, saved = tmp_path / "agent.conf", tmp_path / "agent.etag"
    base = ("agent-config", "download", "--base-url", BASE_URL, "--out", str(target))
    first = await cli_here(*base, "--etag-file", str(saved), transport=AGENT)
    target.write_bytes(b"local edit")
    second = await cli_here(*base, "--etag-file", str(saved), transport=AGENT)
    (before,), (after,) = first.jsonl(), second.jsonl()
    assert (first.code, second.code) == (0, 0)
    assert saved.read_text().strip() == before["etag"] == after["etag"]
    assert (before["notModified"], after["notModified"]) == (False, True)
    assert target.read_bytes() == b"local edit"


async def test_an_etag_to_stdout_writes_nothing_when_unchanged(tmp_path: Path) -> None:
    """--etag with --out - prints no bytes for an unchanged file and says so on stderr."""
    base = ("agent-config", "download", "--base-url", BASE_URL, "--out")
    (summary,) = (await cli_here(*base, str(tmp_path), transport=AGENT)).jsonl()
    unchanged = await cli_here(*base, "-", "--etag", summary["etag"], transport=AGENT)
    assert unchanged.code == 0
    assert unchanged.stdout == b""
    assert f"not modified (ETag {summary['etag']}): nothing written" in unchanged.stderr


async def test_a_terminals_transport_carries_every_request_whatever_the_proxy() -> None:
    """A Terminal's transport (a test's MockTransport) answers every request: --proxy and the
    proxy variables are for the network, which it replaces, so they are left out."""
    health = Routes({"/v1/health": health_ok})
    env = {"HTTPS_PROXY": "http://127.0.0.1:9"}
    outcome = await cli_here(
        "health", "--base-url", BASE_URL, "--proxy", "http://127.0.0.1:9", "--token", "t",
        env=env, transport=MockTransport(health),
    )  # fmt: skip
    assert (outcome.code, outcome.jsonl()) == (0, [{"status": "ok"}]), outcome.stderr
    assert len(health.requests) == 1


async def test_proxy_flag_routes_the_command_through_the_proxy(simulator: Simulator) -> None:
    """--proxy sends the command's requests to the proxy (absolute-form, plain http)."""
    async with ForwardProxy() as proxy:
        outcome = await cli_here("health", "--base-url", simulator.url, "--proxy", proxy.url)
    assert outcome.code == 0
    assert proxy.heads[0].startswith(f"GET {simulator.url}/v1/health ".encode())


async def test_remedy_proxy_names_the_proxy_too(simulator: Simulator) -> None:
    """$REMEDY_PROXY stands for --proxy."""
    async with ForwardProxy() as proxy:
        env = {"REMEDY_PROXY": proxy.url, "REMEDY_BASE_URL": simulator.url}
        outcome = await cli_here("health", env=env)
    assert outcome.code == 0
    assert len(proxy.heads) == 1


async def test_the_standard_proxy_variables_are_honoured_unless_proxy_none(
    simulator: Simulator, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Like gh, the command line reads HTTP_PROXY by default; --proxy none connects directly."""
    async with ForwardProxy() as proxy:
        monkeypatch.setenv("HTTP_PROXY", proxy.url)
        monkeypatch.delenv("NO_PROXY", raising=False)
        monkeypatch.delenv("no_proxy", raising=False)
        through = await cli_here("health", "--base-url", simulator.url)
        direct = await cli_here("health", "--base-url", simulator.url, "--proxy", "none")
    assert (through.code, direct.code) == (0, 0)
    assert len(proxy.heads) == 1


async def test_a_token_is_not_sent_in_clear_through_a_proxy(simulator: Simulator) -> None:
    """An http service, a token and a proxy: refused (exit 2), naming the flag that allows it."""
    outcome = await cli_here(
        "health", "--base-url", simulator.url, "--token", "t", "--proxy", "http://127.0.0.1:9"
    )
    assert outcome.code == 2
    assert "--allow-insecure-http" in outcome.stderr


def test_rate_sets_the_clients_budget() -> None:
    """--rate 10/s gives the client a RateLimit of 10 requests a second."""
    options = parse_command_line(["health", "--base-url", "http://127.0.0.1:9", "--rate", "10/s"])
    client = open_client(options, {})
    assert repr(client._gate).startswith("<RequestGate max_in_flight=64 rate_limit=10/s ")


def test_with_no_base_url_a_command_talks_to_the_service() -> None:
    """Neither --base-url nor REMEDY_BASE_URL: the client's default, https://api.furl.ai, as
    for the library (the environment's variable wins over it)."""
    options = parse_command_line(["health"])
    assert str(open_client(options, {}).base_url) == DEFAULT_BASE_URL == "https://api.furl.ai"
    chosen = {"REMEDY_BASE_URL": "http://127.0.0.1:9"}
    assert str(open_client(options, chosen).base_url) == "http://127.0.0.1:9"


async def test_a_rate_that_is_no_rate_is_a_usage_error() -> None:
    """--rate fast exits 2, saying how a rate is written."""
    outcome = await cli_here("health", "--base-url", "http://127.0.0.1:9", "--rate", "fast")
    assert outcome.code == 2
    assert "N/s, N/min" in outcome.stderr
