"""Cheap, stateless randomness: a record's values are a pure function of (seed, resource, index)."""

from __future__ import annotations

import hashlib
import time
from collections.abc import Sequence
from functools import lru_cache
from typing import Final, TypeVar

T = TypeVar("T")

MASK64: Final = (1 << 64) - 1
_GOLDEN: Final = 0x9E3779B97F4A7C15
_TWO_64: Final = float(1 << 64)


def mix64(value: int) -> int:
    """Scramble a 64-bit value (splitmix64's finaliser: a bijection with good avalanche)."""
    value = (value + _GOLDEN) & MASK64
    value = ((value ^ (value >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    value = ((value ^ (value >> 27)) * 0x94D049BB133111EB) & MASK64
    return value ^ (value >> 31)


@lru_cache(maxsize=1024)
def name_key(name: str) -> int:
    """A stable 64-bit key for a name (the same in every process, unlike hash())."""
    return int.from_bytes(hashlib.blake2b(name.encode(), digest_size=8).digest(), "little")


def seed_key(seed: int, purpose: str) -> int:
    """The 64-bit key of one stream (a resource, a field, faults, ...) of a seeded run."""
    return mix64((seed & MASK64) ^ name_key(purpose))


def draw(key: int, index: int) -> int:
    """The `index`-th 64-bit value of the stream `key`: mix64(key + index * golden), inlined."""
    value = (key + (index + 1) * _GOLDEN) & MASK64
    value = ((value ^ (value >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    value = ((value ^ (value >> 27)) * 0x94D049BB133111EB) & MASK64
    return value ^ (value >> 31)


def unit(value: int) -> float:
    """Map a 64-bit value to [0, 1)."""
    return value / _TWO_64


class Stream:
    """Successive draws from one record's key, for the fields nobody filters on cheaply."""

    __slots__ = ("_counter", "_key")

    def __init__(self, key: int) -> None:
        self._key = key
        self._counter = 0

    def __repr__(self) -> str:
        return f"Stream(key={self._key:#018x}, drawn={self._counter})"

    def next(self) -> int:
        """Return the next 64-bit value."""
        self._counter += 1
        return draw(self._key, self._counter)

    def below(self, bound: int) -> int:
        """Return an int in [0, bound)."""
        return self.next() % bound

    def between(self, low: int, high: int) -> int:
        """Return an int in [low, high]."""
        return low + self.next() % (high - low + 1)

    def chance(self, probability: float) -> bool:
        """Return True with the given probability."""
        return unit(self.next()) < probability

    def pick(self, choices: Sequence[T]) -> T:
        """Return one of `choices`, uniformly."""
        return choices[self.next() % len(choices)]

    def sample(self, choices: Sequence[T], count: int) -> list[T]:
        """Return `count` distinct elements of `choices`, in their original order."""
        chosen = sorted({self.next() % len(choices) for _ in range(count)})
        return [choices[position] for position in chosen]


def weighted(value: int, cumulative: Sequence[int]) -> int:
    """Pick the position in a cumulative weight table (whose last entry is the total)."""
    target = value % cumulative[-1]
    for position, bound in enumerate(cumulative):
        if target < bound:
            return position
    raise AssertionError("unreachable: target is below the total")  # pragma: no cover


def cumulative(weights: Sequence[int]) -> tuple[int, ...]:
    """Turn weights into the cumulative table `weighted` reads."""
    total = 0
    table = []
    for weight in weights:
        total += weight
        table.append(total)
    return tuple(table)


def iso(epoch_seconds: float) -> str:
    """Format Unix time as ISO 8601 UTC with a `Z`, to the second."""
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(int(epoch_seconds)))
