"""`serve`: the simulator of the service, until interrupted (`--paging list` and `--print-spec`
print instead). Its options are the simulator's own (`add_serve_arguments`); Ctrl-C and SIGTERM
end it as they end any command, with status 130 and 143."""

from __future__ import annotations

import argparse

from remedy_async.simulator import config_from_args, paging_listing, printed_spec, serve

from ._errors import UsageError
from ._terminal import Terminal


async def run_serve(options: argparse.Namespace, terminal: Terminal) -> int:
    """Print the paging conventions or the run's OpenAPI document if asked, else serve."""
    listing = paging_listing(options)
    if listing is not None:
        terminal.stdout.write(listing.encode())
        terminal.stdout.flush()
        return 0
    try:
        config = config_from_args(options)
    except (TypeError, ValueError) as error:
        raise UsageError(str(error), command="remedy-async serve") from None
    document = printed_spec(options, config)
    if document is not None:
        terminal.stdout.write(document)
        terminal.stdout.flush()
        return 0
    await serve(config, until_signal=False)  # ends by Ctrl-C (130) or SIGTERM (143)
    return 0
