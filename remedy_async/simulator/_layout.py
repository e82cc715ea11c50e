"""Lays out a list page by a paging convention row: where the items go, where each signal goes.

A row of `remedy_async.CONVENTIONS` is read as data, never by name: its first items path says
where the array goes (`()` the body itself, `{resource}` and `*` the resource's camelCase name;
the contract's generic `items`/`data`/`results` means the run's `items_key`), and each signal
path (`next_at`, `more_at`, `last_at`, `total_at`, `pages_at`, `position_at`, `size_at`) gets
its value, nested objects made as needed. `next_header` carries the continuation instead
(`Link` as RFC 8288 rel="next" and rel="first" links).

Disguised, the same page renames the last key of every signal path to `nxt_tok_x`,
`nxt_tok_y`, ... (in order of first use) and sends the next header as `Nxt-Tok-X`: a service no
client knows, which a client must refuse loudly rather than stop after page one.
"""

from __future__ import annotations

import re
from typing import Any, Final, NamedTuple

import attrs
import orjson

from remedy_async import Convention

from ._run_config import ITEMS_KEYS

Path = tuple[str, ...]

RESOURCE_KEY: Final = "{resource}"
"""The table's placeholder for the resource's own name."""
ONLY_ARRAY_KEY: Final = "*"
"""The table's placeholder for the one array inside an object (HAL's `_embedded`)."""
CONTRACT_ITEMS: Final = tuple((key,) for key in ITEMS_KEYS)
"""A row's items when it keeps them where the contract does: the run's `items_key` decides."""
LINK_HEADER: Final = "link"
DISGUISED_HEADER: Final = "Nxt-Tok-X"
_DISGUISE_LETTERS: Final = "xyzwvutsrqponmlkjihgfedcba"
_SIGNAL_FIELDS: Final = (
    ("next_at", "next"),
    ("more_at", "more"),
    ("last_at", "last"),
    ("total_at", "total"),
    ("pages_at", "pages"),
    ("position_at", "position"),
    ("size_at", "size"),
)
"""Each Convention path field and the Signals attribute written there, in disguise order."""


class Signals(NamedTuple):
    """What one page says about paging, before a convention places it."""

    next: str | int | None
    """The next URL, token, offset, page number or last id; None on the last page."""
    more: bool
    total: int
    pages: int
    position: int
    """The offset or page number served."""
    size: int
    """The page size served."""

    @property
    def last(self) -> bool:
        """Whether this page ends the list."""
        return not self.more


def camel_name(resource: str) -> str:
    """The resource's camelCase name: `vulnerability-findings` -> `vulnerabilityFindings`."""
    first, *rest = (word for word in re.split(r"[-_]", resource) if word)
    return first.lower() + "".join(word.title() for word in rest)


def disguised_names(convention: Convention) -> dict[str, str]:
    """The body keys a row pages by, each mapped to a name no client knows (`nxt_tok_x`, ...)."""
    names: dict[str, str] = {}
    for field, _ in _SIGNAL_FIELDS:
        path: Path = getattr(convention, field)
        if path and path[-1] not in names:
            names[path[-1]] = f"nxt_tok_{_DISGUISE_LETTERS[len(names)]}"
    return names


def items_path(convention: Convention, resource: str, items_key: str) -> Path:
    """Where a row keeps the item array of `resource`, as concrete keys (`()`: the body)."""
    if convention.items == CONTRACT_ITEMS:
        return (items_key,)
    first = convention.items[0] if convention.items else ()
    name = camel_name(resource)
    return tuple(name if key in (RESOURCE_KEY, ONLY_ARRAY_KEY) else key for key in first)


@attrs.frozen
class PageLayout:
    """Where one row puts a page's items and signals, for one resource; renders the wrapping."""

    items: Path
    fields: tuple[tuple[Path, str], ...]
    """Each body path written, with the Signals attribute it holds."""
    header: str | None = None
    """The response header carrying the continuation, as sent."""
    link: bool = False
    """Whether the header holds RFC 8288 links rather than the bare value."""
    blank_at_end: bool = False
    """Whether the header is sent empty on the last page instead of left out."""
    flat: tuple[bytes, tuple[tuple[str, str], ...]] | None = None
    """For a flat body (the items and every signal at the top): the prefix, and each key with
    its Signals attribute. The common case, laid out without building a tree."""

    @classmethod
    def of(
        cls,
        convention: Convention,
        resource: str,
        items_key: str,
        *,
        disguise: bool = False,
        blank_at_end: bool = False,
    ) -> PageLayout:
        """The layout of `convention` for `resource`; ValueError if the row cannot be served."""
        rename = disguised_names(convention) if disguise else {}
        fields: list[tuple[Path, str]] = []
        for field, attribute in _SIGNAL_FIELDS:
            path: Path = getattr(convention, field)
            if path:
                fields.append(((*path[:-1], rename.get(path[-1], path[-1])), attribute))
        items = items_path(convention, resource, items_key)
        if not items and fields:
            raise ValueError(
                f"convention {convention.name!r} keeps its items as the bare body, so it has "
                "no place for its body paging signals"
            )
        header = convention.next_header
        link = header is not None and header.lower() == LINK_HEADER
        if header is not None and disguise:
            header = DISGUISED_HEADER
        flat = None
        if len(items) == 1 and all(len(path) == 1 and path != items for path, _ in fields):
            prefix = b"{" + orjson.dumps(items[0]) + b":["
            flat = (prefix, tuple((path[0], attribute) for path, attribute in fields))
        return cls(items, tuple(fields), header, link, blank_at_end, flat)

    def wrap(self, signals: Signals) -> tuple[bytes, bytes]:
        """The bytes before and after the comma-separated item run of a page."""
        if self.flat is not None:
            prefix, keys = self.flat
            if not keys:
                return prefix, b"]}"
            meta = {key: getattr(signals, attribute) for key, attribute in keys}
            return prefix, b"]," + orjson.dumps(meta)[1:]
        if not self.fields:
            return wrap_items({}, self.items)
        tree: dict[str, Any] = {}
        for path, attribute in self.fields:
            node = tree
            for key in path[:-1]:
                node = node.setdefault(key, {})
            node[path[-1]] = getattr(signals, attribute)
        return wrap_items(tree, self.items)

    def headers(self, signals: Signals, first: str | None = None) -> dict[str, str]:
        """The response headers of a page: the continuation header, if the row has one.

        `first` is the URL of the list's first page, for the rel="first" link.
        """
        if self.header is None:
            return {}
        if self.link:
            links = [] if signals.next is None else [f'<{signals.next}>; rel="next"']
            if first is not None:
                links.append(f'<{first}>; rel="first"')
            return {self.header: ", ".join(links)} if links else {}
        if signals.next is None:
            return {self.header: ""} if self.blank_at_end else {}
        return {self.header: str(signals.next)}


def wrap_items(tree: dict[str, Any], path: Path) -> tuple[bytes, bytes]:
    """Prefix and suffix putting an item run at `path`, with `tree`'s other members after it."""
    if not path:
        return b"[", b"]"
    key, below = path[0], path[1:]
    siblings = dict(tree)
    inner = siblings.pop(key, None)
    prefix, suffix = wrap_items(inner if isinstance(inner, dict) else {}, below)
    head = b"{" + orjson.dumps(key) + b":"
    tail = b"," + orjson.dumps(siblings)[1:] if siblings else b"}"
    return head + prefix, suffix + tail
