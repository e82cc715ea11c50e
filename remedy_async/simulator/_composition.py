"""A list response composed from independent choices on every paging axis: `Composition`.

Real list APIs combine the axes freely (where the items are, what the continuation is and where
it goes, which request parameter reads it, what proves the end, totals, echoes, backward
cursors, redundant continuations, link forms, silent size caps). A Composition names one choice
per axis; the simulator serves it (`SimulatorConfig(paging=str(composition))`, `--paging
compose:...`, or the `X-Simulator-Paging` request header) and `Composition.convention` is the
`remedy_async.Convention` a client pins to read it exactly.

The module reads top down: the words of a composition and its compact text form
(`compose:KEY=VALUE,...`, with `Slot`, a place in a response), then what a combination must hold
together (`check`) and the convention that reads it (`convention_of`), then `Composition`.

A spec is `compose:` followed by comma-separated `KEY=VALUE` parts, each key once, in any order
(`_KEYS` lists them with the `Composition` field each sets). A body path is its keys joined by
dots (`meta.pagination.next_cursor`; `-` is the bare body; a dot inside a key, as in
`@odata.nextLink`, is written `%2E`, and a `%` as `%25`), a place is a body path or
`header:NAME`, and `-` leaves an optional value out. No part may need a comma, so keys are free
of `,` `=` and white space, and a spec fits a shell word and an HTTP header unquoted.

Only what a service could not do is refused: a continuation kind without its place or
parameter, an end that its place cannot show (null in a header, `results="false"` outside a
Link), a URL form where the continuation travels in a request header, two values in one
place. Every message names the parts of the text form at fault.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any, Final, Literal

import attrs

from remedy_async import Convention

# The words of a composition and its text form.

Path = tuple[str, ...]

PREFIX: Final = "compose:"
"""What starts a composed mode where a convention name may stand (`--paging`, the header)."""
NONE: Final = "-"
"""Stands for a value left out (and, for `items`, the bare body)."""
HEADER: Final = "header:"
_KEY = re.compile(r"^[^\s,=]+$")
_ESCAPED = re.compile(r"%(2[Ee]|25)")
_HEADER_NAME = re.compile(r"^[!#$%&'*+^_`|~0-9A-Za-z-]+$")

Kind = Literal["none", "url", "token", "number", "keyset", "offset", "page", "page-token"]
End = Literal["null", "absent", "blank", "flag", "link-false", "empty"]
Links = Literal["absolute", "root", "base"]

KINDS: Final = ("none", "url", "token", "number", "keyset", "offset", "page", "page-token")
PLACED: Final = frozenset({"url", "token", "number", "page-token"})
"""Continuations the service hands out in a place (body path or header)."""
COMPUTED: Final = frozenset({"keyset", "offset", "page"})
"""Continuations the client computes (the last id, the next offset, the next page number)."""
ENDS: Final = ("null", "absent", "blank", "flag", "link-false", "empty")
KEPT: Final = frozenset({"flag", "link-false", "empty"})
"""Ends where the continuation is still handed out on the last page (and after it)."""
LINK: Final = "link"
RESOURCE_SPELLINGS: Final = {
    "{resource}": "camel",
    "{resource:camel}": "camel",
    "{resource:snake}": "snake",
    "{resource:pascal}": "pascal",
    "{resource:kebab}": "kebab",
}
"""Item keys standing for the resource's own name, in one spelling each."""


_KEYS: Final = (
    ("follow", "follow"),
    ("items", "items"),
    ("next", "next"),
    ("param", "param"),
    ("size", "size_param"),
    ("first", "first_page"),
    ("end", "end"),
    ("more", "more_at"),
    ("last", "last_at"),
    ("total", "total"),
    ("pages", "pages"),
    ("position", "position_at"),
    ("position-shows", "position_shows"),
    ("served-size", "size_at"),
    ("prev", "prev"),
    ("also", "also"),
    ("links", "links"),
    ("default", "default_size"),
    ("max", "max_size"),
    ("start", "start"),
)
"""Each key of the text form, in printing order, and the field it sets."""
FIELD_OF: Final = dict(_KEYS)
KEY_OF: Final = {field: key for key, field in _KEYS}


def check_key(key: str) -> str:
    """A body key as the text form can write it; ValueError naming it if it cannot."""
    if not isinstance(key, str) or not _KEY.match(key):
        raise ValueError(f"body key {key!r} must be non-empty, without ',', '=' or spaces")
    return key


