"""The files of an export and the checkpoint that lets an interrupted one continue exactly.

For each resource, an export in DIR writes:

    <resource>.<format>.part        the records so far (renamed to <resource>.<format> when done)
    <resource>.checkpoint.json      how much of the .part file is good, and where to continue

The checkpoint is JSON, replaced atomically (written beside, fsynced, renamed) as pages arrive
(the latest page's, at most every 0.2 s: `Checkpointer`), and only after that page's bytes were
flushed and fsynced to the .part file:

    {"version": 1, "resource": "endpoints", "format": "jsonl", "pageSize": 100,
     "records": 3000, "written": 2990, "bytes": 1234567, "resumeToken": "r1....",
     "filters": [["os_family", "linux"]], "params": [], "where": ["agent_id!=null"],
     "fields": ["id", "hostname"], "query": null, "lineEnd": "\n"}

`bytes` is the length of the .part file the checkpoint covers: a resumed export truncates the
file to it (dropping whatever a crash left after the last checkpoint) and continues the list
from `resumeToken` (null: from the start), so every record ends up in the file exactly once.
`records` counts the records fetched, `written` those in the file (fewer under `--where`: a
record it leaves out still moves the resume token on). The selection (`filters` by keyword
name, `params` from --param, `where`, `fields`, and `query`, the `--query` expression as
given) is fixed when the export starts and kept by a
resume; a checkpoint without it (written before it existed) selected everything. `lineEnd` is
how the CSV rows of the file end; a checkpoint without it began when they ended in `\r\n`, so
a resume goes on with that.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, BinaryIO, Final

import orjson
from attrs import frozen

from ._formats import LINE_END, LINE_ENDS, LineEnd

CHECKPOINT_VERSION: Final = 1
PART_SUFFIX: Final = ".part"


class CheckpointError(ValueError):
    """A checkpoint file that cannot be read back as a checkpoint."""


Pairs = tuple[tuple[str, str], ...]


@frozen
class Selection:
    """What of a collection an export keeps, fixed when it starts: the server-side filters
    (keyword name, value) and other query parameters (`--param`), then the `--where`
    conditions (as `Condition.text` spells them), and `--fields` or `--query`, applied here."""

    filters: Pairs = ()
    params: Pairs = ()
    where: tuple[str, ...] = ()
    fields: tuple[str, ...] = ()
    """Dotted paths, in the order of the output's columns; empty keeps every field."""
    query: str | None = None
    """The `--query` expression each record is written as, as given; None: whole records."""

    def to_json(self) -> dict[str, Any]:
        """The checkpoint's keys for the selection."""
        return {
            "filters": [list(pair) for pair in self.filters],
            "params": [list(pair) for pair in self.params],
            "where": list(self.where),
            "fields": list(self.fields) or None,
            "query": self.query,
        }

    @classmethod
    def from_json(cls, document: dict[str, Any]) -> Selection:
        """Read the selection's keys of a checkpoint; missing ones select everything."""
        return cls(
            filters=_pairs(document, "filters"),
            params=_pairs(document, "params"),
            where=_texts(document, "where"),
            fields=_texts(document, "fields"),
            query=_optional_text(document, "query"),
        )


