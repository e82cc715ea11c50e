"""Every code block of the documentation site (docs/**/*.md) runs, and the site builds strictly.

`python` blocks run as a reader pastes them (tests/pasted.py): each alone, in a file of its own
and a fresh interpreter, with warnings as errors and no name given to it. Its imports, its
client and its event loop (`asyncio.run`) are its own; a client made without a URL finds the
embedded simulator the docs tell a reader to start, through `REMEDY_BASE_URL`.

Blocks whose first line names a file (`# conftest.py`, `# test_sync.py`, `# pytest.ini`) are a
pytest project: each page's are written to a directory, where pytest must pass with warnings as
errors. `sh` blocks: every `remedy-async` command is parsed by the command line's own parser
(not run). `toml` blocks load as client configuration files. `text` blocks are output.
"""

from __future__ import annotations

import ast
import importlib.util
import inspect
import os
import pydoc
import re
import shlex
import subprocess
import sys
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

import remedy_async
from remedy_async import RemedyClient
from remedy_async.cli._parser import build_parser

from .pasted import run_as_pasted

ROOT = Path(__file__).parents[1]
DOCS = ROOT / "docs"
FENCE = re.compile(
    r"^(?P<indent>[ \t]*)```(?P<lang>[\w-]*)[^\n]*\n(?P<body>.*?)^(?P=indent)```[ \t]*$",
    re.S | re.M,
)
FENCE_LINE = re.compile(r"^[ \t]*```", re.M)
FILE_NAME = re.compile(r"# (?P<name>[\w.-]+\.(?:py|ini|toml|cfg))\n")
CHECKED_LANGUAGES = {"python", "sh", "toml", "ini", "text"}
PLUGINS = ("-p", "pytest_asyncio.plugin")
SHELL_OPERATORS = {"&&", "||", ";", "|"}
REDIRECTIONS = {"<", ">", ">>", "2>", "2>&1"}


@dataclass(frozen=True)
class Block:
    """One fenced code block of a page."""

    page: str
    line: int
    lang: str
    source: str

    @property
    def file_name(self) -> str | None:
        """The file this block is, when its first line names one (`# conftest.py`)."""
        match = FILE_NAME.match(self.source)
        return match["name"] if match else None

    def __str__(self) -> str:
        return f"{self.page}:{self.line}"


def blocks_of(page: Path) -> Iterator[Block]:
    """Yield the page's fenced code blocks, dedented (fences may sit in lists or admonitions)."""
    text = page.read_text(encoding="utf-8")
    for match in FENCE.finditer(text):
        indent = match["indent"]
        body = "".join(line.removeprefix(indent) for line in match["body"].splitlines(True))
        line = text.count("\n", 0, match.start()) + 1
        yield Block(page.relative_to(DOCS).as_posix(), line, match["lang"], body)


PAGES = sorted(DOCS.rglob("*.md"))
BLOCKS = [block for page in PAGES for block in blocks_of(page)]
SNIPPETS = [b for b in BLOCKS if b.lang == "python" and b.file_name is None]
PROJECTS = sorted({b.page for b in BLOCKS if b.file_name is not None})


def test_the_docs_have_snippets() -> None:
    """The collection sees the pages' blocks (a broken pattern would test nothing)."""
    assert len(PAGES) >= 8
    assert len(SNIPPETS) >= 10
    assert PROJECTS


# What the library assumed before the service's reference was found (issue 31): names and
# fields the published contract has not got, and the placeholder service.
INVENTED = re.compile(
    r"\b(EndpointStatus|FindingStatus|RemediationAction|RemediationStatus|ScopeSelector"
    r"|display_name|displayName|last_seen_at|lastSeenAt|enrolled_at|enrolledAt)\b"
    r"|api\.example\.com|(?<=\w)(?<!extra)\.severity\b"
)


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.relative_to(DOCS).as_posix())
def test_no_page_shows_the_invented_contract(page: Path) -> None:
    """No page names a removed model, enum or field, reads a finding's unpublished severity as
    a typed attribute (it is in `.extra`), or talks to a placeholder service."""
    text = page.read_text(encoding="utf-8")
    found = [
        f"line {text.count(chr(10), 0, match.start()) + 1}: {match[0]}"
        for match in INVENTED.finditer(text)
    ]
    assert found == []


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.relative_to(DOCS).as_posix())
def test_every_fence_is_collected(page: Path) -> None:
    """Each fence line opens or closes a collected block: none is skipped by a malformed fence."""
    fences = len(FENCE_LINE.findall(page.read_text(encoding="utf-8")))
    assert fences == 2 * len(list(blocks_of(page)))


