"""The public names: sorted, importable, documented, and presented as `remedy_async.<name>`."""

from __future__ import annotations

import inspect
import pickle
import subprocess
import sys
from pathlib import Path

import pytest

import remedy_async

REFERENCE = (Path(__file__).parents[1] / "docs" / "reference.md").read_text(encoding="utf-8")


def _isort_key(name: str) -> tuple[int, str]:
    """Constants, then classes, then everything else, each alphabetically (ruff's RUF022)."""
    kind = 0 if name.isupper() else 1 if name[:1].isupper() else 2
    return kind, name


def test_all_is_sorted() -> None:
    """`__all__` is sorted the way ruff keeps it: constants, classes, then functions."""
    assert remedy_async.__all__ == sorted(remedy_async.__all__, key=_isort_key)


def test_every_public_member_is_exported() -> None:
    """Every public name of the package is in `__all__`, and nothing else is (the names
    imported on first use included: `dir()` lists them)."""
    public = {
        name
        for name in dir(remedy_async)
        if not name.startswith("_") and not inspect.ismodule(getattr(remedy_async, name))
    }
    assert public | {"__version__"} == set(remedy_async.__all__)


def test_an_unknown_name_is_an_attribute_error() -> None:
    """The lazy loader answers only its own names."""
    with pytest.raises(AttributeError, match="has no attribute 'Nope'"):
        remedy_async.Nope  # noqa: B018


def test_import_pays_only_for_what_it_uses() -> None:
    """`import remedy_async` loads neither cattrs, the TOML parser, the probe, the paging code,
    the integrations' packages (pyarrow, duckdb, dlt) nor OpenTelemetry (installed here): each
    loads on first use."""
    later = (
        "remedy_async._paging",
        "opentelemetry",
        "remedy_async._otel",
        "cattrs",
        "pyarrow",
        "duckdb",
        "dlt",
        "remedy_async.columnar",
        "remedy_async._columnar",
        "tomllib",
        "remedy_async._probe",
        "remedy_async._paging._paginators._pinned",
        "remedy_async._wire._converter",
        "remedy_async._download",
        "remedy_async._bulk",
        "remedy_async._profiles",
        "remedy_async._sending._mock",
    )
    code = "import sys, remedy_async; print(' '.join(sorted(sys.modules)))"
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    loaded = done.stdout.split()
    assert [name for name in loaded if name.startswith(later)] == []


GET_ONLY = """
import asyncio, sys
from remedy_async import MockResponse, MockTransport, RemedyClient

FINDING = {"id": "f-1", "title": "t", "severity": "high"}

def paging_loaded():
    return [name for name in sys.modules if name.startswith("remedy_async._paging")]

async def main():
    transport = MockTransport(lambda request: MockResponse.json(200, FINDING))
    async with RemedyClient(token="test-token", transport=transport) as client:
        print((await client.vulnerability_findings.get("f-1")).id)
        print(len(paging_loaded()))
        print(type(client.scopes.paginator).__name__, len(paging_loaded()) > 0)

asyncio.run(main())
"""


def test_a_program_that_only_gets_records_never_loads_the_paging_code() -> None:
    """A client that gets records by id loads no paging module; the default paginator is made
    (and paging loaded) when first asked for."""
    done = subprocess.run(
        [sys.executable, "-c", GET_ONLY], capture_output=True, text=True, check=True, timeout=60
    )
    assert done.stdout.splitlines() == ["f-1", "0", "AutoPaginator True"]


def test_every_exported_name_is_importable() -> None:
    """Each name in `__all__` can be imported from the package."""
    for name in remedy_async.__all__:
        assert getattr(remedy_async, name) is not None, name


def test_every_exported_name_is_documented() -> None:
    """Classes and functions carry their own docstring; other values are in the API reference."""
    undocumented = []
    for name in remedy_async.__all__:
        value = getattr(remedy_async, name)
        if inspect.isclass(value) or inspect.isfunction(value):
            if not (value.__doc__ or "").strip():
                undocumented.append(name)
        elif f"remedy_async.{name}" not in REFERENCE:
            undocumented.append(name)
    assert undocumented == []


def test_public_objects_name_the_package_as_their_module() -> None:
    """No public class or function shows the private module it lives in."""
    leaking = {
        name: value.__module__
        for name in remedy_async.__all__
        if inspect.isclass(value := getattr(remedy_async, name)) or inspect.isfunction(value)
        if value.__module__ != "remedy_async"
    }
    assert leaking == {}


def test_records_pickle_by_their_public_names() -> None:
    """A record survives pickling, referenced as `remedy_async.VulnerabilityFinding`, its
    unpublished fields with it."""
    record = remedy_async.from_wire(
        remedy_async.VulnerabilityFinding, {"id": "f-1", "severity": "high"}
    )
    assert b"remedy_async\x94\x8c\x14VulnerabilityFinding" in pickle.dumps(record)
    assert pickle.loads(pickle.dumps(record)) == record
    assert pickle.loads(pickle.dumps(record)).extra == {"severity": "high"}


def test_the_columnar_module_imports_pyarrow_only_when_a_batch_is_built() -> None:
    """`import remedy_async.columnar` (what the CLI's export loads) imports no pyarrow."""
    code = "import sys, remedy_async.columnar; print(' '.join(sorted(sys.modules)))"
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert [name for name in done.stdout.split() if name.startswith(("pyarrow", "dlt"))] == []
