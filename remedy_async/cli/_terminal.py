"""Where a command reads and writes, and what it knows about the terminal it runs in.

Data goes to `stdout` (binary: records are written as the bytes orjson makes); progress and
messages go to `stderr`. rich is an optional dependency (the `cli` extra), imported only when
a table or a progress display is actually drawn.
"""

from __future__ import annotations

import asyncio
import os
import sys
import time
from collections.abc import Awaitable, Callable, Mapping
from typing import BinaryIO, Literal, TextIO

from attrs import frozen

from remedy_async import Transport

from ._errors import UsageError

ProgressMode = Literal["auto", "always", "lines", "never"]
PROGRESS_MODES: tuple[ProgressMode, ...] = ("auto", "always", "lines", "never")
ProgressKind = Literal["live", "lines"]
LINE_EVERY = 10.0
"""Seconds between progress lines when stderr is not a terminal (`--progress-every`)."""

INSTALL_HINT = "this needs rich; install the command-line extra: pip install 'remedy-async[cli]'"


@frozen
class Terminal:
    """The streams and environment a command runs with: the process's own, or a test's."""

    stdout: BinaryIO
    stderr: TextIO
    stdin: TextIO
    env: Mapping[str, str]
    stdout_tty: bool = False
    stderr_tty: bool = False
    quiet: bool = False
    """Whether only errors go to stderr (`--quiet`): no progress, no `note`."""
    clock: Callable[[], float] = time.perf_counter
    """Where progress reads the time (rates, ETAs): a test passes its own clock."""
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep
    """How progress waits between its lines: a test passes one that waits no real time."""
    transport: Transport | None = None
    """What every request is sent through: None for the network (proxies and all); a test
    passes a `MockTransport`, so the command runs with no socket."""

    @classmethod
    def of_process(cls) -> Terminal:
        """Return the process's standard streams and environment."""
        return cls(
            stdout=sys.stdout.buffer,
            stderr=sys.stderr,
            stdin=sys.stdin,
            env=os.environ,
            stdout_tty=sys.stdout.isatty(),
            stderr_tty=sys.stderr.isatty(),
        )

    def say(self, message: str) -> None:
        """Write one line for the user on stderr: an error, or what to do about one."""
        self.stderr.write(f"remedy-async: {message}\n")
        self.stderr.flush()

    def note(self, message: str) -> None:
        """Write one line saying what was done (a summary) on stderr, unless `--quiet`."""
        if not self.quiet:
            self.say(message)


def shows_progress(
    mode: ProgressMode, terminal: Terminal, *, data_on_stdout: bool
) -> ProgressKind | None:
    """Decide how to show progress on stderr: a live display, a line now and then, or not.

    Nothing under `--quiet`. `auto` draws the live display only for a person watching: stderr
    is a terminal, `CI` is unset, and the data is not going to that same terminal (the display
    would be drawn over it). When stderr is not a terminal (a log file, cron, CI) it writes
    lines instead.
    """
    if terminal.quiet:
        return None
    if mode == "always":
        return "live"
    if mode != "auto":
        return "lines" if mode == "lines" else None
    if not terminal.stderr_tty:
        return "lines"
    if terminal.env.get("CI"):
        return "lines"
    return None if data_on_stdout and terminal.stdout_tty else "live"


def rich_missing(error: ImportError) -> UsageError:
    """Turn the failed import of rich into the usage error that says how to install it.

    Re-raises any other import error, which would be a bug rather than a missing extra.
    """
    if error.name is None or error.name.partition(".")[0] != "rich":
        raise error
    return UsageError(INSTALL_HINT)
