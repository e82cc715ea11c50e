"""Composes a list's paging convention from its first page, axis by axis, and names what to verify.

Each axis is read on its own: the items by structure, then every signal by its name and value
(`_read._signals`, `_read._vocabulary`): the continuation (a forward URL wins; a token it carries is
its own; a second continuation must agree with the first), its request parameter (from the key by a
table and a rule; a guess, verified by page 2), end flags, totals, page counts, echoed positions and
sizes. They compose into one `Convention`, named after a preset when one reads the page alike.

What cannot be read off the page is tried (`Detection.guesses`): a token's parameter (from the
key, then a table), a keyset list's parameter, links relative to the base URL, an offset that
announces the next page's start, a link to the list itself under a plain `url` key, and, for a
page that says nothing although it holds a round number of records, whether the service pages
anyway (offset, page number, last id). Each guess is kept only when page 2 brings new records.
A page the axes contradict, or a signal in unknown words, is refused with what was seen.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Literal

import attrs
from msgspec.structs import replace
from yarl import URL

from remedy_async._paging._detect._preset import preset_alike
from remedy_async._paging._detect._unannounced import unannounced
from remedy_async._paging._protocol import Convention, Detection, PageRequest, PagingFault, Path
from remedy_async._paging._read._envelope import dig
from remedy_async._paging._read._items import find_items, general_items_path, resource_names
from remedy_async._paging._read._links import carries, resolve
from remedy_async._paging._read._page import base_path
from remedy_async._paging._read._positions import int_param
from remedy_async._paging._read._signals import (
    Signal,
    UnreadSignal,
    body_signals,
    header_signals,
    own_links,
)
from remedy_async._paging._read._vocabulary import (
    LAST_ID_PARAMS,
    UNKNOWN,
    param_candidates,
    spelled,
    words,
)
from remedy_async._wire._http import JSONResponse

KEYSET_PARAMS = LAST_ID_PARAMS
TOKEN_PARAMS = (
    "cursor", "from", "until", "since", "after", "page_token", "pageToken", "token", "start",
    "continuation", "marker",
)  # fmt: skip
"""Where services read a token whose name does not say it (Matrix: `next_token` -> `from`;
Vercel: `pagination.next` -> `until`), tried after the names the key gives, each verified."""
NUMBER_PARAMS = ("offset", "start", "from", "skip", "page")
"""Where a continuation that is a number (the next offset or page) may go back."""
TIME_PARAMS = ("until", "since")
"""Where a continuation that reads as a time (Unix seconds or milliseconds) goes back first."""
EPOCHS = (range(10**9, 10**10), range(10**12, 10**13))
"""Numbers that read as Unix times: seconds, then milliseconds (2001 to 2286)."""
PAGE_PARAMS = {"number": "page", "current_page": "page", "currentPage": "page"}
"""Echoed page-number keys whose request parameter is `page` (Spring, Laravel)."""


def detect(request: PageRequest, response: JSONResponse) -> Detection:
    """Compose the convention of a list from its first page; PagingFault when an axis cannot be
    decided (no items or several candidates, an unknown signal, continuations that disagree)."""
    body, names = response.body, resource_names(response.url)
    found = find_items(body, names)
    signals = [*body_signals(body, found.path), *header_signals(response.headers)]
    for signal in signals:
        if signal.role == UNKNOWN and signal.value not in (None, "", False, 0):
            raise UnreadSignal(signal, "auto-detection")
    items_path = general_items_path(found.path, names)
    axes: dict[str, Any] = {"name": "detected", "items": (items_path,), **_ends(signals, found)}
    axes.update(_flags(signals))
    composed = _handed_out(axes, signals, response)
    if composed is None:
        composed = _positions(axes, signals, request, len(found.items))
    if composed is None:
        composed = _keyset_or_ended(axes, signals, response, found.items)
    if composed is None:
        composed = _own_link(axes, response, found.path)
    if composed is None:
        return unannounced(Convention(**axes), request, response, found)
    return _named(composed, response, found.path)


def _ends(signals: Sequence[Signal], found: Any) -> dict[str, Any]:
    """The total and page-count axes: where the list states its size."""
    axes: dict[str, Any] = {}
    totals = [signal for signal in signals if signal.role == "total" and signal.kind == "number"]
    named = [signal for signal in totals if "total" in words(signal.key)]
    total = next(iter(named or totals), None)
    if total is not None and not named and total.value == len(found.items) and _goes_on(signals):
        total = None  # a bare `count` equal to a page that goes on counts the page, not the list
    if total is not None:
        axes["total_header" if total.header else "total_at"] = total.header or total.path
    pages = next((s for s in signals if s.role == "pages" and s.kind == "number"), None)
    if pages is not None:
        axes["pages_header" if pages.header else "pages_at"] = pages.header or pages.path
    return axes


def _goes_on(signals: Sequence[Signal]) -> bool:
    """Whether the page names a live way forward."""
    return any(signal.value not in (None, "") for signal in _forward(signals))


def _flags(signals: Sequence[Signal]) -> dict[str, Any]:
    """The more/last flag axis: the first flag of each kind found in the body."""
    axes: dict[str, Any] = {}
    for signal in signals:
        if signal.kind != "flag" or signal.header is not None:
            continue
        if signal.role in ("more", "forward") and "more_at" not in axes:
            axes["more_at"] = signal.path
        elif signal.role == "last" and "last_at" not in axes:
            axes["last_at"] = signal.path
    return axes


def _forward(signals: Sequence[Signal]) -> list[Signal]:
    """The continuations of a page: forward links and tokens, and tokens under an offset or
    position key (an opaque string where a number would be an echo)."""
    return [
        signal
        for signal in signals
        if (signal.role == "forward" and signal.kind != "flag")
        or (signal.role in ("offset", "page") and signal.kind == "token")
    ]


def _handed_out(
    axes: dict[str, Any], signals: Sequence[Signal], response: JSONResponse
) -> Detection | None:
    """The convention of a list that hands out its way forward (a URL, a token); None when the
    page holds no live continuation."""
    live = [signal for signal in _forward(signals) if signal.value not in (None, "")]
    urls = [signal for signal in live if signal.kind == "url"]
    tokens = [signal for signal in live if signal.kind in ("token", "number")]
    if urls:
        return _follow_url(axes, urls, tokens, response)
    if tokens:
        return _follow_token(axes, tokens, signals)
    return None


def _keyset_or_ended(
    axes: dict[str, Any], signals: Sequence[Signal], response: JSONResponse, items: list[Any]
) -> Detection | None:
    """A keyset list (a flag says more follow, nothing says how), or a list whose named
    continuation is empty on this first page; None when the page names neither."""
    forward = _forward(signals)
    more = axes.get("more_at")
    says_more = more is not None and dig(response.body, more) is True
    says_more |= "last_at" in axes and dig(response.body, axes["last_at"]) is False
    if says_more and items and not forward:
        guesses = tuple(
            Convention(**{**axes, "follow": "keyset", "param": param}) for param in KEYSET_PARAMS
        )
        refusal = (
            f"the list says more records follow ({'.'.join(more or axes['last_at'])}) but names "
            f"no way to them, and continuing after the last id in {', '.join(KEYSET_PARAMS)} "
            "brought none"
        )
        return Detection(guesses[0], guesses, refusal=_advice(refusal, guesses[0], "param"))
    if forward:  # a continuation is named but empty: this first page is the last
        place = forward[0]
        kind = "url" if set(words(place.key)) & {"url", "link", "href", "uri"} else "token"
        where = {"next_header": place.header} if place.header else {"next_at": place.path}
        return Detection(Convention(**{**axes, **where, "follow": kind}))
    return None


def _own_link(axes: dict[str, Any], response: JSONResponse, items: Path) -> Detection | None:
    """A page naming no way forward that links to its own list with other parameters under a
    key saying only that it is a link (Qualys' `WARNING.URL`): followed, verified by page 2;
    None when it has no such link, or several."""
    links = own_links(response.body, items, response.url)
    if len(links) != 1:
        return None
    (link,) = links
    convention = Convention(**axes, follow="url", next_at=link.path)
    refusal = (
        f"the response links to its own list with other parameters at {link.where}, but "
        "following that link brought its first page again (pin the convention the service "
        "follows with paginator=)"
    )
    return Detection(convention, (convention,), refusal=refusal)


def _follow_url(
    axes: dict[str, Any], urls: list[Signal], tokens: list[Signal], response: JSONResponse
) -> Detection:
    primary = next((signal for signal in urls if signal.header == "Link"), urls[0])
    based = _outside_base(response.url, primary.value)
    target = _resolved(response.url, primary.value, based)
    ignore: list[Path] = []
    ignore_headers: list[str] = []
    for other in [*urls, *tokens]:
        if other is primary:
            continue
        agrees = (
            target
            in {
                _resolved(response.url, other.value, False),
                _resolved(response.url, other.value, True),
            }
            if other.kind == "url"
            else carries(target, str(other.value))
        )
        if not agrees:
            raise PagingFault(
                f"the response names two ways to its next page that disagree ({primary.where} "
                f"and {other.where}), so which to follow cannot be decided"
            )
        if other.header:
            ignore_headers.append(other.header)
        else:
            ignore.append(other.path)
    where = {"next_header": primary.header} if primary.header else {"next_at": primary.path}
    convention = Convention(
        **axes, **where, follow="url", ignore=tuple(ignore), ignore_headers=tuple(ignore_headers)
    )
    if not based:
        return Detection(convention)
    based_convention = attrs.evolve(convention, links_from="base")
    refusal = (
        f"the next-page links ({primary.where}) lead outside the API's base path, and read "
        "against the base URL they brought no new records"
    )
    return Detection(based_convention, (based_convention,), refusal=refusal)


def _follow_token(
    axes: dict[str, Any], tokens: list[Signal], signals: Sequence[Signal]
) -> Detection:
    strings = [signal for signal in tokens if signal.kind == "token"]
    informing: list[Signal] = []
    if strings and len(strings) < len(tokens):
        # A page number beside a cursor informs; the cursor leads (Intercom).
        informing = [signal for signal in tokens if signal.kind != "token"]
        tokens = strings
    primary = next((signal for signal in tokens if signal.header is None), tokens[0])
    values = {str(signal.value) for signal in tokens}
    if len(values) > 1:
        places = ", ".join(signal.where for signal in tokens)
        raise PagingFault(
            f"the response hands out several different continuations ({places}), so which one "
            "leads to the next page cannot be decided"
        )
    others = [signal for signal in [*tokens, *informing] if signal is not primary]
    ignore = tuple(signal.path for signal in others if signal.header is None)
    ignore_headers = tuple(signal.header for signal in others if signal.header)
    where = {"next_header": primary.header} if primary.header else {"next_at": primary.path}
    params = param_candidates(primary.key, primary.parent, header=primary.header is not None)
    echoed = tuple(
        signal.key
        for signal in signals
        if signal.path[:-1] == primary.path[:-1] and signal.role in ("offset", "page")
        and signal.header is None and primary.header is None and signal is not primary
    )  # fmt: skip
    numbered: tuple[str, ...] = ()
    if primary.kind == "number":
        timed = isinstance(primary.value, int) and any(primary.value in era for era in EPOCHS)
        numbered = (*TIME_PARAMS, *NUMBER_PARAMS) if timed else NUMBER_PARAMS
    params = tuple(dict.fromkeys((*echoed, *params, *numbered, *TOKEN_PARAMS)))
    param_in: Literal["query", "header"] = "header" if params[0] == "Range" else "query"
    guesses = tuple(
        Convention(
            **axes, **where, follow="token", param=param, param_in=param_in,
            ignore=ignore, ignore_headers=ignore_headers,
        )
        for param in params
    )  # fmt: skip
    refusal = (
        f"the service hands out a token at {primary.where} but answered with its first page "
        f"again when it was sent back in each parameter tried ({', '.join(params)})"
    )
    return Detection(guesses[0], guesses, refusal=_advice(refusal, guesses[0], "param"))


def _positions(
    axes: dict[str, Any], signals: Sequence[Signal], request: PageRequest, count: int
) -> Detection | None:
    """The offset or page-number convention a page's echoed position shows, if it shows one."""
    numbers = [s for s in signals if s.kind == "number" and s.header is None]
    offset = next((s for s in numbers if s.role == "offset"), None)
    page = next((s for s in numbers if s.role == "page"), None)
    size = next((s for s in numbers if s.role == "size"), None)
    if offset is None and page is None:
        return None
    if size is not None:  # echoed size: read, but not sent back under its echoed name
        axes = {**axes, "size_at": size.path}
    if offset is not None:
        if _announces_next(offset, request, count):
            return _announced(axes, offset)
        first = offset.value if offset.value in (0, 1) else 0
        return _spellings(
            offset.key,
            _bracketed(offset),
            lambda param: Convention(
                **axes, follow="offset", param=param, position_at=offset.path, first_offset=first
            ),
        )
    assert page is not None
    param = PAGE_PARAMS.get(page.key, page.key)
    asked = int_param(request.params, param)
    first = page.value if asked is None and page.value in (0, 1) else 1
    return _spellings(
        param,
        _bracketed(page),
        lambda name: Convention(
            **axes, follow="page", param=name, position_at=page.path, first_page=first
        ),
    )


def _announces_next(offset: Signal, request: PageRequest, count: int) -> bool:
    """Whether a first page's offset announces where the next page starts rather than echoing
    the one served: none was asked and it is the page's record count (0-based offsets); any
    other value is neither, and stays refused as an echo that is not the offset served."""
    asked = int_param(request.params, offset.key)
    return asked is None and count > 1 and offset.value == count


def _announced(axes: dict[str, Any], offset: Signal) -> Detection:
    """The convention of a list whose offset announces the next page's start (HubSpot's legacy
    `offset`): sent back as it is, under the key's own name or another spelling of it, each
    verified by page 2 (a page of new records)."""
    params = _read_back_as(offset.key, _bracketed(offset))
    guesses = tuple(
        Convention(**axes, follow="token", next_at=offset.path, param=param) for param in params
    )
    refusal = (
        f"the service's {offset.where} is not the offset it served (none was asked), so it "
        "reads as where the next page starts, but sending it back (as "
        f"{' or '.join(repr(param) for param in params)}) brought its first page again"
    )
    return Detection(guesses[0], guesses, refusal=_advice(refusal, guesses[0], "param"))


def _read_back_as(key: str, bracketed: str | None) -> tuple[str, ...]:
    """The parameters an echoed key may be read back under, in the order tried: as echoed,
    lower case, camelCase, snake_case, then bracketed by its object's name (when inside one)."""
    said = words(key)
    names = (key, key.lower(), spelled(said, "camelCase"), "_".join(said))
    return tuple(dict.fromkeys((*names, *((bracketed,) if bracketed else ()))))


def _bracketed(echo: Signal) -> str | None:
    """An echoed position's key bracketed by the name of the object holding it
    (`meta.pagination.page` -> `pagination[page]`), or None for one at the top."""
    return None if echo.parent is None else f"{echo.parent}[{echo.key}]"


def _spellings(key: str, bracketed: str | None, made: Callable[[str], Convention]) -> Detection:
    """The convention with the echoed key as its parameter, verified by page 2; then the key in
    other spellings (`Page` echoed, `page` read; `start-at` echoed, `startAt` read); then, for
    an echo inside an object, the key bracketed by the object's name (Strapi's
    `meta.pagination.page` read as `pagination[page]`; JSON:API's `page[number]`)."""
    guesses = tuple(made(name) for name in _read_back_as(key, bracketed))
    refusal = (
        f"the service echoes its position as {key!r}, but sending it back (as "
        f"{' or '.join(repr(guess.param) for guess in guesses)}) brought its first page again"
    )
    return Detection(guesses[0], guesses, refusal=_advice(refusal, guesses[0], "param"))


def _named(detection: Detection, response: JSONResponse, items_path: Path) -> Detection:
    """The detection with each convention replaced by the preset that reads the page alike."""
    convention = preset_alike(detection.convention, response, items_path)
    guesses = tuple(preset_alike(guess, response, items_path) for guess in detection.guesses)
    return replace(detection, convention=convention, guesses=guesses)


def _resolved(url: URL, value: Any, based: bool) -> str:
    text = str(value)
    try:
        if based and text.startswith("/"):
            return str(resolve(url, base_path(url, text) + text))
        return str(resolve(url, text))
    except ValueError:
        return text


def _outside_base(url: URL, link: Any) -> bool:
    """Whether a root-relative link leaves the base path the list lives under (its links are
    written relative to that base path)."""
    text = str(link)
    if not text.startswith("/") or text.startswith("//"):
        return False
    prefix = base_path(url, text)
    return bool(prefix) and not text.startswith(prefix + "/")


def _advice(refusal: str, convention: Convention, axis: str) -> str:
    shown = attrs.evolve(convention, param="<its parameter>") if axis == "param" else convention
    return (
        f"{refusal}; pin the convention with the {axis} the service reads: "
        f"paginator=remedy_async.{shown!r}"
    )
