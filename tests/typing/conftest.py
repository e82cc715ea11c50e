"""A client of the embedded simulator, for the typing tests run as ordinary tests."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from remedy_async import RemedyClient
from remedy_async.simulator import Simulator, SimulatorConfig

SIZE = 12
"""Records of each collection the simulator serves."""


@pytest.fixture
async def client() -> AsyncIterator[RemedyClient]:
    async with (
        Simulator(SimulatorConfig(seed=5, size=SIZE)) as service,
        RemedyClient(service.url) as client,
    ):
        yield client


@pytest.fixture
def size() -> int:
    """How many records each collection of `client` holds."""
    return SIZE
