"""A least-recently-used cache bounded by the total size of what it holds."""

from __future__ import annotations

from array import array
from collections import OrderedDict
from collections.abc import Callable, Hashable, Sequence
from typing import Generic, TypeVar

V = TypeVar("V")


class SizedLRU(Generic[V]):
    """Keeps values until their summed `size_of` exceeds `max_size`, then drops the oldest.

    A value bigger than the whole budget is returned but not kept. With `max_size` 0 nothing is
    kept, which is how caching is switched off.
    """

    def __init__(self, max_size: int, size_of: Callable[[V], int]) -> None:
        self._max_size = max_size
        self._size_of = size_of
        self._size = 0
        self._entries: OrderedDict[Hashable, V] = OrderedDict()

    def __repr__(self) -> str:
        return (
            f"SizedLRU(entries={len(self._entries)}, size={self._size}, max_size={self._max_size})"
        )

    def __len__(self) -> int:
        return len(self._entries)

    @property
    def size(self) -> int:
        """The summed size of the values held."""
        return self._size

    def get(self, key: Hashable) -> V | None:
        """The value for `key`, marked as recently used; None when absent."""
        value = self._entries.get(key)
        if value is not None:
            self._entries.move_to_end(key)
        return value

    def put(self, key: Hashable, value: V) -> V:
        """Keep `value` under `key` (if it fits) and return it."""
        size = self._size_of(value)
        if size > self._max_size:
            return value
        previous = self._entries.pop(key, None)
        if previous is not None:
            self._size -= self._size_of(previous)
        self._entries[key] = value
        self._size += size
        while self._size > self._max_size:
            _, dropped = self._entries.popitem(last=False)
            self._size -= self._size_of(dropped)
        return value

    def discard(self, key: Hashable) -> None:
        """Drop the value under `key`, if any."""
        value = self._entries.pop(key, None)
        if value is not None:
            self._size -= self._size_of(value)

    def clear(self) -> None:
        """Drop everything."""
        self._entries.clear()
        self._size = 0


def view_size(view: Sequence[int]) -> int:
    """The bytes a view of record indices holds: an array's items, a range's fixed cost."""
    return view.itemsize * len(view) if isinstance(view, array) else 64
