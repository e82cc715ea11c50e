"""Finds continuation signals a paginator did not read, so no list ends while one is unacted on.

A key of the body (top level, or one level into an object beside the items) or a response
header whose name speaks of a next page (next, cursor, token, continuation, more, after, ...)
and carries a value, or an end flag (`last`, `done`) that is false, is a continuation signal.
If the active paginator did not read it, the page is refused with a PagingFault that names the
signal and the known convention that reads it. Values are never shown: they may echo secrets.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from functools import lru_cache
from typing import Any

from remedy_async._http import JSONResponse

from ._conventions import CONVENTIONS
from ._envelope import MISSING, dig_path, has_link_next
from ._protocol import PagingFault, Path

CONTINUATION_STEMS = ("next", "nxt", "cursor", "token", "tok", "continu", "more", "after", "marker")
"""A name with a word containing one of these speaks of the next page."""
END_STEMS = ("last", "done", "complete", "end")
"""A name with one of these words, set to false, says the list goes on."""
NOT_PAGING_HEADERS = frozenset({"retry-after"})

_WORDS = re.compile(r"[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])")


def _words(name: str) -> tuple[str, ...]:
    return tuple(word.lower() for word in _WORDS.findall(name.replace("-", "_")))


@lru_cache(maxsize=4096)
def _speaks_of_next(name: str) -> bool:
    """Whether a key or header name speaks of a next page (decided once per name)."""
    return any(stem in word for word in _words(name) for stem in CONTINUATION_STEMS)


@lru_cache(maxsize=4096)
def _speaks_of_end(name: str) -> bool:
    """Whether a key names an end flag (`last`, `isLast`, `done`), decided once per name."""
    return any(word in END_STEMS or (word.startswith("is") and word[2:] in END_STEMS)
               for word in _words(name))  # fmt: skip


def _set(value: Any) -> bool:
    return value not in (None, False, "", 0) and value not in ([], {})


def body_signals(body: Any, items_path: Path) -> Iterator[Path]:
    """Paths of the body's continuation signals, outside the item array."""
    if not isinstance(body, dict):
        return
    skip = items_path[:1]
    for key, value in body.items():
        if (key,) == skip:
            continue
        if _is_signal(key, value):
            yield (key,)
        elif isinstance(value, dict):
            for inner, inner_value in value.items():
                if (key, inner) != items_path[:2] and _is_signal(inner, inner_value):
                    yield (key, inner)


def _is_signal(name: str, value: Any) -> bool:
    if _speaks_of_next(name):
        return _set(value)
    return value is False and _speaks_of_end(name)


def header_signals(headers: Mapping[str, str]) -> Iterator[str]:
    """Names of the response headers that announce a next page."""
    seen: set[str] = set()
    for name in headers:
        if not _speaks_of_next(name) and name.lower() != "link":
            continue
        lowered = name.lower()
        if lowered in NOT_PAGING_HEADERS or lowered in seen:
            continue
        seen.add(lowered)
        if lowered == "link":
            if _announces_next(headers):
                yield "Link"
        elif headers.get(name, "").strip():
            yield name


def _announces_next(headers: Mapping[str, str]) -> bool:
    """A Link rel="next", read leniently: a malformed Link header announces nothing here."""
    try:
        return has_link_next(headers)
    except ValueError:
        return False


def _read(path: Path, read_paths: Iterable[Path], body: Any = None) -> bool:
    """Whether a signal at `path` is one of the read paths, or holds one that is present.

    `_links.next` counts as read for a reader of `_links.next.href` only if `href` is there,
    so a renamed key inside a known object is still refused.
    """
    for read in read_paths:
        if not read:
            continue
        if path[: len(read)] == read:
            return True
        if read[: len(path)] == path and (body is None or _present(body, read)):
            return True
    return False


def _present(body: Any, path: Path) -> bool:
    return dig_path(body, path) is not MISSING


def refuse_unread_signals(
    response: JSONResponse,
    items_path: Path,
    read_paths: Iterable[Path],
    read_header: str | None,
    reader: str,
) -> None:
    """Raise PagingFault if the response carries a continuation signal `reader` did not read."""
    read_paths = tuple(read_paths)
    for path in body_signals(response.body, items_path):
        if not _read(path, read_paths, response.body):
            raise _unread(".".join(path), reader, _reading(path=path))
    for name in header_signals(response.headers):
        if read_header is None or name.lower() != read_header.lower():
            raise _unread(f"the {name} header", reader, _reading(header=name))


def _reading(*, path: Path | None = None, header: str | None = None) -> list[str]:
    """Names of the known conventions that read a signal."""
    names = []
    for row in CONVENTIONS.values():
        if path is not None and _read(path, row.signal_paths):
            names.append(row.name)
        if header is not None and (row.next_header or "").lower() == header.lower():
            names.append(row.name)
    return names


def _unread(signal: str, reader: str, conventions: list[str]) -> PagingFault:
    if conventions:
        how = (
            "it looks like the "
            + " or ".join(repr(name) for name in conventions)
            + (f" convention: pin it with paginator=remedy_async.CONVENTIONS[{conventions[0]!r}]")
        )
    else:
        how = (
            "no known convention reads it: describe the service's paging with "
            "remedy_async.Convention(...) and pass it as paginator="
        )
    return PagingFault(
        f"the response signals a next page with {signal}, which {reader} does not read, so the "
        f"list cannot be followed safely; {how}"
    )
