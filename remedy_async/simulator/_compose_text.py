"""The words of a composed paging mode and its compact text form (`compose:KEY=VALUE,...`).

A spec is `compose:` followed by comma-separated `KEY=VALUE` parts, each key once, in any order
(`_KEYS` lists them with the `Composition` field each sets). A body path is its keys joined by
dots (`meta.pagination.next_cursor`; `-` is the bare body), a place is a body path or
`header:NAME`, and `-` leaves an optional value out. No part may need a comma, so keys are free
of `,` `=` `.` and white space, and a spec fits a shell word and an HTTP header unquoted.
"""

from __future__ import annotations

import re
from typing import Any, Final, Literal

import attrs

Path = tuple[str, ...]

PREFIX: Final = "compose:"
"""What starts a composed mode where a convention name may stand (`--paging`, the header)."""
NONE: Final = "-"
"""Stands for a value left out (and, for `items`, the bare body)."""
HEADER: Final = "header:"
_KEY = re.compile(r"^[^\s,=.]+$")
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
)
"""Each key of the text form, in printing order, and the field it sets."""
FIELD_OF: Final = dict(_KEYS)
KEY_OF: Final = {field: key for key, field in _KEYS}


def check_key(key: str) -> str:
    """A body key as the text form can write it; ValueError naming it if it cannot."""
    if not isinstance(key, str) or not _KEY.match(key):
        raise ValueError(f"body key {key!r} must be non-empty, without ',', '=', '.' or spaces")
    return key


def check_header(name: str) -> str:
    """An HTTP header (or request header) name; ValueError naming it if it is not one."""
    if not isinstance(name, str) or not _HEADER_NAME.match(name):
        raise ValueError(f"{name!r} is not an HTTP header name")
    return name


def parse_path(text: str) -> Path:
    """A dotted body path (`-` or empty: the body itself)."""
    if text in ("", NONE):
        return ()
    return tuple(check_key(key) for key in text.split("."))


def format_path(path: Path) -> str:
    """The dotted form of a body path (`-` for the body itself)."""
    return ".".join(path) if path else NONE


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

    def __attrs_post_init__(self) -> None:
        if bool(self.path) == (self.header is not None):
            raise ValueError("a slot is either a body path or a header")

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
        return self.header is not None and self.header.lower() == LINK
