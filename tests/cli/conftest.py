"""Runs the command line as a subprocess (or in this process) against a simulator, or in this
process against the published contract in a MockTransport, with no socket (`Published`)."""

from __future__ import annotations

import asyncio
import csv
import hashlib
import io
import os
import sys
from collections.abc import AsyncIterator, Callable, Mapping
from typing import Any

import attrs
import orjson
import pytest

from remedy_async import MockRequest, MockResponse, MockTransport
from remedy_async.cli import Terminal, run
from remedy_async.simulator import Simulator, SimulatorConfig
from tests.mock_service import BASE_URL
from tests.published import PublishedService, dataset

AS_FROM_A_SHELL = (
    "import runpy, signal; "
    "signal.signal(signal.SIGINT, signal.default_int_handler); "
    "runpy.run_module('remedy_async', run_name='__main__', alter_sys=True)"
)
"""`python -m remedy_async`, with Ctrl-C raising KeyboardInterrupt as in an interactive shell,
even when this suite itself was started with SIGINT ignored (a job a non-interactive shell put
in the background with `&`, which Python then leaves ignored in every child)."""
COMMAND = (sys.executable, "-c", AS_FROM_A_SHELL)
RESOURCES = ("endpoints", "remediation-targets", "scopes", "vulnerability-findings")
MISSING = "00000000-0000-4000-8000-000000000000"
"""A well-formed UUID no record has (the service answers a malformed id with a 400)."""


def scope(record_id: str, name: str = "x") -> dict[str, Any]:
    """A scope record in the published shape, for a test's own server."""
    return {
        "id": record_id,
        "name": name,
        "description": None,
        "status": "active",
        "subject_filter": {},
        "endpoint_filter": {},
        "finding_filter": {},
    }


@attrs.frozen
class Outcome:
    """What one run of the command line did: exit status, stdout bytes, stderr text."""

    code: int
    stdout: bytes
    stderr: str

    def jsonl(self) -> list[dict[str, Any]]:
        return [orjson.loads(line) for line in self.stdout.splitlines()]

    def csv(self) -> list[dict[str, str]]:
        return list(csv.DictReader(io.StringIO(self.stdout.decode(), newline="")))


def clean_env(**extra: str) -> dict[str, str]:
    """The test process's environment without Remedy settings or CI, plus `extra`."""
    env = {
        name: value
        for name, value in os.environ.items()
        if not name.startswith("REMEDY_") and name not in {"CI", "FORCE_COLOR", "TTY_COMPATIBLE"}
    }
    return {**env, "PYTHONWARNINGS": "error", **extra}


async def start_cli(*args: str, env: dict[str, str] | None = None) -> asyncio.subprocess.Process:
    """Start `python -m remedy_async ARGS` with piped streams."""
    return await asyncio.create_subprocess_exec(
        *COMMAND,
        *args,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env=env if env is not None else clean_env(),
    )


async def cli(*args: str, env: dict[str, str] | None = None, stdin: bytes = b"") -> Outcome:
    """Run `python -m remedy_async ARGS` to the end; a minute at most."""
    process = await start_cli(*args, env=env)
    try:
        stdout, stderr = await asyncio.wait_for(process.communicate(stdin), timeout=60)
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
    assert process.returncode is not None
    return Outcome(process.returncode, stdout, stderr.decode())


async def cli_here(
    *args: str, env: dict[str, str] | None = None, stdin: str = "", **terminal: Any
) -> Outcome:
    """Run the command line in this process and event loop, with captured streams; `terminal`
    sets the rest of its `Terminal` (`stdout_tty=True`: stdout is a terminal)."""
    stdout, stderr = io.BytesIO(), io.StringIO()
    streams = Terminal(stdout=stdout, stderr=stderr, stdin=io.StringIO(stdin), env=env or {})
    code = await run(args, attrs.evolve(streams, **terminal))
    return Outcome(code, stdout.getvalue(), stderr.getvalue())


SMALL = {"endpoints": 20, "remediation-targets": 12, "scopes": 7, "vulnerability-findings": 40}
"""How many records of each collection `Published` holds unless told: pages, not volume."""