@pytest.mark.parametrize("block", BLOCKS, ids=str)
def test_every_block_is_of_a_checked_language(block: Block) -> None:
    """A block of another language would go unchecked: add a check here first."""
    assert block.lang in CHECKED_LANGUAGES
    assert block.lang != "ini" or block.file_name is not None


@pytest.mark.parametrize("block", SNIPPETS, ids=str)
async def test_snippet_runs_as_pasted(block: Block, tmp_path: Path) -> None:
    """The block, alone in a file and a fresh interpreter, runs to its end with warnings as
    errors, against the simulator the docs tell a reader to start (REMEDY_BASE_URL)."""
    await run_as_pasted(block.source, tmp_path, f"docs/{block.page}:{block.line}")


@pytest.mark.parametrize("block", SNIPPETS, ids=str)
def test_snippet_is_a_whole_program(block: Block) -> None:
    """A block that talks to a service runs its own event loop (`asyncio.run`): a reader's
    file has no loop to `await` in, and the test gives it none."""
    tree = ast.parse(block.source)  # a top-level `await` is a SyntaxError here
    calls = {ast.unparse(node.func) for node in ast.walk(tree) if isinstance(node, ast.Call)}
    async_code = any(
        isinstance(node, (ast.AsyncFunctionDef, ast.Await, ast.AsyncFor, ast.AsyncWith))
        for node in ast.walk(tree)
    )
    assert not async_code or "asyncio.run" in calls


@pytest.mark.parametrize("page", PROJECTS)
def test_pytest_example_passes(page: str, tmp_path: Path) -> None:
    """The page's files (conftest.py, tests, pytest.ini) pass under pytest, warnings as errors."""
    for block in BLOCKS:
        if block.page == page and block.file_name is not None:
            path = tmp_path / block.file_name
            assert not path.exists(), f"{block}: {block.file_name} is written twice"
            path.write_text(block.source, encoding="utf-8")
    # Only pytest-asyncio (PLUGINS), the plugin the page says is needed: the others installed
    # here take seconds to load and are no part of the example.
    run_python(
        *("-m", "pytest", "-q", "-p", "no:cacheprovider", "-W", "error", *PLUGINS),
        cwd=tmp_path,
        PYTEST_DISABLE_PLUGIN_AUTOLOAD="1",
    )


