"""A pytest plugin that runs the Remedy simulator for your tests (needs pytest-asyncio).

Opt in from your root conftest.py:

    pytest_plugins = ["remedy_async.testing"]

Then:

    @pytest.mark.remedy_simulator(size=50, token="t")
    async def test_lists_the_macs(remedy_client, remedy_simulator):
        macs = await remedy_client.endpoints.list(os_family="macos").collect()
        assert len(macs) == remedy_simulator.dataset.count("endpoints", {"osFamily": "macos"})
        assert all(mac.operating_system.family == "macos" for mac in macs)

By default the simulator serves the service's published contract (snake_case records with the
published fields, UUID ids, `limit`/`offset` paging with `data`/`total`/`limit`/`offset`,
`{"error": "<message>"}` bodies; see SimulatorConfig). The marker takes any SimulatorConfig
field, checked: an unknown name or a bad value fails the test with a message naming it (and
the closest field). `paging` is the name of any paging convention of
`remedy_async.CONVENTIONS` (`"offset"`, the published one, by default; `"odata"`, `"stripe"`,
`"header-page"`, ...); `disguise_paging=True` renames that convention's continuation signals
to names no client knows (`nxt_tok_x`, ... in the body, `Nxt-Tok-X` for a next-page header),
for tests that a client fails loudly on a service it cannot follow:

    @pytest.mark.remedy_simulator(paging="odata", disguise_paging=True)
    async def test_an_unknown_convention_fails_loudly(remedy_client):
        with pytest.raises(remedy_async.PaginationError):
            await remedy_client.endpoints.list().collect()

Fixtures:
- `remedy_simulator_config`: a SimulatorConfig on a free loopback port, with the keyword
  arguments of the nearest `remedy_simulator` marks applied (closest wins); override the
  fixture to build your own.
- `remedy_clock`: a `FakeClock`, the time of `remedy_client` and of the simulator: the real
  time plus every wait skipped. The client's waits (retry backoff, 429 pauses, the service's
  rate limit) return at once and are recorded in `remedy_clock.waits`.
- `remedy_simulator_sleep`, `remedy_simulator_clock`: what the simulator waits and tells time
  with (asyncio.sleep, `remedy_clock.time`); override the sleep to make latency and stall
  faults instant.
- `remedy_simulator`: a running Simulator, stopped after the test. A test that passes while a
  fault it configured hit no request fails at teardown, naming the fault (a rate too small for
  the run, a route never asked for): make the fault certain (`FaultSpec("http-503", first=2)`)
  or mark the test `@pytest.mark.remedy_unfired_faults` when that is what it checks.
- `remedy_client`: a RemedyClient connected to it, with the simulator's auth settings, waiting
  on `remedy_clock`.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable, Generator, Mapping
from typing import TYPE_CHECKING, Any

import attrs
import pytest
import pytest_asyncio

from ._settings import closest
from .simulator import Simulator, SimulatorConfig

if TYPE_CHECKING:
    from . import RemedyClient

__all__ = ["FakeClock", "configured", "unfired_faults"]

MARKER = "remedy_simulator"
UNFIRED_MARKER = "remedy_unfired_faults"
"""The marker of a test whose configured faults may hit no request."""

_CALL_PASSED = pytest.StashKey[bool]()
"""On a test item: whether the test's own call passed (else its faults are not checked: it
failed, was skipped or xfailed)."""


class FakeClock:
    """A clock whose waits return at once: the real time, plus every wait it skipped.

    `time()` is Unix seconds and `await sleep(seconds)` moves the clock on by `seconds` after
    one turn of the event loop, without waiting; tasks that sleep at the same time overlap, as
    real sleeps do (two 1 s sleeps from the same moment move the clock 1 s, not 2).
    """

    def __init__(self) -> None:
        self.waits: list[float] = []
        """Every wait asked for, in seconds, in order."""
        self.skipped = 0.0
        """The seconds the clock moved on: the waits' total once overlaps are counted."""

    def __repr__(self) -> str:
        return f"<FakeClock waits={len(self.waits)} skipped={self.skipped:g}s>"

    @property
    def now(self) -> float:
        """The time now, in Unix seconds (the same as `time()`)."""
        return self.time()

    def time(self) -> float:
        """The time now, in Unix seconds: the real time plus the waits skipped."""
        return time.time() + self.skipped

    def advance(self, seconds: float) -> None:
        """Move the clock on, as if time had passed (a simulator's rate limit refills, health
        reports a later time).

        Args:
            seconds: How far; a negative value does nothing.
        """
        self.skipped += max(seconds, 0.0)

    async def sleep(self, seconds: float) -> None:
        """Record a wait and return after one turn of the event loop, the clock moved on to the
        end of the wait (if no other wait has moved it further).

        Args:
            seconds: The wait asked for.
        """
        self.waits.append(seconds)
        wake_at = self.time() + max(seconds, 0.0)
        await asyncio.sleep(0)
        self.skipped += max(wake_at - self.time(), 0.0)


def pytest_configure(config: pytest.Config) -> None:
    """Register the `remedy_simulator(**config_overrides)` and `remedy_unfired_faults`
    markers."""
    config.addinivalue_line(
        "markers",
        f"{MARKER}(**overrides): SimulatorConfig fields for the remedy_simulator fixture",
    )
    config.addinivalue_line(
        "markers",
        f"{UNFIRED_MARKER}: the test passes even if a fault it configured hits no request",
    )


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    """Note whether a test's call passed: only then are its faults checked, so a failing or
    skipped test is not also told its faults never fired."""
    report = yield
    if report.when == "call":
        item.stash[_CALL_PASSED] = report.passed
    return report


