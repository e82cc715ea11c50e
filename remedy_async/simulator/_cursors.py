"""Issues and checks the simulator's opaque cursors, bound to a run's seed and a list's filters.

A cursor is urlsafe base64 of (version, filter fingerprint, last index) plus an HMAC keyed by
the seed, so a forged, garbled or re-targeted cursor is refused (400 invalid_cursor).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
import struct
from typing import Final

from ._filters import Filters
from ._responses import ApiError

_CURSOR = struct.Struct(">B8sQ")
_CURSOR_VERSION: Final = 1
_MAC_BYTES: Final = 12
_CURSOR_TEXT = re.compile(r"^[A-Za-z0-9_-]+$")


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
            raise invalid_cursor("it is not a cursor this server issued")
        raw = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
        payload, mac = raw[: _CURSOR.size], raw[_CURSOR.size :]
        expected = hmac.digest(self._key, payload, "sha256")[:_MAC_BYTES]
        if not hmac.compare_digest(mac, expected):
            raise invalid_cursor("it is not a cursor this server issued, or it was altered")
        version, fingerprint, last_index = _CURSOR.unpack(payload)
        if version != _CURSOR_VERSION:
            raise invalid_cursor("its version is not supported")  # pragma: no cover
        if fingerprint != filters.fingerprint:
            raise invalid_cursor("it was issued for a different collection or other filters")
        return int(last_index)


def invalid_cursor(reason: str) -> ApiError:
    """The 400 invalid_cursor answer, saying why."""
    return ApiError(400, "invalid_cursor", f"invalid cursor: {reason}")
