"""The service's calls outside the collections: `health`, `agent-config download`, and
`remedy-async api PATH`, a raw authenticated GET, printed as JSON, the way `gh api` works.

With `--paginate` on a collection's path, `api` follows every page (the client's paging,
resume and safety rules) and prints the records as one JSON array, closed even if the
command fails midway. With `--include` (`-i`), as `gh api -i`, the status line and the
response's headers come first, then a blank line and the body: the headers as the client
returns them, a secret the service echoed into one redacted; an error status prints them and
its body (the token scrubbed) too, before its error line on stderr.
"""

from __future__ import annotations

import argparse
import asyncio
from collections.abc import Mapping, Sequence
from http import HTTPStatus
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl

from remedy_async import RESOURCES, APIStatusError, DownloadResult, ResourceCollection, to_wire

from ._connection import open_client
from ._errors import EXIT_FAILURE, EXIT_OK, UsageError, in_flags
from ._formats import JsonArrayEncoder, json_bytes
from ._server_filters import group_filters
from ._sinks import StreamSink, finished
from ._terminal import Terminal


def _write_json(terminal: Terminal, document: Any) -> None:
    terminal.stdout.write(json_bytes(document) + b"\n")
    terminal.stdout.flush()


def _write_error_body(terminal: Terminal, error: APIStatusError) -> None:
    """A failed response's body as the error kept it (the token scrubbed): JSON as JSON, text
    as text (the start the error kept of a longer one, said so on stderr); nothing for no
    body."""
    body = error.body
    if isinstance(body, str):
        terminal.stdout.write(body.encode() + (b"" if body.endswith("\n") else b"\n"))
    elif body is not None:
        terminal.stdout.write(json_bytes(body) + b"\n")
    terminal.stdout.flush()
    if error.body_truncated:
        terminal.say("the response body was longer than the client keeps: only its start is shown")


async def run_health(options: argparse.Namespace, terminal: Terminal) -> int:
    """Print the service's health answer as JSON; 0 when it reports ok, else 1."""
    async with open_client(options, terminal.env, transport=terminal.transport) as client:
        status = await client.health()
    _write_json(terminal, to_wire(status))
    if status.ok:
        return EXIT_OK
    terminal.say(f"the service reports status {status.status!r}, not 'ok'")
    return EXIT_FAILURE


def _summary(result: DownloadResult) -> dict[str, Any]:
    return {
        "path": None if result.path is None else str(result.path),
        "bytes": result.bytes_written,
        "sha256": result.sha256,
        "contentType": result.content_type,
        "filename": result.filename,
        "etag": result.etag,
        "notModified": result.not_modified,
    }


def _read_etag(path: str | None) -> str | None:
    """The ETag an --etag-file holds (None when there is no such file or it is empty)."""
    if path is None:
        return None
    try:
        return Path(path).read_text(encoding="utf-8").strip() or None
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as error:
        raise UsageError(f"cannot read --etag-file {path}: {error}") from None


def _save_etag(path: str | None, result: DownloadResult) -> None:
    if path is not None and result.etag and not result.not_modified:
        Path(path).write_text(result.etag + "\n", encoding="utf-8")


def _check_destination(path: Path) -> None:
    if not path.is_dir() and not path.parent.is_dir():
        raise UsageError(f"cannot write {path}: {path.parent} is not a directory")


async def run_agent_config_download(options: argparse.Namespace, terminal: Terminal) -> int:
    """Download the agent configuration to a file (atomically) or stdout.

    To a file, a JSON summary (path, bytes, sha256, ...) goes to stdout; to stdout (`--out -`),
    the file's bytes do and a one-line summary goes to stderr. With `--etag` (or an
    `--etag-file` holding one) the download is conditional: unchanged, nothing is written.
    """
    out = options.out
    if out != "-":
        await asyncio.to_thread(_check_destination, Path(out))
    etag_file = getattr(options, "etag_file", None)
    etag = getattr(options, "etag", None) or await asyncio.to_thread(_read_etag, etag_file)
    async with open_client(options, terminal.env, transport=terminal.transport) as client:
        if out == "-":
            result = await client.download_agent_configuration(terminal.stdout, etag=etag)
            terminal.stdout.flush()
            if result.not_modified:
                terminal.note(f"not modified (ETag {result.etag}): nothing written")
            else:
                terminal.note(f"wrote {result.bytes_written:,} bytes, sha256 {result.sha256}")
        else:
            result = await client.download_agent_configuration(out, etag=etag)
    await asyncio.to_thread(_save_etag, etag_file, result)
    if out != "-":
        _write_json(terminal, _summary(result))
    return EXIT_OK


