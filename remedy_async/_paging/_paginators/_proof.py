"""Proves, without I/O, that each offset page continues the list where the last one ended.

Offset paging skips a record silently when records before the current offset are removed
between two page requests (the record that slides across the boundary is never served), and
serves one twice when records are added before it. Without a server snapshot a list can still
promise: **every record that exists from the list's start to its end is delivered exactly once,
in list order; a record created or removed meanwhile may or may not appear.** This module
decides, page by page and without any I/O, what gives that promise:

- Each page after the first is asked from `overlap` records before where the list stands, so
  it should start with the ids last delivered.
- The page is placed by its *anchor*: the newest delivered id it still shows. Under a stable
  order (survivors never change their relative order), every record after the anchor that was
  not delivered is new to the caller, and every survivor delivered after the anchor is either
  still in the page or was removed.
- A page showing no delivered id (records were removed before it) is re-read from further back,
  one page minus the overlap at a time, so the re-reads leave no gap: at most `MAX_REREADS` per
  boundary, never a loop. At the list's start, with nothing delivered forgotten, the start
  itself is the anchor.
- When delivered ids show out of their delivered order (the order moved: a service sorting by
  `updated_at`, say) or no page can be proven to continue it, `Unproven` is raised: never a guess.

Memory stays flat: only the last `memory` delivered ids, and at most a page more, are kept
(forgotten oldest first, a page's worth at a time, and only between pages), plus *suspects*:
newer delivered ids a page did not show, which may have been removed or pushed past the page's
end by creations, and are never delivered again. A record moved from further back than
`memory` cannot be recognised; it may be delivered twice (a move closer than that raises). A
page that starts with the last ids delivered and shows no other delivered id (the data stood
still) costs one tuple (and one set) of its new ids: see `_steady`.

Why `OVERLAP` is 2: every `overlap` removals before the frontier between two pages cost one
re-read, and each record of overlap is one more record read per page: 2 of a 100-record page is
2% more, under the 3% the project allows.

The states are frozen msgspec `Struct`s, built in C: a list makes them a page at a time (see
docs/architecture.md).
"""

from __future__ import annotations

import hashlib
import itertools
from collections.abc import Hashable, Iterable, Sequence
from collections.abc import Set as AbstractSet
from typing import Final

from msgspec import Struct, field
from msgspec.structs import replace

from remedy_async._paging._read._ids import page_ids

Chunks = tuple[tuple[Hashable, ...], ...]
"""Delivered ids in delivered order, in tuples, each id in one of them."""

OVERLAP: Final = 2
"""Records each page after the first repeats from the one before (see the module's text)."""
MAX_REREADS: Final = 3
"""Re-reads one boundary may take before the list is refused: 3 cover up to
`3 * (page_size - overlap) + overlap` removals before the frontier between two requests."""
MAX_BARREN: Final = 8
"""Pages in a row that bring nothing new (records created before the frontier faster than the
list is paged) before the list is refused."""
MAX_SUSPECTS: Final = 1000
"""Delivered ids a page did not show (removed, or pushed past it) kept before refusing."""
MEMORY_PAGES: Final = 4
"""Delivered ids remembered, in pages: 400 ids for pages of 100."""


class Unproven(Exception):
    """No page can be proven to continue the list: its message says why.

    `restartable` is False when the service itself does not page as an offset list does (a
    restart from the first page would not help)."""

    def __init__(self, message: str, *, restartable: bool = True) -> None:
        super().__init__(message)
        self.restartable = restartable


class ProofCounts(Struct, frozen=True):
    """How much proving the boundaries cost a list: pages realigned, re-read, presumed."""

    realigned: int = 0
    """Pages whose overlap did not repeat the last delivered ids but whose anchor was found."""
    rereads: int = 0
    """Pages read again from further back because they showed no delivered id."""
    presumed: int = 0
    """Pages that did not show the newest delivered ids (removed, or pushed past the page)."""


