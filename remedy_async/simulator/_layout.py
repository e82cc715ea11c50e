"""Lays out a list page: where the items go, where each signal goes, and the page's headers.

The page server works out what a page says (`Signals` for a named convention, `PageValues` for
a composed mode); a layout writes it, as the bytes before and after the page's item run (which
is encoded apart) and the response headers. `wrap_items` nests an item run at any body path.

A named convention (`PageLayout`) is a row of `remedy_async.CONVENTIONS`, read as data, never by
name: its first items path says where the array goes (`()` the body itself, `{resource}` and `*`
the resource's camelCase name; the contract's generic `items`/`data`/`results` means the run's
`items_key`), and each signal path (`next_at`, `more_at`, `last_at`, `total_at`, `pages_at`,
`position_at`, `size_at`) gets its value, nested objects made as needed. `next_header` carries
the continuation instead (`Link` as RFC 8288 rel="next" and rel="first" links). Disguised, the
same page renames the last key of every signal path to `nxt_tok_x`, `nxt_tok_y`, ... (in order
of first use) and sends the next header as `Nxt-Tok-X`: a service no client knows, which a
client must refuse loudly rather than stop after page one.

A composed mode (`ComposedLayout`) writes every value where its `Composition` puts it and as its
end says:

- the continuation at `next`: its own form (the URL for `url`, else the token or number); a
  Link header as `<url>; rel="next"` (with `results="true|false"` for `end=link-false`). Once
  gone (the list ended and the end does not keep it) it is null, absent or `""` as `end` says.
- `also`: the same continuation again, as a URL in a body or a Link, as the bare token or
  number in any other header; gone with the primary (and on the last page of `link-false`).
- `prev`: the backward continuation, null in a body on the first page, a `rel="prev"` link
  from the second page on (sharing the Link header with rel="next" when both are links).
- flags (`more_at` true while records follow, `last_at` true on the last page), total, page
  count, echoed position and size: on every page, in the body or (total, pages) a header.
"""

from __future__ import annotations

import re
from typing import Any, Final, NamedTuple

import attrs
import orjson

from remedy_async import Convention

from ._composition import LINK, RESOURCE_SPELLINGS, Composition, Path, Slot
from ._records import spelled
from ._run_config import ITEMS_KEYS

RESOURCE_KEY: Final = "{resource}"
"""The table's placeholder for the resource's own name."""
ONLY_ARRAY_KEY: Final = "*"
"""The table's placeholder for the one array inside an object (HAL's `_embedded`)."""
CONTRACT_ITEMS: Final = tuple((key,) for key in ITEMS_KEYS)
"""A row's items when it keeps them where the contract does: the run's `items_key` decides."""
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
        link = header is not None and header.lower() == LINK
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


LINK_HEADER: Final = "Link"


# A composed mode's layout (a `Composition`).


class PageValues(NamedTuple):
    """What one page of a composed list says, before the layout places it."""

    token: str | int | None
    """The request parameter's value for the next page (cursor, offset, page number); None
    once the continuation is gone."""
    url: str | None
    """The next page's URL (None when gone, or when no slot holds a URL)."""
    more: bool
    total: int
    pages: int
    position: int
    """The offset or page number shown (the served one, or the next in the hostile variant)."""
    size: int
    prev_token: str | int | None = None
    """The backward continuation's bare value; None on the first page."""
    prev_url: str | None = None


def composed_items_path(composition: Composition, resource: str) -> Path:
    """Where `composition` keeps the item array of `resource`, as concrete keys."""
    name = camel_name(resource)
    return tuple(
        spelled(name, RESOURCE_SPELLINGS[key]) if key in RESOURCE_SPELLINGS else key
        for key in composition.items
    )


@attrs.frozen
class ComposedLayout:
    """Where one composition puts a page of one resource; renders the page's wrapping."""

    composition: Composition
    items: Path
    wants_url: bool
    """Whether some slot holds the next page's URL (so the responder makes it)."""
    wants_prev_url: bool

    @classmethod
    def of(cls, composition: Composition, resource: str) -> ComposedLayout:
        """The layout of `composition` for `resource`."""
        c = composition
        also = c.also
        wants_url = c.follow == "url" or (also is not None and (also.link or also.header is None))
        prev = c.prev
        wants_prev_url = prev is not None and (prev.link or c.follow == "url")
        return cls(c, composed_items_path(c, resource), wants_url, wants_prev_url)

    def render(self, values: PageValues) -> tuple[bytes, bytes, dict[str, str]]:
        """The bytes before and after the page's item run, and its response headers."""
        c = self.composition
        body: dict[str, Any] = {}
        headers: dict[str, str] = {}
        links: list[str] = []
        end = c.ending
        primary = values.url if c.follow == "url" else values.token
        if c.next is not None:
            self._continuation(c.next, primary, values, body, headers, links, results=True)
        if c.also is not None:
            shown = values.token is not None and (values.more or end != "link-false")
            value = values.url if c.also.link or c.also.header is None else values.token
            self._continuation(c.also, value if shown else None, values, body, headers, links)
        if c.prev is not None:
            if c.prev.link:
                if values.prev_url is not None:
                    links.append(f'<{values.prev_url}>; rel="prev"')
            else:
                prev = values.prev_url if c.follow == "url" else values.prev_token
                _put(body, c.prev.path, prev)
        for path, value in (
            (c.more_at, values.more),
            (c.last_at, not values.more),
            (c.position_at, values.position),
            (c.size_at, values.size),
        ):
            if path:
                _put(body, path, value)
        for slot, count in ((c.total, values.total), (c.pages, values.pages)):
            if slot is not None and slot.header is not None:
                headers[slot.header] = str(count)
            elif slot is not None:
                _put(body, slot.path, count)
        if links:
            headers[LINK_HEADER] = ", ".join(links)
        prefix, suffix = wrap_items(body, self.items)
        return prefix, suffix, headers

    def _continuation(
        self,
        slot: Slot,
        value: str | int | None,
        values: PageValues,
        body: dict[str, Any],
        headers: dict[str, str],
        links: list[str],
        *,
        results: bool = False,
    ) -> None:
        """Write a continuation (or its end) into `slot`."""
        end = self.composition.ending
        if slot.link:
            if value is not None:
                said = f'; results="{str(values.more).lower()}"' if results else ""
                links.append(f'<{value}>; rel="next"{said if end == "link-false" else ""}')
            return
        if slot.header is not None:
            if value is not None or end == "blank":
                headers[slot.header] = "" if value is None else str(value)
            return
        if value is not None:
            _put(body, slot.path, value)
        elif end in ("null", "blank", "link-false"):
            _put(body, slot.path, "" if end == "blank" else None)


def _put(tree: dict[str, Any], path: Path, value: Any) -> None:
    """Set `value` at `path` in a body tree, making the objects on the way."""
    for key in path[:-1]:
        tree = tree.setdefault(key, {})
    tree[path[-1]] = value
