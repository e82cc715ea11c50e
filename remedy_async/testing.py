"""A pytest plugin that runs the Remedy simulator for your tests (needs pytest-asyncio).

Opt in from your root conftest.py:

    pytest_plugins = ["remedy_async.testing"]

Then:

    @pytest.mark.remedy_simulator(size=50, paging="offset", token="t")
    async def test_lists_everything(remedy_client, remedy_simulator):
        endpoints = await remedy_client.endpoints.list().collect()
        assert len(endpoints) == remedy_simulator.dataset.count("endpoints")

The marker takes any SimulatorConfig field. `paging` is the name of any paging convention of
`remedy_async.CONVENTIONS` (`"cursor"` by default; `"odata"`, `"stripe"`, `"header-page"`, ...);
`disguise_paging=True` renames that convention's continuation signals to names no client knows
(`nxt_tok_x`, ... in the body, `Nxt-Tok-X` for a next-page header), for tests that a client
fails loudly on a service it cannot follow:

    @pytest.mark.remedy_simulator(paging="odata", disguise_paging=True)
    async def test_an_unknown_convention_fails_loudly(remedy_client):
        with pytest.raises(remedy_async.PaginationError):
            await remedy_client.endpoints.list().collect()

Fixtures:
- `remedy_simulator_config`: a SimulatorConfig on a free loopback port, with the keyword
  arguments of the nearest `remedy_simulator` marks applied (closest wins); override the
  fixture to build your own.
- `remedy_simulator_sleep`, `remedy_simulator_clock`: what the simulator waits and tells time
  with (asyncio.sleep, time.time); override them to make latency and stall faults instant.
- `remedy_simulator`: a running Simulator, stopped after the test.
- `remedy_client`: a RemedyClient connected to it, with the simulator's auth settings.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable
from typing import TYPE_CHECKING, Any

import attrs
import pytest
import pytest_asyncio

from .simulator import Simulator, SimulatorConfig

if TYPE_CHECKING:
    from . import RemedyClient

MARKER = "remedy_simulator"


def pytest_configure(config: pytest.Config) -> None:
    """Register the `remedy_simulator(**config_overrides)` marker."""
    config.addinivalue_line(
        "markers",
        f"{MARKER}(**overrides): SimulatorConfig fields for the remedy_simulator fixture",
    )


@pytest.fixture
def remedy_simulator_config(request: pytest.FixtureRequest) -> SimulatorConfig:
    """The simulator's configuration: defaults on 127.0.0.1:0, plus the marks' overrides."""
    overrides: dict[str, Any] = {}
    for marker in reversed(list(request.node.iter_markers(MARKER))):
        if marker.args:
            raise pytest.UsageError(f"@pytest.mark.{MARKER} takes keyword arguments only")
        overrides.update(marker.kwargs)
    return attrs.evolve(SimulatorConfig(host="127.0.0.1", port=0), **overrides)


@pytest.fixture
def remedy_simulator_sleep() -> Callable[[float], Any]:
    """How the simulator waits (latency and stall faults); asyncio.sleep by default."""
    return asyncio.sleep


@pytest.fixture
def remedy_simulator_clock() -> Callable[[], float]:
    """How the simulator tells time (health, rate limit); time.time by default."""
    return time.time


@pytest_asyncio.fixture
async def remedy_simulator(
    remedy_simulator_config: SimulatorConfig,
    remedy_simulator_sleep: Callable[[float], Any],
    remedy_simulator_clock: Callable[[], float],
) -> AsyncIterator[Simulator]:
    """A running simulator on a free loopback port, stopped after the test."""
    simulator = Simulator(
        remedy_simulator_config, sleep=remedy_simulator_sleep, clock=remedy_simulator_clock
    )
    async with simulator:
        yield simulator


@pytest_asyncio.fixture
async def remedy_client(remedy_simulator: Simulator) -> AsyncIterator[RemedyClient]:
    """A RemedyClient pointed at the simulator, with its token and auth header settings."""
    from . import RemedyClient  # noqa: PLC0415 - the client is optional for simulator-only users

    config = remedy_simulator.config
    client = RemedyClient(
        remedy_simulator.url,
        token=config.token,
        auth_header=config.auth_header,
        auth_scheme=config.auth_scheme,
        health_path=config.health_path,
        agent_configuration_path=config.agent_configuration_path,
    )
    async with client:
        yield client
