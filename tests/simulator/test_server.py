"""Requests aiohttp's parser refuses are answered as the contract answers errors, over a socket.

An over-long request line or header, too many headers, or bytes that are not HTTP never reach
the handler; the simulator still answers in the run's error shape with an `X-Request-Id`, and
with a status every operation of the run's document lists.
"""

from __future__ import annotations

import asyncio

import orjson
import pytest
from multidict import CIMultiDict

from remedy_async.simulator import ERROR_FORMATS, SimulatorConfig, openapi_document
from remedy_async.simulator._server import MAX_HEADER_FIELD, MAX_HEADERS, MAX_REQUEST_TARGET

from .documents import Document
from .helpers import StartSimulator

LIST = "/v1/endpoints"
HOST = b"Host: 127.0.0.1\r\n"
REFUSED = {
    "request-line": (
        b"GET " + LIST.encode() + b"?pad=" + b"a" * MAX_REQUEST_TARGET + b" HTTP/1.1\r\n"
        + HOST + b"\r\n",
        414,
        "uri_too_long",
    ),
    "header": (
        b"GET " + LIST.encode() + b" HTTP/1.1\r\n" + HOST
        + b"X-Pad: " + b"b" * (MAX_HEADER_FIELD + 1) + b"\r\n\r\n",
        431,
        "request_header_fields_too_large",
    ),
    "header-count": (
        b"GET " + LIST.encode() + b" HTTP/1.1\r\n" + HOST
        + b"".join(b"X-Pad-%d: 1\r\n" % n for n in range(MAX_HEADERS + 1)) + b"\r\n",
        431,
        "request_header_fields_too_large",
    ),
    "not-http": (b"\x16\x03\x01\x02\x00 not http\r\n\r\n", 400, "bad_request"),
}  # fmt: skip
"""Requests the parser refuses: the bytes, the status and the contract's code."""


async def exchange(port: int, request: bytes) -> tuple[int, CIMultiDict[str], bytes]:
    """Send raw bytes on a new connection; the response's status, headers and body."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        writer.write(request)
        await writer.drain()
        status_line, *lines = (await reader.readuntil(b"\r\n\r\n")).decode().split("\r\n")
        headers = CIMultiDict(line.split(": ", 1) for line in lines if line)
        body = await reader.readexactly(int(headers["Content-Length"]))
    finally:
        writer.close()
        await writer.wait_closed()
    return int(status_line.split()[1]), headers, body


@pytest.mark.parametrize("errors", ERROR_FORMATS)
@pytest.mark.parametrize("refused", list(REFUSED))
async def test_a_refused_request_gets_the_contracts_error(
    serve: StartSimulator, refused: str, errors: str
) -> None:
    """The status says what was too large, the body is the run's error shape, the request id
    is there, and every operation of the run's document describes that answer."""
    request, status, code = REFUSED[refused]
    simulator = await serve(error_format=errors)
    answered, headers, body = await exchange(simulator.port, request)
    assert answered == status
    assert headers["X-Request-Id"]
    document = Document(openapi_document(simulator.config))
    for path in document.spec["paths"]:
        document.check(path, status, headers, body)
    if errors == "error":
        assert orjson.loads(body)["error"]["code"] == code
    assert simulator.counters.requests == {"unmatched": 1}


@pytest.mark.parametrize(
    ("target", "pad", "status"),
    [(LIST + "/" + "e" * 12_000, "", 400), (LIST, "b" * 12_000, 200)],
    ids=["request-line", "header"],
)
async def test_a_request_a_load_balancer_takes_is_served(
    serve: StartSimulator, target: str, pad: str, status: int
) -> None:
    """A 12 KB request target or header (over aiohttp's 8,190 bytes, under an ALB's 16 KiB)
    reaches the handler, which answers it as any other."""
    simulator = await serve()
    request = f"GET {target} HTTP/1.1\r\nHost: x\r\nX-Pad: {pad}\r\nConnection: close\r\n\r\n"
    answered, headers, body = await exchange(simulator.port, request.encode())
    assert answered == status, body
    assert headers["Content-Type"] == "application/json"
    assert headers["X-Request-Id"]


def test_the_document_states_the_limits_the_server_applies() -> None:
    """The published contract names the same byte and header limits as the server enforces."""
    document = openapi_document(SimulatorConfig())
    said = " ".join(
        response["description"] for response in document["components"]["responses"].values()
    )
    for limit in (f"{MAX_REQUEST_TARGET:,} bytes", f"{MAX_HEADER_FIELD:,} bytes"):
        assert limit in said
    assert f"over {MAX_HEADERS} headers" in said


async def test_a_handler_that_fails_answers_the_contracts_500(
    serve: StartSimulator, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A bug in a route is a 500 `internal_error` in the run's shape with a request id, not
    aiohttp's text page."""
    simulator = await serve(error_format="problem")

    async def broken(*_: object) -> None:
        raise RuntimeError("a bug")

    monkeypatch.setattr(simulator._app, "_route", broken)
    request = b"GET /v1/health HTTP/1.1\r\nHost: x\r\n\r\n"
    answered, headers, body = await exchange(simulator.port, request)
    assert answered == 500
    assert headers["X-Request-Id"]
    Document(openapi_document(simulator.config)).check("/v1/health", 500, headers, body)
    assert orjson.loads(body)["code"] == "internal_error"
