"""Tables on a terminal go through `$REMEDY_PAGER`, else `$PAGER`, else `less -FRX`, as gh and git
page theirs; never into a pipe, a file or JSON, nor under `--no-pager`. The terminal is the
`Terminal`'s flag in this process, and a real pseudo-terminal for the command as a process."""

from __future__ import annotations

import asyncio
import io
import os
import pty
import stat
from pathlib import Path

import pytest

from remedy_async.cli import Terminal
from remedy_async.cli._pager_program import pager_command, pager_for
from remedy_async.simulator import Simulator
from tests.published import dataset

from .conftest import COMMAND, SMALL, Published, clean_env

PATH = os.environ["PATH"]


def _terminal(env: dict[str, str], *, tty: bool = True) -> Terminal:
    return Terminal(
        stdout=io.BytesIO(), stderr=io.StringIO(), stdin=io.StringIO(), env=env, stdout_tty=tty
    )


@pytest.mark.parametrize(
    ("env", "command"),
    [
        ({"REMEDY_PAGER": "more", "PAGER": "less -S"}, "more"),
        ({"PAGER": "less -S"}, "less -S"),
        ({"REMEDY_PAGER": "", "PAGER": "less -S"}, None),
        ({"PAGER": ""}, None),
        ({"PAGER": " cat "}, None),
        ({}, None),
    ],
    ids=["remedy-first", "pager", "remedy-empty", "pager-empty", "cat", "no-path"],
)
def test_the_pager_is_named_by_the_environment(env: dict[str, str], command: str | None) -> None:
    """REMEDY_PAGER before PAGER; either set empty (or to cat) means none; with neither set
    and no PATH to find less on, none."""
    assert pager_command(env) == command


def test_less_is_the_default_where_the_path_has_it(tmp_path: Path) -> None:
    """With neither variable set, `less -FRX` when less is on the command's PATH."""
    less = tmp_path / "less"
    less.write_text("#!/bin/sh\n")
    less.chmod(less.stat().st_mode | stat.S_IXUSR)
    assert pager_command({"PATH": str(tmp_path)}) == "less -FRX"
    assert pager_command({"PATH": str(tmp_path / "elsewhere")}) is None


@pytest.mark.parametrize(
    ("table", "to_stdout", "tty", "no_pager", "paged"),
    [
        (True, True, True, False, True),
        (False, True, True, False, False),
        (True, False, True, False, False),
        (True, True, False, False, False),
        (True, True, True, True, False),
    ],
    ids=["table-on-terminal", "not-a-table", "to-a-file", "into-a-pipe", "no-pager"],
)
def test_only_a_table_written_to_a_terminal_is_paged(
    table: bool, to_stdout: bool, tty: bool, no_pager: bool, paged: bool
) -> None:
    """A table, to stdout, a terminal there, and no --no-pager: all four, or no pager."""
    terminal = _terminal({"PAGER": "more"}, tty=tty)
    chosen = pager_for(terminal, table=table, to_stdout=to_stdout, no_pager=no_pager)
    assert chosen == ("more" if paged else None)


async def test_a_table_on_a_terminal_goes_through_the_pager(
    published: Published, tmp_path: Path
) -> None:
    """`list` on a terminal runs $PAGER by the shell and writes the table to it, not stdout."""
    seen = tmp_path / "paged"
    outcome = await published.run(
        "list", "scopes", "--base-url", published.url, stdout_tty=True,
        env={"PATH": PATH, "PAGER": f"cat > '{seen}'"},
    )  # fmt: skip
    assert (outcome.code, outcome.stdout, outcome.stderr) == (0, b"", "")
    lines = seen.read_text().splitlines()
    assert lines[0].split() == ["id", "name", "status", "description"]
    assert lines[-1] == f"{published.count('scopes')} record(s)"


@pytest.mark.parametrize(
    "where", [("list", "--no-pager"), ("--no-pager", "list")], ids=["after", "before"]
)
async def test_no_pager_writes_the_table_to_stdout(
    published: Published, tmp_path: Path, where: tuple[str, str]
) -> None:
    """--no-pager (before the command, as git takes it, or after) skips the pager."""
    seen = tmp_path / "paged"
    first, second = where
    outcome = await published.run(
        first, second, "scopes", "--base-url", published.url, stdout_tty=True,
        env={"PATH": PATH, "PAGER": f"cat > '{seen}'"},
    )  # fmt: skip
    assert outcome.code == 0, outcome.stderr
    assert outcome.stdout.decode().splitlines()[-1] == f"{published.count('scopes')} record(s)"
    assert not seen.exists()


