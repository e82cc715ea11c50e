"""A small service a test fully controls: one cursor-paged collection of endpoints in the
published shape (snake_case, UUID ids, `{"error": "..."}` bodies), whose records, key spelling,
failing pages and page size the test sets between and during passes.

It is a MockTransport handler (`tests.mock_service.Routes`), with no socket: the change feed
sits above the transport, and what it is judged by is what the service lists and finds.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

from remedy_async import MockRequest, MockResponse, RemedyClient, RetryPolicy
from tests.mock_service import Routes, mock_client

Record = dict[str, Any]


def eid(number: int) -> str:
    """The id of endpoint `number`: a UUID whose last group is the number, so ids sort as
    numbers."""
    return f"00000000-0000-4000-8000-{number:012d}"


def endpoint(number: int, **fields: Any) -> Record:
    """A published endpoint record (snake_case, every published field) with id `eid(number)`."""
    return {
        "id": eid(number),
        "hostname": f"host-{number}",
        "ip": f"10.0.0.{number % 250}",
        "mac_address": None,
        "operating_system": {"name": "macOS", "family": "macos", "version": "14.4"},
        "agent_id": None,
        "agent_version": "2.1.0",
        "created_at": "2024-05-01T00:00:00Z",
        "updated_at": "2024-05-01T00:00:00Z",
        **fields,
    }


def camel(record: Any) -> Any:
    """A record with every key respelled in camelCase (a service drifting from snake_case)."""
    if isinstance(record, dict):
        return {
            re.sub(r"_([a-z0-9])", lambda m: m[1].upper(), key): camel(value)
            for key, value in record.items()
        }
    if isinstance(record, list):
        return [camel(item) for item in record]
    return record


class Service:
    """Serves `records` (by id, listed in id order, or reversed) at /v1/endpoints, `page_size`
    at a time, and each at /v1/endpoints/{id}.

    A list request whose cursor position is in `fail_at` answers 503, and every get with
    `fail_gets`; `unlisted` ids are left out of the list but found by a get; `before_page`
    runs before each page is cut (to change the data mid-pass); `shape` rewrites each record
    as sent (key order, spelling). `requests` holds the query of every list request, `gets`
    the id of every get.
    """

    def __init__(self, records: list[Record], page_size: int = 3) -> None:
        self.records = {record["id"]: record for record in records}
        self.page_size = page_size
        self.reverse = False
        self.unlisted: set[str] = set()
        """Ids the list leaves out while a get still finds them (as if they moved)."""
        self.fail_gets = False
        self.gets: list[str] = []
        self.fail_at: set[int] = set()
        self.refuse_cursors = False
        self.before_page: Callable[[int], None] | None = None
        self.shape: Callable[[Record], Any] = lambda record: record
        self.requests: list[dict[str, str]] = []

    async def __call__(self, request: MockRequest) -> MockResponse:
        """Answer one request (the MockTransport handler): the list, a get, or a 404. The
        routes are read at each request, so a test may replace `handle` or `get` mid-pass."""
        routes = Routes({"/v1/endpoints": self.handle, "/v1/endpoints/{record_id}": self.get})
        return await routes(request)

    def put(self, *records: Record) -> None:
        """Add or replace records."""
        for record in records:
            self.records[record["id"]] = record

    def drop(self, *ids: str) -> None:
        """Remove records."""
        for record_id in ids:
            del self.records[record_id]

    def handle(self, request: MockRequest) -> MockResponse:
        """Answer a list request: the page at its `cursor`, or the failure set for it."""
        query = dict(request.query)
        self.requests.append(query)
        position = int(query.get("cursor", "0"))
        if position in self.fail_at or (self.refuse_cursors and "cursor" in query):
            status, said = (400, "Invalid cursor.") if self.refuse_cursors else (503, "Busy.")
            return MockResponse.json(status, {"error": said})
        if self.before_page is not None:
            self.before_page(position)
        ordered = [
            self.records[key]
            for key in sorted(self.records, reverse=self.reverse)
            if key not in self.unlisted
        ]
        page = ordered[position : position + self.page_size]
        after = position + len(page)
        body = {
            "items": [self.shape(record) for record in page],
            "nextCursor": str(after) if after < len(ordered) else None,
        }
        return MockResponse.json(200, body)

    def get(self, request: MockRequest, record_id: str) -> MockResponse:
        """Answer a get of `record_id`: the record, a 404, or a 503 under `fail_gets`."""
        self.gets.append(record_id)
        if self.fail_gets:
            return MockResponse.json(503, {"error": "Busy."})
        record = self.records.get(record_id)
        if record is None:
            return MockResponse.json(404, {"error": "Endpoint not found."})
        return MockResponse.json(200, self.shape(record))


@asynccontextmanager
async def running(service: Service) -> AsyncIterator[RemedyClient]:
    """Yield a client answered by `service` (no socket) that never retries."""
    async with mock_client(service, retry=RetryPolicy(attempts=1)) as client:
        yield client
