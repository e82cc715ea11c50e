"""The OpenTelemetry bridge: turns the client's events into spans and metrics, in one place.

Imported only once a client's application has imported OpenTelemetry (`_settings.telemetry_for`).
It consumes `ClientEvent`s (already scrubbed of the client's secrets) and makes:

- a span per logical call (`endpoints.get`, `scopes.list` over the whole iteration, each
  `scopes.page`, `endpoints.get_many`, `download_agent_configuration`, `health`, `probe`),
  child of the call it was made in (a list's pages, a get_many's gets) or else of the
  caller's current span; span events for retries (`remedy.retry`), waits for the service's
  pause or the client's rate limit (`remedy.wait`) and a list's paging convention;
- a CLIENT span per attempt, child of its call, following the stable HTTP client semantic
  conventions (`http.request.method`, `url.full` as the client shows it: no user information,
  secrets redacted; `server.address`, `server.port`, `http.response.status_code`,
  `error.type`, `http.request.resend_count`), current while the exchange runs so that
  aiohttp's own instrumentation nests its spans under it;
- metrics: `http.client.request.duration` (histogram, seconds, per attempt), and the counters
  `remedy.client.retries`, `remedy.client.rate_limited` (429 responses) and
  `remedy.client.wait.duration` (seconds waited on pauses and the rate limit).

No request header, hence no credential, is ever read here.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from contextvars import ContextVar, Token
from typing import Any

from attrs import define
from opentelemetry import context as otel_context
from opentelemetry import metrics, trace
from opentelemetry.trace import Span, SpanKind, StatusCode
from yarl import URL

from ._sending._events import ClientEvent
from ._version import VERSION

try:  # the API's stand-in until an SDK sets a meter provider (private, hence guarded)
    from opentelemetry.metrics._internal import _ProxyMeterProvider as _UnsetMeters
except ImportError:  # pragma: no cover - an API without it
    _UnsetMeters = metrics.NoOpMeterProvider  # type: ignore[misc,assignment]

SCOPE = "remedy_async"
RECHECK_SECONDS = 1.0
"""How often a bridge without an SDK asks again whether one has been set up."""
DURATION_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10)
"""The semantic conventions' advised boundaries for `http.client.request.duration`."""


@define
class _Call:
    span: Span
    operation: str
    children: int = 0


@define
class _Attempt:
    span: Span
    token: Token[otel_context.Context]
    started: float
    attributes: dict[str, Any]


_ATTEMPT: ContextVar[_Attempt | None] = ContextVar("remedy_async_otel_attempt", default=None)
"""The attempt span of the exchange running in this task (between request and response)."""


