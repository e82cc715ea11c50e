"""What a `Composition` must hold together, and the `Convention` that reads it.

Only what a service could not do is refused: a continuation kind without its place or
parameter, an end that its place cannot show (null in a header, `results="false"` outside a
Link), a URL form where the continuation travels in a request header, two values in one
place. Every message names the parts of the text form at fault.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Final

from remedy_async import Convention

from ._compose_text import COMPUTED, PLACED, RESOURCE_SPELLINGS, End, Path, Slot, described

if TYPE_CHECKING:
    from ._composition import Composition

MAX_ITEMS_DEPTH: Final = 3
MAX_SIGNAL_DEPTH: Final = 4
RESERVED_HEADERS: Final = frozenset(
    {
        "content-type",
        "content-length",
        "content-disposition",
        "transfer-encoding",
        "connection",
        "date",
        "server",
        "etag",
        "location",
        "retry-after",
        "www-authenticate",
        "x-request-id",
        "x-ratelimit-remaining",
        "x-ratelimit-reset",
    }
)
"""Response headers the simulator already sends for other reasons."""
RESERVED_PARAMETERS: Final = frozenset({"echo"})
RESERVED_REQUEST_HEADERS: Final = frozenset(
    {"authorization", "host", "x-simulator-paging", "content-length"}
)


def natural_end(composition: Composition) -> End:
    """The end a composition shows when it names none: nothing to show for an unpaged or
    computed list (an empty page ends the latter), null in a body, absent in a header."""
    if composition.follow in COMPUTED:
        return "empty"
    if composition.next is not None and composition.next.header is None:
        return "null"
    return "absent"


def check(composition: Composition) -> None:
    """ValueError listing every way the axes of `composition` do not fit together."""
    problems = list(_problems(composition))
    if problems:
        raise ValueError("; ".join(problems))


def _problems(c: Composition) -> Iterator[str]:
    follow = f"follow={c.follow}"
    yield from _continuation_problems(c, follow)
    yield from _end_problems(c)
    if c.position_at and c.follow not in ("offset", "page", "number", "page-token"):
        at = described("position_at", c.position_at)
        yield f"{follow} has no offset or page number to echo at {at}"
    if c.position_shows == "next" and not c.position_at:
        yield "position-shows=next needs a position"
    if c.first_page not in (0, 1):
        yield f"first={c.first_page}: pages are counted from 0 or 1"
    elif c.first_page == 0 and c.follow not in ("page", "page-token"):
        yield f"first=0 applies to page numbers, not to {follow}"
    if c.default_size is not None and c.max_size is not None and c.default_size > c.max_size:
        yield f"default={c.default_size} exceeds max={c.max_size}"
    yield from _place_problems(c)


def _continuation_problems(c: Composition, follow: str) -> Iterator[str]:
    if c.follow == "none":
        for field in ("next", "param", "size_param", "prev", "also", "default_size", "max_size"):
            if getattr(c, field) is not None:
                yield f"{described(field, getattr(c, field))} does not apply to an unpaged list"
        return
    if c.param is None:
        yield f"{follow} needs the request parameter that reads it (param=...)"
    if c.follow in PLACED and c.next is None:
        yield f"{follow} needs a place for the continuation (next=PATH or next=header:NAME)"
    if c.follow in COMPUTED and c.next is not None:
        yield f"{follow} is computed by the client: {described('next', c.next)} has nothing to hold"
    if c.next is not None and c.next.link and c.follow != "url":
        yield f"{described('next', c.next)} holds URLs: it needs follow=url"
    if c.size_param is not None and c.size_param == c.param:
        yield f"param and size are both {c.param!r}"
    for name in (c.param, c.size_param):
        if name is not None and name in RESERVED_PARAMETERS:
            yield f"{name!r} is the simulator's own query parameter"
    if c.param_in == "header":
        yield from _header_param_problems(c, follow)
    if c.also is not None:
        if c.follow not in PLACED:
            yield f"{described('also', c.also)} repeats a continuation, and {follow} hands none out"
        if c.next is not None and (c.also == c.next or (c.also.link and c.next.link)):
            yield f"{described('also', c.also)} is where next already is"
    if c.prev is not None and c.prev.header is not None and not c.prev.link:
        yield f"{described('prev', c.prev)}: a backward continuation is a body path or header:Link"


def _header_param_problems(c: Composition, follow: str) -> Iterator[str]:
    assert c.param is not None
    if c.param.lower() in RESERVED_REQUEST_HEADERS:
        yield f"param=header:{c.param} is a header the simulator reads for itself"
    if c.follow == "url":
        yield f"{follow} puts the continuation in the URL, not in param=header:{c.param}"
    for field in ("also", "prev"):
        slot: Slot | None = getattr(c, field)
        if slot is not None and (slot.link or (field == "also" and slot.header is None)):
            yield f"{described(field, slot)} is a URL, which cannot carry param=header:{c.param}"


def _end_problems(c: Composition) -> Iterator[str]:
    end, place = c.end, c.next
    said = f"end={end}"
    if c.follow == "none" or c.follow in COMPUTED:
        if end != natural_end(c):
            yield (
                f"{said}: follow={c.follow} has no continuation to end (flags, totals or an "
                "empty page end it)"
            )
        return
    if place is None:
        return
    if end == "null" and place.header is not None:
        yield f"{said} needs next at a body path, not {described('next', place)}"
    if end == "blank" and place.link:
        yield f"{said} needs next at a body path or a header other than Link"
    if end == "link-false" and not place.link:
        yield f"{said} needs next=header:Link"
    if end == "flag" and not (c.more_at or c.last_at):
        yield f"{said} needs a flag (more=PATH or last=PATH)"


def _place_problems(c: Composition) -> Iterator[str]:
    if len(c.items) > MAX_ITEMS_DEPTH:
        yield f"{described('items', c.items)} is deeper than {MAX_ITEMS_DEPTH}"
    paths: list[tuple[str, Path]] = [("items", c.items)] if c.items else []
    headers: dict[str, str] = {}
    for field, slot_or_path in _signals(c):
        if isinstance(slot_or_path, tuple):
            path: Path | None = slot_or_path
            header = None
        else:
            path, header = slot_or_path.path or None, slot_or_path.header
        if path is not None:
            if not c.items:
                yield f"{described(field, slot_or_path)}: a bare array body has no place for it"
            if len(path) > MAX_SIGNAL_DEPTH:
                yield f"{described(field, slot_or_path)} is deeper than {MAX_SIGNAL_DEPTH}"
            paths.append((field, path))
        if header is not None:
            lower = header.lower()
            if lower in RESERVED_HEADERS:
                yield f"{described(field, slot_or_path)}: the simulator sends {header} itself"
            shared = {"next", "prev"} == {field, headers.get(lower)} and lower == "link"
            if lower in headers and not shared:
                yield f"{described(field, slot_or_path)}: {headers[lower]} is there already"
            headers.setdefault(lower, field)
    for index, (field, path) in enumerate(paths):
        for other, other_path in paths[index + 1 :]:
            shorter = min(len(path), len(other_path))
            if path[:shorter] == other_path[:shorter]:
                yield (
                    f"{described(field, path)} and {described(other, other_path)} "
                    "overlap (one is, or holds, the other)"
                )


def _signals(c: Composition) -> Iterator[tuple[str, Slot | Path]]:
    """Every signal field that is set, with its slot or body path."""
    for field in ("next", "more_at", "last_at", "total", "pages", "position_at", "size_at"):
        value = getattr(c, field)
        if value:
            yield field, value
    for field in ("prev", "also"):
        value = getattr(c, field)
        if value is not None:
            yield field, value


def convention_of(c: Composition) -> Convention:
    """The Convention a client pins to read `c` exactly (see `Composition.convention`)."""
    ignore: list[Path] = []
    ignore_headers: list[str] = []
    for slot in (c.also, c.prev):
        if slot is None:
            continue
        if slot.header is None:
            ignore.append(slot.path)
        elif not (slot.link and c.next is not None and c.next.link):
            ignore_headers.append(slot.header)
    items = tuple("{resource}" if key in RESOURCE_SPELLINGS else key for key in c.items)
    follow = {"number": "token", "page-token": "token"}.get(c.follow, c.follow)
    return Convention(
        name="composed",
        summary=str(c),
        follow=follow,  # type: ignore[arg-type]
        items=(items,),
        next_at=_path_of(c.next),
        next_header=_header_of(c.next),
        param=c.param,
        param_in=c.param_in,
        size_param=c.size_param,
        more_at=c.more_at,
        last_at=c.last_at,
        total_at=_path_of(c.total),
        total_header=_header_of(c.total),
        pages_at=_path_of(c.pages),
        pages_header=_header_of(c.pages),
        position_at=c.position_at,
        size_at=c.size_at,
        first_page=c.first_page,
        ignore=tuple(ignore),
        ignore_headers=tuple(dict.fromkeys(ignore_headers)),
        links_from="base" if c.links == "base" else "request",
    )


def _path_of(slot: Slot | None) -> Path:
    return () if slot is None else slot.path


def _header_of(slot: Slot | None) -> str | None:
    return None if slot is None else slot.header
