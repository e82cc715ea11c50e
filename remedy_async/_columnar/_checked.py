"""Wire dicts, each checked against its model first: as fast as served, never unchecked.

`checked_dicts(pager)` lists what `pager` lists, with its paging, resume tokens, retries and
secrets, and yields each record as a snake_case wire dict only once the model's structure
function (the same fast path a typed list uses, cattrs for anything unusual) has accepted it:
a record that does not decode raises DecodeError with its JSON path, as a typed list would.
When the service spells keys as the contract does (snake_case), the dict yielded is the one
served, untouched: a generated check (`_fastpath.check_hook`) applies the structure function's
rules without building a model, and nothing is turned back into a dict (which cost an export
half its time);
when it spells them otherwise (detected once per resource, with a ContractDriftWarning), the
record is written back in snake_case by `to_wire`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from remedy_async._paging._pager import Pager
from remedy_async._wire._codec import to_wire
from remedy_async._wire._fastpath import check_hook
from remedy_async._wire._naming import CONTRACT_NAMING
from remedy_async._wire._record_reader import RecordReader
from remedy_async._wire._types import WireFault

T = TypeVar("T")

WireDict = dict[str, Any]


class CheckedWire:
    """An item reader yielding each record's wire dict once its model accepted it."""

    model: type[WireDict] = dict

    def __init__(self, reader: RecordReader[Any]) -> None:
        self._reader = reader
        self._check = check_hook(reader.model)

    def __repr__(self) -> str:
        return f"<CheckedWire {self._reader!r}>"

    def hook_for(self, items: Sequence[Any]) -> Callable[[object, object], WireDict]:
        """The page's check: the model's structure function, naming decided on this page."""
        structure = self._reader.hook_for(items)
        model = self._reader.model
        if self._reader.naming == CONTRACT_NAMING:
            return self._check

        def respelt(data: object, _: object) -> WireDict:
            return to_wire(structure(data, model), CONTRACT_NAMING)

        return respelt

    def fault(self, exc: BaseException, path: str) -> WireFault:
        """Why the record at `path` does not decode, in the naming read."""
        return self._reader.fault(exc, path)


def checked_dicts(pager: Pager[Any]) -> Pager[WireDict]:
    """The same list as `pager`, yielding checked snake_case wire dicts (see the module doc).

    The pager must be a typed one from `collection.list(...)`, not an `as_dicts()` variant.
    """
    call = pager._call  # the pager's own list call: one value carries paging, limits, secrets
    reader = call.reader
    if not isinstance(reader, RecordReader):
        raise TypeError("checked_dicts() needs the typed pager of collection.list(...)")
    return Pager(call.reading(CheckedWire(reader)))
