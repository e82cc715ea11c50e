"""The package's architecture, read from its source, and the tests' layout, which mirrors it.

A list call meets in `_collection`: it builds the call's `ListCall` and hands `_paging` a fetch
made of `_sending` (one request out, a complete response back) and `_wire` (bytes to values).
`_paging` is sans-I/O: it forms each page's request and reads each page, and imports neither
`_sending` nor aiohttp. `_sending` imports nothing of `_paging`; both stand on `_wire` (whose
`_http` holds the plain request and response values both pass), which imports neither. The
core imports nothing a user meets, and `cli/` uses public names only:

    _client -> _collection -> _paging  -> _wire
                           -> _sending -> _wire

No modules import each other, however lazily, and `_paging` runs in layers (`PAGING_LAYERS`):
reading one response, detecting a convention, the paginators, the call, the page loop, the
pager, each importing only what lies below it. Read from every module's AST, imports inside
functions and under `if TYPE_CHECKING:` included, so a violation fails here before anyone has
to notice it in review. `tests/` mirrors the packages: `tests/sending/` holds
the tests of `_sending`, `tests/client/` those of the top-level modules a user meets.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator, Mapping
from functools import cache
from pathlib import Path

import pytest

import remedy_async

PACKAGE = "remedy_async"
ROOT = Path(remedy_async.__file__).parent
TESTS = Path(__file__).parent

SHARED_VALUES = frozenset(
    f"{PACKAGE}.{name}" for name in ("_errors", "_models", "_redact", "_version")
)
"""Plain values and errors every layer may use."""

CORE_MAY_IMPORT: Mapping[str, tuple[str, ...]] = {
    f"{PACKAGE}._wire": (),
    f"{PACKAGE}._sending": (f"{PACKAGE}._wire",),
    f"{PACKAGE}._paging": (f"{PACKAGE}._wire",),
}
"""Each core package, and what of the package it may import besides itself and the shared values:
nothing a user meets (`_client`, `_collection`, `cli`, ...), and never the other of paging and
sending."""

AIOHTTP_IN_THE_CORE = frozenset({f"{PACKAGE}._sending._transport"})

CLI_RULE = "the CLI uses public names only"

LIST_CALL = f"{PACKAGE}._paging._call"
"""What a list call is made of; the module that builds one joins paging and sending."""


def module_name(path: Path, root: Path = ROOT) -> str:
    """The dotted name of a module file of the package."""
    parts = path.relative_to(root.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _import_nodes(
    nodes: Iterable[ast.AST], on_use: bool = False
) -> Iterator[tuple[ast.Import | ast.ImportFrom, bool]]:
    """Every import statement among `nodes` and below, and whether it runs only on use (in a
    function, or under `if TYPE_CHECKING:`)."""
    for node in nodes:
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node, on_use
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            yield from _import_nodes(ast.iter_child_nodes(node), True)
        elif isinstance(node, ast.If) and _is_type_checking(node.test):
            yield from _import_nodes(node.body, True)
            yield from _import_nodes(node.orelse, on_use)
        else:
            yield from _import_nodes(ast.iter_child_nodes(node), on_use)


def import_targets(
    name: str, source: str, *, is_package: bool = False
) -> Iterator[tuple[str, bool]]:
    """Every module a module's source imports, relative imports resolved to absolute names, and
    whether the import runs only on use."""
    package = name if is_package else name.rpartition(".")[0]
    for node, on_use in _import_nodes(ast.parse(source).body):
        if isinstance(node, ast.Import):
            yield from ((alias.name, on_use) for alias in node.names)
        else:
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                target = ".".join([*base, *([node.module] if node.module else [])])
            else:
                target = node.module or ""
            yield target, on_use
            # `from . import _settings` imports a module, not a name
            yield from ((f"{target}.{alias.name}", on_use) for alias in node.names)


def imports_of(name: str, source: str, *, is_package: bool = False) -> Iterator[str]:
    """Every module a module's source imports, on use or not."""
    yield from (target for target, _ in import_targets(name, source, is_package=is_package))


