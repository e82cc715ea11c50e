"""The command line's grammar: every subcommand, option and default, in one argparse tree.

Every option's help ends with its default, `(default: ...)`, and names the environment variable
it falls back to; flags (options without a value) are off unless given. The connection options
and --debug are global: they go before or after the command (see `_tree`).
"""

from __future__ import annotations

import argparse
import inspect
from collections.abc import Callable, Sequence
from typing import Any, Final, TypeVar

from remedy_async import RESOURCES, RemedyClient, RetryPolicy, __version__
from remedy_async.simulator import add_serve_arguments

from ._completion import SHELLS
from ._filter_flags import add_filter_flags
from ._filters import RESOURCE_NAMES, parse_filter, resource_named
from ._formats import EXPORT_FORMATS, OUTPUT_FORMATS
from ._progress import LINE_EVERY
from ._settings import AUTH_HEADER_ENV, BASE_URL_ENV, CONFIG_ENV, TOKEN_ENV
from ._terminal import PROGRESS_MODES
from ._tree import Parser, Resources, add_shared, chosen_parser, settle
from ._where import parse_where

T = TypeVar("T")

DESCRIPTION = """\
Read the Remedy API from the shell: list, get and export the four collections, check health,
download the agent configuration; or run the demo and the simulator of the service.

Connection settings come from the options, else from REMEDY_BASE_URL and REMEDY_API_TOKEN;
they and --debug go before or after the command. Data goes to stdout, progress and messages to
stderr. Exit status: 0 success, 1 API or network error (or an id not found), 2 usage or
configuration error, 3 export stopped (resumable with --resume), 130 interrupted (Ctrl-C), 143
terminated (SIGTERM, but an export exits 3).
"""

_CLIENT_DEFAULTS: Final = inspect.signature(RemedyClient).parameters
_TIMEOUT: Final = _CLIENT_DEFAULTS["timeout"].default.total
_MAX_IN_FLIGHT: Final = _CLIENT_DEFAULTS["max_in_flight"].default
_RETRIES: Final = RetryPolicy().attempts - 1


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
    group = parent.add_argument_group("connection (before or after the command)")
    add = group.add_argument
    if config_file:
        add_shared(
            add,
            "--config",
            metavar="FILE",
            help="client configuration (TOML), e.g. as written by probe --emit-config; the "
            f"options below override it (default: ${CONFIG_ENV}, else none)",
        )
        add_shared(
            add,
            "--profile",
            default="default",
            metavar="NAME",
            help="profile of --config to use (default: default)",
        )
    add_shared(add, "--base-url", metavar="URL", help=f"API base URL (default: ${BASE_URL_ENV})")
    add_shared(
        add,
        "--token",
        help=f"API token (default: ${TOKEN_ENV}; prefer it, a flag shows up in ps)",
    )
    add_shared(
        add,
        "--auth-header",
        metavar="NAME",
        help=f"header carrying the token (default: ${AUTH_HEADER_ENV}, else Authorization)",
    )
    add_shared(
        add,
        "--auth-scheme",
        metavar="WORD",
        help="scheme before the token; 'none' sends the bare token (default: Bearer)",
    )
    add_shared(
        add,
        "--timeout",
        type=_argument(_seconds, "seconds"),
        metavar="SECONDS",
        help=f"seconds per request attempt (default: {_TIMEOUT:g})",
    )
    add_shared(
        add,
        "--retries",
        type=_count(0),
        metavar="N",
        help=f"retries per request; 0 turns them off (default: {_RETRIES})",
    )
    add_shared(
        add,
        "--max-in-flight",
        type=_count(1),
        metavar="N",
        help=f"requests at once (default: {_MAX_IN_FLIGHT})",
    )
    add_shared(
        add,
        "--allow-insecure-http",
        action="store_true",
        default=False,
        help="allow plain http to a host other than loopback (the token travels in clear)",
    )
    return parent


def _common_options() -> Parser:
    parent = Parser(add_help=False)
    add_shared(
        parent.add_argument,
        "--debug",
        action="store_true",
        default=False,
        help="log requests on stderr (credentials redacted) and show tracebacks; before or "
        "after the command",
    )
    return parent


def _progress_options() -> Parser:
    parent = Parser(add_help=False)
    group = parent.add_argument_group("progress")
    add_shared(
        group.add_argument,
        "--progress",
        choices=PROGRESS_MODES,
        default="auto",
        help="progress on stderr: auto (live when stderr is a terminal and CI is unset, else a "
        "line every --progress-every seconds), always (live), lines, or never (default: auto)",
    )
    add_shared(
        group.add_argument,
        "--quiet",
        "-q",
        dest="progress",
        action="store_const",
        const="never",
        default="auto",
        help="no progress at all (the same as --progress never)",
    )
    add_shared(
        group.add_argument,
        "--progress-every",
        type=_argument(_seconds, "seconds"),
        default=LINE_EVERY,
        metavar="SECONDS",
        help=f"seconds between progress lines (default: {LINE_EVERY:g})",
    )
    return parent


