"""Shared fixtures: a loopback aiohttp app for answers only a socket can give, the guards every
test runs under (no real sleeps, no proxy from the machine, the canary token never shown), and
in-memory OpenTelemetry. How a test stands in for the service: `tests/README.md`."""

from __future__ import annotations

import asyncio
import logging
import os
from collections import Counter
from collections.abc import AsyncIterator, Iterator
from contextlib import AsyncExitStack

import pytest
from aiohttp import web

from tests.loopback import CANARY, Handler, Serve, serve_app
from tests.otel import Otel

pytest_plugins = ["remedy_async.testing"]

os.environ.setdefault("RUNTIME__DLTHUB_TELEMETRY", "false")  # dlt sends nothing anywhere

CASES_PROPERTY = "schemathesis-cases"
"""The user property a contract test records its generated cases in: `(run, count)`."""


@pytest.fixture
async def serve() -> AsyncIterator[Serve]:
    """Start a loopback aiohttp.web app with the given GET routes; returns its base URL.

    Only for an answer a MockTransport handler cannot give (a body streamed, stalled or held
    back on a clock); a canned answer is `tests.mock_service.Routes`, served over a socket,
    where the socket is the point, by `tests.loopback.serve_handler`."""
    async with AsyncExitStack() as stack:

        async def start(routes: dict[str, Handler]) -> str:
            app = web.Application()
            for path, handler in routes.items():
                app.router.add_get(path, handler)
            return await stack.enter_async_context(serve_app(app))

        yield start


REAL_SLEEP_LIMIT = 0.05


@pytest.fixture(autouse=True)
def _no_real_sleeps(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fail any test that makes the event loop really sleep; time must be injected instead."""
    real_sleep = asyncio.sleep

    async def guarded_sleep(delay: float, result: object = None) -> object:
        if delay > REAL_SLEEP_LIMIT:
            raise AssertionError(f"a test slept for real ({delay} s); inject sleep instead")
        return await real_sleep(delay, result)

    monkeypatch.setattr(asyncio, "sleep", guarded_sleep)


PROXY_VARIABLES = ("HTTPS_PROXY", "HTTP_PROXY", "NO_PROXY", "REMEDY_PROXY")


@pytest.fixture(autouse=True)
def _no_proxy_from_the_machine(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tests set the proxy variables they need: none comes from the machine running them (the
    command line reads them by default)."""
    for name in PROXY_VARIABLES:
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.lower(), raising=False)


class CanaryWatch(logging.Handler):
    """Collects every log record (formatted, with any traceback) that shows the canary token."""

    def __init__(self) -> None:
        super().__init__(level=logging.DEBUG)
        self.setFormatter(logging.Formatter("%(name)s %(levelname)s %(message)s"))
        self.leaks: list[str] = []
        self.records = 0

    def emit(self, record: logging.LogRecord) -> None:
        self.records += 1
        text = self.format(record)
        if CANARY in text:
            self.leaks.append(text[:300])


CANARY_WATCH = CanaryWatch()


def pytest_sessionstart(session: pytest.Session) -> None:
    """Log the library at DEBUG for the whole suite, watched for the canary token."""
    library = logging.getLogger("remedy_async")
    library.setLevel(logging.DEBUG)
    logging.getLogger().addHandler(CANARY_WATCH)


@pytest.fixture(params=["logged", "quiet"])
def library_logging(request: pytest.FixtureRequest) -> Iterator[str]:
    """Run a test twice: with the library logging at DEBUG, and quiet as in production.

    The suite logs at DEBUG to watch for the canary, which makes every request build events;
    quiet, the sender takes its fast path (no events), which must behave the same.
    """
    library = logging.getLogger("remedy_async")
    previous = library.level
    if request.param == "quiet":
        library.setLevel(logging.INFO)
    try:
        yield str(request.param)
    finally:
        library.setLevel(previous)


@pytest.fixture
def otel(request: pytest.FixtureRequest) -> Iterator[Otel]:
    """OpenTelemetry providers exporting in memory: pass `otel.telemetry` to a client.

    Every span and metric they exported is watched for the canary token, as logs are."""
    exported = Otel()
    try:
        yield exported
    finally:
        for text in exported.exported_text():
            if CANARY in text:
                CANARY_WATCH.leaks.append(f"telemetry of {request.node.nodeid}: {text[:300]}")
        exported.shutdown()


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    """Fail the run if a test's report (traceback, captured output or logs) shows the canary."""
    texts = [report.longreprtext, *(content for _, content in report.sections)]
    if any(CANARY in text for text in texts):
        CANARY_WATCH.leaks.append(f"report of {report.nodeid} ({report.when})")


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Turn any canary sighting into a failed run, naming where it was seen."""
    logging.getLogger().removeHandler(CANARY_WATCH)
    if CANARY_WATCH.leaks:
        print("\nCANARY TOKEN LEAKED:\n" + "\n".join(CANARY_WATCH.leaks[:20]))
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """Print the cases schemathesis generated per run, when any contract test ran (here, in
    the root conftest, so the xdist controller prints it too)."""
    counts: Counter[str] = Counter()
    for reports in terminalreporter.stats.values():
        for report in reports:
            if getattr(report, "when", None) != "teardown":
                continue
            for name, value in report.user_properties:
                if name == CASES_PROPERTY:
                    counts[value[0]] += value[1]
    if not counts:
        return
    terminalreporter.section("schemathesis: generated cases (paging / naming / error shape)")
    for run, count in sorted(counts.items()):
        terminalreporter.write_line(f"{run}: {count} cases")
    terminalreporter.write_line(f"total: {sum(counts.values())} cases")
