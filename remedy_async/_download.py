"""Streams a file download to a path (atomically), into a directory, or to a binary file object.

`download` sends the request through the sender's `stream` seam; `receive` turns one 2xx
response's body into the file and the `DownloadResult`.
"""

from __future__ import annotations

import asyncio
import hashlib
import os
import re
import warnings
from collections.abc import AsyncIterator, Awaitable, Mapping
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO, Protocol

import aiohttp
from attrs import evolve, frozen

from ._errors import APIStatusError
from ._sending._retry import RetryPolicy
from ._sending._sender import NOT_MODIFIED, Sender
from ._sending._transport import StreamedResponse
from ._settings import RequestOptions
from ._wire._http import REQUEST_ID_HEADER, AttemptTimeout, Request

if TYPE_CHECKING:
    from yarl import URL

CHUNK_SIZE = 64 * 1024
ACCEPT = "application/octet-stream, */*;q=0.1"
"""The agent configuration is a file of any type, not JSON (a strict server answers 406)."""
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
    """How many bytes were written (0 when `not_modified`)."""
    content_type: str | None
    """The file's `Content-Type`, as the service sent it."""
    filename: str | None
    """The file name from Content-Disposition, as the service sent it."""
    etag: str | None
    """The service's ETag for the file: pass it as `etag=` next time to download only a change."""
    sha256: str
    """Hex SHA-256 of the bytes written, to compare with a published checksum ("" when
    `not_modified`: nothing was written)."""
    not_modified: bool = False
    """True when the download was conditional (`etag=`) and the service answered 304 Not
    Modified: nothing was written, the destination is as it was (`path` is the file a path
    destination names, None for a directory or a file object)."""


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


def entity_tag(etag: str) -> str:
    """An ETag as `If-None-Match` sends it: quoted (a bare value gets quotes), checked."""
    if any(char in etag for char in "\r\n\0") or not etag.strip():
        raise ValueError(f"etag must be one entity tag on one line, got {etag!r}")
    etag = etag.strip()
    if etag == "*" or (etag.endswith('"') and etag.startswith(('"', 'W/"')) and len(etag) > 1):
        return etag
    if '"' in etag:
        raise ValueError(f"etag is neither quoted nor bare (it holds a quote): {etag!r}")
    return f'"{etag}"'


async def receive(
    destination: Destination, etag: str | None, response: StreamedResponse
) -> DownloadResult:
    """Write a 2xx response's body to the destination and say what was written; for a 304 to
    a conditional request (`etag` sent), write nothing and say so."""
    if response.status == NOT_MODIFIED:
        return _not_modified(destination, etag, response)
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


class Outbound(Protocol):
    """What a download is sent through: the client's connection (`_client.Connection`)."""

    def sender(self) -> Sender:
        """The sender to use now."""
        ...

    def settings(
        self, options: RequestOptions | None
    ) -> tuple[Mapping[str, str], AttemptTimeout, RetryPolicy]:
        """The headers, attempt timeout and retry policy of a call with these options."""
        ...


def download(
    connection: Outbound,
    url: URL,
    destination: Destination,
    etag: str | None,
    options: RequestOptions | None,
) -> Awaitable[DownloadResult]:
    """The download of `url` to `destination` (conditional on `etag`), as the client sends it."""
    check_destination(destination)
    sender = connection.sender()
    headers, timeout, policy = connection.settings(options)
    headers = {**headers, "Accept": ACCEPT}
    if etag is not None:
        headers["If-None-Match"] = entity_tag(etag)
    read_body = partial(receive, destination, etag)
    policy = retry_for(destination, policy)
    return sender.stream(Request("GET", url), headers, timeout, policy, read_body)


def _not_modified(
    destination: Destination, etag: str | None, response: StreamedResponse
) -> DownloadResult:
    if etag is None:
        raise APIStatusError(
            "the service answered 304 Not Modified to a download that was not conditional",
            method=response.request.method,
            url=response.request.url,
            status=NOT_MODIFIED,
            request_id=response.headers.get(REQUEST_ID_HEADER),
            headers=response.headers,
        )
    unchanged = Path(destination) if isinstance(destination, str | os.PathLike) else None
    return DownloadResult(
        path=None if unchanged is None or unchanged.is_dir() else unchanged,
        bytes_written=0,
        content_type=None,
        filename=None,
        etag=response.headers.get("ETag") or etag,
        sha256="",
        not_modified=True,
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