@frozen
class Checkpoint:
    """How far one resource's export has got: the good length of its file and where to go on."""

    resource: str
    format: str
    page_size: int
    records: int
    """Records fetched so far (those `--where` left out too)."""
    length: int
    """Bytes of the .part file this checkpoint covers (`bytes` in the file)."""
    resume_token: str | None = None
    """Continues the list after the last record fetched; None starts it from the beginning."""
    written: int = 0
    """Records in the file."""
    selection: Selection = Selection()
    line_end: LineEnd = LINE_END
    """How the file's CSV rows end: `\n`, or `\r\n` for an export begun before that."""

    def to_json(self) -> bytes:
        """Return the checkpoint file's content."""
        return orjson.dumps(
            {
                "version": CHECKPOINT_VERSION,
                "resource": self.resource,
                "format": self.format,
                "pageSize": self.page_size,
                "records": self.records,
                "written": self.written,
                "bytes": self.length,
                "resumeToken": self.resume_token,
                **self.selection.to_json(),
                "lineEnd": self.line_end,
            },
            option=orjson.OPT_APPEND_NEWLINE,
        )

    @classmethod
    def from_json(cls, data: bytes) -> Checkpoint:
        """Read a checkpoint file's content; CheckpointError says what is wrong with it."""
        try:
            document = orjson.loads(data)
        except orjson.JSONDecodeError as error:
            raise CheckpointError(f"not JSON ({error})") from None
        if not isinstance(document, dict):
            raise CheckpointError("not a JSON object")
        if document.get("version") != CHECKPOINT_VERSION:
            raise CheckpointError(f"unknown version {document.get('version')!r}")
        token = document.get("resumeToken")
        if token is not None and not isinstance(token, str):
            raise CheckpointError("resumeToken must be a string or null")
        records = _count(document, "records", 0)
        return cls(
            resource=_text(document, "resource"),
            format=_text(document, "format"),
            page_size=_count(document, "pageSize", 1),
            records=records,
            length=_count(document, "bytes", 0),
            resume_token=token,
            written=_count(document, "written", 0) if "written" in document else records,
            selection=Selection.from_json(document),
            line_end=_line_end(document),
        )


def _line_end(document: dict[str, Any]) -> LineEnd:
    value = document.get("lineEnd", "\r\n")  # written before rows ended in \n
    for line_end in LINE_ENDS:
        if value == line_end:
            return line_end
    raise CheckpointError('lineEnd must be "\\n" or "\\r\\n"')


def _text(document: dict[str, Any], key: str) -> str:
    value = document.get(key)
    if not isinstance(value, str) or not value:
        raise CheckpointError(f"{key} must be a non-empty string")
    return value


def _texts(document: dict[str, Any], key: str) -> tuple[str, ...]:
    value = document.get(key) or []
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise CheckpointError(f"{key} must be a list of strings or null")
    return tuple(value)


def _optional_text(document: dict[str, Any], key: str) -> str | None:
    value = document.get(key)
    if value is not None and not isinstance(value, str):
        raise CheckpointError(f"{key} must be a string or null")
    return value


def _pairs(document: dict[str, Any], key: str) -> Pairs:
    value = document.get(key) or []
    if not isinstance(value, list) or not all(
        isinstance(pair, list) and len(pair) == 2 and all(isinstance(p, str) for p in pair)
        for pair in value
    ):
        raise CheckpointError(f"{key} must be a list of [name, value] pairs of strings")
    return tuple((name, text) for name, text in value)


def _count(document: dict[str, Any], key: str, minimum: int) -> int:
    value = document.get(key)
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise CheckpointError(f"{key} must be an integer >= {minimum}")
    return value


@frozen
class ExportFiles:
    """Where one resource's export lives in the output directory."""

    directory: Path
    resource: str

    @property
    def checkpoint(self) -> Path:
        """The checkpoint sidecar."""
        return self.directory / f"{self.resource}.checkpoint.json"

    def final(self, file_format: str) -> Path:
        """The finished file."""
        return self.directory / f"{self.resource}.{file_format}"

    def part(self, file_format: str) -> Path:
        """The file being written."""
        return self.directory / f"{self.resource}.{file_format}{PART_SUFFIX}"

    def parts(self, formats: tuple[str, ...]) -> list[Path]:
        """The partial files of any format that exist."""
        return [self.part(name) for name in formats if self.part(name).exists()]

    def discard(self, formats: tuple[str, ...]) -> None:
        """Delete the partial state: every .part file, the checkpoint, and a file being
        written beside them (a Parquet export's `.parquet.tmp`)."""
        beside = [_beside(self.final(name)) for name in formats]
        for path in (*self.parts(formats), self.checkpoint, _beside(self.checkpoint), *beside):
            path.unlink(missing_ok=True)


def _beside(path: Path) -> Path:
    return path.with_name(path.name + ".tmp")


