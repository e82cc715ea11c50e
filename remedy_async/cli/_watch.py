"""`watch`: a collection's changes as JSON lines, one pass (`--once`) or a pass every interval.

Each line is `{"kind": "added"|"modified"|"removed", "id": ..., "record": ..., "changed":
[...], "pass": N}` (and `"previous"` with `--keep-records`), the record as the service sent it
(null when removed). The state file (`--state`) remembers what was listed and the pass in
progress: a page's lines are written and flushed before the state commits that page, so a
crash, an error, Ctrl-C or SIGTERM repeats at most the lines of the page in progress, and the
next run continues the pass where it stopped.
"""

from __future__ import annotations

import argparse
import traceback
from typing import Any

from remedy_async import (
    Change,
    ChangeFeed,
    ChangeStateError,
    PassResult,
    RemedyError,
    ResourceCollection,
)

from ._connection import open_client
from ._errors import EXIT_OK, EXIT_PARTIAL, UsageError, describe, in_flags
from ._formats import json_bytes
from ._meters import Meters
from ._progress import progress
from ._server_filters import group_filters, resource_filters
from ._terminal import Terminal


def change_line(change: Change[Any], with_previous: bool) -> bytes:
    """One change as a JSON line."""
    document: dict[str, Any] = {
        "kind": change.kind.value,
        "id": change.id,
        "record": change.record,
        "changed": list(change.changed),
        "pass": change.pass_number,
    }
    if with_previous:
        document["previous"] = change.previous
    return json_bytes(document) + b"\n"


def pass_line(segment: str, result: PassResult) -> str:
    """How a pass went, in one line."""
    how = "complete" if result.complete else "stopped"
    counts = (
        f"{result.listed:,} listed, {result.added:,} added, {result.modified:,} modified, "
        f"{result.removed:,} removed"
    )
    resumed = ", continued" if result.resumed else ""
    return f"{segment}: pass {result.number} ({result.kind}{resumed}) {how}: {counts}"


def _feed(options: argparse.Namespace, collection: ResourceCollection[Any], report: Any) -> Any:
    filters: dict[str, Any] = resource_filters(
        collection.resource, options.filter, options.filter_flags, "watch"
    )
    settings: dict[str, Any] = {
        "keep_records": True if options.keep_records else None,
        "trust_updated_at": options.trust_updated_at,
        "since_filter": options.since_filter,
        "overlap": options.overlap,
        "resync": options.resync,
        "page_size": options.page_size,
        "extra_params": group_filters(options.param) or None,
        **filters,
    }
    try:
        if options.once:
            return collection.changes(options.state, **settings)
        return collection.watch(
            options.state,
            interval=options.interval,
            max_failures=options.max_failures,
            on_pass=report,
            **settings,
        )
    except ValueError as error:
        raise UsageError(in_flags(str(error))) from None


async def run_watch(options: argparse.Namespace, terminal: Terminal) -> int:
    """Write a collection's changes to stdout, pass after pass; see the module's doc."""
    segment = options.resource.segment
    meters = Meters()
    client = open_client(options, terminal.env, [meters.on_event], terminal.transport)
    meter = meters.add(segment, (segment, "list"))

    def report(result: PassResult) -> None:
        if result.error is None:
            terminal.note(pass_line(segment, result))
        else:
            said = describe(result.error, token_sent=options.token_sent)
            terminal.say(f"{pass_line(segment, result)}: {said}; the next pass continues it")

    async with client:
        collection = getattr(client, options.resource.attribute)
        feed: ChangeFeed[dict[str, Any]] = _feed(options, collection, report).as_dicts()
        out = terminal.stdout
        with_previous = bool(options.keep_records)
        try:
            with progress(
                meters,
                options.progress,
                terminal,
                data_on_stdout=True,
                every=options.progress_every,
            ):
                async for batch in feed.batches():
                    out.write(b"".join(change_line(change, with_previous) for change in batch))
                    out.flush()  # before the next batch is asked for, which commits this one
                    meter.add(len(batch))
        except ChangeStateError as error:
            raise UsageError(f"--state {options.state}: {error}") from None
        except RemedyError as error:
            meter.finish(failed=True)
            if options.debug:
                traceback.print_exception(error, file=terminal.stderr)
            if options.once and feed.result is not None:
                report(feed.result)
            else:
                terminal.say(
                    f"{segment}: stopped: {describe(error, token_sent=options.token_sent)}"
                )
            terminal.say("run the same command again to continue where it stopped")
            return EXIT_PARTIAL
    meter.finish()
    if feed.result is not None:
        terminal.note(pass_line(segment, feed.result))
    return EXIT_OK
