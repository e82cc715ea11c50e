"""`remedy-async export --tenants FILE`: every tenant's files, a manifest of finished units,
exact resumes after a failure or a kill, one process or Ray."""

from __future__ import annotations

import asyncio
import signal
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import orjson
import pytest

from remedy_async.simulator import FaultSpec, Simulator, SimulatorConfig
from tests.sending.parked_time import most_in_any_window

from .conftest import clean_env, cli, cli_here, start_cli


def lines(path: Path) -> list[dict[str, Any]]:
    return [orjson.loads(line) for line in path.read_bytes().splitlines()]


def ids(out: Path, tenant: str, resource: str) -> list[str]:
    return [record["id"] for record in lines(out / f"tenant={tenant}" / f"{resource}.jsonl")]


def manifest(out: Path) -> Counter[tuple[str, str]]:
    return Counter((line["tenant"], line["collection"]) for line in lines(out / "manifest.jsonl"))


class Waits:
    """A sleep recording its waits, returning at once (the progress display's and a key's)."""

    def __init__(self) -> None:
        self.waits: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.waits.append(seconds)
        await asyncio.sleep(0)  # yields, as a real wait would


@pytest.fixture
async def organisations(tmp_path: Path) -> Any:
    config = SimulatorConfig(tenants=4, size=400, seed=21, tenant_rate_limit=50)
    async with Simulator(config) as simulator:
        yield simulator, simulator.write_tenants_file(tmp_path / "keys")


async def test_every_tenants_collections_land_in_files_of_their_own(
    organisations: Any, tmp_path: Path
) -> None:
    """Each tenant's collections are in DIR/tenant=NAME/, exactly its records, once; the
    manifest has a line per unit; each key stays under its limit."""
    simulator, tenants = organisations
    out = tmp_path / "out"
    outcome = await cli_here(
        "export", "endpoints", "scopes", "--tenants", str(tenants), "--out", str(out),
    )  # fmt: skip
    assert outcome.code == 0, outcome.stderr
    for tenant in simulator.tenants:
        for resource in ("endpoints", "scopes"):
            assert ids(out, tenant.name, resource) == list(tenant.dataset.ids(resource))
        assert simulator.counters.tenants[tenant.name].rate_limited == 0
    assert manifest(out) == {
        (t.name, r): 1 for t in simulator.tenants for r in ("endpoints", "scopes")
    }
    assert "8 of 8 units of 4 tenants complete" in outcome.stderr
    assert not list(out.glob("tenant=*/.reading"))


async def test_a_failed_tenant_is_resumed_exactly(tmp_path: Path) -> None:
    """A tenant whose list fails (no retries) stops with status 3 and a resume hint while the
    others finish; `--resume` finishes it from its checkpoint: no record twice, none missing,
    each unit once in the manifest."""
    config = SimulatorConfig(
        tenants=3, size=600, seed=22, faults=[FaultSpec("http-500", 0.2, "list:endpoints")]
    )
    async with Simulator(config) as simulator:
        tenants = simulator.write_tenants_file(tmp_path / "keys")
        out = tmp_path / "out"
        args = ("export", "endpoints", "--tenants", str(tenants), "--out", str(out))
        first = await cli_here(*args, "--retries", "0", "--page-size", "20")
        assert first.code == 3, first.stderr
        assert "--resume" in first.stderr
        again = [first]
        while again[-1].code == 3 and len(again) < 30:
            again.append(await cli_here(*args, "--retries", "0", "--resume"))
        assert again[-1].code == 0, again[-1].stderr
        for tenant in simulator.tenants:
            assert ids(out, tenant.name, "endpoints") == list(tenant.dataset.ids("endpoints"))
        assert manifest(out) == {(t.name, "endpoints"): 1 for t in simulator.tenants}


