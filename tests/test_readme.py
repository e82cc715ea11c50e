"""The README stays short and true: its quickstart runs as written in a process of its own,
every other Python snippet runs as pasted (alone, in a fresh interpreter: tests/pasted.py)
against the embedded simulator the README tells a reader to start, its links lead somewhere,
its two set-up commands are the ones CI runs, and its install line names what pyproject.toml
defines.
"""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from remedy_async import Severity

from .pasted import run_as_pasted

ROOT = Path(__file__).parents[1]
README = ROOT / "README.md"
TEXT = README.read_text(encoding="utf-8")
SNIPPETS = re.findall(r"```python\n(.*?)```", TEXT, re.S)
QUICKSTART = SNIPPETS[0]
PYTEST_EXAMPLE = "# conftest.py"
MAX_LINES = 180


def test_the_readme_is_short() -> None:
    """The README is a front page (the rest is in docs/), at most 180 lines."""
    assert len(TEXT.splitlines()) <= MAX_LINES


def test_the_readme_has_snippets() -> None:
    """The collection below sees the README's snippets (a broken pattern would test nothing)."""
    assert len(SNIPPETS) >= 3
    assert "asyncio.run(main())" in QUICKSTART


def test_the_quickstart_runs_as_written(tmp_path: Path) -> None:
    """The first snippet, copied into a file of a new user's, runs to its end with nothing on
    stderr: it starts the embedded simulator itself."""
    (tmp_path / "quickstart.py").write_text(QUICKSTART, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-W", "error", "quickstart.py"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert (done.returncode, done.stderr) == (0, ""), done.stderr
    lines = [line.split() for line in done.stdout.splitlines()]
    endpoints, findings = lines[:-5], lines[-5:]  # then five findings
    assert endpoints  # "<hostname> <ip> <os name> <os version>" of macOS endpoints with agents
    assert all(fields[2] == "macOS" for fields in endpoints)
    assert all(fields[-1] in set(Severity) for fields in findings)  # "<id> <date> <time> <sev>"


def test_the_setup_commands_are_the_ones_ci_runs() -> None:
    """Both set-up commands appear, as written, as commands of `.ci/run`."""
    setup = TEXT.split("## Set-up: two commands", 1)[1].split("\n## ", 1)[0]
    commands = re.findall(r"```sh\n(.*?)\n```", setup, re.S)
    ci_lines = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert len(commands) == 2
    assert all(command in ci_lines for command in commands), commands


def test_the_readmes_links_lead_somewhere() -> None:
    """Every relative link of the README names a file of the repository."""
    targets = re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", TEXT)
    local = [target for target in targets if "://" not in target]
    assert len(local) >= 8
    assert [target for target in local if not (ROOT / target).exists()] == []


@pytest.mark.parametrize(
    "snippet",
    [s for s in SNIPPETS[1:] if not s.startswith(PYTEST_EXAMPLE)],
    ids=lambda s: s.strip().splitlines()[-1][:40],
)
async def test_readme_snippet_runs_as_pasted(snippet: str, tmp_path: Path) -> None:
    """The snippet, alone in a file and a fresh interpreter, runs to its end against the
    simulator the README says to start (REMEDY_BASE_URL), with warnings as errors."""
    assert "asyncio.run(" in snippet  # a whole program: a reader's file has no event loop
    await run_as_pasted(snippet, tmp_path, "README.md")


def test_the_install_line_installs_from_a_checkout() -> None:
    """The Install section's command installs the checkout with the command line's extra, into
    a virtual environment, and every extra the section names is one pyproject.toml defines."""
    install = TEXT.split("## Install", 1)[1].split("\n## ", 1)[0]
    commands = re.findall(r"```sh\n(.*?)\n```", install, re.S)
    assert commands == ["python3 -m venv .venv && .venv/bin/pip install '.[cli]'"]
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    extras = set(project["optional-dependencies"])
    named = {
        extra for group in re.findall(r"\[([\w,]+)\]", install) for extra in group.split(",")
    } | set(re.findall(r"`(\w+)`(?= \(|,)", install))
    assert {"cli", "arrow", "duckdb", "dlt", "otel", "ray"} <= named
    assert named <= extras, named - extras
    assert project["scripts"]["remedy-async"]  # the command the extra's line promises


def test_readme_pytest_plugin_example_runs(tmp_path: Path) -> None:
    """The pytest-plugin example passes as written, with warnings as errors."""
    example = next(s for s in SNIPPETS if s.startswith(PYTEST_EXAMPLE))
    conftest, _, test_file = example.partition("# test_sync.py")
    ini = re.search(r"```ini\n# pytest.ini\n(.*?)```", README.read_text(encoding="utf-8"), re.S)
    assert ini is not None
    (tmp_path / "pytest.ini").write_text(ini.group(1), encoding="utf-8")
    (tmp_path / "conftest.py").write_text(conftest, encoding="utf-8")
    (tmp_path / "test_sync.py").write_text(test_file, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-W", "error"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
