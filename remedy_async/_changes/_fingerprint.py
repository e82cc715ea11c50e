"""Tells whether a record changed: a digest of its content as served, key order ignored.

A record's fingerprint is the first 64 bits of the 128-bit BLAKE2b digest of its canonical
JSON (the record as the service sent it, keys sorted at every depth, every number exact: an
integer past 64 bits as its digits), as a signed 64-bit integer: what SQLite stores in 8 bytes
and Python compares and sums at C speed. Format 2 states kept the whole digest as 32
hexadecimal digits, so their fingerprints convert exactly (`from_hex`). Two contents of one
record share a fingerprint with a chance of 2**-64.

Keys spelled in another naming than the contract's snake_case (camel, Pascal, kebab: told once
per page from its first record) are respelled to snake_case first, so a service that changes
its spelling changes no fingerprint. Nothing of how the library reads records (naming
detection, unknown fields kept in `extra`) enters it.

Each top-level field also gets a 32-bit checksum, kept with the fingerprint, so a modification
can name the fields that differ without keeping whole records.
"""

from __future__ import annotations

import hashlib
import re
import struct
import zlib
from collections.abc import Sequence
from typing import Any

import orjson

from remedy_async._wire._json import dumps as exact_dumps
from remedy_async._wire._naming import CONTRACT_NAMING, Naming, detect_naming

SORTED = orjson.OPT_SORT_KEYS

Record = dict[str, Any]


def page_naming(items: Sequence[Record], model: type[Any]) -> Naming:
    """The naming a page's records spell their keys in, from its first decisive record."""
    for item in items:
        if item:
            naming, certain = detect_naming(item, model)
            if naming is not None and certain:
                return naming
    return CONTRACT_NAMING


_WORD_START = re.compile(r"(?<!^)(?=[A-Z])")


def to_snake_key(key: str, naming: Naming) -> str:
    """A key of a naming respelled to snake_case (`macAddress`, `MacAddress`, `mac-address`
    -> `mac_address`)."""
    if naming == "kebab":
        return key.replace("-", "_")
    if naming == "snake":
        return key
    return _WORD_START.sub("_", key).lower()


def respelled(value: Any, naming: Naming) -> Any:
    """`value` with the keys of every object in it respelled from `naming` to snake_case."""
    if isinstance(value, dict):
        return {to_snake_key(key, naming): respelled(item, naming) for key, item in value.items()}
    if isinstance(value, list):
        return [respelled(item, naming) for item in value]
    return value


def canonical(records: Sequence[Record], model: type[Any]) -> Sequence[Record]:
    """A page's records in the contract's spelling (the records themselves when they are)."""
    naming = page_naming(records, model)
    if naming == CONTRACT_NAMING:
        return records
    return [respelled(record, naming) for record in records]


_FIRST_64 = struct.Struct(">q").unpack_from
_MASK = (1 << 64) - 1


def fingerprints(records: Sequence[Record]) -> list[int]:
    """The fingerprint of each (canonical) record, as a signed 64-bit integer."""
    dumps, blake2b, first = orjson.dumps, hashlib.blake2b, _FIRST_64
    try:
        return [
            first(blake2b(dumps(record, option=SORTED), digest_size=16).digest())[0]
            for record in records
        ]
    except TypeError:  # a record holds an integer past 64 bits: each written exactly
        return [
            first(blake2b(exact_dumps(record, sort_keys=True), digest_size=16).digest())[0]
            for record in records
        ]


def as_text(fingerprint: int) -> str:
    """A fingerprint as `Change.fingerprint` shows it: 16 hexadecimal digits."""
    return f"{fingerprint & _MASK:016x}"


def from_hex(digest: str) -> int:
    """A format-2 fingerprint (32 hexadecimal digits) as this format's integer."""
    value = int(digest[:16], 16)
    return value - (1 << 64) if value >> 63 else value


def wrapped(total: int) -> int:
    """A sum of fingerprints reduced to a signed 64-bit integer, as the state stores it."""
    total &= _MASK
    return total - (1 << 64) if total >> 63 else total


def field_sums(record: Record) -> bytes:
    """The checksums of a (canonical) record's top-level fields, as stored."""
    dumps, crc32 = orjson.dumps, zlib.crc32
    try:
        sums = {key: crc32(dumps(value, option=SORTED)) for key, value in record.items()}
    except TypeError:  # a field holds an integer past 64 bits: each written exactly
        sums = {key: crc32(exact_dumps(value, sort_keys=True)) for key, value in record.items()}
    return dumps(sums)


def changed_fields(before: bytes | None, after: bytes) -> tuple[str, ...]:
    """The top-level fields whose checksums differ (added and dropped fields too), sorted."""
    old: dict[str, int] = orjson.loads(before) if before else {}
    new: dict[str, int] = orjson.loads(after)
    return tuple(sorted(key for key in old.keys() | new.keys() if old.get(key) != new.get(key)))


def record_id(record: Record) -> str | None:
    """A (canonical) record's id as text, or None when it has none a feed can follow by."""
    value = record.get("id")
    if isinstance(value, str):
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    return None
