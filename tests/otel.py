"""OpenTelemetry for tests: an SDK tracer and meter provider per test, exporting in memory."""

from __future__ import annotations

from typing import Any

from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from remedy_async import Telemetry


class Otel:
    """What one test's clients exported: finished spans and collected metrics."""

    def __init__(self) -> None:
        self.exporter = InMemorySpanExporter()
        self.tracer_provider = TracerProvider()
        self.tracer_provider.add_span_processor(SimpleSpanProcessor(self.exporter))
        self.reader = InMemoryMetricReader()
        self.meter_provider = MeterProvider(metric_readers=[self.reader])
        self.telemetry = Telemetry(self.tracer_provider, self.meter_provider)
        self._metrics: Any = None

    def spans(self, name: str | None = None) -> list[ReadableSpan]:
        """The finished spans (named `name`, if given), in the order they ended."""
        found = list(self.exporter.get_finished_spans())
        return found if name is None else [span for span in found if span.name == name]

    def span(self, name: str) -> ReadableSpan:
        """The one finished span named `name`."""
        (found,) = self.spans(name)
        return found

    def children(self, parent: ReadableSpan) -> list[ReadableSpan]:
        """The finished spans whose parent is `parent`."""
        assert parent.context is not None
        return [
            span
            for span in self.spans()
            if span.parent is not None and span.parent.span_id == parent.context.span_id
        ]

    def points(self, name: str) -> list[Any]:
        """The data points of the metric `name` collected so far (none: an empty list)."""
        data = self.reader.get_metrics_data()
        self._metrics = data
        if data is None:
            return []
        return [
            point
            for resource in data.resource_metrics
            for scope in resource.scope_metrics
            for metric in scope.metrics
            if metric.name == name
            for point in metric.data.data_points
        ]

    def exported_text(self) -> list[str]:
        """Every span and every metric collected, as JSON text (for the canary watch)."""
        texts = [span.to_json() for span in self.spans()]
        data = self.reader.get_metrics_data() or self._metrics
        if data is not None:
            texts.append(data.to_json())
        return texts

    def shutdown(self) -> None:
        self.tracer_provider.shutdown()
        self.meter_provider.shutdown()
