"""`remedy_async.ray.read`: many tenants on a local Ray cluster (2 CPUs), against a simulator of
many organisations, each key's limit enforced by the service; a worker killed mid-read."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from remedy_async import ConfigurationError
from remedy_async.simulator import Simulator, SimulatorConfig
from tests.contract.servers import BackgroundSimulators
from tests.sending.parked_time import most_in_any_window

ray = pytest.importorskip("ray", reason="Ray is an optional extra: pip install '.[ray]'")
remedy_ray = pytest.importorskip("remedy_async.ray")

pytestmark = pytest.mark.xdist_group("ray")
"""One Ray cluster per test process: every test here runs in the same worker."""

READ_TASK = "ray::ReadRemedyTenants"


@pytest.fixture(scope="module")
def cluster() -> Iterator[None]:
    if ray.is_initialized():  # another test of this worker left one of its own
        ray.shutdown()
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, logging_level="ERROR")
    yield
    ray.shutdown()


@pytest.fixture(scope="module")
def simulators() -> Iterator[BackgroundSimulators]:
    running = BackgroundSimulators()
    yield running
    running.close()


def tenants_file(simulator: Simulator, tmp_path: Path, rate: str | None = None) -> Path:
    """The simulator's tenants file; with `rate`, each key's budget in it instead of the
    service's own limit (room for a test machine too busy to send on time)."""
    path = simulator.write_tenants_file(tmp_path)
    if rate is not None:
        limit = simulator.config.tenant_rate_limit
        path.write_text(path.read_text().replace(f'"{limit}/s"', f'"{rate}"'))
    return path


def keyed(rows: list[dict[str, Any]]) -> list[tuple[str, str]]:
    return [(row["tenant"], row["id"]) for row in rows]


def read_tasks() -> list[int]:
    """The processes running a read task now (Ray names them after the task)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                command = (entry / "cmdline").read_bytes()
            except OSError:
                continue
            if command.startswith(READ_TASK.encode()):
                found.append(int(entry.name))
    return found


def test_every_tenants_records_arrive_once_with_a_tenant_column(
    cluster: None, simulators: BackgroundSimulators, tmp_path: Path
) -> None:
    """Five organisations, one of them 40% of the records: each record once, tagged."""
    simulator = simulators.simulator(SimulatorConfig(tenants=5, size=900, seed=11))
    dataset = remedy_ray.read("endpoints", tenants_file(simulator, tmp_path), page_size=100)
    rows = dataset.take_all()
    assert dataset.schema().names[0] == "tenant"
    assert len(set(keyed(rows))) == len(rows)
    expected = {t.name: t.dataset.count("endpoints") for t in simulator.tenants}
    assert Counter(row["tenant"] for row in rows) == expected
    assert expected["org-01"] == 360


def test_each_key_stays_under_its_limit_at_the_service(
    cluster: None, simulators: BackgroundSimulators, tmp_path: Path
) -> None:
    """Under a service enforcing 10 requests a second per key, 8/s in the tenants file (room
    for a busy test machine): no key is ever over the limit in any second at the service, and
    none gets a 429, whatever the number of read tasks."""
    simulator = simulators.simulator(
        SimulatorConfig(tenants=4, size=1200, seed=12, tenant_rate_limit=10)
    )
    path = tenants_file(simulator, tmp_path, "8/s")
    rows = remedy_ray.read("endpoints", path, page_size=50).take_all()
    assert len(rows) == 1200
    for tenant in simulator.tenants:
        assert most_in_any_window(simulator.arrivals(tenant.name), 1.0) <= 10
        assert simulator.counters.tenants[tenant.name].rate_limited == 0


def test_a_worker_killed_mid_read_is_retried_without_duplicates(
    cluster: None, simulators: BackgroundSimulators, tmp_path: Path
) -> None:
    """A read task's process killed part-way through the largest tenant while the data churns:
    Ray runs the task again, and the Dataset holds no record twice and every record present
    throughout; the retry waits a window, so no key goes over its limit at the service (the
    dead task's last second and the retry's first would otherwise be 16 requests at a service
    that takes 10)."""
    simulator = simulators.simulator(
        SimulatorConfig(
            tenants=3, size=1500, seed=13, tenant_rate_limit=10, churn_count=1, churn_every=3
        )
    )
    start = {t.name: set(t.dataset.ids("endpoints")) for t in simulator.tenants}
    dataset = remedy_ray.read(
        "endpoints", tenants_file(simulator, tmp_path, "8/s"), page_size=50, block_rows=50
    )
    result: dict[str, list[dict[str, Any]]] = {}
    reading = threading.Thread(target=lambda: result.update(rows=dataset.take_all()))
    reading.start()
    killed: list[int] = []
    while reading.is_alive() and not killed:
        if simulator.counters.tenants["org-01"].requests >= 6:
            killed = read_tasks()
            for pid in killed:
                os.kill(pid, signal.SIGKILL)
        time.sleep(0.01)
    reading.join()
    assert killed, "a read task was killed mid-read"
    rows = result["rows"]
    assert len(set(keyed(rows))) == len(rows), "no record twice"
    for tenant in simulator.tenants:
        throughout = start[tenant.name] - tenant.dataset.removed("endpoints")
        delivered = {row["id"] for row in rows if row["tenant"] == tenant.name}
        assert throughout <= delivered, tenant.name
        assert most_in_any_window(simulator.arrivals(tenant.name), 1.0) <= 10
        assert simulator.counters.tenants[tenant.name].rate_limited == 0


def test_bad_options_are_refused_before_any_request(
    cluster: None, simulators: BackgroundSimulators, tmp_path: Path
) -> None:
    """A misspelt filter or collection fails in `read`, before Ray runs anything."""
    simulator = simulators.simulator(SimulatorConfig(tenants=2, size=20, seed=14))
    path = tenants_file(simulator, tmp_path)
    with pytest.raises(TypeError, match="os_family"):
        remedy_ray.read("endpoints", path, os_famly="macos")
    with pytest.raises(ConfigurationError, match="unknown collection"):
        remedy_ray.read("endpoint", path)
    assert simulator.counters.total_requests == 0


def test_without_ray_the_module_names_its_extra() -> None:
    """Importing `remedy_async.ray` without Ray says which extra installs it."""
    code = "import sys; sys.modules['ray'] = None; import remedy_async.ray"
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert run.returncode != 0
    assert "pip install 'remedy-async[ray]'" in run.stderr
