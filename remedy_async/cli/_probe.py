"""`probe`: reports the contract a service follows, and can pin it in a configuration file."""

from __future__ import annotations

import argparse
import asyncio
from pathlib import Path
from typing import Any

import orjson

from remedy_async import ProbeReport, RemedyClient, probe

from ._checkpoint import replace_file
from ._connection import client_settings, config_file, profile
from ._errors import EXIT_FAILURE, EXIT_OK, UsageError
from ._options import BASE_URL_ENV, CONTRACT_NAMING, TOKEN_ENV
from ._server_filters import resource_named
from ._terminal import Terminal

CONTRACT_PAGING = "offset"
"""The paging convention the published contract documents (`limit`/`offset` in; `data`,
`total`, `limit`, `offset` out)."""

FOUND_BY_PROBING = ("paginator", "paginators", "naming", "namings")
"""Client settings the probe finds out, so a --config profile's are set aside."""


async def run_probe(options: argparse.Namespace, terminal: Terminal) -> int:
    """Probe the service, print the report (text or JSON) and write `--emit-config` if asked.

    The connection comes from the options, `--config` and the environment as for any command;
    the paging and naming a `--config` profile pins are set aside, since the probe finds them.

    Exit 0 when every request meant to succeed did, else 1 (the report says which failed).
    """
    emit = None if options.emit_config is None else Path(options.emit_config)
    if emit is not None:
        await asyncio.to_thread(_check_writable, emit)
    settings = probe_arguments(options, terminal)
    if terminal.transport is not None:
        settings["transport"] = terminal.transport
    report = await probe(page_size=options.page_size, **settings)
    if options.format == "json":
        terminal.stdout.write(orjson.dumps(report.as_dict(), option=orjson.OPT_APPEND_NEWLINE))
    else:
        terminal.stdout.write(render_text(report).encode())
    terminal.stdout.flush()
    if emit is not None:
        await asyncio.to_thread(replace_file, emit, report.to_config().encode())
        terminal.note(f"wrote the pinned configuration to {emit} (use it with --config {emit})")
    return EXIT_OK if report.ok else EXIT_FAILURE


def probe_arguments(options: argparse.Namespace, terminal: Terminal) -> dict[str, Any]:
    """`probe`'s client arguments: the connection of the options, else of the `--config`
    profile, else of the environment, as for any command; what the profile pins of paging and
    naming is set aside (the probe finds it out), with a note."""
    env = terminal.env
    config = config_file(options, env)
    if config is None:
        return client_settings(options, env)
    given = client_settings(options, {})
    RemedyClient.from_config(config, profile=options.profile, environ=env, **given)  # checks it
    settings = profile(config, options.profile)
    found_here = [name for name in FOUND_BY_PROBING if settings.pop(name, None) is not None]
    if found_here:
        terminal.note(f"the probe finds out {', '.join(found_here)} itself, not from --config")
    token_env = settings.pop("token_env", None)
    if token_env is not None:
        settings["token"] = env[token_env]
    if settings.get("auth_scheme") in ("", "none"):
        settings["auth_scheme"] = None
    settings.update(given)
    for name, variable in (("base_url", BASE_URL_ENV), ("token", TOKEN_ENV)):
        if settings.get(name) is None and env.get(variable):
            settings[name] = env[variable]
    return settings


def render_text(report: ProbeReport) -> str:
    """The report for people: settings first, then a row per collection, then what went wrong."""
    scheme = f"{report.auth_scheme} " if report.auth_scheme else ""
    download = report.agent_configuration
    lines = [
        f"Remedy API at {report.base_url}",
        f"  auth ({report.auth_header}: {scheme}***): {report.auth}",
        f"  health ({report.health_path}): {report.health or 'failed'}",
        f"  agent configuration ({report.agent_configuration_path}): "
        + (
            "failed"
            if download is None
            else f"{download.bytes_written:,} bytes, {download.content_type or 'no content type'}"
            f", sha256 {download.sha256[:16]}…"
        ),
        f"  error bodies: {report.error_shape or 'not recognised'}",
        "  rate-limit headers: "
        + (
            ", ".join(f"{name}: {value}" for name, value in report.rate_limit_headers.items())
            or "none seen"
        ),
        "",
    ]
    rows = [("collection", "paging", "items at", "naming", "get by id", "unknown id")]
    for found in report.resources:
        rows.append(
            (
                resource_named(found.resource).segment,
                _contract(found.convention, CONTRACT_PAGING),
                found.items_path or "?",
                _contract(found.naming, CONTRACT_NAMING),
                "ok" if found.fetched_by_id else "-" if found.sample_id is None else "failed",
                f"{found.missing_status or '?'} {found.error_shape or ''}".strip(),
            )
        )
    widths = [max(len(row[column]) for row in rows) for column in range(len(rows[0]))]
    lines += [
        "  "
        + "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip()
        for row in rows
    ]
    problems = [*report.problems] + [
        f"{resource_named(found.resource).segment}: {problem}"
        for found in report.resources
        for problem in found.problems
    ]
    for title, items in (("warnings", report.warnings), ("problems", problems)):
        if items:
            lines += ["", f"{title}:", *(f"  {item}" for item in items)]
    lines += ["", f"exchanges ({len(report.exchanges)}):"]
    for event in report.exchanges:
        took = "" if event.elapsed is None else f" in {event.elapsed * 1000:.0f} ms"
        said = f" ({event.error})" if event.error else ""
        request_id = f" [{event.request_id}]" if event.request_id else ""
        lines.append(
            f"  {event.kind} {event.method} {event.url} -> {event.status}{took}{said}{request_id}"
        )
    return "\n".join(lines) + "\n"


def _contract(found: str | None, contract: str) -> str:
    """A paging convention or naming as the report shows it: the contract's is said to be."""
    if found is None:
        return "?"
    return f"{found} (the contract's)" if found == contract else found


def _check_writable(path: Path) -> None:
    if path.is_dir() or not path.parent.is_dir():
        raise UsageError(
            f"--emit-config {path}: "
            + ("is a directory" if path.is_dir() else f"{path.parent} is not a directory"),
            command="remedy-async probe",
        )
