"""Fixtures for the contract runs.

Each schemathesis test records how many cases it generated as the user property
`schemathesis-cases` (a `(run, count)` pair, carried from xdist workers with the report); the
root conftest's summary adds them up per run in the normal pytest output.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from .servers import BackgroundSimulators


@pytest.fixture(scope="session")
def background_simulators() -> Iterator[BackgroundSimulators]:
    """Simulators on a background event loop, stopped at the end of the session."""
    simulators = BackgroundSimulators()
    yield simulators
    simulators.close()
