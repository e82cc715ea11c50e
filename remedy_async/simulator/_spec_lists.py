"""Describes the lists of a paging convention as OpenAPI: parameters, page body, headers, link.

Everything is read from what serves the pages: the convention row (`param`, `size_param`,
`first_page`), how `_positions` reads them, and the `_layout.PageLayout` the responder writes
(items path, each signal's path, the continuation header), so a document and the pages it
describes come from one place.
"""

from __future__ import annotations

import re
from typing import Any, Final

from remedy_async import Convention

from ._layout import PageLayout
from ._positions import MAX_POSITION, reading

JSON_POINTER_ESCAPES: Final = (("~", "~0"), ("/", "~1"))
LINK_DESCRIPTION: Final = "The first listed record, fetched back by its id."
_WORD = re.compile(r"[A-Za-z0-9]+")
_TOKENS: Final = frozenset({"cursor", "url", "keyset", "page-token"})
"""Readings whose next-page value is a string (a token, URL or id) rather than a number."""


def simulated(what: str) -> dict[str, str]:
    """The marker of a part a simulator run rewrote: `x-contract: simulated` and what the run
    does instead of the published contract (`x-simulated`)."""
    return {"x-contract": "simulated", "x-simulated": what}


def respelled(key: str, naming: str) -> str:
    """A snake_case key (as the contract spells record keys) as `naming` spells it:
    `mac_address` -> `macAddress` (camel), `MacAddress` (pascal), `mac-address` (kebab)."""
    words = key.split("_")
    if naming == "snake":
        return key
    if naming == "kebab":
        return "-".join(words)
    capitalised = "".join(word[:1].upper() + word[1:] for word in words)
    return capitalised if naming == "pascal" else words[0] + capitalised[len(words[0]) :]


def component_name(parameter: str) -> str:
    """The components key of a query parameter: `page[size]` -> `PageSize`."""
    return "".join(word[:1].upper() + word[1:] for word in _WORD.findall(parameter))


def paging_parameters(
    convention: Convention, page_size: int, max_page_size: int
) -> dict[str, dict[str, Any]]:
    """The convention's query parameters by component key: where the page starts, its size."""
    parameters: dict[str, dict[str, Any]] = {}
    if convention.param is not None:
        description, schema = _place(convention)
        parameters[component_name(convention.param)] = {
            "name": convention.param,
            "in": "query",
            "description": description,
            "schema": schema,
        }
    if convention.size_param is not None:
        parameters[component_name(convention.size_param)] = {
            "name": convention.size_param,
            "in": "query",
            "description": f"Page size (default {page_size}, maximum {max_page_size}).",
            "schema": {
                "type": "integer",
                "minimum": 1,
                "maximum": max_page_size,
                "default": page_size,
            },
        }
    return parameters


def _place(convention: Convention) -> tuple[str, dict[str, Any]]:
    how = reading(convention)
    first = "; absent or empty for the first page."
    if how == "offset":
        return "Records to skip (default 0).", _position(0)
    if how in ("page", "page-token"):
        start = convention.first_page
        return f"The page number, from {start} (default {start}).", _position(start)
    if how == "keyset":
        text = f"The id of the last record of the previous page{first}"
        return f"{text} An id that is not in this list is a 422.", _STRING
    if how == "url":
        text = f"The opaque token of the previous page's next URL (follow it as given){first}"
    else:
        where = (
            f"`{'.'.join(convention.next_at)}`"
            if convention.next_at
            else f"its `{convention.next_header}` header"
        )
        text = f"The token the previous page gave at {where}{first}"
    return f"{text} One this server did not issue for this list is a 400.", _STRING


_STRING: Final = {"type": "string"}
_FLAGS: Final = {"more": "Whether more records follow.", "last": "Whether this page is the last."}
_COUNTS: Final = {
    "total": (0, "Records that match the filters."),
    "pages": (0, "Pages of matching records."),
    "size": (1, "The page size served."),
}
"""The integer signals but the position: their minimum and what they say."""


def _position(start: int) -> dict[str, Any]:
    return {"type": "integer", "minimum": start, "maximum": MAX_POSITION, "default": start}


def page_schema(convention: Convention, layout: PageLayout, record: str) -> dict[str, Any]:
    """The JSON Schema of a page: the record array at the layout's items path, each signal
    where the layout writes it (every member required, as every page writes them all)."""
    items = {"type": "array", "items": {"$ref": f"#/components/schemas/{record}"}}
    description = f"A page (`{convention.name}` paging)."
    if not layout.items:
        return {**items, "description": description}
    schema: dict[str, Any] = {"type": "object", "description": description}
    put(schema, layout.items, items)
    for path, attribute in layout.fields:
        put(schema, path, _signal(convention, attribute))
    return schema


def put(
    schema: dict[str, Any], path: tuple[str, ...], leaf: dict[str, Any], *, required: bool = True
) -> None:
    """Put `leaf` at `path` in an object schema (required, with the objects on the way,
    unless told otherwise), making the objects on the way."""
    for key in path[:-1]:
        schema = _member(schema, key, {"type": "object"}, required)
    _member(schema, path[-1], leaf, required)


def _member(
    schema: dict[str, Any], key: str, default: dict[str, Any], required: bool
) -> dict[str, Any]:
    if required:
        names = schema.setdefault("required", [])
        if key not in names:
            names.append(key)
    member: dict[str, Any] = schema.setdefault("properties", {}).setdefault(key, default)
    return member


def _signal(convention: Convention, attribute: str) -> dict[str, Any]:
    how = reading(convention)
    if attribute == "next":
        if how in _TOKENS:
            what = "URL" if how == "url" else "cursor"
            said = f"The {what} of the next page; null on the last page."
            return {"type": ["string", "null"], "description": said}
        said = "What the next page is asked by; null on the last page."
        return {"type": ["integer", "null"], "description": said}
    if attribute in _FLAGS:
        return {"type": "boolean", "description": _FLAGS[attribute]}
    if attribute == "position":
        first = 0 if how == "offset" else convention.first_page
        said = "The offset served." if how == "offset" else "The page number served."
    else:
        first, said = _COUNTS[attribute]
    return {"type": "integer", "minimum": first, "description": said}


def page_headers(layout: PageLayout, convention: Convention) -> dict[str, dict[str, Any]]:
    """The response header that carries the continuation, if the convention has one."""
    if layout.header is None:
        return {}
    if layout.link:
        described = (
            'RFC 8288 links: `<url>; rel="next"` (not on the last page), `<url>; rel="first"`.'
        )
        return {layout.header: {"description": described, "required": True, "schema": _STRING}}
    what = "page number" if reading(convention) == "page-token" else "token"
    end = "empty" if layout.blank_at_end else "absent"
    described = f"The {what} of the next page; {end} on the last page."
    header = {"description": described, "required": layout.blank_at_end, "schema": _STRING}
    return {layout.header: header}


def first_record_link(
    items: tuple[str, ...], naming: str, operation_id: str, parameter: str
) -> dict[str, Any]:
    """The OpenAPI link from a page whose records are at `items` to the get of its first
    record (`$response.body#/.../0/id`)."""
    path = (*items, "0", respelled("id", naming))
    pointer = "".join("/" + _escaped(key) for key in path)
    return {
        "operationId": operation_id,
        "parameters": {parameter: f"$response.body#{pointer}"},
        "description": LINK_DESCRIPTION,
    }


def _escaped(key: str) -> str:
    for raw, escaped in JSON_POINTER_ESCAPES:
        key = key.replace(raw, escaped)
    return key
