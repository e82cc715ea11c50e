"""The contract through outside tools: Prism's dynamic mock (`scripts/mock-check`) and Spectral
(`scripts/lint-spec`).

Both install npm packages and take tens of seconds, so they run only with REMEDY_MOCK_CHECK=1;
CI calls the scripts directly when npm is available. The ruleset check below always runs.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
RUN_HINT = (
    "needs npm and about a minute; run with "
    "REMEDY_MOCK_CHECK=1 .venv/bin/pytest tests/contract/test_mock_check.py "
    "(or call scripts/mock-check and scripts/lint-spec directly)"
)
needs_npm = pytest.mark.skipif(os.environ.get("REMEDY_MOCK_CHECK") != "1", reason=RUN_HINT)


@pytest.fixture(scope="module")
def npm_prefix(tmp_path_factory: pytest.TempPathFactory) -> str:
    """One npm prefix for both scripts (so npm's cache is shared), unless the caller set one."""
    return os.environ.get("MOCK_CHECK_NPM_PREFIX") or str(tmp_path_factory.mktemp("npm"))


def run_script(name: str, prefix: str, timeout: float) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(ROOT / "scripts" / name)],
        cwd=ROOT,
        env={**os.environ, "MOCK_CHECK_NPM_PREFIX": prefix, "CI": "true"},
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


@needs_npm
def test_the_client_runs_against_prisms_dynamic_mock(npm_prefix: str) -> None:
    done = run_script("mock-check", npm_prefix, timeout=600)
    print(done.stdout)
    assert done.returncode == 0, f"mock-check exited {done.returncode}:\n{done.stdout}{done.stderr}"
    assert "seeds passed" in done.stdout


@needs_npm
def test_the_spec_lints_clean_with_spectral(npm_prefix: str) -> None:
    done = run_script("lint-spec", npm_prefix, timeout=600)
    print(done.stdout)
    assert done.returncode == 0, f"lint-spec exited {done.returncode}:\n{done.stdout}{done.stderr}"


def test_every_rule_the_spectral_ruleset_disables_says_why() -> None:
    path = ROOT / ".spectral.yaml"
    ruleset = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert "spectral:oas" in ruleset["extends"]
    lines = path.read_text(encoding="utf-8").splitlines()
    for rule, setting in (ruleset.get("rules") or {}).items():
        severity = setting.get("severity") if isinstance(setting, dict) else setting
        if severity not in ("off", False, "hint", "info", 3, 2):
            continue
        at = next(i for i, line in enumerate(lines) if line.strip().startswith(f"{rule}:"))
        above = lines[at - 1].strip() if at else ""
        justified = above.startswith("#") and len(above) > len("# why")
        assert justified, f".spectral.yaml turns {rule!r} {severity!r} without a comment saying why"
