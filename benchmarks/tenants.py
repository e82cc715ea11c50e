"""Many organisations (issue 40): 40 tenants, one of them ~40% of the records, each key limited
to 20 requests a second by the service, 50 ms latency, churn on; read in one process (the
command line's `export --tenants`) and on Ray (`remedy_async.ray.read`, a local 2-CPU cluster).

Each scenario gets a fresh simulator in a process of its own (`--serve`), which at the end
reports what the service saw: every request's arrival by key, its 429s, and the ids present
throughout the run (at the start, never removed by churn). From that:

- the most requests of any key in any one-second window at the service, and 429s (both 0 over);
- exactly once: no (tenant, id) twice, every record present throughout delivered;
- speed: the quota bound (the keys' limits: for each tenant, the windows its pages need, plus
  one latency; the slowest tenant bounds the run) over the time taken;
- resume: the export killed at about half way and run again with `--resume`: list requests
  beyond the pages the records need, as a share of them;
- Ray: the local cluster's start, the time from `read()` to the first request at the service
  (planning, scheduling, the workers' start), and the most memory (RSS) of a read task.

    python benchmarks/tenants.py                     # every scenario, about 3 minutes
    python benchmarks/tenants.py --scenarios process ray --size 40000
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from remedy_async.simulator import FaultSpec, Simulator, SimulatorConfig

HERE = Path(__file__).resolve().parent
PAGE = 100
OVERLAP = 2
"""Each offset page after the first starts 2 records back (the overlap proof)."""
READ_TASK = b"ray::ReadRemedyTenants"


# The service, in a process of its own ---------------------------------------------------------


def serve(settings: dict[str, Any], directory: Path) -> None:
    """Run the simulator until stdin closes, then write `report.json` into `directory`."""
    config = SimulatorConfig(
        tenants=settings["tenants"],
        size=settings["size"],
        seed=settings["seed"],
        tenant_skew=settings["skew"],
        tenant_rate_limit=settings["rate"],
        churn_count=1 if settings["churn"] else None,
        churn_every=settings["churn_every"],
        faults=[FaultSpec("latency", 1.0, latency_ms=settings["latency_ms"])],
        cache_bytes=512 * 1024 * 1024,
    )

    async def run() -> None:
        async with Simulator(config) as simulator:
            tenants_file = simulator.write_tenants_file(directory / "keys")
            start = {t.name: list(t.dataset.ids("endpoints")) for t in simulator.tenants}
            print(json.dumps({"tenants_file": str(tenants_file)}), flush=True)
            loop = asyncio.get_running_loop()
            await loop.run_in_executor(None, sys.stdin.read)
            report = {
                "arrivals": {t.name: simulator.arrivals(t.name) for t in simulator.tenants},
                "rate_limited": {
                    name: counts.rate_limited for name, counts in simulator.counters.tenants.items()
                },
                "start": start,
                "removed": {
                    t.name: sorted(t.dataset.removed("endpoints")) for t in simulator.tenants
                },
            }
            (directory / "report.json").write_text(json.dumps(report))

    asyncio.run(run())


@contextmanager
def service(settings: dict[str, Any]) -> Iterator[tuple[Path, Path, dict[str, Any]]]:
    """A fresh simulator process; yields (tenants file, its directory, the report dict that
    fills when the block ends)."""
    directory = Path(tempfile.mkdtemp(prefix="remedy-tenants-"))
    process = subprocess.Popen(
        [sys.executable, __file__, "--serve", json.dumps(settings), str(directory)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None
    assert process.stdin is not None
    ready = json.loads(process.stdout.readline())
    report: dict[str, Any] = {}
    try:
        yield Path(ready["tenants_file"]), directory, report
    finally:
        process.stdin.close()
        process.wait(timeout=120)
        report.update(json.loads((directory / "report.json").read_text()))


# Judging a run --------------------------------------------------------------------------------


def most_in_any_window(times: Sequence[float], window: float) -> int:
    ordered = sorted(times)
    most, first = 0, 0
    for last, at in enumerate(ordered):
        while ordered[first] <= at - window + 1e-9:
            first += 1
        most = max(most, last - first + 1)
    return most


def pages_for(records: int) -> int:
    """The list requests an offset list of `records` needs in pages of 100 with the overlap."""
    if records <= PAGE:
        return 1
    return 1 + math.ceil((records - PAGE) / (PAGE - OVERLAP))


def quota_bound(report: dict[str, Any], settings: dict[str, Any]) -> float:
    """The fastest the keys' limits allow: the slowest tenant's pages at its limit, each
    window full, the first at once, plus one latency for the last answer."""
    rate, latency = settings["rate"], settings["latency_ms"] / 1000
    return max(
        (math.ceil(pages_for(len(ids)) / rate) - 1) * 1.0 + latency
        for ids in report["start"].values()
    )


def judge(
    report: dict[str, Any], delivered: Sequence[tuple[str, str]], settings: dict[str, Any]
) -> dict[str, Any]:
    """What the service saw and what was delivered, against the promises."""
    counts = Counter(delivered)
    twice = sum(1 for count in counts.values() if count > 1)
    got = set(counts)
    missing = 0
    for tenant, ids in report["start"].items():
        removed = set(report["removed"][tenant])
        missing += sum(1 for i in ids if i not in removed and (tenant, i) not in got)
    windows = {name: most_in_any_window(times, 1.0) for name, times in report["arrivals"].items()}
    ideal = sum(pages_for(len(ids)) for ids in report["start"].values())
    asked = sum(len(times) for times in report["arrivals"].values())
    return {
        "records": len(delivered),
        "twice": twice,
        "missing_of_present_throughout": missing,
        "most_in_a_second": max(windows.values()),
        "limit": settings["rate"],
        "rate_limited": sum(report["rate_limited"].values()),
        "requests": asked,
        "pages_needed": ideal,
        "quota_bound_s": quota_bound(report, settings),
    }


# The scenarios --------------------------------------------------------------------------------


def cli(*args: str) -> list[str]:
    return [str(Path(sys.executable).with_name("remedy-async")), *args]


def exported(out: Path) -> list[tuple[str, str]]:
    rows = []
    for path in sorted(out.glob("tenant=*/endpoints.jsonl")):
        tenant = path.parent.name.removeprefix("tenant=")
        with open(path, "rb") as file:
            rows += [(tenant, json.loads(line)["id"]) for line in file]
    return rows


def one_process(settings: dict[str, Any]) -> dict[str, Any]:
    """`remedy-async export endpoints --tenants FILE --out DIR` in one process."""
    with service(settings) as (tenants, directory, report):
        out = directory / "out"
        started = time.perf_counter()
        run = subprocess.run(
            cli("export", "endpoints", "--tenants", str(tenants), "--out", str(out),
                "--concurrency", "4", "--progress", "never"),
            capture_output=True, text=True, check=False,
        )  # fmt: skip
        elapsed = time.perf_counter() - started
    assert run.returncode == 0, run.stderr
    result = judge(report, exported(out), settings)
    reading = reading_time(report, settings)
    result.update(
        elapsed_s=elapsed,
        reading_s=reading,
        share_of_bound=result["quota_bound_s"] / elapsed,
        share_of_bound_reading=result["quota_bound_s"] / reading,
    )
    return result


def reading_time(report: dict[str, Any], settings: dict[str, Any]) -> float:
    """From the first request at the service to the last answer: the reading itself, without
    the command's or the cluster's start."""
    first = min(min(times) for times in report["arrivals"].values() if times)
    last = max(max(times) for times in report["arrivals"].values() if times)
    return float(last - first + settings["latency_ms"] / 1000)


def resumed(settings: dict[str, Any]) -> dict[str, Any]:
    """The export killed (SIGKILL) at about half its requests, then run with `--resume`."""
    with service(settings) as (tenants, directory, report):
        out = directory / "out"
        args = cli(
            "export", "endpoints", "--tenants", str(tenants), "--out", str(out),
            "--concurrency", "4", "--progress", "never",
        )  # fmt: skip
        half = settings["half_requests"]
        process = subprocess.Popen(args, stderr=subprocess.PIPE)
        started = time.perf_counter()
        time.sleep(half)
        process.send_signal(signal.SIGKILL)
        process.wait()
        run = subprocess.run([*args, "--resume"], capture_output=True, text=True, check=False)
        elapsed = time.perf_counter() - started
    assert run.returncode == 0, run.stderr
    result = judge(report, exported(out), settings)
    extra = result["requests"] - result["pages_needed"]
    result.update(
        elapsed_s=elapsed,
        killed_after_s=half,
        requested_twice=extra,
        requested_twice_share=extra / result["pages_needed"],
    )
    return result


RAY_READ = """
import json, sys, time
t0 = time.perf_counter()
import ray
ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, logging_level="ERROR")
cluster = time.perf_counter() - t0
from remedy_async import ray as remedy_ray
began = time.time()
t1 = time.perf_counter()
dataset = remedy_ray.read("endpoints", sys.argv[1], page_size=100, concurrency=4)
rows = []
for batch in dataset.iter_batches(batch_format="pyarrow", batch_size=None):
    rows += zip(batch.column("tenant").to_pylist(), batch.column("id").to_pylist())
