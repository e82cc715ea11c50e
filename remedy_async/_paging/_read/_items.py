"""Reads a list response without judging it: where its items are, and every paging signal.

The items are found by structure: the one array of objects carrying an `id`, up to three levels
deep; the names of `_vocabulary` only break ties. Signals are found anywhere in the envelope up
to four levels deep (the items excluded) and in the headers, each with the role its name says
and the kind of value it holds (a URL, a token, a number, a flag, or null).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, Literal

from attrs import frozen

from remedy_async._paging._protocol import RESOURCE, PagingFault, Path

from ._envelope import link_values
from ._links import parse_link_header
from ._vocabulary import ITEM_KEYS, NOT_PAGING_HEADERS, role_of, words

MAX_ITEMS_DEPTH = 3
MAX_SIGNAL_DEPTH = 4
ID_KEYS = ("id", "Id", "ID")
Kind = Literal["url", "token", "number", "flag", "null"]


@frozen
class Signal:
    """One paging signal of a response: where it is, what its name says, what it holds."""

    path: Path
    """Its body path; for a header, empty."""
    header: str | None
    role: str
    kind: Kind
    value: Any
    parent: str | None = None
    """The key of the object holding it (a generic `after` takes its parent's meaning)."""

    @property
    def where(self) -> str:
        """Where it is, as messages name it (`meta.next_cursor`, `the X-Next-Page header`)."""
        return f"the {self.header} header" if self.header else ".".join(self.path)

    @property
    def key(self) -> str:
        """Its own name: the last key of its path, or the header name."""
        return self.header or self.path[-1]


def kind_of(value: Any) -> Kind | None:
    """The kind of a signal's value, or None for one no signal holds (an object, an array)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "flag"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "url" if looks_like_url(value) else "token"
    return None


_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")


def looks_like_url(text: str) -> bool:
    """Whether a string is a link: absolute (any scheme), or relative from the root or a query."""
    return text.startswith(("/", "?")) or _SCHEME.match(text) is not None


def body_signals(body: Any, items: Path) -> list[Signal]:
    """Every signal of a body outside its item array, outermost first."""
    if not isinstance(body, dict):
        return []
    return list(_walk(body, (), items, None))


def _walk(node: dict[str, Any], at: Path, items: Path, parent: str | None) -> Iterator[Signal]:
    for key, value in node.items():
        path = (*at, key)
        if path == items:
            continue
        if isinstance(value, dict):
            if len(path) < MAX_SIGNAL_DEPTH:
                yield from _walk(value, path, items, key)
            continue
        if isinstance(value, list):
            yield from _relation_links(value, path)
            continue
        role = role_of(key, parent)
        kind = kind_of(value)
        if role is None or kind is None:
            continue
        if role in ("more", "last") and value in (0, 1) and kind == "number":
            yield Signal(path, None, role, "flag", bool(value), parent)  # `hasMore: 1` (Qualys)
            continue
        if role == "pages" and kind == "flag":
            role = "last"  # `lastPage: true` says the end; `last_page: 9` counts the pages
        yield Signal(path, None, role, kind, value, parent)


def _relation_links(value: list[Any], path: Path) -> Iterator[Signal]:
    """Links given as `[{"rel": "next", "href": ...}]` (Rapid7, Atom-style envelopes)."""
    for entry in value:
        if not isinstance(entry, dict) or not isinstance(entry.get("rel"), str):
            continue
        href = entry.get("href", entry.get("url"))
        role = role_of(entry["rel"])
        if isinstance(href, str) and role in ("forward", "backward"):
            place = (*path, f"[rel={entry['rel']}]", "href" if "href" in entry else "url")
            yield Signal(place, None, role, "url", href, entry["rel"])


def header_signals(headers: Mapping[str, str]) -> list[Signal]:
    """Every paging signal of the response headers (`Link` relations read one by one)."""
    found: list[Signal] = []
    seen: set[str] = set()
    for name in headers:
        lowered = name.lower()
        if lowered in seen or lowered in NOT_PAGING_HEADERS or lowered.startswith("x-ratelimit"):
            continue
        seen.add(lowered)
        if lowered == "link":
            found += _link_signals(headers)
            continue
        role = role_of(name)
        if role is None:
            continue
        value = headers.get(name, "").strip()
        if role in ("total", "pages", "offset", "page", "size"):
            if value.isdigit():
                found.append(Signal((), name, role, "number", int(value)))
            continue
        kind: Kind = "null" if not value else ("url" if looks_like_url(value) else "token")
        found.append(Signal((), name, role, kind, value or None))
    return found


def _link_signals(headers: Mapping[str, str]) -> list[Signal]:
    found = []
    for value in link_values(headers):
        for link in parse_link_header(value):
            if "next" in link.rels:
                if link.params.get("results", "").lower() == "false":
                    found.append(Signal((), "Link", "forward", "null", None))  # marked: no more
                else:
                    found.append(Signal((), "Link", "forward", "url", link.target))
            elif link.rels & {"prev", "previous", "first", "last", "self"}:
                found.append(Signal((), "Link", "backward", "url", link.target))
    return found


@frozen
class FoundItems:
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
            yield path, value
        elif isinstance(value, dict) and depth < MAX_ITEMS_DEPTH:
            yield from _arrays(value, path, depth + 1)


def _carries_ids(value: list[Any]) -> bool:
    return bool(value) and all(
        isinstance(entry, dict) and any(key in entry for key in ID_KEYS) for entry in value
    )


def _item_name(key: str, resource_names: Sequence[str]) -> bool:
    return key in resource_names or bool(set(words(key)) & ITEM_KEYS)


def general_items_path(path: Path, resource_names: Sequence[str]) -> Path:
    """The items path with the resource's own name as the `{resource}` placeholder, so a
    convention found on one collection's list reads every collection's."""
    return tuple(RESOURCE if key in resource_names else key for key in path)
