"""ResourceCollection: ids on the wire (over loopback), get, list filters and status errors (on
a MockTransport)."""

from __future__ import annotations

import asyncio
import inspect
import unicodedata
from collections.abc import Iterator
from datetime import UTC, datetime
from urllib.parse import unquote

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from remedy_async import (
    APIStatusError,
    AuthenticationError,
    BadRequestError,
    ConflictError,
    DecodeError,
    Endpoint,
    MockRequest,
    MockResponse,
    NotFoundError,
    OsFamily,
    Pager,
    PageRequest,
    PageResult,
    PermissionDeniedError,
    RateLimitError,
    RemedyClient,
    RetryPolicy,
    ServerError,
    UnprocessableEntityError,
    VulnerabilityFinding,
)
from remedy_async._settings import MAX_PAGE_SIZE, sized_page
from remedy_async._wire._urls import MAX_ID_LENGTH
from tests.budget import examples
from tests.fakes import ENDPOINT_ID, endpoint_record, page
from tests.loopback import serve_handler
from tests.mock_service import BASE_URL, Routes

TOKEN = "canary-token-7f3e9a"
PREFIX = "/v1/endpoints/"


def segment_echo(request: MockRequest) -> MockResponse:
    """Answer with the raw segments after the collection path and the id they decode to."""
    raw = request.url.raw_path
    assert raw.startswith(PREFIX)
    segments = raw[len(PREFIX) :].split("/")
    return MockResponse.json(
        200, endpoint_record(unquote(segments[0], errors="strict"), segments=len(segments), raw=raw)
    )


@pytest.fixture(scope="module")
def echo_client() -> Iterator[tuple[asyncio.Runner, RemedyClient]]:
    """A client connected over a loopback socket (the path as it crosses the wire is the point)
    to the segment echo, both living in one module-wide loop."""
    with asyncio.Runner() as runner:
        server = serve_handler(segment_echo)
        url = runner.run(server.__aenter__())
        client = RemedyClient(url)
        runner.run(client.__aenter__())
        yield runner, client
        runner.run(client.close())
        runner.run(server.__aexit__(None, None, None))


def _is_valid_id(text: str) -> bool:
    return text not in {".", ".."} and not any(unicodedata.category(c) == "Cc" for c in text)


ids = st.one_of(
    st.text(min_size=1, max_size=64),
    st.text(alphabet="/?#% .é%2F\\", min_size=1, max_size=12),
    st.text(min_size=MAX_ID_LENGTH - 2, max_size=MAX_ID_LENGTH),
).filter(_is_valid_id)


@given(resource_id=ids)
@settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_any_valid_id_travels_as_exactly_one_segment(
    echo_client: tuple[asyncio.Runner, RemedyClient], resource_id: str
) -> None:
    """Every valid id reaches the server as one path segment that decodes back to the id."""
    runner, client = echo_client
    endpoint = runner.run(client.endpoints.get(resource_id))
    assert endpoint.extra["segments"] == 1
    assert endpoint.id == resource_id


def test_int_id_is_sent_as_its_decimal_string(
    echo_client: tuple[asyncio.Runner, RemedyClient],
) -> None:
    """An int id is sent as its decimal string."""
    runner, client = echo_client
    assert runner.run(client.endpoints.get(42)).id == "42"


@pytest.mark.parametrize("bad", ["", ".", "..", "a\x00b", "line\nbreak", "x" * (MAX_ID_LENGTH + 1)])
async def test_invalid_id_raises_value_error_before_any_io(bad: str) -> None:
    """An empty, dot, control-character or over-long id raises ValueError and sends nothing."""
    service = Routes({})
    async with service.client() as client:
        with pytest.raises(ValueError, match="resource id"):
            await client.endpoints.get(bad)
        assert not service.requests


async def test_get_structures_the_model() -> None:
    """get() returns the collection's model built from the response body: a finding types its
    id and times, and keeps its unpublished fields (severity, ...) as sent."""

    def finding(request: MockRequest, id: str) -> MockResponse:
        return MockResponse.json(
            200, {"id": id, "created_at": "2026-11-01T10:00:00Z", "severity": "critical"}
        )

    async with Routes({"/v1/vulnerability-findings/{id}": finding}).client() as client:
        record = await client.vulnerability_findings.get("vf-1")
    assert isinstance(record, VulnerabilityFinding)
    assert record.id == "vf-1"
    assert record.created_at == datetime(2026, 11, 1, 10, tzinfo=UTC)
    assert record.extra == {"severity": "critical"}


