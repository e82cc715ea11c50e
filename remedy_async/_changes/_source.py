"""Makes a collection's change feed: its list call checked once, before any I/O, and the
source the passes list it through."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

import orjson
from yarl import URL

from remedy_async._errors import APIStatusError, DecodeError
from remedy_async._wire._decode import decode_json
from remedy_async._wire._http import Request
from remedy_async._wire._ids import id_segment
from remedy_async._wire._query import encode_extra_params, encode_filters

from ._feed import ChangeFeed, StateArg
from ._settings import FeedSettings, FeedSource, Params

if TYPE_CHECKING:
    from remedy_async._collection import ResourceCollection
    from remedy_async._paging._pager import Pager

T = TypeVar("T")

GONE = frozenset({404, 410})
"""Statuses of a get that prove a record was removed."""
PREFETCH = 1
"""Pages a pass fetches ahead, so the next page is on its way while one is diffed."""


LISTING = ("page_size", "concurrency", "options", "extra_params")
"""The keywords of `changes()` and `watch()` that go to `list()`."""


def feed_of(collection: ResourceCollection[T], given: Mapping[str, Any]) -> ChangeFeed[T]:
    """The change feed that `collection.changes()` or `.watch()` was called for, from the
    call's arguments (`given`: its locals): the state, `list()`'s keywords and filters, and
    FeedSettings. Bad arguments raise here (ValueError, TypeError), before any I/O."""
    arguments = dict(given)
    del arguments["self"]
    state: StateArg = arguments.pop("state")
    filters: dict[str, Any] = arguments.pop("filters")
    listing = {name: arguments.pop(name) for name in LISTING}
    if arguments["since_filter"] is None:
        arguments["since_filter"] = collection.since_filter
    chosen = FeedSettings(**arguments)
    untyped: ResourceCollection[Any] = collection  # `list` is typed per resource
    untyped.list(**listing, **filters)  # checks the filters and sizes now
    options = listing.get("options")
    params = encode_filters(dict(filters)) + encode_extra_params(listing.get("extra_params"))
    if options is not None:
        params += options.extra_params
    extra = dict(listing.get("extra_params") or {})

    def open_list(resume_token: str | None, since: Params) -> Pager[dict[str, Any]]:
        pager: Pager[Any] = untyped.list(
            **{**listing, "extra_params": {**extra, **dict(since)} or None},
            resume_token=resume_token,
            prefetch=PREFETCH,
            **filters,
        )
        return pager.as_dicts()

    async def fetch(record_id: str) -> dict[str, Any] | None:
        url = URL(f"{untyped.url}/{id_segment(record_id)}", encoded=True)
        if options is not None and options.extra_params:
            url = url.extend_query(options.extra_params)
        try:
            response = await untyped._send(Request("GET", url), options)
        except APIStatusError as error:
            if error.status in GONE:
                return None
            raise
        body = decode_json(response, secrets=untyped._secrets).body
        if not isinstance(body, dict):
            raise DecodeError(
                "a record fetched by id is not a JSON object", method="GET", url=str(url)
            )
        return body

    confirm = chosen.confirm_removals
    source: FeedSource[T] = FeedSource(
        collection=collection.resource.segment,
        model=collection.resource.model,
        read=collection._reader.read,
        open_list=open_list,
        filters=orjson.dumps(sorted(params)).decode(),
        fetch=fetch if (not params if confirm is None else confirm) else None,
    )
    return ChangeFeed(source, state, chosen)
