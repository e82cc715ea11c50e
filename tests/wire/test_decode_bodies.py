"""A DecodeError keeps the body that did not fit, as an error status does: parsed JSON or text,
bounded at BODY_LIMIT with the cut said, the token redacted; for a body that is not JSON, a
record that does not fit its model, and a page whose record does not."""

from __future__ import annotations

import orjson
import pytest

from remedy_async import DecodeError, MockResponse
from remedy_async._errors import BODY_LIMIT
from remedy_async._redact import REDACTED
from remedy_async._wire._json import dumps
from tests.fakes import endpoint_record, page
from tests.loopback import CANARY
from tests.mock_service import Routes

ID = "00000000-0000-4000-8000-000000000007"


async def test_a_body_that_is_not_json_is_kept_as_text() -> None:
    """A 200 with an HTML page where JSON was expected keeps the page, the token redacted."""
    html = f"<html><body>maintenance, key {CANARY}</body></html>"
    service = Routes({"/v1/endpoints/{id}": lambda request, id: MockResponse.text(200, html)})
    async with service.client(token=CANARY) as client:
        with pytest.raises(DecodeError) as caught:
            await client.endpoints.get(ID)
    assert caught.value.body == f"<html><body>maintenance, key {REDACTED}</body></html>"
    assert caught.value.body_truncated is False


async def test_a_number_out_of_range_keeps_the_body_as_text() -> None:
    """A body JSON cannot hold exactly (1e400) is kept as the text that arrived."""
    raw = '{"id": "x", "score": 1e400}'
    service = Routes(
        {
            "/v1/endpoints/{id}": lambda request, id: MockResponse(
                200, {"Content-Type": "application/json"}, raw.encode()
            )
        }
    )
    async with service.client() as client:
        with pytest.raises(DecodeError) as caught:
            await client.endpoints.get(ID)
    assert caught.value.path == "$.score"
    assert caught.value.body == raw


async def test_a_record_that_does_not_fit_keeps_the_record_parsed() -> None:
    """A get whose record lacks a required field keeps that record as parsed JSON, numbers
    exact and the token redacted, beside the path of the fault."""
    record = endpoint_record(ID, risk=2**65, note=f"seen with {CANARY}")
    del record["hostname"]
    raw = dumps(record)  # an integer past 64 bits, written exactly
    json = {"Content-Type": "application/json"}
    service = Routes({"/v1/endpoints/{id}": lambda request, id: MockResponse(200, json, raw)})
    async with service.client(token=CANARY) as client:
        with pytest.raises(DecodeError) as caught:
            await client.endpoints.get(ID)
    error = caught.value
    assert error.path == "$.hostname"
    assert error.body == {**record, "note": f"seen with {REDACTED}"}
    assert error.body_truncated is False


async def test_a_page_whose_record_does_not_fit_keeps_the_page() -> None:
    """A list page with one record of the wrong shape keeps the whole page, parsed."""
    good = endpoint_record(ID)
    bad = endpoint_record("00000000-0000-4000-8000-000000000008", ip=42)
    sent = page([good, bad])
    service = Routes({"/v1/endpoints": lambda request: MockResponse.json(200, sent)})
    async with service.client() as client:
        with pytest.raises(DecodeError) as caught:
            await client.endpoints.list().collect()
    assert caught.value.path == "$.data[1].ip"
    assert caught.value.body == sent


async def test_a_page_over_the_limit_is_kept_cut_as_text() -> None:
    """A page larger than BODY_LIMIT whose last record does not fit keeps the first BODY_LIMIT
    bytes of the page as written, and says it was cut."""
    records = [
        endpoint_record(f"00000000-0000-4000-8000-{index:012d}", hostname="h" * 900)
        for index in range(100)
    ]
    records[-1]["ip"] = 42
    sent = page(records)
    service = Routes({"/v1/endpoints": lambda request: MockResponse.json(200, sent)})
    async with service.client() as client:
        with pytest.raises(DecodeError) as caught:
            await client.endpoints.list().collect()
    error = caught.value
    assert error.body_truncated is True
    assert isinstance(error.body, str)
    assert len(error.body.encode()) == BODY_LIMIT
    assert orjson.dumps(sent).decode().startswith(error.body)
