"""What a checker infers from each collection a user meets: its record type on `get`,
`get_many`, every way of reading a list, and `await collection.list()`, the first page."""

from __future__ import annotations

from typing import Any, assert_type

from remedy_async import (
    Endpoint,
    GetResult,
    Page,
    Pager,
    RemediationTarget,
    RemedyClient,
    ResourceCollection,
    Scope,
    VulnerabilityFinding,
)


def test_the_client_types_its_four_collections(client: RemedyClient) -> None:
    """Each collection is a ResourceCollection of its record model."""
    assert_type(client.endpoints, ResourceCollection[Endpoint])
    assert_type(client.remediation_targets, ResourceCollection[RemediationTarget])
    assert_type(client.scopes, ResourceCollection[Scope])
    assert_type(client.vulnerability_findings, ResourceCollection[VulnerabilityFinding])
    assert client.scopes.resource.model is Scope


async def test_every_way_of_reading_a_list_keeps_its_record_type(client: RemedyClient) -> None:
    """Items, pages, collect(), first() and as_dicts() are typed by the collection's model."""
    pager = assert_type(client.scopes.list(page_size=5), Pager[Scope])
    async for scope in pager:
        assert_type(scope, Scope)
    async for page in pager.pages():
        assert_type(page, Page[Scope])
        assert_type(page.items, tuple[Scope, ...])
    collected = assert_type(await pager.collect(), list[Scope])
    first = assert_type(await pager.first(), Scope | None)
    assert first == collected[0]
    rows = assert_type(await pager.as_dicts().collect(), list[dict[str, Any]])
    assert [row["id"] for row in rows] == [scope.id for scope in collected]


async def test_await_list_is_the_first_page(client: RemedyClient) -> None:
    """`await collection.list(...)` is a Page of the collection's records, and its resume token
    lists the next page."""
    page = assert_type(await client.endpoints.list(page_size=5), Page[Endpoint])
    token = assert_type(page.resume_token, str | None)
    following = await client.endpoints.list(page_size=5, resume_token=token)
    assert_type(following, Page[Endpoint])
    ids = [endpoint.id for endpoint in (*page.items, *following.items)]
    listed = client.endpoints.list(max_items=len(ids))
    assert ids == [endpoint.id async for endpoint in listed]
    findings = await client.vulnerability_findings.list(page_size=2)
    assert_type(findings, Page[VulnerabilityFinding])
    rows = assert_type(await client.scopes.list(page_size=2).as_dicts(), Page[dict[str, Any]])
    assert len(rows.items) == 2


async def test_gets_are_typed_by_the_collection(client: RemedyClient) -> None:
    """get() is the collection's record; get_many() yields its GetResults."""
    listed = await client.remediation_targets.list(page_size=3)
    target = assert_type(
        await client.remediation_targets.get(listed.items[0].id), RemediationTarget
    )
    assert target == listed.items[0]
    ids = [item.id for item in listed.items]
    async for result in client.remediation_targets.get_many(ids):
        assert_type(result, GetResult[RemediationTarget])
        assert_type(result.value, RemediationTarget | None)
        assert result.ok
