"""Lays out a list page: where the items go, where each paging value goes, and the headers.

The page server works out what a page says (`PageValues`); a `PageLayout` (one `Composition`
for one resource) writes it, as the bytes before and after the page's item run (which is encoded
apart) and the response headers, the item run at any body path. A named
convention is served as its composition (`_rows`), so one layout writes every page.

A layout writes every value where its `Composition` puts it and as its end says:

- the continuation at `next`: its own form (the URL for `url`, else the token or number); a
  Link header as `<url>; rel="next"` (with `results="true|false"` for `end=link-false`). Once
  gone (the list ended and the end does not keep it) it is null, absent or `""` as `end` says.
- `also`: the same continuation again, as a URL in a body or a Link, as the bare token or
  number in any other header; gone with the primary (and on the last page of `link-false`).
- `start`: the first page's URL on every page, in a body or as a `rel="first"` link.
- `prev`: the backward continuation, null in a body on the first page, a `rel="prev"` link
  from the second page on (the Link links go in that order: next, first, prev).
- flags (`more_at` true while records follow, `last_at` true on the last page), total, page
  count, echoed position and size: on every page, in the body or (total, pages) a header.

A disguised run sends the continuation header under another name (`renamed_headers`).
"""

from __future__ import annotations

import re
from typing import Any, Final, NamedTuple

import attrs
import orjson

from ._composition import KEPT, PLACED, RESOURCE_SPELLINGS, Composition, Path, Slot
from ._records import spelled

LINK_HEADER: Final = "Link"


_TOKEN, _URL, _MORE, _TOTAL, _PAGES, _POSITION, _SIZE = 0, 1, 2, 3, 4, 5, 6
"""The indices in `PageValues` of the continuation, the flag, the counts and the echoes."""
LAST: Final = -1
"""Stands for the last-page flag among those indices (the negation of `more`)."""


class PageValues(NamedTuple):
    """What one page of a list says, before the layout places it."""

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
    start_url: str | None = None
    """The URL of the list's first page (when a slot holds it)."""


def camel_name(resource: str) -> str:
    """The resource's camelCase name: `vulnerability-findings` -> `vulnerabilityFindings`."""
    first, *rest = (word for word in re.split(r"[-_]", resource) if word)
    return first.lower() + "".join(word.title() for word in rest)


def items_path(composition: Composition, resource: str) -> Path:
    """Where `composition` keeps the item array of `resource`, as concrete keys."""
    name = camel_name(resource)
    return tuple(
        spelled(name, RESOURCE_SPELLINGS[key]) if key in RESOURCE_SPELLINGS else key
        for key in composition.items
    )


