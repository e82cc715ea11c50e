"""The command line's grammar: every subcommand, option and default, in one argparse tree."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any, NoReturn, TypeVar

from remedy_async import __version__
from remedy_async.simulator import add_serve_arguments

from ._completion import SHELLS
from ._errors import UsageError
from ._filters import RESOURCE_NAMES, parse_filter, resource_named
from ._formats import EXPORT_FORMATS, OUTPUT_FORMATS
from ._progress import LINE_EVERY
from ._terminal import PROGRESS_MODES
from ._where import parse_where

T = TypeVar("T")

DESCRIPTION = """\
Read the Remedy API from the shell: list, get and export the four collections, check health,
download the agent configuration; or run the demo and the simulator of the service.

Connection settings come from the options, else from REMEDY_BASE_URL and REMEDY_API_TOKEN.
Data goes to stdout, progress and messages to stderr. Exit status: 0 success, 1 API or network
error (or an id not found), 2 usage or configuration error, 3 export stopped (resumable with
--resume), 130 interrupted (Ctrl-C), 143 terminated (SIGTERM, but an export exits 3).
"""


class Parser(argparse.ArgumentParser):
    """An argument parser whose errors are raised (as UsageError) instead of exiting."""

    def error(self, message: str) -> NoReturn:
        """Raise the usage error, naming this (sub)command and where to read its options."""
        raise UsageError(f"{message} (see {self.prog} --help)", command=self.prog)


def _argument(convert: Callable[[str], T], name: str) -> Callable[[str], T]:
    def read(text: str) -> T:
        try:
            return convert(text)
        except ValueError as error:
            raise argparse.ArgumentTypeError(str(error)) from None

    read.__name__ = name
    return read


def _count(minimum: int) -> Callable[[str], int]:
    def read(text: str) -> int:
        value = int(text)
        if value < minimum:
            raise ValueError(f"must be at least {minimum}, got {value}")
        return value

    return _argument(read, f"integer >= {minimum}")


def _seconds(text: str) -> float:
    value = float(text)
    if not 0 < value < float("inf"):
        raise ValueError(f"must be a positive number of seconds, got {text}")
    return value


RESOURCE = _argument(resource_named, "resource")
FILTER = _argument(parse_filter, "filter")
_RESOURCE_HELP = f"one of {', '.join(RESOURCE_NAMES)} (snake_case accepted)"


def _connection_options(*, config_file: bool) -> Parser:
    parent = Parser(add_help=False)
    group = parent.add_argument_group("connection")
    add = group.add_argument
    if config_file:
        add(
            "--config",
            metavar="FILE",
            help="client configuration (TOML), e.g. as written by probe --emit-config; "
            "the options below override it (default: $REMEDY_CONFIG)",
        )
        add("--profile", default="default", help="profile of --config to use (%(default)s)")
    add("--base-url", help="API base URL (default: $REMEDY_BASE_URL)")
    add(
        "--token",
        help="API token (default: $REMEDY_API_TOKEN; prefer it, a flag shows up in ps)",
    )
    add(
        "--auth-header",
        help="header carrying the token (default: $REMEDY_AUTH_HEADER, else Authorization)",
    )
    add(
        "--auth-scheme",
        help="scheme before the token (default: Bearer); 'none' sends the bare token",
    )
    add("--timeout", type=_argument(_seconds, "seconds"), help="seconds per request attempt")
    add("--retries", type=_count(0), help="retries per request (default 2; 0 turns them off)")
    add("--max-in-flight", type=_count(1), help="requests at once (default: 64)")
    add(
        "--allow-insecure-http",
        action="store_true",
        help="allow plain http to a host other than loopback (the token travels in clear)",
    )
    return parent


def _common_options() -> Parser:
    parent = Parser(add_help=False)
    parent.add_argument(
        "--debug",
        action="store_true",
        help="log requests on stderr (credentials redacted) and show tracebacks",
    )
    return parent


def _progress_options() -> Parser:
    parent = Parser(add_help=False)
    parent.add_argument(
        "--progress",
        choices=PROGRESS_MODES,
        default="auto",
        help="progress on stderr: auto (the default: live when stderr is a terminal and CI is "
        "unset, else a line every --progress-every seconds), always (live), lines, or never",
    )
    parent.add_argument(
        "--quiet",
        "-q",
        dest="progress",
        action="store_const",
        const="never",
        help="no progress at all (the same as --progress never)",
    )
    parent.add_argument(
        "--progress-every",
        type=_argument(_seconds, "seconds"),
        default=LINE_EVERY,
        metavar="SECONDS",
        help="seconds between progress lines (default: %(default)s)",
    )
    return parent


def _completes_resources(action: argparse.Action) -> None:
    """Let shell completion offer the resource names (argcomplete reads `completer`)."""
    action.completer = lambda **_: RESOURCE_NAMES  # type: ignore[attr-defined]


def _add_output_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("output")
    group.add_argument(
        "--format",
        choices=OUTPUT_FORMATS,
        default="jsonl",
        help="jsonl (default), json (one array, valid even if the command fails), csv, table",
    )
    group.add_argument(
        "--fields",
        metavar="PATHS",
        help="keep only these fields, comma-separated dotted paths: id,hostname,os.family "
        "(csv and table get one column each)",
    )
    group.add_argument(
        "--output",
        "-o",
        metavar="FILE",
        help="write to FILE instead of stdout; it appears only once complete (default: stdout)",
    )


def _add_api_arguments(api: argparse.ArgumentParser) -> None:
    api.add_argument(
        "method", nargs="?", default="GET", help="GET (the only method: the API is read-only)"
    )
    api.add_argument("path", help="e.g. /v1/scopes/sc-00000001")
    api.add_argument(
        "--field",
        "-F",
        type=FILTER,
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="query parameter, sent as is, repeatable",
    )
    api.add_argument(
        "--paginate",
        action="store_true",
        help="follow every page of a collection's list and print its records as one array",
    )


def build_parser() -> Parser:
    """Return the parser of `remedy-async` and all its subcommands."""
    parser = Parser(
        prog="remedy-async",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    common, progress = _common_options(), _progress_options()
    client = [common, _connection_options(config_file=True)]

    def command(name: str, help_text: str, parents: list[Parser]) -> Any:
        return commands.add_parser(name, help=help_text, description=help_text, parents=parents)

    demo = command(
        "demo",
        "export everything from the embedded simulator, with faults, and check it arrived",
        [common, progress],
    )
    demo.add_argument("--size", type=_count(1), default=1000, help="endpoints (%(default)s)")
    demo.add_argument("--seed", type=int, default=0, help="seed of data and faults")
    demo.add_argument(
        "--get-many", type=_count(0), default=2000, help="finding ids to fetch by id (%(default)s)"
    )
    demo.add_argument(
        "--faults",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="inject 503s, 429s, resets and truncated bodies (default: on)",
    )

    serve = command("serve", "run the simulator of the service until interrupted", [])
    add_serve_arguments(serve)

    list_ = command("list", "write the records of a collection to stdout", [*client, progress])
    _completes_resources(
        list_.add_argument("resource", type=RESOURCE, metavar="RESOURCE", help=_RESOURCE_HELP)
    )
    list_.add_argument(
        "--filter",
        "-f",
        type=FILTER,
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="server-side filter (KEY as on the wire or in snake_case), repeatable; a "
        "repeated key sends several values",
    )
    list_.add_argument(
        "--param",
        type=FILTER,
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a query parameter sent as is, unchecked (a filter the service has and the "
        "contract lacks), repeatable",
    )
    list_.add_argument(
        "--where",
        type=parse_where,
        action="append",
        default=[],
        metavar="CONDITION",
        help="keep only records meeting it, checked here after fetching, repeatable (all must "
        "hold): 'cvssScore>=7', 'os.family=linux', 'severity in (critical,high)', "
        "'status not in (fixed)'",
    )
    list_.add_argument("--max-items", type=_count(0), help="stop after fetching this many records")
    list_.add_argument("--page-size", type=_count(1), help="records per page request")
    _add_output_options(list_)

    get = command("get", "write records by id to stdout; unknown ids exit 1", [*client, progress])
    _completes_resources(
        get.add_argument("resource", type=RESOURCE, metavar="RESOURCE", help=_RESOURCE_HELP)
    )
    get.add_argument("ids", nargs="+", metavar="ID", help="record ids; '-' reads them from stdin")
    _add_output_options(get)
    get.add_argument("--concurrency", type=_count(1), default=16, help="gets at once")

    export = command(
        "export",
        "write collections to files in a directory, atomically and resumably",
        [*client, progress],
    )
    _completes_resources(
        export.add_argument(
            "resources", type=RESOURCE, nargs="*", metavar="RESOURCE", help="default: all four"
        )
    )
    export.add_argument("--out", required=True, metavar="DIR", help="directory of the files")
    export.add_argument(
        "--format",
        choices=EXPORT_FORMATS,
        help="jsonl (default) or csv; a resumed export keeps its own",
    )
    export.add_argument(
        "--page-size", type=_count(1), default=1000, help="records per page request (%(default)s)"
    )
    again = export.add_mutually_exclusive_group()
    again.add_argument(
        "--resume", action="store_true", help="continue an interrupted export in DIR"
    )
    again.add_argument(
        "--restart", action="store_true", help="discard an interrupted export in DIR first"
    )

    command("health", "check the service's health; exit 1 unless it reports ok", client)

    _add_api_arguments(
        command(
            "api",
            "send an authenticated GET to a path under the base URL and print the JSON, "
            "like 'gh api'",
            client,
        )
    )

    probe = command(
        "probe",
        "find out the contract a service follows (paging, naming, errors, auth) with a few "
        "read-only requests; exit 1 if any failed",
        [common, _connection_options(config_file=False)],
    )
    probe.add_argument("--format", choices=("text", "json"), default="text")
    probe.add_argument(
        "--emit-config",
        metavar="FILE",
        help="write what was found as a client configuration, for --config or "
        "RemedyClient.from_config",
    )
    probe.add_argument(
        "--page-size", type=_count(1), default=5, help="records per list request (%(default)s)"
    )

    completion = command(
        "completion",
        "print the shell completion script: source it, e.g. "
        "'source <(remedy-async completion bash)' in ~/.bashrc",
        [],
    )
    completion.add_argument("shell", choices=SHELLS, help="bash, zsh or fish")

    agent = command("agent-config", "the agent configuration", [])
    agent_commands = agent.add_subparsers(dest="agent_command", required=True, metavar="ACTION")
    download = agent_commands.add_parser(
        "download", help="download the agent configuration", parents=client
    )
    download.add_argument(
        "--out", required=True, metavar="PATH", help="file, existing directory, or - for stdout"
    )
    return parser
