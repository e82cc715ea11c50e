"""Puts a Payload on the wire, honestly or bent by a fault (stall, truncate, malformed, ...)."""

from __future__ import annotations

import socket
import struct
from collections.abc import Awaitable, Callable, Iterator
from typing import Final

from aiohttp import web

from ._responses import Payload
from ._run_config import FaultKind, FaultSpec

Sleep = Callable[[float], Awaitable[object]]

HTML: Final = "text/html; charset=utf-8"
MALFORMED_TAIL: Final = b"\n<<< malformed >>>"


def malformed(body: bytes) -> bytes:
    """Half of a JSON object or array plus junk: never valid JSON."""
    return body[: max(1, len(body) // 2)] + MALFORMED_TAIL


async def send(
    request: web.BaseRequest,
    payload: Payload,
    headers: dict[str, str],
    shaping: FaultSpec | None,
    sleep: Sleep,
) -> web.StreamResponse:
    """Answer `request` with `payload` plus `headers`, applying the shaping fault if any."""
    headers = {**headers, **payload.headers}
    kind = shaping.kind if shaping is not None else None
    content_type = HTML if kind is FaultKind.WRONG_CONTENT_TYPE else payload.content_type
    if content_type is not None:
        headers["Content-Type"] = content_type
    body = payload.body
    if body is not None and kind is FaultKind.MALFORMED:
        body = malformed(body)
    if body is not None and kind not in (FaultKind.STALL, FaultKind.TRUNCATE):
        return web.Response(status=payload.status, body=body, headers=headers)
    if body is not None:
        chunks: Iterator[bytes] = iter((body,))
        length: int | None = len(body)
    else:
        assert payload.chunks is not None
        chunks, length = payload.chunks(), payload.length
        if kind is FaultKind.MALFORMED:
            first = malformed(next(chunks, b"[]"))
            chunks, length = iter((first,)), None if length is None else len(first)
    response = web.StreamResponse(status=payload.status, headers=headers)
    if length is None:
        response.enable_chunked_encoding()
    else:
        response.content_length = length
    await response.prepare(request)
    if kind is FaultKind.STALL:
        assert shaping is not None
        await sleep(shaping.stall_seconds)
    if kind is FaultKind.TRUNCATE:
        await _send_part(request, response, chunks, length)
        return response
    for chunk in chunks:
        await response.write(chunk)
    await response.write_eof()
    return response


async def _send_part(
    request: web.BaseRequest,
    response: web.StreamResponse,
    chunks: Iterator[bytes],
    length: int | None,
) -> None:
    if length is None:
        for _ in range(2):
            await response.write(next(chunks, b""))
    else:
        first = next(chunks, b"")
        await response.write(first[: max(1, min(len(first), length // 2))])
    # close() still flushes what was written; the client then finds the body cut short.
    if request.transport is not None:
        request.transport.close()


def reset(request: web.BaseRequest) -> web.StreamResponse:
    """Drop the connection with a TCP RST; the returned response is never sent."""
    transport = request.transport
    if transport is not None:
        sock = transport.get_extra_info("socket")
        if sock is not None:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        transport.abort()
    return web.Response(status=500)