@pytest.mark.parametrize(
    ("body", "path"),
    [
        ([endpoint_record()], "$"),
        ({k: v for k, v in endpoint_record().items() if k != "id"}, "$.id"),
        ({k: v for k, v in endpoint_record().items() if k != "created_at"}, "$.created_at"),
        (endpoint_record(hostname=None), "$.hostname"),
        (endpoint_record(operating_system={"name": "x", "family": ["linux"]}),
         "$.operating_system.family"),
    ],
)  # fmt: skip
async def test_get_with_unexpected_body_is_a_decode_error(body: object, path: str) -> None:
    """A get body that is an array, lacks a required field, has a null non-nullable one or a
    wrong type is a DecodeError at its path."""

    def answer(request: MockRequest, id: str) -> MockResponse:
        return MockResponse.json(200, body, headers={"X-Request-Id": "req-9"})

    async with Routes({"/v1/endpoints/{id}": answer}).client() as client:
        with pytest.raises(DecodeError) as caught:
            await client.endpoints.get("ep-1")
    assert caught.value.path == path
    assert caught.value.request_id == "req-9"
    assert caught.value.status == 200


async def test_get_with_invalid_json_is_a_decode_error_with_an_excerpt() -> None:
    """A 200 body that is not JSON raises DecodeError carrying a short excerpt."""

    def html(request: MockRequest, id: str) -> MockResponse:
        headers = {"Content-Type": "text/html; charset=utf-8"}
        return MockResponse.text(200, "<html>" + "x" * 2000, headers=headers)

    async with Routes({"/v1/endpoints/{id}": html}).client() as client:
        with pytest.raises(DecodeError, match="text/html") as caught:
            await client.endpoints.get("ep-1")
    assert caught.value.body_excerpt is not None
    assert caught.value.body_excerpt.startswith("<html>")
    assert len(caught.value.body_excerpt) <= 500


STATUS_CASES = [
    (400, BadRequestError),
    (401, AuthenticationError),
    (403, PermissionDeniedError),
    (404, NotFoundError),
    (409, ConflictError),
    (422, UnprocessableEntityError),
    (429, RateLimitError),
    (418, APIStatusError),
    (500, ServerError),
    (502, ServerError),
    (503, ServerError),
    (504, ServerError),
]


@pytest.mark.parametrize(("status", "error_class"), STATUS_CASES)
async def test_error_status_maps_to_its_error_class(
    status: int, error_class: type[APIStatusError]
) -> None:
    """Each error status raises its class carrying status, the published error body's message,
    the request id and URL (the published body has no code)."""

    def failing(request: MockRequest, id: str) -> MockResponse:
        body = {"error": f"failed with {status}"}
        headers = {"X-Request-Id": "req-1", "Retry-After": "2"}
        return MockResponse.json(status, body, headers=headers)

    service = Routes({"/v1/scopes/{id}": failing})
    async with service.client(token=TOKEN, retry=RetryPolicy(attempts=1)) as client:
        with pytest.raises(error_class) as caught:
            await client.scopes.get("sc-1")
    error = caught.value
    assert type(error) is error_class
    said = f"failed with {status}"
    if status == 401:  # a 401 also says what was sent (tests/client/test_credential_source.py)
        said += " (a token was sent in Authorization, from the token= argument)"
    assert (error.status, error.code, error.message) == (status, None, said)
    assert error.request_id == "req-1"
    assert error.url == f"{BASE_URL}/v1/scopes/sc-1"
    assert TOKEN not in str(error) + repr(error)
    if isinstance(error, RateLimitError):
        assert error.retry_after == 2.0


async def test_token_echoed_by_the_server_is_redacted() -> None:
    """A server that echoes the credential in its error body never gets it into the error."""

    def echo_auth(request: MockRequest, id: str) -> MockResponse:
        text = f"Missing or invalid API key: {request.headers['Authorization']}"
        return MockResponse.json(401, {"error": text})

    async with Routes({"/v1/endpoints/{id}": echo_auth}).client(token=TOKEN) as client:
        with pytest.raises(AuthenticationError) as caught:
            await client.endpoints.get("ep-1")
    error = caught.value
    for text in (str(error), repr(error), error.message, error.body_excerpt or ""):
        assert TOKEN not in text


def test_list_returns_a_pager_at_once_without_io() -> None:
    """list() is a plain call returning a Pager; nothing is sent until it is iterated or
    awaited."""
    service = Routes({})
    client = service.client()
    pager = client.endpoints.list(os_family="macos", has_agent=True)
    assert isinstance(pager, Pager)
    assert inspect.isawaitable(pager)  # for its first page, fetched when awaited
    assert not service.requests


async def test_list_sends_filters_as_query_parameters() -> None:
    """Filters become their published camelCase query parameters, booleans true/false, None
    left out; extra_params go as given, sequences repeated; the page size is always sent."""
    seen: list[list[tuple[str, str]]] = []

    def listing(request: MockRequest) -> MockResponse:
        seen.append(list(request.query.items()))
        return MockResponse.json(200, page([endpoint_record()]))

    async with Routes({"/v1/endpoints": listing}).client() as client:
        pager = client.endpoints.list(
            os_family=OsFamily.WINDOWS,
            has_agent=False,
            extra_params={"resolved": False, "region": ["eu", "us"]},
        )
        assert [e.id async for e in pager] == [ENDPOINT_ID]
        await client.endpoints.list(os_family="linux", has_agent=None).collect()
    filters = [
        ("osFamily", "windows"),
        ("hasAgent", "false"),
        ("resolved", "false"),
        ("region", "eu"),
        ("region", "us"),
    ]
    assert seen[0][: len(filters)] == filters
    assert ("limit", "100") in seen[0]
    assert seen[1][0] == ("osFamily", "linux")
    assert not any(name == "hasAgent" for name, _ in seen[1])