@cache
def _read_package(root: Path) -> Mapping[str, tuple[str, bool]]:
    return {
        module_name(path, root): (path.read_text(encoding="utf-8"), path.name == "__init__.py")
        for path in sorted(root.rglob("*.py"))
    }


def package_sources(root: Path = ROOT) -> dict[str, tuple[str, bool]]:
    """Every module of the package: dotted name -> (source, is a package __init__)."""
    return dict(_read_package(root))


def _within(name: str, prefix: str) -> bool:
    return name == prefix or name.startswith(prefix + ".")


def _owner(target: str) -> str | None:
    """The package's top-level module or package a target lies in (the package itself for its
    root), or None outside the package."""
    parts = target.split(".")
    return ".".join(parts[:2]) if parts[0] == PACKAGE else None


def layering_violations(sources: Mapping[str, tuple[str, bool]]) -> list[str]:
    """Describe every import that breaks the layering, as `importer -> imported: rule`."""
    found: list[str] = []
    for name, (source, is_package) in sources.items():
        core = next((core for core in CORE_MAY_IMPORT if _within(name, core)), None)
        for target in set(imports_of(name, source, is_package=is_package)):
            owner = _owner(target)
            if core is not None and owner is not None and owner != core:
                allowed = {*CORE_MAY_IMPORT[core], *SHARED_VALUES}
                if owner not in allowed:
                    found.append(f"{name} -> {target}: {core} must not import {owner}")
            if core is not None and _within(target, "aiohttp") and name not in AIOHTTP_IN_THE_CORE:
                found.append(f"{name} -> {target}: only _sending._transport calls aiohttp")
            if _within(name, f"{PACKAGE}.cli") and _is_private(target):
                found.append(f"{name} -> {target}: {CLI_RULE}")
    return sorted(set(found))


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


def reached(
    start: str, forbidden: tuple[str, ...], sources: Mapping[str, tuple[str, bool]]
) -> dict[str, list[str]]:
    """For each module of `start`, what it reaches of `forbidden`, however indirectly."""
    found: dict[str, list[str]] = {}
    for name in sources:
        if _within(name, start):
            closure = import_closure(name, sources)
            hits = sorted(n for n in closure if any(_within(n, f) for f in forbidden))
            if hits:
                found[name] = hits
    return found


def list_call_builders(sources: Mapping[str, tuple[str, bool]]) -> set[str]:
    """The modules outside `_paging` that import its list call: where paging meets sending."""
    return {
        name
        for name, (source, is_package) in sources.items()
        if not _within(name, f"{PACKAGE}._paging")
        and any(_within(t, LIST_CALL) for t in imports_of(name, source, is_package=is_package))
    }


def test_the_package_keeps_its_layering() -> None:
    """No module of the package imports across the layering rules."""
    assert layering_violations(package_sources()) == []


