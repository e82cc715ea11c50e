"""The library's log: `REMEDY_LOG` switching it on, one INFO line per retry, per pause the
service asks for and per paging shift (the key by fingerprint, secrets redacted), and DEBUG's
lines as they were."""

from __future__ import annotations

import asyncio
import hashlib
import logging
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from remedy_async import (
    ClientEvent,
    ConfigurationError,
    MockRequest,
    MockResponse,
    RemedyClient,
    RetryPolicy,
)
from remedy_async._sending._events import LOGGER, SwitchedHandler, key_fingerprint
from tests.fakes import FakeTime, VirtualTime, endpoint_record
from tests.loopback import CANARY
from tests.mock_service import BASE_URL, Script, mock_client
from tests.published import PublishedService, dataset

ID = "00000000-0000-4000-8000-000000000001"
RECORD = endpoint_record(ID)
FINGERPRINT = "sha256:" + hashlib.sha256(CANARY.encode()).hexdigest()[:8]


@pytest.fixture
def library_logger() -> Iterator[logging.Logger]:
    """The library's logger, its level and handlers put back as they were after the test."""
    level, handlers = LOGGER.level, LOGGER.handlers[:]
    try:
        yield LOGGER
    finally:
        LOGGER.handlers[:] = handlers
        LOGGER.setLevel(level)


@contextmanager
def unconfigured() -> Iterator[None]:
    """A process whose application configured no logging while the block runs: no handler on
    the root logger (pytest's own put back after) or on the library's."""
    root = logging.getLogger()
    kept, root.handlers = root.handlers, []
    LOGGER.handlers[:] = []
    try:
        yield
    finally:
        root.handlers = kept


def records_at(caplog: pytest.LogCaptureFixture, level: int) -> list[str]:
    """The library's lines logged at exactly `level`."""
    return [
        record.getMessage()
        for record in caplog.records
        if record.name == "remedy_async" and record.levelno == level
    ]


def client_of(handler: object, time: FakeTime | VirtualTime, **settings: object) -> RemedyClient:
    return mock_client(handler, clock=time.clock, sleep=time.sleep, **settings)  # type: ignore[arg-type]


# ---------------------------------------------------------------------------------------------
# REMEDY_LOG


