"""Finds a page's item array: by structure on a first page, or where a convention keeps it.

By structure (`find_items`, for detection): the one array of objects carrying an id (`ID_KEYS`),
up to three levels deep (six under upper-case keys only: a document rendered from XML elements);
the words of `_vocabulary` only break ties. By a convention
(`locate_items`, on every page): the first of its item paths the body has, `{resource}` standing
for the list's own name in any spelling (`resource_names`), `*` for an object's one array.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from functools import lru_cache
from typing import Any

from msgspec import Struct
from yarl import URL

from remedy_async._paging._protocol import ONLY_ARRAY, RESOURCE, Convention, PagingFault, Path
from remedy_async._wire._http import JSONResponse
from remedy_async._wire._types import WireFault, json_type_name

from ._vocabulary import ITEM_WORDS, words

MAX_ITEMS_DEPTH = 3
MAX_DOCUMENT_DEPTH = 6
"""How deep items are looked for under upper-case keys only: a document rendered from XML
elements (Qualys' `HOST_LIST_OUTPUT.RESPONSE.HOST_LIST.HOST`) nests a level per element."""
ID_KEYS = ("id", "Id", "ID")
"""The keys a record's id is under: what tells an item array from other arrays, and what a
guess compares pages by."""


class FoundItems(Struct, frozen=True):
    """Where a page's item array is, and the array."""

    path: Path
    """Concrete keys to it (`()` for a bare array)."""
    items: list[Any]


def find_items(body: Any, resource_names: Sequence[str]) -> FoundItems:
    """The page's item array, found by structure; PagingFault naming the candidates or the keys
    seen when there is none, or more than one that nothing tells apart."""
    if isinstance(body, list):
        return FoundItems((), body)
    if not isinstance(body, dict):
        raise PagingFault("the response is neither an array nor an object")
    candidates = list(_arrays(body, (), 1))
    with_ids = [(path, value) for path, value in candidates if _carries_ids(value)]
    named = [(path, value) for path, value in candidates if _item_name(path[-1], resource_names)]
    named_with_ids = [entry for entry in with_ids if entry in named]
    for pool in (with_ids, named_with_ids, named):
        if len(pool) == 1:
            return FoundItems(*pool[0])
    shown = ", ".join(".".join(path) for path, _ in (with_ids or candidates)) or "none"
    keys = ", ".join(sorted(body)[:20])
    if len(with_ids) > 1 or len(named) > 1:
        raise PagingFault(
            f"the response has several arrays of records ({shown}) and nothing says which is "
            f"the list's items (keys at the top: {keys})"
        )
    raise PagingFault(
        f"the response has no array of records carrying an id within {MAX_ITEMS_DEPTH} levels "
        f"(arrays seen: {shown}; keys at the top: {keys})"
    )


def _arrays(node: dict[str, Any], at: Path, depth: int) -> Iterator[tuple[Path, list[Any]]]:
    for key, value in node.items():
        path = (*at, key)
        if isinstance(value, list):
            if depth <= MAX_ITEMS_DEPTH or _elements(path):
                yield path, value
        elif isinstance(value, dict) and (
            depth < MAX_ITEMS_DEPTH or (depth < MAX_DOCUMENT_DEPTH and _elements(path))
        ):
            yield from _arrays(value, path, depth + 1)


def _elements(path: Path) -> bool:
    """Whether every key of a path is upper case, as the elements of an XML document rendered
    as JSON are (`HOST_LIST_OUTPUT`, `RESPONSE`): items are looked for deeper under them."""
    return all(key.isupper() for key in path)


def _carries_ids(value: list[Any]) -> bool:
    return bool(value) and all(
        isinstance(entry, dict) and any(key in entry for key in ID_KEYS) for entry in value
    )


def _item_name(key: str, resource_names: Sequence[str]) -> bool:
    return key in resource_names or bool(set(words(key)) & ITEM_WORDS)


def general_items_path(path: Path, resource_names: Sequence[str]) -> Path:
    """The items path with the resource's own name as the `{resource}` placeholder, so a
    convention found on one collection's list reads every collection's."""
    return tuple(RESOURCE if key in resource_names else key for key in path)


def resource_names(url: URL) -> tuple[str, ...]:
    """The resource's name in every spelling, from the list URL's last path segment without its
    extension (`tickets.json` -> `tickets`, `Messages.json` -> `messages`)."""
    return _names_of(url.path)


_EXTENSION = re.compile(r"\.[A-Za-z]+$")
"""A file extension ending a list path (`tickets.json`, `Messages.json`, `hosts.xml`)."""


@lru_cache(maxsize=256)
def _names_of(path: str) -> tuple[str, ...]:
    segment = path.rstrip("/").rpartition("/")[2]
    name = _EXTENSION.sub("", segment)  # `/v1/endpoints.json` keeps its items in `endpoints`
    words = [word.lower() for word in re.split(r"[-_]", name) if word]
    if not words:
        return ()
    camel = words[0] + "".join(word.title() for word in words[1:])
    return tuple(
        dict.fromkeys(
            (camel, "_".join(words), "-".join(words), camel[:1].upper() + camel[1:], name, segment)
        )
    )


def locate_items(convention: Convention, response: JSONResponse) -> tuple[list[Any], Path]:
    """Find the item array where the convention keeps it; PagingFault or WireFault if absent."""
    body = response.body
    names: Sequence[str] = ()
    for path in convention.items:
        if RESOURCE in path and not names:
            names = resource_names(response.url)
        found = _items_at(body, path, names)
        if found is not None:
            return found
    places = ", ".join("the body" if not path else ".".join(path) for path in convention.items)
    if isinstance(body, dict | list):
        raise PagingFault(
            f"the response does not look like the {convention.name!r} convention: no array of "
            f"items at {places}"
        )
    raise WireFault("$", f"expected an array or an object, got {json_type_name(body)}")


def _items_at(body: Any, path: Path, names: Sequence[str]) -> tuple[list[Any], Path] | None:
    value, found = body, []
    for step in path:
        if not isinstance(value, dict):
            return None
        key = step
        if step == RESOURCE:
            key = next((name for name in names if name in value), "")
        elif step == ONLY_ARRAY:
            arrays = [name for name, inner in value.items() if isinstance(inner, list)]
            key = arrays[0] if len(arrays) == 1 else ""
        if key not in value:
            return None
        value = value[key]
        found.append(key)
    if not isinstance(value, list):
        if path and value is not None:
            raise WireFault(
                "$." + ".".join(found), f"expected an array, got {json_type_name(value)}"
            )
        return None
    return value, tuple(found)