@pytest.mark.parametrize(
    ("module", "source", "expected"),
    [
        (
            "_wire._planted",
            "from remedy_async._paging import _pager\n",
            [
                "_wire._planted -> remedy_async._paging: "
                "remedy_async._wire must not import remedy_async._paging",
                "_wire._planted -> remedy_async._paging._pager: "
                "remedy_async._wire must not import remedy_async._paging",
            ],
        ),
        (
            "_wire._planted",
            "def late():\n    from .._sending import _sender\n",
            [
                "_wire._planted -> remedy_async._sending: "
                "remedy_async._wire must not import remedy_async._sending",
                "_wire._planted -> remedy_async._sending._sender: "
                "remedy_async._wire must not import remedy_async._sending",
            ],
        ),
        (
            "_paging._planted",
            "from remedy_async._sending._sender import Sender\n",
            [
                "_paging._planted -> remedy_async._sending._sender: "
                "remedy_async._paging must not import remedy_async._sending",
                "_paging._planted -> remedy_async._sending._sender.Sender: "
                "remedy_async._paging must not import remedy_async._sending",
            ],
        ),
        (
            "_sending._planted",
            "from .._paging._protocol import PageRequest\n",
            [
                "_sending._planted -> remedy_async._paging._protocol: "
                "remedy_async._sending must not import remedy_async._paging",
                "_sending._planted -> remedy_async._paging._protocol.PageRequest: "
                "remedy_async._sending must not import remedy_async._paging",
            ],
        ),
        (
            "_sending._planted",
            "from .._client import RemedyClient\n",
            [
                "_sending._planted -> remedy_async._client: "
                "remedy_async._sending must not import remedy_async._client",
                "_sending._planted -> remedy_async._client.RemedyClient: "
                "remedy_async._sending must not import remedy_async._client",
            ],
        ),
        (
            "_wire._planted",
            "import remedy_async\n",
            ["_wire._planted -> remedy_async: remedy_async._wire must not import remedy_async"],
        ),
        (
            "_paging._planted",
            "from remedy_async._columnar import _arrow\n",
            [
                "_paging._planted -> remedy_async._columnar: "
                "remedy_async._paging must not import remedy_async._columnar",
                "_paging._planted -> remedy_async._columnar._arrow: "
                "remedy_async._paging must not import remedy_async._columnar",
            ],
        ),
        (
            "_paging._planted",
            "def arrow():\n    from remedy_async._columnar import _arrow\n",
            [
                "_paging._planted -> remedy_async._columnar: "
                "remedy_async._paging must not import remedy_async._columnar",
                "_paging._planted -> remedy_async._columnar._arrow: "
                "remedy_async._paging must not import remedy_async._columnar",
            ],
        ),
        (
            "_paging._planted",
            "if TYPE_CHECKING:\n    import remedy_async._columnar\n",
            [
                "_paging._planted -> remedy_async._columnar: "
                "remedy_async._paging must not import remedy_async._columnar",
            ],
        ),
        (
            "_paging._planted",
            "import aiohttp\n",
            ["_paging._planted -> aiohttp: only _sending._transport calls aiohttp"],
        ),
        (
            "cli._planted",
            "from remedy_async._sending._retry import X\n",
            [
                f"cli._planted -> remedy_async._sending._retry: {CLI_RULE}",
                f"cli._planted -> remedy_async._sending._retry.X: {CLI_RULE}",
            ],
        ),
    ],
)
def test_a_planted_import_across_the_layering_is_caught(
    module: str, source: str, expected: list[str]
) -> None:
    """The check names every import across the rules, in a function or for type checking too
    (the Arrow view of a pager is `_columnar`'s, taking a pager: paging knows no integration)."""
    name = f"{PACKAGE}.{module}"
    sources = {**package_sources(), name: (source, False)}
    planted = [line for line in layering_violations(sources) if line.startswith(f"{name} ")]
    assert planted == sorted(f"{PACKAGE}.{line}" for line in expected)


def test_the_collection_is_where_paging_and_sending_meet() -> None:
    """Only `_collection` builds a list call, and it imports paging, sending and the wire."""
    sources = package_sources()
    collection = f"{PACKAGE}._collection"
    assert list_call_builders(sources) == {collection}
    imported = set(imports_of(collection, sources[collection][0]))
    for core in CORE_MAY_IMPORT:
        assert any(_within(target, core) for target in imported), core
    sources[f"{PACKAGE}._planted"] = ("from ._paging._call import ListCall\n", False)
    assert list_call_builders(sources) == {collection, f"{PACKAGE}._planted"}


def test_paging_reaches_neither_sending_nor_aiohttp() -> None:
    """`_paging` is sans-I/O: nothing it imports, however indirectly and lazily, sends."""
    forbidden = (f"{PACKAGE}._sending", "aiohttp")
    sources = package_sources()
    assert reached(f"{PACKAGE}._paging", forbidden, sources) == {}
    sources[f"{PACKAGE}._wire._types"] = ("from .._sending import _gate\n", False)
    walk = f"{PACKAGE}._paging._walk._page_walk"
    assert walk in reached(f"{PACKAGE}._paging", forbidden, sources)


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
        assert {module for module in held_modules(ROOT / package) if f"`{module}`" not in doc} == (
            set()
        ), package


