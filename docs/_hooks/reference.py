"""MkDocs hook: the API reference documents every public name and describes every argument.

The reference pages (`REFERENCE_PAGES`) each document some modules' public names with
mkdocstrings directives (`::: remedy_async.RemedyClient`). Each problem below is logged as an
error, which fails the build (`strict: true` in mkdocs.yml), even with `-q`, which would drop
a warning:

- a public name is not documented on its page, is documented twice, or a directive names
  something that is not public. The public names are each module's `__all__`, and for the
  pytest plugin (`remedy_async.testing`) its fixtures too; the page must also mention the
  plugin's marker;
- a documented object has no docstring, or a public member of a documented class (method,
  property, attribute; not an enum's members) has none;
- an argument is not described: every parameter of a documented function, of a class's
  constructor and of a class's public methods needs an entry under `Args:` in its docstring
  (a constructor's in the class docstring, or in its `__init__`'s, inherited or not), or, when
  it is kept as an attribute of the same name (an attrs field), that attribute's docstring.
  A fixture's arguments are other fixtures, which pytest passes: they are not asked for;
- a directive hides a class's constructor (`merge_init_into_class: false`), and so its
  arguments, but for the classes only the library makes (`LIBRARY_MADE`), which must.

Docstrings are read as the reference renders them, by griffe from the source (Google style);
the objects themselves are imported for what only running them tells: the signatures attrs
writes, `__all__`, which classes are enums.
"""

from __future__ import annotations

import enum
import functools
import importlib
import inspect
import logging
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import attrs
import griffe

ROOT = Path(__file__).resolve().parents[2]
if sys.path[:1] != [str(ROOT)]:  # document this checkout, not another install of the package
    sys.path.insert(0, str(ROOT))

log = logging.getLogger("mkdocs.hooks.reference")

PACKAGE = "remedy_async"
REFERENCE_PAGES = {
    "reference.md": ("remedy_async",),
    "reference-testing.md": ("remedy_async.simulator", "remedy_async.testing"),
}
"""Each reference page and the modules whose public names it documents."""
MENTIONS = {"reference-testing.md": ("@pytest.mark.remedy_simulator",)}
"""What a page must name that is no Python object (the plugin's marker)."""
DIRECTIVE = re.compile(r"^::: (?P<path>[\w.]+)$", re.M)
LIBRARY_MADE = frozenset(
    {
        "remedy_async.ChangeFeed",
        "remedy_async.Pager",
        "remedy_async.ResourceCollection",
        "remedy_async.TenantPager",
    }
)
"""Classes only the library makes (a list's pager, a change feed, a client's collections, a list
over many tenants): their
constructors take the library's internals, so the reference hides them (`merge_init_into_class:
false` on their directive) and their arguments are not checked. No other class may hide its."""
HIDE_CONSTRUCTOR = "merge_init_into_class: false"
FIXTURE_DECORATORS = frozenset({"pytest.fixture", "pytest_asyncio.fixture"})
DESCRIBING = frozenset(
    {
        griffe.DocstringSectionKind.parameters,
        griffe.DocstringSectionKind.other_parameters,
        griffe.DocstringSectionKind.attributes,
    }
)
"""Docstring sections whose entries describe arguments (`Args:`, `Other Args:`, `Attributes:`)."""


@functools.cache
def package() -> griffe.Module:
    """The package as griffe reads it from this checkout's source, as the reference does."""
    return griffe.load(PACKAGE, search_paths=[str(ROOT)], docstring_parser="google")


def is_fixture(doc: griffe.Object | griffe.Alias | None) -> bool:
    """Whether the source decorates a function with `@pytest.fixture` (or pytest-asyncio's)."""
    return isinstance(doc, griffe.Function) and any(
        decorator.callable_path in FIXTURE_DECORATORS for decorator in doc.decorators
    )


def lookup(path: str) -> Any:
    """The griffe object of a dotted path in the package (`remedy_async.simulator.Simulator`)."""
    inside = path.removeprefix(PACKAGE).lstrip(".")
    return package()[inside] if inside else package()


def public_names(module_name: str) -> list[str]:
    """A module's public names: its `__all__`, and the fixtures it defines."""
    module = lookup(module_name)
    exported = importlib.import_module(module_name).__all__
    return [*exported, *(name for name, member in module.members.items() if is_fixture(member))]


def _text(doc: griffe.Object | griffe.Alias | None) -> str:
    docstring = None if doc is None else doc.docstring
    return "" if docstring is None else docstring.value.strip()


def described(doc: griffe.Object | griffe.Alias | None) -> set[str]:
    """The names a docstring's `Args:` (`Other Args:`, `Attributes:`) sections describe."""
    if doc is None or doc.docstring is None:
        return set()
    return {
        item.name.lstrip("*")
        for section in doc.docstring.parse("google", warnings=False)
        if section.kind in DESCRIBING
        for item in section.value
    }