class OffsetProof(Struct, frozen=True):
    """Where an offset list stands and what it remembers of its delivered ids (immutable).

    Start one with `begin`, then feed every page read to `prove`.
    """

    page_size: int
    overlap: int
    memory: int
    chunks: Chunks = ()
    """The last `memory` delivered ids or so, oldest first: their delivered order, in chunks
    (tuples, never changed once the state is made), one per page delivered while the data
    stood still, so such a page costs one new chunk."""
    suspects: frozenset[Hashable] = frozenset()
    """Delivered ids a page did not show after its anchor: never delivered again."""
    next_offset: int = 0
    """Where to read the next page from."""
    started: bool = False
    forgotten: bool = False
    """True once an id left the window: the list's start can no longer anchor a page."""
    rereads: int = 0
    """Re-reads at the current boundary."""
    barren: int = 0
    """Pages in a row that delivered nothing."""
    counts: ProofCounts = field(default_factory=ProofCounts)

    @property
    def seen(self) -> dict[Hashable, None]:
        """The delivered ids remembered, oldest first (a new dict)."""
        return dict.fromkeys(itertools.chain.from_iterable(self.chunks))

    @property
    def window(self) -> tuple[Hashable, ...]:
        """The delivered ids remembered, oldest first."""
        return tuple(self.seen)


class Proven(Struct, frozen=True):
    """What one page gives the caller, and where the list stands after it."""

    state: OffsetProof
    deliver: Sequence[int]
    """Positions in the page of the records to deliver, in page order (a `range` when they
    are the page from a position on)."""
    done: bool
    """True when the page ends the list."""
    reread: bool = False
    """True when the page proved nothing and the list reads again from further back."""
    first: int = 0
    """The page's first position proven: records from it on are delivered or were already."""
    checked: bool = False
    """True when the page continued the list as it stood and `deliver` (a range to the page's
    end) was checked against every id delivered the caller gave (`prove(delivered=...)`)."""
    before: Chunks = ()
    """The delivered ids remembered before the page, oldest first."""

    @property
    def next_offset(self) -> int:
        """Where to read the next page from (meaningless once `done`)."""
        return self.state.next_offset


def begin(page_size: int, overlap: int = OVERLAP, memory: int | None = None) -> OffsetProof:
    """Start proving an offset list read in pages of `page_size` records from offset 0."""
    if page_size < 2:  # a page of one cannot both repeat a delivered record and move on
        raise ValueError(f"an offset list is proven in pages of 2 or more, not {page_size}")
    if overlap < 1:
        raise ValueError(f"the overlap must be at least 1, not {overlap}")
    overlap = min(overlap, page_size - 1)
    memory = MEMORY_PAGES * page_size if memory is None else memory
    if memory < page_size:
        raise ValueError(f"memory ({memory}) must hold at least one page ({page_size})")
    return OffsetProof(page_size=page_size, overlap=overlap, memory=memory)


def resumed(
    page_size: int, digests: Sequence[int], offset: int, *, whole: bool = False
) -> OffsetProof:
    """Continue proving an offset list from a resume token: `digests` are the `id_digest`s of the
    last ids it delivered (oldest first), `offset` where it reads next. The page read there
    must show one of them (or the list is re-read from further back). Unless the digests are
    of every id delivered (`whole`), the list's start no longer anchors a page: what was
    delivered before them is not known."""
    state = begin(page_size, memory=max(MEMORY_PAGES * page_size, len(digests)))
    return replace(
        state,
        chunks=(tuple(dict.fromkeys(digests)),),
        next_offset=offset,
        started=True,
        forgotten=not whole,
    )


_BLANK_DIGEST: Final = hashlib.blake2b(digest_size=8)
"""A BLAKE2b of 8 bytes fed nothing: each digest starts from a copy of it, which costs less
than setting up a new one (every id of every page of a resumed list is digested)."""


def id_digest(key: Hashable) -> int:
    """A record id as a resume token keeps it: a signed 64-bit digest (BLAKE2b of 8 bytes of
    its repr), the same in every process (unlike `hash`), so a resumed list recognises the
    ids it delivered."""
    return id_digests((key,))[0]


def id_digests(keys: Iterable[Hashable]) -> list[int]:
    """The `id_digest` of each key, in order: a page's ids digested in one loop."""
    digests: list[int] = []
    for key in keys:
        hasher = _BLANK_DIGEST.copy()
        hasher.update(repr(key).encode())
        digests.append(int.from_bytes(hasher.digest(), "big", signed=True))
    return digests