class AgentFile:
    """A route answering the agent configuration download as the simulator does: the file with
    its ETag and file name, or a 304 when `If-None-Match` holds that ETag."""

    def __init__(self, body: bytes, name: str = "remedy-agent.conf") -> None:
        self.body = body
        self.name = name
        self.etag = f'"{hashlib.sha256(body).hexdigest()[:32]}"'

    def __call__(self, request: MockRequest) -> MockResponse:
        headers = {"ETag": self.etag, "Content-Disposition": f'attachment; filename="{self.name}"'}
        if request.headers.get("If-None-Match") == self.etag:
            return MockResponse(304, headers=headers)
        headers["Content-Type"] = "application/octet-stream"
        return MockResponse(200, headers=headers, body=self.body)


def health_ok(request: MockRequest) -> MockResponse:
    """The health check's answer when all is well, as the simulator gives it."""
    return MockResponse.json(200, {"status": "ok"})


UNPUBLISHED: dict[str, Callable[[MockRequest], MockResponse]] = {
    "/v1/health": health_ok,
    "/v1/agent-configuration": AgentFile(b"agent settings\n" * 64),
}
"""The routes the reference does not publish (their paths, bodies and content types), as the
simulator answers them: for a `Published` that also serves them (`beside=UNPUBLISHED`)."""


class Published:
    """The published contract (`tests.published`) answered in a MockTransport, and the command
    line run against it in this process (`run`): the same code as over a socket, with none.

    Its `url` is a name no request leaves for; every request it answers is in `requests`;
    `token` is the key it wants (None: it takes any request, with a key or without); `beside`
    answers paths outside the contract (`UNPUBLISHED`), each by its exact path."""

    url = BASE_URL

    def __init__(
        self,
        records: dict[str, list[dict[str, Any]]] | None = None,
        token: str | None = None,
        beside: Mapping[str, Callable[[MockRequest], MockResponse]] | None = None,
    ) -> None:
        self.service = PublishedService(
            records if records is not None else dataset(3, SMALL), token=token
        )
        self.beside = dict(beside or {})
        self.requests: list[MockRequest] = []

    @property
    def records(self) -> dict[str, list[dict[str, Any]]]:
        return self.service.records

    def ids(self, collection: str) -> list[str]:
        """The ids of a collection's records, in the service's list order."""
        return [record["id"] for record in self.records[collection]]

    def count(self, collection: str) -> int:
        """How many records a collection holds."""
        return len(self.records[collection])

    def handler(self, request: MockRequest) -> MockResponse:
        """Answer one request as the published service does, and record it."""
        self.requests.append(request)
        route = self.beside.get(request.path)
        return self.service.handler(request) if route is None else route(request)

    async def run(self, *args: str, **given: Any) -> Outcome:
        """Run the command line in this process against this service (as `cli_here`)."""
        return await cli_here(*args, transport=MockTransport(self.handler), **given)


@pytest.fixture
def published() -> Published:
    """The published contract with a few records of each collection, in a MockTransport."""
    return Published()


@pytest.fixture
async def simulator() -> AsyncIterator[Simulator]:
    """A small seeded simulator (20 endpoints, ~400 findings) on a loopback port."""
    async with Simulator(SimulatorConfig(seed=3, size=20)) as running:
        yield running


class Gate:
    """A simulator's sleep that lets the first `passes` delayed requests through at once and
    holds every later one until `open()`: time never really passes, and a test can act while
    requests are in flight."""

    def __init__(self, passes: int = 0) -> None:
        self.passes = passes
        self.held = 0
        self._opened = asyncio.Event()
        self._changed = asyncio.Event()

    def __repr__(self) -> str:
        return f"Gate(passes={self.passes}, held={self.held})"

    async def __call__(self, seconds: float) -> None:
        if self.passes:
            self.passes -= 1
            return
        self.held += 1
        self._changed.set()
        await self._opened.wait()

    async def waiting(self, count: int) -> None:
        """Return once `count` requests are held at the gate together."""
        while self.held < count:
            self._changed.clear()
            await self._changed.wait()

    def open(self) -> None:
        """Let every held request and every later one through."""
        self._opened.set()
