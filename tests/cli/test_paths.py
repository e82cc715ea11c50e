"""Dotted paths of `--where` and `--fields`: checked against the contract level by level, with
`extra.NAME` marking a field outside it."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from remedy_async import RESOURCES, Resource
from remedy_async.cli._errors import UsageError
from remedy_async.cli._fields import check_path, value_at
from remedy_async.cli._filters import resource_named
from remedy_async.cli._where import check_conditions, parse_where

NAMES = st.from_regex(r"[A-Za-z_][A-Za-z0-9_-]{0,20}", fullmatch=True).filter(
    lambda name: name != "extra"
)
"""Field names as `--where` reads them, but the mark itself."""


@pytest.mark.parametrize(
    ("resource", "path"),
    [
        ("endpoints", "os.family"),
        ("vulnerability-findings", "package.name"),
        ("scopes", "selector.endpointIds"),
        ("endpoints", "extra.labels.owner"),
        ("endpoints", "os.extra.kernel"),
    ],
)
def test_a_path_the_contract_has_or_a_marked_one_is_accepted(resource: str, path: str) -> None:
    """Nested contract fields pass level by level; after an `extra` mark nothing is checked."""
    check_path(resource_named(resource), path, f"--where {path}=x")


@pytest.mark.parametrize(
    ("resource", "path", "message"),
    [
        ("endpoints", "os.famly", "endpoints records' os has no field 'famly' (did you mean "
                                  "'family'?); the fields are family, name, version"),
        ("vulnerability-findings", "package.nme", "records' package has no field 'nme' (did you"
                                                  " mean 'name'?)"),
        ("vulnerability-findings", "cvssScore.band", "records' cvssScore is a value, without "
                                                     "fields"),
        ("vulnerability-findings", "sevrity", "vulnerability-findings records have no field "
                                              "'sevrity' (did you mean 'severity'?)"),
        ("endpoints", "extra", "write extra.NAME for a field outside the contract"),
    ],
    ids=["nested-typo", "nested-typo-2", "below-a-value", "top-typo", "bare-mark"],
)  # fmt: skip
def test_a_path_the_contract_lacks_is_refused_per_level(
    resource: str, path: str, message: str
) -> None:
    """Each level is checked against the model there, naming the closest fields."""
    with pytest.raises(UsageError, match=re.escape(message)):
        check_path(resource_named(resource), path, f"--where {path}=x")


@given(resource=st.sampled_from(RESOURCES), name=NAMES)
def test_any_name_outside_the_contract_is_refused_unless_marked(
    resource: Resource[Any], name: str
) -> None:
    """A top-level name the records lack is a usage error that says how to mark it; marked as
    extra.NAME it is accepted and reads the record's own NAME."""
    if name in resource.wire_fields:
        check_path(resource, name, "--where")
        return
    with pytest.raises(UsageError, match=re.escape(f"outside the contract as extra.{name}")):
        check_path(resource, name, "--where")
    check_path(resource, f"extra.{name}", "--where")
    assert value_at({name: 7}, f"extra.{name}") == 7


def test_the_docs_where_examples_name_real_fields() -> None:
    """Each condition the command line's page shows for --where names a field of some collection."""
    page = (Path(__file__).parents[2] / "docs" / "cli.md").read_text(encoding="utf-8")
    paragraph = next(part for part in page.split("\n\n") if "`--where CONDITION`" in part)
    conditions = [parse_where(text) for text in re.findall(r"`'([^'`]+)'`", paragraph)]
    assert len(conditions) >= 3
    for condition in conditions:
        fits = []
        for resource in RESOURCES:
            try:
                check_conditions(resource, [condition])
            except UsageError:
                continue
            fits.append(resource.segment)
        assert fits, condition.text