def _unescaped(key: str) -> str:
    """A key of the dotted form as it is: `%2E` a dot inside the key, `%25` a percent sign."""
    return _ESCAPED.sub(lambda found: "%" if found[1] == "25" else ".", key)


def _escaped(key: str) -> str:
    """A key as the dotted form writes it (the inverse of `_unescaped`)."""
    return key.replace("%", "%25").replace(".", "%2E")


def check_header(name: str) -> str:
    """An HTTP header (or request header) name; ValueError naming it if it is not one."""
    if not isinstance(name, str) or not _HEADER_NAME.match(name):
        raise ValueError(f"{name!r} is not an HTTP header name")
    return name


def parse_path(text: str) -> Path:
    """A dotted body path (`-` or empty: the body itself)."""
    if text in ("", NONE):
        return ()
    return tuple(check_key(_unescaped(key)) for key in text.split("."))


def format_path(path: Path) -> str:
    """The dotted form of a body path (`-` for the body itself)."""
    return ".".join(_escaped(key) for key in path) if path else NONE


def split_spec(text: str) -> dict[str, str]:
    """The `KEY=VALUE` parts of a spec by field name (the `compose:` prefix is optional);
    ValueError naming the bad part."""
    body = text.removeprefix(PREFIX)
    values: dict[str, str] = {}
    for part in body.split(",") if body else ():
        key, equals, value = part.partition("=")
        if not equals:
            raise ValueError(f"part {part!r} must be KEY=VALUE")
        field = FIELD_OF.get(key)
        if field is None:
            known = ", ".join(key for key, _ in _KEYS)
            raise ValueError(f"part {part!r}: unknown key {key!r}; keys are {known}")
        if field in values:
            raise ValueError(f"part {part!r}: {key} is given twice")
        values[field] = value
    return values


def join_spec(parts: list[tuple[str, str]]) -> str:
    """A spec from `(field, text)` pairs, in the text form's order."""
    order = {field: index for index, (_, field) in enumerate(_KEYS)}
    ordered = sorted(parts, key=lambda part: order[part[0]])
    return PREFIX + ",".join(f"{KEY_OF[field]}={value}" for field, value in ordered)


def described(field: str, value: Any) -> str:
    """`key=value` as the text form writes a field's value, for error messages."""
    if attrs.has(type(value)) or isinstance(value, str | int):
        shown = str(value)
    elif isinstance(value, tuple):
        shown = format_path(value)
    else:
        shown = NONE
    return f"{KEY_OF[field]}={shown}"


def one_of(choices: tuple[str, ...]) -> Any:
    """An attrs validator accepting only `choices`."""

    def check(_: object, attribute: attrs.Attribute[Any], value: object) -> None:
        if value not in choices:
            raise ValueError(f"{attribute.name} must be one of {', '.join(choices)}; got {value!r}")

    return check


def to_path(value: object) -> Path:
    """A body path from its dotted text form or a tuple (or list) of keys."""
    if isinstance(value, str):
        return parse_path(value)
    if not isinstance(value, tuple | list):
        raise TypeError(f"a body path is a dotted string or a tuple of keys, got {value!r}")
    return tuple(check_key(key) for key in value)


def _header(_: object, __: attrs.Attribute[Any], name: str | None) -> None:
    if name is not None:
        check_header(name)


@attrs.frozen
class Slot:
    """Where a paging value goes in a response: a body path, or a response header (`Link`:
    RFC 8288 links). Its text form is the dotted path or `header:NAME`."""

    path: Path = attrs.field(default=(), converter=to_path)
    """A body path, outermost key first."""
    header: str | None = attrs.field(default=None, validator=_header)
    """A response header's name instead."""
    _link: bool = attrs.field(init=False, default=False, eq=False, repr=False, hash=False)

    def __attrs_post_init__(self) -> None:
        if bool(self.path) == (self.header is not None):
            raise ValueError("a slot is either a body path or a header")
        object.__setattr__(self, "_link", self.header is not None and self.header.lower() == LINK)

    def __str__(self) -> str:
        return f"{HEADER}{self.header}" if self.header is not None else format_path(self.path)

    @classmethod
    def parse(cls, text: str) -> Slot:
        """A slot from its text form.

        Args:
            text: A dotted body path, `meta.next_cursor`, or `header:NAME`.
        """
        if text.startswith(HEADER):
            return cls(header=text.removeprefix(HEADER))
        path = parse_path(text)
        if not path:
            raise ValueError(f"{text!r} names no place: write a body path or header:NAME")
        return cls(path)

    @property
    def link(self) -> bool:
        """Whether this is the RFC 8288 `Link` header."""
        return self._link


