"""The named paging conventions as compositions: a row of `remedy_async.CONVENTIONS` is a name
for the `Composition` that serves it.

A row is read as data, never by name: its `follow` is the continuation kind (a token row whose
`param` is `page` hands out page numbers, as GitLab's `X-Next-Page`, empty on the last page),
its first items path says where the array goes (`()` the body itself, `{resource}` and `*` the
resource's camelCase name; the contract's generic `items`/`data`/`results` means the run's
`items_key`), each signal path and header is a place of the composition, and a `Link` row adds
the first page's URL as rel="first". The page server and the OpenAPI writer serve and describe
the composition, so a row and its composition cannot drift apart.

Disguised (`SimulatorConfig.disguise_paging`), the same pages rename the last key of every body
signal path to `nxt_tok_x`, `nxt_tok_y`, ... (in order of first use) and send the continuation
header as `Nxt-Tok-X`: a service no client knows, which a client must refuse loudly rather than
stop after page one.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Final

import attrs

from remedy_async import Convention

from ._composition import LINK, Composition, Path, Slot
from ._run_config import ITEMS_KEYS

RESOURCE_KEY: Final = "{resource}"
"""The table's placeholder for the resource's own name (camelCase, as served)."""
ONLY_ARRAY_KEY: Final = "*"
"""The table's placeholder for the one array inside an object (HAL's `_embedded`)."""
CONTRACT_ITEMS: Final = tuple((key,) for key in ITEMS_KEYS)
"""A row's items when it keeps them where the contract does: the run's `items_key` decides."""
DISGUISED_HEADER: Final = "Nxt-Tok-X"
"""The continuation header of a disguised run."""
_DISGUISE_LETTERS: Final = "xyzwvutsrqponmlkjihgfedcba"
_SIGNALS: Final = ("next", "more_at", "last_at", "total", "pages", "position_at", "size_at")
"""A composition's signal fields in the order a disguise names their keys."""


@attrs.frozen
class Served:
    """How a list is served: its composition, and the response headers sent under other names
    (a disguised run's `Nxt-Tok-X`)."""

    composition: Composition
    renamed_headers: tuple[tuple[str, str], ...] = ()
    """(header as the composition writes it, header as sent)."""


def counts_pages(convention: Convention) -> bool:
    """Whether a token row's token is a page number (its `param` is `page`, as GitLab's)."""
    return convention.follow == "token" and convention.param == "page"


def items_path(convention: Convention, items_key: str) -> Path:
    """Where a row keeps its item array, as a composition writes it (`()`: the body)."""
    if convention.items == CONTRACT_ITEMS:
        return (items_key,)
    first = convention.items[0] if convention.items else ()
    return tuple(RESOURCE_KEY if key == ONLY_ARRAY_KEY else key for key in first)


def _place(path: Path, header: str | None) -> Slot | None:
    if path:
        return Slot(path)
    return None if header is None else Slot(header=header)


def row_composition(convention: Convention, items_key: str) -> Composition:
    """The composition that serves the pages of `convention` (a row of `CONVENTIONS`, or any
    convention written as one); ValueError if no composition can.

    Args:
        convention: The row.
        items_key: The run's key of a contract envelope's items (`data`, `items`, `results`).
    """
    if convention.first_offset != 0:
        raise ValueError(f"convention {convention.name!r}: offsets from 1 cannot be served")
    follow: str = convention.follow
    if follow == "token" and counts_pages(convention):
        follow = "page-token"
    link = convention.next_header is not None and convention.next_header.lower() == LINK
    try:
        return Composition(
            follow=follow,  # type: ignore[arg-type]
            items=items_path(convention, items_key),
            next=_place(convention.next_at, convention.next_header),
            param=convention.param,
            param_in=convention.param_in,
            size_param=convention.size_param,
            first_page=convention.first_page,
            end="blank" if follow == "page-token" and convention.next_header else None,
            more_at=convention.more_at,
            last_at=convention.last_at,
            total=_place(convention.total_at, convention.total_header),
            pages=_place(convention.pages_at, convention.pages_header),
            position_at=convention.position_at,
            size_at=convention.size_at,
            start=Slot(header=convention.next_header) if link else None,
        )
    except ValueError as error:
        raise ValueError(f"convention {convention.name!r} cannot be served: {error}") from None


def served(convention: Convention, items_key: str, *, disguise: bool = False) -> Served:
    """How the simulator serves `convention`: its composition, disguised if asked."""
    composition = row_composition(convention, items_key)
    return disguised(composition) if disguise else Served(composition)


def disguised(composition: Composition) -> Served:
    """The same pages under names no client knows: the last key of each body signal path
    renamed `nxt_tok_x`, `nxt_tok_y`, ... (in order of first use), the continuation header sent
    as `Nxt-Tok-X` (a Link header's whole value moves there)."""
    names: dict[str, str] = {}
    for path in _body_paths(composition):
        if path[-1] not in names:
            names[path[-1]] = f"nxt_tok_{_DISGUISE_LETTERS[len(names)]}"
    changes: dict[str, Any] = {}
    for field in _SIGNALS:
        value = getattr(composition, field)
        if isinstance(value, Slot) and value.path:
            changes[field] = Slot(_renamed(value.path, names))
        elif isinstance(value, tuple) and value:
            changes[field] = _renamed(value, names)
    header = composition.next.header if composition.next is not None else None
    renamed = () if header is None else ((header, DISGUISED_HEADER),)
    return Served(attrs.evolve(composition, **changes), renamed)


def _body_paths(composition: Composition) -> Iterator[Path]:
    for field in _SIGNALS:
        value = getattr(composition, field)
        path = value.path if isinstance(value, Slot) else value
        if path:
            yield path


def _renamed(path: Path, names: dict[str, str]) -> Path:
    return (*path[:-1], names.get(path[-1], path[-1]))
