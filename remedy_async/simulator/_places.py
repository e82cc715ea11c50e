"""Reads where a list request wants to be (a `Place`), and issues and checks the cursors.

The page size comes from the paging row's `size_param`; the place in the list from its `param`:
an offset, a page number (counted from the row's `first_page`), an opaque cursor, or the id of
the last record received (keyset). Bad values are 422 `invalid_parameter` (as the service's
FastAPI answers a `limit` out of bounds), with a message naming the parameter and its bounds
(`limit must be between 1 and 100.`); a cursor this run did not issue for these filters is 400
`invalid_cursor`. The contract's own paging parameters (`offset`, `limit`, `page`, `pageSize`,
`cursor`) keep their bounds in every convention: one a row does not read is still checked
(`check_contract_parameters`), then ignored.

A cursor (`CursorCodec`) is urlsafe base64 of (version, filter fingerprint, last index) plus an
HMAC keyed by the seed, so a forged, garbled or re-targeted cursor is refused; a run in update
order (`SimulatorConfig.order="updated"`) adds the time of the last record's change, as a
database cursor over `(updated_at, id)` carries both. In echo mode a cursor ends in `.` and the
request's credential, which is ignored when it comes back. The last index (and time) is a place
in the unfiltered list's order, not a count, so a cursor stays exact while records are hidden,
shown or moved (`Dataset.hide`, `Dataset.modify`): the next page starts at the first visible
record after it. A keyset id is placed where its record stands now (a service given only an id
can do no better): once that record moved to the end, the list resumes after it.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import math
import re
import struct
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Sequence
from typing import Any, Final, NamedTuple

from multidict import MultiMapping

from remedy_async import Convention

from ._dataset import Dataset
from ._matching import Filters
from ._responses import ApiError

_INTEGER: Final = re.compile(r"^-?[0-9]{1,18}$")
MAX_POSITION: Final = 2**31 - 1
"""The largest offset or page number a request may ask for (past the data, pages are empty)."""
CONTRACT_POSITIONS: Final = {"offset": 0, "page": 1}
"""The contract's place parameters, each with its smallest value."""
CONTRACT_SIZES: Final = ("limit", "pageSize")
"""The contract's page-size parameters (1 to the run's maximum page size)."""
CONTRACT_CURSOR: Final = "cursor"
CONTINUING: Final = frozenset({"url", "token", "keyset"})
"""The follow kinds whose `param` carries a continuation handed out by an earlier page."""


class Place(NamedTuple):
    """Where a page starts in the filtered list, and how the service names that place."""

    start: int
    """Index into the filtered list of the page's first record."""
    position: int
    """The offset or page number served (what `position_at` echoes)."""


def carries_continuation(convention: Convention, query: MultiMapping[str]) -> bool:
    """Whether a list request continues from a cursor, URL or id an earlier page gave."""
    param = convention.param
    return convention.follow in CONTINUING and param is not None and bool(query.get(param))


INVALID: Final = 422
"""The status of a query parameter out of its bounds (FastAPI's validation error)."""


def invalid_parameter(name: str, message: str) -> ApiError:
    """The 422 answer to a bad value of the query parameter `name`."""
    return ApiError(INVALID, "invalid_parameter", message, location=("query", name))


def single(query: MultiMapping[str], name: str) -> str | None:
    """The one value of a query parameter, or None; 422 if it is given more than once."""
    values = query.getall(name, [])
    if not values:
        return None
    if len(values) > 1:
        raise invalid_parameter(name, f"{name} must be given at most once.")
    return values[0]


def bounds(minimum: int, maximum: int | None) -> str:
    """How a message says an integer's bounds: `between 1 and 100`, `at least 0`."""
    if maximum is None or maximum >= MAX_POSITION:
        return f"at least {minimum}"
    return f"between {minimum} and {maximum}"


def integer(
    query: MultiMapping[str], name: str, default: int, *, minimum: int, maximum: int | None = None
) -> int:
    """An integer query parameter within bounds, or `default`; 422 invalid_parameter if not."""
    text = single(query, name)
    if text is None:
        return default
    if not _INTEGER.match(text):
        raise invalid_parameter(name, f"{name} must be an integer {bounds(minimum, maximum)}.")
    value = int(text)
    if value < minimum:
        raise invalid_parameter(name, f"{name} must be {bounds(minimum, maximum)}.")
    if maximum is not None and value > maximum:
        said = bounds(minimum, maximum) if maximum < MAX_POSITION else f"at most {maximum}"
        raise invalid_parameter(name, f"{name} must be {said}.")
    return value