async def test_a_killed_export_resumes_without_duplicates(
    organisations: Any, tmp_path: Path
) -> None:
    """An export killed outright (SIGKILL) part-way and resumed at once: `--resume` skips
    finished units and continues the others from their checkpoints, no file holds a record
    twice, and, waiting one window for the keys the killed run left marked, no key goes over
    its limit at the service (no 429)."""
    simulator, tenants = organisations
    tenants.write_text(tenants.read_text().replace('"50/s"', '"40/s"'))  # room for a busy machine
    out = tmp_path / "out"
    args = ("export", "--tenants", str(tenants), "--out", str(out), "--page-size", "10")
    process = await start_cli(*args, env=clean_env())
    while simulator.counters.total_requests < 60 and process.returncode is None:  # noqa: ASYNC110
        await asyncio.sleep(0.01)
    assert process.returncode is None, await process.stderr.read()  # type: ignore[union-attr]
    process.send_signal(signal.SIGKILL)
    await process.wait()
    assert list(out.glob("tenant=*/.reading")), "the killed run left its tenants marked"
    outcome = await cli(*args, "--resume")
    assert outcome.code == 0, outcome.stderr
    for tenant in simulator.tenants:
        for resource in ("endpoints", "remediation-targets", "scopes", "vulnerability-findings"):
            found = ids(out, tenant.name, resource)
            assert found == list(tenant.dataset.ids(resource)), (tenant.name, resource)
        assert simulator.counters.tenants[tenant.name].rate_limited == 0
        assert most_in_any_window(simulator.arrivals(tenant.name), 1.0) <= 50
    assert set(manifest(out).values()) == {1}
    assert len(manifest(out)) == 16


async def test_a_tenant_left_marked_waits_one_window(organisations: Any, tmp_path: Path) -> None:
    """A tenant whose `.reading` a killed run left behind: the next run waits that key's
    rate-limit window (with the client's margin) before its first request, once."""
    _, tenants = organisations
    out = tmp_path / "out"
    (out / "tenant=org-02").mkdir(parents=True)
    (out / "tenant=org-02" / ".reading").touch()
    waits = Waits()
    outcome = await cli_here(
        "export", "scopes", "--tenants", str(tenants), "--out", str(out),
        "--progress", "never", sleep=waits,
    )  # fmt: skip
    assert outcome.code == 0, outcome.stderr
    assert waits.waits == [1.0 + 0.05]
    assert not list(out.glob("tenant=*/.reading"))


async def test_parquet_files_per_tenant(organisations: Any, tmp_path: Path) -> None:
    """`--format parquet` writes each tenant's Parquet files, its records all there."""
    pq = pytest.importorskip("pyarrow.parquet")
    simulator, tenants = organisations
    out = tmp_path / "out"
    outcome = await cli_here(
        "export", "scopes", "--tenants", str(tenants), "--out", str(out), "--format", "parquet"
    )
    assert outcome.code == 0, outcome.stderr
    for tenant in simulator.tenants:
        table = pq.read_table(out / f"tenant={tenant.name}" / "scopes.parquet")
        assert table.column("id").to_pylist() == list(tenant.dataset.ids("scopes"))


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (("--token", "x"), "drop --token"),
        (("--to", "duckdb:x.db"), "not --to"),
        (("--address", "auto"), "give --engine ray too"),
    ],
)
async def test_what_cannot_go_with_tenants_is_refused(
    organisations: Any, tmp_path: Path, args: tuple[str, ...], said: str
) -> None:
    """A token, a DuckDB target or Ray's options without Ray: usage errors, no request."""
    simulator, tenants = organisations
    outcome = await cli_here(
        "export", "--tenants", str(tenants), "--out", str(tmp_path / "out"), *args
    )
    assert outcome.code == 2
    assert said in outcome.stderr
    assert simulator.counters.total_requests == 0


async def test_ray_options_without_tenants_are_refused(tmp_path: Path) -> None:
    """`--engine ray` reads many tenants: without `--tenants` it is a usage error."""
    outcome = await cli_here("export", "--out", str(tmp_path), "--engine", "ray")
    assert outcome.code == 2
    assert "give --tenants FILE too" in outcome.stderr


