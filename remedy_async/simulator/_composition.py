"""A list response composed from independent choices on every paging axis: `Composition`.

Real list APIs combine the axes freely (where the items are, what the continuation is and where
it goes, which request parameter reads it, what proves the end, totals, echoes, backward
cursors, redundant continuations, link forms, silent size caps). A Composition names one choice
per axis; the simulator serves it (`SimulatorConfig(paging=str(composition))`, `--paging
compose:...`, or the `X-Simulator-Paging` request header) and `Composition.convention` is the
`remedy_async.Convention` a client pins to read it exactly. The text form is in `_compose_text`;
what each combination must hold together is checked in `_compose_checks`.
"""

from __future__ import annotations

from typing import Any, Literal

import attrs

from remedy_async import Convention

from ._compose_checks import check, convention_of, natural_end
from ._compose_text import (
    ENDS,
    HEADER,
    KINDS,
    NONE,
    End,
    Kind,
    Links,
    Path,
    Slot,
    format_path,
    join_spec,
    one_of,
    split_spec,
    to_path,
)


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


@attrs.frozen
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