@attrs.frozen
class PageLayout:
    """Where one composition puts a page of one resource; renders the page's wrapping."""

    composition: Composition
    items: Path
    wants_url: bool
    """Whether some slot holds the next page's URL (so the responder makes it)."""
    wants_prev_url: bool
    renamed_headers: tuple[tuple[str, str], ...] = ()
    """(header as the composition writes it, header as sent): a disguised run's."""
    prefix: bytes = b"["
    """The bytes before the item run: the objects that hold it, opened (the same on every
    page, as the other members are written after the items)."""
    counts: tuple[tuple[Path, int], ...] = ()
    """Each body path of a flag, count or echo, in writing order, with the index in
    `PageValues` of its value (`LAST`: the last-page flag, not `more`)."""
    header_counts: tuple[tuple[str, int], ...] = ()
    """Each header of a count (total, pages), with the index of its value."""
    default_size: int = 50
    """The page size served when a request asks for none."""
    max_size: int = 100
    """The largest page size served."""
    hands_out: bool = False
    """Whether the service hands out the next page's value (the client computes none)."""
    keeps_end: bool = False
    """Whether the continuation is still handed out on the last page (and after it)."""
    flat: tuple[tuple[str, int], ...] | None = None
    """For a flat page (the items and every value at the top of the body, no header, a
    continuation null at the end): each key, in writing order, with the index of its value.
    The common case, written without building a tree."""

    @classmethod
    def of(
        cls,
        composition: Composition,
        resource: str,
        renamed_headers: tuple[tuple[str, str], ...] = (),
        *,
        sizes: tuple[int, int] = (50, 100),
    ) -> PageLayout:
        """The layout of `composition` for `resource`, sending `renamed_headers` as renamed,
        with the default and largest page `sizes`."""
        c = composition
        also = c.also
        wants_url = c.follow == "url" or (also is not None and (also.link or also.header is None))
        prev = c.prev
        wants_prev_url = prev is not None and (prev.link or c.follow == "url")
        items = items_path(c, resource)
        counts: list[tuple[Path, int]] = []
        headers: list[tuple[str, int]] = []
        for place, index in (
            (c.more_at, _MORE),
            (c.last_at, LAST),
            (c.total, _TOTAL),
            (c.pages, _PAGES),
            (c.position_at, _POSITION),
            (c.size_at, _SIZE),
        ):
            if isinstance(place, Slot) and place.header is not None:
                headers.append((place.header, index))
            elif isinstance(place, Slot):
                counts.append((place.path, index))
            elif place:
                counts.append((place, index))
        return cls(
            c,
            items,
            wants_url,
            wants_prev_url,
            renamed_headers,
            items_prefix(items),
            tuple(counts),
            tuple(headers),
            *sizes,
            c.follow in PLACED,
            c.ending in KEPT,
            _flat(c, items, counts, headers or renamed_headers),
        )

    def render(self, values: PageValues) -> tuple[bytes, bytes, dict[str, str]]:
        """The bytes before and after the page's item run, and its response headers."""
        if self.flat is not None:
            if not self.flat:
                return self.prefix, b"]}", {}
            top = {key: not values[_MORE] if at == LAST else values[at] for key, at in self.flat}
            return self.prefix, b"]," + orjson.dumps(top)[1:], {}
        c = self.composition
        body: dict[str, Any] = {}
        headers: dict[str, str] = {}
        links: list[str] = []
        if c.next is not None:
            primary = values.url if c.follow == "url" else values.token
            self._continuation(c.next, primary, values, body, headers, links, results=True)
        if c.also is not None:
            shown = values.token is not None and (values.more or c.ending != "link-false")
            value = values.url if c.also.link or c.also.header is None else values.token
            self._continuation(c.also, value if shown else None, values, body, headers, links)
        if c.start is not None:
            if c.start.link:
                links.append(f'<{values.start_url}>; rel="first"')
            else:
                _put(body, c.start.path, values.start_url)
        if c.prev is not None:
            if c.prev.link:
                if values.prev_url is not None:
                    links.append(f'<{values.prev_url}>; rel="prev"')
            else:
                prev = values.prev_url if c.follow == "url" else values.prev_token
                _put(body, c.prev.path, prev)
        for path, index in self.counts:
            value = not values[_MORE] if index == LAST else values[index]
            if len(path) == 1:
                body[path[0]] = value
            else:
                _put(body, path, value)
        for header, index in self.header_counts:
            headers[header] = str(values[index])
        if links:
            headers[LINK_HEADER] = ", ".join(links)
        for written, sent in self.renamed_headers:
            if written in headers:
                headers[sent] = headers.pop(written)
        if len(self.items) == 1:  # the common case: no object between the body and the items
            return self.prefix, b"]," + orjson.dumps(body)[1:] if body else b"]}", headers
        return self.prefix, items_suffix(body, self.items), headers

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
        if slot.link:
            if value is not None:
                said = ""
                if results and self.composition.end == "link-false":
                    said = f'; results="{str(values.more).lower()}"'
                links.append(f'<{value}>; rel="next"{said}')
            return
        if slot.header is not None:
            if value is not None:
                headers[slot.header] = str(value)
            elif self.composition.end == "blank":
                headers[slot.header] = ""
            return
        path = slot.path
        if value is not None:
            if len(path) == 1:
                body[path[0]] = value
            else:
                _put(body, path, value)
            return
        end = self.composition.end
        if end in ("null", "blank", "link-false"):
            _put(body, path, "" if end == "blank" else None)


def _flat(
    c: Composition, items: Path, counts: list[tuple[Path, int]], headers: object
) -> tuple[tuple[str, int], ...] | None:
    """The keys and value indices of a flat page of `c` (see `PageLayout.flat`), or None."""
    if len(items) != 1 or headers or c.also or c.start or c.prev:
        return None
    keys: list[tuple[str, int]] = []
    if c.next is not None:
        if c.next.header is not None or len(c.next.path) != 1 or c.end != "null":
            return None
        keys.append((c.next.path[0], _URL if c.follow == "url" else _TOKEN))
    if any(len(path) != 1 for path, _ in counts):
        return None
    return (*keys, *((path[0], index) for path, index in counts))


def _put(tree: dict[str, Any], path: Path, value: Any) -> None:
    """Set `value` at `path` in a body tree, making the objects on the way."""
    for key in path[:-1]:
        tree = tree.setdefault(key, {})
    tree[path[-1]] = value


def items_suffix(tree: dict[str, Any], path: Path) -> bytes:
    """The bytes after an item run at `path`: `tree`'s other members, and the objects that
    hold the run closed (after `items_prefix`)."""
    if not path:
        return b"]"
    key = path[0]
    siblings, inner = tree, None
    if key in tree:
        siblings = dict(tree)
        inner = siblings.pop(key)
    below = items_suffix(inner if isinstance(inner, dict) else {}, path[1:])
    return below + (b"," + orjson.dumps(siblings)[1:] if siblings else b"}")


def items_prefix(path: Path) -> bytes:
    """The bytes before an item run at `path`: the objects that hold it, opened."""
    return b"".join(b"{" + orjson.dumps(key) + b":" for key in path) + b"["
