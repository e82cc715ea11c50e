"""`list` and `get`: records of one collection, written to stdout in the chosen format (a
table on a terminal through the pager program, `_pager_program`).

A list that `--max-items` stops before its end says on stderr how to go on, as aws prints its
`NextToken`: `remedy-async: stopped at --max-items N; to continue: --starting-token TOKEN`
(the token last, alone in its word). A list that fails after writing records says the same
with the number written. stdout holds only records, so a pipeline never reads the token.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager, aclosing
from typing import Any, TextIO

from remedy_async import Pager, RemedyError, ResourceCollection, to_wire

from ._connection import open_client
from ._errors import EXIT_FAILURE, EXIT_OK, UsageError, describe, in_flags
from ._fields import SeenCheck, parse_fields
from ._meters import Meter, Meters
from ._options import CONTRACT_NAMING
from ._pager_program import paged, pager_for
from ._progress import Say, progress
from ._server_filters import group_filters, resource_filters
from ._sinks import Sink, format_for, output
from ._terminal import Terminal
from ._where import Condition, FirstPageNote, check_conditions, keep, where_paths


def seen_check(options: argparse.Namespace, where: Sequence[Condition] = ()) -> SeenCheck:
    """The check of the `--fields` and `--where` paths that the records must show."""
    resource = options.resource
    fields = parse_fields(options.fields, resource) if options.fields else ()
    given = [(path, f"--fields {path}") for path in fields]
    return SeenCheck(resource, [*given, *where_paths(where)])


async def run_list(options: argparse.Namespace, terminal: Terminal) -> int:
    """Stream the records matching the filters to stdout, page by page.

    `--max-items N` caps the records written, as `gh --limit` and `aws --max-items` cap their
    output: with `--where`, pages are fetched until N records met it (or the list ended).
    Stopped by it before the end, the list says on stderr how to continue (`--starting-token`).
    """
    resource = options.resource
    options.where = check_conditions(resource, options.where)
    seen = seen_check(options, options.where)
    unmet = FirstPageNote(resource.segment, options.where, terminal.note)
    meters = Meters(terminal.clock)
    async with open_client(options, terminal.env, [meters.on_event], terminal.transport) as client:
        collection: ResourceCollection[Any] = getattr(client, resource.attribute)
        filters: dict[str, Any] = resource_filters(resource, options.filter, options.filter_flags)
        try:
            pager = collection.list(
                page_size=options.page_size,
                # Without --where, every record fetched is written: the pager stops fetching
                # at the cap. With it, only the records written count (`_write_pages`).
                max_items=None if options.where else options.max_items,
                concurrency=options.concurrency,
                resume_token=options.starting_token,
                extra_params=group_filters(options.param),
                **filters,
            )
        except (TypeError, ValueError) as error:
            # The library checks a token before any request: for this collection, these
            # filters and this paging, and well-formed (the message names its argument).
            said = in_flags(str(error)).replace("resume_token ", "--starting-token ")
            raise UsageError(said) from None
        meter = meters.add(resource.segment, (resource.segment, "list"))
        written = Written()
        try:
            async with paged(terminal, pager_program_of(options, terminal)) as stdout:
                with (
                    shown(meters, options, terminal),
                    output(
                        options,
                        resource,
                        stdout,
                        stdout_tty=terminal.stdout_tty,
                        note=terminal.note,
                    ) as sink,
                ):
                    try:
                        await _write_pages(pager, sink, meter, options, seen, written, unmet)
                    finally:
                        meter.finish()
        except RemedyError as error:
            if written.records and error.resume_token is not None:
                terminal.say(
                    f"stopped after {written.records:,} records; to continue: "
                    f"--starting-token {error.resume_token}"
                )
            raise
    if written.token is not None:
        terminal.say(
            f"stopped at --max-items {options.max_items}; to continue: "
            f"--starting-token {written.token}"
        )
    return EXIT_OK


def pager_program_of(options: argparse.Namespace, terminal: Terminal) -> str | None:
    """The pager program the command's output goes through (None: straight to stdout)."""
    return pager_for(
        terminal,
        table=format_for(options, stdout_tty=terminal.stdout_tty) == "table",
        to_stdout=options.out_file in (None, "-"),
        no_pager=options.no_pager,
    )


