"""`--debug`: the library's logging switch `REMEDY_LOG=debug` set for the process while the
command runs (so it is set when the client is built), each request logged once on the
command's stderr, and never the token. In this process, against the published contract in a
MockTransport."""

from __future__ import annotations

import os

import pytest

from remedy_async import MockRequest, MockResponse
from remedy_async._sending._events import LOG_ENV as LIBRARY_LOG_ENV
from remedy_async.cli._options import LOG_ENV
from tests.loopback import CANARY

from .conftest import Published


@pytest.mark.parametrize("before", [None, "info"], ids=["unset", "set"])
async def test_debug_sets_the_log_switch_while_the_command_runs(
    monkeypatch: pytest.MonkeyPatch, before: str | None
) -> None:
    """Every request of a --debug command is sent with REMEDY_LOG=debug in the environment;
    afterwards the variable is as it was."""
    if before is None:
        monkeypatch.delenv("REMEDY_LOG", raising=False)
    else:
        monkeypatch.setenv("REMEDY_LOG", before)
    service = Published()
    seen: list[str | None] = []
    answer = service.handler

    def handler(request: MockRequest) -> MockResponse:
        seen.append(os.environ.get("REMEDY_LOG"))
        return answer(request)

    service.handler = handler  # type: ignore[method-assign]
    outcome = await service.run(
        "list", "scopes", "--base-url", service.url, "--page-size", "3", "--debug"
    )
    assert outcome.code == 0, outcome.stderr
    assert len(seen) >= 2
    assert set(seen) == {"debug"}
    assert os.environ.get("REMEDY_LOG") == before


async def test_without_debug_the_switch_is_left_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    """A command without --debug does not touch REMEDY_LOG."""
    monkeypatch.delenv("REMEDY_LOG", raising=False)
    service = Published()
    seen: list[str | None] = []
    answer = service.handler

    def handler(request: MockRequest) -> MockResponse:
        seen.append(os.environ.get("REMEDY_LOG"))
        return answer(request)

    service.handler = handler  # type: ignore[method-assign]
    outcome = await service.run("list", "scopes", "--base-url", service.url)
    assert outcome.code == 0, outcome.stderr
    assert set(seen) == {None}


async def test_debug_logs_each_request_once_without_the_token(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """One DEBUG line per request on the command's stderr (the library adds no second handler
    of its own), the credential header redacted and the token nowhere."""
    monkeypatch.delenv("REMEDY_LOG", raising=False)
    service = Published(token=CANARY)
    outcome = await service.run(
        "list", "scopes", "--base-url", service.url, "--page-size", "3", "--debug",
        env={"REMEDY_API_TOKEN": CANARY},
    )  # fmt: skip
    assert outcome.code == 0, outcome.stderr
    sent = [line for line in outcome.stderr.splitlines() if " DEBUG request GET " in line]
    assert len(sent) == len(service.requests)
    assert CANARY not in outcome.stderr
    assert CANARY.encode() not in outcome.stdout


def test_the_switch_is_the_one_the_library_reads() -> None:
    """The variable --debug sets is the library's own (named in the CLI's help without
    importing the library's modules, so a test keeps the two the same)."""
    assert LOG_ENV == LIBRARY_LOG_ENV == "REMEDY_LOG"
