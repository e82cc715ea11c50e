"""Code generic over `ResourceCollection[T]` checks, and keeps its `T`: a function written once
for every collection gets `Pager[T]`, `Page[T]` and `ChangeFeed[T]`, and a collection typed
`ResourceCollection[Any]` gets `Pager[Any]`."""

from __future__ import annotations

from pathlib import Path
from typing import Any, TypeVar, assert_type

import pytest

from remedy_async import (
    ChangeFeed,
    Endpoint,
    Page,
    Pager,
    RemediationTarget,
    RemedyClient,
    ResourceCollection,
    Scope,
    VulnerabilityFinding,
)

T = TypeVar("T")


def export(collection: ResourceCollection[T]) -> Pager[T]:
    """A list written once for every collection."""
    return collection.list(page_size=5, max_items=8)


def export_filtered(collection: ResourceCollection[T], **filters: Any) -> Pager[T]:
    """Filters in generic code go as a `dict[str, Any]`: which filters a collection takes is
    known only once it is, so they are checked when called."""
    return collection.list(page_size=5, **filters)


async def first_page(collection: ResourceCollection[T]) -> Page[T]:
    """The first page of any collection."""
    return await collection.list(page_size=3)


def follow(collection: ResourceCollection[T], state: Path) -> ChangeFeed[T]:
    """A change feed written once for every collection."""
    return collection.changes(state, page_size=5)


def watch(collection: ResourceCollection[T], state: Path) -> ChangeFeed[T]:
    """A watch written once for every collection."""
    return collection.watch(state, interval=60.0)


async def test_generic_code_keeps_each_collections_record_type(client: RemedyClient) -> None:
    """A generic export of each collection is a Pager of that collection's records."""
    endpoints = assert_type(export(client.endpoints), Pager[Endpoint])
    targets = assert_type(export(client.remediation_targets), Pager[RemediationTarget])
    scopes = assert_type(export(client.scopes), Pager[Scope])
    findings = assert_type(export(client.vulnerability_findings), Pager[VulnerabilityFinding])
    assert all(isinstance(record, Endpoint) for record in await endpoints.collect())
    assert all(isinstance(record, RemediationTarget) for record in await targets.collect())
    assert all(isinstance(record, Scope) for record in await scopes.collect())
    assert len(await findings.collect()) == 8


async def test_generic_code_passes_filters_checked_at_run_time(client: RemedyClient) -> None:
    """Filters passed through generic code reach the list, and a misspelt one is still a
    TypeError before any request."""
    macs = assert_type(export_filtered(client.endpoints, os_family="macos"), Pager[Endpoint])
    assert {endpoint.operating_system.family async for endpoint in macs} <= {"macos"}
    with pytest.raises(TypeError, match="did you mean 'os_family'"):
        export_filtered(client.endpoints, os_famly="macos")


async def test_generic_code_awaits_a_page_of_its_records(client: RemedyClient) -> None:
    """Awaiting a generic list gives a Page of the collection's records."""
    page = assert_type(await first_page(client.scopes), Page[Scope])
    assert len(page.items) == 3
    assert all(isinstance(scope, Scope) for scope in page.items)


async def test_generic_change_feeds_keep_the_record_type(
    client: RemedyClient, size: int, tmp_path: Path
) -> None:
    """changes() and watch() in generic code are ChangeFeeds of the collection's records."""
    feed = assert_type(follow(client.endpoints, tmp_path / "state.sqlite"), ChangeFeed[Endpoint])
    changes = [change async for change in feed]
    assert len(changes) == size
    assert all(isinstance(change.record, Endpoint) for change in changes)
    watched = watch(client.scopes, tmp_path / "scopes.sqlite")
    assert_type(watched, ChangeFeed[Scope])


async def test_a_collection_of_any_lists_any(client: RemedyClient, tmp_path: Path) -> None:
    """A collection typed ResourceCollection[Any] (chosen at run time) lists Pager[Any], awaits
    Page[Any] and follows ChangeFeed[Any]: no collection's record type is guessed for it."""
    collection: ResourceCollection[Any] = getattr(client, "scopes")  # noqa: B009 - chosen by name
    pager = assert_type(collection.list(page_size=4), Pager[Any])
    scopes = [scope.id async for scope in client.scopes.list()]
    assert [scope.id for scope in await pager.collect()] == scopes
    page = assert_type(await collection.list(page_size=4), Page[Any])
    assert len(page.items) == 4
    assert_type(collection.changes(tmp_path / "state.sqlite"), ChangeFeed[Any])
    assert_type(collection.watch(tmp_path / "watched.sqlite"), ChangeFeed[Any])


async def test_an_endpoint_filter_on_a_collection_of_any_lists_endpoints(
    client: RemedyClient,
) -> None:
    """Only the endpoints take `os_family`, so a collection of Any given it lists endpoints (any
    other collection raises TypeError when called)."""
    collection: ResourceCollection[Any] = client.endpoints
    assert_type(collection.list(os_family="linux"), Pager[Endpoint])
    scopes: ResourceCollection[Any] = client.scopes
    with pytest.raises(TypeError, match=r"scopes\.list\(\) got an unknown filter 'os_family'"):
        scopes.list(os_family="linux")
