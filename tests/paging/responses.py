"""Decoded list responses and page sequences for the paging core's unit tests (no server)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest
from multidict import CIMultiDict, CIMultiDictProxy
from yarl import URL

from remedy_async._paging._protocol import Convention, PageRequest, Paginator
from remedy_async._wire._http import JSONResponse

LIST_URL = URL("https://api.example.com/v1/endpoints")
TOKEN = Convention(
    name="token", follow="token", items=(("data",),), next_at=("meta", "next"), param="cursor"
)
"""A token list: items under `data`, the next cursor at `meta.next`, sent back in `cursor`."""
KEYSET = Convention(
    name="keyset",
    follow="keyset",
    items=(("data",),),
    param="starting_after",
    size_param="limit",
    more_at=("has_more",),
)
"""A keyset list: the last id sent back in `starting_after` while `has_more` says more follow."""
Headers = tuple[tuple[str, str], ...]


def page(body: Any, *headers: tuple[str, str], url: URL = LIST_URL) -> JSONResponse:
    """A decoded page response with aiohttp-style (case-insensitive, repeatable) headers."""
    return JSONResponse(
        url=url, status=200, headers=CIMultiDictProxy(CIMultiDict(headers)), body=body
    )


def req(*params: tuple[str, str]) -> PageRequest:
    """A page request adding the given query parameters (no convention yet)."""
    return PageRequest(params=params)


def records(count: int, prefix: str = "ep", start: int = 0) -> list[dict[str, str]]:
    """`count` records with ids `<prefix>-<n>`, from `start`."""
    return [{"id": f"{prefix}-{number}"} for number in range(start, start + count)]


def url_of(request: PageRequest, base: URL = LIST_URL) -> URL:
    """The URL a page request is sent to: its own, or the list URL with its parameters."""
    return request.url if request.url is not None else base.with_query(request.params)


def run(
    paginator: Paginator,
    responses: Sequence[tuple[Any, Headers]],
    page_size: int | None = 2,
) -> tuple[list[Any], list[PageRequest]]:
    """Feed a page sequence to a paginator; return the items and every request it made.

    Fails the test when the paginator ends before the last response or goes on after it.
    """
    request = paginator.first(page_size)
    requests = [request]
    items: list[Any] = []
    for count, (body, headers) in enumerate(responses):
        result = paginator.read(request, page(body, *headers, url=url_of(request)))
        items.extend(result.items)
        if result.next is None:
            assert count == len(responses) - 1, "the sequence ended early"
            return items, requests
        request = result.next
        requests.append(request)
    pytest.fail("the sequence did not end")


def nested(path: tuple[str, ...] | list[str], value: Any) -> Any:
    """`value` under the keys of `path`, outermost first."""
    for key in reversed(path):
        value = {key: value}
    return value
