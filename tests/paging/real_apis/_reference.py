"""The documented way to list each API: where its items are and how the next request is formed.

A `Reference` is what a client that knows the API's convention does, written as data (its repr
reads like the convention a detector should compose). `walk` follows it over the model, with no
I/O; the corpus's own tests use it to show that every model can be listed exactly by a client
that knows the convention, so each "lists" expectation is reachable.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol
from urllib.parse import urlencode

from attrs import frozen
from yarl import URL

from remedy_async import Convention

from ._kit import Record, Reply, Request, with_params

if TYPE_CHECKING:
    from ._kit import RealApi

Path = tuple[str, ...]


class Next(Protocol):
    """Forms the next request from a page (None: the documented end)."""

    def __call__(
        self, request: Request, reply: Reply, items: Sequence[Record], seen: int
    ) -> Request | None:
        """`items` are the page's, `seen` the number of items listed so far, the page's too."""


def dig(body: Any, path: Path) -> Any:
    """The value at `path` in the body (None where any key is missing)."""
    for key in path:
        if not isinstance(body, dict):
            return None
        body = body.get(key)
    return body


def _goes_on(reply: Reply, more_at: Path | None) -> bool:
    return more_at is None or bool(dig(reply.body, more_at))


def _to(request: Request, url: URL) -> Request:
    return Request(url, request.headers)


@frozen
class UrlAt:
    """The next page's URL at `path`: absolute, origin-relative under `base`, or "?query"."""

    path: Path
    base: str = ""
    more_at: Path | None = None

    def __call__(
        self, request: Request, reply: Reply, items: Sequence[Record], seen: int
    ) -> Request | None:
        value = dig(reply.body, self.path)
        if not value or not _goes_on(reply, self.more_at):
            return None
        text = str(value)
        if text.startswith("?"):
            return _to(request, request.url.with_query(text[1:]))
        if text.startswith("/"):
            return _to(request, URL(f"{request.url.origin()}{self.base}{text}"))
        return _to(request, URL(text))


@frozen
class TokenAt:
    """A token at `path` (absent, null or "" at the end) sent back as `param`."""

    path: Path
    param: str
    more_at: Path | None = None

    def __call__(
        self, request: Request, reply: Reply, items: Sequence[Record], seen: int
    ) -> Request | None:
        value = dig(reply.body, self.path)
        if value in (None, "") or not _goes_on(reply, self.more_at):
            return None
        return _to(request, with_params(request.url, {self.param: value}))


@frozen
class LinkNext:
    """The target of the Link header's rel="next" (a `results="false"` link ends the list)."""

    rel: str = "next"

    def __call__(
        self, request: Request, reply: Reply, items: Sequence[Record], seen: int
    ) -> Request | None:
        for part in (reply.header("Link") or "").split(","):
            target, _, params = part.strip().partition(";")
            if f'rel="{self.rel}"' in params and 'results="false"' not in params:
                url = URL(target.strip().strip("<>"))
                return _to(request, url if url.is_absolute() else request.url.join(url))
        return None


@frozen
class HeaderToken:
    """A token in a response header (absent at the end) sent back as `param`."""

    header: str
    param: str

    def __call__(
        self, request: Request, reply: Reply, items: Sequence[Record], seen: int
    ) -> Request | None:
        value = reply.header(self.header)
        return None if not value else _to(request, with_params(request.url, {self.param: value}))


@frozen
class NextRange:
    """Heroku's ranges: send the `Next-Range` response header back as the `Range` header."""

    def __call__(
        self, request: Request, reply: Reply, items: Sequence[Record], seen: int
    ) -> Request | None:
        value = reply.header("Next-Range")
        if value is None:
            return None
        return Request.get(str(request.url), {**request.headers, "Range": value})


def _ended(reply: Reply, items: Sequence[Record], seen: int, total_at: Path | None) -> bool:
    total = None if total_at is None else dig(reply.body, total_at)
    return not items or (total is not None and seen >= int(total))


@frozen
class Offset:
    """Item offsets in `param` (counting from `base`); the end is an empty page, the total at
    `total_at` reached, or `more_at` false, where the API announces them."""

    param: str
    total_at: Path | None = None
    more_at: Path | None = None
    base: int = 0

    def __call__(
        self, request: Request, reply: Reply, items: Sequence[Record], seen: int
    ) -> Request | None:
        if _ended(reply, items, seen, self.total_at) or not _goes_on(reply, self.more_at):
            return None
        return _to(request, with_params(request.url, {self.param: self.base + seen}))


