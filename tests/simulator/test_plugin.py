"""The pytest plugin: marker, fixtures, overrides, and opting in from a user's conftest."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path

import aiohttp
import pytest

from remedy_async import RemedyClient
from remedy_async.simulator import FaultSpec, Simulator, SimulatorConfig

from .helpers import RecordingSleep, get_json


@pytest.mark.remedy_simulator(size=7, paging="offset")
def test_marker_sets_config_fields(remedy_simulator_config: SimulatorConfig) -> None:
    """The marker's keyword arguments become SimulatorConfig fields on a free loopback port."""
    assert (remedy_simulator_config.size, remedy_simulator_config.paging) == (7, "offset")
    assert (remedy_simulator_config.host, remedy_simulator_config.port) == ("127.0.0.1", 0)


@pytest.mark.remedy_simulator(size=3, paging="page")
class TestMarkerOnAClass:
    """Marks on a class and on a method combine."""

    @pytest.mark.remedy_simulator(paging="link")
    def test_closest_marker_wins(self, remedy_simulator_config: SimulatorConfig) -> None:
        """The method's mark overrides the class's; the class's other fields remain."""
        assert (remedy_simulator_config.size, remedy_simulator_config.paging) == (3, "link")


@pytest.mark.remedy_simulator(size=3, paging="odata", disguise_paging=True)
async def test_marker_serves_a_disguised_convention(
    remedy_simulator: Simulator, session: aiohttp.ClientSession
) -> None:
    """`paging` takes any convention's name and `disguise_paging` renames its signals."""
    config = remedy_simulator.config
    assert (config.paging, config.disguise_paging) == ("odata", True)
    params = {"$top": "2"}
    _, body, _ = await get_json(session, f"{remedy_simulator.url}/v1/endpoints", params)
    assert set(body) == {"value", "nxt_tok_x", "nxt_tok_y"}
    assert body["nxt_tok_x"].startswith(remedy_simulator.url)


def test_without_marker_config_is_default(remedy_simulator_config: SimulatorConfig) -> None:
    """Without a mark the configuration is the default."""
    assert remedy_simulator_config == SimulatorConfig()


@pytest.mark.remedy_simulator(size=4, token="plugin-token")
async def test_simulator_fixture_is_running(
    remedy_simulator: Simulator, session: aiohttp.ClientSession
) -> None:
    """remedy_simulator serves the marked configuration."""
    assert remedy_simulator.dataset.count("endpoints") == 4
    headers = {"Authorization": "Bearer plugin-token"}
    status, body, _ = await get_json(session, f"{remedy_simulator.url}/v1/endpoints", None, headers)
    assert status == 200
    assert len(body["items"]) == 4


@pytest.mark.remedy_simulator(size=3, token="k", auth_header="X-API-Key", auth_scheme=None)
async def test_client_fixture_talks_to_the_simulator(
    remedy_client: RemedyClient, remedy_simulator: Simulator
) -> None:
    """remedy_client is connected with the simulator's auth settings."""
    endpoint = await remedy_client.endpoints.get("ep-00000002")
    assert endpoint.id == "ep-00000002"
    assert remedy_simulator.counters.responses == {200: 1}


@pytest.fixture
def remedy_simulator_sleep() -> Callable[[float], object]:
    """Override: instant latency for the test below."""
    return RecordingSleep()


@pytest.mark.remedy_simulator(size=2, faults=[FaultSpec("latency", 1.0, latency_ms=500)])
async def test_sleep_fixture_can_be_overridden(
    remedy_simulator: Simulator,
    remedy_simulator_sleep: RecordingSleep,
    session: aiohttp.ClientSession,
) -> None:
    """Overriding remedy_simulator_sleep makes the simulator's latency instant."""
    assert (await get_json(session, f"{remedy_simulator.url}/v1/health"))[0] == 200
    assert remedy_simulator_sleep.calls == [0.5]


def test_a_user_project_can_opt_in(tmp_path: Path) -> None:
    """A project with `pytest_plugins = ["remedy_async.testing"]` gets the marker and fixtures."""
    (tmp_path / "pytest.ini").write_text(
        "[pytest]\nasyncio_mode = auto\nasyncio_default_fixture_loop_scope = function\n"
        "filterwarnings = error\naddopts = --strict-markers -p no:cacheprovider\n"
    )
    (tmp_path / "conftest.py").write_text('pytest_plugins = ["remedy_async.testing"]\n')
    (tmp_path / "test_user.py").write_text(
        textwrap.dedent(
            """
            import pytest

            @pytest.mark.remedy_simulator(size=5, token="t")
            async def test_lists(remedy_client, remedy_simulator):
                endpoints = await remedy_client.endpoints.list().collect()
                assert len(endpoints) == remedy_simulator.dataset.count("endpoints") == 5

            async def test_health(remedy_client):
                assert (await remedy_client.health()).status == "ok"
            """
        )
    )
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", str(tmp_path)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "2 passed" in result.stdout