class OpenTelemetryBridge:
    """Makes spans and metrics from a client's events (see the module's doc)."""

    def __init__(
        self, tracer_provider: Any, meter_provider: Any, clock: Callable[[], float]
    ) -> None:
        self._listening = tracer_provider is not None or meter_provider is not None
        self._ask_again_at = 0.0
        self._tracer = trace.get_tracer(SCOPE, VERSION, tracer_provider=tracer_provider)
        meter = metrics.get_meter(SCOPE, VERSION, meter_provider=meter_provider)
        self._duration = meter.create_histogram(
            "http.client.request.duration",
            unit="s",
            description="Duration of HTTP client requests.",
            explicit_bucket_boundaries_advisory=DURATION_BUCKETS,
        )
        self._retries = meter.create_counter(
            "remedy.client.retries", unit="{retry}", description="Attempts the client retried."
        )
        self._rate_limited = meter.create_counter(
            "remedy.client.rate_limited",
            unit="{response}",
            description="429 Too Many Requests responses.",
        )
        self._waited = meter.create_counter(
            "remedy.client.wait.duration",
            unit="s",
            description="Seconds requests waited on the service's pause or the rate limit.",
        )
        self._clock = clock
        self._calls: dict[int, _Call] = {}

    def __repr__(self) -> str:
        return f"<OpenTelemetryBridge calls_open={len(self._calls)}>"

    @property
    def listening(self) -> bool:
        """Whether spans or metrics go anywhere: providers given, or set globally by an SDK.

        Global providers are set once per process, so a yes is kept; a no is asked again at
        most once a second (an SDK set up after the client counts from then on)."""
        if self._listening:
            return True
        now = time.monotonic()
        if now < self._ask_again_at:
            return False
        self._ask_again_at = now + RECHECK_SECONDS
        tracers = trace.get_tracer_provider()
        unset = isinstance(tracers, trace.ProxyTracerProvider | trace.NoOpTracerProvider)
        meters = metrics.get_meter_provider()
        self._listening = not (
            unset and isinstance(meters, _UnsetMeters | metrics.NoOpMeterProvider)
        )
        return self._listening

    def __call__(self, event: ClientEvent) -> None:
        handle = _HANDLERS.get(event.kind)
        if handle is not None:
            handle(self, event)

    def _call_of(self, event: ClientEvent) -> _Call | None:
        return None if event.call_id is None else self._calls.get(event.call_id)

    def _started(self, event: ClientEvent) -> None:
        parent = None if event.parent_id is None else self._calls.get(event.parent_id)
        if parent is not None:
            parent.children += 1
        operation = event.operation or "call"
        span = self._tracer.start_span(
            operation,
            context=None if parent is None else trace.set_span_in_context(parent.span),
            kind=SpanKind.INTERNAL,
            attributes={"remedy.operation": operation},
        )
        if event.call_id is not None:
            self._calls[event.call_id] = _Call(span, operation)

    def _ended(self, event: ClientEvent) -> None:
        call = None if event.call_id is None else self._calls.pop(event.call_id, None)
        if call is None:
            return
        span = call.span
        if call.children:
            span.set_attribute("remedy.calls", call.children)
        if event.detail == "closed early":
            span.set_attribute("remedy.closed_early", True)
        if event.error is not None:
            span.set_attribute("error.type", event.error)
            span.set_status(StatusCode.ERROR, event.error)
        span.end()

    def _request(self, event: ClientEvent) -> None:
        self._finish_attempt(error="superseded")  # never two at once in one task
        call = self._call_of(event)
        attributes = _http_attributes(event)
        if call is not None:
            attributes["remedy.operation"] = call.operation
        span_attributes: dict[str, Any] = {**attributes, "url.full": event.url}
        if event.attempt > 1:
            span_attributes["http.request.resend_count"] = event.attempt - 1
        span = self._tracer.start_span(
            event.method,
            context=None if call is None else trace.set_span_in_context(call.span),
            kind=SpanKind.CLIENT,
            attributes=span_attributes,
        )
        token = otel_context.attach(trace.set_span_in_context(span))
        _ATTEMPT.set(_Attempt(span, token, self._clock(), attributes))

    def _response(self, event: ClientEvent) -> None:
        if event.status == 429:
            call = self._call_of(event)
            self._rate_limited.add(1, _metric_attributes(event, call))
        self._finish_attempt(status=event.status)

    def _lost(self, event: ClientEvent) -> None:
        self._finish_attempt(error=event.error or "unknown")

    def _finish_attempt(self, *, status: int | None = None, error: str | None = None) -> None:
        attempt = _ATTEMPT.get()
        if attempt is None:
            return
        _ATTEMPT.set(None)
        otel_context.detach(attempt.token)
        attributes, span = attempt.attributes, attempt.span
        if status is not None:
            attributes["http.response.status_code"] = status
            span.set_attribute("http.response.status_code", status)
            if status >= 400:
                error = str(status)
        if error is not None:
            attributes["error.type"] = error
            span.set_attribute("error.type", error)
            span.set_status(StatusCode.ERROR)
        span.end()
        self._duration.record(max(self._clock() - attempt.started, 0.0), attributes)

    def _retry(self, event: ClientEvent) -> None:
        self._finish_attempt(error=event.error or "unknown")
        call = self._call_of(event)
        attributes: dict[str, Any] = {"remedy.attempt": event.attempt}
        if event.wait is not None:
            attributes["remedy.wait.seconds"] = event.wait
        if event.error is not None:
            attributes["error.type"] = event.error
        if event.status is not None:
            attributes["http.response.status_code"] = event.status
        if call is not None:
            call.span.add_event("remedy.retry", attributes)
        counted = _metric_attributes(event, call)
        if event.error is not None:
            counted["error.type"] = event.error
        self._retries.add(1, counted)

    def _wait(self, event: ClientEvent) -> None:
        call = self._call_of(event)
        reason = event.detail or "pause"
        if call is not None:
            call.span.add_event(
                "remedy.wait",
                {"remedy.wait.seconds": event.wait or 0.0, "remedy.wait.reason": reason},
            )
        counted = {**_metric_attributes(event, call), "remedy.wait.reason": reason}
        self._waited.add(event.wait or 0.0, counted)

    def _paging(self, event: ClientEvent) -> None:
        call = self._call_of(event)
        if call is not None and event.detail is not None:
            call.span.add_event("remedy.paging", {"remedy.convention": event.detail})

    def _shift(self, event: ClientEvent) -> None:
        call = self._call_of(event)
        if call is not None and event.detail is not None:
            call.span.add_event(
                "remedy.shift", {"remedy.shift": event.detail, "url.full": event.url}
            )


def _http_attributes(event: ClientEvent) -> dict[str, Any]:
    """The semantic conventions' attributes of an exchange, from the URL an event shows."""
    attributes: dict[str, Any] = {"http.request.method": event.method}
    try:
        url = URL(event.url)
        host, port = url.host, url.port
    except (ValueError, TypeError, UnicodeError):
        return attributes
    if host:
        attributes["server.address"] = host
    if port is not None:
        attributes["server.port"] = port
    return attributes


def _metric_attributes(event: ClientEvent, call: _Call | None) -> dict[str, Any]:
    attributes = _http_attributes(event)
    if call is not None:
        attributes["remedy.operation"] = call.operation
    return attributes


_HANDLERS: dict[str, Callable[[OpenTelemetryBridge, ClientEvent], None]] = {
    "call": OpenTelemetryBridge._started,
    "end": OpenTelemetryBridge._ended,
    "request": OpenTelemetryBridge._request,
    "response": OpenTelemetryBridge._response,
    "error": OpenTelemetryBridge._lost,
    "retry": OpenTelemetryBridge._retry,
    "wait": OpenTelemetryBridge._wait,
    "paging": OpenTelemetryBridge._paging,
    "shift": OpenTelemetryBridge._shift,
}
