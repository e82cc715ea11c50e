"""The paging conventions of public APIs, as data: one row each.

A row says where a list response keeps its items, where it signals the next page, how the next
request is formed, and what proves the end. Auto-detection picks the first row a response
matches; a row can be pinned with `RemedyClient(paginator=...)`. Adding a convention is adding a
row here (the simulator serves every row, so it is tested over real sockets at once).

Paths are tuples of keys into the JSON body (a key may contain dots, as `@odata.nextLink` does).
Two placeholders stand for a key: `RESOURCE`, the resource's own name in any spelling
(`vulnerabilityFindings`, `vulnerability_findings`, ...), and `ONLY_ARRAY`, the one array among
an object's values (HAL's `_embedded`).
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

import attrs

from ._protocol import BODY, CONTRACT_ITEMS, ONLY_ARRAY, RESOURCE, Convention, Path

ANY_ITEMS: tuple[Path, ...] = (
    BODY,
    *CONTRACT_ITEMS,
    ("value",),
    ("content",),
    ("records",),
    ("Items",),
    (RESOURCE,),
    ("_embedded", ONLY_ARRAY),
)
"""Every place a list response of a known convention may keep its items."""


def _row(name: str, summary: str, example: str, **fields: Any) -> Convention:
    return Convention(name=name, summary=summary, example=example, **fields)


_ROWS: tuple[Convention, ...] = (
    _row(
        "link",
        'RFC 8288 `Link: <url>; rel="next"` header; the body is the array or an envelope',
        '[{"id": "ep-1"}, ...]  with  Link: <https://api.example.com/v1/endpoints?cursor=x>; '
        'rel="next"',
        follow="url",
        items=(BODY, *CONTRACT_ITEMS),
        next_header="Link",
        param="cursor",
        size_param="limit",
    ),
    _row(
        "odata",
        "OData: items in `value`, next page at `@odata.nextLink`",
        '{"value": [...], "@odata.nextLink": "https://api.example.com/v1/endpoints?$skiptoken=x"}',
        follow="url",
        items=(("value",),),
        next_at=("@odata.nextLink",),
        param="$skiptoken",
        size_param="$top",
        total_at=("@odata.count",),
    ),
    _row(
        "hal",
        "HAL: items in `_embedded.<name>`, next page at `_links.next.href`",
        '{"_embedded": {"endpoints": [...]}, "_links": {"next": {"href": "/v1/endpoints?page=2"}}}',
        follow="url",
        items=(("_embedded", ONLY_ARRAY),),
        next_at=("_links", "next", "href"),
        param="page",
        size_param="size",
        total_at=("page", "totalElements"),
    ),
    _row(
        "json-api",
        "JSON:API: items in `data`, next page at `links.next`",
        '{"data": [...], "links": {"next": "/v1/endpoints?page[cursor]=x"}, "meta": {}}',
        follow="url",
        items=(("data",),),
        next_at=("links", "next"),
        param="page[cursor]",
        size_param="page[size]",
        total_at=("meta", "total"),
    ),
    _row(
        "salesforce",
        "items in `records`, next page at `nextRecordsUrl`, `done: true` on the last",
        '{"records": [...], "totalSize": 2503, "done": false, "nextRecordsUrl": "/v1/endpoints/x"}',
        follow="url",
        items=(("records",),),
        next_at=("nextRecordsUrl",),
        param="locator",
        size_param="batchSize",
        last_at=("done",),
        total_at=("totalSize",),
    ),
    _row(
        "next-url",
        "Django REST framework: items in `results`, next page URL at `next`, total at `count`",
        '{"count": 2503, "next": "https://api.example.com/v1/endpoints?page=2", "results": [...]}',
        follow="url",
        items=(("results",),),
        next_at=("next",),
        param="page",
        size_param="page_size",
        total_at=("count",),
    ),
    _row(
        "pagination-url",
        "next page URL at `pagination.next_url`",
        '{"data": [...], "pagination": {"next_url": "https://api.example.com/v1/endpoints?p=x"}}',
        follow="url",
        next_at=("pagination", "next_url"),
        param="after",
        size_param="per_page",
    ),
    _row(
        "stripe",
        "keyset: items in `data`, `has_more`, next request `starting_after=<last id>`",
        '{"object": "list", "data": [...], "has_more": true}',
        follow="keyset",
        items=(("data",),),
        more_at=("has_more",),
        param="starting_after",
        size_param="limit",
    ),
    _row(
        "google",
        "items under the resource's name, token at `nextPageToken`, sent back as `pageToken`",
        '{"vulnerabilityFindings": [...], "nextPageToken": "x", "totalSize": 2503}',
        follow="token",
        items=((RESOURCE,),),
        next_at=("nextPageToken",),
        param="pageToken",
        size_param="pageSize",
        total_at=("totalSize",),
    ),
    _row(
        "aws",
        "PascalCase: items in `Items`, token at `NextToken`, sent back as `NextToken`",
        '{"Items": [...], "NextToken": "x"}',
        follow="token",
        items=(("Items",),),
        next_at=("NextToken",),
        param="NextToken",
        size_param="MaxResults",
    ),
    _row(
        "cursor",
        "token at `nextCursor` (null on the last page), sent back as `cursor`",
        '{"items": [...], "nextCursor": "x"}',
        follow="token",
        next_at=("nextCursor",),
        param="cursor",
        size_param="limit",
    ),
    _row(
        "meta-cursor",
        "token at `meta.nextCursor`, sent back as `cursor`",
        '{"data": [...], "meta": {"nextCursor": "x"}}',
        follow="token",
        next_at=("meta", "nextCursor"),
        param="cursor",
        size_param="limit",
    ),
    _row(
        "continuation-token",
        "token at `continuationToken`, sent back as `continuationToken`",
        '{"items": [...], "continuationToken": "x"}',
        follow="token",
        next_at=("continuationToken",),
        param="continuationToken",
        size_param="limit",
    ),
    _row(
        "header-cursor",
        "bare array; token in the `X-Next-Cursor` header, sent back as `cursor`",
        "[...]  with  X-Next-Cursor: x",
        follow="token",
        items=(BODY,),
        next_header="X-Next-Cursor",
        param="cursor",
        size_param="limit",
    ),
    _row(
        "header-continuation",
        "bare array; token in `X-MS-ContinuationToken`, sent back as `continuationToken`",
        "[...]  with  X-MS-ContinuationToken: x",
        follow="token",
        items=(BODY,),
        next_header="X-MS-ContinuationToken",
        param="continuationToken",
        size_param="limit",
    ),
    _row(
        "header-page",
        "bare array; next page number in `X-Next-Page` (empty on the last), sent as `page`",
        "[...]  with  X-Next-Page: 2",
        follow="token",
        items=(BODY,),
        next_header="X-Next-Page",
        param="page",
        size_param="per_page",
    ),
    _row(
        "offset",
        "the service's published paging: `limit`/`offset` in; items in `data` (or `items`, "
        "`results`) with `total`, `limit` and `offset`; ends at the total",
        '{"data": [...], "total": 2503, "limit": 100, "offset": 0}',
        follow="offset",
        param="offset",
        size_param="limit",
        position_at=("offset",),
        size_at=("limit",),
        total_at=("total",),
    ),
    _row(
        "page",
        "one-based `page`/`pageSize` in, `page`, `total` and `totalPages` echoed",
        '{"items": [...], "page": 1, "pageSize": 100, "total": 2503, "totalPages": 26}',
        follow="page",
        param="page",
        size_param="pageSize",
        position_at=("page",),
        size_at=("pageSize",),
        total_at=("total",),
        pages_at=("totalPages",),
    ),
    _row(
        "spring",
        "Spring Data: items in `content`, zero-based `number`, `totalPages` and `last`",
        '{"content": [...], "number": 0, "size": 100, "totalPages": 26, "last": false}',
        follow="page",
        items=(("content",),),
        param="page",
        size_param="size",
        position_at=("number",),
        size_at=("size",),
        last_at=("last",),
        total_at=("totalElements",),
        pages_at=("totalPages",),
        first_page=0,
    ),
    _row(
        "none",
        "the whole list in one response: a bare array, or an envelope with no paging",
        '[{"id": "ep-1"}, ...]',
        items=ANY_ITEMS,
    ),
)

CONVENTIONS: Mapping[str, Convention] = MappingProxyType({row.name: row for row in _ROWS})
"""Every convention the client follows, by name, in the order auto-detection tries them."""


def convention_document(convention: Convention) -> str | dict[str, Any]:
    """A convention as resume tokens and configuration files keep it: a preset's name, or its
    fields that differ from the defaults (paths as lists of keys)."""
    if CONVENTIONS.get(convention.name) == convention:
        return convention.name
    document: dict[str, Any] = {}
    for field in attrs.fields(Convention):
        value = getattr(convention, field.name)
        if field.name == "name" or value != field.default:
            document[field.name] = _plain(value)
    return document


def convention_from(value: object, where: str = "convention") -> Convention:
    """The convention a document describes: a preset's name or a table of fields; ValueError
    naming the bad part."""
    if isinstance(value, str):
        preset = CONVENTIONS.get(value)
        if preset is None:
            raise ValueError(
                f"{where}: {value!r} is not a paging convention; use one of "
                f"{', '.join(CONVENTIONS)} or a table of Convention fields"
            )
        return preset
    if not isinstance(value, Mapping):
        raise ValueError(f"{where}: expected a convention's name or a table of its fields")
    names = {field.name for field in attrs.fields(Convention)}
    unknown = sorted(set(value) - names)
    if unknown:
        raise ValueError(
            f"{where}: {unknown[0]!r} is not a Convention field; its fields are "
            f"{', '.join(sorted(names))}"
        )
    try:
        return Convention(**value)
    except (TypeError, ValueError) as error:
        raise ValueError(f"{where}: {error}") from None


def _plain(value: Any) -> Any:
    """Tuples as lists, all the way down (JSON and TOML have no tuples)."""
    if isinstance(value, tuple):
        return [_plain(item) for item in value]
    return value