# What a composition must hold together, and the Convention that reads it.

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


_UNPAGED: Final = (
    "next",
    "param",
    "size_param",
    "prev",
    "also",
    "start",
    "default_size",
    "max_size",
)
"""The fields that say how a list pages, which an unpaged one leaves out."""


def _continuation_problems(c: Composition, follow: str) -> Iterator[str]:
    if c.follow == "none":
        for field in _UNPAGED:
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
    if c.start is not None and c.start.header is not None and not c.start.link:
        yield f"{described('start', c.start)}: the first page's URL is a body path or header:Link"


def _header_param_problems(c: Composition, follow: str) -> Iterator[str]:
    assert c.param is not None
    if c.param.lower() in RESERVED_REQUEST_HEADERS:
        yield f"param=header:{c.param} is a header the simulator reads for itself"
    if c.follow == "url":
        yield f"{follow} puts the continuation in the URL, not in param=header:{c.param}"
    for field in ("also", "prev", "start"):
        slot: Slot | None = getattr(c, field)
        if slot is not None and (slot.link or (field != "prev" and slot.header is None)):
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
            shared = lower == "link" and _share_link(field, headers.get(lower))
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


def _share_link(field: str, there: str | None) -> bool:
    """Whether `field` may write its link into a Link header that `there` writes already: the
    forward and backward links, and the first page's beside either."""
    return there is not None and ({field, there} == {"next", "prev"} or "start" in (field, there))


def _signals(c: Composition) -> Iterator[tuple[str, Slot | Path]]:
    """Every signal field that is set, with its slot or body path."""
    for field in ("next", "more_at", "last_at", "total", "pages", "position_at", "size_at"):
        value = getattr(c, field)
        if value:
            yield field, value
    for field in ("prev", "also", "start"):
        value = getattr(c, field)
        if value is not None:
            yield field, value


def convention_of(c: Composition) -> Convention:
    """The Convention a client pins to read `c` exactly (see `Composition.convention`)."""
    ignore: list[Path] = []
    ignore_headers: list[str] = []
    for slot in (c.also, c.prev, c.start):
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


# The composition.


def _slot(value: object) -> Slot | None:
    if value is None or isinstance(value, Slot):
        return value
    if isinstance(value, str):
        return None if value == NONE else Slot.parse(value)
    if isinstance(value, tuple | list):
        return Slot(tuple(value))
    raise TypeError(f"expected a body path, 'header:NAME' or a Slot, got {value!r}")


def _name(value: object) -> str | None:
    if value is None or value == NONE:
        return None
    if not isinstance(value, str) or not value or any(c in value for c in ",=& \t\r\n#"):
        raise ValueError(f"{value!r} is not a parameter name")
    return value


def _size(value: object) -> int | None:
    if value is None or value == NONE:
        return None
    number = int(value) if isinstance(value, str) else value
    if not isinstance(number, int) or number < 1:
        raise ValueError(f"a page size must be a positive integer, got {value!r}")
    return number


def _first(value: object) -> int:
    if isinstance(value, int) or (isinstance(value, str) and value in ("0", "1")):
        return int(value)
    raise ValueError(f"first must be 0 or 1, got {value!r}")


