"""Proves an offset list page by page: `ProvenPaginator` wraps the list's own paginator.

`_proof` decides, without I/O, which records of a page continue the list. This module is the
paginator around the list's own one that applies it: when a list is proven at all (an offset
list followed as known, with a total and an id on every record, read from its start or from a
token of a proven list), the requests its pages are asked by (from the overlap: the next page,
predicted pages for prefetch, planned pages for parallel fetches), the records each page
delivers, what a resume token keeps of the proof (`ResumedProof`: digests of the last ids
delivered), the ids delivered (`Delivered`, so a record moved from further back than the
proof's window is recognised when it shows again), the `on_shift` policy (raise, or restart
from the first page skipping every id delivered) and what proving cost (`Shifts`).

The proof's state rides on the requests it forms (`PageRequest.proof`, a `ListProof`), as a
detected convention does on `AutoPaginator`'s; a page it cannot prove raises `PagingFault`.
A list that does not qualify is read by the wrapped paginator alone. The proof's values are
frozen msgspec `Struct`s, made a page at a time (see docs/architecture.md); the paginator is an
attrs class, as every paginator is.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Hashable, Sequence
from typing import Final, Literal, cast, get_args

import attrs
from attrs import frozen
from msgspec import Struct, field
from msgspec.structs import replace

from remedy_async._paging._protocol import (
    NO_SHIFTS,
    Convention,
    FallingBackPaginator,
    PagePlan,
    PageRequest,
    PageResult,
    Paginator,
    PagingFault,
    PlanningPaginator,
    PredictingPaginator,
    Proof,
    Shifts,
    request_key,
)
from remedy_async._paging._read._positions import int_param, with_position
from remedy_async._wire._http import JSONResponse

from ._proof import (
    Chunks,
    OffsetProof,
    ProofCounts,
    Proven,
    Unproven,
    begin,
    id_digest,
    id_digests,
    prove,
    record_ids,
    resumed,
    tail,
)

ShiftPolicy = Literal["raise", "restart"]
"""What an offset list does when the data moved under it so that no page can be proven to
continue it: raise `PaginationError` (with a resume token), or restart from its first page."""
SHIFT_POLICIES: Final = get_args(ShiftPolicy)

DIGESTS: Final = 8
"""Ids a resume token keeps digests of: enough to find the last delivered one after a few
removals."""
MAX_RESTARTS: Final = 3
"""Restarts one list may take with `on_shift="restart"` before it raises."""
RECALLED: Final = 150_000
"""Ids delivered a list keeps to recognise one delivered again (a record moved from further
back than the proof's window, as under a sort by `updated_at`): about 140 bytes each for
UUID ids, so a long list's memory stays flat at about 20 MB more than a short one's."""


class Delivered:
    """The last `cap` ids a list delivered (every one, with no cap): which of a page's records
    were delivered before, however far back (within `cap`). One per list, shared by the
    states of its proof (it only grows as the list is read).

    Past the cap the oldest pages are forgotten whole. The pages remembered are kept as one
    list of their ids and the offsets their pages end at, not as a list per page: a list
    retained per page would add a container the garbage collector tracks, and so a collection
    every few hundred pages, each walking the pages being read (about 3 ms in a list of
    100,000)."""

    def __init__(self, cap: int | None) -> None:
        self.cap = cap
        self.keys: set[Hashable] = set()
        """The ids remembered."""
        self._order: list[Hashable] = []
        """The ids delivered in order, those of the pages remembered from `_first` on."""
        self._first = 0
        self._ends: deque[int] = deque()
        """Where each page remembered ends in `_order`, oldest first."""

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
        order, ends = self._order, self._ends
        order.extend(keys)
        ends.append(len(order))
        while len(self.keys) > self.cap and len(ends) > 1:
            end = ends.popleft()
            self.keys.difference_update(order[self._first : end])
            self._first = end
        if self._first > len(order) // 2:  # drop what was forgotten, once it is half
            forgotten = self._first
            del order[:forgotten]
            self._ends = deque(end - forgotten for end in ends)
            self._first = 0


class ResumedProof(Proof, Struct, frozen=True):
    """What a resume token keeps of a proven list, on the request it resumes at: digests
    (`id_digest`) of the last ids it delivered, oldest first, and the size of its pages."""

    digests: tuple[int, ...]
    page_size: int
    whole: bool = False
    """True when the digests are of every id the list delivered (it stopped within its first
    few records): then the list's start may anchor its first page."""


PageIds = tuple[int, Sequence[Hashable], int | None]
"""A page proven: its offset, its record ids (or their digests) and the total it announced."""


class ListProof(Proof, Struct, frozen=True):
    """Where the proof of one list stands after a page, on the request of the page after it."""

    state: OffsetProof
    convention: Convention
    delivered: Delivered
    """Every id delivered (within `RECALLED`, every one with `on_shift="restart"`)."""
    hashed: bool = False
    """The ids are kept as digests (a list resumed from a token)."""
    can_restart: bool = False
    """Whether a restart may skip every id delivered (a list read from its start)."""
    restarts: int = 0
    before: ProofCounts = field(default_factory=ProofCounts)
    """The counts of the states restarts replaced."""
    first: PageIds | None = None
    """The first page proven since the list began or restarted."""
    total: int | None = None
    """The total the latest page announced."""
    reported: Shifts = NO_SHIFTS
    """What proving had cost when the latest page was handed over."""
    steady: bool = False
    """The latest page continued the list as it stood (`Proven.checked`): the page after it
    may be guessed before it is read (`predict_within_total`)."""

    def shifts_at(self, state: OffsetProof) -> Shifts:
        """What proving has cost the list once it stands at `state`."""
        realignments = self.before.realigned + state.counts.realigned
        rereads = self.before.rereads + state.counts.rereads
        if not (realignments or rereads or self.restarts):
            return NO_SHIFTS
        return Shifts(realignments, rereads, self.restarts)


class ProvenPlace(Struct, frozen=True):
    """Where a proven page sits: what a resume token needs to prove the page it resumes at."""

    request: PageRequest
    convention: Convention
    offset: int
    keys: Sequence[Hashable]
    """The page's record ids (or their digests, in a resumed list), in page order."""
    first: int
    """The page's first position proven: records from it on were delivered (or were already)."""
    before: Chunks
    """The ids delivered before the page that the proof remembers, oldest first."""
    hashed: bool
    page_size: int
    overlap: int
    remembered: bool
    """True when `before` holds every id the list delivered before the page."""

    def continuation(self, consumed: int) -> tuple[PageRequest, int] | None:
        """The request continuing the list after the page's first `consumed` records, with
        what it must prove: a page starting `overlap` records before the next one, so it shows
        them. None when nothing was delivered yet: the list's own start continues it."""
        recent = dict.fromkeys(tail(self.before, DIGESTS))
        for key in self.keys[self.first : consumed]:
            recent.pop(key, None)
            recent[key] = None
        if not recent:
            return None
        whole = self.remembered and len(recent) <= DIGESTS
        keys = tuple(recent)[-DIGESTS:]
        digests = tuple(cast(int, key) if self.hashed else id_digest(key) for key in keys)
        offset = self.offset
        if consumed > self.first:
            offset = max(0, self.offset + consumed - self.overlap)
        seed = ResumedProof(digests=digests, page_size=self.page_size, whole=whole)
        request = with_position(self.convention, self.request, offset)
        return attrs.evolve(request, proof=seed), 0


@frozen
class ProvenPaginator:
    """Reads an offset list by `inner`, proving each page continues the list where it stands.

    Made once per list walk (`around`): a list read from its start is proven from its first
    page when that page qualifies; a list resumed from a token is proven when the token kept
    the proof (`ResumedProof`). `on_shift` says what a page that cannot be proven does:
    `raise` (a `PagingFault`), or `restart` the list from its first page, delivering only the
    ids not delivered yet (every delivered id is then kept, so memory grows with the list).
    """

    inner: Paginator
    on_shift: ShiftPolicy = "raise"
    starts: frozenset[Hashable] = frozenset()
    """The keys (`request_key`) of the list's first requests (its own and its fallbacks) when
    it is read from its start: a page read for one of them may begin the proof."""

    @classmethod
    def around(
        cls, inner: Paginator, first: PageRequest, on_shift: ShiftPolicy, *, from_start: bool
    ) -> ProvenPaginator:
        """The paginator proving a list read by `inner` from `first` (its own first request),
        from its start or not."""
        starts: frozenset[Hashable] = frozenset()
        if from_start:
            fallbacks = inner.fallbacks(first) if isinstance(inner, FallingBackPaginator) else ()
            starts = frozenset(map(request_key, (first, *fallbacks)))
        return cls(inner, on_shift, starts)

    def first(self, page_size: int | None) -> PageRequest:
        """As the wrapped paginator asks for a list's first page."""
        return self.inner.first(page_size)

    def fallbacks(self, request: PageRequest) -> tuple[PageRequest, ...]:
        """As the wrapped paginator falls back from a refused first request (none if it
        does not)."""
        inner = self.inner
        return inner.fallbacks(request) if isinstance(inner, FallingBackPaginator) else ()

    def read(self, request: PageRequest, response: JSONResponse) -> PageResult:
        """Read the page by the wrapped paginator and, on a proven list, deliver only the
        records that continue it, asking the next page from its overlap."""
        result = self.inner.read(request, response)
        proof = request.proof
        if isinstance(proof, ListProof):
            return self._proved(proof, request, result)
        if isinstance(proof, ResumedProof):
            begun = self._resumed(proof, request, result)
            if begun is None:
                raise PagingFault(
                    "the resume token continues an offset list proven page by page, but the "
                    "service's page no longer is one (no total, an offset not echoed, a record "
                    "without an id): list again from the start"
                )
            return self._proved(begun, request, result)
        if self.starts and request.probe is None and request_key(request) in self.starts:
            begun = self._begun(request, result)
            if begun is not None:
                return self._proved(begun, request, result)
        return result

    def predict_next(self, request: PageRequest) -> PageRequest | None:
        """The page after `request`'s, overlapping it, assuming it comes full and the data
        stays still (for prefetch); None when `request`'s page reaches the total (the page
        after would hold no record not delivered). On a list not proven, the wrapped
        paginator's guess."""
        proof = request.proof
        if not isinstance(proof, ListProof):
            inner = self.inner
            return inner.predict_next(request) if isinstance(inner, PredictingPaginator) else None
        state = proof.state
        following = (_offset(proof.convention, request) or 0) + state.page_size - state.overlap
        if proof.total is not None and following + state.overlap >= proof.total:
            return None
        return _at(proof.convention, request, following, proof)

    def predict_within_total(self, request: PageRequest) -> PageRequest | None:
        """The page after `request`'s when the list's announced total says there is one (a
        proven offset list) and the list stood still at the page before; None otherwise, so
        that no request is guessed past a list's end (a list that announces no total shows its
        end only once its last page is read), nor while the list moves (its pages are read
        again from further back, and a guess would be wasted)."""
        proof = request.proof
        if not isinstance(proof, ListProof) or proof.total is None or not proof.steady:
            return None
        return self.predict_next(request)

    def plan(
        self, request: PageRequest, response: JSONResponse, result: PageResult, count: int
    ) -> PagePlan | None:
        """The next `count` pages (or fewer, up to the total) to fetch at once, each
        overlapping the one before, from where the list stands after the page; on a list not
        proven, the wrapped paginator's plan."""
        if not result.checked:
            inner = self.inner
            if isinstance(inner, PlanningPaginator):
                return inner.plan(request, response, result, count)
            return None
        following = result.next
        if following is None or not isinstance(following.proof, ListProof):
            return PagePlan((), None)
        proof = following.proof
        state = proof.state
        step = state.page_size - state.overlap
        offsets = range(state.next_offset, state.next_offset + count * step, step)
        requests = tuple(
            _at(proof.convention, request, offset, proof)
            for offset in offsets
            if proof.total is None or offset < proof.total
        )
        return PagePlan(requests, None)

    def _begun(self, request: PageRequest, result: PageResult) -> ListProof | None:
        """The proof of a list from its first page when it qualifies: an offset list followed
        as known (not a guess still to verify) that announces a total, with an id on every
        record and pages of 2 or more."""
        convention = _qualifying(request, result)
        if convention is None:
            return None
        offset = _offset(convention, request)
        if offset not in (None, 0) or len(result.items) < 2 or result.next is None:
            return None
        delivered = Delivered(None if self.on_shift == "restart" else RECALLED)
        return ListProof(begin(len(result.items)), convention, delivered, can_restart=True)

    def _resumed(
        self, seed: ResumedProof, request: PageRequest, result: PageResult
    ) -> ListProof | None:
        """The proof of a list resumed from a token that kept it, when its page qualifies."""
        convention = _qualifying(request, result)
        if convention is None or seed.page_size < 2 or not seed.digests:
            return None
        offset = _offset(convention, request) or 0
        state = resumed(seed.page_size, seed.digests, offset, whole=seed.whole)
        delivered = Delivered(None if self.on_shift == "restart" else RECALLED)
        return ListProof(state, convention, delivered, hashed=True)

    def _proved(self, proof: ListProof, request: PageRequest, result: PageResult) -> PageResult:
        """The page read for `request` as the proof delivers it: the records that continue the
        list, and the request of the page after (or of the page to read again instead)."""
        convention = proof.convention
        ids = record_ids(result.items)
        if ids is None:
            raise PagingFault(
                "a record without an id came in an offset list proven so far: its pages "
                "overlap, and which records they repeat cannot be told"
            )
        keys: Sequence[Hashable] = id_digests(ids) if proof.hashed else ids
        offset = _offset(convention, request) or 0
        page: PageIds = (offset, keys, result.total)
        first = _moved_on(proof.first, page)
        remembered = not proof.state.forgotten and proof.restarts == 0
        try:
            proven = prove(
                proof.state,
                offset,
                keys,
                result.total,
                last=result.next is None,
                delivered=proof.delivered.keys,
            )
        except Unproven as refusal:
            proof = replace(self._restarted(proof, refusal), total=result.total, steady=False)
            return attrs.evolve(result, next=_at(convention, request, 0, proof), again=True)
        if proven.reread:
            after = replace(
                proof, state=proven.state, first=first, total=result.total, steady=False
            )
            again = _at(convention, request, proven.next_offset, after)
            return attrs.evolve(result, next=again, again=True)
        if proven.checked:  # the page continued the list as it stood: none delivered before
            proof.delivered.add(keys[proven.state.overlap :])
        elif proven.deliver:
            proven = self._first_deliveries(proof, proven, keys)
        shifts = proof.shifts_at(proven.state)
        after = ListProof(
            proven.state,
            convention,
            proof.delivered,
            proof.hashed,
            proof.can_restart,
            proof.restarts,
            proof.before,
            first,
            result.total,
            shifts,
            steady=proven.checked,
        )
        place = ProvenPlace(
            request=request,
            convention=convention,
            offset=offset,
            keys=keys,
            first=proven.first,
            before=proven.before,
            remembered=remembered
            and len(proven.before) <= DIGESTS
            and sum(map(len, proven.before)) <= DIGESTS,
            hashed=proof.hashed,
            page_size=proven.state.page_size,
            overlap=proven.state.overlap,
        )
        following: PageRequest | None = None
        if not proven.done:
            following = _at(convention, request, proven.next_offset, after)
        return PageResult(
            result.items,
            following,
            result.items_path,
            result.convention,
            result.total,
            result.notice,
            proven.deliver,
            again=False,
            checked=True,
            resume=place.continuation,
            shifts=NO_SHIFTS if shifts is proof.reported else shifts - proof.reported,
        )

    def _first_deliveries(
        self, proof: ListProof, proven: Proven, keys: Sequence[Hashable]
    ) -> Proven:
        """The page's deliveries, none of which was delivered before. One that was (a record
        moved from further back than the proof's window) means the order moved: refused, or
        skipped once restarting is allowed."""
        deliver = proven.deliver
        chosen = (
            keys[deliver.start : deliver.stop]
            if isinstance(deliver, range)
            else [keys[position] for position in deliver]
        )
        delivered = proof.delivered
        if delivered.again(chosen):
            if self.on_shift != "restart":
                raise PagingFault(
                    "a record delivered earlier shows again after where the list stands: the "
                    "list's order moved while it was read (a service sorting by a field that "
                    "changes), so no page can be proven to continue it (on_shift='restart' "
                    "restarts a list from its start)"
                )
            known = delivered.keys
            kept = tuple(position for position in deliver if keys[position] not in known)
            proven = replace(proven, deliver=kept)
            chosen = [keys[position] for position in kept]
        delivered.add(chosen)
        return proven

    def _restarted(self, proof: ListProof, refusal: Unproven) -> ListProof:
        """The proof restarted from the list's first page, when allowed; else the refusal."""
        if (
            self.on_shift != "restart"
            or not refusal.restartable
            or not proof.can_restart
            or proof.restarts >= MAX_RESTARTS
        ):
            advice = " (on_shift='restart' restarts a list from its start)"
            if self.on_shift == "restart" or not refusal.restartable:
                advice = _why_no_restart(refusal, not proof.can_restart, proof.restarts)
            raise PagingFault(f"{refusal}{advice}") from None
        counts, before = proof.state.counts, proof.before
        return replace(
            proof,
            state=begin(proof.state.page_size, proof.state.overlap),
            restarts=proof.restarts + 1,
            before=ProofCounts(
                realigned=before.realigned + counts.realigned,
                rereads=before.rereads + counts.rereads,
                presumed=before.presumed + counts.presumed,
            ),
            first=None,
        )


def _at(convention: Convention, request: PageRequest, offset: int, proof: Proof) -> PageRequest:
    """The request of the page at `offset`, the page size kept, carrying `proof`."""
    return with_position(convention, request, offset, proof=proof)


def _qualifying(request: PageRequest, result: PageResult) -> Convention | None:
    """The convention of a page that may be proven: an offset list followed as known (not a
    guess to verify) that announces a total, with an id on every record; else None."""
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
        return None
    return convention


def _moved_on(first: PageIds | None, page: PageIds) -> PageIds:
    """The list's first page proven, refusing a later page that repeats it (same ids, same
    total) at another offset: the service ignores the offset."""
    if first is None:
        return page
    offset, keys, total = page
    if offset != first[0] and (keys, total) == first[1:] and total is not None:
        raise PagingFault(
            f"every item of the page at offset {offset} repeats the list's first page: the "
            "service seems to ignore this list's paging parameters; the paginator does not "
            "match its convention"
        )
    return first


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
    return int_param(source, convention.param)


__all__ = ["SHIFT_POLICIES", "ListProof", "ProvenPaginator", "ResumedProof", "ShiftPolicy"]