class Written:
    """What a list wrote: how many records, and the token continuing right after the last one
    when `--max-items` stopped it before the list's end (None otherwise)."""

    def __init__(self) -> None:
        self.records = 0
        self.token: str | None = None


def _expected(total: int | None, where: Sequence[Condition], max_items: int | None) -> int | None:
    """How many records a list will fetch, when its total is known: all of them, or
    `--max-items` when fewer and nothing is left out (with `--where`, the cap counts only
    the records meeting it, so the whole list is the most it may fetch)."""
    if total is None or max_items is None or where:
        return total
    return min(total, max_items)


async def _write_pages(
    pager: Pager[Any],
    sink: Sink,
    meter: Meter,
    options: argparse.Namespace,
    seen: SeenCheck,
    written: Written,
    unmet: FirstPageNote,
) -> None:
    """Write the records of each page meeting `--where` until `--max-items` are written; the
    meter counts the records fetched, and learns the list's size when a page announces it.
    Records are written in the contract's spelling (snake_case), whatever the service's;
    `seen` checks the first records for the fields the paths name beyond the published ones,
    and `unmet` notes a condition none of them meets. Stopped by the cap, `written.token`
    continues right after the last record written."""
    where: Sequence[Condition] = options.where
    max_items: int | None = options.max_items
    if max_items == 0:
        return
    async with aclosing(pager.pages()) as pages:
        async for page in pages:
            records = [to_wire(record, CONTRACT_NAMING) for record in page.items]
            seen.check(records)
            unmet.check(records)
            kept = keep(records, where) if where else records
            full = max_items is not None and len(kept) >= max_items - written.records
            if full:
                assert max_items is not None
                kept = kept[: max_items - written.records]
            sink.write(kept)
            written.records += len(kept)
            meter.add(len(page.items), total=_expected(page.total, where, max_items))
            if full:
                last = kept[-1]
                handled = next(at for at, record in enumerate(records, 1) if record is last)
                written.token = page.resume_token_after(handled)
                return


def shown(
    meters: Meters, options: argparse.Namespace, terminal: Terminal
) -> AbstractContextManager[Say]:
    """The progress of a command whose data goes to stdout, as its options ask."""
    return progress(
        meters,
        options.progress,
        terminal,
        data_on_stdout=True,
        transient=True,
        every=options.progress_every,
    )


def _stdin_ids(stdin: TextIO) -> Iterator[str]:
    for line in stdin:
        text = line.strip()
        if text:
            yield text


async def run_get(options: argparse.Namespace, terminal: Terminal) -> int:
    """Fetch records by id concurrently and write them in input order.

    Each id that cannot be fetched (unknown, invalid, or failing after retries) gets one error
    line on stderr; the others are still written, and the status is 1 at the end.
    """
    resource = options.resource
    seen = seen_check(options)
    ids = _stdin_ids(terminal.stdin) if options.ids == ["-"] else options.ids
    meters = Meters(terminal.clock)
    failures = 0
    async with open_client(options, terminal.env, [meters.on_event], terminal.transport) as client:
        collection: ResourceCollection[Any] = getattr(client, resource.attribute)
        meter = meters.add(resource.segment, (resource.segment, "get"))
        async with paged(terminal, pager_program_of(options, terminal)) as stdout:
            with (
                shown(meters, options, terminal) as say,
                output(options, resource, stdout) as sink,
            ):
                try:
                    async for result in collection.get_many(ids, concurrency=options.concurrency):
                        if result.error is None:
                            record = to_wire(result.value, CONTRACT_NAMING)
                            seen.check([record])
                            sink.write([record])
                            meter.add(1, pages=0)
                        else:
                            failures += 1
                            meter.errors += 1
                            said = describe(result.error, token_sent=options.token_sent)
                            say(f"{resource.segment}/{result.id}: {said}")
                finally:
                    meter.finish()
    return EXIT_FAILURE if failures else EXIT_OK