@pytest.mark.parametrize(
    ("kwargs", "error"),
    [
        ({"os_family": object()}, TypeError),
        ({"os_family": []}, TypeError),
        ({"os_family": "other"}, ValueError),
        ({"has_agent": "maybe"}, ValueError),
        ({"status": "online"}, TypeError),
        ({"page_size": 0}, ValueError),
        ({"page_size": 101}, ValueError),
        ({"max_items": -1}, ValueError),
        ({"page_size": True}, ValueError),
    ],
)
def test_bad_list_arguments_raise_before_any_io(
    kwargs: dict[str, object], error: type[Exception]
) -> None:
    """A bad filter, page size or cap raises from list() itself."""
    service = Routes({})
    client = service.client()
    with pytest.raises(error):
        client.endpoints.list(**kwargs)  # type: ignore[arg-type]
    assert not service.requests


class PageNumberPaginator:
    """A test-only paginator: ?page=N, stops at an empty page."""

    def first(self, page_size: int | None) -> PageRequest:
        return PageRequest(params=(("page", "1"),))

    def read(self, request: PageRequest, response: object) -> PageResult:
        raise NotImplementedError


def test_filter_that_clashes_with_a_paging_parameter_is_refused() -> None:
    """An extra parameter named like a parameter the paginator sets raises ValueError."""
    client = RemedyClient("https://api.furl.ai", paginator=PageNumberPaginator())
    with pytest.raises(ValueError, match="paging parameters"):
        client.endpoints.list(extra_params={"page": 3})


def test_collections_are_one_generic_class_configured_per_resource() -> None:
    """The four collections are instances of one class, differing only in path and model."""
    client = RemedyClient("https://api.furl.ai/")
    collections = [
        client.endpoints,
        client.remediation_targets,
        client.scopes,
        client.vulnerability_findings,
    ]
    assert len({type(c) for c in collections}) == 1
    assert [str(c.url) for c in collections] == [
        "https://api.furl.ai/v1/endpoints",
        "https://api.furl.ai/v1/remediation-targets",
        "https://api.furl.ai/v1/scopes",
        "https://api.furl.ai/v1/vulnerability-findings",
    ]
    assert client.endpoints.resource.model is Endpoint


@pytest.mark.parametrize(
    ("page_size", "maximum", "asked"),
    [(None, 100, 100), (1, 100, 1), (100, 100, 100), (None, 500, 500), (250, 500, 250)],
)
def test_sized_page_asks_for_the_maximum_unless_told_less(
    page_size: int | None, maximum: int, asked: int
) -> None:
    """No page size asks for the maximum (fewer requests); one within 1..maximum is kept."""
    assert sized_page(page_size, maximum) == asked


@pytest.mark.parametrize(
    ("page_size", "message"),
    [
        (101, r"page_size must be at most 100, got 101: the service serves at most 100 "
              r"records a page \(for a service that allows more, raise "
              r"RemedyClient\(max_page_size=\.\.\.\)\)"),
        (10**6, "at most 100, got 1000000"),
        (0, r"page_size must be an int >= 1 or None, got 0"),
        (-5, ">= 1"),
        (True, "got True"),
        (2.0, "got 2.0"),
    ],
)  # fmt: skip
def test_sized_page_refuses_a_size_outside_its_bounds_naming_them(
    page_size: object, message: str
) -> None:
    """A page size under 1, over the maximum, or not an int is a ValueError naming the bound
    and how to raise it."""
    with pytest.raises(ValueError, match=message):
        sized_page(page_size, MAX_PAGE_SIZE)  # type: ignore[arg-type]


def test_the_default_maximum_is_the_published_one() -> None:
    """The published `limit` is at most 100: the default maximum, and every list's default."""
    assert MAX_PAGE_SIZE == 100
    assert RemedyClient("https://api.furl.ai").endpoints.max_page_size == 100


@pytest.mark.parametrize("fetcher", ["fetch", "fetch_records"])
async def test_a_page_fetch_lets_what_its_answer_started_go_out_before_the_page_is_read(
    fetcher: str,
) -> None:
    """A list reading ahead starts its next request once a page's answer is in (`answered`);
    the fetch lets the loop turn before decoding the page (as JSON, or straight into typed
    views), so that request is sent while the page is read."""
    answer = MockResponse.json(200, page([endpoint_record()]))
    async with Routes({"/v1/endpoints": lambda _: answer}).client() as client:
        call = client.endpoints.list()._call
        order: list[str] = []

        def answered() -> None:
            order.append("answered")
            asyncio.get_running_loop().call_soon(order.append, "next request sent")

        response = await getattr(call, fetcher)(call.first, answered)
        order.append("page read")
    assert order == ["answered", "next request sent", "page read"]
    assert response.status == 200
