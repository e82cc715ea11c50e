"""Small helpers shared by the simulator's tests."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping
from typing import Any
from urllib.parse import quote

import aiohttp
import orjson
from yarl import URL

from remedy_async.simulator import Simulator

StartSimulator = Callable[..., Awaitable[Simulator]]
"""The `serve` fixture: start a simulator with SimulatorConfig overrides."""

RESOURCES = ("endpoints", "remediation-targets", "scopes", "vulnerability-findings")
LIST_PATHS = {resource: f"/v1/{resource}" for resource in RESOURCES}
GET_PATHS = {
    "endpoints": "/v1/endpoints/{endpointId}",
    "remediation-targets": "/v1/remediation-targets/{targetId}",
    "scopes": "/v1/scopes/{scopeId}",
    "vulnerability-findings": "/v1/vulnerability-findings/{findingId}",
}


class RecordingSleep:
    """An async sleep that never waits; `calls` lists the requested durations."""

    def __init__(self) -> None:
        self.calls: list[float] = []

    def __repr__(self) -> str:
        return f"RecordingSleep(calls={self.calls})"

    async def __call__(self, seconds: float) -> None:
        self.calls.append(seconds)
        await asyncio.sleep(0)


class GatedSleep:
    """An async sleep that waits until the test opens the gate; counts who is waiting."""

    def __init__(self) -> None:
        self.gate = asyncio.Event()
        self.waiting = 0
        self.calls: list[float] = []

    def __repr__(self) -> str:
        return f"GatedSleep(waiting={self.waiting})"

    async def __call__(self, seconds: float) -> None:
        self.calls.append(seconds)
        self.waiting += 1
        try:
            await self.gate.wait()
        finally:
            self.waiting -= 1

    async def until_waiting(self, count: int) -> None:
        """Yield to the loop until `count` sleepers wait (no real time passes)."""
        for _ in range(10_000):
            if self.waiting >= count:
                return
            await asyncio.sleep(0)
        raise AssertionError(f"only {self.waiting} of {count} sleepers arrived")


class FakeClock:
    """A Unix clock that moves only when told."""

    def __init__(self, now: float = 1_717_200_000.0) -> None:
        self.now = now

    def __repr__(self) -> str:
        return f"FakeClock(now={self.now})"

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


def record_url(base: str, resource: str, record_id: str) -> URL:
    """The get-by-id URL, with the id percent-encoded as exactly one segment."""
    return URL(f"{base}/v1/{resource}/{quote(record_id, safe='')}", encoded=True)


async def get_json(
    session: aiohttp.ClientSession,
    url: str | URL,
    params: Any = None,
    headers: Mapping[str, str] | None = None,
) -> tuple[int, Any, Mapping[str, str]]:
    """GET and decode JSON: (status, body, headers)."""
    async with session.get(url, params=params, headers=headers) as response:
        body = await response.read()
        return response.status, orjson.loads(body) if body else None, response.headers


def items_of(body: Any, items_key: str = "data") -> list[Any]:
    """The records of a page, whatever its scheme."""
    return list(body) if isinstance(body, list) else list(body[items_key])


async def list_all_ids(
    session: aiohttp.ClientSession,
    base: str,
    resource: str,
    scheme: str,
    *,
    items_key: str = "data",
    size: int = 7,
    filters: list[tuple[str, str]] | None = None,
) -> list[str]:
    """Walk every page of a list in `scheme` (forced by header) and return the ids in order."""
    headers = {"X-Simulator-Paging": scheme}
    url = f"{base}/v1/{resource}"
    filters = filters or []
    ids: list[str] = []
    cursor = ""
    if scheme == "none":
        _, body, _ = await get_json(session, url, filters, headers)
        return [item["id"] for item in body]
    if scheme == "link":
        next_url: str | URL | None = URL(url).with_query([*filters, ("limit", str(size))])
        while next_url is not None:
            async with session.get(next_url, headers=headers) as response:
                ids += [item["id"] for item in await response.json()]
                links = response.links
                next_url = links["next"]["url"] if "next" in links else None
        return ids
    for number in range(10_000):
        if scheme == "offset":
            params = [*filters, ("offset", str(number * size)), ("limit", str(size))]
        elif scheme == "page":
            params = [*filters, ("page", str(number + 1)), ("pageSize", str(size))]
        else:
            params = [*filters, ("limit", str(size))]
            if number:
                params.append(("cursor", cursor))
        status, body, _ = await get_json(session, url, params, headers)
        assert status == 200, body
        page = items_of(body, items_key)
        ids += [item["id"] for item in page]
        if scheme == "cursor":
            cursor = body["nextCursor"]
            if cursor is None:
                return ids
        elif not page:
            return ids
    raise AssertionError("too many pages")


def message_of(body: Any) -> str:
    """The message of an error body: the published `{"error": "..."}`, or the nested
    `{"error": {"code", "message"}}` of the `error` shape."""
    error = body["error"]
    return error if isinstance(error, str) else str(error["message"])
