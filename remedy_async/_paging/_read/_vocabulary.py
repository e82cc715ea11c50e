"""The words list responses page with, in any spelling: what a key or a header says it holds.

A name is split into lower-case words (`nextPageToken` -> next, page, token; `has_more`;
`X-Total-Count`; `@odata.nextLink`) and its role read from them: a forward continuation, a
backward one, a flag that more follow or that this page is the last, a total, a page count, an
echoed offset or page number, a page size. A generic name (`href`, `after`, `link`, `offset`
under `next_page`) takes its role from its parent. A name that speaks of a next page in words
this table does not know (`nxt_tok_x`) is `unknown`: refused, never guessed at.

The value's type finishes the reading (`last: true` is a flag, `last: "/v1/x?page=9"` a link to
the last page), and `param_candidates` says which request parameter a token is sent back in.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Literal

Role = Literal[
    "forward", "backward", "more", "last", "total", "pages", "offset", "page", "size", "other"
]
UNKNOWN: Literal["unknown"] = "unknown"
"""A name that speaks of a next page in words the vocabulary does not know."""

ITEM_WORDS = frozenset(
    {
        "items", "data", "results", "result", "value", "values", "records", "entries", "rows",
        "resources", "content", "nodes", "collection", "response", "elements", "objects",
        "list", "children", "hits", "embedded",
    }
)  # fmt: skip
"""Words naming an item array in any spelling (`Items`, `_embedded`), to break ties between
arrays; the keys the contract and the pinned paginators look under are `ITEM_KEYS`."""

_FORWARD = frozenset({"next", "continuation", "continue", "cursor", "token", "marker", "after"})
_BACKWARD = frozenset({"prev", "previous", "before", "back", "backward", "first", "self"})
_LAST = frozenset({"last", "done", "complete", "completed", "end", "finished", "eof"})
_GENERIC = frozenset(
    {"href", "link", "url", "uri", "path", "value", "offset", "page", "start", "cursor",
     "token", "after", "before", "starting", "id"}
)  # fmt: skip
_TIME_WORDS = frozenset(
    {"created", "updated", "modified", "changed", "deleted", "date", "time", "timestamp", "since"}
)
"""Words of a time filter: a name with one speaks of when, not of the next page."""
_SPEAKS = ("nxt", "tok", "continu", "cursor", "marker", "next", "more", "after", "paging")
"""Stems that make a name speak of a next page even outside the vocabulary."""

_OFFSETS = {
    ("offset",), ("start",), ("start", "at"), ("start", "index"), ("skip",), ("from",),
    ("index",), ("first", "result"), ("position",),
}  # fmt: skip
_PAGES = {("page",), ("current", "page"), ("page", "number"), ("page", "index"), ("number",)}
_SIZES = {
    ("limit",), ("page", "size"), ("per", "page"), ("max", "results"), ("size",),
    ("results", "per", "page"), ("items", "per", "page"), ("pagelen",), ("max", "items"),
    ("batch", "size"), ("top",), ("page", "limit"), ("max", "result", "count"),
}  # fmt: skip
_PAGE_COUNTS = {("pages",), ("total", "pages"), ("page", "count"), ("num", "pages"),
                ("last", "page"), ("total", "page", "count")}  # fmt: skip
_TOTALS = {("count",), ("odata", "count"), ("num", "found"), ("size", "total")}

_WORD = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")


@lru_cache(maxsize=4096)
def words(name: str) -> tuple[str, ...]:
    """The lower-case words of a key or header name, whatever its spelling."""
    return tuple(word.lower() for word in _WORD.findall(name))


@lru_cache(maxsize=4096)
def role_of(name: str, parent: str | None = None) -> Role | Literal["unknown"] | None:
    """What a body key (or header) says it holds, or None when it is not about paging.

    `parent` is the key of the object holding it, for generic names (`href`, `after`).
    """
    said = words(name)
    if not said:
        return None
    if said[0] == "x" and len(said) > 1:  # X-Total-Count, X-Next-Page
        said = said[1:]
    if said in _PAGE_COUNTS or ("total" in said and ("pages" in said or "page" in said[-1:])):
        return "pages"
    if "total" in said or said in _TOTALS or said[-1:] == ("total",):
        return "total"
    if "more" in said or said in {("has", "next"), ("has", "next", "page")} or "truncated" in said:
        return "more"
    if set(said) & _TIME_WORDS:
        return None  # `updated_after`, `createdBefore`: a filter's echo, not a cursor
    own = _direction(said)
    if own is not None:
        return own
    if parent is not None and (said[-1] in _GENERIC or len(said) == 1):
        inherited = _direction(words(parent))
        if inherited is not None:
            return inherited
    if said in _OFFSETS:
        return "offset"
    if said in _PAGES:
        return "page"
    if said in _SIZES:
        return "size"
    if names_last_id(name):
        return "forward"  # the last id seen, sent back as is (Qualys' lastSeenAssetId)
    if set(said) & _LAST or (said[0] == "is" and set(said[1:]) & _LAST):
        return "last"
    if any(stem in word for word in said for stem in _SPEAKS):
        return UNKNOWN
    return None


def _direction(said: tuple[str, ...]) -> Role | None:
    """Forward or backward when the words say so (`nextLink`, `prev`, `startCursor`)."""
    if set(said) & _BACKWARD or said[:2] == ("start", "cursor"):
        return "backward"
    if set(said) & _FORWARD or said[:2] == ("end", "cursor"):
        return "forward"
    return None


_PARAMS = {
    "nextKey": "pageFromKey",
    "next_token": "pagination_token",
    "NextToken": "NextToken",
    "nextToken": "nextToken",
    "NextMarker": "Marker",
    "next_marker": "marker",
    "endCursor": "after",
    "end_cursor": "after",
    "X-MS-ContinuationToken": "continuationToken",
    "X-Next-Cursor": "cursor",
    "X-Next-Page": "page",
    "X-Next-Token": "token",
    "Next-Range": "Range",
    "continue": "continue",
}
"""Continuation names whose request parameter the rule would not find (AWS keeps `NextToken`)."""


LAST_ID_PARAMS = ("starting_after", "after", "after_id", "since_id")
"""Where a keyset list reads the last id seen (Stripe, OpenAI, Anthropic, Twitter): the
parameters tried for a `last_id` token, and for a list that says only that more follow."""


def names_last_id(key: str) -> bool:
    """Whether a key names the last id seen (`last_id`, `lastSeenAssetId`, `LastKey`)."""
    said = words(key)
    return len(said) > 1 and said[0] == "last" and said[-1] in ("id", "key")


NOT_PAGING_HEADERS = frozenset(
    {"retry-after", "retry-after-ms", "x-request-id", "content-range", "accept-ranges"}
)
"""Headers whose names share words with paging but never say anything about it."""


def param_candidates(
    key: str, parent: str | None = None, *, header: bool = False
) -> tuple[str, ...]:
    """The request parameters a token found under `key` may go back in, likeliest first.

    The table, then the rule (the key without its `next`, in the key's own spelling: `nextPage
    Token` -> `pageToken`, `next_cursor` -> `cursor`), then the key itself; for a key naming the
    last id seen, the keyset parameters (`LAST_ID_PARAMS`); under a `page` object, the JSON:API
    forms (`page[after]`, `page[cursor]`). A header's token goes back in
    the parameter its words name, in camelCase (`X-Next-Cursor` -> `cursor`).
    """
    found: list[str] = []
    if key in _PARAMS:
        found.append(_PARAMS[key])
    said = words(key)
    if said[:1] == ("x",):
        said = said[1:]
    kept = [word for word in said if word != "next"] or list(said)
    if header:
        found.append(spelled([word for word in kept if word != "ms"], "camelCase"))
        found.append(kept[-1])  # opc-next-page: the page parameter
        return tuple(dict.fromkeys(name for name in found if name))
    found.append(spelled(kept, key))
    found.append(key)
    if key[:1].isupper():
        found.append(key[:1].lower() + key[1:])
    if names_last_id(key):
        found += LAST_ID_PARAMS  # OpenAI: last_id -> after; Anthropic: last_id -> after_id
    found.append(spelled(["start", *kept], key))  # Notion: next_cursor -> start_cursor
    if "after" in kept:
        found.append(spelled(["starting", "after"], key))  # Intercom, Stripe
    if parent is not None and "page" in words(parent):
        found += [f"page[{key}]", "page[cursor]"]
    return tuple(dict.fromkeys(name for name in found if name))


def spelled(said: list[str] | tuple[str, ...], like: str) -> str:
    """Words joined in the spelling of `like`: camel, Pascal, snake or kebab."""
    if not said:
        return ""
    if "_" in like:
        return "_".join(said)
    if "-" in like:
        return "-".join(said)
    head, rest = said[0], "".join(word.title() for word in said[1:])
    return (head.title() if like[:1].isupper() else head) + rest