def unfired_faults(simulator: Simulator) -> str | None:
    """Describe the faults of a simulator that hit no request, or None when every one hit.

    Args:
        simulator: A simulator, running or stopped.
    """
    unfired = [counts for counts in simulator.fault_counts if not counts.hits]
    if not unfired:
        return None
    lines = "".join(f"\n  {counts}" for counts in unfired)
    seed = simulator.config.seed
    return (
        f"{len(unfired)} of the simulator's {len(simulator.fault_counts)} faults hit no "
        f"request (seed {seed}), so the test never saw them:{lines}\n"
        "Make a fault certain (nth=, every= or first=, such as FaultSpec('http-503', first=2)), "
        f"or mark the test @pytest.mark.{UNFIRED_MARKER} if that is what it checks."
    )


def configured(base: SimulatorConfig, overrides: Mapping[str, Any]) -> SimulatorConfig:
    """Return a configuration with some fields changed, as the marker changes them.

    An unknown name raises TypeError naming it and the closest SimulatorConfig field; a bad
    value raises the field's own error (ValueError or TypeError), prefixed with `name=value`.

    Args:
        base: The configuration to start from.
        overrides: SimulatorConfig fields and their new values.
    """
    fields = attrs.fields_dict(SimulatorConfig)
    for name in overrides:
        if name not in fields:
            raise TypeError(
                f"unknown argument {name!r}{closest(name, fields)}; the arguments are "
                f"SimulatorConfig's fields: {', '.join(fields)}"
            )
    try:
        return attrs.evolve(base, **overrides)
    except (TypeError, ValueError) as error:
        alone = (name for name, value in overrides.items() if _refused(base, name, value))
        culprit = next(alone, None)
        if culprit is None:  # only together (page_size over max_page_size): name them all
            where = ", ".join(f"{name}={value!r}" for name, value in overrides.items())
        else:
            where = f"{culprit}={overrides[culprit]!r}"
        raise type(error)(f"{where}: {error}") from None


def _refused(base: SimulatorConfig, name: str, value: Any) -> bool:
    try:
        attrs.evolve(base, **{name: value})
    except (TypeError, ValueError):
        return True
    return False


@pytest.fixture
def remedy_simulator_config(request: pytest.FixtureRequest) -> SimulatorConfig:
    """The simulator's configuration: defaults on 127.0.0.1:0, plus the marks' overrides."""
    overrides: dict[str, Any] = {}
    for marker in reversed(list(request.node.iter_markers(MARKER))):
        if marker.args:
            pytest.fail(f"@pytest.mark.{MARKER} takes keyword arguments only", pytrace=False)
        overrides.update(marker.kwargs)
    try:
        return configured(SimulatorConfig(host="127.0.0.1", port=0), overrides)
    except (TypeError, ValueError) as error:
        problem = str(error)
    pytest.fail(f"@pytest.mark.{MARKER}: {problem}", pytrace=False)


@pytest.fixture
def remedy_clock() -> FakeClock:
    """The time of `remedy_client` and of the simulator: their waits return at once."""
    return FakeClock()


@pytest.fixture
def remedy_simulator_sleep() -> Callable[[float], Any]:
    """How the simulator waits (latency and stall faults); asyncio.sleep by default."""
    return asyncio.sleep


@pytest.fixture
def remedy_simulator_clock(remedy_clock: FakeClock) -> Callable[[], float]:
    """How the simulator tells time (its `now`, health, rate limit); `remedy_clock.time`."""
    return remedy_clock.time


@pytest_asyncio.fixture
async def remedy_simulator(
    request: pytest.FixtureRequest,
    remedy_simulator_config: SimulatorConfig,
    remedy_simulator_sleep: Callable[[float], Any],
    remedy_simulator_clock: Callable[[], float],
) -> AsyncIterator[Simulator]:
    """A running simulator on a free loopback port, stopped after the test.

    After a test that passed, every fault it configured must have hit a request (see
    `Simulator.fault_counts`), else the test fails at teardown naming the faults: a fault by
    `rate` may hit nothing in a short run, and a test of retries that saw no fault proves
    nothing. `@pytest.mark.remedy_unfired_faults` turns the check off for a test.
    """
    simulator = Simulator(
        remedy_simulator_config, sleep=remedy_simulator_sleep, clock=remedy_simulator_clock
    )
    async with simulator:
        yield simulator
    node = request.node
    if not node.stash.get(_CALL_PASSED, False) or node.get_closest_marker(UNFIRED_MARKER):
        return
    problem = unfired_faults(simulator)
    if problem is not None:
        pytest.fail(f"remedy_simulator: {problem}", pytrace=False)


@pytest_asyncio.fixture
async def remedy_client(
    remedy_simulator: Simulator, remedy_clock: FakeClock
) -> AsyncIterator[RemedyClient]:
    """A RemedyClient pointed at the simulator, with its token and auth header settings (with
    `tenants=`, the first tenant's token), whose waits (retries, pauses, rate limits) return
    at once on `remedy_clock`."""
    from . import RemedyClient  # noqa: PLC0415 - the client is optional for simulator-only users

    config = remedy_simulator.config
    tenants = remedy_simulator.tenants
    client = RemedyClient(
        remedy_simulator.url,
        token=tenants[0].token if tenants else config.token,
        auth_header=config.auth_header,
        auth_scheme=config.auth_scheme,
        health_path=config.health_path,
        agent_configuration_path=config.agent_configuration_path,
        clock=remedy_clock.time,
        sleep=remedy_clock.sleep,
    )
    async with client:
        yield client
