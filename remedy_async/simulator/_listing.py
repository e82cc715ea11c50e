"""A list request, and what every paging mode does with it: a page's URL, the whole list.

Shared by the named conventions (`_lists`) and composed modes (`_composed`). A page URL keeps
the request's filters (never its paging parameters or the echoed credential), adds the mode's
own paging parameters and, in echo mode, `echo=<credential>`; it is absolute, or written from
the root (`/base/v1/...`), or from the run's base path (`/v1/...`) for composed modes that
say so. A whole list is sent in one piece, or streamed in batches when it is long.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Final, Literal
from urllib.parse import quote, urlencode

import attrs
from multidict import MultiMapping
from yarl import URL

from remedy_async import Convention

from ._composition import Composition
from ._dataset import Dataset
from ._filters import PAGING_PARAMETERS, Filters
from ._responses import Payload

STREAM_BATCH: Final = 1000
"""Records per chunk when a whole list is streamed; shorter lists are sent in one piece."""
ECHO_PARAMETER: Final = "echo"
"""The query parameter that echo mode adds to page URLs and redirects (and then ignores)."""
NOT_CARRIED: Final = PAGING_PARAMETERS | {ECHO_PARAMETER}
"""Query parameters a page URL does not copy from the request."""
LinkForm = Literal["absolute", "root", "base"]


@attrs.frozen
class ListRequest:
    """A list request with its convention chosen, its filters parsed and its matches found.

    For a composed mode, `composition` is set and `convention` is its `Composition.convention`.
    """

    convention: Convention
    filters: Filters
    view: Sequence[int] = attrs.field(repr=lambda view: f"<{len(view)} matches>")
    query: MultiMapping[str] = attrs.field(repr=False)
    url: URL
    echo: str | None = attrs.field(default=None, repr=False)
    """The credential to echo into cursors and page URLs (echo mode), or None."""
    composition: Composition | None = None


def page_url(
    request: ListRequest,
    param: str | None,
    size_param: str | None,
    size: int,
    value: str | None,
    *,
    links: LinkForm = "absolute",
    base_path: str = "",
) -> str:
    """The URL of the page `value` (in `param`) starts: the request's filters (never a paging
    parameter), the page size in `size_param`, the value, and the echoed credential in echo
    mode; written as `links` says (`base`: relative to the run's `base_path`)."""
    own = (param, size_param)
    pairs = [
        (name, given)
        for name, given in request.query.items()
        if name not in NOT_CARRIED and name not in own
    ]
    if size_param is not None:
        pairs.append((size_param, str(size)))
    if value is not None and param is not None:
        pairs.append((param, value))
    if request.echo is not None:
        pairs.append((ECHO_PARAMETER, request.echo))
    url = request.url.with_query(None).with_fragment(None)
    if links == "absolute":
        base = str(url)
    elif links == "root" or not base_path:
        base = url.raw_path
    else:
        base = url.raw_path.removeprefix(base_path)
    return f"{base}?{urlencode(pairs, quote_via=quote, safe='')}"


def whole_list(
    dataset: Dataset,
    request: ListRequest,
    wrapping: tuple[bytes, bytes],
    headers: Mapping[str, str],
) -> Payload:
    """Every record of the list between `wrapping`'s prefix and suffix, streamed when long."""
    view, filters = request.view, request.filters
    prefix, suffix = wrapping
    total = len(view)
    if total <= STREAM_BATCH:
        run = dataset.encode_run(filters, view, 0, total)
        return Payload(200, b"".join((prefix, run, suffix)), headers=headers)

    def chunks() -> Iterator[bytes]:
        encode, resource = dataset.encode, filters.resource
        yield prefix
        for start in range(0, total, STREAM_BATCH):
            batch = [encode(resource, index) for index in view[start : start + STREAM_BATCH]]
            yield (b"," if start else b"") + b",".join(batch)
        yield suffix

    return Payload(200, chunks=chunks, headers=headers)


def record_run(dataset: Dataset, request: ListRequest, start: int, stop: int) -> bytes:
    """The records `start` to `stop` of the list, comma-separated (empty past the end)."""
    if start >= stop:
        return b""
    return dataset.encode_run(request.filters, request.view, start, stop)
