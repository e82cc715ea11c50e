"""OpenTelemetry spans and metrics, read back from the SDK's in-memory exporters: one span per
logical call, one child span per attempt (HTTP client semantic conventions), and the
parent/child relations across tasks, abandoned lists, cancellation and failures (on a
MockTransport; aiohttp's own instrumentation and a probe of the simulator over loopback)."""

from __future__ import annotations

import asyncio
import io
import json
import subprocess
import sys
from collections.abc import AsyncIterator

import pytest
from opentelemetry.instrumentation.aiohttp_client import create_trace_config
from opentelemetry.trace import SpanKind, StatusCode
from yarl import URL

from remedy_async import (
    ConfigurationError,
    MockRequest,
    MockResponse,
    NotFoundError,
    RemedyClient,
    Telemetry,
    probe,
)
from remedy_async.simulator import Simulator, SimulatorConfig
from tests.fakes import FakeTime, endpoint_body, endpoint_record, page
from tests.loopback import serve_handler
from tests.mock_service import BASE_URL, Routes, Script, mock_client
from tests.otel import Otel
from tests.published import TOKEN, PublishedService, dataset

RECORD = endpoint_body("ep-1")
JSON = {"Content-Type": "application/json"}


def ok() -> MockResponse:
    return MockResponse(200, JSON, RECORD)


@pytest.fixture
async def simulator_url() -> AsyncIterator[str]:
    """A simulator of 30 endpoints."""
    async with Simulator(SimulatorConfig(size=30)) as simulator:
        yield simulator.url


@pytest.fixture
def published() -> PublishedService:
    """The published service with 30 endpoints."""
    return PublishedService(dataset(sizes={"endpoints": 30}))


def client_of(script: Script, otel: Otel) -> RemedyClient:
    time = FakeTime()
    return script.client(telemetry=otel.telemetry, clock=time.clock, sleep=time.sleep)


async def test_a_get_is_one_call_span_with_one_attempt_span(otel: Otel) -> None:
    """`endpoints.get` is an internal span whose child is the attempt: a CLIENT span named
    for its method, with the semantic conventions' attributes."""
    async with client_of(Script(ok()), otel) as client:
        await client.endpoints.get("ep-1")
    call = otel.span("endpoints.get")
    (attempt,) = otel.children(call)
    assert call.kind is SpanKind.INTERNAL
    assert (attempt.name, attempt.kind) == ("GET", SpanKind.CLIENT)
    assert dict(attempt.attributes or {}) == {
        "http.request.method": "GET",
        "url.full": f"{BASE_URL}/v1/endpoints/ep-1",
        "server.address": URL(BASE_URL).host,
        "server.port": 443,
        "http.response.status_code": 200,
        "remedy.operation": "endpoints.get",
    }
    assert attempt.status.status_code is StatusCode.UNSET


async def test_a_retried_get_has_an_attempt_span_per_try(otel: Otel) -> None:
    """A 503 then a 200: two attempt spans (the first an error, the second a resend), a retry
    event on the call span, and the retry counted."""
    busy = MockResponse(503, JSON, b"{}")
    async with client_of(Script(busy, ok()), otel) as client:
        await client.endpoints.get("ep-1")
    call = otel.span("endpoints.get")
    first, second = otel.children(call)
    assert (first.attributes or {})["error.type"] == "503"
    assert first.status.status_code is StatusCode.ERROR
    assert (second.attributes or {})["http.request.resend_count"] == 1
    assert [event.name for event in call.events] == ["remedy.retry"]
    (retries,) = otel.points("remedy.client.retries")
    assert retries.value == 1
    assert retries.attributes["error.type"] == "ServerError"


async def test_a_429_is_counted_as_rate_limited(otel: Otel) -> None:
    """A 429 response is counted in `remedy.client.rate_limited`, with the operation."""
    limited = MockResponse(429, {**JSON, "Retry-After": "2"}, b"{}")
    async with client_of(Script(limited, ok()), otel) as client:
        await client.endpoints.get("ep-1")
    (limited_count,) = otel.points("remedy.client.rate_limited")
    assert limited_count.value == 1
    assert limited_count.attributes["remedy.operation"] == "endpoints.get"