elapsed = time.perf_counter() - t1
with open(sys.argv[2], "w") as file:
    json.dump({"cluster_start_s": cluster, "read_began": began, "elapsed_s": elapsed,
               "rows": rows}, file)
"""


def rss_of_read_tasks() -> list[int]:
    """Resident memory (bytes) of every process running a read task now."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if not (entry / "cmdline").read_bytes().startswith(READ_TASK):
                continue
            for line in (entry / "status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    found.append(int(line.split()[1]) * 1024)
        except OSError:
            continue
    return found


def on_ray(settings: dict[str, Any]) -> dict[str, Any]:
    """`remedy_async.ray.read` on a local 2-CPU cluster, the Dataset consumed on the driver."""
    with service(settings) as (tenants, directory, report):
        output = directory / "ray.json"
        process = subprocess.Popen(
            [sys.executable, "-c", RAY_READ, str(tenants), str(output)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        most_rss = 0
        while process.poll() is None:
            most_rss = max([most_rss, *rss_of_read_tasks()])
            time.sleep(0.2)
        assert process.returncode == 0, f"the Ray read failed ({process.returncode})"
        found = json.loads(output.read_text())
    first = min(min(times) for times in report["arrivals"].values() if times)
    result = judge(report, [tuple(row) for row in found["rows"]], settings)
    reading = reading_time(report, settings)
    result.update(
        cluster_start_s=found["cluster_start_s"],
        to_first_request_s=first - found["read_began"],
        elapsed_s=found["elapsed_s"],
        reading_s=reading,
        share_of_bound=result["quota_bound_s"] / found["elapsed_s"],
        share_of_bound_reading=result["quota_bound_s"] / reading,
        read_task_rss_mb=most_rss / 2**20,
    )
    return result


SCENARIOS = {"process": one_process, "resume": resumed, "ray": on_ray}


def main() -> int:
    if len(sys.argv) > 1 and sys.argv[1] == "--serve":
        serve(json.loads(sys.argv[2]), Path(sys.argv[3]))
        return 0
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenarios", nargs="*", choices=SCENARIOS, default=list(SCENARIOS))
    parser.add_argument("--tenants", type=int, default=40)
    parser.add_argument("--size", type=int, default=100_000, help="endpoints over all tenants")
    parser.add_argument("--skew", type=float, default=0.4)
    parser.add_argument("--rate", type=int, default=20, help="requests a second per key")
    parser.add_argument("--latency-ms", type=float, default=50.0)
    parser.add_argument("--churn-every", type=int, default=10)
    parser.add_argument("--no-churn", action="store_true")
    parser.add_argument("--seed", type=int, default=40)
    parser.add_argument("--json", type=Path, help="also write the results here")
    options = parser.parse_args()
    settings = {
        "tenants": options.tenants,
        "size": options.size,
        "skew": options.skew,
        "rate": options.rate,
        "latency_ms": options.latency_ms,
        "churn": not options.no_churn,
        "churn_every": options.churn_every,
        "seed": options.seed,
    }
    results: dict[str, Any] = {"settings": settings}
    for name in options.scenarios:
        if name == "resume":
            bound = results.get("process", {}).get("elapsed_s")
            settings["half_requests"] = (bound or 20.0) / 2
        results[name] = SCENARIOS[name](settings)
        print(f"{name}: {json.dumps(results[name])}", flush=True)
    if options.json is not None:
        options.json.write_text(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    os.environ.setdefault("RAY_DEDUP_LOGS", "0")
    sys.exit(main())
