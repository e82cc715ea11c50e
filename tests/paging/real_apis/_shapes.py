"""Distinct shapes: two modelled APIs whose pages have the same structure count once.

A shape is read from two answers of a model: the first page of a list longer than a page, and
the only page of a short list (the end evidence). Each is reduced to its skeleton (status,
header names with the kind of their values, the JSON structure with the records' array and the
kind of every value: URL, path, token, "", integer, boolean, null) and joined with the size
parameter's name and the documented way to follow it (`RealApi.reference`: where the items are,
which value continues and through which request parameter). Names of keys count; values do not;
a plain string that is the same in both answers (`"object": "list"`, `"kind": ...`) is a
constant, not paging, and is left out.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any
from urllib.parse import urlencode

from ._kit import RealApi, Reply, Request, make_records

Skeleton = Any


def skeleton(value: object, constant: object = None) -> Skeleton:
    """The structure of a JSON value, with the kind of every leaf; keys whose plain-string
    value equals the one at the same place in `constant` are left out."""
    if isinstance(value, dict):
        other = constant if isinstance(constant, dict) else {}
        return tuple(
            sorted(
                (key, skeleton(inner, other.get(key)))
                for key, inner in value.items()
                if not (_plain(inner) and inner == other.get(key))
            )
        )
    if isinstance(value, list):
        if value and all(isinstance(item, dict) and "id" in item for item in value):
            return "[records]"
        return ("[]", skeleton(value[0])) if value else "[]"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int | float):
        return "number"
    if value is None:
        return "null"
    text = str(value)
    if text == "":
        return "empty"
    if text.startswith(("http://", "https://")):
        return "url"
    return "path" if text.startswith(("/", "?")) else "string"


def _plain(value: object) -> bool:
    return isinstance(value, str) and skeleton(value) == "string"


def _link_skeleton(value: str) -> Skeleton:
    """A Link header's relations, each with the names of its other parameters."""
    links = []
    for link in value.split(", <"):
        params = dict(part.strip().partition("=")[::2] for part in link.split(";")[1:])
        rel = params.pop("rel", "").strip('"')
        links.append((rel, tuple(sorted(params))))
    return ("link", tuple(sorted(links)))


def _reply_skeleton(reply: Reply, other: Reply) -> Skeleton:
    headers = tuple(
        sorted(
            (name.lower(), _link_skeleton(value) if "rel=" in value else skeleton(value))
            for name, value in reply.headers
        )
    )
    return (reply.status, headers, skeleton(reply.body, other.body))


def shape_of(api: RealApi) -> Skeleton:
    """The shape of one model: its long list's first page, its short list's only page."""
    query = dict(api.required_params)
    if api.size_param is not None:
        query[api.size_param] = "5"
    url = f"http://127.0.0.1:1{api.collection_path}"
    request = Request.get(url if not query else f"{url}?{urlencode(query)}")
    long = (api.default_page_size or 5) * 2 + 1 if api.size_param is None else 12
    first, only = (api.reply(request, make_records(count)) for count in (long, 3))
    return (
        api.size_param,
        repr(api.reference),
        _reply_skeleton(first, only),
        _reply_skeleton(only, first),
    )


def distinct_shapes(apis: Iterable[RealApi]) -> int:
    """How many different shapes the models have."""
    return len({repr(shape_of(api)) for api in apis})
