"""Streams a file download to a path (atomically), into a directory, or to a binary file object.

The client sends the request through the sender's `stream` seam; `receive` turns one 2xx
response's body into the file and the `DownloadResult`.
"""

from __future__ import annotations

import asyncio
import hashlib
import os
import re
import warnings
from collections.abc import AsyncIterator
from pathlib import Path
from typing import BinaryIO

import aiohttp
from attrs import evolve, frozen

from ._sending._retry import RetryPolicy
from ._sending._transport import StreamedResponse

CHUNK_SIZE = 64 * 1024
FALLBACK_NAME = "agent-configuration"
"""The file name used in a directory when the service suggests none that is usable."""

Destination = str | os.PathLike[str] | BinaryIO
"""Where a download goes: a file path, an existing directory, or a writable binary file."""

_UNSAFE_FILENAME = re.compile(r"[^A-Za-z0-9._-]")


@frozen
class DownloadResult:
    """What a download wrote: where, how many bytes, and what the service said about it."""

    path: Path | None
    """The file written, or None when the destination was a file object."""
    bytes_written: int
    content_type: str | None
    filename: str | None
    """The file name from Content-Disposition, as the service sent it."""
    etag: str | None
    sha256: str
    """Hex SHA-256 of the bytes written, to compare with a published checksum."""


def safe_filename(name: str | None, fallback: str) -> str:
    """Return a server-suggested name reduced to one harmless path component."""
    base = os.path.basename((name or "").replace("\\", "/")).strip()
    base = _UNSAFE_FILENAME.sub("_", base).lstrip(".")
    return base or fallback


def check_destination(destination: Destination) -> None:
    """Refuse, before any I/O, a path destination whose directory does not exist."""
    if isinstance(destination, str | os.PathLike):
        path = Path(destination)
        if not path.is_dir() and not path.parent.is_dir():
            raise FileNotFoundError(f"cannot download to {path}: {path.parent} is not a directory")


def target_path(destination: str | os.PathLike[str], suggested: str | None, fallback: str) -> Path:
    """Resolve where a download to a path goes: the path, or a safe name inside a directory."""
    path = Path(destination)
    if path.is_dir():
        return path / safe_filename(suggested, fallback)
    return path


async def write_atomically(path: Path, chunks: AsyncIterator[bytes]) -> tuple[int, str]:
    """Write chunks to a temporary file beside `path`, then rename it into place.

    On any failure, cancellation included, the temporary file is removed and `path` is left
    as it was. Returns (bytes written, hex sha256).
    """
    temporary = path.with_name(f".{path.name}.{os.urandom(6).hex()}.part")
    file = await asyncio.to_thread(open, temporary, "xb")
    try:
        with file:
            written, digest = await write_stream(file, chunks)
            await asyncio.to_thread(_flush_to_disk, file)
        await asyncio.to_thread(os.replace, temporary, path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
    return written, digest


def _flush_to_disk(file: BinaryIO) -> None:
    file.flush()
    os.fsync(file.fileno())


async def write_stream(file: BinaryIO, chunks: AsyncIterator[bytes]) -> tuple[int, str]:
    """Write chunks to an open binary file; returns (bytes written, hex sha256).

    Writes run in a worker thread, so a slow disk never stalls the event loop.
    """
    digest = hashlib.sha256()
    written = 0
    async for chunk in chunks:
        await asyncio.to_thread(file.write, chunk)
        digest.update(chunk)
        written += len(chunk)
    return written, digest.hexdigest()


def retry_for(destination: Destination, policy: RetryPolicy) -> RetryPolicy:
    """The retry policy for a download: none to a file object, whose written bytes stay."""
    if isinstance(destination, str | os.PathLike):
        return policy
    return evolve(policy, attempts=1)


async def receive(destination: Destination, response: StreamedResponse) -> DownloadResult:
    """Write a 2xx response's body to the destination and say what was written."""
    filename = _disposition_filename(response.headers.get("Content-Disposition"))
    chunks = response.chunks(CHUNK_SIZE)
    if isinstance(destination, str | os.PathLike):
        target = target_path(destination, filename, FALLBACK_NAME)
        written, digest = await write_atomically(target, chunks)
        path: Path | None = target
    else:
        path = None
        written, digest = await write_stream(destination, chunks)
    return DownloadResult(
        path=path,
        bytes_written=written,
        content_type=response.headers.get("Content-Type"),
        filename=filename,
        etag=response.headers.get("ETag"),
        sha256=digest,
    )


def _disposition_filename(value: str | None) -> str | None:
    if not value:
        return None
    with warnings.catch_warnings():
        # aiohttp warns about a malformed header and returns no parameters; that is a header
        # without a usable name, so the fallback name is used.
        warnings.simplefilter("ignore", aiohttp.multipart.BadContentDispositionHeader)
        _, params = aiohttp.multipart.parse_content_disposition(value)
    return aiohttp.multipart.content_disposition_filename(params, "filename")