async def test_json_on_a_terminal_is_not_paged(published: Published, tmp_path: Path) -> None:
    """Only tables are paged: --format jsonl on a terminal goes straight to stdout."""
    seen = tmp_path / "paged"
    outcome = await published.run(
        "get", "scopes", published.ids("scopes")[0], "--base-url", published.url,
        stdout_tty=True, env={"PATH": PATH, "PAGER": f"cat > '{seen}'"},
    )  # fmt: skip
    assert outcome.code == 0, outcome.stderr
    assert [record["id"] for record in outcome.jsonl()] == published.ids("scopes")[:1]
    assert not seen.exists()


async def test_get_pages_a_table_too(published: Published, tmp_path: Path) -> None:
    """`get --format table` on a terminal goes through the pager as `list` does."""
    seen = tmp_path / "paged"
    ids = published.ids("scopes")[:2]
    outcome = await published.run(
        "get", "scopes", *ids, "--base-url", published.url, "--format", "table",
        stdout_tty=True, env={"PATH": PATH, "PAGER": f"cat > '{seen}'"},
    )  # fmt: skip
    assert (outcome.code, outcome.stdout) == (0, b""), outcome.stderr
    assert seen.read_text().splitlines()[-1] == "2 record(s)"


async def test_quitting_the_pager_early_ends_the_command_cleanly(tmp_path: Path) -> None:
    """A pager that exits after the first bytes (the user quits less) ends the list there:
    status 0, nothing on stderr (no BrokenPipe traceback), nothing on stdout."""
    service = Published(dataset(3, SMALL | {"endpoints": 2000}))
    seen = tmp_path / "paged"
    outcome = await service.run(
        "list", "endpoints", "--base-url", service.url, stdout_tty=True,
        env={"PATH": PATH, "PAGER": f"head -c 100 > '{seen}'"},
    )  # fmt: skip
    assert (outcome.code, outcome.stdout, outcome.stderr) == (0, b"", "")
    assert seen.read_bytes().startswith(b"id ")
    assert len(seen.read_bytes()) == 100


def _read_all(master: int) -> bytes:
    """Everything written to a pseudo-terminal until its last writer closes it."""
    chunks = []
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # EIO: the other end is closed
            break
        if not chunk:
            break
        chunks.append(chunk)
    return b"".join(chunks)


async def _on_a_terminal(*args: str, env: dict[str, str]) -> tuple[int, bytes, str]:
    """Run the command as a process whose stdout is a pseudo-terminal: status, what reached
    the terminal, stderr."""
    master, slave = pty.openpty()
    try:
        process = await asyncio.create_subprocess_exec(
            *COMMAND,
            *args,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=slave,
            stderr=asyncio.subprocess.PIPE,
            env=env,
        )
        os.close(slave)
        slave = -1
        shown = asyncio.create_task(asyncio.to_thread(_read_all, master))
        _, stderr = await asyncio.wait_for(process.communicate(), timeout=60)
        return process.returncode or 0, await shown, stderr.decode()
    finally:
        if slave != -1:
            os.close(slave)
        os.close(master)


async def test_the_command_on_a_real_terminal_pages_its_table(
    simulator: Simulator, tmp_path: Path
) -> None:
    """As a process on a pseudo-terminal: the table goes to $PAGER, nothing to the terminal;
    REMEDY_PAGER set empty writes it to the terminal itself."""
    seen = tmp_path / "paged"
    args = ("list", "scopes", "--base-url", simulator.url)
    paged = await _on_a_terminal(*args, env=clean_env(PAGER=f"cat > '{seen}'"))
    straight = await _on_a_terminal(*args, env=clean_env(PAGER="cat > /dev/null", REMEDY_PAGER=""))
    count = len(list(simulator.dataset.ids("scopes")))
    assert paged[0] == 0, paged[2]
    assert paged[1] == b""
    assert seen.read_text().splitlines()[-1] == f"{count} record(s)"
    assert straight[0] == 0, straight[2]
    assert straight[1].decode().splitlines()[-1] == f"{count} record(s)"