def prove(
    state: OffsetProof,
    offset: int,
    ids: Sequence[Hashable],
    total: int | None,
    *,
    last: bool = False,
    delivered: AbstractSet[Hashable] | None = None,
) -> Proven:
    """Decide which records of the page read at `offset` to deliver, and where to read next.

    `ids` are the page's record ids in page order, `total` the list's size the page announced
    (None when it announced none); `last` says the service names no page after this one (it
    ends the list too). Raises `Unproven` when the order moved or the page cannot be proven.

    `delivered`, every id the caller delivered (or the latest of them, more than `memory`),
    lets a page that continues the list as it stood skip comparing its ids with the window:
    the result is then `checked`, and the caller adds its deliveries to `delivered`.
    """
    size, overlap = state.page_size, state.overlap
    at_end = last or len(ids) < size or (total is not None and offset + len(ids) >= total)
    if not state.started:
        if offset != 0:
            raise ValueError("an offset list is proven from its first page, at offset 0")
        state = replace(state, started=True)
        return _deliver(state, offset, ids, 0, at_end, counts=state.counts)
    if at_end and total is not None and offset + len(ids) < total:
        raise Unproven(
            f"the page at offset {offset} ends the list after {offset + len(ids)} records, "
            f"but it announces {total}: the service does not page by this offset, or its "
            "pages are not one view of the list",
            restartable=False,
        )
    steady = _steady(state, offset, ids, at_end, delivered)
    if steady is not None:
        return steady
    seen = state.seen
    sequence = {key: index for index, key in enumerate(seen)}
    hits = [
        (position, sequence[key])
        for position, key in enumerate(ids)
        if key in sequence and key not in state.suspects
    ]
    for (_, before), (_, after) in itertools.pairwise(hits):
        if after < before:
            raise Unproven(
                "records delivered earlier show in another order: the list's order moved "
                "while it was read (a service sorting by a field that changes), so no page "
                "can be proven to continue it",
            )
    if hits and hits[0][0] > 0 and offset > 0:
        # An undelivered record precedes every delivered one: created meanwhile, or passed
        # over by a moved record; only a page from further back tells.
        hits = []
    if hits and hits[-1][1] != len(seen) - 1 and offset > 0 and (len(hits) == 1 or at_end):
        # The newest delivered ids are missing, and only one delivered id or the list's end
        # vouches for the page: the newer ones were removed, or this one moved (as under an
        # `updated_at` order) past records never delivered; a page from further back tells.
        hits = []
    counts = state.counts
    suspects = state.suspects
    if hits:
        newest = hits[-1][1]
        if newest != len(seen) - 1 and not at_end:
            suspects = _suspected(state, suspects | frozenset(list(seen)[newest + 1 :]))
            counts = replace(counts, presumed=counts.presumed + 1)
        if tuple(ids[:overlap]) != tail(state.chunks, overlap):
            counts = replace(counts, realigned=counts.realigned + 1)
        state = replace(state, suspects=suspects)
        # At the start, with every delivered id remembered, what precedes the first delivered
        # id was never delivered: created meanwhile, delivered in page order.
        first = 0 if offset == 0 and not state.forgotten else hits[0][0]
        return _deliver(state, offset, ids, first, at_end, counts=counts)
    if offset == 0 and not state.forgotten:
        # The list's first page shows nothing delivered, and everything delivered is
        # remembered: it was all removed, or pushed past this page by records created before
        # it. Every record here is new; a delivered one that shows again later is skipped.
        if not at_end:
            suspects = _suspected(state, suspects | frozenset(seen))
            counts = replace(counts, presumed=counts.presumed + 1)
        state = replace(state, suspects=suspects)
        return _deliver(state, offset, ids, 0, at_end, counts=counts)
    if offset == 0 or state.rereads >= MAX_REREADS:
        where = "even from the list's start" if offset == 0 else f"within {MAX_REREADS} re-reads"
        raise Unproven(
            f"no record delivered earlier was found again {where}: records were removed or "
            "added before the frontier faster than the list can prove where it stands; list "
            "again",
        )
    back = max(0, offset - (size - overlap))
    if not ids and total is not None:  # past the end: the list shrank, read its last page
        back = max(0, min(back, total - size))
    counts = replace(counts, rereads=counts.rereads + 1)
    state = replace(state, next_offset=back, rereads=state.rereads + 1, counts=counts)
    return Proven(state, (), done=False, reread=True)


def _suspected(state: OffsetProof, suspects: frozenset[Hashable]) -> frozenset[Hashable]:
    """The suspects, refused past what the list may hold (a page's worth and `MAX_SUSPECTS`
    beyond its memory)."""
    if len(suspects) > MAX_SUSPECTS + state.memory + state.page_size:
        raise Unproven(
            f"more than {MAX_SUSPECTS} delivered records vanished from the pages read after "
            "them: the list cannot be proven to continue",
        )
    return suspects


