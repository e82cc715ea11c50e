"""OpenTelemetry, when it is installed: the client's setting, and the bridge loaded on demand.

Nothing here imports OpenTelemetry: `import remedy_async` never does. The first client built
with telemetry on (the default) tries to import the bridge (`_otel`), which imports
`opentelemetry-api`; when that is not installed the attempt is remembered and costs nothing
more, and the client builds no events for it.
"""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType
from typing import Any

from attrs import frozen

from ._errors import ConfigurationError
from ._sending._events import Telemetry as EventsTelemetry


@frozen
class Telemetry:
    """Where a client's OpenTelemetry spans and metrics go (`RemedyClient(telemetry=...)`).

    By default the global providers (`opentelemetry.trace.set_tracer_provider`, and
    `metrics.set_meter_provider`) receive them, once an SDK sets them; until then the client
    builds nothing for them. Give providers here to send one client's telemetry elsewhere.
    """

    tracer_provider: Any = None
    """An `opentelemetry.trace.TracerProvider`, or None for the global one."""
    meter_provider: Any = None
    """An `opentelemetry.metrics.MeterProvider`, or None for the global one."""


_bridge: ModuleType | None = None
_tried = False


def _bridge_module() -> ModuleType | None:
    """The OpenTelemetry bridge, imported on first use; None when OpenTelemetry is missing."""
    global _bridge, _tried  # noqa: PLW0603 - one import attempt per process
    if not _tried:
        _tried = True
        try:
            from . import _otel  # noqa: PLC0415 - imports opentelemetry: only when a client asks
        except ImportError:
            _otel = None  # type: ignore[assignment]
        _bridge = _otel
    return _bridge


def telemetry_for(setting: bool | Telemetry, clock: Callable[[], float]) -> EventsTelemetry | None:
    """The consumer of a client's events that makes its spans and metrics, if any.

    `False` turns telemetry off; `True` uses the global providers when OpenTelemetry is
    installed (and is nothing otherwise); a `Telemetry` value names providers, and needs it.
    """
    if setting is False:
        return None
    if setting is not True and not isinstance(setting, Telemetry):
        raise ConfigurationError(f"telemetry must be True, False or a Telemetry, got {setting!r}")
    module = _bridge_module()
    if module is None:
        if isinstance(setting, Telemetry):
            raise ConfigurationError(
                "telemetry=Telemetry(...) needs OpenTelemetry: pip install 'remedy-async[otel]'"
            )
        return None
    chosen = setting if isinstance(setting, Telemetry) else Telemetry()
    bridge: EventsTelemetry = module.OpenTelemetryBridge(
        chosen.tracer_provider, chosen.meter_provider, clock
    )
    return bridge
