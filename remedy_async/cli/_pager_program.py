"""The pager program a table goes through on a terminal: `$REMEDY_PAGER`, else `$PAGER`, else
`less -FRX`, as gh and git page their output.

Only a table written to a terminal is paged (`list` on a terminal, or `--format table`):
JSON, CSV, a pipe and `--out-file FILE` never are, nor anything under `--no-pager`. Either
variable set but empty turns paging off, and so does `cat`; the default is used only where
`less` is on the command's PATH. The program is run by the shell (`sh -c`, so `PAGER='less
-S'` works as it does for git), reads the table on its stdin and writes to the terminal.

Writing blocks while the pager holds the screen, so no page is fetched that nobody reads yet.
A pager that exits before the end (the user quits `less`) ends the command there, cleanly,
with status 0: what was not shown was not asked for.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import shutil
import subprocess
from collections.abc import AsyncIterator, Mapping
from typing import IO, BinaryIO, Final, cast

from ._options import DEFAULT_PAGER, PAGER_ENV
from ._terminal import Terminal

PAGER_VARIABLES: Final = (PAGER_ENV, "PAGER")
"""Where the pager is named, first first: a variable that is set (even empty) decides."""
NO_PAGER_COMMANDS: Final = frozenset({"", "cat"})
"""Pager settings that mean writing straight to the terminal."""


def pager_command(env: Mapping[str, str]) -> str | None:
    """The pager's shell command as the environment names it (None: no pager): the first of
    `REMEDY_PAGER` and `PAGER` that is set, else `less -FRX` when `less` is on `PATH`."""
    for name in PAGER_VARIABLES:
        if name in env:
            command = env[name].strip()
            return None if command in NO_PAGER_COMMANDS else command
    path = env.get("PATH")
    if path and shutil.which(DEFAULT_PAGER.split()[0], path=path):
        return DEFAULT_PAGER
    return None


def pager_for(terminal: Terminal, *, table: bool, to_stdout: bool, no_pager: bool) -> str | None:
    """The pager a command's output goes through (None: straight out): for a table written
    to stdout on a terminal, unless `--no-pager`."""
    if no_pager or not (table and to_stdout and terminal.stdout_tty):
        return None
    return pager_command(terminal.env)


def _file_number(stream: BinaryIO) -> int | None:
    """The stream's file descriptor, which the pager writes to (None: the process's stdout)."""
    try:
        return stream.fileno()
    except (AttributeError, io.UnsupportedOperation):
        return None


def _close(pipe: IO[bytes] | None) -> None:
    with contextlib.suppress(BrokenPipeError):
        if pipe is not None:
            pipe.close()


def _start(terminal: Terminal, command: str) -> subprocess.Popen[bytes]:
    """Start the pager by the shell, as git does (so `PAGER='less -S'` works), reading from a
    pipe and writing where the terminal's stdout goes, in the command's environment."""
    return subprocess.Popen(
        command,
        shell=True,
        stdin=subprocess.PIPE,
        stdout=_file_number(terminal.stdout),
        env=dict(terminal.env),
    )


@contextlib.asynccontextmanager
async def paged(terminal: Terminal, command: str | None) -> AsyncIterator[BinaryIO]:
    """Provide where the command writes its output: the pager's stdin while `command` runs
    (None: the terminal's stdout itself), which is closed and waited for after the block.

    The pager exiting before the end (its stdin closed: BrokenPipeError) ends the block's work
    quietly; the command goes on as if its output were complete.
    """
    if command is None:
        yield terminal.stdout
        return
    pager = _start(terminal, command)
    try:
        yield cast(BinaryIO, pager.stdin)
    except BrokenPipeError:
        pass  # the user quit the pager: nothing more is wanted
    finally:
        _close(pager.stdin)
        # Waits for the user to leave the pager (Ctrl-C included: less takes it), so the shell's
        # prompt never comes back while the pager still holds the screen.
        try:
            await asyncio.to_thread(pager.wait)
        except asyncio.CancelledError:
            pager.wait()
            raise
