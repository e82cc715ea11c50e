"""The token never reaches OpenTelemetry: spans and metrics of calls to a hostile service that
echoes the credential into cursors, next links and redirects show it redacted, never in clear.

(The `otel` fixture's exports are also watched for the canary for every test that uses it.)"""

from __future__ import annotations

import pytest

from remedy_async import RemedyClient
from remedy_async.simulator import Simulator
from tests.loopback import CANARY
from tests.otel import Otel


@pytest.mark.remedy_simulator(token=CANARY, echo_token=True, size=30, page_size=10)
async def test_spans_and_metrics_of_an_echoing_service_never_show_the_token(
    otel: Otel, remedy_simulator: Simulator
) -> None:
    """Echoed into page URLs and redirects, the token shows as [REDACTED] in `url.full` and
    nowhere in any exported span or metric; no request header is ever recorded."""
    client = RemedyClient(
        remedy_simulator.url, token=CANARY, follow_redirects=True, telemetry=otel.telemetry
    )
    async with client:
        records = await client.endpoints.list().collect()
        await client.endpoints.get(records[0].id)
    exported = "".join(otel.exported_text())
    urls = [str((span.attributes or {}).get("url.full", "")) for span in otel.spans("GET")]
    assert CANARY not in exported
    assert any("[REDACTED]" in url for url in urls)
    assert "authorization" not in exported.lower()