def held_modules(package: Path) -> set[str]:
    """The names of every module and subpackage a package holds, at any depth (`_read` and
    `_items` for `_paging/_read/_items.py`)."""
    names = {path.stem for path in package.rglob("_*.py") if path.stem != "__init__"}
    return names | {path.parent.name for path in package.rglob("*/__init__.py")}


def test_a_module_missing_from_its_package_docstring_is_caught(tmp_path: Path) -> None:
    """A module in a subpackage counts, and so does the subpackage itself."""
    (tmp_path / "_inner").mkdir()
    for path in ("__init__.py", "_top.py", "_inner/__init__.py", "_inner/_deep.py"):
        (tmp_path / path).touch()
    assert held_modules(tmp_path) == {"_top", "_inner", "_deep"}


PAGING = f"{PACKAGE}._paging"
PAGING_LAYERS: tuple[tuple[str, ...], ...] = (
    ("_protocol", "_conventions"),
    ("_read",),
    ("_detect",),
    ("_paginators",),
    ("_resume",),
    ("_call",),
    ("_walk",),
    ("_pager",),
)
"""`_paging` in layers, from the bottom up: a module imports only from its own layer and the
layers below, lazily and for type checking too. The protocol and the presets; reading one page
(`_read`); detecting a convention from a first page (`_detect`); the paginators, which follow
conventions (`_paginators`); resume tokens; the list call; the page loop (`_walk`); what the
caller iterates (`_pager`). So `_read` knows nothing of detection, and detection nothing of the
paginators that use it."""


def paging_layer(name: str) -> int | None:
    """The layer of `_paging` a module lies in (its index in `PAGING_LAYERS`), or None."""
    for index, layer in enumerate(PAGING_LAYERS):
        if any(_within(name, f"{PAGING}.{part}") for part in layer):
            return index
    return None


def paging_layer_violations(sources: Mapping[str, tuple[str, bool]]) -> list[str]:
    """Describe every import of `_paging` from a layer above, as `importer -> imported: rule`,
    and every module of `_paging` in no layer."""
    found: list[str] = []
    for name, (source, is_package) in sources.items():
        if not _within(name, PAGING):
            continue
        own = paging_layer(name)
        if own is None:
            if name != PAGING:
                found.append(f"{name}: in no layer of PAGING_LAYERS")
            continue
        for target in set(imports_of(name, source, is_package=is_package)):
            other = paging_layer(target)
            if other is not None and other > own:
                below, above = "/".join(PAGING_LAYERS[own]), "/".join(PAGING_LAYERS[other])
                found.append(f"{name} -> {target}: {below} lies below {above}")
    return sorted(set(found))


def test_paging_keeps_its_layers() -> None:
    """No module of `_paging` imports from a layer above its own, and each lies in a layer."""
    assert paging_layer_violations(package_sources()) == []


PLANTED_ACROSS_LAYERS: Mapping[tuple[str, str], tuple[str, ...]] = {
    ("_paging._read._planted", "from remedy_async._paging._detect import _compose\n"): (
        "_paging._read._planted -> remedy_async._paging._detect: _read lies below _detect",
        "_paging._read._planted -> remedy_async._paging._detect._compose: _read lies below _detect",
    ),
    ("_paging._detect._planted", "def late():\n    from .._paginators._auto import Auto\n"): (
        "_paging._detect._planted -> remedy_async._paging._paginators._auto: "
        "_detect lies below _paginators",
        "_paging._detect._planted -> remedy_async._paging._paginators._auto.Auto: "
        "_detect lies below _paginators",
    ),
    ("_paging._protocol", "if TYPE_CHECKING:\n    from ._walk import _page_walk\n"): (
        "_paging._protocol -> remedy_async._paging._walk: _protocol/_conventions lies below _walk",
        "_paging._protocol -> remedy_async._paging._walk._page_walk: "
        "_protocol/_conventions lies below _walk",
    ),
    ("_paging._planted_protocol", "from ._protocol import Convention\n"): (
        "_paging._planted_protocol: in no layer of PAGING_LAYERS",
    ),
    ("_paging._paginators._planted", "from .._read._page import read_page\n"): (),
    ("_paging._walk._planted", "from remedy_async._paging import _call, _protocol\n"): (),
}
"""Planted sources of `_paging`, by (module, source), and what the layer check says of them."""