async def test_a_bad_tenants_file_names_its_line(tmp_path: Path) -> None:
    """A tenants file with a misspelt key is a usage error naming the line."""
    path = tmp_path / "tenants.toml"
    path.write_text('[[tenant]]\nname = "a"\ntoken_envv = "A"\n')
    outcome = await cli_here("export", "--tenants", str(path), "--out", str(tmp_path / "o"))
    assert outcome.code == 2
    assert f"{path}:3: unknown key 'token_envv'" in outcome.stderr


async def test_an_unfinished_export_is_refused_without_resume(
    organisations: Any, tmp_path: Path
) -> None:
    """A tenant's unfinished unit in DIR needs --resume or --restart, named in the message;
    --restart discards it and exports afresh."""
    simulator, tenants = organisations
    out = tmp_path / "out"
    (out / "tenant=org-03").mkdir(parents=True)
    (out / "tenant=org-03" / "scopes.jsonl.part").write_bytes(b'{"id": "half"}\n')
    args = ("export", "scopes", "--tenants", str(tenants), "--out", str(out))
    refused = await cli_here(*args)
    assert refused.code == 2
    assert "unfinished export of org-03/scopes" in refused.stderr
    assert simulator.counters.total_requests == 0
    restarted = await cli_here(*args, "--restart")
    assert restarted.code == 0, restarted.stderr
    assert ids(out, "org-03", "scopes") == list(simulator.tenant("org-03").dataset.ids("scopes"))


@pytest.mark.xdist_group("ray")
async def test_the_ray_engine_writes_the_same_files(organisations: Any, tmp_path: Path) -> None:
    """`--engine ray` (a local cluster) writes each tenant's files and the manifest as one
    process does."""
    ray = pytest.importorskip("ray", reason="Ray is an optional extra: pip install '.[ray]'")
    simulator, tenants = organisations
    out = tmp_path / "out"
    try:
        outcome = await cli_here(
            "export", "endpoints", "--tenants", str(tenants), "--out", str(out),
            "--engine", "ray", "--shards", "2",
        )  # fmt: skip
    finally:
        ray.shutdown()
    assert outcome.code == 0, outcome.stderr
    for tenant in simulator.tenants:
        assert ids(out, tenant.name, "endpoints") == list(tenant.dataset.ids("endpoints"))
    assert manifest(out) == {(t.name, "endpoints"): 1 for t in simulator.tenants}


async def test_a_finished_export_is_kept_unless_asked(organisations: Any, tmp_path: Path) -> None:
    """A new run into a DIR holding a finished export is refused (nothing deleted); --resume
    finds nothing missing; --restart exports again, each unit once in the manifest."""
    simulator, tenants = organisations
    out = tmp_path / "out"
    args = ("export", "scopes", "--tenants", str(tenants), "--out", str(out))
    assert (await cli_here(*args)).code == 0
    asked = simulator.counters.total_requests
    again = await cli_here(*args)
    assert again.code == 2
    assert "holds a finished export of org-01/scopes" in again.stderr
    resumed = await cli_here(*args, "--resume")
    assert resumed.code == 0, resumed.stderr
    assert simulator.counters.total_requests == asked, "nothing was missing"
    restarted = await cli_here(*args, "--restart")
    assert restarted.code == 0, restarted.stderr
    assert simulator.counters.total_requests > asked
    assert manifest(out) == {(t.name, "scopes"): 1 for t in simulator.tenants}
    assert ids(out, "org-01", "scopes") == list(simulator.tenant("org-01").dataset.ids("scopes"))


async def test_the_ray_engine_without_ray_says_how_to_install_it(
    organisations: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`--engine ray` without Ray installed is a usage error naming the extra."""
    monkeypatch.setitem(sys.modules, "ray", None)
    _, tenants = organisations
    outcome = await cli_here(
        "export", "--tenants", str(tenants), "--out", str(tmp_path / "o"), "--engine", "ray"
    )
    assert outcome.code == 2
    assert "pip install 'remedy-async[ray]'" in outcome.stderr
