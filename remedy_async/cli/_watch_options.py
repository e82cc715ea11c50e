"""The `watch` command's own options: the state, how often passes run, and what they ask for."""

from __future__ import annotations

from ._options import FILTER, argument_type, seconds, whole
from ._tree import Parser


def add_watch_options(watch: Parser) -> None:
    """Add the options of `remedy-async watch` (besides RESOURCE and the filter flags)."""
    add = watch.add_argument
    add("--state", required=True, metavar="FILE", help="the state file, SQLite (required)")
    add("--once", action="store_true", help="run one pass, then exit")
    add(
        "--interval",
        type=argument_type(seconds, "seconds"),
        default=60.0,
        metavar="S",
        help="seconds between passes, give or take a tenth (default: %(default)g)",
    )
    add(
        "--max-failures",
        type=whole(0),
        default=3,
        metavar="N",
        help="failed passes in a row before exiting 3; each is retried (default: %(default)s)",
    )
    add(
        "--page-size",
        type=whole(1),
        metavar="N",
        help="records per page request (default: the service's)",
    )
    add(
        "--keep-records",
        action="store_true",
        help="keep whole records in a new state, to write each change's previous record",
    )
    add(
        "--since-filter",
        metavar="PARAM",
        help="a query parameter taking an RFC 3339 time, e.g. 'updatedAt[gte]': passes between "
        "resyncs ask only for records changed since the last (default: none, full passes)",
    )
    add(
        "--overlap",
        type=argument_type(seconds, "seconds"),
        default=300.0,
        metavar="S",
        help="seconds a narrowed pass reaches back past the last one's start "
        "(default: %(default)g)",
    )
    add(
        "--resync",
        type=argument_type(seconds, "seconds"),
        default=3600.0,
        metavar="S",
        help="seconds between full passes, which find removals (default: %(default)g)",
    )
    add(
        "--filter",
        "-f",
        type=FILTER,
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="server-side filter, repeatable (default: none)",
    )
    add(
        "--param",
        type=FILTER,
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a query parameter sent as is, repeatable (default: none)",
    )