@pytest.mark.parametrize(("planted", "expected"), PLANTED_ACROSS_LAYERS.items())
def test_a_planted_import_across_the_paging_layers_is_caught(
    planted: tuple[str, str], expected: tuple[str, ...]
) -> None:
    """An import from a higher layer is named, lazy and for type checking too; downward ones
    pass; a module outside every layer is named."""
    module, source = planted
    name = f"{PACKAGE}.{module}"
    found = paging_layer_violations({**package_sources(), name: (source, False)})
    assert [line for line in found if line.startswith(name)] == [
        f"{PACKAGE}.{line}" for line in sorted(expected)
    ]


WALK = f"{PAGING}._walk"
REQUEST_MAKERS = frozenset({"PageRequest", "evolve", "with_position", "first_request"})
"""What forms a page request: the class itself, `attrs.evolve` (a request changed is a request
made) and the helpers of `_read._positions` that set a position or a first page."""
REQUEST_MAKING_MODULES = (f"{PAGING}._read._positions",)
"""Modules whose business is forming requests."""


def request_making_in_walk(sources: Mapping[str, tuple[str, bool]]) -> list[str]:
    """Where a module of `_walk` forms a page request, as `module:line: what`: a call of
    `REQUEST_MAKERS` (by name or attribute) or an import of them or of `REQUEST_MAKING_MODULES`.
    The walk follows the requests its paginator forms; naming `PageRequest` in a type is fine."""
    found: list[str] = []
    for name, (source, is_package) in sources.items():
        if not _within(name, WALK):
            continue
        tree = ast.parse(source)
        for node in ast.walk(tree):
            if isinstance(node, ast.Call):
                called = node.func
                label = (
                    called.id
                    if isinstance(called, ast.Name)
                    else called.attr
                    if isinstance(called, ast.Attribute)
                    else None
                )
                if label in REQUEST_MAKERS:
                    found.append(f"{name}:{node.lineno}: calls {label}")
            elif isinstance(node, ast.ImportFrom):
                named = {alias.name for alias in node.names} & (REQUEST_MAKERS - {"PageRequest"})
                found += [f"{name}:{node.lineno}: imports {each}" for each in sorted(named)]
        for target in set(imports_of(name, source, is_package=is_package)):
            if any(_within(target, module) for module in REQUEST_MAKING_MODULES):
                found.append(f"{name}: imports {target}")
    return sorted(set(found))


def test_the_walk_forms_no_request() -> None:
    """The page loop follows the requests its paginator forms (the offset proof's included) and
    forms none itself: one authority for the next page."""
    assert request_making_in_walk(package_sources()) == []


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("x = PageRequest(params=())\n", ["calls PageRequest"]),
        ("import attrs\ndef f(r):\n    return attrs.evolve(r, probe=None)\n", ["calls evolve"]),
        ("from attrs import evolve\n", ["imports evolve"]),
        (
            "from .._read._positions import with_position\n",
            [
                "imports remedy_async._paging._read._positions",
                "imports remedy_async._paging._read._positions.with_position",
                "imports with_position",
            ],
        ),
        ("from .._protocol import PageRequest\ndef f(r: PageRequest) -> None: ...\n", []),
    ],
)
def test_a_request_formed_in_the_walk_is_caught(source: str, expected: list[str]) -> None:
    """A request built, changed or positioned in `_walk` is named; naming its type is not."""
    name = f"{WALK}._planted"
    found = request_making_in_walk({**package_sources(), name: (source, False)})
    planted = [line.split(": ", 1)[1] for line in found if line.startswith(name)]
    assert sorted(planted) == sorted(expected)