def run_python(*args: str, cwd: Path, **environ: str) -> None:
    """Run this Python with `args` in `cwd`; fail with its output unless it succeeds."""
    done = subprocess.run(
        [sys.executable, *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        env={**os.environ, **environ},
    )
    assert done.returncode == 0, done.stdout + done.stderr


def shell_commands(source: str) -> Iterator[list[str]]:
    """Yield each simple command of a shell block, without its redirections."""
    for line in source.replace("\\\n", " ").splitlines():
        command: list[str] = []
        for word in [*shlex.split(line, comments=True), ";"]:
            if word not in SHELL_OPERATORS:
                command.append(word)
            elif command:
                yield _without_redirections(command)
                command = []


def _without_redirections(argv: list[str]) -> list[str]:
    kept: list[str] = []
    for before, word in zip([None, *argv], argv, strict=False):
        if word not in REDIRECTIONS and before not in REDIRECTIONS:
            kept.append(word)
    return kept


CLI_COMMANDS = [
    (block, argv)
    for block in BLOCKS
    if block.lang == "sh"
    for argv in shell_commands(block.source)
    if Path(argv[0]).name == "remedy-async"
]


def test_the_docs_have_command_lines() -> None:
    """The shell blocks' commands are found (a broken splitter would check nothing)."""
    assert len(CLI_COMMANDS) >= 10


@pytest.mark.parametrize(
    ("block", "argv"), CLI_COMMANDS, ids=[f"{b}:{' '.join(a[1:3])}" for b, a in CLI_COMMANDS]
)
def test_command_line_parses(block: Block, argv: list[str]) -> None:
    """Every documented `remedy-async` command is accepted by the parser the command runs."""
    build_parser().parse_args(argv[1:])


@pytest.mark.parametrize("block", [b for b in BLOCKS if b.lang == "toml"], ids=str)
async def test_configuration_file_loads(block: Block, tmp_path: Path) -> None:
    """Every TOML block is a valid client configuration (each profile builds a client), or a
    tenants file (`[[tenant]]` tables) that `load_tenants` reads, given the tokens it names."""
    path = tmp_path / "remedy.toml"
    path.write_text(block.source, encoding="utf-8")
    document = tomllib.loads(block.source)
    if "tenant" in document:
        environ = {}
        for table in document["tenant"]:
            if "token_env" in table:
                environ[table["token_env"]] = f"key-of-{table['name']}"
            if "token_file" in table:
                (tmp_path / table["token_file"]).parent.mkdir(parents=True, exist_ok=True)
                (tmp_path / table["token_file"]).write_text(f"key-of-{table['name']}\n")
        tenants = remedy_async.load_tenants(path, environ=environ)
        assert [tenant.name for tenant in tenants] == [t["name"] for t in document["tenant"]]
        return
    for profile in document:
        environ = {"REMEDY_API_TOKEN": "t"}
        async with RemedyClient.from_config(path, profile=profile, environ=environ):
            pass


def _missing_site_packages() -> list[str]:
    modules = ("mkdocs", "material", "mkdocstrings", "mkdocstrings_handlers")
    return [name for name in modules if importlib.util.find_spec(name) is None]


def _hooks() -> Any:
    """The site's MkDocs hook module (docs/_hooks/generated.py), imported from its file."""
    spec = importlib.util.spec_from_file_location("docs_hooks", DOCS / "_hooks" / "generated.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_site_builds_strictly(tmp_path: Path) -> None:
    """`mkdocs build --strict` succeeds offline, and its generated parts are complete."""
    missing = _missing_site_packages()
    if missing:
        pytest.skip(f"the docs extra is not installed (pip install -e '.[docs]'): {missing}")
    site = tmp_path / "site"
    unreachable = "http://127.0.0.1:9"  # a fetch at build time fails instead of going out
    run_python(
        *("-m", "mkdocs", "build", "--strict", "--site-dir", str(site)),
        cwd=ROOT,
        NO_MKDOCS_2_WARNING="1",  # Material's banner about MkDocs 2.0, not a build warning
        HTTP_PROXY=unreachable,
        HTTPS_PROXY=unreachable,
        NO_PROXY="",
    )
    cli = (site / "cli" / "index.html").read_text(encoding="utf-8")
    for parser in _hooks().subcommands(build_parser()):
        assert f"usage: {parser.prog} " in cli
    contract = (site / "contract" / "index.html").read_text(encoding="utf-8")
    for operation in ("listendpoints", "getendpoint", "getscope"):  # published, linked
        assert f'href="https://furl-docs.pages.dev/api/operations/{operation}/"' in contract
    assert contract.count(">assumed<") == 7  # the other lists and gets, health, agent config
    reference = (site / "reference" / "index.html").read_text(encoding="utf-8")
    for name in remedy_async.__all__:
        assert f'id="remedy_async.{name}"' in reference
    for html in site.rglob("*.html"):  # nothing is loaded from elsewhere when a page is read
        text = html.read_text(encoding="utf-8")
        assert not re.search(r"""<(script|link|img)[^>]+(src|href)=["']?(https?:)?//""", text)


def test_the_reference_says_how_to_read_it_without_the_site() -> None:
    """reference.md's source is directives; the command it gives to read a name's reference
    without the site resolves that name and shows its docstring."""
    text = (DOCS / "reference.md").read_text(encoding="utf-8")
    targets = re.findall(r"`python -m pydoc (remedy_async[\w.]+)`", text)
    assert targets
    for target in targets:
        shown = pydoc.render_doc(target, renderer=pydoc.plaintext)
        obj, _ = pydoc.resolve(target)
        assert inspect.getdoc(obj).splitlines()[0] in shown
