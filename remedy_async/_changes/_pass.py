"""One pass of a change feed: relist the collection, diff it page by page against the state,
and, once the whole list was read without error, report what it no longer holds.

Each page's fingerprints are compared with the stored ones in one statement, which returns
only those that differ (with `trust_updated_at`, only the records whose `updated_at` is not
the stored one are fingerprinted and compared), and its changes handed out as one batch; only
when the caller asks for the next batch are the changed records, the page's marks (its ids, as
listed by this pass) and the pass's resume token written, in one transaction.
SQLite's calls are small and per page (a millisecond or two for a page of a thousand), so
they run on the event loop's thread: a worker thread measured slower (again with issue 34's
comparing statement), its handovers of the GIL costing more than the overlap gains.

A pass stopped anywhere (error, cancellation, crash) keeps what was committed and continues
from its resume token next time; what was handed out but not committed is handed out again.
A full pass that listed everything goes on to its removals, in batches committed
the same way, and a pass stopped there finishes them first next time. Unless the feed is
filtered, each record the list did not show is first asked for by id: one a get still finds
was missed by the list (it moved while the list was walked) and is compared as the get
returns it; a 404 removes it.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import AsyncGenerator, Callable, Sequence
from datetime import UTC, datetime
from typing import Any, Generic, TypeVar

import attrs
import orjson

from remedy_async._errors import (
    APIStatusError,
    ChangeStateError,
    DecodeError,
    PaginationError,
    RemedyError,
)
from remedy_async._wire._json import dumps, loads

from ._change import Change, ChangeKind, PassKind, PassResult
from ._feed_settings import FeedSettings, FeedSource, Params
from ._fingerprint import (
    as_text,
    canonical,
    changed_fields,
    field_sums,
    fingerprints,
    record_id,
)
from ._state import ChangeState
from ._state_file import Known, Page, Row, StoredRecord

T = TypeVar("T")


REMOVALS_PER_BATCH = 1000
CONFIRMING = 16
"""Gets at once while removals are confirmed."""
TOKEN_REFUSALS = frozenset({400, 404, 409, 410, 422})
"""Statuses that, answering the first request of a resumed list, say its cursor is refused
(as does a PaginationError there): the pass then lists again from the start. Other errors
(a 503, a lost connection) keep the resume token for the next attempt."""

Batch = tuple[Change[T], ...]
Diff = tuple[Batch[T], list[Row], Page, list[tuple[str, str]]]
"""A page's changes, rows to write, what it listed, and (updated_at, id) stamps to keep."""
NOTHING_LISTED = Page(b"", 0, None, None, ascending=True)