_COLLECTION_PATHS = {f"/v1/{resource.segment}": resource for resource in RESOURCES}


def status_line(status: int, headers: Mapping[str, str]) -> bytes:
    """The status line and header lines `api -i` prints before a body, ending in a blank line:
    `HTTP/1.1 200 OK` (the protocol the client speaks), then each header as the response
    carried it, in its order, repeated ones each on their own line; lines end in `\n`, as the
    body's do, for grep and sed."""
    try:
        reason = f" {HTTPStatus(status).phrase}"
    except ValueError:
        reason = ""
    lines = [f"HTTP/1.1 {status}{reason}"]
    lines += [f"{name}: {value}" for name, value in headers.items()]
    return ("\n".join(lines) + "\n\n").encode("utf-8", "replace")


PAGE_SIZE_PARAMETER = "limit"
"""The published lists' page-size parameter, which `api --paginate` takes as the page size of
the pages it follows (`/v1/scopes?limit=50` or `-F limit=50`)."""


def _page_size(given: str | list[str] | None) -> int | None:
    """The page size `limit` asks `api --paginate` for (None: the client's default)."""
    if given is None:
        return None
    if isinstance(given, str) and given.isdigit() and int(given) > 0:
        return int(given)
    raise UsageError(f"api --paginate: {PAGE_SIZE_PARAMETER} is one whole number, got {given!r}")


def path_and_query(
    given: str, fields: Sequence[tuple[str, str]]
) -> tuple[str, dict[str, str | list[str]]]:
    """The path `api` sends and its query parameters: a query written in the path, as gh api
    takes it (`/v1/scopes?limit=1`), then the `-F` fields; a key in both is sent with each
    value. The client refuses a path that is not one under the base URL."""
    if "#" in given:
        raise UsageError(f"api {given}: a fragment (#...) is never sent to a server; drop it")
    path, mark, query = given.partition("?")
    written = parse_qsl(query, keep_blank_values=True) if mark else []
    return path, group_filters([*written, *fields])


async def run_api(options: argparse.Namespace, terminal: Terminal) -> int:
    """Send the GET and print its JSON body, or with --paginate a collection's every record;
    with --include, the status line and headers first."""
    if options.method.upper() != "GET":
        raise UsageError(f"api {options.method}: the API is read-only; only GET is sent")
    path, params = path_and_query(options.path, options.field)
    if options.paginate:
        if options.include:
            raise UsageError(
                "api --include shows one response's headers; --paginate writes many pages' "
                "records as one array: give one of them"
            )
        resource = _COLLECTION_PATHS.get(path.rstrip("/"))
        if resource is None:
            known = ", ".join(_COLLECTION_PATHS)
            raise UsageError(f"api --paginate {path}: only a collection pages ({known})")
        page_size = _page_size(params.pop(PAGE_SIZE_PARAMETER, None))
        async with open_client(options, terminal.env, transport=terminal.transport) as client:
            collection: ResourceCollection[Any] = getattr(client, resource.attribute)
            try:
                pager = collection.list(extra_params=params, page_size=page_size)
            except ValueError as error:  # a paging parameter, or a page too large
                said = in_flags(str(error)).replace("--page-size", PAGE_SIZE_PARAMETER)
                if "use --page-size instead" in in_flags(str(error)):
                    said = (
                        f"{said.split(';')[0]}; --paginate follows the pages itself: leave them "
                        f"out ({PAGE_SIZE_PARAMETER}=N sets the page size)"
                    )
                raise UsageError(f"api --paginate {options.path}: {said}") from None
            sink = StreamSink(JsonArrayEncoder(), terminal.stdout)
            with finished(sink):
                async for page in pager.as_dicts().pages():
                    sink.write(page.items)
        return EXIT_OK
    async with open_client(options, terminal.env, transport=terminal.transport) as client:
        try:
            response = await client.get_json(path, params=params)
        except APIStatusError as error:
            if options.include:  # as gh api -i: the failed response's head and body too
                terminal.stdout.write(status_line(error.status, error.headers))
                _write_error_body(terminal, error)
            raise
    if options.include:
        terminal.stdout.write(status_line(response.status, response.headers))
    _write_json(terminal, response.body)
    return EXIT_OK
