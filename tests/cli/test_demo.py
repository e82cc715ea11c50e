"""`remedy-async demo`: the main job against the embedded simulator, with faults."""

from __future__ import annotations

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
    assert text.splitlines()[-1].startswith("Every record arrived exactly once")