def missing_arguments(target: Any, path: str, known: set[str]) -> Iterator[str]:
    """Yield a problem for each parameter of `target` not among the `known` described ones."""
    try:
        parameters = inspect.signature(target).parameters
    except (TypeError, ValueError):  # a builtin's: nothing of ours to describe
        return
    for name in parameters:
        if name not in {"self", "cls"} and name not in known:
            yield f"{path}: argument {name!r} is not described (add it to the docstring's Args:)"


def _init_is_ours(cls: type) -> bool:
    """Whether the constructor's arguments are the class's own (not object's, Exception's, a
    Protocol's or an enum's), so the reference must describe them."""
    if attrs.has(cls):
        return True
    owner = next(klass for klass in cls.__mro__ if "__init__" in vars(klass))
    init = vars(owner)["__init__"]
    module = getattr(init, "__module__", None) or ""  # a Python function of no module is ours
    return inspect.isfunction(init) and module.partition(".")[0] not in sys.stdlib_module_names


def documented_attributes(cls: type, doc: griffe.Class) -> set[str]:
    """Arguments described by the docstring of the attribute that keeps them (attrs fields by
    their alias: `_x` is set by `x`)."""
    found = {
        name for name, member in doc.all_members.items() if member.is_attribute and _text(member)
    }
    if attrs.has(cls):
        found |= {field.alias for field in attrs.fields(cls) if field.name in found}
    return found


def class_problems(cls: type, doc: griffe.Class, path: str) -> Iterator[str]:
    """Yield what is undocumented about a class: members, constructor and method arguments."""
    if not issubclass(cls, enum.Enum):  # an enum's members say what they are: their values
        for name, member in doc.members.items():
            if not name.startswith("_") and not member.is_alias and not _text(member):
                yield f"{path}.{name} has no docstring"
    if path not in LIBRARY_MADE and _init_is_ours(cls):
        known = described(doc) | described(doc.all_members.get("__init__"))
        yield from missing_arguments(cls, path, known | documented_attributes(cls, doc))
    for name, member in vars(cls).items():
        function = getattr(member, "__func__", member)
        if not name.startswith("_") and inspect.isfunction(function):
            method = doc.members.get(name)
            yield from missing_arguments(function, f"{path}.{name}", described(method))


def undocumented(obj: object, doc: griffe.Object | griffe.Alias, path: str) -> Iterator[str]:
    """Yield what the reference would leave out about one public object, `obj` as imported
    and `doc` as griffe reads its source: a missing docstring, an argument not described."""
    if not _text(doc):
        yield f"{path} has no docstring"
    if is_fixture(doc):  # a fixture's arguments are other fixtures, which pytest passes
        return
    target = doc.final_target if isinstance(doc, griffe.Alias) else doc
    if isinstance(obj, type) and isinstance(target, griffe.Class):
        yield from class_problems(obj, target, path)
    elif inspect.isroutine(obj):
        yield from missing_arguments(obj, path, described(target))


def hidden_constructors(markdown: str) -> set[str]:
    """The directives whose options hide the constructor (up to the next blank line)."""
    return {
        match["path"]
        for match in DIRECTIVE.finditer(markdown)
        if HIDE_CONSTRUCTOR in markdown[match.end() :].split("\n\n", 1)[0]
    }


def reference_problems(page: str, markdown: str) -> list[str]:
    """Every problem of a reference page: public names it misses or repeats, names it should
    not document, and what is undocumented about each name it documents."""
    modules = REFERENCE_PAGES[page]
    documented = DIRECTIVE.findall(markdown)
    public = {f"{module}.{name}" for module in modules for name in public_names(module)}
    problems = [f"{path} is public but not documented" for path in sorted(public - {*documented})]
    problems += [f"{path} is documented but not public" for path in sorted({*documented} - public)]
    problems += [
        f"{path} is documented twice"
        for path in sorted({path for path in documented if documented.count(path) > 1})
    ]
    problems += [
        f"{page} does not mention {text}" for text in MENTIONS.get(page, ()) if text not in markdown
    ]
    hidden = hidden_constructors(markdown)
    problems += [
        f"{path} hides its constructor ({HIDE_CONSTRUCTOR}), as only LIBRARY_MADE classes may"
        for path in sorted(hidden - LIBRARY_MADE)
    ]
    problems += [
        f"{path} shows its constructor, the library's internals: add {HIDE_CONSTRUCTOR}"
        for path in sorted((LIBRARY_MADE & public & {*documented}) - hidden)
    ]
    for path in sorted(public & {*documented}):
        module, _, name = path.rpartition(".")
        doc = lookup(path)
        problems += undocumented(getattr(importlib.import_module(module), name), doc, path)
    return problems


def on_page_markdown(markdown: str, *, page: Any, **_: Any) -> str:
    """Check each reference page as it is read; every problem fails a strict build."""
    if page.file.src_uri in REFERENCE_PAGES:
        for problem in reference_problems(page.file.src_uri, markdown):
            log.error("%s: %s", page.file.src_uri, problem)
    return markdown
