"""The package's layering: arrows point down client -> collection -> paging -> sending -> wire.

Read from the source (every module's AST, imports inside functions included), so a violation
fails here before anyone has to notice it in review.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Mapping
from pathlib import Path

import remedy_async

PACKAGE = "remedy_async"
ROOT = Path(remedy_async.__file__).parent

SHARED_VALUES = frozenset(
    f"{PACKAGE}.{name}" for name in ("_errors", "_http", "_models", "_redact")
)
"""Plain values and errors every layer may use."""

CORE_RULES: Mapping[str, tuple[str, ...]] = {
    f"{PACKAGE}._wire": (f"{PACKAGE}._paging", f"{PACKAGE}._sending"),
    f"{PACKAGE}._sending": (f"{PACKAGE}._paging",),
    f"{PACKAGE}._paging": (),
}
"""Each core package, and the core packages above it that it must not import."""

ABOVE_THE_CORE = tuple(
    f"{PACKAGE}.{name}"
    for name in ("_client", "_collection", "_bulk", "_download", "_config", "_options", "cli")
)
"""What a user meets; the core imports none of it."""

CLI_RULE = "the CLI uses public names only"

AIOHTTP_IN_THE_CORE = frozenset({f"{PACKAGE}._sending._transport"})


def module_name(path: Path, root: Path = ROOT) -> str:
    """The dotted name of a module file of the package."""
    parts = path.relative_to(root.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_of(name: str, source: str, *, is_package: bool = False) -> Iterator[str]:
    """Every module a module's source imports, relative imports resolved to absolute names."""
    package = name if is_package else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                target = ".".join([*base, *([node.module] if node.module else [])])
            else:
                target = node.module or ""
            yield target
            # `from . import _config` imports a module, not a name
            yield from (f"{target}.{alias.name}" for alias in node.names)


def package_sources(root: Path = ROOT) -> dict[str, tuple[str, bool]]:
    """Every module of the package: dotted name -> (source, is a package __init__)."""
    return {
        module_name(path, root): (path.read_text(encoding="utf-8"), path.name == "__init__.py")
        for path in sorted(root.rglob("*.py"))
    }


def _within(name: str, prefix: str) -> bool:
    return name == prefix or name.startswith(prefix + ".")


def layering_violations(sources: Mapping[str, tuple[str, bool]]) -> list[str]:
    """Describe every import that breaks the layering, as `importer -> imported: rule`."""
    found: list[str] = []
    for name, (source, is_package) in sources.items():
        for target in set(imports_of(name, source, is_package=is_package)):
            for core, forbidden_cores in CORE_RULES.items():
                if not _within(name, core):
                    continue
                for forbidden in (*forbidden_cores, *ABOVE_THE_CORE):
                    if _within(target, forbidden):
                        found.append(f"{name} -> {target}: {core} must not import {forbidden}")
                if _within(target, "aiohttp") and name not in AIOHTTP_IN_THE_CORE:
                    found.append(f"{name} -> {target}: only _sending._transport calls aiohttp")
            if _within(name, f"{PACKAGE}.cli") and _is_private(target):
                found.append(f"{name} -> {target}: {CLI_RULE}")
    return sorted(found)


def _is_private(target: str) -> bool:
    """Whether a target is a private module of the library outside the CLI itself."""
    parts = target.split(".")
    if parts[0] != PACKAGE or _within(target, f"{PACKAGE}.cli"):
        return False
    return any(part.startswith("_") and not part.startswith("__") for part in parts[1:])


def import_closure(start: str, sources: Mapping[str, tuple[str, bool]]) -> set[str]:
    """Every module `start` imports, directly or through the package's own modules."""
    seen: set[str] = set()
    todo = [start]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        if name in sources:
            source, is_package = sources[name]
            todo.extend(imports_of(name, source, is_package=is_package))
    return seen


def test_the_package_keeps_its_layering() -> None:
    """No module of the package imports across the layering rules."""
    assert layering_violations(package_sources()) == []


def test_a_planted_upward_import_is_caught() -> None:
    """The check fails on a wire module that imports paging, and on a CLI private import."""
    sources = dict(package_sources())
    sources[f"{PACKAGE}._wire._planted"] = ("from remedy_async._paging import _pager\n", False)
    sources[f"{PACKAGE}.cli._planted"] = ("from remedy_async._sending._retry import X\n", False)
    sources[f"{PACKAGE}._sending._planted"] = ("from .._client import RemedyClient\n", False)
    sources[f"{PACKAGE}._paging._planted"] = ("import aiohttp\n", False)
    planted = [line for line in layering_violations(sources) if "_planted" in line]
    assert planted == sorted(
        [
            f"{PACKAGE}._paging._planted -> aiohttp: only _sending._transport calls aiohttp",
            f"{PACKAGE}._sending._planted -> {PACKAGE}._client.RemedyClient: "
            f"{PACKAGE}._sending must not import {PACKAGE}._client",
            f"{PACKAGE}._sending._planted -> {PACKAGE}._client: "
            f"{PACKAGE}._sending must not import {PACKAGE}._client",
            f"{PACKAGE}._wire._planted -> {PACKAGE}._paging: "
            f"{PACKAGE}._wire must not import {PACKAGE}._paging",
            f"{PACKAGE}._wire._planted -> {PACKAGE}._paging._pager: "
            f"{PACKAGE}._wire must not import {PACKAGE}._paging",
            f"{PACKAGE}.cli._planted -> {PACKAGE}._sending._retry: {CLI_RULE}",
            f"{PACKAGE}.cli._planted -> {PACKAGE}._sending._retry.X: {CLI_RULE}",
        ]
    )


def test_the_gate_and_the_retry_policy_do_not_import_cattrs() -> None:
    """Admission and retry decisions reach neither cattrs nor the codec, however indirectly."""
    sources = package_sources()
    for start in (f"{PACKAGE}._sending._gate", f"{PACKAGE}._sending._retry"):
        closure = import_closure(start, sources)
        assert not any(_within(name, "cattrs") for name in closure), start
        assert f"{PACKAGE}._wire._codec" not in closure, start


def test_the_simulator_entry_point_only_parses_and_serves() -> None:
    """`simulator/__main__.py` defines `main` and nothing else; its helpers live in a module."""
    tree = ast.parse((ROOT / "simulator" / "__main__.py").read_text(encoding="utf-8"))
    defined = [
        node.name
        for node in tree.body
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
    ]
    assert defined == ["main"]


def test_each_core_package_says_what_enters_and_leaves() -> None:
    """Each core package's docstring names its input, its output and every module it holds."""
    for package in ("_paging", "_sending", "_wire"):
        doc = ast.get_docstring(ast.parse((ROOT / package / "__init__.py").read_text()))
        assert doc is not None, package
        for heading in ("In:", "Out:", "Modules:"):
            assert heading in doc, (package, heading)
        modules = {path.stem for path in (ROOT / package).glob("_*.py") if path.stem != "__init__"}
        assert {module for module in modules if f"`{module}`" not in doc} == set(), package


def test_no_module_is_over_400_lines() -> None:
    """Modules stay small enough to read in one sitting."""
    long = {
        module_name(path): count
        for path in ROOT.rglob("*.py")
        if (count := len(path.read_text(encoding="utf-8").splitlines())) > 400
    }
    assert long == {}