@pytest.mark.usefixtures("library_logger")
def test_remedy_log_info_attaches_one_stderr_handler_when_nothing_is_configured(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """With no logging configured, REMEDY_LOG=info sets the library's logger to INFO and gives
    it one stderr handler at INFO, however many clients are made; the root logger is untouched."""
    root = logging.getLogger()
    root_level = root.level
    monkeypatch.setenv("REMEDY_LOG", "info")
    with unconfigured():
        RemedyClient(BASE_URL)
        RemedyClient(BASE_URL)
        assert (root.handlers, root.level) == ([], root_level)
    switched = [handler for handler in LOGGER.handlers if isinstance(handler, SwitchedHandler)]
    assert [handler.level for handler in switched] == [logging.INFO]
    assert LOGGER.level == logging.INFO


@pytest.mark.usefixtures("library_logger")
def test_a_later_client_with_remedy_log_debug_lowers_the_handler_it_attached(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The handler is attached once; a client made with another REMEDY_LOG sets its level."""
    with unconfigured():
        monkeypatch.setenv("REMEDY_LOG", "info")
        RemedyClient(BASE_URL)
        monkeypatch.setenv("REMEDY_LOG", " DEBUG ")
        RemedyClient(BASE_URL)
    switched = [handler for handler in LOGGER.handlers if isinstance(handler, SwitchedHandler)]
    assert [handler.level for handler in switched] == [logging.DEBUG]
    assert LOGGER.level == logging.DEBUG


def test_remedy_log_adds_no_handler_where_the_application_configured_logging(
    monkeypatch: pytest.MonkeyPatch, library_logger: logging.Logger
) -> None:
    """An application with a handler (on the root logger, here pytest's) keeps it alone: the
    switch only sets the library's level, so the lines reach the application's handlers."""
    assert logging.getLogger().handlers
    monkeypatch.setenv("REMEDY_LOG", "info")
    library_logger.setLevel(logging.WARNING)
    RemedyClient(BASE_URL)
    assert library_logger.level == logging.INFO
    assert not any(isinstance(handler, SwitchedHandler) for handler in LOGGER.handlers)


@pytest.mark.parametrize("value", ["", "   "])
def test_an_empty_remedy_log_changes_nothing(
    monkeypatch: pytest.MonkeyPatch, library_logger: logging.Logger, value: str
) -> None:
    """An empty REMEDY_LOG is as if unset: the logger keeps the level the application gave."""
    library_logger.setLevel(logging.ERROR)
    monkeypatch.setenv("REMEDY_LOG", value)
    RemedyClient(BASE_URL)
    assert library_logger.level == logging.ERROR


@pytest.mark.parametrize("value", ["verbose", "warning", "1", "info,debug"])
def test_a_bad_remedy_log_is_a_configuration_error_before_any_request(
    monkeypatch: pytest.MonkeyPatch, library_logger: logging.Logger, value: str
) -> None:
    """Any other value is refused when the client is made, naming the values it takes; no
    request is sent and the logger is left as it was."""
    library_logger.setLevel(logging.ERROR)
    monkeypatch.setenv("REMEDY_LOG", value)
    script = Script(MockResponse.json(200, RECORD))
    with pytest.raises(ConfigurationError, match=r"REMEDY_LOG must be one of info, debug"):
        script.client()
    assert script.requests == []
    assert library_logger.level == logging.ERROR


@pytest.mark.usefixtures("library_logger")
async def test_remedy_log_debug_writes_each_request_to_stderr_as_the_cli_debug_flag_does(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """With REMEDY_LOG=debug set before the client is made (what `--debug` does), its requests
    are written to the stderr of the moment, the token redacted."""
    monkeypatch.setenv("REMEDY_LOG", "debug")
    with unconfigured():
        async with Script(MockResponse.json(200, RECORD)).client(token=CANARY) as client:
            await client.endpoints.get(ID)
    written = capsys.readouterr().err
    assert f"remedy_async DEBUG request GET {BASE_URL}/v1/endpoints/{ID}" in written
    assert "remedy_async DEBUG response GET" in written
    assert "[REDACTED]" in written
    assert CANARY not in written


# ---------------------------------------------------------------------------------------------
# INFO: one line per retry, pause and shift


async def test_each_retry_is_one_info_line_with_attempt_status_and_the_wait_chosen(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Two 503s then a 200: two INFO lines, each naming the attempt, status, error and the wait
    the client chose, and the key by its fingerprint; nothing else at INFO."""
    time = FakeTime()
    script = Script(
        MockResponse.json(503, {"error": "busy"}),
        MockResponse.json(503, {"error": "busy"}),
        MockResponse.json(200, RECORD),
    )
    with caplog.at_level(logging.INFO, logger="remedy_async"):
        async with client_of(script, time, token=CANARY) as client:
            await client.endpoints.get(ID)
    url = f"{BASE_URL}/v1/endpoints/{ID}"
    assert records_at(caplog, logging.INFO) == [
        f"retry GET {url} attempt=1 status=503 error=ServerError wait={time.waits[0]:.3f}s "
        f"key={FINGERPRINT}",
        f"retry GET {url} attempt=2 status=503 error=ServerError wait={time.waits[1]:.3f}s "
        f"key={FINGERPRINT}",
    ]
    assert records_at(caplog, logging.DEBUG) == []


async def test_a_retry_after_a_lost_connection_names_the_error_kind(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A retry with no response says what failed instead of a status."""
    time = FakeTime()
    answers = iter([ConnectionResetError("reset"), MockResponse.json(200, RECORD)])

    def handler(request: MockRequest) -> MockResponse:
        answer = next(answers)
        if isinstance(answer, BaseException):
            raise answer
        return answer

    with caplog.at_level(logging.INFO, logger="remedy_async"):
        async with client_of(handler, time) as client:
            await client.endpoints.get(ID)
    [line] = records_at(caplog, logging.INFO)
    assert line.startswith(f"retry GET {BASE_URL}/v1/endpoints/{ID} attempt=1 error=")
    assert "APIConnectionError" in line
    assert "status=" not in line
    assert line.endswith(f"wait={time.waits[0]:.3f}s key=none")


async def test_a_429_pause_is_one_info_line_however_many_requests_it_stops(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Three concurrent gets answered 429 with Retry-After: 2 pause the client's key once: one
    pause line saying how long and whose key, and one retry line per request."""
    time = VirtualTime()
    seen: list[MockRequest] = []

    async def handler(request: MockRequest) -> MockResponse:
        seen.append(request)
        if len(seen) <= 3:
            await asyncio.sleep(0)  # all three are in flight before any answer is read
            return MockResponse.json(429, {"error": "slow down"}, headers={"Retry-After": "2"})
        return MockResponse.json(200, RECORD)

    with caplog.at_level(logging.INFO, logger="remedy_async"):
        async with client_of(handler, time, token=CANARY) as client:
            await asyncio.gather(*(client.endpoints.get(ID) for _ in range(3)))
    lines = records_at(caplog, logging.INFO)
    pauses = [line for line in lines if line.startswith("pause ")]
    assert pauses == [
        f"pause GET {BASE_URL}/v1/endpoints/{ID} status=429 wait=2.000s key={FINGERPRINT} "
        "(every request of this key waits)"
    ]
    assert sum(line.startswith("retry ") for line in lines) == 3
    assert len(lines) == 4


async def test_a_pause_after_the_last_one_ended_is_logged_again(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Two gets, each meeting its own 429 after the previous pause ended: two pause lines."""
    time = FakeTime()
    limited = MockResponse.json(429, {"error": "slow down"}, headers={"Retry-After": "1"})
    script = Script(
        limited, MockResponse.json(200, RECORD), limited, MockResponse.json(200, RECORD)
    )
    with caplog.at_level(logging.INFO, logger="remedy_async"):
        async with client_of(script, time) as client:
            await client.endpoints.get(ID)
            await client.endpoints.get(ID)
    pauses = [line for line in records_at(caplog, logging.INFO) if line.startswith("pause ")]
    assert len(pauses) == 2
    assert all("wait=1.000s key=none" in line for line in pauses)


async def test_no_rate_budget_left_on_a_success_is_a_pause_line(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A 200 saying no requests remain until a reset pauses the key: logged as a pause, with
    the 200's status."""
    time = FakeTime()
    spent = {"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": "5"}
    script = Script(MockResponse.json(200, RECORD, headers=spent), MockResponse.json(200, RECORD))
    with caplog.at_level(logging.INFO, logger="remedy_async"):
        async with client_of(script, time) as client:
            await client.endpoints.get(ID)
            await client.endpoints.get(ID)
    assert records_at(caplog, logging.INFO) == [
        f"pause GET {BASE_URL}/v1/endpoints/{ID} status=200 wait=5.000s key=none "
        "(every request of this key waits)"
    ]
    assert time.waits == [5.0]


async def test_a_shift_of_an_offset_list_is_one_info_line(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A record created before where an offset list stands, while it is read: one INFO line
    saying how proving the page went, for the list's URL, inside its call."""
    service = PublishedService(dataset(sizes={"endpoints": 30}), token=CANARY)
    records = service.records["endpoints"]
    created = dataset(seed=99, sizes={"endpoints": 1})["endpoints"][0]

    def between(collection: str, served: int) -> None:
        if served == 1:
            records.insert(0, created)

    service.between_pages = between
    with caplog.at_level(logging.INFO, logger="remedy_async"):
        async with mock_client(service.handler, token=CANARY) as client:
            assert len(await client.endpoints.list(page_size=10).collect()) == 30
    [line] = records_at(caplog, logging.INFO)
    assert line.startswith(
        f"shift GET {BASE_URL}/v1/endpoints detail=1 realigned (records were added or removed "
        f"while the list was read) key={FINGERPRINT}"
    )


async def test_no_line_names_the_token_echoed_in_a_url_query_or_a_body(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The token sent in a query parameter and echoed in 503 and 429 bodies and a header never
    reaches a line, at INFO or DEBUG; the URL shows it redacted."""
    time = FakeTime()
    echoed = {"error": f"bad key {CANARY}", "token": CANARY}
    script = Script(
        MockResponse.json(503, echoed, headers={"X-Echo": CANARY}),
        MockResponse.json(429, echoed, headers={"Retry-After": "1", "X-Echo": CANARY}),
        MockResponse.json(200, RECORD),
    )
    with caplog.at_level(logging.DEBUG, logger="remedy_async"):
        async with client_of(script, time, token=CANARY) as client:
            await client.get_json(f"/v1/endpoints/{ID}", params={"api_key": CANARY})
    lines = [record.getMessage() for record in caplog.records if record.name == "remedy_async"]
    assert [line.split(" ", 1)[0] for line in records_at(caplog, logging.INFO)] == [
        "retry",
        "pause",
        "retry",
    ]
    assert all(CANARY not in line for line in lines)
    shown = f"GET {BASE_URL}/v1/endpoints/{ID}?api_key=[REDACTED] "
    assert all(shown in line for line in lines)
    assert CANARY not in caplog.text


async def test_at_debug_the_lines_of_today_stay_and_a_retry_is_logged_once(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """DEBUG keeps every request, response, call and end line; a retry is its INFO line only,
    so no event is logged twice."""
    time = FakeTime()
    script = Script(MockResponse.json(503, {"error": "busy"}), MockResponse.json(200, RECORD))
    with caplog.at_level(logging.DEBUG, logger="remedy_async"):
        async with client_of(script, time) as client:
            await client.endpoints.get(ID)
    kinds = [
        (record.levelno, record.getMessage().split(" ", 1)[0])
        for record in caplog.records
        if record.name == "remedy_async"
    ]
    debug, info = logging.DEBUG, logging.INFO
    assert kinds == [
        (debug, "call"),
        (debug, "request"),
        (debug, "response"),
        (info, "retry"),
        (debug, "request"),
        (debug, "response"),
        (debug, "end"),
    ]


async def test_with_the_log_at_warning_no_line_and_no_event_is_made(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Logging off (WARNING) and no hooks: retries and pauses are not logged, and the send
    takes its fast path (the client's events say nobody listens)."""
    time = FakeTime()
    script = Script(
        MockResponse.json(429, {"error": "slow down"}, headers={"Retry-After": "1"}),
        MockResponse.json(200, RECORD),
    )
    with caplog.at_level(logging.WARNING, logger="remedy_async"):
        async with client_of(script, time) as client:
            assert not client._events.active
            assert not client._events.noting
            await client.endpoints.get(ID)
    assert [record for record in caplog.records if record.name == "remedy_async"] == []
    assert time.waits == [pytest.approx(1.0)]


async def test_hooks_alone_get_the_retry_event_without_an_info_line(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """With the log at WARNING, a hook still receives the retry event (the log is not the
    only listener)."""
    time = FakeTime()
    events: list[ClientEvent] = []
    script = Script(MockResponse.json(503, {"error": "busy"}), MockResponse.json(200, RECORD))
    with caplog.at_level(logging.WARNING, logger="remedy_async"):
        async with client_of(script, time, event_hooks=[events.append]) as client:
            await client.endpoints.get(ID)
    assert [event.kind for event in events if event.kind == "retry"] == ["retry"]
    assert [record for record in caplog.records if record.name == "remedy_async"] == []


def test_a_key_is_named_by_a_fingerprint_of_its_token_never_the_token() -> None:
    """The first 8 hex digits of the token's SHA-256, `none` without a token; no run of the
    token's characters shows."""
    shown = key_fingerprint((CANARY,))
    assert shown == FINGERPRINT
    assert not any(CANARY[at : at + 4] in shown for at in range(len(CANARY) - 3))
    assert key_fingerprint(()) == "none"
    assert key_fingerprint(("",)) == "none"


async def test_a_retry_line_is_logged_when_retries_end_in_the_error_only_for_those_retried(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Two attempts allowed, both 503: one retry line (the second failure is the error)."""
    time = FakeTime()
    script = Script(MockResponse.json(503, {"error": "busy"}))
    with caplog.at_level(logging.INFO, logger="remedy_async"):
        async with client_of(script, time, retry=RetryPolicy(attempts=2)) as client:
            with pytest.raises(Exception, match="busy"):
                await client.endpoints.get(ID)
    assert [line.split(" ", 1)[0] for line in records_at(caplog, logging.INFO)] == ["retry"]
