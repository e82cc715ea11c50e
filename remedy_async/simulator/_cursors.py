"""Issues and checks the simulator's opaque cursors, bound to a run's seed and a list's filters.

A cursor is urlsafe base64 of (version, filter fingerprint, last index) plus an HMAC keyed by
the seed, so a forged, garbled or re-targeted cursor is refused (400 invalid_cursor). In echo
mode a cursor ends in `.` and the request's credential, which is ignored when it comes back.
The last index is a place in the unfiltered list's order, not a count, so a cursor stays exact
while records are hidden or shown (`Dataset.hide`): the next page starts at the first visible
record after it.
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
ECHO_SEPARATOR: Final = "."
"""Separates a cursor from the credential echoed after it (never in urlsafe base64)."""


class CursorCodec:
    """Issues and checks the opaque cursors of one seeded run."""

    def __init__(self, seed: int, *, echo: bool = False) -> None:
        self._key = hashlib.sha256(f"remedy-simulator-cursor:{seed}".encode()).digest()
        self._echo = echo
        self._text_length = len(self.encode(Filters(""), 0))

    def __repr__(self) -> str:
        return f"CursorCodec(key=..., echo={self._echo})"

    def encode(self, filters: Filters, last_index: int, echo: str | None = None) -> str:
        """The cursor that resumes after record `last_index` of the list `filters` select.

        `echo` (echo mode: the request's credential) is appended after a `.`.
        """
        payload = _CURSOR.pack(_CURSOR_VERSION, filters.fingerprint, last_index)
        mac = hmac.digest(self._key, payload, "sha256")[:_MAC_BYTES]
        text = base64.urlsafe_b64encode(payload + mac).rstrip(b"=").decode()
        return text if echo is None else f"{text}{ECHO_SEPARATOR}{echo}"

    def decode(self, text: str, filters: Filters, *, parameter: str = "cursor") -> int:
        """The last index a cursor stands for; ApiError 400 invalid_cursor if it is not ours.

        `parameter` names the query parameter that carried it, for the error's location.
        """
        where = ("query", parameter)
        if self._echo:
            text = text.partition(ECHO_SEPARATOR)[0]
        if len(text) != self._text_length or not _CURSOR_TEXT.match(text):
            raise invalid_cursor("it is not a cursor this server issued", where)
        raw = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
        payload, mac = raw[: _CURSOR.size], raw[_CURSOR.size :]
        expected = hmac.digest(self._key, payload, "sha256")[:_MAC_BYTES]
        if not hmac.compare_digest(mac, expected):
            raise invalid_cursor("it is not a cursor this server issued, or it was altered", where)
        version, fingerprint, last_index = _CURSOR.unpack(payload)
        if version != _CURSOR_VERSION:
            raise invalid_cursor("its version is not supported", where)  # pragma: no cover
        if fingerprint != filters.fingerprint:
            raise invalid_cursor("it was issued for a different collection or other filters", where)
        return int(last_index)


def invalid_cursor(reason: str, location: tuple[str, ...] = ()) -> ApiError:
    """The 400 invalid_cursor answer, saying why."""
    return ApiError(400, "invalid_cursor", f"invalid cursor: {reason}", location=location)