async def test_a_wait_on_the_pause_is_a_span_event_and_counted(otel: Otel) -> None:
    """A call that waits out the service's pause has a `remedy.wait` span event saying how
    long and why, and the seconds are counted."""
    async with client_of(Script(ok()), otel) as client:
        client._gate.pause_for(3.0)
        await client.endpoints.get("ep-1")
    (event,) = otel.span("endpoints.get").events
    assert (event.name, dict(event.attributes or {})) == (
        "remedy.wait",
        {"remedy.wait.seconds": 3.0, "remedy.wait.reason": "pause"},
    )
    (waited,) = otel.points("remedy.client.wait.duration")
    assert (waited.value, waited.attributes["remedy.wait.reason"]) == (3.0, "pause")


@pytest.mark.parametrize("dicts", [False, True])
async def test_a_list_span_spans_every_page(
    otel: Otel, published: PublishedService, dicts: bool
) -> None:
    """`endpoints.list` is the parent of one `endpoints.page` span a page, each the parent of
    its attempt, a page fetched ahead (sent when the page before was answered) too, as
    records or wire dicts; it records the convention and how many pages it took."""
    async with mock_client(published.handler, token=TOKEN, telemetry=otel.telemetry) as client:
        pager = client.endpoints.list(page_size=10)
        items = await (pager.as_dicts() if dicts else pager).collect()
    listed = otel.span("endpoints.list")
    pages = otel.children(listed)
    assert len(items) == 30
    assert {page.name for page in pages} == {"endpoints.page"}
    assert len(pages) == 4  # offsets 0, 8, 16, 24: each page overlaps the one before by 2
    assert all(len(otel.children(page)) == 1 for page in pages)
    assert (listed.attributes or {})["remedy.calls"] == 4
    assert [event.name for event in listed.events] == ["remedy.paging"]


async def test_a_list_the_data_moved_under_records_what_proving_it_cost(
    otel: Otel, published: PublishedService
) -> None:
    """A record created at the head after the first page: the list's span gets a
    `remedy.shift` event saying the next page was realigned."""
    records = published.records["endpoints"]

    def create_at_head(resource: str, served: int) -> None:
        if resource == "endpoints" and served == 1:
            records.insert(0, {**records[-1], "id": "00000000-0000-4000-8000-000000000000"})

    published.between_pages = create_at_head
    async with mock_client(published.handler, token=TOKEN, telemetry=otel.telemetry) as client:
        await client.endpoints.list(page_size=10).collect()
    listed = otel.span("endpoints.list")
    shifts = [event for event in listed.events if event.name == "remedy.shift"]
    assert [dict(event.attributes or {})["remedy.shift"] for event in shifts] == ["1 realigned"]


async def test_parallel_pages_are_children_of_their_list_across_tasks(otel: Otel) -> None:
    """Pages fetched at once in their own tasks still name the list's span as their parent."""

    def offset_pages(request: MockRequest) -> MockResponse:
        offset = int(request.query.get("offset", "0"))
        records = [endpoint_record(f"ep-{n}") for n in range(offset, min(offset + 5, 40))]
        return MockResponse.json(200, page(records, total=40, offset=offset, limit=5))

    async with Routes({"/v1/endpoints": offset_pages}).client(telemetry=otel.telemetry) as client:
        items = await client.endpoints.list(page_size=5, concurrency=4).collect()
    listed = otel.span("endpoints.list")
    assert len(items) == 40
    # Pages after the first overlap the one before by 2: offsets 0, 3, 6, ..., 36.
    assert len(otel.children(listed)) == len(otel.spans("endpoints.page")) == 13


async def test_a_list_abandoned_after_a_page_ends_its_span(
    otel: Otel, published: PublishedService
) -> None:
    """Closing a list's iteration early ends its span, marked closed early, not an error."""
    async with mock_client(published.handler, token=TOKEN, telemetry=otel.telemetry) as client:
        pages = client.endpoints.list(page_size=10).pages()
        await anext(pages)
        await pages.aclose()
        listed = otel.span("endpoints.list")
    assert (listed.attributes or {})["remedy.closed_early"] is True
    assert listed.status.status_code is StatusCode.UNSET


