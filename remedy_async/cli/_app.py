"""Runs one command line: parse, dispatch, and turn the outcome into an exit status."""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import signal
import sys
import traceback
from collections.abc import Awaitable, Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import TextIO

from remedy_async.simulator import config_from_args, paging_listing, printed_spec, serve

from ._api import run_api
from ._completion import complete_if_asked, run_completion
from ._demo import run_demo
from ._errors import (
    EXIT_BROKEN_PIPE,
    EXIT_INTERRUPTED,
    EXIT_PARTIAL,
    EXIT_TERMINATED,
    UsageError,
    describe,
    exit_status,
)
from ._export import run_export
from ._parser import build_parser, parse_command_line
from ._probe import run_probe
from ._read import run_get, run_list
from ._service import run_agent_config_download, run_health
from ._terminal import Terminal

Command = Callable[[argparse.Namespace, Terminal], Awaitable[int]]


async def _serve(options: argparse.Namespace, terminal: Terminal) -> int:
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
    await serve(config)
    return 0


COMMANDS: dict[str, Command] = {
    "demo": run_demo,
    "serve": _serve,
    "list": run_list,
    "get": run_get,
    "export": run_export,
    "health": run_health,
    "probe": run_probe,
    "api": run_api,
    "completion": run_completion,
    "agent-config download": run_agent_config_download,
}


@contextmanager
def _debug_log(stream: TextIO, enabled: bool) -> Iterator[None]:
    """Log the library's requests at DEBUG on `stream` while the block runs (credentials
    are redacted by the library)."""
    if not enabled:
        yield
        return
    logger = logging.getLogger("remedy_async")
    handler = logging.StreamHandler(stream)
    handler.setFormatter(logging.Formatter("%(asctime)s %(name)s %(levelname)s %(message)s"))
    level = logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.DEBUG)
    try:
        yield
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)


def _report(error: Exception, terminal: Terminal, debug: bool) -> int:
    if isinstance(error, BrokenPipeError):
        return EXIT_BROKEN_PIPE
    if debug:
        traceback.print_exception(error, file=terminal.stderr)
    command = error.command if isinstance(error, UsageError) else "remedy-async"
    terminal.stderr.write(f"{command}: error: {describe(error)}\n")
    terminal.stderr.flush()
    return exit_status(error)


async def run(argv: Sequence[str], terminal: Terminal) -> int:
    """Run one command line with the given streams; returns the exit status.

    Errors end as one line on stderr (with a traceback under --debug) and their status: 2 for
    usage and configuration, 1 for the service, the network or files. Cancellation passes.
    """
    return await _run(argv, terminal, [])


async def _run(argv: Sequence[str], terminal: Terminal, command: list[str]) -> int:
    """`run`, appending the name of the command, once parsed, to `command`."""
    debug = False
    try:
        options = parse_command_line(argv)
        options.argv = list(argv)
        debug = bool(getattr(options, "debug", False))
        name = options.command
        command.append(name)
        if name == "agent-config":
            name = f"{name} {options.agent_command}"
        with _debug_log(terminal.stderr, debug):
            return await COMMANDS[name](options, terminal)
    except SystemExit as done:  # --help and --version print, then exit
        return done.code if isinstance(done.code, int) else 0
    except Exception as error:
        return _report(error, terminal, debug)


async def run_until_signalled(argv: Sequence[str], terminal: Terminal) -> int:
    """`run`, ended by SIGTERM as by Ctrl-C: the command stops where it is (an export after its
    last checkpoint, saying how to resume) and the status is 3 for an export, else 143."""
    loop = asyncio.get_running_loop()
    task = asyncio.current_task()
    assert task is not None
    terminated: list[bool] = []

    def terminate() -> None:
        terminated.append(True)
        task.cancel()

    try:
        loop.add_signal_handler(signal.SIGTERM, terminate)
    except (NotImplementedError, RuntimeError):  # no signals here (Windows, another thread)
        return await run(argv, terminal)
    command: list[str] = []
    try:
        return await _run(argv, terminal, command)
    except asyncio.CancelledError:
        if not terminated:
            raise
        task.uncancel()
        terminal.say("terminated")
        return EXIT_PARTIAL if command == ["export"] else EXIT_TERMINATED
    finally:
        loop.remove_signal_handler(signal.SIGTERM)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the `remedy-async` command line in this process; returns the exit status."""
    complete_if_asked(build_parser)
    terminal = Terminal.of_process()
    try:
        status = asyncio.run(run_until_signalled(sys.argv[1:] if argv is None else argv, terminal))
    except KeyboardInterrupt:
        terminal.say("interrupted")
        return EXIT_INTERRUPTED
    if status == EXIT_BROKEN_PIPE:
        # The reader left; point stdout at /dev/null so the final flush at exit is quiet.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    return status
