"""The files of an export and the checkpoint that lets an interrupted one continue exactly.

For each resource, an export in DIR writes:

    <resource>.<format>.part        the records so far (renamed to <resource>.<format> when done)
    <resource>.checkpoint.json      how much of the .part file is good, and where to continue

The checkpoint is JSON, replaced atomically (written beside, fsynced, renamed) after each page,
and only after the page's bytes were flushed and fsynced to the .part file:

    {"version": 1, "resource": "endpoints", "format": "jsonl", "pageSize": 1000,
     "records": 3000, "bytes": 1234567, "resumeToken": "r1...."}

`bytes` is the length of the .part file the checkpoint covers: a resumed export truncates the
file to it (dropping whatever a crash left after the last checkpoint) and continues the list
from `resumeToken` (null: from the start), so every record ends up in the file exactly once.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, BinaryIO, Final

import orjson
from attrs import frozen

CHECKPOINT_VERSION: Final = 1
PART_SUFFIX: Final = ".part"


class CheckpointError(ValueError):
    """A checkpoint file that cannot be read back as a checkpoint."""


@frozen
class Checkpoint:
    """How far one resource's export has got: the good length of its file and where to go on."""

    resource: str
    format: str
    page_size: int
    records: int
    length: int
    """Bytes of the .part file this checkpoint covers (`bytes` in the file)."""
    resume_token: str | None = None
    """Continues the list after the last record written; None starts it from the beginning."""

    def to_json(self) -> bytes:
        """Return the checkpoint file's content."""
        return orjson.dumps(
            {
                "version": CHECKPOINT_VERSION,
                "resource": self.resource,
                "format": self.format,
                "pageSize": self.page_size,
                "records": self.records,
                "bytes": self.length,
                "resumeToken": self.resume_token,
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
        return cls(
            resource=_text(document, "resource"),
            format=_text(document, "format"),
            page_size=_count(document, "pageSize", 1),
            records=_count(document, "records", 0),
            length=_count(document, "bytes", 0),
            resume_token=token,
        )


def _text(document: dict[str, Any], key: str) -> str:
    value = document.get(key)
    if not isinstance(value, str) or not value:
        raise CheckpointError(f"{key} must be a non-empty string")
    return value


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
        """Delete the partial state: every .part file and the checkpoint."""
        for path in (*self.parts(formats), self.checkpoint, _beside(self.checkpoint)):
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