async def test_a_list_left_by_break_ends_its_span_when_dropped(
    otel: Otel, published: PublishedService
) -> None:
    """`break` out of `async for` and drop the pager: the span ends once the iteration is
    finalized, without an error."""
    async with mock_client(published.handler, token=TOKEN, telemetry=otel.telemetry) as client:
        async for _ in client.endpoints.list(page_size=10):
            break
        for _ in range(10):
            await asyncio.sleep(0)
        listed = otel.span("endpoints.list")
    assert (listed.attributes or {})["remedy.closed_early"] is True


async def test_a_failing_list_span_records_the_error(otel: Otel) -> None:
    """A list whose page fails ends its span with the error's type and an error status."""
    missing = Script(MockResponse.json(404, {"error": "Endpoint not found."}))
    async with missing.client(telemetry=otel.telemetry) as client:
        with pytest.raises(NotFoundError):
            await client.endpoints.list().collect()
    listed = otel.span("endpoints.list")
    assert (listed.attributes or {})["error.type"] == "NotFoundError"
    assert listed.status.status_code is StatusCode.ERROR
    assert otel.span("endpoints.page").status.status_code is StatusCode.ERROR


async def test_a_cancelled_list_ends_its_span_and_its_attempt(otel: Otel) -> None:
    """Cancelling a list mid-request ends the list, page and attempt spans as cancelled."""
    arrived, released = asyncio.Event(), asyncio.Event()

    async def stalls(request: MockRequest) -> MockResponse:
        arrived.set()
        await released.wait()
        return MockResponse.json(200, page([]))

    async with Routes({"/v1/endpoints": stalls}).client(telemetry=otel.telemetry) as client:
        task = asyncio.create_task(client.endpoints.list().collect())
        await arrived.wait()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        released.set()
    for name in ("endpoints.list", "endpoints.page", "GET"):
        assert (otel.span(name).attributes or {})["error.type"] == "CancelledError", name


async def test_get_many_is_the_parent_of_each_get(otel: Otel, published: PublishedService) -> None:
    """`endpoints.get_many` is the parent of one `endpoints.get` span per id, across tasks."""
    async with mock_client(published.handler, token=TOKEN, telemetry=otel.telemetry) as client:
        ids = [endpoint.id for endpoint in await client.endpoints.list(max_items=5).collect()]
        results = [result async for result in client.endpoints.get_many(ids, concurrency=3)]
    bulk = otel.span("endpoints.get_many")
    assert len(results) == 5
    assert sorted(span.name for span in otel.children(bulk)) == ["endpoints.get"] * 5


async def test_download_and_probe_are_call_spans(otel: Otel, simulator_url: str) -> None:
    """A download is a span with its attempt; a probe is the parent of every call it made."""
    async with RemedyClient(simulator_url, telemetry=otel.telemetry) as client:
        await client.download_agent_configuration(io.BytesIO())
    (attempt,) = otel.children(otel.span("download_agent_configuration"))
    assert (attempt.attributes or {})["http.response.status_code"] == 200
    await probe(simulator_url, telemetry=otel.telemetry)
    names = {span.name for span in otel.children(otel.span("probe"))}
    assert {"endpoints.list", "health", "download_agent_configuration"} <= names


async def test_the_request_duration_histogram_follows_the_conventions(otel: Otel) -> None:
    """`http.client.request.duration` is recorded per attempt with the conventions' attributes
    (and the operation), never the URL."""
    healthy = Script(MockResponse.json(200, {"status": "ok"}))
    async with healthy.client(telemetry=otel.telemetry) as client:
        await client.health()
        await client.health()
    (point,) = otel.points("http.client.request.duration")
    assert point.count == 2
    assert set(point.attributes) == {
        "http.request.method",
        "server.address",
        "server.port",
        "http.response.status_code",
        "remedy.operation",
    }
    assert point.attributes["remedy.operation"] == "health"