def _deliver(
    state: OffsetProof,
    offset: int,
    ids: Sequence[Hashable],
    first: int,
    at_end: bool,
    *,
    counts: ProofCounts,
) -> Proven:
    """Deliver the page's records from `first` on that were not delivered before; the others
    (delivered or suspected) move to the end of the delivered order, where the page shows
    them."""
    order = state.seen
    suspects = set(state.suspects)
    deliver: list[int] = []
    for position in range(first, len(ids)):
        key = ids[position]
        if key in order or key in suspects:
            order.pop(key, None)
            suspects.discard(key)
        else:
            deliver.append(position)
        order[key] = None
    forgotten = _trim(order, state.memory) or state.forgotten
    barren = 0 if deliver or at_end else state.barren + 1
    if barren > MAX_BARREN:
        raise Unproven(
            f"{barren} pages in a row brought no new record: records are added before the "
            "frontier faster than the list is paged",
        )
    before = state.chunks
    state = replace(
        state,
        chunks=(tuple(order),),
        suspects=frozenset(suspects),
        next_offset=offset + len(ids) - state.overlap,
        forgotten=forgotten,
        rereads=0,
        barren=barren,
        counts=counts,
    )
    return Proven(state, tuple(deliver), done=at_end, first=first, before=before)


def _steady(
    state: OffsetProof,
    offset: int,
    ids: Sequence[Hashable],
    at_end: bool,
    delivered: AbstractSet[Hashable] | None,
) -> Proven | None:
    """The page when the data did not move (the common case, kept cheap): it starts with the
    last `overlap` ids delivered, and none of the rest was delivered (as `delivered` says, else
    as the window does) or suspected; else None."""
    overlap, chunks = state.overlap, state.chunks
    if len(ids) <= overlap or state.suspects or tuple(ids[:overlap]) != tail(chunks, overlap):
        return None
    added = tuple(ids[overlap:])
    distinct = set(added)
    if len(distinct) != len(added):  # a record shown twice in the page
        return None
    if delivered is not None:
        if not delivered.isdisjoint(distinct):
            return None
    elif not all(distinct.isdisjoint(chunk) for chunk in chunks):
        return None
    kept = list(chunks)
    size = sum(map(len, kept)) + len(added)
    forgotten = state.forgotten
    while size - len(kept[0]) >= state.memory:  # forget whole chunks, oldest first
        size -= len(kept.pop(0))
        forgotten = True
    moved = OffsetProof(
        page_size=state.page_size,
        overlap=overlap,
        memory=state.memory,
        chunks=(*kept, added),
        suspects=state.suspects,
        next_offset=offset + len(ids) - overlap,
        started=True,
        forgotten=forgotten,
        counts=state.counts,
    )
    checked = delivered is not None
    return Proven(
        moved, range(overlap, len(ids)), done=at_end, first=0, before=chunks, checked=checked
    )


def tail(chunks: Chunks, count: int) -> tuple[Hashable, ...]:
    """The last `count` ids of `chunks` (delivered ids, oldest first), oldest first."""
    if chunks and len(chunks[-1]) >= count:
        return chunks[-1][len(chunks[-1]) - count :]
    found: list[Hashable] = []
    for chunk in reversed(chunks):
        found.extend(itertools.islice(reversed(chunk), count - len(found)))
        if len(found) >= count:
            break
    return tuple(reversed(found))


def _trim(order: dict[Hashable, None], memory: int) -> bool:
    """Forget the oldest ids beyond `memory`; whether any was forgotten."""
    excess = len(order) - memory
    for key in list(itertools.islice(order, max(0, excess))):
        del order[key]
    return excess > 0


_ID_TYPES: Final = frozenset({str, int})


def record_ids(items: Sequence[object]) -> list[Hashable] | None:
    """The ids of a page's records, JSON objects or typed views (`1` and `"1"` differ, as dict
    keys do); None when a record has no id (a string or an integer), so the page cannot be
    proven."""
    ids = page_ids(items)
    if ids is None or not _ID_TYPES.issuperset(map(type, ids)):  # a bool, a float, null...
        return None
    return ids  # str and int ids only: hashable
