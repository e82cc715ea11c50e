"""Reads and writes JSON text with every number exactly as the service sent it.

`loads` parses with msgspec, which keeps an integer of any size a Python int (a parser of
64-bit integers, such as orjson, turns `100000000000000000001` into the float `1e+20`) and a
float the same float; a number too large for a float (`1e400`) is refused with where it is,
never read as infinity. `dumps` writes with orjson, and with msgspec for a value orjson refuses
(one holding an integer past 64 bits): the same JSON values, so a record that orjson writes
is written byte for byte as before (a fingerprint stays the same) and one it cannot write is
written exactly, never rounded.
"""

from __future__ import annotations

import functools
import math
import re
from typing import TYPE_CHECKING, Any

import orjson

if TYPE_CHECKING:
    from types import ModuleType

_dumps = orjson.dumps
_SORTED = orjson.OPT_SORT_KEYS


@functools.cache
def msgspec_module() -> ModuleType:
    """msgspec, imported with the first body parsed (`import remedy_async` does not pay)."""
    import msgspec  # noqa: PLC0415

    return msgspec


class NotJSON(ValueError):
    """Bytes `loads` does not read: `what` they are (`an empty body`, `a body that is not valid
    JSON`, `a number too large for a float`), the parser's `detail`, and `path`, the JSON path
    of the number out of range (`$.items[3].score`; `$` when unknown)."""

    def __init__(self, what: str, detail: str = "", path: str = "$") -> None:
        super().__init__(f"{what} ({detail})" if detail else what)
        self.what = what
        self.detail = detail
        self.path = path


def loads(data: bytes | str) -> Any:
    """Parse JSON text, numbers exact: integers of any size as ints, floats as floats.

    Raises NotJSON for an empty text, text that is not JSON, a number out of range, or
    nesting deeper than the interpreter's recursion limit lets a parser build.
    """
    msgspec = msgspec_module()
    try:
        return msgspec.json.decode(data)
    except RecursionError:
        raise NotJSON("a body nested too deeply to read", "past the recursion limit") from None
    except msgspec.ValidationError as refused:  # valid JSON, but a number out of range
        raise _out_of_range(data, str(refused)) from None
    except msgspec.DecodeError as refused:
        if not data:
            raise NotJSON("an empty body") from None
        raise NotJSON("a body that is not valid JSON", str(refused)) from None


class _TooLarge:
    """Where the second parse found a float literal too large for a float (its text kept)."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text


def _float_or_mark(text: str) -> object:
    value = float(text)
    return _TooLarge(text) if math.isinf(value) else value


def _out_of_range(data: bytes | str, detail: str) -> NotJSON:
    """The NotJSON of a document holding a number out of range, naming the first one's path
    (found by parsing again with every float literal seen; only a refused body pays for it)."""
    msgspec = msgspec_module()
    try:
        document = msgspec.json.Decoder(float_hook=_float_or_mark).decode(data)
    except msgspec.DecodeError:  # an integer too long to read: where it is stays unknown
        return NotJSON("a number too large to read", detail.partition(" - at ")[0])
    first = _first_mark(document)
    if first is None:
        return NotJSON("a number too large to read", detail.partition(" - at ")[0])
    path, found = first
    shown = found.text if len(found.text) <= 40 else found.text[:39] + "…"
    return NotJSON("a number too large for a float", shown, path)


_PLAIN_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


def _first_mark(document: Any) -> tuple[str, _TooLarge] | None:
    """The JSON path of the first `_TooLarge` in a parsed document, depth first."""
    stack: list[tuple[str, Any]] = [("$", document)]
    while stack:
        path, value = stack.pop()
        if value.__class__ is _TooLarge:
            return path, value
        if isinstance(value, dict):
            stack.extend(
                (f"{path}.{key}" if _PLAIN_KEY.match(key) else f"{path}[{_dumps(key).decode()}]", v)
                for key, v in reversed(value.items())
            )
        elif isinstance(value, list):
            stack.extend((f"{path}[{index}]", v) for index, v in reversed(list(enumerate(value))))
    return None


def dumps(value: Any, *, sort_keys: bool = False) -> bytes:
    """Write a value as compact JSON, numbers exact (keys sorted at every depth with
    `sort_keys`): as orjson writes it, or as msgspec does when orjson refuses it (an integer
    past 64 bits)."""
    try:
        return _dumps(value, option=_SORTED) if sort_keys else _dumps(value)
    except TypeError as refused:
        msgspec = msgspec_module()
        try:
            return msgspec.json.encode(value, order="sorted" if sort_keys else None)  # type: ignore[no-any-return]
        except (TypeError, ValueError, msgspec.EncodeError):
            raise refused from None
