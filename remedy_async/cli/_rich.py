"""Everything the command line draws with rich: the live progress display and tables.

Imported only when something is drawn, so the library and the plain-data commands work
without rich installed.
"""

from __future__ import annotations

import io
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import BinaryIO, TextIO

from rich import box
from rich.console import Console
from rich.live import Live
from rich.progress_bar import ProgressBar
from rich.table import Table
from rich.text import Text

from ._meters import Meter, Meters


def stderr_console(stderr: TextIO, *, force: bool) -> Console:
    """Return a console drawing on stderr; `force` draws as on a terminal even into a pipe."""
    return Console(file=stderr, force_terminal=True if force else None, highlight=False)


class _PipeConsole(Console):
    """A console that reports a closed pipe as BrokenPipeError, as the data commands do.

    (rich's own answer is to exit with status 1.)
    """

    def on_broken_pipe(self) -> None:
        """Stop drawing and let the command end as any reader-gone case does."""
        self.quiet = True
        raise BrokenPipeError


@contextmanager
def stdout_console(stdout: BinaryIO) -> Iterator[Console]:
    """Provide a console writing UTF-8 text to the binary stdout, leaving stdout open.

    Into a pipe or file it draws 100 columns wide rather than rich's 80.
    """
    text = io.TextIOWrapper(stdout, encoding="utf-8", newline="", write_through=True)
    try:
        yield _PipeConsole(file=text, highlight=False, width=None if text.isatty() else 100)
        text.flush()
    finally:
        text.detach()


def _count(meter: Meter) -> str:
    if meter.total is None:
        return f"{meter.records:,}"
    return f"{meter.records:,}/{meter.total:,}"


def _name(meter: Meter) -> Text:
    """The job's name: plain while it runs, green once done, red if it failed."""
    if not meter.finished:
        return Text(meter.name)
    return Text(meter.name, style="red" if meter.failed else "green")


class LiveProgress:
    """Redraws a table of the meters a few times a second until the block ends.

    A job's name turns green when it is done and red when it failed.

    `say` prints a message above the display instead of through it.
    """

    def __init__(self, meters: Meters, console: Console, *, transient: bool) -> None:
        self._meters = meters
        self._live = Live(
            get_renderable=self._render,
            console=console,
            refresh_per_second=8,
            transient=transient,
            redirect_stdout=False,
            redirect_stderr=False,
        )

    def __enter__(self) -> LiveProgress:
        self._live.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._live.stop()

    def say(self, message: str) -> None:
        """Print one message line above the display."""
        self._live.console.print(f"remedy-async: {message}", markup=False, highlight=False)

    def _render(self) -> Table:
        table = Table(box=box.SIMPLE, show_edge=False, pad_edge=False)
        table.add_column("", no_wrap=True)
        table.add_column("progress", min_width=8, max_width=24)
        for heading in ("records", "records/s", "pages", "retries"):
            table.add_column(heading, justify="right", no_wrap=True, min_width=len(heading))
        for meter in self._meters:
            bar = ProgressBar(
                total=meter.total if meter.total else None,
                completed=meter.records,
                width=None,
                pulse=meter.total is None and not meter.finished,
            )
            table.add_row(
                _name(meter),
                bar,
                _count(meter),
                f"{meter.rate:,.0f}",
                f"{meter.pages:,}",
                f"{meter.retries:,}",
            )
        return table


def print_table(
    console: Console,
    columns: Sequence[str],
    rows: Sequence[Sequence[str]],
    *,
    title: str | None = None,
    right: frozenset[str] = frozenset(),
    footer: Sequence[str] | None = None,
) -> None:
    """Print rows as a table, cells as plain text (no markup); `footer` is a totals line."""
    table = Table(title=title, box=box.SIMPLE_HEAVY, show_footer=footer is not None)
    for position, column in enumerate(columns):
        table.add_column(
            column,
            justify="right" if column in right else "left",
            footer=footer[position] if footer is not None else "",
            overflow="fold",
        )
    for row in rows:
        table.add_row(*(Text(cell) for cell in row))
    console.print(table)
