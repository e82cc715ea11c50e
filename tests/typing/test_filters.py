"""Each collection's published filters, as type checkers see them on `list()`, `changes()` and
`watch()`: a filter it takes checks, a misspelt one, another collection's, or a value the
filter does not take is an error in both checkers, and a TypeError or ValueError when run."""

from __future__ import annotations

from pathlib import Path
from typing import assert_type

import pytest

from remedy_async import (
    ChangeFeed,
    Endpoint,
    OsFamily,
    Pager,
    RemedyClient,
    Scope,
    VulnerabilityFinding,
)


async def test_published_filters_check_and_filter(client: RemedyClient) -> None:
    """`os_family` (an OsFamily or its value) and `has_agent` check on the endpoints' list."""
    macs = assert_type(client.endpoints.list(os_family=OsFamily.MACOS), Pager[Endpoint])
    linux = client.endpoints.list(os_family="linux", has_agent=True)
    assert_type(linux, Pager[Endpoint])
    assert {endpoint.operating_system.family async for endpoint in macs} <= {OsFamily.MACOS}
    assert all([endpoint.agent_id is not None async for endpoint in linux])


async def test_a_misspelt_filter_is_an_error(client: RemedyClient) -> None:
    """`os_famly` is an error in both checkers, and a TypeError naming `os_family` when run."""
    with pytest.raises(TypeError, match="did you mean 'os_family'"):
        client.endpoints.list(os_famly="macos")  # type: ignore[call-overload]  # pyright: ignore[reportCallIssue]


async def test_another_collections_filter_is_an_error(client: RemedyClient) -> None:
    """The findings' list takes no `os_family` (the service publishes no filter for it)."""
    with pytest.raises(TypeError, match="unknown filter 'os_family'"):
        client.vulnerability_findings.list(os_family="linux")  # type: ignore[call-overload]  # pyright: ignore[reportCallIssue]


async def test_a_value_the_filter_does_not_take_is_an_error(client: RemedyClient) -> None:
    """`os_family="other"` is not a value of the filter (only of a record's family)."""
    with pytest.raises(ValueError, match="has no value 'other'"):
        client.endpoints.list(os_family="other")  # type: ignore[call-overload]  # pyright: ignore[reportArgumentType]


async def test_changes_and_watch_take_the_filters_list_takes(
    client: RemedyClient, tmp_path: Path
) -> None:
    """changes() and watch() check filters as list() does, and are feeds of the collection's
    records."""
    feed = client.endpoints.changes(tmp_path / "macs.sqlite", os_family="macos", has_agent=False)
    assert_type(feed, ChangeFeed[Endpoint])
    watched = client.endpoints.watch(tmp_path / "linux.sqlite", os_family=OsFamily.LINUX)
    assert_type(watched, ChangeFeed[Endpoint])
    assert_type(client.scopes.changes(tmp_path / "scopes.sqlite"), ChangeFeed[Scope])
    findings = client.vulnerability_findings.watch(tmp_path / "findings.sqlite", interval=5.0)
    assert_type(findings, ChangeFeed[VulnerabilityFinding])
    records = [change.record async for change in feed]
    assert {record.operating_system.family for record in records if record} <= {OsFamily.MACOS}


async def test_changes_and_watch_refuse_what_list_refuses(
    client: RemedyClient, tmp_path: Path
) -> None:
    """A misspelt filter, another collection's, or a value the filter does not take: an error
    in both checkers, and a TypeError or ValueError before any request."""
    state = tmp_path / "state.sqlite"
    with pytest.raises(TypeError, match="did you mean 'os_family'"):
        client.endpoints.changes(state, os_famly="macos")  # type: ignore[call-overload]  # pyright: ignore[reportCallIssue]
    with pytest.raises(TypeError, match="unknown filter 'has_agent'"):
        client.scopes.watch(state, has_agent=True)  # type: ignore[call-overload]  # pyright: ignore[reportCallIssue]
    with pytest.raises(ValueError, match="has no value 'windows95'"):
        client.endpoints.watch(state, os_family="windows95")  # type: ignore[call-overload]  # pyright: ignore[reportArgumentType]
    assert not state.exists()
