"""Draws the live progress display on stderr while a block runs, when someone is watching."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from ._meters import Meter, Meters
from ._terminal import LINE_EVERY, ProgressMode, Terminal, rich_missing, shows_progress

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
    every: float = LINE_EVERY,
) -> Iterator[Say]:
    """Show the meters while the block runs (see `shows_progress`); provides `say`.

    Live with rich, or as a line per unfinished meter every `every` seconds. Without rich,
    `auto` quietly shows nothing live; `always` is a usage error naming the extra.
    """
    kind = shows_progress(mode, terminal, data_on_stdout=data_on_stdout)
    if kind is None:
        yield terminal.say
        return
    if kind == "lines":
        reporting = asyncio.get_running_loop().create_task(_lines(meters, terminal, every))
        try:
            yield terminal.say
        finally:
            reporting.cancel()
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


async def _lines(meters: Meters, terminal: Terminal, every: float) -> None:
    while True:
        await terminal.sleep(every)
        for meter in meters:
            if not meter.finished:
                terminal.say(progress_line(meter))


def progress_line(meter: Meter) -> str:
    """One line of a meter's progress: records, rate and, with a known total, share and ETA."""
    line = f"{meter.name}: {meter.records:,} records, {meter.rate:,.0f}/s"
    if meter.total:
        share = min(meter.records / meter.total, 1.0)
        left = max(meter.total - meter.records, 0)
        eta = f", ETA {_clock(left / meter.rate)}" if meter.rate > 0 else ""
        line += f", {share:.0%} of {meter.total:,}{eta}"
    return line


def _clock(seconds: float) -> str:
    minutes, second = divmod(round(seconds), 60)
    hours, minute = divmod(minutes, 60)
    return f"{hours}:{minute:02}:{second:02}"