def check_contract_parameters(
    convention: Convention, query: MultiMapping[str], max_page_size: int
) -> None:
    """422 invalid_parameter for a contract paging parameter out of its bounds, in any
    convention; those `convention` reads itself are left to it (their bounds may differ)."""
    own = convention.parameter_names
    for name, minimum in CONTRACT_POSITIONS.items():
        if name not in own:
            integer(query, name, minimum, minimum=minimum, maximum=MAX_POSITION)
    for name in CONTRACT_SIZES:
        if name not in own:
            integer(query, name, 1, minimum=1, maximum=max_page_size)
    if CONTRACT_CURSOR not in own:
        single(query, CONTRACT_CURSOR)


def offset_place(convention: Convention, query: MultiMapping[str]) -> Place:
    """The place an offset (from 0) in `param` asks for."""
    assert convention.param is not None
    offset = integer(query, convention.param, 0, minimum=0, maximum=MAX_POSITION)
    return Place(offset, offset)


def page_place(convention: Convention, query: MultiMapping[str], size: int) -> Place:
    """The place a page number in `param` asks for, pages counted from `first_page`."""
    assert convention.param is not None
    first = convention.first_page
    page = integer(query, convention.param, first, minimum=first, maximum=MAX_POSITION)
    return Place((page - first) * size, page)


OrderKey = Callable[[int], tuple[float, int]]
"""What sorts a list in update order (`Dataset.order_key`): index -> (change time, index)."""


def cursor_place(
    convention: Convention,
    query: MultiMapping[str],
    cursors: CursorCodec,
    filters: Filters,
    view: Sequence[int],
    order: OrderKey | None = None,
) -> Place:
    """The place right after the record an opaque cursor in `param` stands for (`order`: the
    list's sort key in update order; None in creation order)."""
    assert convention.param is not None
    cursor = single(query, convention.param)
    if not cursor:
        return Place(0, 0)
    if order is None:
        start = bisect_right(view, cursors.decode(cursor, filters, parameter=convention.param))
    else:
        place = cursors.decode_place(cursor, filters, parameter=convention.param)
        start = bisect_right(view, place, key=order)
    return Place(start, start)


def keyset_place(
    convention: Convention,
    query: MultiMapping[str],
    dataset: Dataset,
    filters: Filters,
    view: Sequence[int],
    order: OrderKey | None = None,
) -> Place:
    """The place right after the record whose id is in `param`; 422 if the list lacks it
    (`order`: the list's sort key in update order; None in creation order).

    A record of the list that has been hidden since (`Dataset.hide`) still marks its place:
    the page starts at the first visible record after it.
    """
    assert convention.param is not None
    last_id = single(query, convention.param)
    if not last_id:
        return Place(0, 0)
    index = dataset.index_of(filters.resource, last_id, include_hidden=True)
    if index is not None:
        found = _find(view, index, order)
        if found < len(view) and view[found] == index:
            return Place(found + 1, found + 1)
        if _holds(dataset.matches(filters, include_hidden=True), index, order):
            return Place(found, found)
    raise invalid_parameter(
        convention.param,
        f"{convention.param} must be the id of a record of this list, got {last_id[:80]!r}.",
    )


def _find(view: Sequence[int], index: int, order: OrderKey | None) -> int:
    """Where record `index` is, or would be, in `view` (sorted by `order`, else ascending)."""
    if order is None:
        return bisect_left(view, index)
    return bisect_left(view, order(index), key=order)


def _holds(view: Sequence[int], index: int, order: OrderKey | None = None) -> bool:
    """Whether `view` (sorted by `order`, else ascending) holds `index`."""
    found = _find(view, index, order)
    return found < len(view) and view[found] == index


# Opaque cursors: issued and checked here, bound to a run's seed and a list's filters.

