"""Record keys are snake_case as published; a run may respell them for drift tests."""

from __future__ import annotations

from typing import Any

import aiohttp
import pytest

from remedy_async.simulator._records import spelled

from .helpers import RESOURCES, StartSimulator, get_json, record_url


def keys(value: Any) -> set[str]:
    """Every object key of a value, at any depth."""
    if isinstance(value, dict):
        return set(value) | {key for inner in value.values() for key in keys(inner)}
    if isinstance(value, list):
        return {key for item in value for key in keys(item)}
    return set()


@pytest.mark.parametrize(
    ("key", "naming", "expected"),
    [
        ("mac_address", "snake", "mac_address"),
        ("mac_address", "camel", "macAddress"),
        ("operating_system", "pascal", "OperatingSystem"),
        ("remediation_target_id", "kebab", "remediation-target-id"),
        ("macAddress", "snake", "mac_address"),
        ("id", "pascal", "Id"),
        ("cvss_score", "camel", "cvssScore"),
    ],
)
def test_keys_are_respelled_from_any_naming(key: str, naming: str, expected: str) -> None:
    """`spelled` writes a snake_case (or camelCase) key in the asked naming."""
    assert spelled(key, naming) == expected


@pytest.mark.parametrize("naming", ["snake", "camel", "pascal", "kebab"])
async def test_a_run_serves_every_key_in_its_naming(
    serve: StartSimulator, session: aiohttp.ClientSession, naming: str
) -> None:
    """Lists and gets respell every record key at every depth (the envelope's stay the
    convention's); the default, snake_case, is the records as built."""
    simulator = await serve(naming=naming)
    for resource in RESOURCES:
        _, body, _ = await get_json(session, f"{simulator.url}/v1/{resource}")
        assert set(body) == {"data", "total", "limit", "offset"}
        built = list(simulator.dataset.records(resource))[: len(body["data"])]
        assert keys(body["data"]) == {spelled(key, naming) for key in keys(built)}
        record_id = built[0]["id"]
        _, got, _ = await get_json(session, record_url(simulator.url, resource, record_id))
        assert keys(got) == {spelled(key, naming) for key in keys(built[0])}
    _, body, _ = await get_json(session, f"{simulator.url}/v1/endpoints", {"limit": "1"})
    expected = {"snake": "mac_address", "camel": "macAddress", "pascal": "MacAddress"}
    assert expected.get(naming, "mac-address") in body["data"][0]
