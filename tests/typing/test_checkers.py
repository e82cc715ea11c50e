"""The typing tests hold in both type checkers users run: `mypy --strict` and pyright (strict
mode, `pyrightconfig.json` here) find no error in this folder, where every `assert_type` and
every pinned error is a check. CI runs both as a step of its own; this test lets a developer
see the same from pytest."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest
from mypy import api as mypy_api

HERE = Path(__file__).parent
ROOT = HERE.parents[1]


def test_mypy_strict_finds_no_error_in_the_typing_tests(tmp_path: Path) -> None:
    """mypy --strict (the project's configuration) passes every file of tests/typing/."""
    out, err, status = mypy_api.run(
        [
            "--strict",
            "--config-file",
            str(ROOT / "pyproject.toml"),
            "--cache-dir",
            str(tmp_path / "mypy-cache"),
            str(HERE),
        ]
    )
    assert status == 0, out + err


def test_pyright_finds_no_error_in_the_typing_tests() -> None:
    """pyright in strict mode passes every file of tests/typing/, with `# type: ignore` comments
    left to mypy and an unneeded ignore an error."""
    if importlib.util.find_spec("pyright") is None:
        pytest.skip("pyright is not installed (the `test` extra installs it)")
    ran = subprocess.run(
        [
            sys.executable,
            "-m",
            "pyright",
            "--outputjson",
            "--project",
            str(HERE / "pyrightconfig.json"),
            "--pythonpath",
            sys.executable,
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    try:
        report = json.loads(ran.stdout)
    except json.JSONDecodeError:
        said = (ran.stdout + ran.stderr).strip().splitlines()[-3:]
        pytest.skip(f"pyright could not run here (it needs Node.js): {' / '.join(said)}")
    errors = [
        f"{Path(d['file']).name}:{d['range']['start']['line'] + 1}: {d['message']}"
        for d in report["generalDiagnostics"]
        if d["severity"] == "error"
    ]
    assert errors == []
    assert report["summary"]["filesAnalyzed"] >= 5
