"""The README stays short and true: its quickstart runs as written in a process of its own,
every other Python snippet runs against the embedded simulator over loopback, its links lead
somewhere, and its two set-up commands are the ones CI runs.

A snippet other than the quickstart may use the package's public names and a few stand-ins the
prose implies: `url` and an open `client` (the simulator), `ids` (a few finding ids), `save` and
`log` (collectors). `https://api.example.com` is replaced by the simulator's URL; nothing
reaches the internet.
"""

from __future__ import annotations

import ast
import asyncio
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import remedy_async
from remedy_async import RemedyClient, Severity
from remedy_async.simulator import Simulator, SimulatorConfig

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
    ids=lambda s: s.strip().splitlines()[0][:40],
)
async def test_readme_snippet_runs(
    snippet: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The snippet runs as written against the simulator."""
    monkeypatch.chdir(tmp_path)
    async with Simulator(SimulatorConfig(size=30)) as simulator:
        source = snippet.replace("https://api.example.com", simulator.url)
        async with RemedyClient(simulator.url) as client:
            saved: list[Any] = []
            namespace: dict[str, Any] = {
                **{name: getattr(remedy_async, name) for name in remedy_async.__all__},
                "url": simulator.url,
                "client": client,
                "ids": [simulator.dataset.id_of("vulnerability-findings", i) for i in range(3)],
                "save": saved.append,
                "log": lambda *args: saved.append(args),
            }
            code = compile(source, "README.md", "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)
            if "asyncio.run(" in source:  # a whole program: its own event loop, in a thread
                await asyncio.to_thread(exec, code, namespace)
            else:
                result = eval(code, namespace)
                if asyncio.iscoroutine(result):
                    await result


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