async def test_aiohttp_instrumentation_nests_under_the_attempt(otel: Otel) -> None:
    """With aiohttp's own instrumentation in `trace_configs`, its span is a child of the
    attempt span, and the traceparent it sends names it. Over loopback: aiohttp's session
    writes that header."""
    service = Routes(
        {"/v1/endpoints/{id}": lambda request, id: MockResponse.json(200, endpoint_record(id))}
    )
    config = create_trace_config(tracer_provider=otel.tracer_provider)
    async with (
        serve_handler(service) as url,
        RemedyClient(url, telemetry=otel.telemetry, trace_configs=[config]) as client,
    ):
        await client.endpoints.get("ep-1")
    seen = [request.headers.get("traceparent", "") for request in service.requests]
    (attempt,) = otel.children(otel.span("endpoints.get"))
    (transport,) = otel.children(attempt)
    assert transport.kind is SpanKind.CLIENT
    assert transport.context is not None
    context = transport.context
    expected = f"00-{context.trace_id:032x}-{context.span_id:016x}"
    assert [header[:-3] for header in seen] == [expected]


def test_telemetry_false_makes_no_bridge() -> None:
    """`telemetry=False` turns OpenTelemetry off for the client, whatever is installed."""
    client = RemedyClient("http://127.0.0.1:9", telemetry=False)
    assert client._events._telemetry is None


def test_a_telemetry_setting_of_the_wrong_type_is_refused() -> None:
    """telemetry takes True, False or a Telemetry."""
    with pytest.raises(ConfigurationError, match="telemetry must be"):
        RemedyClient("http://127.0.0.1:9", telemetry="yes")  # type: ignore[arg-type]


_IMPORTS = """
import json, sys
import remedy_async
client = remedy_async.RemedyClient("http://127.0.0.1:9")
before = sorted(m for m in sys.modules if m.startswith("opentelemetry"))
from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
trace.set_tracer_provider(TracerProvider())
print(json.dumps({"before": before, "active": client._events.active}))
"""

_WITHOUT = """
import json, sys
class Missing:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] == "opentelemetry":
            raise ImportError(name)
sys.meta_path.insert(0, Missing())
import remedy_async
clients = [remedy_async.RemedyClient("http://127.0.0.1:9") for _ in range(3)]
try:
    remedy_async.RemedyClient("http://127.0.0.1:9", telemetry=remedy_async.Telemetry())
    refused = False
except remedy_async.ConfigurationError:
    refused = True
print(json.dumps({
    "loaded": [m for m in sys.modules if m.startswith("opentelemetry")],
    "bridges": [c._events._telemetry for c in clients],
    "refused": refused,
}, default=str))
"""


def _run(program: str) -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, check=True, timeout=60
    )
    result: dict[str, object] = json.loads(done.stdout.splitlines()[-1])
    return result


def test_neither_import_nor_a_client_loads_opentelemetry_until_the_application_does() -> None:
    """`import remedy_async` and a client import no OpenTelemetry even when it is installed;
    once the application imports it and sets an SDK up, that client's events reach it."""
    result = _run(_IMPORTS)
    assert result == {"before": [], "active": True}


def test_without_opentelemetry_clients_carry_no_bridge() -> None:
    """With OpenTelemetry not importable, clients work without it (no bridge, nothing
    loaded); asking for it explicitly says what to install."""
    result = _run(_WITHOUT)
    assert result == {"loaded": [], "bridges": [None, None, None], "refused": True}


def test_telemetry_names_the_providers() -> None:
    """A Telemetry value holds the providers it was given (None: the global ones)."""
    assert Telemetry() == Telemetry(None, None)


def test_a_client_made_before_opentelemetry_was_imported_asks_again_once_a_second(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Built while the application had not imported OpenTelemetry, a client's telemetry listens
    to nothing, and looks again at most once a second of the client's clock."""
    from remedy_async._settings import telemetry_for  # noqa: PLC0415

    now = [100.0]
    imported = sys.modules["opentelemetry.trace"]
    monkeypatch.delitem(sys.modules, "opentelemetry.trace")
    telemetry = telemetry_for(True, lambda: now[0])
    assert telemetry is not None
    assert telemetry.listening is False
    assert "until OpenTelemetry is imported" in repr(telemetry)
    monkeypatch.setitem(sys.modules, "opentelemetry.trace", imported)
    now[0] += 0.9
    assert telemetry.listening is False
    assert "until OpenTelemetry is imported" in repr(telemetry)
    now[0] += 0.2
    telemetry.listening  # noqa: B018 - the look that makes the bridge
    assert "bridged" in repr(telemetry)