@frozen
class PageNumber:
    """Page numbers in `param` from `first`; the end is an empty page, or the page count or
    total where the API announces one."""

    param: str
    first: int = 1
    pages_at: Path | None = None
    total_at: Path | None = None

    def __call__(
        self, request: Request, reply: Reply, items: Sequence[Record], seen: int
    ) -> Request | None:
        page = int(request.query.get(self.param, self.first))
        pages = None if self.pages_at is None else dig(reply.body, self.pages_at)
        if _ended(reply, items, seen, self.total_at):
            return None
        if pages is not None and page - self.first + 1 >= int(pages):
            return None
        return _to(request, with_params(request.url, {self.param: page + 1}))


@frozen
class Keyset:
    """The last item's id sent as `param`; the end is `more_at` false or an empty page."""

    param: str
    more_at: Path | None = None

    def __call__(
        self, request: Request, reply: Reply, items: Sequence[Record], seen: int
    ) -> Request | None:
        if not items or not _goes_on(reply, self.more_at):
            return None
        return _to(request, with_params(request.url, {self.param: items[-1]["id"]}))


@frozen
class Reference:
    """Where a page's items are (`()`: the body is the array) and how to form the next request."""

    items: Path
    next: Next | None

    def first_request(self, api: RealApi, origin: str, page_size: int | None) -> Request:
        query = dict(api.required_params)
        if page_size is not None and api.size_param is not None:
            query[api.size_param] = str(page_size)
        url = f"{origin}{api.collection_path}"
        return Request.get(f"{url}?{urlencode(query)}" if query else url)


def walk(
    api: RealApi, records: Sequence[Record], page_size: int | None = None, *, limit: int = 10_000
) -> list[str]:
    """The ids a client following `api.reference` lists (pure: the model answers directly)."""
    reference = api.reference
    request: Request | None = reference.first_request(api, "http://127.0.0.1:1", page_size)
    ids: list[str] = []
    for _ in range(limit):
        if request is None:
            return ids
        reply = api.reply(request, records)
        if reply.status not in (200, 206):
            raise AssertionError(f"{api.name}: {reply.status} {reply.body} for {request.url}")
        items = reply.body if reference.items == () else dig(reply.body, reference.items) or []
        ids += [str(item["id"]) for item in items]
        request = (
            None if reference.next is None else reference.next(request, reply, items, len(ids))
        )
    raise AssertionError(f"{api.name}: the reference walk did not end in {limit} pages")


def pinned(reference: Reference) -> Convention:
    """The `Convention` that follows a reference exactly: what a user pins for its API."""
    items = (reference.items,)
    step = reference.next
    if step is None:
        return Convention(name="pinned", items=items)
    if isinstance(step, UrlAt):
        return Convention(
            name="pinned", items=items, follow="url", next_at=step.path,
            more_at=step.more_at or (), links_from="base" if step.base else "request",
        )  # fmt: skip
    if isinstance(step, TokenAt):
        return Convention(
            name="pinned", items=items, follow="token", next_at=step.path, param=step.param,
            more_at=step.more_at or (),
        )  # fmt: skip
    if isinstance(step, LinkNext):
        return Convention(name="pinned", items=items, follow="url", next_header="Link")
    if isinstance(step, HeaderToken):
        return Convention(
            name="pinned", items=items, follow="token", next_header=step.header, param=step.param
        )
    if isinstance(step, NextRange):
        return Convention(
            name="pinned", items=items, follow="token", next_header="Next-Range", param="Range",
            param_in="header",
        )  # fmt: skip
    if isinstance(step, Offset):
        return Convention(
            name="pinned", items=items, follow="offset", param=step.param,
            total_at=step.total_at or (), more_at=step.more_at or (), first_offset=step.base,
        )  # fmt: skip
    if isinstance(step, PageNumber):
        return Convention(
            name="pinned", items=items, follow="page", param=step.param, first_page=step.first,
            pages_at=step.pages_at or (), total_at=step.total_at or (),
        )  # fmt: skip
    assert isinstance(step, Keyset)
    return Convention(
        name="pinned", items=items, follow="keyset", param=step.param, more_at=step.more_at or ()
    )
