"""The corpus's shared kit: the values a model is made of, and the paging mechanics real APIs share.

A model reads its position from a request (an offset, a page number, an opaque token, the last
id seen, a Range header), cuts a `Window` of the records at that position, and writes the page
its documentation describes. Everything here is pure: no I/O, no clock, no randomness.
"""

from __future__ import annotations

import base64
import binascii
import bisect
import hashlib
import hmac
import json
import math
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal

from attrs import field, frozen
from multidict import CIMultiDict, CIMultiDictProxy, MultiDict, MultiDictProxy
from yarl import URL

from tests.paging.published import endpoint

if TYPE_CHECKING:
    from ._reference import Reference

Record = Mapping[str, Any]
"""One record of the list: a plain dict with an `id` string; lists are in id order."""

RESOURCE = "endpoints"
"""The listed resource's own name. Where an API keeps its items under the resource's name
(`{"droplets": [...]}` for /droplets), the corpus serves them under this name, in the API's
spelling (`Endpoints` for PascalCase APIs), since the harness serves the client's endpoints."""
PASCAL_RESOURCE = "Endpoints"

Category = Literal["device-management/security vendor", "cloud", "saas"]
VENDOR: Category = "device-management/security vendor"
"""Vendors of the service's kind: endpoint management, EDR/XDR, scanners, asset inventories."""
CLOUD: Category = "cloud"
SAAS: Category = "saas"
Expectation = Literal["lists", "refuses", "lists-when-pinned"]


def _no_headers() -> CIMultiDictProxy[str]:
    return CIMultiDictProxy(CIMultiDict())


@frozen
class Request:
    """What a model sees of one request: its absolute URL (query included) and its headers."""

    url: URL
    headers: CIMultiDictProxy[str] = field(factory=_no_headers)

    @property
    def query(self) -> MultiDictProxy[str]:
        return self.url.query

    @classmethod
    def get(cls, url: str, headers: Mapping[str, str] | None = None) -> Request:
        """A request for `url` (absolute) with optional headers, for tests and the catalogue."""
        return cls(URL(url), CIMultiDictProxy(CIMultiDict(headers or {})))


@frozen
class Reply:
    """What a model answers: a status, headers and a JSON body (None: no body)."""

    status: int
    body: Any = None
    headers: tuple[tuple[str, str], ...] = ()

    def header(self, name: str) -> str | None:
        """The first value of a header, by case-insensitive name."""
        return next((value for key, value in self.headers if key.lower() == name.lower()), None)


class Rejected(Exception):
    """Raised inside a model to answer with an error reply (a bad token, a bad parameter)."""

    def __init__(self, reply: Reply) -> None:
        super().__init__(reply.status)
        self.reply = reply


def bad_request(message: str, *, status: int = 400, code: str = "invalid_request") -> Rejected:
    """An error reply in the common `{"error": {"code", "message"}}` shape."""
    return Rejected(Reply(status, {"error": {"code": code, "message": message}}))


Respond = Callable[[Request, Sequence[Record]], Reply]
"""A model: a pure function of the request and the whole list, answering one page."""


@frozen
class Sizing:
    """How an API reads its page size: the parameter, its default, its bounds.

    `default` None means the API answers the whole list unless a size is asked. A size above
    `maximum` is served as `maximum` (what most APIs do), or answered 400 if `strict`.
    """

    param: str | None
    default: int | None
    maximum: int | None = None
    minimum: int = 1
    strict: bool = False

    def of(self, request: Request) -> int | None:
        """The page size this request gets (None: the whole list)."""
        raw = request.query.get(self.param) if self.param else None
        if raw is None:
            return self.default
        size = integer(raw, self.param or "size")
        if size < self.minimum:
            raise bad_request(f"{self.param} must be at least {self.minimum}")
        if self.strict and self.maximum is not None and size > self.maximum:
            raise bad_request(f"{self.param} must be at most {self.maximum}")
        return size if self.maximum is None else min(size, self.maximum)


def integer(raw: str, name: str) -> int:
    """A query value as an integer, or a 400 naming the parameter."""
    try:
        return int(raw)
    except ValueError:
        raise bad_request(f"{name} must be an integer, got {raw!r}") from None


