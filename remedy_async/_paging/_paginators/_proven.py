"""Proves an offset list page by page as the walk reads it (`OffsetProof`), around `_overlap`.

`_overlap` decides, without I/O, which records of a page continue the list. This module is
what the walk holds for one list: when a list is proven at all (an offset list followed as
known, with a total and an id on every record), the requests its pages are asked by (from the
overlap, for the next page, for prefetch and for planned parallel pages), what a resume token
keeps (`ProvenPlace`: the marks of the last ids delivered), the ids delivered (`Delivered`, so
a record moved from further back than the alignment's window is recognised when it shows
again), the `on_shift` policy (raise, or restart from the first page skipping every id
delivered), and the counts of what proving cost (`Shifts`).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Hashable, Sequence
from typing import Final, cast

import attrs
from attrs import frozen

from remedy_async._errors import PaginationError
from remedy_async._paging._call import ShiftPolicy
from remedy_async._paging._protocol import Convention, PageRequest, PageResult
from remedy_async._paging._read._positions import int_param, with_position
from remedy_async._paging._resume import Marks

from ._overlap import (
    Aligned,
    AlignmentCounts,
    Chunks,
    OffsetAlignment,
    Unproven,
    align,
    begin,
    id_mark,
    record_ids,
    resumed,
    tail,
)

MARKS: Final = 8
"""Ids a resume token keeps: enough to find the last delivered one after a few removals."""
MAX_RESTARTS: Final = 3
"""Restarts one list may take with `on_shift="restart"` before it raises."""
RECALLED: Final = 150_000
"""Ids delivered a list keeps to recognise one delivered again (a record moved from further
back than the alignment's window, as under a sort by `updated_at`): about 140 bytes each for
UUID ids, so a long list's memory stays flat at about 20 MB more than a short one's."""


class Delivered:
    """The last `cap` ids a list delivered (every one, with no cap): which of a page's records
    were delivered before, however far back (within `cap`)."""

    def __init__(self, cap: int | None) -> None:
        self.cap = cap
        self.keys: set[Hashable] = set()
        """The ids remembered."""
        self._pages: deque[Sequence[Hashable]] = deque()

    def __len__(self) -> int:
        return len(self.keys)

    def again(self, keys: Sequence[Hashable]) -> bool:
        """Whether any of `keys` was delivered before."""
        return not self.keys.isdisjoint(keys)

    def add(self, keys: Sequence[Hashable]) -> None:
        """Remember these (just delivered), forgetting the oldest pages past the cap."""
        self.keys.update(keys)
        if self.cap is None:
            return
        self._pages.append(keys)
        while len(self.keys) > self.cap and len(self._pages) > 1:
            self.keys.difference_update(self._pages.popleft())


@frozen
class Shifts:
    """What proving an offset list's pages cost: how often the data moved under it.

    A list whose pages overlap (offset paging with a total) checks that each page continues
    the one before. All zero when the data did not change while the list was read.

    Args:
        realignments: Pages that did not start where expected but showed where the list
            stood (records were added or removed before them).
        rereads: Pages that did not, so the list read again from further back.
        restarts: Restarts from the first page (`on_shift="restart"`).
    """

    realignments: int = 0
    """Pages that did not start where expected but showed where the list stood."""
    rereads: int = 0
    """Pages that showed no record delivered before, so the list read again from further back."""
    restarts: int = 0
    """Restarts from the first page (`on_shift="restart"`)."""

    def __add__(self, other: Shifts) -> Shifts:
        return Shifts(
            self.realignments + other.realignments,
            self.rereads + other.rereads,
            self.restarts + other.restarts,
        )

    def __bool__(self) -> bool:
        return bool(self.realignments or self.rereads or self.restarts)

    def __str__(self) -> str:
        parts = [
            (self.realignments, "realigned"),
            (self.rereads, "re-read"),
            (self.restarts, "restarted"),
        ]
        shown = [f"{count} {what}" for count, what in parts if count]
        return ", ".join(shown) or "no shift"


NO_SHIFTS: Final = Shifts()
"""The data did not move under the list (or it is not proven)."""


@frozen
class ProvenPlace:
    """Where a proven page sits: what a resume token needs to prove the page it resumes at."""

    request: PageRequest
    convention: Convention
    offset: int
    keys: Sequence[Hashable]
    """The page's record ids (or their marks, in a resumed list), in page order."""
    first: int
    """The page's first position aligned: records from it on were delivered (or were already)."""
    before: Chunks
    """The ids delivered before the page that the proof remembers, oldest first."""
    hashed: bool
    page_size: int
    overlap: int
    remembered: bool
    """True when `before` holds every id the list delivered before the page."""

    def continuation(self, consumed: int) -> tuple[PageRequest, Marks]:
        """The request and marks that continue the list after the page's first `consumed`
        records: a page starting `overlap` records before the next one, so it shows them."""
        recent = dict.fromkeys(tail(self.before, MARKS))
        for key in self.keys[self.first : consumed]:
            recent.pop(key, None)
            recent[key] = None
        whole = self.remembered and len(recent) <= MARKS
        keys = tuple(recent)[-MARKS:]
        marks = tuple(cast(int, key) if self.hashed else id_mark(key) for key in keys)
        offset = self.offset
        if consumed > self.first:
            offset = max(0, self.offset + consumed - self.overlap)
        request = with_position(self.convention, self.request, offset)
        return request, Marks(ids=marks, page_size=self.page_size, whole=whole)


class OffsetProof:
    """The proof of one list's pages as the walk reads them (inactive until `begin`).

    `on_shift` says what a page that cannot be proven does: `raise` a `PaginationError`, or
    `restart` the list from its first page, delivering only the ids not delivered yet (every
    delivered id is then kept, so memory grows with the list).
    """

    def __init__(self, on_shift: ShiftPolicy = "raise") -> None:
        self.on_shift = on_shift
        self.convention: Convention | None = None
        self.state: OffsetAlignment | None = None
        self.hashed = False
        self.total: int | None = None
        self.restarts = 0
        self._delivered = Delivered(None if on_shift == "restart" else RECALLED)
        """The ids delivered (every one, with `on_shift="restart"`)."""
        self._can_restart = False
        """Whether a restart may skip every id delivered (a list read from its start)."""
        self._before: AlignmentCounts = AlignmentCounts()
        """The counts of the alignments restarts replaced."""
        self._reported = Shifts()
        self._counted: AlignmentCounts | None = None
        self._page: tuple[int, Sequence[Hashable], int | None] | None = None
        """The page aligned last: its offset, ids and total."""
        self._first: tuple[int, Sequence[Hashable], int | None] | None = None
        """The first page aligned (since the list began or restarted)."""
        self._remembered = False
        """Whether every id delivered before the page last aligned is still remembered."""

    @property
    def active(self) -> bool:
        """Whether the list is being proven (its first page qualified)."""
        return self.state is not None

    def begin(self, request: PageRequest, result: PageResult, marks: Marks | None) -> None:
        """Prove the list from the page read for `request` when it qualifies: an offset list
        followed as known (not a guess still to verify) that announces a total, with an id on
        every record and pages of 2 or more. `marks` are a resume token's; without them the
        page must be the list's first, at offset 0."""
        convention = result.convention or request.convention
        if (
            convention is None
            or convention.follow != "offset"
            or not convention.param
            or request.url is not None
            or (result.next is not None and result.next.probe is not None)  # a guess to verify
            or result.total is None  # no total: only an empty page ends it; unproven
            or record_ids(result.items) is None
        ):
            return
        offset = _offset(convention, request)
        if marks is None:
            if offset not in (None, 0) or len(result.items) < 2 or result.next is None:
                return
            self.state = begin(len(result.items))
            self._can_restart = True
        else:
            if marks.page_size < 2 or not marks.ids:
                return
            self.state = resumed(marks.page_size, marks.ids, offset or 0, whole=marks.whole)
            self.hashed = True
        self.convention = convention

    def align(self, request: PageRequest, result: PageResult, url: Callable[[], str]) -> Aligned:
        """What the page read for `request` delivers, and where the list reads next; raises
        `PaginationError` when it cannot be proven (or restarts, with `on_shift="restart"`);
        `url` gives the page's URL as errors show it."""
        assert self.state is not None
        assert self.convention is not None
        keys = self._keys(result, url)
        offset = _offset(self.convention, request) or 0
        self._check_moves_on(offset, keys, result.total, url)
        self.total = result.total
        self._remembered = not self.state.forgotten and self.restarts == 0
        delivered = self._delivered
        try:
            aligned = align(
                self.state,
                offset,
                keys,
                result.total,
                last=result.next is None,
                delivered=delivered.keys,
            )
        except Unproven as refusal:
            aligned = self._restarted(refusal, url)
        self.state = aligned.state
        if aligned.checked:  # the page continued the list as it stood: none delivered before
            delivered.add(keys[aligned.state.overlap :])
        elif aligned.deliver:
            aligned = self._first_deliveries(aligned, keys, url)
        return aligned

    def _first_deliveries(
        self, aligned: Aligned, keys: Sequence[Hashable], url: Callable[[], str]
    ) -> Aligned:
        """The page's deliveries, none of which was delivered before. One that was (a record
        moved from further back than the alignment's window) means the order moved: refused,
        or skipped once restarting is allowed."""
        deliver = aligned.deliver
        chosen = (
            keys[deliver.start : deliver.stop]
            if isinstance(deliver, range)
            else [keys[position] for position in deliver]
        )
        if self._delivered.again(chosen):
            if self.on_shift != "restart":
                raise PaginationError(
                    "a record delivered earlier shows again after where the list stands: the "
                    "list's order moved while it was read (a service sorting by a field that "
                    "changes), so no page can be proven to continue it (on_shift='restart' "
                    "restarts a list from its start)",
                    method="GET",
                    url=url(),
                )
            known = self._delivered.keys
            kept = tuple(position for position in deliver if keys[position] not in known)
            aligned = attrs.evolve(aligned, deliver=kept)
            chosen = [keys[position] for position in kept]
        self._delivered.add(chosen)
        return aligned

    def place(self, request: PageRequest, aligned: Aligned) -> ProvenPlace:
        """Where the page just aligned for `request` sits, for resume tokens."""
        assert self.convention is not None
        assert self._page is not None
        offset, keys, _ = self._page
        return ProvenPlace(
            request=request,
            convention=self.convention,
            offset=offset,
            keys=keys,
            first=aligned.first,
            before=aligned.before,
            remembered=self._remembered
            and len(aligned.before) <= MARKS
            and sum(map(len, aligned.before)) <= MARKS,
            hashed=self.hashed,
            page_size=aligned.state.page_size,
            overlap=aligned.state.overlap,
        )

    def shifts(self) -> Shifts:
        """The shifts since the last call (each page reports its own)."""
        assert self.state is not None
        counts = self.state.counts
        if counts is self._counted and self.restarts == self._reported.restarts:
            return NO_SHIFTS
        self._counted = counts
        total = Shifts(
            realignments=self._before.realigned + counts.realigned,
            rereads=self._before.rereads + counts.rereads,
            restarts=self.restarts,
        )
        reported, self._reported = self._reported, total
        return Shifts(
            total.realignments - reported.realignments,
            total.rereads - reported.rereads,
            total.restarts - reported.restarts,
        )

    def request(self, request: PageRequest, offset: int) -> PageRequest:
        """The request of the page at `offset`, the page size kept."""
        assert self.convention is not None
        return with_position(self.convention, request, offset)

    def predict(self, request: PageRequest) -> PageRequest | None:
        """The page after `request`'s, overlapping it, assuming it comes full and the data
        stays still (for prefetch); None past the total."""
        assert self.convention is not None
        assert self.state is not None
        following = (_offset(self.convention, request) or 0) + self.state.page_size
        following -= self.state.overlap
        if self.total is not None and following >= self.total:
            return None
        return self.request(request, following)

    def plan(self, request: PageRequest, count: int) -> list[PageRequest]:
        """The next `count` pages (or fewer, up to the total) to fetch at once, each
        overlapping the one before, from where the list stands after `request`'s page."""
        assert self.state is not None
        step = self.state.page_size - self.state.overlap
        offsets = range(self.state.next_offset, self.state.next_offset + count * step, step)
        return [
            self.request(request, offset)
            for offset in offsets
            if self.total is None or offset < self.total
        ]

    def _keys(self, result: PageResult, url: Callable[[], str]) -> Sequence[Hashable]:
        keys = record_ids(result.items)
        if keys is None:
            raise PaginationError(
                "a record without an id came in an offset list proven so far: its pages "
                "overlap, and which records they repeat cannot be told",
                method="GET",
                url=url(),
            )
        if self.hashed:
            return [id_mark(key) for key in keys]
        return keys

    def _check_moves_on(
        self, offset: int, keys: Sequence[Hashable], total: int | None, url: Callable[[], str]
    ) -> None:
        """Refuse a page after the first that repeats the list's first page (same ids, same
        total): the service ignores the offset."""
        page = (offset, keys, total)
        self._page = page
        if self._first is None:
            self._first = page
        elif offset != self._first[0] and page[1:] == self._first[1:] and total is not None:
            raise PaginationError(
                f"every item of the page at {url()} repeats the list's first page at another "
                "offset: the service seems to ignore this list's paging parameters; the "
                "paginator does not match its convention",
                method="GET",
                url=url(),
            )

    def _restarted(self, refusal: Unproven, url: Callable[[], str]) -> Aligned:
        """A restart from the first page, when allowed; else the refusal as a PaginationError."""
        assert self.state is not None
        if (
            self.on_shift != "restart"
            or not refusal.restartable
            or not self._can_restart
            or self.restarts >= MAX_RESTARTS
        ):
            advice = " (on_shift='restart' restarts a list from its start)"
            if self.on_shift == "restart" or not refusal.restartable:
                advice = _why_no_restart(refusal, not self._can_restart, self.restarts)
            raise PaginationError(f"{refusal}{advice}", method="GET", url=url()) from None
        counts = self.state.counts
        self._before = AlignmentCounts(
            realigned=self._before.realigned + counts.realigned,
            rereads=self._before.rereads + counts.rereads,
            presumed=self._before.presumed + counts.presumed,
        )
        self.restarts += 1
        self._page = self._first = None
        fresh = begin(self.state.page_size, self.state.overlap)
        return Aligned(fresh, (), done=False, reread=True)


def _why_no_restart(refusal: Unproven, resumed: bool, restarts: int) -> str:
    if not refusal.restartable:
        return ""
    if resumed:
        return " (a list resumed from a token cannot restart: it does not know every id delivered)"
    return f" (after {restarts} restarts)"


def _offset(convention: Convention, request: PageRequest) -> int | None:
    """The offset a request asks for, None when it names none."""
    assert convention.param is not None
    source = request.headers if convention.param_in == "header" else request.params
    return int_param(dict(source), convention.param)