def rfc3339(seconds: float) -> str:
    """A time as an RFC 3339 UTC date-time to the second (`2024-06-01T00:00:00Z`)."""
    return datetime.fromtimestamp(int(seconds), UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


class Pass(Generic[T]):
    """Runs one pass of a feed over a state; `result` says how it went once it stops."""

    def __init__(
        self,
        source: FeedSource[T],
        state: ChangeState,
        settings: FeedSettings,
        make: Callable[[dict[str, Any]], T],
    ) -> None:
        self.source = source
        self.state = state
        self.settings = settings
        self._make = make
        self.result: PassResult | None = None
        self.live = True
        """Whether the pass may still touch the state (see `detach`)."""
        self._counts = dict.fromkeys(ChangeKind, 0)
        self._listed = 0

    def _plan(self) -> bool:
        """Start a new pass, full or narrowed, unless one is in progress; True if resumed."""
        state, settings = self.state, self.settings
        state.bind(self.source.collection, self.source.filters)
        feed = state.feed
        if feed.phase != "done":
            return True
        now = settings.wall_clock()
        kind: PassKind = "full"
        since = None
        if (
            settings.since_filter is not None
            and feed.full_started_at is not None
            and feed.last_started_at is not None
            and now - feed.full_started_at < settings.resync
        ):
            kind = "since"
            value = rfc3339(feed.last_started_at - settings.overlap)
            since = orjson.dumps([settings.since_filter, value]).decode()
        state.start_pass(kind, now, since)
        return False

    def _finish(self, resumed: bool, error: RemedyError | None = None) -> PassResult:
        feed, counts = self.state.feed, self._counts
        self.result = PassResult(
            number=feed.pass_number,
            kind=feed.pass_kind,
            complete=error is None,
            listed=self._listed,
            added=counts[ChangeKind.ADDED],
            modified=counts[ChangeKind.MODIFIED],
            removed=counts[ChangeKind.REMOVED],
            resumed=resumed,
            error=error,
        )
        return self.result

    async def batches(self) -> AsyncGenerator[Batch[T], None]:
        """Run the pass, yielding each page's changes (then the removals) as a batch."""
        state = self.state
        resumed = self._plan()
        try:
            if state.feed.phase == "listing":
                async for batch in self._listing():
                    yield batch
            if state.feed.phase == "removing":
                async for batch in self._removals():
                    yield batch
        except RemedyError as error:
            if self.live:
                state.rollback()
                if not isinstance(error, ChangeStateError):
                    state.failed()
                    self._finish(resumed, error)
            raise
        except BaseException:
            if self.live:
                state.rollback()
            raise
        self._finish(resumed)

    def detach(self) -> None:
        """Leave the state alone from now on: the pass's iteration was dropped (its generator
        is closed later, when the state may serve another pass), and it was rolled back."""
        self.live = False

    def _params(self) -> Params:
        since = self.state.feed.since
        if self.state.feed.pass_kind != "since" or since is None:
            return ()
        name, value = orjson.loads(since)
        return ((name, value),)

    async def _listing(self) -> AsyncGenerator[Batch[T], None]:
        state = self.state
        token = state.feed.resume_token
        try:
            pager = self.source.open_list(token, self._params())
        except ValueError:
            if token is None:
                raise
            state.restart_listing()  # a token this client cannot read: list from the start
            pager = self.source.open_list(None, self._params())
        try:
            async for batch in self._pages(pager):
                yield batch
        except (APIStatusError, PaginationError) as error:
            refused = isinstance(error, PaginationError) or error.status in TOKEN_REFUSALS
            if token is None or self._listed or not refused:
                raise
            state.rollback()
            state.restart_listing()  # the service refused the resumed cursor
            async for batch in self._pages(self.source.open_list(None, self._params())):
                yield batch

    async def _pages(self, pager: Any) -> AsyncGenerator[Batch[T], None]:
        state = self.state
        held: Diff[T] | None = None
        pages = pager.pages()
        try:
            async for page in pages:
                if held is not None:  # a page after one that said it was the last
                    state.commit_page(held[1], None, held[2], held[3])
                    held = None
                items: Sequence[dict[str, Any]] = page.items
                self._listed += len(items)
                diff = await self._diff(items, page.url)
                if diff[0]:
                    yield diff[0]
                if page.resume_token is None:
                    held = diff  # committed once the list has ended without error
                else:
                    state.commit_page(diff[1], page.resume_token, diff[2], diff[3])
        finally:
            await pages.aclose()
        _, rows, listed, stamps = held if held is not None else ((), [], NOTHING_LISTED, [])
        state.commit_page(rows, None, attrs.evolve(listed, last=True), stamps)

    async def _diff(self, items: Sequence[dict[str, Any]], url: str) -> Diff[T]:
        """A page's changes, the rows to write for them, what it listed, and the stamps of
        unchanged records to keep."""
        if not items:
            return (), [], NOTHING_LISTED, []
        records = canonical(items, self.source.model)
        ids = _ids(records, url)
        ascending = all(a < b for a, b in itertools.pairwise(ids))
        listed = Page(orjson.dumps(ids), len(ids), ids[0], ids[-1], ascending)
        if self.settings.trust_updated_at:
            stamps = [record.get("updated_at") for record in records]
            if all(stamp.__class__ is str for stamp in stamps):
                stamped: dict[str, str] = dict(zip(ids, stamps, strict=True))  # type: ignore[arg-type]
                if len(stamped) == len(ids):
                    return await self._by_stamps(items, records, ids, stamped, listed, url)
        digests = fingerprints(records)
        total = sum(digests)
        listed = attrs.evolve(listed, total=total)
        current = dict(zip(ids, digests, strict=True))
        if len(current) == len(ids):
            known = self.state.differing(orjson.dumps(current))
            if not known:
                return (), [], listed, []  # the common case: an unchanged page
            at = [(index, digests[index]) for index, id_ in enumerate(ids) if id_ in known]
        else:  # an id repeated in the page: each occurrence compared in turn
            known = self.state.lookup(listed.ids)
            at = list(enumerate(digests))
        changes, rows = self._changed(items, records, ids, at, known, url)
        return changes, rows, listed, []

    async def _by_stamps(
        self,
        items: Sequence[dict[str, Any]],
        records: Sequence[dict[str, Any]],
        ids: Sequence[str],
        stamped: dict[str, str],
        listed: Page,
        url: str,
    ) -> Diff[T]:
        """`_diff` trusting `updated_at`: only the records whose stamp is not the state's are
        fingerprinted and compared; a record whose content is the state's has its new stamp
        kept (so is trusted next time)."""
        stale, total = self.state.stale(orjson.dumps(stamped))
        if not stale:
            return (), [], attrs.evolve(listed, total=total), []
        known: Known = {id_: held[0] for id_, held in stale.items()}
        at: list[tuple[int, int]] = []
        filled: list[tuple[str, str]] = []
        for index, id_ in enumerate(ids):
            if id_ in stale:
                digest = fingerprints((records[index],))[0]
                old = known[id_]
                total += digest - (0 if old is None else old)
                at.append((index, digest))
                if old == digest:
                    filled.append((stamped[id_], id_))
        changes, rows = self._changed(items, records, ids, at, known, url)
        return changes, rows, attrs.evolve(listed, total=total), filled

    def _changed(
        self,
        items: Sequence[dict[str, Any]],
        records: Sequence[dict[str, Any]],
        ids: Sequence[str],
        at: Sequence[tuple[int, int]],
        known: Known,
        url: str,
    ) -> tuple[Batch[T], list[Row]]:
        """The changes among the page's records at these (index, fingerprint), compared with
        the stored fingerprints `known` (absent or None: a record new to the state), and the
        rows to write for them."""
        moved = [ids[index] for index, digest in at if known.get(ids[index], digest) != digest]
        state = self.state
        stored = state.stored(moved) if moved else {}
        number, keep = state.feed.pass_number, state.keep_records
        changes: list[Change[T]] = []
        rows: list[Row] = []
        for index, digest in at:
            raw, record, id_ = items[index], records[index], ids[index]
            old = known.get(id_)
            if old == digest:
                continue
            sums = field_sums(record)
            kept = dumps(raw) if keep else None
            built = self._build(raw, url, f"$.items[{index}]")
            if old is None:
                change = Change(ChangeKind.ADDED, id_, built, None, (), as_text(digest), number)
            else:
                before = stored.get(id_)
                previous = None if before is None else before.record
                change = Change(
                    ChangeKind.MODIFIED,
                    id_,
                    built,
                    None if previous is None else self._build(loads(previous), url),
                    changed_fields(None if before is None else before.fields, sums),
                    as_text(digest),
                    number,
                )
            changes.append(change)
            self._counts[change.kind] += 1
            stamp = record.get("updated_at")
            rows.append((id_, digest, stamp if stamp.__class__ is str else None, sums, kept))
            known[id_] = digest  # an id repeated later in the page compares with this
            stored[id_] = StoredRecord(digest, sums, kept)
        return tuple(changes), rows

    def _build(self, raw: dict[str, Any], url: str, path: str = "$") -> T:
        """The record as the feed hands it out; DecodeError when it does not fit its model."""
        try:
            return self._make(raw)
        except Exception as error:
            raise DecodeError(
                f"a record does not fit {self.source.model.__name__}: {error}",
                method="GET",
                url=url,
                path=path,
            ) from error

    async def _removals(self) -> AsyncGenerator[Batch[T], None]:
        state = self.state
        after = ""
        while True:
            unlisted = await state.unlisted(after, REMOVALS_PER_BATCH)
            if not unlisted:
                state.finish()
                return
            found = await self._still_there([record_id for record_id, _ in unlisted])
            missed = [found[record_id] for record_id, _ in unlisted if record_id in found]
            changes, rows, _, _ = await self._diff(missed, state.path)
            number = state.feed.pass_number
            removed = tuple(
                Change(
                    ChangeKind.REMOVED,
                    record_id,
                    None,
                    None if kept is None else self._build(loads(kept), state.path),
                    pass_number=number,
                )
                for record_id, kept in unlisted
                if record_id not in found
            )
            self._counts[ChangeKind.REMOVED] += len(removed)
            if changes or removed:
                yield changes + removed
            after = unlisted[-1][0]
            state.settle(rows, [change.id for change in removed], sorted(found))

    async def _still_there(self, ids: list[str]) -> dict[str, dict[str, Any]]:
        """Those of `ids` that a get still finds (the list missed them: they moved while it
        was walked), as the get returns them, when the feed confirms removals; a 404 (or
        410) is the evidence of a removal."""
        fetch = self.source.fetch
        if fetch is None:
            return {}
        found: dict[str, dict[str, Any]] = {}
        limit = asyncio.Semaphore(CONFIRMING)

        async def check(record_id: str) -> None:
            async with limit:
                record = await fetch(record_id)
            if record is not None:
                found[record_id] = record

        try:
            async with asyncio.TaskGroup() as group:
                for record_id in ids:
                    group.create_task(check(record_id))
        except BaseExceptionGroup as failed:  # the first get that failed says why
            raise failed.exceptions[0] from None
        return found


def _ids(records: Sequence[dict[str, Any]], url: str) -> list[str]:
    """The records' ids as text; DecodeError for a record without one."""
    try:
        ids = [record["id"] for record in records]
    except KeyError:
        ids = [None] * len(records)
    if all(found.__class__ is str for found in ids):
        return ids
    texts: list[str] = []
    for index, record in enumerate(records):
        found = record_id(record)
        if found is None:
            raise DecodeError(
                "a record without an id (a string or an integer) cannot be followed by a "
                "change feed",
                method="GET",
                url=url,
                path=f"$.items[{index}].id",
            )
        texts.append(found)
    return texts
