"""Runs one command line: parse, dispatch, and turn the outcome into an exit status.

Parsing needs only the grammar (`_parser`); a command's module, and with it the client,
aiohttp, the simulator or rich, is imported once the line has chosen it (`COMMANDS`), so
`--help`, `--version` and usage errors pay for none of them.
"""

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
from importlib import import_module
from typing import Final, TextIO, cast

from attrs import evolve

from ._completion import complete_if_asked
from ._errors import (
    EXIT_BROKEN_PIPE,
    EXIT_INTERRUPTED,
    EXIT_PARTIAL,
    EXIT_TERMINATED,
    TOKEN_SENT,
    UsageError,
    describe,
    exit_status,
)
from ._options import LOG_ENV
from ._parser import parse_command_line, whole_parser
from ._terminal import Terminal

Command = Callable[[argparse.Namespace, Terminal], Awaitable[int]]


COMMANDS: Final[dict[str, tuple[str, str]]] = {
    "demo": ("_demo", "run_demo"),
    "serve": ("_serve", "run_serve"),
    "list": ("_read", "run_list"),
    "get": ("_read", "run_get"),
    "export": ("_export_command", "run_export_command"),
    "watch": ("_watch", "run_watch"),
    "health": ("_service", "run_health"),
    "probe": ("_probe", "run_probe"),
    "api": ("_service", "run_api"),
    "completion": ("_completion", "run_completion"),
    "agent-config download": ("_service", "run_agent_config_download"),
}
"""Each command, by its name on the command line: the module of this package that runs it,
and its function there, imported only when the command runs."""


def command_named(name: str) -> Command:
    """The function that runs the command `name`, its module imported now."""
    module, function = COMMANDS[name]
    return cast(Command, getattr(import_module(f"{__package__}.{module}"), function))


@contextmanager
def _debug_log(stream: TextIO, enabled: bool) -> Iterator[None]:
    """Log the library's requests at DEBUG on `stream` while the block runs (credentials
    are redacted by the library), with `REMEDY_LOG=debug` set for the process meanwhile.

    The variable is the library's own switch, read when a client is built: set before the
    command builds one, it tells the library (and any process the command starts, such as
    Ray's workers) to log at DEBUG; the handler here is already on the library's logger, so
    the library adds none of its own and each line is written once, on the command's stderr.
    """
    if not enabled:
        yield
        return
    logger = logging.getLogger("remedy_async")
    handler = logging.StreamHandler(stream)
    handler.setFormatter(logging.Formatter("%(asctime)s %(name)s %(levelname)s %(message)s"))
    level = logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.DEBUG)
    switch = os.environ.get(LOG_ENV)
    os.environ[LOG_ENV] = "debug"
    try:
        yield
    finally:
        if switch is None:
            os.environ.pop(LOG_ENV, None)
        else:
            os.environ[LOG_ENV] = switch
        logger.removeHandler(handler)
        logger.setLevel(level)


def _report(error: Exception, terminal: Terminal, options: argparse.Namespace) -> int:
    if isinstance(error, BrokenPipeError):
        return EXIT_BROKEN_PIPE
    if getattr(options, "debug", False):
        traceback.print_exception(error, file=terminal.stderr)
    command = error.command if isinstance(error, UsageError) else "remedy-async"
    said = describe(error, token_sent=getattr(options, TOKEN_SENT, None))
    terminal.stderr.write(f"{command}: error: {said}\n")
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
    options = argparse.Namespace()
    try:
        options = parse_command_line(argv)
        options.argv = list(argv)
        name = options.command
        command.append(name)
        if name == "agent-config":
            name = f"{name} {options.agent_command}"
        if getattr(options, "quiet", False):
            terminal = evolve(terminal, quiet=True)
        with _debug_log(terminal.stderr, bool(getattr(options, "debug", False))):
            return await command_named(name)(options, terminal)
    except SystemExit as done:  # --help and --version print, then exit
        return done.code if isinstance(done.code, int) else 0
    except Exception as error:
        return _report(error, terminal, options)


async def run_until_signalled(argv: Sequence[str], terminal: Terminal) -> int:
    """`run`, ended by SIGTERM as by Ctrl-C: the command stops where it is (an export after its
    last checkpoint, saying how to resume; a watch after its last commit) and the status is 3
    for an export or a watch, else 143."""
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
        return EXIT_PARTIAL if command in (["export"], ["watch"]) else EXIT_TERMINATED
    finally:
        loop.remove_signal_handler(signal.SIGTERM)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the `remedy-async` command line in this process; returns the exit status."""
    complete_if_asked(whole_parser)
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
