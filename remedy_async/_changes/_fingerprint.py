"""Tells whether a record changed: a digest of its content as served, key order ignored.

A record's fingerprint is a 128-bit BLAKE2b digest of its canonical JSON: the record as the
service sent it, keys sorted at every depth. Keys spelled in another naming than the contract's
snake_case (camel, Pascal, kebab: told once per page from its first record) are respelled to
snake_case first, so a service that changes its spelling changes no fingerprint. Nothing of how
the library reads records (naming detection, unknown fields kept in `extra`) enters it.

Each top-level field also gets a 32-bit checksum, kept with the fingerprint, so a modification
can name the fields that differ without keeping whole records.
"""

from __future__ import annotations

import hashlib
import re
import zlib
from collections.abc import Sequence
from typing import Any

import orjson

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


def fingerprints(records: Sequence[Record]) -> list[str]:
    """The fingerprint of each (canonical) record, as 32 hexadecimal digits."""
    dumps, blake2b = orjson.dumps, hashlib.blake2b
    return [blake2b(dumps(record, option=SORTED), digest_size=16).hexdigest() for record in records]


def field_sums(record: Record) -> bytes:
    """The checksums of a (canonical) record's top-level fields, as stored."""
    dumps, crc32 = orjson.dumps, zlib.crc32
    return dumps({key: crc32(dumps(value, option=SORTED)) for key, value in record.items()})


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
