"""`remedy-async demo`: the main job against the embedded simulator, with faults."""

from __future__ import annotations

from remedy_async.simulator import Dataset, SimulatorConfig

from .conftest import cli


async def test_demo_exports_everything_exactly_once_despite_faults() -> None:
    """The demo prints a summary table per collection and exits 0 when all arrived once."""
    outcome = await cli("demo", "--size", "60", "--get-many", "300", "--seed", "4")
    text = outcome.stdout.decode()
    assert outcome.code == 0, text + outcome.stderr
    assert outcome.stderr == ""  # no progress into a pipe
    for name in ("endpoints", "remediation-targets", "scopes", "vulnerability-findings"):
        assert name in text
    assert "findings by id" in text
    assert "total" in text
    assert "5 unknown ids answered 404, as expected" in text
    shown = text.splitlines()
    at = shown.index("Endpoints listed (hostname, operating_system, agent_version, ip):")
    hostnames = [line.split()[0] for line in shown[at + 1 : at + 4]]
    dataset = Dataset.from_config(SimulatorConfig(seed=4, size=60))
    assert hostnames == [record["hostname"] for record in dataset.records("endpoints")][:3]
    (severity,) = [line for line in shown if line.startswith("Findings fetched by id, by")]
    assert severity.startswith("Findings fetched by id, by severity (from extra): critical ")
    counts = [
        int(part.split()[-1].replace(",", "")) for part in severity.split(": ")[1].split(", ")
    ]
    assert sum(counts) == 300
    assert text.splitlines()[-1].startswith("Every record arrived exactly once")
