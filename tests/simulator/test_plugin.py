"""The pytest plugin: marker (checked), fixtures, the fake clock, overrides, and opting in from
a user's conftest."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import aiohttp
import pytest

from remedy_async import OsFamily, RateLimitError, RemedyClient, ServerError
from remedy_async.simulator import FaultSpec, Simulator, SimulatorConfig
from remedy_async.testing import FakeClock, configured, unfired_faults

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
    assert len(body["data"]) == 4
    assert set(body) == {"data", "total", "limit", "offset"}


@pytest.mark.remedy_simulator(size=3, token="k", auth_header="X-API-Key", auth_scheme=None)
async def test_client_fixture_talks_to_the_simulator(
    remedy_client: RemedyClient, remedy_simulator: Simulator
) -> None:
    """remedy_client is connected with the simulator's auth settings."""
    record_id = remedy_simulator.dataset.id_of("endpoints", 1)
    endpoint = await remedy_client.endpoints.get(record_id)
    assert endpoint.id == record_id
    assert endpoint.hostname == remedy_simulator.dataset.get("endpoints", record_id)["hostname"]  # type: ignore[index]
    assert remedy_simulator.counters.responses == {200: 1}


@pytest.mark.remedy_simulator(size=30, tenants=3)
async def test_client_fixture_reads_the_first_tenant_of_many(
    remedy_client: RemedyClient, remedy_simulator: Simulator
) -> None:
    """With many tenants, remedy_client carries the first tenant's token and sees its records."""
    first = remedy_simulator.tenants[0]
    found = await remedy_client.endpoints.list().collect()
    assert [endpoint.id for endpoint in found] == list(first.dataset.ids("endpoints"))


@pytest.mark.remedy_simulator(size=40)
async def test_the_default_simulator_speaks_the_published_filters(
    remedy_client: RemedyClient, remedy_simulator: Simulator
) -> None:
    """The documented example: `os_family` reaches the simulator as `osFamily` and is exact."""
    macs = await remedy_client.endpoints.list(os_family="macos").collect()
    assert len(macs) == remedy_simulator.dataset.count("endpoints", {"osFamily": "macos"})
    assert macs
    assert all(mac.operating_system.family == OsFamily.MACOS for mac in macs)


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


@pytest.mark.remedy_simulator(faults=[FaultSpec("http-429", 1.0, "health", retry_after=2)])
async def test_the_clients_waits_are_on_the_clock(
    remedy_client: RemedyClient, remedy_clock: FakeClock
) -> None:
    """A 429 on every attempt: remedy_client's waits are recorded on remedy_clock, not slept."""
    with pytest.raises(RateLimitError):
        await remedy_client.health()
    assert sum(remedy_clock.waits) >= 4
    assert remedy_clock.skipped > 3.5  # less the little real time that passed meanwhile


@pytest.mark.remedy_simulator(size=50, faults=[FaultSpec("http-429", 0.1, "list:*")])
async def test_a_ten_percent_429_fault_costs_no_time(
    remedy_client: RemedyClient, remedy_simulator: Simulator, remedy_clock: FakeClock
) -> None:
    """A list through 10% of 429s gets every record, each pause skipped on the clock."""
    findings = await remedy_client.vulnerability_findings.list(page_size=50).collect()
    assert len(findings) == remedy_simulator.dataset.count("vulnerability-findings")
    assert remedy_simulator.counters.faults["http-429"] > 0
    assert remedy_clock.waits


@pytest.mark.remedy_simulator(size=30, rate_limit=2)
async def test_the_services_rate_limit_refills_on_the_clock(
    remedy_client: RemedyClient, remedy_clock: FakeClock
) -> None:
    """Ten pages against 2 requests a second: the client waits on remedy_clock, the
    simulator's bucket refills on it, and the list completes."""
    endpoints = await remedy_client.endpoints.list(page_size=3).collect()
    assert len(endpoints) == 30
    assert remedy_clock.skipped >= 3


async def test_concurrent_waits_overlap() -> None:
    """Two tasks waiting 1 s at once move the clock 1 s, as real sleeps would."""
    clock = FakeClock()
    await asyncio.gather(clock.sleep(1.0), clock.sleep(1.0))
    assert clock.waits == [1.0, 1.0]
    assert clock.skipped == pytest.approx(1.0, abs=0.05)


def test_the_clock_is_the_real_time_plus_what_it_skipped() -> None:
    """`time()` starts at the real time; `advance` moves it on."""
    clock = FakeClock()
    assert abs(clock.time() - time.time()) < 1
    clock.advance(3600)
    assert abs(clock.now - time.time() - 3600) < 1