@attrs.frozen(cache_hash=True)
class Composition:
    """How a composed list pages, one independent choice per axis; the simulator serves it.

    Flags, totals, page counts and echoes are truthful on every page. The text form
    (`compose:KEY=VALUE,...`, `str(composition)`) names the same fields.
    """

    follow: Kind = attrs.field(default="none", validator=one_of(KINDS))
    """The continuation: `none` (the whole list), `url`, `token` (opaque), `number` (an integer
    offset handed out), `page-token` (a page number handed out), or `keyset` (the last id),
    `offset`, `page` (the client computes them)."""
    items: Path = attrs.field(default=("items",), converter=to_path)
    """The item array's body path (`()`: the bare body; `{resource}` or
    `{resource:snake|pascal|kebab}` stands for the resource's own name)."""
    next: Slot | None = attrs.field(default=None, converter=_slot)
    """Where a handed-out continuation goes: a body path, or a header (`Link` as rel="next")."""
    param: str | None = attrs.field(default=None, converter=_name)
    """The request parameter the continuation is read from."""
    param_in: Literal["query", "header"] = attrs.field(
        default="query", validator=one_of(("query", "header"))
    )
    """Where `param` is: a `query` parameter, or a request `header`."""
    size_param: str | None = attrs.field(default=None, converter=_name)
    """The request parameter of the page size."""
    first_page: int = attrs.field(default=1, converter=_first)
    """The number of the first page, 0 or 1."""
    end: End | None = attrs.field(default=None, validator=attrs.validators.optional(one_of(ENDS)))
    """What the last page shows: the continuation `null`, `absent`, `blank` (`""`), or still
    there beside a flag saying the end (`flag`), in a Link with `results="false"`
    (`link-false`), or only an empty page after the last (`empty`). None: the place's natural
    end (null in a body, absent in a header, `empty` when the client computes)."""
    more_at: Path = attrs.field(default=(), converter=to_path)
    """A body path of a flag saying more pages follow."""
    last_at: Path = attrs.field(default=(), converter=to_path)
    """A body path of a flag saying this is the last page."""
    total: Slot | None = attrs.field(default=None, converter=_slot)
    """Where the list's total goes: a body path or a header."""
    pages: Slot | None = attrs.field(default=None, converter=_slot)
    """Where the number of pages goes: a body path or a header."""
    position_at: Path = attrs.field(default=(), converter=to_path)
    """A body path echoing the offset or page number."""
    position_shows: Literal["served", "next"] = attrs.field(
        default="served", validator=one_of(("served", "next"))
    )
    """What that echo shows: the `served` place or, hostile, the `next` one."""
    size_at: Path = attrs.field(default=(), converter=to_path)
    """A body path echoing the page size served."""
    prev: Slot | None = attrs.field(default=None, converter=_slot)
    """A backward cursor or URL: a body path (null on the first page), or `Link` rel="prev"."""
    also: Slot | None = attrs.field(default=None, converter=_slot)
    """The same continuation a second time: a body URL, `Link`, or a header holding the bare token
    or page number."""
    links: Links = attrs.field(default="absolute", validator=one_of(("absolute", "root", "base")))
    """How URLs are written: `absolute`, `root`-relative (`/base/v1/...`) or relative to the run's
    `base` path (`/v1/...`)."""
    default_size: int | None = attrs.field(default=None, converter=_size)
    """The page size when a request asks for none, instead of the run's."""
    max_size: int | None = attrs.field(default=None, converter=_size)
    """The largest page size, instead of the run's (a silent cap)."""
    start: Slot | None = attrs.field(default=None, converter=_slot)
    """The URL of the list's first page, on every page: a body path, or `Link` rel="first"."""
    _convention: Convention = attrs.field(init=False, eq=False, repr=False, hash=False)

    def __attrs_post_init__(self) -> None:
        if self.end is None:
            object.__setattr__(self, "end", natural_end(self))
        check(self)
        object.__setattr__(self, "_convention", convention_of(self))

    def __str__(self) -> str:
        """The text form, `compose:KEY=VALUE,...` (the fields left at their default left out)."""
        parts: list[tuple[str, str]] = []
        for field in attrs.fields(Composition):
            if not field.init or field.name == "param_in":
                continue
            value = getattr(self, field.name)
            if value == field.default:
                continue
            if field.name == "end" and value == natural_end(self):
                continue
            if field.name == "param" and self.param_in == "header":
                parts.append((field.name, f"{HEADER}{value}"))
            elif isinstance(value, tuple):
                parts.append((field.name, format_path(value)))
            else:
                parts.append((field.name, str(NONE if value is None else value)))
        return join_spec(parts)

    @classmethod
    def parse(cls, text: str) -> Composition:
        """A composition from its text form; ValueError naming the bad part, or the axes that
        do not fit together.

        Args:
            text: `compose:KEY=VALUE,...` (the prefix is optional), as `str()` writes it.
        """
        try:
            values: dict[str, Any] = split_spec(text)
            param = values.get("param", "")
            if param.startswith(HEADER):
                values["param"], values["param_in"] = param.removeprefix(HEADER), "header"
            return cls(**values)
        except (TypeError, ValueError) as error:
            raise ValueError(f"compose spec {text!r}: {error}") from None

    @property
    def convention(self) -> Convention:
        """The `remedy_async.Convention` that reads this composition exactly, to pin in a
        client: its parameters, places, flags, totals and headers, the redundant and backward
        continuations as `ignore`d, and `links_from="base"` for base-relative links."""
        return self._convention

    @property
    def ending(self) -> End:
        """What the last page shows (`end`, or the natural end when it was left out)."""
        assert self.end is not None
        return self.end