SOFT_CEILING = 1_000
"""Lines a module may reach. A module is cut by the concept it is named for, not by a count:
this only catches one that has grown into several concepts."""


def test_no_module_is_past_the_soft_ceiling() -> None:
    """Modules hold one concept each, and none has grown past 1,000 lines."""
    long = {
        module_name(path): count
        for path in ROOT.rglob("*.py")
        if (count := len(path.read_text(encoding="utf-8").splitlines())) > SOFT_CEILING
    }
    assert long == {}


# ---------------------------------------------------------------------------------------------
# no import cycles, counting the imports that run only on use


def module_edges(sources: Mapping[str, tuple[str, bool]]) -> dict[str, set[str]]:
    """Which of the package's modules each module imports, lazy and `TYPE_CHECKING` imports
    included. `from pkg import name` counts as importing `pkg.name` when that is a module and
    `pkg` (its `__init__`) otherwise; a name in a module (`pkg.mod.Class`) counts as `pkg.mod`."""
    edges: dict[str, set[str]] = {}
    for name, (source, is_package) in sources.items():
        package = name if is_package else name.rpartition(".")[0]
        found: set[str] = set()
        for node, _ in _import_nodes(ast.parse(source).body):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            else:
                base = node.module or ""
                if node.level:
                    parts = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                    base = ".".join([*parts, *filter(None, [base])])
                targets = [
                    f"{base}.{alias.name}" if f"{base}.{alias.name}" in sources else base
                    for alias in node.names
                ]
            for target in targets:
                module = target
                while module and module not in sources:
                    module = module.rpartition(".")[0]
                if module and module != name:
                    found.add(module)
        edges[name] = found
    return edges