def _completes_resources(action: argparse.Action) -> None:
    """Let shell completion offer the resource names (argcomplete reads `completer`)."""
    action.completer = lambda **_: RESOURCE_NAMES  # type: ignore[attr-defined]


def _plain(add: Callable[..., argparse.Action], *flags: str, **kwargs: Any) -> argparse.Action:
    """`add_shared`'s signature, for an option of one parser only."""
    return add(*flags, **kwargs)


Adder = Callable[..., argparse.Action]
"""`add_shared` for an option a command shares with the subcommands below it, else `_plain`."""


def _add_filter_options(add_argument: Adder, add: Adder) -> None:
    add(
        add_argument,
        "--filter",
        "-f",
        type=FILTER,
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="server-side filter (KEY as on the wire or in snake_case), repeatable; a repeated "
        "key sends several values (default: none)",
    )
    add(
        add_argument,
        "--param",
        type=FILTER,
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a query parameter sent as is, unchecked (a filter the service has and the "
        "contract lacks), repeatable (default: none)",
    )
    add(
        add_argument,
        "--where",
        type=parse_where,
        action="append",
        default=[],
        metavar="CONDITION",
        help="keep only records meeting it, checked here after fetching, repeatable (all must "
        "hold): 'cvssScore>=7', 'os.family=linux', 'severity in (critical,high)', "
        "'status not in (fixed)' (default: every record)",
    )


def _add_output_options(add_argument: Adder, add: Adder) -> None:
    """--format (of list and get) and --fields."""
    add(
        add_argument,
        "--format",
        choices=OUTPUT_FORMATS,
        default="jsonl",
        help="jsonl, json (one array, valid even if the command fails), csv, or table "
        "(default: jsonl)",
    )
    _add_fields(add_argument, add)


def _add_fields(add_argument: Adder, add: Adder) -> None:
    add(
        add_argument,
        "--fields",
        metavar="PATHS",
        help="keep only these fields, comma-separated dotted paths: id,hostname,os.family "
        "(csv and table get one column each) (default: every field)",
    )


def _list_options() -> Parser:
    """What `list` takes besides the connection and progress, before or after the resource."""
    parent = Parser(add_help=False)
    _add_filter_options(parent.add_argument, add_shared)
    add_shared(
        parent.add_argument,
        "--max-items",
        type=_count(0),
        metavar="N",
        help="stop after fetching this many records (default: all)",
    )
    add_shared(
        parent.add_argument,
        "--page-size",
        type=_count(1),
        metavar="N",
        help="records per page request (default: the service's)",
    )
    _add_concurrency(parent.add_argument, add_shared)
    group = parent.add_argument_group("output")
    _add_output_options(group.add_argument, add_shared)
    _add_output_file(group.add_argument, add_shared)
    return parent


def _add_concurrency(add_argument: Adder, add: Adder) -> None:
    add(
        add_argument,
        "--concurrency",
        type=_count(1),
        default=1,
        metavar="N",
        help="pages fetched at once, for offset and page-number lists that announce their "
        "total; records still come in order, exactly once. Cursor and link lists stay "
        "sequential, each page naming the next (default: 1)",
    )


def _add_output_file(add_argument: Adder, add: Adder) -> None:
    add(
        add_argument,
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
        help="query parameter, sent as is, repeatable (default: none)",
    )
    api.add_argument(
        "--paginate",
        action="store_true",
        help="follow every page of a collection's list and print its records as one array",
    )


Command = Callable[[str, str, list[Parser]], Any]
"""Adds a subcommand to `remedy-async`: name, help, parent parsers."""


def _add_list(command: Command, parents: list[Parser]) -> None:
    """`list RESOURCE`: one subcommand per resource, each with its filters as flags."""
    options = _list_options()
    list_ = command(
        "list",
        "write the records of a collection to stdout; 'list RESOURCE --help' shows its filters",
        [*parents, options],
    )
    resources = list_.add_subparsers(
        action=Resources, required=True, metavar="RESOURCE", title="resources"
    )
    list_.usage = "%(prog)s [options] RESOURCE [options]"  # after: the resources' prog reads it
    for resource in RESOURCES:
        about = (resource.model.__doc__ or "").splitlines()[0].rstrip(".")
        if resource.attribute != resource.segment:
            about += f" (also spelt {resource.attribute})"
        leaf = resources.add_parser(
            resource.segment,
            help=about,
            description=f"Write the {resource.segment} records to stdout as they arrive.",
            parents=[*parents, options],
            usage="%(prog)s [options]",
        )
        add_filter_flags(leaf, [resource], f"filters of {resource.segment}")
        leaf.set_defaults(resource=resource)


def _add_export(command: Command, parents: list[Parser]) -> None:
    export = command(
        "export", "write collections to files in a directory, atomically and resumably", parents
    )
    export.usage = "%(prog)s [RESOURCE ...] --out DIR [options]"
    _completes_resources(
        export.add_argument(
            "resources", type=RESOURCE, nargs="*", metavar="RESOURCE", help="default: all four"
        )
    )
    export.add_argument(
        "--out", required=True, metavar="DIR", help="directory of the files (required)"
    )
    export.add_argument(
        "--page-size",
        type=_count(1),
        default=1000,
        metavar="N",
        help="records per page request (default: %(default)s)",
    )
    _add_concurrency(export.add_argument, _plain)
    again = export.add_mutually_exclusive_group()
    again.add_argument(
        "--resume",
        action="store_true",
        help="continue an interrupted export in DIR, with the format, filters, --where and "
        "--fields it was started with",
    )
    again.add_argument(
        "--restart", action="store_true", help="discard an interrupted export in DIR first"
    )
    export.add_argument(
        "--format",
        choices=EXPORT_FORMATS,
        help="jsonl or csv; a resumed export keeps its own (default: jsonl)",
    )
    _add_fields(export.add_argument, _plain)
    _add_filter_options(export.add_argument, _plain)
    add_filter_flags(
        export, RESOURCES, "filters (each must be a filter of every collection exported)"
    )


def _add_demo(command: Command, parents: list[Parser]) -> None:
    demo = command(
        "demo",
        "export everything from the embedded simulator, with faults, and check it arrived",
        parents,
    )
    demo.add_argument(
        "--size", type=_count(1), default=1000, help="endpoints (default: %(default)s)"
    )
    demo.add_argument(
        "--seed", type=int, default=0, help="seed of data and faults (default: %(default)s)"
    )
    demo.add_argument(
        "--get-many",
        type=_count(0),
        default=2000,
        help="finding ids to fetch by id (default: %(default)s)",
    )
    demo.add_argument(
        "--faults",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="inject 503s, 429s, resets and truncated bodies (default: on)",
    )


def _add_get(command: Command, parents: list[Parser]) -> None:
    get = command("get", "write records by id to stdout; unknown ids exit 1", parents)
    _completes_resources(
        get.add_argument("resource", type=RESOURCE, metavar="RESOURCE", help=_RESOURCE_HELP)
    )
    get.add_argument("ids", nargs="+", metavar="ID", help="record ids; '-' reads them from stdin")
    output = get.add_argument_group("output")
    _add_output_options(output.add_argument, _plain)
    _add_output_file(output.add_argument, _plain)
    get.add_argument(
        "--concurrency",
        type=_count(1),
        default=16,
        metavar="N",
        help="gets at once (default: %(default)s)",
    )


def _add_probe(command: Command, parents: list[Parser]) -> None:
    probe = command(
        "probe",
        "find out the contract a service follows (paging, naming, errors, auth) with a few "
        "read-only requests; exit 1 if any failed",
        parents,
    )
    probe.add_argument(
        "--format",
        choices=("text", "json"),
        default="text",
        help="text or json (default: %(default)s)",
    )
    probe.add_argument(
        "--emit-config",
        metavar="FILE",
        help="write what was found as a client configuration, for --config or "
        "RemedyClient.from_config (default: none, only print it)",
    )
    probe.add_argument(
        "--page-size",
        type=_count(1),
        default=5,
        metavar="N",
        help="records per list request (default: %(default)s)",
    )


def build_parser() -> Parser:
    """Return the parser of `remedy-async` and all its subcommands."""
    common, progress = _common_options(), _progress_options()
    client = [common, _connection_options(config_file=True)]
    parser = Parser(
        prog="remedy-async",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        parents=client,
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def command(name: str, help_text: str, parents: list[Parser]) -> Any:
        return commands.add_parser(name, help=help_text, description=help_text, parents=parents)

    _add_demo(command, [common, progress])
    add_serve_arguments(command("serve", "run the simulator of the service until interrupted", []))
    _add_list(command, [*client, progress])
    _add_get(command, [*client, progress])
    _add_export(command, [*client, progress])
    command("health", "check the service's health; exit 1 unless it reports ok", client)
    _add_api_arguments(
        command(
            "api",
            "send an authenticated GET to a path under the base URL and print the JSON, "
            "like 'gh api'",
            client,
        )
    )
    _add_probe(command, [common, _connection_options(config_file=False)])
    completion = command(
        "completion",
        "print the shell completion script: source it, e.g. "
        "'source <(remedy-async completion bash)' in ~/.bashrc",
        [],
    )
    completion.add_argument("shell", choices=SHELLS, help="bash, zsh or fish")
    agent = command("agent-config", "the agent configuration", client)
    agent_commands = agent.add_subparsers(dest="agent_command", required=True, metavar="ACTION")
    download = agent_commands.add_parser(
        "download",
        help="download the agent configuration",
        description="download the agent configuration",
        parents=client,
    )
    download.add_argument(
        "--out",
        required=True,
        metavar="PATH",
        help="file, existing directory, or - for stdout (required)",
    )
    return parser


def parse_command_line(argv: Sequence[str]) -> argparse.Namespace:
    """Parse a command line into the options its command runs with, defaults filled in.

    Words no parser took are a usage error of the (sub)command the line chose, whose --help
    lists what it takes."""
    options, extras = build_parser().parse_known_args(list(argv))
    chosen = chosen_parser(options)
    options = settle(options)
    if extras:
        chosen.error(f"unrecognized arguments: {' '.join(extras)}")
    return options
