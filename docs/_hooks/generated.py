"""MkDocs hook: the parts of the documentation written by the code itself, at build time.

A page asks for a generated part with a marker line; the hook replaces it, so the page can never
drift from the code:

- `<!-- generated: cli -->`: the `--help` of `remedy-async` and of every subcommand, from the
  parser the command line runs, whole (`remedy_async.cli._parser.whole_parser()`), at a fixed width;
- `<!-- generated: conventions -->`: the table of paging conventions, from
  `remedy_async.CONVENTIONS` (the rows the client detects and the simulator serves);
- `<!-- generated: operations -->`: the operations of the contract, from the OpenAPI document
  the package ships (`remedy_async/openapi.yaml`), with each list's filters.

Every problem is logged as a warning, which `mkdocs build --strict` turns into a failed build.
(The reference pages are checked by `reference.py`.)
"""

from __future__ import annotations

import argparse
import logging
import os
import re
import sys
from collections.abc import Iterator
from importlib import resources
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[2]
if sys.path[:1] != [str(ROOT)]:  # document this checkout, not another install of the package
    sys.path.insert(0, str(ROOT))

import remedy_async  # noqa: E402 - from the checkout, as above
from remedy_async.cli._parser import whole_parser  # noqa: E402

log = logging.getLogger("mkdocs.hooks.remedy_async")

HELP_WIDTH = 90
"""Columns of the rendered `--help` (argparse reads them from COLUMNS), so builds agree."""
MARKER = re.compile(r"^<!-- generated: (?P<name>[\w-]+) -->$", re.M)


def subcommands(parser: argparse.ArgumentParser) -> Iterator[argparse.ArgumentParser]:
    """Yield `parser` and every parser below it, depth first, each once (aliases share one)."""
    yield parser
    seen: set[int] = set()
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for child in action.choices.values():
                if id(child) not in seen:
                    seen.add(id(child))
                    yield from subcommands(child)


def help_text(parser: argparse.ArgumentParser, width: int = HELP_WIDTH) -> str:
    """Return the parser's `--help` as a terminal `width` columns wide shows it, uncoloured."""
    fixed = {"COLUMNS": str(width), "NO_COLOR": "1", "PYTHON_COLORS": "0"}
    before = {name: os.environ.get(name) for name in fixed}
    os.environ.update(fixed)
    try:
        return parser.format_help()
    finally:
        for name, value in before.items():
            if value is None:
                del os.environ[name]
            else:
                os.environ[name] = value


def cli_reference() -> str:
    """One section per command: a heading with its name, then its help in a text block."""
    sections = []
    for parser in subcommands(whole_parser()):
        help_ = help_text(parser).rstrip()
        if "```" in help_:  # would close the fence early
            log.warning("the help of %r contains a code fence", parser.prog)
        sections.append(f"## `{parser.prog}`\n\n```text\n{help_}\n```\n")
    return "\n".join(sections)


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def _code(text: str) -> str:
    return f"`` {text} ``" if "`" in text else f"`{text}`"


def conventions_table() -> str:
    """The named presets of paging conventions (the names a composed convention takes)."""
    rows = [
        "| convention | what it looks like | example page |",
        "|---|---|---|",
        *(
            f"| `{c.name}` | {_cell(c.summary)} | {_cell(_code(c.example))} |"
            for c in remedy_async.CONVENTIONS.values()
        ),
    ]
    return "\n".join(rows) + "\n"


def operations_table() -> str:
    """Each operation of the shipped contract: method, path, summary, its filters, and whether
    the service publishes it (with its reference page) or the library assumes it."""
    spec = yaml.safe_load((resources.files("remedy_async") / "openapi.yaml").read_text("utf-8"))
    rows = [
        "| operation | request | filters (query parameters) | contract |",
        "|---|---|---|---|",
    ]
    for path, operations in spec["paths"].items():
        for method, operation in operations.items():
            if not isinstance(operation, dict) or "operationId" not in operation:
                continue
            filters = [
                f"`{parameter['name']}`"
                for parameter in operation.get("parameters", [])
                if parameter.get("in") == "query"  # a $ref is a paging parameter, not a filter
            ]
            rows.append(
                f"| {_cell(operation.get('summary', operation['operationId']))} "
                f"| `{method.upper()} {path}` | {', '.join(filters)} "
                f"| {_contract(operation)} |"
            )
    return "\n".join(rows) + "\n"


def _contract(operation: dict[str, Any]) -> str:
    """`published` with a link to the operation's reference page, or `assumed`."""
    marker = str(operation.get("x-contract", "assumed"))
    reference = operation.get("x-reference")
    return f"[{marker}]({reference})" if marker == "published" and reference else marker


GENERATORS = {
    "cli": cli_reference,
    "conventions": conventions_table,
    "operations": operations_table,
}


def on_page_markdown(markdown: str, *, page: Any, **_: Any) -> str:
    """Replace each generated-part marker of a page by the part."""

    def render(match: re.Match[str]) -> str:
        generate = GENERATORS.get(match["name"])
        if generate is None:
            log.warning("%s: unknown generated part %r", page.file.src_uri, match["name"])
            return match[0]
        return generate()

    return MARKER.sub(render, markdown)