@pytest.mark.remedy_simulator(now="2030-01-01T00:00:00Z")
async def test_health_reports_the_simulators_now(
    remedy_client: RemedyClient, remedy_clock: FakeClock
) -> None:
    """The marker's `now` is the simulator's present; health moves on with remedy_clock."""
    assert (await remedy_client.health()).extra["time"] == "2030-01-01T00:00:00Z"
    remedy_clock.advance(3600)
    assert (await remedy_client.health()).extra["time"] == "2030-01-01T01:00:00Z"


@pytest.mark.remedy_simulator(size=20)
async def test_records_are_recent_by_default(
    remedy_client: RemedyClient, remedy_simulator: Simulator
) -> None:
    """Without `now`, the data is dated up to the real time: the simulator's present is the
    time it was made, and every endpoint was created and updated before it."""
    present = remedy_simulator.config.now
    assert present is not None
    assert timedelta(0) <= datetime.now(UTC) - present < timedelta(minutes=1)
    endpoints = await remedy_client.endpoints.list().collect()
    assert endpoints
    assert all(e.created_at <= e.updated_at <= present for e in endpoints)
    assert max(e.updated_at for e in endpoints) > present - timedelta(days=3 * 365)


def test_an_unknown_marker_argument_names_the_closest_field() -> None:
    """`sizee=50` is refused, naming the argument and suggesting `size`."""
    with pytest.raises(TypeError, match=r"unknown argument 'sizee' \(did you mean 'size'\?\)"):
        configured(SimulatorConfig(), {"sizee": 50})


@pytest.mark.parametrize(
    ("overrides", "named"),
    [
        ({"size": "5"}, "size='5': "),
        ({"size": -1}, "size=-1: "),
        ({"paging": "offest"}, "paging='offest': "),
        ({"seed": 1, "now": "soon"}, "now='soon': "),
    ],
)
def test_a_bad_marker_value_names_its_field(overrides: dict[str, object], named: str) -> None:
    """A value its field refuses is reported as `field=value: why`."""
    with pytest.raises((TypeError, ValueError)) as caught:
        configured(SimulatorConfig(), overrides)
    assert str(caught.value).startswith(named)


def test_values_refused_only_together_are_all_named() -> None:
    """Two paths fine alone but equal together are both named."""
    overrides = {"health_path": "/v1/x", "agent_configuration_path": "/v1/x"}
    with pytest.raises(ValueError, match="health_path='/v1/x', agent_configuration_path="):
        configured(SimulatorConfig(), overrides)


def test_marker_mistakes_fail_with_a_clear_message(tmp_path: Path) -> None:
    """In a user's project, a misspelt marker argument fails its test naming the argument and
    the closest field; a misspelt fault kind fails collection listing the kinds."""
    write_project(
        tmp_path,
        test_typo="""
            import pytest

            @pytest.mark.remedy_simulator(sizee=50)
            async def test_typo(remedy_client):
                pass
            """,
        test_kind="""
            import pytest
            from remedy_async.simulator import FaultSpec

            @pytest.mark.remedy_simulator(faults=[FaultSpec("http-5003", 0.1)])
            async def test_kind(remedy_client):
                pass
            """,
    )
    result = run_pytest(tmp_path)
    assert result.returncode != 0
    assert (
        "@pytest.mark.remedy_simulator: unknown argument 'sizee' (did you mean 'size'?)"
        in result.stdout
    )
    assert "unknown kind 'http-5003' (did you mean 'http-503'?)" in result.stdout
    assert "evolve()" not in result.stdout