def fsync_directory(directory: Path) -> None:
    """Make renames and new files in `directory` durable (POSIX; Windows cannot open one)."""
    if os.name == "nt":
        return
    descriptor = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


@contextmanager
def atomic_file(path: Path) -> Iterator[BinaryIO]:
    """A file to write that replaces `path` atomically and durably once the block succeeds; a
    reader sees the old content or the new, whole, and a failed block leaves nothing behind."""
    temporary = _beside(path)
    try:
        with open(temporary, "wb") as file:
            yield file
            file.flush()
            os.fsync(file.fileno())
        os.replace(temporary, path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
    fsync_directory(path.parent)


def replace_file(path: Path, data: bytes) -> None:
    """Write a file atomically and durably: a reader sees the old content or the new, whole."""
    with atomic_file(path) as file:
        file.write(data)


def write_checkpoint(path: Path, checkpoint: Checkpoint) -> None:
    """Replace the checkpoint file atomically: a reader sees the old one or the new one."""
    replace_file(path, checkpoint.to_json())


def read_checkpoint(path: Path) -> Checkpoint | None:
    """Return the checkpoint at `path`, None if there is none; CheckpointError if unreadable."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return None
    try:
        return Checkpoint.from_json(data)
    except CheckpointError as error:
        raise CheckpointError(f"{path}: {error}") from None


# Checkpoints made durable beside the export, never ahead of the bytes they cover --------------
#
# Each page's bytes are written to the `.part` file as the page arrives; making them durable (an
# fsync, then the checkpoint replaced atomically) runs in a thread while the next page is
# fetched. One save runs at a time, at most one every `interval` seconds (0.2 by default): pages
# arriving meanwhile are covered by the next save, of the latest page's checkpoint, made when
# the interval is over or by `settle()` at the end. So an export never waits for the disk page
# by page, a stop loses at most that much progress (a resume truncates the file to the saved
# checkpoint: nothing is repeated or skipped), and a checkpoint never claims bytes that were not
# fsynced first.

SaveCheckpoint = Callable[[Path, Checkpoint], None]


class Checkpointer:
    """Saves the latest checkpoint of one export in the background, one save at a time."""

    def __init__(
        self,
        file: BinaryIO,
        path: Path,
        save: Callable[[], SaveCheckpoint],
        *,
        interval: float = 0.2,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._file = file
        self._path = path
        self._save_with = save
        self._interval = interval
        self._clock = clock
        self._started = -interval
        self._task: asyncio.Future[None] | None = None
        self._timer: asyncio.TimerHandle | None = None
        self._latest: Checkpoint | None = None
        self._saved: Checkpoint | None = None

    def note(self, checkpoint: Checkpoint) -> None:
        """Take the checkpoint after a page whose bytes were just written: save it now, or
        with a later one once the running save and the interval are over."""
        self._file.flush()
        self._latest = checkpoint
        if self._task is not None:
            if not self._task.done():
                return
            self._task.result()  # a failed save fails the export here
        wait = self._started + self._interval - self._clock()
        if wait <= 0:
            self._start()
        elif self._timer is None:
            self._timer = asyncio.get_running_loop().call_later(wait, self._start)

    def _start(self) -> None:
        """Save the latest checkpoint in a thread, unless a save runs or it is saved."""
        self._timer = None
        task = self._task
        if task is not None and (not task.done() or task.cancelled() or task.exception()):
            return  # running, or failed: note() or settle() raises its error
        latest = self._latest
        if latest is None or latest is self._saved:
            return
        self._started = self._clock()
        self._task = asyncio.ensure_future(asyncio.to_thread(self._save, latest))

    def _save(self, checkpoint: Checkpoint) -> None:
        os.fsync(self._file.fileno())
        self._save_with()(self._path, checkpoint)
        self._saved = checkpoint

    async def settle(self) -> None:
        """Wait for the running save, then save the latest checkpoint if it is not yet."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self._task is not None:
            task, self._task = self._task, None
            await task
        latest = self._latest
        if latest is not None and latest is not self._saved:
            self._file.flush()
            await asyncio.to_thread(self._save, latest)
