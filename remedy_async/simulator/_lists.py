"""Serves one list request in one of the five paging schemes.

    none    bare JSON array of every match (streamed when long)
    offset  ?offset=&limit=      {"<items>": [...], "offset", "limit", "total"}
    page    ?page=&pageSize=     {"<items>": [...], "page", "pageSize", "total", "totalPages"}
    cursor  ?cursor=&limit=      {"<items>": [...], "nextCursor": "..." | null}
    link    ?cursor=&limit=      bare array + `Link: <...>; rel="next", <...>; rel="first"`

Cursors are urlsafe base64 of (version, filter fingerprint, last index) plus an HMAC keyed by the
seed, so a forged, garbled or re-targeted cursor is refused (400 invalid_cursor).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
import struct
from bisect import bisect_right
from collections.abc import Iterator, Sequence
from typing import Final
from urllib.parse import quote, urlencode

import attrs
import orjson
from multidict import MultiMapping
from yarl import URL

from ._config import PagingScheme
from ._dataset import Dataset
from ._filters import PAGING_PARAMETERS, Filters
from ._responses import ApiError, Payload

STREAM_BATCH: Final = 1000
"""Records per chunk when a bare array is streamed; shorter lists are sent in one piece."""

_CURSOR = struct.Struct(">B8sQ")
_CURSOR_VERSION: Final = 1
_MAC_BYTES: Final = 12
_CURSOR_TEXT = re.compile(r"^[A-Za-z0-9_-]+$")
_INTEGER = re.compile(r"^-?[0-9]{1,18}$")


class CursorCodec:
    """Issues and checks the opaque cursors of one seeded run."""

    def __init__(self, seed: int) -> None:
        self._key = hashlib.sha256(f"remedy-simulator-cursor:{seed}".encode()).digest()
        self._text_length = len(self.encode(Filters(""), 0))

    def __repr__(self) -> str:
        return "CursorCodec(key=...)"

    def encode(self, filters: Filters, last_index: int) -> str:
        """The cursor that resumes after record `last_index` of the list `filters` select."""
        payload = _CURSOR.pack(_CURSOR_VERSION, filters.fingerprint, last_index)
        mac = hmac.digest(self._key, payload, "sha256")[:_MAC_BYTES]
        return base64.urlsafe_b64encode(payload + mac).rstrip(b"=").decode()

    def decode(self, text: str, filters: Filters) -> int:
        """The last index a cursor stands for; ApiError 400 invalid_cursor if it is not ours."""
        if len(text) != self._text_length or not _CURSOR_TEXT.match(text):
            raise _invalid_cursor("it is not a cursor this server issued")
        raw = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
        payload, mac = raw[: _CURSOR.size], raw[_CURSOR.size :]
        expected = hmac.digest(self._key, payload, "sha256")[:_MAC_BYTES]
        if not hmac.compare_digest(mac, expected):
            raise _invalid_cursor("it is not a cursor this server issued, or it was altered")
        version, fingerprint, last_index = _CURSOR.unpack(payload)
        if version != _CURSOR_VERSION:
            raise _invalid_cursor("its version is not supported")  # pragma: no cover
        if fingerprint != filters.fingerprint:
            raise _invalid_cursor("it was issued for a different collection or other filters")
        return int(last_index)


def _invalid_cursor(reason: str) -> ApiError:
    return ApiError(400, "invalid_cursor", f"invalid cursor: {reason}")


@attrs.frozen
class ListRequest:
    """A list request with its filters already parsed and its matches found."""

    scheme: PagingScheme
    filters: Filters
    view: Sequence[int] = attrs.field(repr=lambda view: f"<{len(view)} matches>")
    query: MultiMapping[str] = attrs.field(repr=False)
    url: URL


@attrs.frozen
class ListResponder:
    """Turns list requests into pages, with the run's page sizes and envelope key."""

    dataset: Dataset = attrs.field(repr=False)
    cursors: CursorCodec = attrs.field(repr=False)
    items_key: str = "items"
    page_size: int = 100
    max_page_size: int = 1000

    def page(self, request: ListRequest) -> Payload:
        """The answer to `request` in its scheme."""
        if request.scheme == "none":
            return self._everything(request)
        if request.scheme == "offset":
            return self._offset_page(request)
        if request.scheme == "page":
            return self._numbered_page(request)
        return self._cursor_page(request)

    def _everything(self, request: ListRequest) -> Payload:
        view, filters = request.view, request.filters
        if len(view) <= STREAM_BATCH:
            return Payload(200, b"[" + self.dataset.encode_run(filters, view, 0, len(view)) + b"]")

        def chunks() -> Iterator[bytes]:
            encode, resource = self.dataset.encode, filters.resource
            yield b"["
            for start in range(0, len(view), STREAM_BATCH):
                batch = [encode(resource, index) for index in view[start : start + STREAM_BATCH]]
                yield (b"," if start else b"") + b",".join(batch)
            yield b"]"

        return Payload(200, chunks=chunks)

    def _offset_page(self, request: ListRequest) -> Payload:
        offset = _integer(request.query, "offset", 0, minimum=0)
        limit = self._limit(request.query, "limit")
        total = len(request.view)
        run = self._run(request, offset, offset + limit)
        return self._envelope(run, {"offset": offset, "limit": limit, "total": total})

    def _numbered_page(self, request: ListRequest) -> Payload:
        page = _integer(request.query, "page", 1, minimum=1)
        size = self._limit(request.query, "pageSize")
        total = len(request.view)
        start = (page - 1) * size
        run = self._run(request, start, start + size)
        pages = -(-total // size)
        return self._envelope(
            run, {"page": page, "pageSize": size, "total": total, "totalPages": pages}
        )

    def _cursor_page(self, request: ListRequest) -> Payload:
        limit = self._limit(request.query, "limit")
        cursors = request.query.getall("cursor", [])
        if len(cursors) > 1:
            raise ApiError(400, "invalid_parameter", "'cursor' must be given at most once")
        cursor = cursors[0] if cursors else ""
        start = 0
        if cursor:
            start = bisect_right(request.view, self.cursors.decode(cursor, request.filters))
        stop = min(start + limit, len(request.view))
        run = self._run(request, start, stop)
        next_cursor = None
        if stop < len(request.view):
            next_cursor = self.cursors.encode(request.filters, request.view[stop - 1])
        if request.scheme == "cursor":
            return self._envelope(run, {"nextCursor": next_cursor})
        links = [f'<{_link(request, limit, None)}>; rel="first"']
        if next_cursor is not None:
            links.insert(0, f'<{_link(request, limit, next_cursor)}>; rel="next"')
        return Payload(200, b"[" + run + b"]", headers={"Link": ", ".join(links)})

    def _run(self, request: ListRequest, start: int, stop: int) -> bytes:
        stop = min(stop, len(request.view))
        if start >= stop:
            return b""
        return self.dataset.encode_run(request.filters, request.view, start, stop)

    def _envelope(self, run: bytes, meta: dict[str, object]) -> Payload:
        head = b'{"' + self.items_key.encode() + b'":['
        return Payload(200, head + run + b"]," + orjson.dumps(meta)[1:])

    def _limit(self, query: MultiMapping[str], name: str) -> int:
        return _integer(query, name, self.page_size, minimum=1, maximum=self.max_page_size)


def _integer(
    query: MultiMapping[str], name: str, default: int, *, minimum: int, maximum: int | None = None
) -> int:
    values = query.getall(name, [])
    if not values:
        return default
    if len(values) > 1:
        raise ApiError(400, "invalid_parameter", f"{name!r} must be given at most once")
    text = values[0]
    if not _INTEGER.match(text):
        raise ApiError(400, "invalid_parameter", f"{name!r} must be an integer, got {text!r}")
    value = int(text)
    if value < minimum or (maximum is not None and value > maximum):
        bounds = f"at least {minimum}" if maximum is None else f"between {minimum} and {maximum}"
        raise ApiError(400, "invalid_parameter", f"{name!r} must be {bounds}, got {value}")
    return value


def _link(request: ListRequest, limit: int, cursor: str | None) -> str:
    pairs = [
        (name, value) for name, value in request.query.items() if name not in PAGING_PARAMETERS
    ]
    pairs.append(("limit", str(limit)))
    if cursor is not None:
        pairs.append(("cursor", cursor))
    base = str(request.url.with_query(None).with_fragment(None))
    return f"{base}?{urlencode(pairs, quote_via=quote, safe='')}"
