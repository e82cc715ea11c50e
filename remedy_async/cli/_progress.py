"""Draws the live progress display on stderr while a block runs, when someone is watching."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

from ._meters import Meters
from ._terminal import ProgressMode, Terminal, rich_missing, shows_progress

Say = Callable[[str], None]
"""Prints one message line for the user on stderr (above the progress display, if any)."""


@contextmanager
def progress(
    meters: Meters,
    mode: ProgressMode,
    terminal: Terminal,
    *,
    data_on_stdout: bool,
    transient: bool = False,
) -> Iterator[Say]:
    """Show the meters live while the block runs (see `shows_progress`); provides `say`.

    Without rich, `auto` quietly shows nothing; `always` is a usage error naming the extra.
    """
    if not shows_progress(mode, terminal, data_on_stdout=data_on_stdout):
        yield terminal.say
        return
    try:
        from ._rich import LiveProgress, stderr_console  # noqa: PLC0415 - rich is optional
    except ImportError as error:
        missing = rich_missing(error)
        if mode == "always":
            raise missing from None
        yield terminal.say
        return
    console = stderr_console(terminal.stderr, force=mode == "always")
    with LiveProgress(meters, console, transient=transient) as live:
        yield live.say