def import_cycles(sources: Mapping[str, tuple[str, bool]]) -> list[list[str]]:
    """Every set of modules that import each other, however indirectly (strongly connected
    components of more than one module), each sorted, shortest names first."""
    edges = module_edges(sources)
    order: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []

    def visit(start: str) -> None:
        # Tarjan's algorithm, iterative so that a deep chain of imports cannot overflow
        work = [(start, iter(sorted(edges[start])))]
        order[start] = low[start] = len(order)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in order:
                    order[child] = low[child] = len(order)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], order[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == order[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    cycles.append(sorted(component))

    for name in sorted(edges):
        if name not in order:
            visit(name)
    return sorted(cycles)


def test_no_modules_import_each_other() -> None:
    """The package's imports form no cycle, not even through imports inside functions or under
    `if TYPE_CHECKING:`: a lazy import hides a cycle from the interpreter, not from a reader."""
    assert import_cycles(package_sources()) == []


@pytest.mark.parametrize(
    ("planted", "expected"),
    [
        (
            {
                "_wire._planted_a": "from . import _planted_b\n",
                "_wire._planted_b": "def late():\n    from ._planted_a import X\n",
            },
            [["_wire._planted_a", "_wire._planted_b"]],
        ),
        (
            {
                "_wire._planted_a": "from ._planted_b import Y\n",
                "_wire._planted_b": "if TYPE_CHECKING:\n    from ._planted_a import X\n",
            },
            [["_wire._planted_a", "_wire._planted_b"]],
        ),
        (
            {"_wire._planted_a": "def late():\n    from remedy_async import RemedyClient\n"},
            [],
        ),
    ],
)
def test_a_planted_cycle_is_caught(planted: Mapping[str, str], expected: list[list[str]]) -> None:
    """Two modules importing each other are named, however the import is delayed; a module that
    imports the package without being imported by it is no cycle."""
    names = {f"{PACKAGE}.{name}": (source, False) for name, source in planted.items()}
    cycles = import_cycles({**package_sources(), **names})
    assert [c for c in cycles if names.keys() & set(c)] == [
        [f"{PACKAGE}.{name}" for name in c] for c in expected
    ]


def test_a_cycle_through_the_package_is_caught() -> None:
    """A low module that imports, lazily, a module that reaches it closes a cycle through both."""
    sources = package_sources()
    low = f"{PACKAGE}._errors"
    sources[low] = (sources[low][0] + "\n\ndef late():\n    from ._client import X\n", False)
    assert not any(low in c for c in import_cycles(package_sources()))
    assert any({low, f"{PACKAGE}._client"} <= set(c) for c in import_cycles(sources))


# ---------------------------------------------------------------------------------------------
# tests/ mirrors the packages

TOP_LEVEL_TESTS = frozenset(
    {"test_layout.py", "test_docs.py", "test_readme.py", "test_exports.py", "test_reference.py"}
)
"""What tests the package as a whole: its layout, its documentation, its README, its public
names. Every other test file sits in the folder of what it tests."""

NOT_A_PACKAGE: Mapping[str, str] = {
    "client": "the top-level modules a user meets (_client, _collection, _bulk, _download, ...)",
    "contract": "the OpenAPI contract (openapi.yaml), judged by outside tools",
    "typing": "what users' type checkers infer from the public API (mypy and pyright)",
}
"""Test folders that mirror something other than a package, and what."""


def package_folders(root: Path) -> dict[str, str]:
    """Each package of the package by the name of its test folder: `_paging` by `paging`."""
    return {
        path.name.removeprefix("_"): path.name
        for path in sorted(root.iterdir())
        if (path / "__init__.py").is_file()
    }


def mirror_problems(root: Path, tests: Path) -> list[str]:
    """Where `tests/` does not mirror the packages of `root`."""
    packages = package_folders(root)
    folders = {
        path.name for path in tests.iterdir() if path.is_dir() and any(path.rglob("test_*.py"))
    }
    found = [
        f"tests/{folder}/ mirrors no package of {root.name}"
        for folder in sorted(folders - packages.keys() - NOT_A_PACKAGE.keys())
    ]
    found += [
        f"{root.name}/{packages[folder]}/ has no tests/{folder}/"
        for folder in sorted(packages.keys() - folders)
    ]
    found += [
        f"tests/{folder}/ has no __init__.py"
        for folder in sorted(folders)
        if not (tests / folder / "__init__.py").is_file()
    ]
    found += [
        f"tests/{path.name} belongs in the folder of what it tests"
        for path in sorted(tests.glob("test_*.py"))
        if path.name not in TOP_LEVEL_TESTS
    ]
    return found


def test_the_tests_mirror_the_packages() -> None:
    """Every test folder mirrors a package (or `NOT_A_PACKAGE`), every package has its folder,
    and only tests of the whole package sit at the top of `tests/`."""
    assert mirror_problems(ROOT, TESTS) == []
    assert {"paging", "sending", "wire", "changes", "columnar", "cli", "simulator"} <= set(
        package_folders(ROOT)
    )


def test_a_tree_that_does_not_mirror_is_caught(tmp_path: Path) -> None:
    """A folder without a package, a package without a folder and a file at the top are named."""
    root, tests = tmp_path / "pkg", tmp_path / "tests"
    for path in ("pkg/_alpha", "pkg/beta", "pkg/_gamma", "tests/alpha", "tests/client"):
        (tmp_path / path).mkdir(parents=True)
        (tmp_path / path / "__init__.py").touch()
    (tmp_path / "tests" / "delta").mkdir()
    for path in ("alpha/test_a.py", "client/test_c.py", "delta/test_d.py", "test_flat.py"):
        (tests / path).touch()
    (tests / "test_layout.py").touch()
    assert mirror_problems(root, tests) == [
        "tests/delta/ mirrors no package of pkg",
        "pkg/beta/ has no tests/beta/",
        "pkg/_gamma/ has no tests/gamma/",
        "tests/delta/ has no __init__.py",
        "tests/test_flat.py belongs in the folder of what it tests",
    ]