def test_a_user_project_can_opt_in(tmp_path: Path) -> None:
    """A project with `pytest_plugins = ["remedy_async.testing"]` gets the marker and fixtures."""
    write_project(
        tmp_path,
        test_user="""
            import pytest

            @pytest.mark.remedy_simulator(size=5, token="t")
            async def test_lists(remedy_client, remedy_simulator):
                endpoints = await remedy_client.endpoints.list().collect()
                assert len(endpoints) == remedy_simulator.dataset.count("endpoints") == 5

            async def test_health(remedy_client):
                assert (await remedy_client.health()).status == "ok"
            """,
    )
    result = run_pytest(tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "2 passed" in result.stdout


@pytest.mark.remedy_simulator(size=10, faults=[FaultSpec("http-503", first=2, routes="list:*")])
async def test_a_service_that_fails_twice_is_retried_through(
    remedy_client: RemedyClient, remedy_simulator: Simulator, remedy_clock: FakeClock
) -> None:
    """`first=2` fails the first two list requests for certain: the client's two retries get
    every record, and the simulator saw the two 503s."""
    endpoints = await remedy_client.endpoints.list().collect()
    assert len(endpoints) == 10
    assert remedy_simulator.counters.responses == {503: 2, 200: 1}
    assert len(remedy_clock.waits) == 2


@pytest.mark.remedy_simulator(faults=[FaultSpec("http-503", first=3, routes="list:*")])
async def test_a_service_that_fails_three_times_outlasts_the_retries(
    remedy_client: RemedyClient, remedy_simulator: Simulator
) -> None:
    """`first=3` outlasts the default three attempts: the list raises the 503."""
    with pytest.raises(ServerError) as caught:
        await remedy_client.endpoints.list().collect()
    assert caught.value.status == 503
    assert [(c.requests, c.hits) for c in remedy_simulator.fault_counts] == [(3, 3)]


async def test_unfired_faults_names_the_faults_that_hit_nothing(
    session: aiohttp.ClientSession,
) -> None:
    """`unfired_faults` is None when every fault hit a request, else names those that did not
    and how to make them certain."""
    faults = (FaultSpec("http-503", first=1), FaultSpec("http-500", 0.2, "list:scopes"))
    async with Simulator(SimulatorConfig(size=5, seed=1, faults=faults)) as simulator:
        assert (await get_json(session, f"{simulator.url}/v1/endpoints"))[0] == 503
    problem = unfired_faults(simulator)
    assert problem is not None
    assert problem.startswith("1 of the simulator's 2 faults hit no request (seed 1)")
    assert "http-500:0.2:list:scopes hit 0 of the 0 requests it applied to" in problem
    assert "http-503:first=1" not in problem
    assert "FaultSpec('http-503', first=2)" in problem
    alone = (FaultSpec("http-503", first=1),)
    async with Simulator(SimulatorConfig(size=5, faults=alone)) as simulator:
        await get_json(session, f"{simulator.url}/v1/endpoints")
    assert unfired_faults(simulator) is None


def test_a_passing_test_whose_fault_never_fired_fails(tmp_path: Path) -> None:
    """In a user's project, a test that passes while its fault hit no request fails at
    teardown naming the fault; the marker `remedy_unfired_faults` allows it, a test failing on
    its own is reported once, a skipped one is not checked, and a test whose faults all fired
    passes."""
    write_project(
        tmp_path,
        test_faults="""
            import pytest
            from remedy_async.simulator import FaultSpec

            NEVER = FaultSpec("http-503", 0.2, "list:scopes")

            @pytest.mark.remedy_simulator(size=5, faults=[NEVER])
            async def test_unfired(remedy_client):
                await remedy_client.endpoints.list().collect()

            @pytest.mark.remedy_unfired_faults
            @pytest.mark.remedy_simulator(size=5, faults=[NEVER])
            async def test_allowed(remedy_client):
                await remedy_client.endpoints.list().collect()

            @pytest.mark.remedy_simulator(size=5, faults=[NEVER])
            async def test_failing(remedy_client):
                assert False, "the test's own failure"

            @pytest.mark.remedy_simulator(size=5, faults=[NEVER])
            async def test_skipped(remedy_client):
                pytest.skip("not today")

            @pytest.mark.remedy_simulator(size=5, faults=[FaultSpec("http-503", first=1)])
            async def test_fired(remedy_client):
                await remedy_client.endpoints.list().collect()
            """,
    )
    result = run_pytest(tmp_path)
    # test_unfired passes its call, then errs at teardown
    assert "1 failed, 3 passed, 1 skipped, 1 error" in result.stdout, result.stdout + result.stderr
    assert "ERROR test_faults.py::test_unfired" in result.stdout
    assert "http-503:0.2:list:scopes hit 0 of the 0 requests it applied to" in result.stdout
    assert "@pytest.mark.remedy_unfired_faults" in result.stdout
    assert "FAILED test_faults.py::test_failing" in result.stdout
    assert "ERROR test_faults.py::test_failing" not in result.stdout
    assert "ERROR test_faults.py::test_skipped" not in result.stdout


def write_project(root: Path, **tests: str) -> None:
    """A user's project opting in to the plugin, with test modules named by the keywords."""
    (root / "pytest.ini").write_text(
        "[pytest]\nasyncio_mode = auto\nasyncio_default_fixture_loop_scope = function\n"
        "filterwarnings = error\naddopts = --strict-markers -p no:cacheprovider\n"
    )
    (root / "conftest.py").write_text('pytest_plugins = ["remedy_async.testing"]\n')
    for name, source in tests.items():
        (root / f"{name}.py").write_text(textwrap.dedent(source))


def run_pytest(root: Path) -> subprocess.CompletedProcess[str]:
    """Run pytest in a user's project, as its developer would."""
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "--continue-on-collection-errors", str(root)],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
