"""Dotted paths of `--where` and `--fields`: published fields checked level by level before any
request, typos of them refused, other names (the fields a model keeps in `extra`) checked
against the first records, `extra.NAME` never checked."""

from __future__ import annotations

import difflib
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from remedy_async import RESOURCES, Resource
from remedy_async.cli._errors import UsageError
from remedy_async.cli._fields import TYPO_CUTOFF, SeenCheck, check_path, value_at
from remedy_async.cli._server_filters import resource_named
from remedy_async.cli._where import check_conditions, parse_where

NAMES = st.from_regex(r"[A-Za-z_][A-Za-z0-9_-]{0,20}", fullmatch=True).filter(
    lambda name: name != "extra"
)
"""Field names as `--where` reads them, but the mark itself."""


@pytest.mark.parametrize(
    ("resource", "path", "must_be_seen"),
    [
        ("endpoints", "operating_system.family", False),
        ("scopes", "endpoint_filter.os_families", False),
        ("remediation-targets", "updated_at", False),
        ("endpoints", "extra.labels.owner", False),
        ("endpoints", "operating_system.extra.kernel", False),
        ("vulnerability-findings", "severity", True),
        ("vulnerability-findings", "cve_id", True),
        ("remediation-targets", "package_manager", True),
        ("endpoints", "operating_system.kernel", True),
        ("endpoints", "labels.owner", True),
    ],
)
def test_a_published_path_an_extra_key_or_a_marked_one_is_accepted(
    resource: str, path: str, must_be_seen: bool
) -> None:
    """Published fields pass level by level; after an `extra` mark nothing is checked; a name
    the model does not type (a finding's `severity`) is left for the records to show."""
    assert check_path(resource_named(resource), path, f"--where {path}=x") is must_be_seen


@pytest.mark.parametrize(
    ("resource", "path", "message"),
    [
        ("endpoints", "operating_system.famly", "endpoints records' operating_system has no "
         "published field 'famly' (did you mean 'family'?); the published fields are name, "
         "family, version, vendor, architecture; name a field the service sends beside them "
         "as operating_system.extra.famly"),
        ("scopes", "finding_filter.min_severty", "records' finding_filter has no published "
         "field 'min_severty' (did you mean 'min_severity'?)"),
        ("endpoints", "hostname.domain", "records' hostname is a value, without fields"),
        ("endpoints", "hostnme", "endpoints records have no published field 'hostnme' (did you "
         "mean 'hostname'?)"),
        ("vulnerability-findings", "updatd_at", "have no published field 'updatd_at' (did you "
         "mean 'updated_at'?)"),
        ("endpoints", "extra", "write extra.NAME for a field outside the contract"),
    ],
    ids=["nested-typo", "nested-typo-2", "below-a-value", "top-typo", "extra-typo", "bare-mark"],
)  # fmt: skip
def test_a_typo_of_a_published_field_is_refused_per_level(
    resource: str, path: str, message: str
) -> None:
    """Each level is checked against the model there: a name within a letter or two of a
    published field is refused before any request, naming it."""
    with pytest.raises(UsageError, match=re.escape(message)):
        check_path(resource_named(resource), path, f"--where {path}=x")


@given(resource=st.sampled_from(RESOURCES), name=NAMES)
def test_any_name_is_published_a_typo_or_left_to_the_records(
    resource: Resource[Any], name: str
) -> None:
    """A top-level name is a published field (checked), a typo of one (refused, saying how to
    mark it), or left for the records to show; marked as extra.NAME it is accepted, unchecked,
    and reads the record's own NAME."""
    if name in resource.wire_fields:
        assert check_path(resource, name, "--where") is False
        return
    if difflib.get_close_matches(name, resource.wire_fields, cutoff=TYPO_CUTOFF):
        with pytest.raises(UsageError, match=re.escape(f"as extra.{name}")):
            check_path(resource, name, "--where")
    else:
        assert check_path(resource, name, "--where") is True
    assert check_path(resource, f"extra.{name}", "--where") is False
    assert value_at({name: 7}, f"extra.{name}") == 7
    assert value_at({name: 7}, name) == 7


FINDINGS = resource_named("vulnerability-findings")
RECORDS = [
    {"id": "a", "severity": "high", "cve_id": None},
    {"id": "b", "severity": "low", "cve_id": "CVE-2024-1"},
]


def test_an_extra_key_some_first_record_has_passes_the_check() -> None:
    """A name the model does not type passes once one record of the first batch has it,
    even as null; an empty batch checks nothing yet."""
    seen = SeenCheck(FINDINGS, [("severity", "--fields severity"), ("cve_id", "--where cve_id=x")])
    seen.check([])
    seen.check(RECORDS[:1])
    seen.check([{"id": "c"}])  # checked once: later batches are not


def test_an_extra_key_no_first_record_has_is_a_usage_error_naming_the_keys() -> None:
    """A name none of the first batch's records has stops the command, naming the keys they
    have and the closest, and saying how to name a field only some records carry."""
    seen = SeenCheck(FINDINGS, [("severty", "--where severty=high")])
    message = (
        "--where severty=high: none of the first 2 vulnerability-findings records has a field "
        "'severty' (did you mean 'severity'?); they have id, severity, cve_id; name a field "
        "only some records carry as extra.severty (not checked)"
    )
    with pytest.raises(UsageError, match=re.escape(message)):
        seen.check(RECORDS)


def test_a_nested_extra_key_is_checked_at_its_depth() -> None:
    """`operating_system.kernel` must be a key of some record's operating system."""
    endpoints = resource_named("endpoints")
    seen = SeenCheck(endpoints, [("operating_system.kernel", "--fields operating_system.kernel")])
    records = [{"id": "a", "operating_system": {"name": "macOS", "family": "macos"}}]
    with pytest.raises(
        UsageError, match=r"they have name, family; .* operating_system.extra.kernel"
    ):
        seen.check(records)
    seen = SeenCheck(endpoints, [("operating_system.kernel", "--fields operating_system.kernel")])
    seen.check([{"id": "a", "operating_system": {"kernel": "6.1"}}])


def test_marked_and_published_paths_are_never_checked_against_records() -> None:
    """`extra.NAME` and published fields are not looked for in the records."""
    seen = SeenCheck(FINDINGS, [("extra.risk", "--where extra.risk>1"), ("id", "--fields id")])
    seen.check([{"cve_id": "CVE-2024-1"}])


def test_the_docs_where_examples_name_real_fields() -> None:
    """Each condition the command line's page shows for --where names a published field of some
    collection, or a field its records carry beside them (checked against the records)."""
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