_CURSOR = struct.Struct(">B8sQ")
_CURSOR_VERSION: Final = 1
_STAMPED = struct.Struct(">B8sQd")
_STAMPED_VERSION: Final = 2
"""A cursor of a run in update order: the last record's index and the time of its change."""
NEVER: Final = -math.inf
"""The change time of a record never changed (first in update order)."""
_MAC_BYTES: Final = 12
_CURSOR_TEXT = re.compile(r"^[A-Za-z0-9_-]+$")
ECHO_SEPARATOR: Final = "."
"""Separates a cursor from the credential echoed after it (never in urlsafe base64)."""


class CursorCodec:
    """Issues and checks the opaque cursors of one seeded run; `stamped` (a run in update
    order) cursors carry the time of the last record's change too."""

    def __init__(self, seed: int, *, echo: bool = False, stamped: bool = False) -> None:
        self._key = hashlib.sha256(f"remedy-simulator-cursor:{seed}".encode()).digest()
        self._echo = echo
        self._format, self._version = (
            (_STAMPED, _STAMPED_VERSION) if stamped else (_CURSOR, _CURSOR_VERSION)
        )
        self._text_length = len(self.encode(Filters(""), 0))

    def __repr__(self) -> str:
        stamped = self._version == _STAMPED_VERSION
        return f"CursorCodec(key=..., echo={self._echo}, stamped={stamped})"

    def encode(
        self, filters: Filters, last_index: int, echo: str | None = None, *, stamp: float = NEVER
    ) -> str:
        """The cursor that resumes after record `last_index` of the list `filters` select
        (changed last at `stamp`, which only a stamped codec keeps).

        `echo` (echo mode: the request's credential) is appended after a `.`.
        """
        if self._version == _STAMPED_VERSION:
            payload = self._format.pack(self._version, filters.fingerprint, last_index, stamp)
        else:
            payload = _CURSOR.pack(_CURSOR_VERSION, filters.fingerprint, last_index)
        mac = hmac.digest(self._key, payload, "sha256")[:_MAC_BYTES]
        text = base64.urlsafe_b64encode(payload + mac).rstrip(b"=").decode()
        return text if echo is None else f"{text}{ECHO_SEPARATOR}{echo}"

    def decode(self, text: str, filters: Filters, *, parameter: str = "cursor") -> int:
        """The last index a cursor stands for; ApiError 400 invalid_cursor if it is not ours.

        `parameter` names the query parameter that carried it, for the error's location.
        """
        return int(self._fields(text, filters, parameter)[2])

    def decode_place(
        self, text: str, filters: Filters, *, parameter: str = "cursor"
    ) -> tuple[float, int]:
        """The place a cursor stands for, as `Dataset.order_key` writes places: (the time its
        record last changed, -inf for an unstamped cursor; its index); as `decode` refuses."""
        fields = self._fields(text, filters, parameter)
        return (float(fields[3]) if len(fields) > 3 else NEVER, int(fields[2]))

    def _fields(self, text: str, filters: Filters, parameter: str) -> tuple[Any, ...]:
        """A cursor's payload, checked: (version, fingerprint, last index[, stamp])."""
        where = ("query", parameter)
        if self._echo:
            text = text.partition(ECHO_SEPARATOR)[0]
        if len(text) != self._text_length or not _CURSOR_TEXT.match(text):
            raise invalid_cursor("it is not a cursor this server issued", where)
        raw = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
        size = self._format.size
        payload, mac = raw[:size], raw[size:]
        expected = hmac.digest(self._key, payload, "sha256")[:_MAC_BYTES]
        if not hmac.compare_digest(mac, expected):
            raise invalid_cursor("it is not a cursor this server issued, or it was altered", where)
        fields: tuple[Any, ...] = self._format.unpack(payload)
        if fields[0] != self._version:
            raise invalid_cursor("its version is not supported", where)  # pragma: no cover
        if fields[1] != filters.fingerprint:
            raise invalid_cursor("it was issued for a different collection or other filters", where)
        return fields


def invalid_cursor(reason: str, location: tuple[str, ...] = ()) -> ApiError:
    """The 400 invalid_cursor answer, saying why."""
    return ApiError(400, "invalid_cursor", f"invalid cursor: {reason}", location=location)
