"""Finds every paging signal of a page, and refuses one its convention does not account for.

A signal is found anywhere in the envelope up to four levels deep (the items excluded) and in
the headers, each with the role its name says (`_vocabulary`) and the kind of value it holds (a
URL, a token, a number, a flag, or null): detection composes a convention from them.

Every signal of a page that says the list goes on must be read by the convention, or named in
its `ignore`: a continuation (a link, a token, an integer), a name that speaks of a next page in
unknown words, a flag that more follow (`has_more: true`, `last: false`). A flag saying the end
while the convention goes on is refused too: the two contradict. Backward cursors are never a
way forward; a token found inside the URL being followed is that URL's own. Values are never
shown: they may hold secrets. A link to the list itself with other parameters, under a key
that says only that it is a link (`own_links`), is a way forward found by structure.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from collections.abc import Set as AbstractSet
from functools import lru_cache
from typing import Any, Literal
from urllib.parse import unquote

from msgspec import Struct
from yarl import URL

from remedy_async._paging._protocol import Convention, PageRequest, PagingFault, Path
from remedy_async._wire._http import JSONResponse

from ._envelope import link_values
from ._links import carries, parse_link_header, resolve
from ._vocabulary import NOT_PAGING_HEADERS, UNKNOWN, role_of, words

MAX_SIGNAL_DEPTH = 4
Kind = Literal["url", "token", "number", "flag", "null"]


class Signal(Struct, frozen=True):
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


MORE_ROLES: frozenset[str] = frozenset({"forward", UNKNOWN, "more", "last"})
"""The roles of the signals that can say a list goes on (`_says_more`): the only ones a page
read by a known convention is checked for, so the others are not even gathered."""


def body_signals(body: Any, items: Path, roles: AbstractSet[str] | None = None) -> list[Signal]:
    """Every signal of a body outside its item array, outermost first (only those of `roles`,
    when given)."""
    if not isinstance(body, dict):
        return []
    return list(_walk(body, (), items, None, roles))


def _walk(
    node: dict[str, Any],
    at: Path,
    items: Path,
    parent: str | None,
    roles: AbstractSet[str] | None,
) -> Iterator[Signal]:
    for key, value in node.items():
        path = (*at, key)
        if path == items:
            continue
        if isinstance(value, dict):
            if len(path) < MAX_SIGNAL_DEPTH:
                yield from _walk(value, path, items, key, roles)
            continue
        if isinstance(value, list):
            yield from _relation_links(value, path, roles)
            continue
        role = role_of(key, parent)
        if role is None or (roles is not None and role not in roles and role != "pages"):
            continue  # not asked for (only `pages` may turn into `last`, below)
        kind = kind_of(value)
        if kind is None:
            continue
        held = value
        if role in ("more", "last") and value in (0, 1) and kind == "number":
            kind, held = "flag", bool(value)  # `hasMore: 1` (Qualys)
        elif role == "pages" and kind == "flag":
            role = "last"  # `lastPage: true` says the end; `last_page: 9` counts the pages
        if roles is None or role in roles:
            yield Signal(path, None, role, kind, held, parent)


def _relation_links(
    value: list[Any], path: Path, roles: AbstractSet[str] | None
) -> Iterator[Signal]:
    """Links given as `[{"rel": "next", "href": ...}]` (Rapid7, Atom-style envelopes)."""
    for entry in value:
        if not isinstance(entry, dict) or not isinstance(entry.get("rel"), str):
            continue
        href = entry.get("href", entry.get("url"))
        role = role_of(entry["rel"])
        if isinstance(href, str) and role in ("forward", "backward"):
            if roles is not None and role not in roles:
                continue
            place = (*path, f"[rel={entry['rel']}]", "href" if "href" in entry else "url")
            yield Signal(place, None, role, "url", href, entry["rel"])


def header_signals(
    headers: Mapping[str, str], roles: AbstractSet[str] | None = None
) -> list[Signal]:
    """Every paging signal of the response headers (`Link` relations read one by one; only
    those of `roles`, when given)."""
    found: list[Signal] = []
    seen: set[str] = set()
    for name in headers:
        lowered, role = _header_role(name)
        if role is None or lowered in seen:
            continue
        seen.add(lowered)
        if role == "link":
            found += [
                signal for signal in _link_signals(headers) if roles is None or signal.role in roles
            ]
            continue
        if roles is not None and role not in roles:
            continue
        value = headers.get(name, "").strip()
        if role in ("total", "pages", "offset", "page", "size"):
            if value.isdigit():
                found.append(Signal((), name, role, "number", int(value)))
            continue
        kind: Kind = "null" if not value else ("url" if looks_like_url(value) else "token")
        found.append(Signal((), name, role, kind, value or None))
    return found


@lru_cache(maxsize=1024)
def _header_role(name: str) -> tuple[str, str | None]:
    """A header's lower-case name and what it says about paging (`link` for a Link header);
    None when it says nothing (`NOT_PAGING_HEADERS`, rate limits, other words), worked out
    once per name rather than once a page."""
    lowered = name.lower()
    if lowered in NOT_PAGING_HEADERS or lowered.startswith("x-ratelimit"):
        return lowered, None
    if lowered == "link":
        return lowered, "link"
    return lowered, role_of(name)


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


LINK_WORDS = frozenset({"url", "uri", "href", "link"})
"""The words of a key that says only that it holds a link (`URL`, `href`)."""


def own_links(body: Any, items: Path, url: URL) -> list[Signal]:
    """Links under a key that says only that it is a link (`URL`, `href`: no paging word) to
    the list's own path with parameters the request did not carry (Qualys' `WARNING.URL`,
    `...&id_min=...`): a way forward read by structure, which page 2 must verify."""
    found: list[Signal] = []
    for path, parent, value in _strings(body if isinstance(body, dict) else {}, (), items, None):
        said = set(words(path[-1]))
        if not said or not said <= LINK_WORDS or role_of(path[-1], parent) is not None:
            continue
        if not looks_like_url(value):
            continue
        try:
            target = resolve(url, value)
        except ValueError:
            continue
        added = set(target.query.items()) - set(url.query.items())
        if target.origin() == url.origin() and target.path == url.path and added:
            found.append(Signal(path, None, "forward", "url", value, parent))
    return found


def _strings(
    node: dict[str, Any], at: Path, items: Path, parent: str | None
) -> Iterator[tuple[Path, str | None, str]]:
    for key, value in node.items():
        path = (*at, key)
        if path == items:
            continue
        if isinstance(value, dict) and len(path) < MAX_SIGNAL_DEPTH:
            yield from _strings(value, path, items, key)
        elif isinstance(value, str):
            yield path, parent, value


class UnreadSignal(PagingFault):
    """A page carries a signal that the list goes on, which its convention does not read."""

    def __init__(self, signal: Signal, reader: str) -> None:
        self.signal = signal
        self.reader = reader
        super().__init__(
            f"the response signals a next page with {signal.where}, which {reader} does not "
            "read, so the list cannot be followed safely"
        )


def refuse_unread_signals(
    convention: Convention,
    response: JSONResponse,
    items_path: Path,
    following: PageRequest | None,
    reader: str | None = None,
) -> None:
    """Raise UnreadSignal for the first signal of the page the convention does not account for."""
    read_paths, read_headers = _accounted_for(convention)
    followed = "" if following is None or following.url is None else str(following.url)
    signals = [
        *body_signals(response.body, items_path, MORE_ROLES),
        *header_signals(response.headers, MORE_ROLES),
    ]
    for signal in signals:
        if not _says_more(signal, following is not None):
            continue
        if signal.header is not None:
            if signal.header.lower() in read_headers:
                continue
        elif signal.path in read_paths:
            continue
        if followed and _within(signal, followed):
            continue
        raise UnreadSignal(signal, reader or f"the {convention.name!r} convention")


@lru_cache(maxsize=256)
def _accounted_for(convention: Convention) -> tuple[frozenset[Path], frozenset[str]]:
    """The body paths and (lower-case) headers a convention reads or ignores, worked out once
    per convention rather than once a page."""
    paths = frozenset({*convention.signal_paths, *convention.ignore})
    headers = frozenset(
        name.lower() for name in (*convention.read_headers, *convention.ignore_headers)
    )
    return paths, headers


def _says_more(signal: Signal, going_on: bool) -> bool:
    """Whether a signal says something the convention must account for."""
    value = signal.value
    if signal.role in ("forward", UNKNOWN):
        if signal.kind == "flag":
            return value is True
        return value not in (None, "", 0)
    if signal.role == "more" and signal.kind == "flag":
        return value is True or (value is False and going_on)
    if signal.role == "last" and signal.kind == "flag":
        return value is False or (value is True and going_on)
    return False


def _within(signal: Signal, followed: str) -> bool:
    """Whether a continuation is the followed URL itself, or a token it carries."""
    text = str(signal.value)
    if not text:
        return False
    if signal.kind == "url":
        shown = unquote(followed)
        return unquote(text) == shown or shown.endswith(unquote(text))
    return carries(followed, text)
