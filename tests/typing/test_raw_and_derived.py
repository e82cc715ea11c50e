"""What a checker infers from raw responses, derived clients and token providers: a raw get is
a `RawResponse` of the collection's record, `parse()` that record; `with_options` is a client;
`token=` takes an async callable."""

from __future__ import annotations

from collections.abc import Mapping
from typing import assert_type

from remedy_async import (
    Endpoint,
    HealthStatus,
    JSONResponse,
    RawResponse,
    RemedyClient,
    RetryPolicy,
    Scope,
)


async def test_a_raw_get_is_typed_by_the_collection(client: RemedyClient) -> None:
    """`with_raw_response.get` is a RawResponse of the record; `parse()` is the record."""
    first = await client.endpoints.list(page_size=1).first()
    assert first is not None
    raw = assert_type(await client.endpoints.with_raw_response.get(first.id), RawResponse[Endpoint])
    assert_type(raw.parse(), Endpoint)
    assert_type(raw.status, int)
    assert_type(raw.headers, Mapping[str, str])
    assert_type(raw.request_id, str | None)
    assert_type(raw.elapsed, float)
    assert_type(raw.url, str)
    assert raw.parse().id == first.id
    scope = await client.scopes.list(page_size=1).first()
    assert scope is not None
    assert_type(await client.scopes.with_raw_response.get(scope.id), RawResponse[Scope])


async def test_the_client_s_raw_calls_are_typed(client: RemedyClient) -> None:
    """`health()` and `get_json()` have raw forms parsing to their plain values' types."""
    health = assert_type(await client.with_raw_response.health(), RawResponse[HealthStatus])
    assert_type(health.parse(), HealthStatus)
    found = await client.with_raw_response.get_json("/v1/endpoints", params={"limit": 1})
    assert_type(found, RawResponse[JSONResponse])
    assert found.parse().status == 200


async def test_a_derived_client_is_a_client(client: RemedyClient) -> None:
    """`with_options` returns a RemedyClient, its collections as typed as the parent's."""
    derived = assert_type(client.with_options(retry=RetryPolicy(attempts=2)), RemedyClient)
    assert_type(await derived.endpoints.list(page_size=1).collect(), list[Endpoint])


async def test_a_token_provider_is_accepted(client: RemedyClient) -> None:
    """An `async def` returning the token is a `token=`."""

    async def token() -> str:
        return "short-lived"

    async with RemedyClient(client.base_url, token=token) as other:
        assert (await other.endpoints.list(page_size=1).first()) is not None
