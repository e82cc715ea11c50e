"""`disguise_paging`: the same service with its continuation signals renamed to unknown names."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import aiohttp
import pytest

from remedy_async import CONVENTIONS, Convention

from .helpers import StartSimulator, get_json
from .walker import disguised, walk

FINDINGS = "vulnerability-findings"
SIGNALLING = [row for row in CONVENTIONS.values() if row.signal_paths or row.next_header]
BODY_SIGNALLING = [row for row in SIGNALLING if row.signal_paths]


def names(rows: list[Convention]) -> list[str]:
    return [row.name for row in rows]


def keys_outside_items(body: Any) -> Iterator[str]:
    """Every object key of a body at any depth, not descending into arrays (the items)."""
    if isinstance(body, dict):
        for key, value in body.items():
            yield key
            yield from keys_outside_items(value)


@pytest.mark.parametrize("row", SIGNALLING, ids=names(SIGNALLING))
async def test_disguise_hides_every_paging_key_and_header(
    serve: StartSimulator, session: aiohttp.ClientSession, row: Convention
) -> None:
    """No key or header the row pages by is left; `nxt_tok_x` (or `Nxt-Tok-X`) is there."""
    simulator = await serve(paging=row.name, disguise_paging=True)
    params = {row.size_param: "100"} if row.size_param else {}
    status, body, headers = await get_json(session, f"{simulator.url}/v1/{FINDINGS}", params)
    assert status == 200
    keys = set(keys_outside_items(body))
    assert not keys & {path[-1] for path in row.signal_paths}, keys
    if row.next_header is not None:
        assert row.next_header not in headers
        assert "Link" not in headers
        assert headers["Nxt-Tok-X"]
    if row.signal_paths:
        assert "nxt_tok_x" in keys


@pytest.mark.parametrize("row", SIGNALLING, ids=names(SIGNALLING))
async def test_a_disguised_service_is_the_same_service(
    serve: StartSimulator, session: aiohttp.ClientSession, row: Convention
) -> None:
    """Read with the renamed names, a disguised list pages exactly as the plain one does."""
    simulator = await serve(disguise_paging=True)
    expected = list(simulator.dataset.ids(FINDINGS))
    walked = await walk(
        session, simulator.url, FINDINGS, disguised(row), expected_total=len(expected),
        served_as=row.name,
    )  # fmt: skip
    assert walked.ids == expected


async def test_disguised_names_follow_the_order_of_first_use(
    serve: StartSimulator, session: aiohttp.ClientSession
) -> None:
    """Spring's `last`, `totalElements`, `totalPages`, `number`, `size` become x, y, z, w, v."""
    simulator = await serve(paging="spring", disguise_paging=True)
    params = {"page": "1", "size": "10"}
    _, body, _ = await get_json(session, f"{simulator.url}/v1/scopes", params)
    assert len(body.pop("content")) == 10
    assert body == {
        "nxt_tok_x": False,
        "nxt_tok_y": 24,
        "nxt_tok_z": 3,
        "nxt_tok_w": 1,
        "nxt_tok_v": 10,
    }


async def test_disguise_keeps_the_nesting_and_the_items(
    serve: StartSimulator, session: aiohttp.ClientSession
) -> None:
    """Only the last key of a path is renamed: HAL's `_links.next.href` -> `...next.nxt_tok_x`."""
    simulator = await serve(paging="hal", disguise_paging=True)
    _, body, _ = await get_json(session, f"{simulator.url}/v1/{FINDINGS}")
    assert len(body["_embedded"]["vulnerabilityFindings"]) == 50
    assert body["_links"]["next"]["nxt_tok_x"].startswith(simulator.url)
    assert body["page"] == {"nxt_tok_y": simulator.dataset.count(FINDINGS)}


async def test_disguised_link_header_keeps_its_value(
    serve: StartSimulator, session: aiohttp.ClientSession
) -> None:
    """The Link header's whole value (rel=next and rel=first) moves to `Nxt-Tok-X`."""
    simulator = await serve(paging="link", disguise_paging=True)
    _, body, headers = await get_json(session, f"{simulator.url}/v1/scopes", {"limit": "5"})
    assert len(body) == 5
    value = headers["Nxt-Tok-X"]
    assert 'rel="next"' in value
    assert 'rel="first"' in value


async def test_disguise_changes_nothing_without_paging_signals(
    serve: StartSimulator, session: aiohttp.ClientSession
) -> None:
    """`none` has no signals to rename: the disguised list is the plain one."""
    plain, disguised_run = await serve(paging="none"), await serve(disguise_paging=True)
    _, first, _ = await get_json(session, f"{plain.url}/v1/scopes")
    headers = {"X-Simulator-Paging": "none"}
    _, second, _ = await get_json(session, f"{disguised_run.url}/v1/scopes", None, headers)
    assert first == second
