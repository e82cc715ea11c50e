"""Describes the lists of a composed mode as OpenAPI: parameters, page body and headers.

Read from the `Composition` the pages are served by and its layout (`_compose_layout`), as
`_spec_lists` does for the named conventions. Two things OpenAPI cannot say exactly are said
loosely: a member or header present on some pages only (a continuation that is absent at the
end, a backward one from page two) is documented as optional, and the end that keeps the
continuation on the last page (`flag`, `link-false`, `empty`) is said in the descriptions only.
"""

from __future__ import annotations

from typing import Any, Final

from ._composed import max_size
from ._composition import Composition, Path, Slot
from ._positions import MAX_POSITION
from ._spec_lists import component_name, put

_STRING: Final = {"type": "string"}
_PAGES: Final = ("page", "page-token")
_VALUES: Final = {
    "url": "cursor",
    "token": "cursor",
    "number": "offset",
    "page-token": "page number",
}
_ENDS: Final = {
    "null": "null on the last page",
    "absent": "absent on the last page",
    "blank": 'empty ("") on the last page',
    "flag": "still present on the last page, where a flag says the end",
    "link-false": 'still a rel="next" link on the last page, with results="false"',
    "empty": "still present on the last page: only an empty page ends the list",
}


def composed_parameters(
    composition: Composition, page_size: int, max_page_size: int
) -> dict[str, dict[str, Any]]:
    """The composition's request parameters by component key: the place and the page size."""
    c = composition
    parameters: dict[str, dict[str, Any]] = {}
    if c.param is not None:
        description, schema = _place(c)
        parameters[component_name(c.param)] = {
            "name": c.param,
            "in": c.param_in,
            "description": description,
            "schema": schema,
        }
    if c.size_param is not None:
        maximum = max_size(c, max_page_size)
        default = c.default_size or min(page_size, maximum)
        parameters[component_name(c.size_param)] = {
            "name": c.size_param,
            "in": "query",
            "description": f"Page size (default {default}, maximum {maximum}).",
            "schema": {"type": "integer", "minimum": 1, "maximum": maximum, "default": default},
        }
    return parameters


def _place(c: Composition) -> tuple[str, dict[str, Any]]:
    first = "; absent or empty for the first page."
    if c.follow in ("offset", "number"):
        given = "" if c.follow == "offset" else f", as the previous page gave at {_where(c.next)}"
        return f"Records to skip (default 0){given}.", _integer(0)
    if c.follow in ("page", "page-token"):
        text = f"The page number, from {c.first_page} (default {c.first_page})."
        return text, _integer(c.first_page)
    if c.follow == "keyset":
        return f"The id of the last record of the previous page{first}", _STRING
    what = "the token in the URL the previous page gave" if c.follow == "url" else "the token"
    text = f"The opaque cursor: {what} at {_where(c.next)}{first}"
    return f"{text} One this server did not issue for this list is a 400.", _STRING


def _integer(start: int) -> dict[str, Any]:
    return {"type": "integer", "minimum": start, "maximum": MAX_POSITION, "default": start}


def _where(slot: Slot | None) -> str:
    if slot is None:
        return "nowhere"
    return f"its `{slot.header}` header" if slot.header is not None else f"`{'.'.join(slot.path)}`"


def composed_headers(composition: Composition) -> dict[str, dict[str, Any]]:
    """The response headers the composition sends: continuation, redundant and backward
    links, total and page count."""
    c = composition
    headers: dict[str, dict[str, Any]] = {}
    link: list[str] = []
    for role, slot in (("next", c.next), ("also", c.also)):
        if slot is None or slot.header is None:
            continue
        if slot.link:
            again = " (the same continuation again)" if role == "also" else ""
            link.append(f'`<url>; rel="next"`{again}')
            continue
        value = _VALUES[c.follow] if role == "also" or c.follow != "url" else "URL"
        said = f"The {value} of the next page; {_ENDS[c.ending]}."
        required = c.ending in ("blank", "flag", "empty")
        headers[slot.header] = {"description": said, "required": required, "schema": _STRING}
    if c.prev is not None and c.prev.link:
        link.append('`<url>; rel="prev"` from the second page on')
    if link:
        ends = f" The next link is {_ENDS[c.ending]}." if c.next is not None and c.next.link else ""
        said = f"RFC 8288 links: {', '.join(link)}.{ends}"
        headers["Link"] = {"description": said, "required": False, "schema": _STRING}
    for slot, what in ((c.total, "Records that match the filters."), (c.pages, "Pages.")):
        if slot is not None and slot.header is not None:
            headers[slot.header] = {
                "description": what,
                "required": True,
                "schema": {"type": "string", "pattern": "^[0-9]+$"},
            }
    return headers


def composed_schema(composition: Composition, items: Path, record: str) -> dict[str, Any]:
    """The JSON Schema of a page: the record array at `items`, every body signal where the
    composition writes it (required where every page writes it)."""
    c = composition
    array = {"type": "array", "items": {"$ref": f"#/components/schemas/{record}"}}
    description = f"A page (composed paging `{c}`)."
    if not items:
        return {**array, "description": description}
    schema: dict[str, Any] = {"type": "object", "description": description}
    put(schema, items, array)
    for path, leaf, required in _members(c):
        put(schema, path, leaf, required=required)
    return schema


def _members(c: Composition) -> list[tuple[Path, dict[str, Any], bool]]:
    members: list[tuple[Path, dict[str, Any], bool]] = []
    end = c.ending
    for role, slot in (("next", c.next), ("also", c.also)):
        if slot is None or slot.header is not None:
            continue
        url = c.follow == "url" or role == "also"
        kinds = ["string"] if url or c.follow == "token" else ["integer"]
        if end == "blank" and kinds == ["integer"]:
            kinds.append("string")
        if end in ("null", "link-false"):
            kinds.append("null")
        said = f"The {'URL' if url else 'continuation'} of the next page; {_ENDS[end]}."
        members.append((slot.path, {"type": kinds, "description": said}, end != "absent"))
    if c.prev is not None and not c.prev.link:
        kind = "string" if c.follow in ("url", "token", "keyset") else "integer"
        said = "Where the previous page is; null on the first page."
        members.append((c.prev.path, {"type": [kind, "null"], "description": said}, True))
    for path, said in (
        (c.more_at, "Whether more records follow."),
        (c.last_at, "Whether this page is the last."),
    ):
        if path:
            members.append((path, {"type": "boolean", "description": said}, True))
    counts = (
        (_body(c.total), 0, "Records that match the filters."),
        (_body(c.pages), 0, "Pages of matching records."),
        (c.size_at, 1, "The page size served."),
        (c.position_at, c.first_page if c.follow in _PAGES else 0, _position_said(c)),
    )
    for path, minimum, said in counts:
        if path:
            leaf = {"type": "integer", "minimum": minimum, "description": said}
            members.append((path, leaf, True))
    return members


def _body(slot: Slot | None) -> Path:
    return () if slot is None or slot.header is not None else slot.path


def _position_said(c: Composition) -> str:
    what = "page number" if c.follow in ("page", "page-token") else "offset"
    return f"The {what} {'served' if c.position_shows == 'served' else 'of the next page'}."
