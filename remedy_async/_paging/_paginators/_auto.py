"""Auto-detection: follows the service's published paging, or composes each list's paging
convention from its first page; then follows it.

The default paginator of every collection. A first page exactly in the published envelope is
read by the published offset convention at once. Any other first page composes the convention
(`_detect._compose`), verified where it rests on a guess (the page after it must bring new records).
Either way the convention is kept for the rest of the list: the requests it makes carry it, and
so do resume tokens. A later page that contradicts it is refused, never re-detected.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial
from typing import Any

import attrs
from attrs import field, frozen
from msgspec.structs import replace

from remedy_async._paging._conventions import CONVENTIONS
from remedy_async._paging._protocol import (
    Convention,
    Detection,
    PagePlan,
    PageRequest,
    PageResult,
    PagingFault,
    Probe,
)
from remedy_async._paging._read._items import ID_KEYS, locate_items
from remedy_async._paging._read._page import announced_total, read_page, says_more
from remedy_async._paging._read._positions import (
    CONTRACT_SIZE_PARAMS,
    PUBLISHED_SIZE_PARAM,
    announced_pages,
    int_at,
    int_param,
    plan_pages,
    predict_next,
    with_position,
)
from remedy_async._wire._http import JSONResponse
from remedy_async._wire._types import item_id

READER = "auto-detection"
PUBLISHED = CONVENTIONS["offset"]
"""The service's published paging: `limit` and `offset` in; `data`, `total`, `limit` and
`offset` out; the end at the total (or an empty page)."""
PUBLISHED_ENVELOPE = frozenset({"data", "total", "limit", "offset"})
"""The keys of a published list page, all four required."""


def _table(rows: Mapping[str, Convention] | tuple[Convention, ...]) -> tuple[Convention, ...]:
    return tuple(rows.values()) if isinstance(rows, Mapping) else tuple(rows)


@frozen
class AutoPaginator:
    """Follows the service's published paging, or composes the list's convention from its first
    response where the service pages otherwise; then follows it exactly.

    The first request carries the page size under the published name (`limit`; `pageSize`
    alone when the service refuses `limit` with a 400). A first page in exactly the published
    envelope (`data`, `total`, `limit` and `offset`, at the offset asked, and no paging header)
    is followed by the published offset convention at once (`CONVENTIONS["offset"]`): no
    detection, no guess to verify. Any other page is detected; later requests use the
    detected convention's own parameters. What was followed is on `pager.convention` (a
    preset of `conventions` when one reads the page alike); pin it with `paginator=` to skip
    detection.
    """

    conventions: tuple[Convention, ...] = field(default=CONVENTIONS, converter=_table)
    """The named presets a detected convention is reported as when one reads the page alike
    (a mapping of them, such as `CONVENTIONS`, or a tuple)."""
    _by_name: Mapping[str, Convention] = field(init=False, repr=False, eq=False)

    def __attrs_post_init__(self) -> None:
        object.__setattr__(self, "_by_name", {row.name: row for row in self.conventions})

    @property
    def parameter_names(self) -> frozenset[str]:
        """The query parameters any of the presets sets (a filter may not use them)."""
        return frozenset().union(*(row.parameter_names for row in self.conventions))

    def first(self, page_size: int | None) -> PageRequest:
        """Ask for the first page with the page size under the published name, `limit`.

        Args:
            page_size: As for `Paginator.first`.
        """
        if page_size is None:
            return PageRequest()
        return PageRequest(params=((PUBLISHED_SIZE_PARAM, str(page_size)),))

    def fallbacks(self, request: PageRequest) -> tuple[PageRequest, ...]:
        """First requests to try, in turn, when the service refuses this one (a 400 for a page
        size parameter it does not know): the page size under each other size name the
        client knows (`pageSize` for `limit`).

        Args:
            request: The first request, refused.
        """
        sizes = [(name, value) for name, value in request.params if name in CONTRACT_SIZE_PARAMS]
        if request.convention is not None or request.url is not None or len(sizes) != 1:
            return ()
        (sent, value) = sizes[0]
        others = tuple(param for param in request.params if param != sizes[0])
        return tuple(
            PageRequest(params=(*others, (name, value)))
            for name in CONTRACT_SIZE_PARAMS
            if name != sent
        )

    def read(self, request: PageRequest, response: JSONResponse) -> PageResult:
        """Read the page by the list's convention, composing it on the first page.

        Args:
            request: As for `Paginator.read`.
            response: As for `Paginator.read`.
        """
        try:
            if request.convention is None:
                return self._first_page(request, response)
            probe = request.probe
            if probe is not None:
                ignored = _ignored(probe, request, response)
                if ignored is not None:
                    return ignored
            result = read_page(request.convention, request, response, READER)
            if probe is None or not result.items:
                return result
            if not probe.confirming:
                if request.convention.follow in ("offset", "page"):
                    result = _to_confirm(result, probe, request.convention, response)
                if probe.unannounced:
                    result = attrs.evolve(result, notice=_notice(request.convention))
            return _resumed_plainly(result, request)
        except PagingFault as fault:
            from remedy_async._paging._detect._advice import advised  # noqa: PLC0415 - only a refused page needs advice

            raise advised(fault, request, response) from None

    def predict_next(self, request: PageRequest) -> PageRequest | None:
        """Guess the next request once the list's convention is known and computes it.

        Args:
            request: The request of the page before, assumed full.
        """
        convention = request.convention
        return None if convention is None else predict_next(convention, request)

    def plan(
        self, request: PageRequest, response: JSONResponse, result: PageResult, count: int
    ) -> PagePlan | None:
        """Plan up to `count` later pages when the list's convention computes them from a size.

        Args:
            request: The request the page answered.
            response: The page's decoded response.
            result: What `read` made of it.
            count: The most pages to plan.
        """
        convention = result.convention
        if convention is None:  # a guess the service ignored: nothing to plan from
            return None
        return plan_pages(convention, request, response, result, count)

    def named(self, name: str) -> Convention:
        """The preset of this name (from an older resume token); PagingFault if unknown.

        Args:
            name: The preset's name, a key of `CONVENTIONS`.
        """
        row = self._by_name.get(name)
        if row is not None:
            return row
        raise PagingFault(f"this list was started with the {name!r} convention, unknown here")

    def _first_page(self, request: PageRequest, response: JSONResponse) -> PageResult:
        if published_page(request, response):
            return read_page(PUBLISHED, request, response, READER)
        from remedy_async._paging._detect._compose import detect  # noqa: PLC0415 - loaded by a list's first page, not import

        found = detect(request, response)
        result = read_page(found.convention, request, response, READER)
        first_id = _id_of(result.items[0]) if result.items else None
        if not found.guesses or first_id is None:
            return result
        tries = _tries(found, request, response, result)
        if not tries:
            return result
        first_ids = tuple(filter(None, map(_id_of, result.items)))
        probe = Probe(
            first_id,
            tries[1:],
            found.refusal,
            unannounced=found.unannounced,
            first_ids=first_ids,
            announced_more=_announces_more(found.convention, response, len(result.items)),
        )
        return attrs.evolve(result, next=attrs.evolve(tries[0], probe=probe))


def published_page(request: PageRequest, response: JSONResponse) -> bool:
    """Whether a list's first page is exactly in the service's published envelope: an object
    of `data` (an array), `total`, `limit` and `offset` (integers, the offset the one asked
    for, 0 when none was) and nothing else, with no paging header beside it."""
    body = response.body
    if not isinstance(body, dict) or body.keys() != PUBLISHED_ENVELOPE:
        return False
    if not isinstance(body["data"], list) or not all(
        isinstance(body[key], int) and not isinstance(body[key], bool)
        for key in ("total", "limit", "offset")
    ):
        return False
    asked = int_param(request.params, PUBLISHED.param or "")
    if body["offset"] != (PUBLISHED.first_offset if asked is None else asked):
        return False
    from remedy_async._paging._read._signals import (  # noqa: PLC0415 - with detection
        header_signals,
    )

    return not header_signals(response.headers)


def _tries(
    found: Detection, request: PageRequest, response: JSONResponse, result: PageResult
) -> tuple[PageRequest, ...]:
    """The page-2 request of each guess, in order."""
    if not found.unannounced:
        nexts = [read_page(guess, request, response, READER).next for guess in found.guesses]
        return tuple(following for following in nexts if following is not None)
    count, last = len(result.items), result.items[-1]
    tries = []
    for guess in found.guesses:
        if guess.follow == "offset":
            at: Any = count
        elif guess.follow == "page":
            at = guess.first_page + 1
        else:
            at = item_id(last)
        tries.append(with_position(guess, request, at))
    return tuple(tries)


def _ignored(probe: Probe, request: PageRequest, response: JSONResponse) -> PageResult | None:
    """For a page brought by a guess: None when the guess is kept (see `Probe`), else the
    result that moves on to the next guess, ends the list, or refuses it."""
    convention = request.convention
    assert convention is not None
    items, path = locate_items(convention, response)
    echoed = _echoes_position(convention, request, response)
    first = _id_of(items[0]) if items else None
    if not items:
        if not probe.announced_more:
            return None
        if probe.refusal is None or probe.confirming:
            # the page before said more follow and the guess brought none: a wrong guess, not
            # the list's end
            probe = replace(probe, refusal=_brought_none(convention))
    elif not probe.refuted_by(first, position_echoed=echoed):
        return None
    elif first != probe.first_id and probe.refusal is None:
        # The service read the guess, otherwise than guessed: it pages this list, so running
        # out of guesses is no evidence of the list's end.
        probe = replace(probe, refusal=_misread(convention))
    shown = "$" + "".join(f".{key}" for key in path)
    following = probe.next_try()
    if following is not None:  # the guess was ignored or misread: try the next
        return PageResult(items=(), next=following, items_path=shown)
    if probe.refusal is None:
        return PageResult(items=(), next=None, items_path=shown)
    raise refusal(probe.refusal)


def _resumed_plainly(result: PageResult, request: PageRequest) -> PageResult:
    """A page a guess brought, kept: the guess is confirmed, so a list resumed within the page
    sends its request plainly (a resumed guess would be verified, and told, again)."""
    plain = attrs.evolve(request, probe=None)
    return attrs.evolve(result, resume=partial(_plain_point, plain, result.next, len(result.items)))


def _plain_point(
    request: PageRequest, following: PageRequest | None, count: int, consumed: int
) -> tuple[PageRequest, int]:
    """Where a list resumes after `consumed` of the `count` items of a page a guess brought."""
    if consumed >= count and following is not None:
        return following, 0
    return request, consumed


def _misread(convention: Convention) -> str:
    """The refusal of a list whose service reads a guessed parameter otherwise than guessed."""
    return (
        f"a page asked for by {convention.param!r} repeated the page before it: the service "
        f"reads {convention.param!r}, but not as a {convention.follow} (pin the convention the "
        "service follows with paginator=)"
    )


def _brought_none(convention: Convention) -> str:
    """The refusal of a list whose guessed next page is empty though the page before said more
    records follow."""
    return (
        f"the page before says more records follow, but the page asked for by "
        f"{convention.param!r} as a {convention.follow} brought none: the service reads "
        f"{convention.param!r} otherwise (pin the convention the service follows with paginator=)"
    )


def _announces_more(convention: Convention, response: JSONResponse, count: int | None) -> bool:
    """Whether a page says more records follow it: by a more flag, a last flag, or (on a
    list's first page, `count` its records) a total beyond them or more than one page."""
    if says_more(convention, response.body):
        return True
    if count is None:
        return False
    total = announced_total(convention, response)
    pages = announced_pages(convention, response)
    return (total is not None and total > count) or (pages is not None and pages > 1)


def _to_confirm(
    result: PageResult, probe: Probe, convention: Convention, response: JSONResponse
) -> PageResult:
    """A page an offset or page-number guess brought: the next page confirms the guess, or
    refutes it for good by starting with a record of this one (or by bringing none after this
    one said more follow)."""
    if result.next is None:
        return result
    confirm = Probe(
        probe.first_id,
        refusal=_misread(convention),
        first_ids=tuple(filter(None, map(_id_of, result.items))),
        confirming=True,
        announced_more=_announces_more(convention, response, None),
    )
    return attrs.evolve(result, next=attrs.evolve(result.next, probe=confirm))


def _echoes_position(convention: Convention, request: PageRequest, response: JSONResponse) -> bool:
    """Whether the page echoes the offset or page number the request sent: the service read it."""
    if not convention.position_at or convention.param is None:
        return False
    sent = int_param(request.params, convention.param)
    return sent is not None and int_at(response.body, convention.position_at) == sent


def refusal(text: str) -> PagingFault:
    """The fault of a list no guess could follow: its text says what to pin, or that nothing
    will (no further advice is added)."""
    fault = PagingFault(text)
    fault.advice = text
    return fault


def _notice(convention: Convention) -> str:
    return (
        "the list's first page announced no paging, yet the service pages it by "
        f"{convention.param!r}: following it (pin paginator=remedy_async.{convention!r})"
    )


def _id_of(item: Any) -> str | None:
    if not isinstance(item, dict):
        value = item_id(item)  # a typed view's id; None for any other JSON value
        return None if value is None else str(value)
    for key in ID_KEYS:
        value = item.get(key)
        if isinstance(value, str | int) and not isinstance(value, bool):
            return str(value)
    return None
