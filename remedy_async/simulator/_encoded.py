"""The simulator's encoded JSON: of each record, and of runs of records as pages hold them."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

import orjson

from ._cache import SizedLRU
from ._records import Record


def _entry_size(body: bytes) -> int:
    return len(body) + 160  # the bytes object, its key tuple and the dict entry


class EncodedRecords:
    """Encodes records (as `build` makes them, respelled) and keeps the bytes within a budget:
    half of it for records, a quarter for runs of them (a page's records)."""

    def __init__(
        self,
        build: Callable[[str, int], Record],
        respell: Callable[[Any], Any],
        budget: int,
    ) -> None:
        self._build = build
        self._respell = respell
        self._records: SizedLRU[bytes] = SizedLRU(budget // 2, _entry_size)
        self._runs: SizedLRU[bytes] = SizedLRU(budget // 4, _entry_size)

    def record(self, resource: str, index: int) -> bytes:
        """The JSON of one record."""
        key = (resource, index)
        body = self._records.get(key)
        if body is None:
            # orjson's result keeps its over-allocated buffer (~4 KiB): keep an exact copy.
            encoded = orjson.dumps(self._respell(self._build(resource, index)))
            body = self._records.put(key, bytes(memoryview(encoded)))
        return body

    def run(
        self, resource: str, filters: object, view: Sequence[int], start: int, stop: int
    ) -> bytes:
        """The JSON of records view[start:stop] of a list with these `filters` (a fingerprint),
        comma-separated without brackets."""
        key = (resource, filters, start, stop)
        body = self._runs.get(key)
        if body is None:
            record = self.record
            body = b",".join([record(resource, index) for index in view[start:stop]])
            body = self._runs.put(key, body)
        return body

    def forget(self, resource: str, indices: Iterable[int]) -> None:
        """Forget these records' bytes, and every run (their content changed)."""
        for index in indices:
            self._records.discard((resource, index))
        self._runs.clear()

    def forget_runs(self) -> None:
        """Forget every run (which records a list holds changed)."""
        self._runs.clear()
