"""The API reference is complete, and its check (docs/_hooks/reference.py) catches what is not.

The check runs in every docs build (mkdocs.yml lists the hook) and fails it on a public name
missing from the reference pages or an argument no docstring describes. Here it passes on the
package as it is, and fails on synthetic modules that leave one thing out; the griffe
extensions the reference renders with (docs/_hooks/signatures.py) give attrs classes the
constructors attrs makes, and show defaults as values.
"""

from __future__ import annotations

import importlib.util
import inspect
import logging
from pathlib import Path
from types import ModuleType, SimpleNamespace
from typing import Any

import attrs
import pytest

import remedy_async
import remedy_async.simulator
import remedy_async.testing

griffe = pytest.importorskip("griffe", reason="the docs extra is not installed")

HOOKS = Path(__file__).parents[1] / "docs" / "_hooks"
DOCS = HOOKS.parent


def _load(name: str) -> Any:
    """A module of docs/_hooks, imported from its file (as MkDocs and griffe load them)."""
    spec = importlib.util.spec_from_file_location(f"docs_hooks_{name}", HOOKS / f"{name}.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


reference = _load("reference")
signatures = _load("signatures")


def problems_of(source: str, name: str) -> list[str]:
    """What the check finds undocumented about `name`, defined by `source` (run and read)."""
    namespace: dict[str, Any] = {"__name__": "synthetic"}
    exec(compile(source, "<synthetic>", "exec"), namespace)
    with griffe.temporary_visited_module(source, docstring_parser="google") as module:
        return list(reference.undocumented(namespace[name], module[name], f"synthetic.{name}"))


# The package as it is ----------------------------------------------------------------------


@pytest.mark.parametrize("page", sorted(reference.REFERENCE_PAGES))
def test_the_reference_pages_are_complete(page: str) -> None:
    """Each page documents its modules' public names, each once, every argument described."""
    assert reference.reference_problems(page, (DOCS / page).read_text(encoding="utf-8")) == []


def test_the_public_names_are_what_the_modules_export() -> None:
    """The names checked are the `__all__`s, and the plugin's fixtures too."""
    assert reference.public_names("remedy_async") == remedy_async.__all__
    assert reference.public_names("remedy_async.simulator") == remedy_async.simulator.__all__
    testing = reference.public_names("remedy_async.testing")
    assert testing[: len(remedy_async.testing.__all__)] == remedy_async.testing.__all__
    assert {"remedy_client", "remedy_simulator", "remedy_clock"} <= set(testing)
    assert "pytest_configure" not in testing  # a hook pytest calls, not the plugin's API


def test_every_client_argument_is_described() -> None:
    """RemedyClient's every argument has an entry under Args, with more than its name."""
    client = reference.lookup("remedy_async.RemedyClient")
    sections = client.docstring.parse("google", warnings=False)
    entries = {
        item.name: item.description
        for section in sections
        if section.kind is griffe.DocstringSectionKind.parameters
        for item in section.value
    }
    arguments = list(inspect.signature(remedy_async.RemedyClient).parameters)
    assert len(arguments) >= 24
    assert list(entries) == arguments  # in the signature's order, none left out
    assert all(len(description.split()) >= 4 for description in entries.values())


# What the check catches --------------------------------------------------------------------


def test_an_undocumented_constructor_argument_fails() -> None:
    source = '''
class Client:
    """Talks to a service.

    Args:
        url: Where the service is.
    """

    def __init__(self, url: str, follow_redirects: bool = False) -> None:
        self.url = url
        """Where the service is."""
'''
    assert problems_of(source, "Client") == [
        "synthetic.Client: argument 'follow_redirects' is not described "
        "(add it to the docstring's Args:)"
    ]


def test_arguments_described_in_the_init_docstring_or_as_attributes_pass() -> None:
    source = '''
class Client:
    """Talks to a service."""

    def __init__(self, url: str, *, retries: int = 3, **options: object) -> None:
        """
        Args:
            retries: How many times to try.
            **options: Anything else.
        """
        self.url = url
        """Where the service is: an argument kept as a documented attribute is described."""
'''
    assert problems_of(source, "Client") == []


def test_an_undocumented_attrs_field_fails_as_argument_and_member() -> None:
    source = '''
import attrs

@attrs.frozen(kw_only=True)
class Config:
    """How a run goes."""

    size: int = 100
    """How many records."""
    seed: int = 0
    _secret: str = attrs.field(default="", alias="secret")
    """Read as `secret=`: a private field's docstring describes its alias."""
'''
    assert problems_of(source, "Config") == [
        "synthetic.Config.seed has no docstring",
        "synthetic.Config: argument 'seed' is not described (add it to the docstring's Args:)",
    ]


def test_an_undocumented_method_argument_or_member_fails() -> None:
    source = '''
class Collection:
    """Reads records."""

    def get(self, record_id: str, *, options: object = None) -> None:
        """Return a record.

        Args:
            record_id: Its id.
        """

    @property
    def url(self) -> str:
        return ""

    def _private(self, anything: object) -> None:
        pass
'''
    assert problems_of(source, "Collection") == [
        "synthetic.Collection.url has no docstring",
        "synthetic.Collection.get: argument 'options' is not described "
        "(add it to the docstring's Args:)",
    ]


def test_a_function_without_a_docstring_or_an_argument_fails() -> None:
    source = '''
def probe(base_url: str, **settings: object) -> None:
    """Probe a service.

    Args:
        base_url: The service.
    """

def undocumented() -> None:
    pass
'''
    assert problems_of(source, "probe") == [
        "synthetic.probe: argument 'settings' is not described (add it to the docstring's Args:)"
    ]
    assert problems_of(source, "undocumented") == ["synthetic.undocumented has no docstring"]


def test_enums_and_builtin_constructors_are_not_asked_for_arguments() -> None:
    source = '''
import enum

class Kind(enum.StrEnum):
    """What happened."""

    ADDED = "added"

class Failure(Exception):
    """Something failed."""
'''
    assert problems_of(source, "Kind") == []
    assert problems_of(source, "Failure") == []


def test_a_page_missing_repeating_or_inventing_a_name_fails() -> None:
    markdown = (DOCS / "reference.md").read_text(encoding="utf-8")
    markdown = markdown.replace("::: remedy_async.RemedyClient\n", "")
    markdown += "\n::: remedy_async.Endpoint\n\n::: remedy_async._client.RemedyClient\n"
    assert reference.reference_problems("reference.md", markdown) == [
        "remedy_async.RemedyClient is public but not documented",
        "remedy_async._client.RemedyClient is documented but not public",
        "remedy_async.Endpoint is documented twice",
    ]


def test_only_classes_the_library_makes_hide_their_constructors() -> None:
    """A hidden constructor escapes the argument check: only LIBRARY_MADE classes may hide it,
    and they must (their arguments are the library's internals)."""
    hide = "\n    options:\n      merge_init_into_class: false\n"
    markdown = (DOCS / "reference.md").read_text(encoding="utf-8")
    markdown = markdown.replace(f"::: remedy_async.Pager{hide}", "::: remedy_async.Pager\n")
    markdown = markdown.replace(
        "::: remedy_async.RemedyClient\n", f"::: remedy_async.RemedyClient{hide}"
    )
    assert reference.reference_problems("reference.md", markdown) == [
        "remedy_async.RemedyClient hides its constructor (merge_init_into_class: false), as "
        "only LIBRARY_MADE classes may",
        "remedy_async.Pager shows its constructor, the library's internals: add "
        "merge_init_into_class: false",
    ]


def test_the_testing_page_must_document_each_fixture_and_the_marker() -> None:
    markdown = (DOCS / "reference-testing.md").read_text(encoding="utf-8")
    markdown = markdown.replace("::: remedy_async.testing.remedy_clock\n", "")
    markdown = markdown.replace("@pytest.mark.remedy_simulator", "the marker")
    assert reference.reference_problems("reference-testing.md", markdown) == [
        "remedy_async.testing.remedy_clock is public but not documented",
        "reference-testing.md does not mention @pytest.mark.remedy_simulator",
    ]


def test_the_hook_logs_each_problem_as_an_error(caplog: pytest.LogCaptureFixture) -> None:
    """An error, not a warning: `mkdocs build -q` drops warnings, so only errors fail it."""
    markdown = (
        (DOCS / "reference.md").read_text(encoding="utf-8").replace("::: remedy_async.probe\n", "")
    )
    page = SimpleNamespace(file=SimpleNamespace(src_uri="reference.md"))
    with caplog.at_level(logging.ERROR, logger="mkdocs.hooks.reference"):
        assert reference.on_page_markdown(markdown, page=page) == markdown
    assert [(record.levelno, record.getMessage()) for record in caplog.records] == [
        (logging.ERROR, "reference.md: remedy_async.probe is public but not documented")
    ]


# The signatures the reference renders ------------------------------------------------------


@pytest.fixture(scope="module")
def rendered() -> Any:
    """The package as the reference reads it: griffe, with the docs' griffe extensions."""
    extensions = griffe.load_extensions(str(HOOKS / "signatures.py"))
    return griffe.load("remedy_async", search_paths=[str(DOCS.parent)], extensions=extensions)


def _attrs_classes() -> list[tuple[ModuleType, str]]:
    modules = (remedy_async, remedy_async.simulator, remedy_async.testing)
    return [
        (module, name)
        for module in modules
        for name in module.__all__
        if attrs.has(getattr(module, name))
    ]


ATTRS_CLASSES = _attrs_classes()


@pytest.mark.parametrize(
    ("module", "name"), ATTRS_CLASSES, ids=[f"{m.__name__}.{n}" for m, n in ATTRS_CLASSES]
)
def test_an_attrs_class_shows_the_constructor_attrs_made(
    rendered: Any, module: ModuleType, name: str
) -> None:
    """Same arguments, in order, of the same kinds, with a default exactly where one is."""
    cls = getattr(module, name)
    target = rendered[f"{module.__name__}.{name}".removeprefix("remedy_async.")]
    shown = [
        (p.name, p.kind.value == "keyword-only", p.default is not None)
        for p in target.final_target.members["__init__"].parameters
        if p.name != "self"
    ]
    actual = [
        (p.name, p.kind is inspect.Parameter.KEYWORD_ONLY, p.default is not p.empty)
        for p in inspect.signature(cls).parameters.values()
    ]
    assert shown == actual


def test_defaults_naming_private_constants_show_their_values(rendered: Any) -> None:
    init = rendered["RemedyClient"].final_target.members["__init__"]
    defaults = {p.name: str(p.default) for p in init.parameters}
    assert defaults["auth_header"] == "'Authorization'"
    assert defaults["retry"] == "RetryPolicy()"
    assert defaults["max_response_bytes"] == "128 * 1024 * 1024"
    assert defaults["health_path"] == "'/v1/health'"
    paginator = rendered["AutoPaginator"].final_target.members["__init__"]
    assert str(paginator.parameters["conventions"].default) == "CONVENTIONS"  # public: kept