@frozen
class Window:
    """The records a page serves: `size` of them (None: all the rest) from index `start`."""

    records: Sequence[Record]
    start: int
    size: int | None

    @property
    def items(self) -> list[Record]:
        return list(self.records[self.start : self.end])

    @property
    def end(self) -> int:
        """The index after the page's last record."""
        total = len(self.records)
        return total if self.size is None else min(total, self.start + self.size)

    @property
    def total(self) -> int:
        return len(self.records)

    @property
    def more(self) -> bool:
        """Whether records remain after this page."""
        return self.end < self.total

    @property
    def next_start(self) -> int | None:
        return self.end if self.more else None

    @property
    def per_page(self) -> int:
        """The page size served (the whole list's length when unpaged)."""
        return self.total if self.size is None else self.size

    @property
    def pages(self) -> int:
        """How many pages of this size the list has (at least 1)."""
        return max(1, math.ceil(self.total / self.per_page)) if self.per_page else 1

    @property
    def last_id(self) -> str | None:
        items = self.items
        return str(items[-1]["id"]) if items else None

    def page_number(self, first: int = 1) -> int:
        """The page number of this window, counting from `first`."""
        return first + (self.start // self.per_page if self.per_page else 0)


def offset_window(
    request: Request, records: Sequence[Record], sizing: Sizing, param: str, *, base: int = 0
) -> Window:
    """The window at an item offset in `param` (counting from `base`: 1 for SCIM's startIndex)."""
    raw = request.query.get(param)
    start = base if raw is None else integer(raw, param)
    if start < base:
        raise bad_request(f"{param} must be at least {base}")
    return Window(records, start - base, sizing.of(request))


def page_window(
    request: Request, records: Sequence[Record], sizing: Sizing, param: str, *, first: int = 1
) -> Window:
    """The window of page number `param` (counting from `first`)."""
    raw = request.query.get(param)
    page = first if raw is None else integer(raw, param)
    if page < first:
        raise bad_request(f"{param} must be at least {first}")
    size = sizing.of(request)
    return Window(records, 0 if size is None else (page - first) * size, size)


def keyset_window(
    request: Request,
    records: Sequence[Record],
    sizing: Sizing,
    param: str,
    *,
    must_exist: bool = False,
) -> Window:
    """The window after the record whose id is in `param` (ids are in order)."""
    after = request.query.get(param)
    size = sizing.of(request)
    if after is None:
        return Window(records, 0, size)
    if must_exist and all(str(record["id"]) != after for record in records):
        raise bad_request(f"No such object: {after!r}", code="resource_missing")
    return Window(records, index_after(records, after), size)


def index_after(records: Sequence[Record], after_id: str) -> int:
    """The index of the first record whose id sorts after `after_id` (ids are in order)."""
    return bisect.bisect_right([str(record["id"]) for record in records], after_id)


class Tokens:
    """Opaque continuation tokens of one API: urlsafe base64 of the position plus an HMAC.

    A token of another API, or an altered one, does not verify (the model answers 400).
    """

    def __init__(self, realm: str, *, prefix: str = "") -> None:
        self._key = hashlib.sha256(f"real-api-corpus:{realm}".encode()).digest()
        self._prefix = prefix

    def encode(self, start: int, **extra: Any) -> str:
        payload = json.dumps({"s": start, **extra}, separators=(",", ":"), sort_keys=True).encode()
        mac = hmac.new(self._key, payload, hashlib.sha256).digest()[:8]
        return self._prefix + base64.urlsafe_b64encode(payload + mac).decode().rstrip("=")

    def decode(self, token: str) -> dict[str, Any]:
        """The position a token holds; Rejected (400) if it is not one of this API's tokens."""
        if not token.startswith(self._prefix):
            raise _bad_token()
        text = token[len(self._prefix) :]
        try:
            raw = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
        except (binascii.Error, ValueError):
            raise _bad_token() from None
        payload, mac = raw[:-8], raw[-8:]
        expected = hmac.new(self._key, payload, hashlib.sha256).digest()[:8]
        if len(raw) <= 8 or not hmac.compare_digest(mac, expected):
            raise _bad_token()
        value: dict[str, Any] = json.loads(payload)
        return value

    def after(self, window: Window) -> str | None:
        """The token of the page after `window` (None on the last page)."""
        return self.encode(window.end) if window.more else None

    def start(self, token: str | None) -> int:
        """The index a token resumes at (0 without a token)."""
        return 0 if token is None else int(self.decode(token)["s"])


def _bad_token() -> Rejected:
    return bad_request("invalid or expired pagination token", code="invalid_cursor")


def token_window(
    request: Request, records: Sequence[Record], sizing: Sizing, tokens: Tokens, param: str
) -> Window:
    """The window a token in `param` resumes at (the start without one)."""
    return Window(records, tokens.start(request.query.get(param)), sizing.of(request))


def cursor_window(
    request: Request,
    records: Sequence[Record],
    sizing: Sizing,
    tokens: Tokens,
    after: str,
    before: str | None = None,
) -> Window:
    """The window after a token in `after`, or, paging back, the one ending at `before`'s."""
    size = sizing.of(request)
    if before is not None and before in request.query:
        end = tokens.start(request.query[before])
        start = 0 if size is None else max(0, end - size)
        return Window(records, start, end - start)
    return Window(records, tokens.start(request.query.get(after)), size)


def url_with(request: Request, **params: object) -> str:
    """The request's absolute URL with these query parameters set (None removes one)."""
    return str(with_params(request.url, params))


def with_params(url: URL, params: Mapping[str, object]) -> URL:
    """`url` with query parameters set, replaced or (None) removed, others kept in order."""
    query: MultiDict[str] = MultiDict(url.query)
    for name, value in params.items():
        query.popall(name, None)
        if value is not None:
            query[name] = str(value)
    return url.with_query(query)


def path_of(url: str, strip: str = "") -> str:
    """The path and query of an absolute URL, without the leading `strip` (a base path)."""
    path = URL(url).path_qs
    return path[len(strip) :] if strip and path.startswith(strip) else path


def link_header(*links: tuple[str | None, str, *tuple[str, ...]], tight: bool = False) -> str:
    """An RFC 8288 Link header of (url, rel) or (url, rel, extra params); None urls are left out.

    `tight` writes it without spaces after the separators, as some APIs do (ServiceNow).
    """
    parts = []
    for link in links:
        url, rel, *extra = link
        if url is not None:
            parts.append((";" if tight else "; ").join([f"<{url}>", f'rel="{rel}"', *extra]))
    return ("," if tight else ", ").join(parts)


def compact(body: Mapping[str, Any]) -> dict[str, Any]:
    """A JSON object without its None values: the keys an API leaves out when they are empty."""
    return {key: value for key, value in body.items() if value is not None}


def headers_of(*pairs: tuple[str, str | None]) -> tuple[tuple[str, str], ...]:
    """Response headers, leaving out those whose value is None."""
    return tuple((name, value) for name, value in pairs if value is not None)


def require(request: Request, *names: str) -> None:
    """Answer 400 unless every named parameter is present (a required filter, an API version)."""
    missing = [name for name in names if name not in request.query]
    if missing:
        raise bad_request(f"missing required parameter(s): {', '.join(missing)}")


def reject_unknown(request: Request, known: Iterable[str]) -> None:
    """Answer 400 naming the first parameter the API does not know (Stripe's behaviour)."""
    allowed = set(known)
    for name in request.query:
        if name not in allowed:
            raise bad_request(f"Received unknown parameter: {name}", code="parameter_unknown")


@frozen
class RealApi:
    """One real API's list operation, modelled exactly as its documentation gives it.

    `respond` is the model; `reference` is how a client that knows the convention lists it
    (where the items are, how the next request is formed: the convention to compose). `shape`
    says in one line where the items are, the continuation and its request parameter, the
    totals and what proves the end; `source` is the documentation read; `assumptions` names
    every detail taken beyond it. `expected` is what the rebuilt
    detector must do with the default client: "lists" (every id once, in order), "refuses"
    (a PaginationError before claiming the end, for the reason in `expected_refusal_reason`),
    or "lists-when-pinned" (a first page of an odd size with no paging signal at all cannot be
    told from a whole list, so its documented convention must be pinned; the reason likewise).
    """

    name: str
    category: Category
    source: tuple[str, ...]
    shape: str
    respond: Respond = field(repr=False, eq=False)
    reference: Reference = field(repr=False, eq=False)
    sizing: Sizing = Sizing(None, None)
    base_path: str = ""
    extension: str = ""
    """What the API's list paths end in after the resource's name (`.json`: Shopify's
    `products.json`, Zendesk's `tickets.json`); the harness serves `/v1/endpoints.json` then."""
    rejects_unknown_params: bool = False
    required_params: Mapping[str, str] = field(factory=dict)
    """Parameters the API requires that are not paging (an API version, a query); the harness
    passes them as the list call's `extra_params`, as a user would."""
    expected: Expectation = "lists"
    expected_refusal_reason: str | None = None
    assumptions: str | None = None

    def __attrs_post_init__(self) -> None:
        if (self.expected == "lists") == (self.expected_refusal_reason is not None):
            raise ValueError(f"{self.name}: what the default client cannot list needs a reason")
        if self.extension and not re.fullmatch(r"\.[a-z]+", self.extension):
            raise ValueError(f"{self.name}: extension is '' or a dot and letters ('.json')")
        if self.base_path and (not self.base_path.startswith("/") or self.base_path.endswith("/")):
            raise ValueError(f"{self.name}: base_path is '' or '/segment...' without a final /")

    @property
    def default_page_size(self) -> int | None:
        return self.sizing.default

    @property
    def max_page_size(self) -> int | None:
        return self.sizing.maximum

    @property
    def size_param(self) -> str | None:
        return self.sizing.param

    @property
    def collection_path(self) -> str:
        """The path the harness serves: the client's `/v1/endpoints` under the base path, with
        the API's extension (`/v1/endpoints.json`)."""
        return f"{self.base_path}/v1/endpoints{self.extension}"

    @property
    def sample_size(self) -> int:
        """How many records a measurement lists: 237, or enough for three default pages."""
        default = self.sizing.default
        return 237 if default is None else max(237, 2 * default + 37)

    def reply(self, request: Request, records: Sequence[Record]) -> Reply:
        """The model's answer, its deliberate errors included."""
        try:
            return self.respond(request, records)
        except Rejected as rejected:
            return rejected.reply


def make_records(count: int) -> list[dict[str, Any]]:
    """`count` endpoint records in the published shape, in id order (ids sort as strings and as
    numbers alike)."""
    return [endpoint(f"ep-{index:05d}", hostname=f"host-{index}") for index in range(count)]
