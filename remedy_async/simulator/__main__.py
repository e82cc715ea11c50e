"""Serves the simulator from a shell until SIGINT or SIGTERM.

    python -m remedy_async.simulator --size 1000 --paging offset --fault http-503:0.1:list:*
    python -m remedy_async.simulator --paging list      # the paging conventions it can speak
    python -m remedy_async.simulator --paging offset --print-spec   # that run's OpenAPI document

Prints `Remedy simulator listening on http://HOST:PORT` once it accepts connections.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Sequence

from ._arguments import command_line, config_from_args, paging_listing, printed_spec, serve


def main(argv: Sequence[str] | None = None) -> int:
    """Parse options, serve until interrupted, and return the exit status."""
    parser = command_line()
    ns = parser.parse_args(argv)
    listing = paging_listing(ns)
    if listing is not None:
        sys.stdout.write(listing)
        return 0
    try:
        config = config_from_args(ns)
    except (TypeError, ValueError) as error:
        parser.error(str(error))
    document = printed_spec(ns, config)
    if document is not None:
        sys.stdout.buffer.write(document)
        sys.stdout.flush()
        return 0
    asyncio.run(serve(config))
    return 0


if __name__ == "__main__":
    sys.exit(main())
