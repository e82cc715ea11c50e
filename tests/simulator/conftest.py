"""Fixtures for the simulator's tests: fake time, simulators on loopback, a raw HTTP session."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest
import pytest_asyncio

from remedy_async.simulator import Simulator, SimulatorConfig

from .helpers import FakeClock, RecordingSleep, StartSimulator


@pytest.fixture
def fake_sleep() -> RecordingSleep:
    """A sleep that returns at once and records what it was asked to wait."""
    return RecordingSleep()


@pytest.fixture
def clock() -> FakeClock:
    """A clock that only moves when the test says so."""
    return FakeClock()


@pytest_asyncio.fixture
async def serve(fake_sleep: RecordingSleep, clock: FakeClock) -> AsyncIterator[StartSimulator]:
    """Start simulators (size 20 unless told) with fake time; all are stopped afterwards."""
    started: list[Simulator] = []

    async def start(**overrides: Any) -> Simulator:
        options: dict[str, Any] = {"size": 20, **overrides}
        simulator = Simulator(SimulatorConfig(**options), sleep=fake_sleep, clock=clock)
        await simulator.start()
        started.append(simulator)
        return simulator

    yield start
    await asyncio.gather(*(simulator.stop() for simulator in started))


@pytest_asyncio.fixture
async def sim(serve: StartSimulator) -> Simulator:
    """A default simulator (the published contract: offset paging, no auth, no faults) of 20
    endpoints."""
    return await serve()


@pytest_asyncio.fixture
async def session() -> AsyncIterator[aiohttp.ClientSession]:
    """A plain aiohttp session (not the client library)."""
    async with aiohttp.ClientSession() as client_session:
        yield client_session
