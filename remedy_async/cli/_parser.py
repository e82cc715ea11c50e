"""The command line's grammar: every subcommand, option and default, in one argparse tree.

Every option's help ends with its default, `(default: ...)`, and names the environment variable
it falls back to; flags (options without a value) are off unless given. The connection options
and --debug are global: they go before or after the command (see `_tree`).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from typing import Any

from remedy_async import RESOURCES, __version__

from ._completion import SHELLS
from ._errors import UsageError
from ._formats import EXPORT_FORMATS
from ._options import (
    EXPORT_DIRECTORY,
    FILTER,
    RECORD_ID,
    RESOURCE,
    RESOURCE_HELP,
    add_concurrency,
    add_fields,
    add_filter_options,
    add_format,
    add_output_file,
    add_output_options,
    add_query,
    argument_type,
    common_options,
    completes_resources,
    connection_options,
    list_options,
    pager_options,
    plain,
    progress_options,
    seconds,
    whole,
)
from ._server_filters import add_filter_flags
from ._tree import (
    Parser,
    Resources,
    chosen_parser,
    complete_tree,
    settle,
    takes_positionals,
    unknown_option,
    unrecognized,
)

DESCRIPTION = """\
Read the Remedy API from the shell: list, get and export the four collections, check health,
download the agent configuration; or run the demo and the simulator of the service.

Connection settings come from the options, else from REMEDY_BASE_URL and REMEDY_API_TOKEN;
they and --debug go before or after the command. Data goes to stdout, progress and messages to
stderr. Exit status: 0 success, 1 API or network error (or an id not found), 2 usage or
configuration error, 3 export stopped (resumable with --resume) or watch stopped (run again to
continue), 130 interrupted (Ctrl-C), 143 terminated (SIGTERM, but an export or a watch exits 3).
"""


def _add_api_arguments(api: argparse.ArgumentParser) -> None:
    api.add_argument(
        "method", nargs="?", default="GET", help="GET (the only method: the API is read-only)"
    )
    api.add_argument(
        "path",
        help="a path starting with /, appended to the base URL, e.g. /v1/scopes/SCOPE_ID",
    )
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
    api.add_argument(
        "--include",
        "-i",
        action="store_true",
        help="print the status line and the response's headers before the body, as gh api -i "
        "does (a secret the service echoes into a header redacted); not with --paginate",
    )


Command = Callable[[str, str, list[Parser]], Any]
"""Adds a subcommand to `remedy-async`: name, help, parent parsers."""


def _add_list(command: Command, parents: list[Parser]) -> None:
    """`list RESOURCE`: one subcommand per resource, each with its filters as flags."""
    options = list_options()
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
    export.usage = "%(prog)s [RESOURCE ...] (--out DIR | --to duckdb:PATH) [options]"
    completes_resources(
        export.add_argument(
            "resources", type=RESOURCE, nargs="*", metavar="RESOURCE", help="default: all four"
        )
    )
    export.add_argument(
        "--out",
        type=EXPORT_DIRECTORY,
        metavar="DIR",
        help="directory of the files (created if missing; export writes files, never stdout: "
        "use list for that); this or --to is required (default: none)",
    )
    export.add_argument(
        "--to",
        metavar="duckdb:PATH",
        help="upsert the records by id into tables of a DuckDB file instead of writing files "
        "(needs pip install 'remedy-async[duckdb]'); --resume continues a stopped one "
        "(default: none)",
    )
    export.add_argument(
        "--page-size",
        type=whole(1),
        default=100,
        metavar="N",
        help="records per page request, at most 100, the most the service serves (default: "
        "%(default)s)",
    )
    add_concurrency(export.add_argument, plain)
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
    add_format(
        export.add_argument,
        plain,
        choices=EXPORT_FORMATS,
        destination="--out DIR",
        default=None,
        help="the files' format: jsonl, csv or parquet (needs pip install "
        "'remedy-async[arrow]'); a resumed export keeps its own (default: jsonl)",
    )
    add_fields(export.add_argument, plain)
    add_query(export.add_argument, plain)
    add_filter_options(export.add_argument, plain)
    _add_tenant_options(export)
    add_filter_flags(
        export, RESOURCES, "filters (each must be a filter of every collection exported)"
    )


ENGINES = ("process", "ray")
"""Where `export --tenants` runs: this process, or Ray."""


def _add_tenant_options(export: Parser) -> None:
    group = export.add_argument_group("many organisations (a tenants file)")
    add = group.add_argument
    add(
        "--tenants",
        metavar="FILE",
        help="export every tenant of a tenants file (TOML, one [[tenant]] per organisation's "
        "key): each tenant's files in DIR/tenant=NAME/, a manifest of finished units in "
        "DIR/manifest.jsonl, progress per tenant (default: one organisation)",
    )
    add(
        "--engine",
        choices=ENGINES,
        default="process",
        help="with --tenants: read every tenant in this process, or on Ray (needs pip install "
        "'remedy-async[ray]'; DIR must be seen by every worker) (default: %(default)s)",
    )
    add(
        "--address",
        metavar="ADDRESS",
        help="with --engine ray: the Ray cluster to join, such as ray://head:10001 or auto "
        "(default: a local cluster)",
    )
    add(
        "--shards",
        type=whole(1),
        metavar="N",
        help="with --engine ray: tasks, each reading whole tenants (default: the cluster's "
        "CPUs, at most one per tenant)",
    )
    add(
        "--max-connections",
        type=whole(1),
        default=100,
        metavar="N",
        help="with --tenants: connections open at once over every tenant (per Ray task) "
        "(default: %(default)s)",
    )


def _add_watch(command: Command, parents: list[Parser]) -> None:
    watch = command(
        "watch",
        "write a collection's changes (added, modified, removed) as JSON lines, pass after "
        "pass, remembering what was listed in a state file",
        parents,
    )
    watch.usage = "%(prog)s RESOURCE --state FILE [--interval S] [--once] [options]"
    completes_resources(
        watch.add_argument("resource", type=RESOURCE, metavar="RESOURCE", help=RESOURCE_HELP)
    )
    add_watch_options(watch)
    add_filter_flags(watch, RESOURCES, "filters (each must be a filter of RESOURCE)", where=False)


def add_watch_options(watch: Parser) -> None:
    """Add the options of `remedy-async watch` (besides RESOURCE and the filter flags)."""
    add = watch.add_argument
    add("--state", required=True, metavar="FILE", help="the state file, SQLite (required)")
    add("--once", action="store_true", help="run one pass, then exit")
    add(
        "--interval",
        type=argument_type(seconds, "seconds"),
        default=60.0,
        metavar="S",
        help="seconds between passes, give or take a tenth (default: %(default)g)",
    )
    add(
        "--max-failures",
        type=whole(0),
        default=3,
        metavar="N",
        help="failed passes in a row before exiting 3; each is retried (default: %(default)s)",
    )
    add(
        "--page-size",
        type=whole(1),
        metavar="N",
        help="records per page request (default: the service's)",
    )
    add(
        "--keep-records",
        action="store_true",
        help="keep whole records in a new state, to write each change's previous record",
    )
    add(
        "--trust-updated-at",
        action="store_true",
        help="take a record whose updated_at is the one the state holds as unchanged, without "
        "comparing its content: faster, blind to changes that do not move updated_at",
    )
    add(
        "--since-filter",
        metavar="PARAM",
        help="a query parameter taking an RFC 3339 time, e.g. 'updatedAt[gte]': passes between "
        "resyncs ask only for records changed since the last (default: none, full passes)",
    )
    add(
        "--overlap",
        type=argument_type(seconds, "seconds"),
        default=300.0,
        metavar="S",
        help="seconds a narrowed pass reaches back past the last one's start "
        "(default: %(default)g)",
    )
    add(
        "--resync",
        type=argument_type(seconds, "seconds"),
        default=3600.0,
        metavar="S",
        help="seconds between full passes, which find removals (default: %(default)g)",
    )
    add(
        "--filter",
        "-f",
        type=FILTER,
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="server-side filter, repeatable (default: none)",
    )
    add(
        "--param",
        type=FILTER,
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a query parameter sent as is, repeatable (default: none)",
    )


def _add_demo(command: Command, parents: list[Parser]) -> None:
    demo = command(
        "demo",
        "export everything from the embedded simulator, with faults, and check it arrived",
        parents,
    )
    demo.add_argument(
        "--size", type=whole(1), default=1000, help="endpoints (default: %(default)s)"
    )
    demo.add_argument(
        "--seed", type=int, default=0, help="seed of data and faults (default: %(default)s)"
    )
    demo.add_argument(
        "--get-many",
        type=whole(0),
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
    completes_resources(
        get.add_argument("resource", type=RESOURCE, metavar="RESOURCE", help=RESOURCE_HELP)
    )
    get.add_argument(
        "ids",
        type=RECORD_ID,
        nargs="+",
        metavar="ID",
        help="record ids; '-' reads them from stdin, one a line",
    )
    output = get.add_argument_group("output")
    add_output_options(output.add_argument, plain)
    add_output_file(output.add_argument, plain)
    get.add_argument(
        "--concurrency",
        type=whole(1),
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
    add_format(
        probe.add_argument,
        plain,
        choices=("text", "json"),
        destination="> FILE",
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
        type=whole(1),
        default=5,
        metavar="N",
        help="records per list request (default: %(default)s)",
    )


def _add_serve(serve: Parser) -> None:
    """`serve`'s options: the simulator's configuration, imported only when `serve` is chosen."""
    from remedy_async.simulator import add_serve_arguments  # noqa: PLC0415

    add_serve_arguments(serve)


def whole_parser() -> Parser:
    """The parser with every (sub)command's options added now (`complete_tree`), for what
    walks the whole grammar: shell completion and the generated docs."""
    return complete_tree(build_parser())


def build_parser() -> Parser:
    """Return the parser of `remedy-async` and all its subcommands."""
    common, progress, pager = common_options(), progress_options(), pager_options()
    client = [common, connection_options()]
    parser = Parser(
        prog="remedy-async",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        parents=[*client, pager],
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def command(name: str, help_text: str, parents: list[Parser]) -> Any:
        return commands.add_parser(name, help=help_text, description=help_text, parents=parents)

    _add_demo(command, [common, progress])
    command("serve", "run the simulator of the service until interrupted", []).defer(_add_serve)
    _add_list(command, [*client, progress, pager])
    _add_get(command, [*client, progress, pager])
    _add_export(command, [*client, progress])
    _add_watch(command, [*client, progress])
    command("health", "check the service's health; exit 1 unless it reports ok", client)
    _add_api_arguments(
        command(
            "api",
            "send an authenticated GET to a path under the base URL and print the JSON, "
            "like 'gh api'",
            client,
        )
    )
    _add_probe(command, client)
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
    download.add_argument(
        "--etag",
        metavar="ETAG",
        help="download only if the file changed since the download that reported this ETag "
        "(sent as If-None-Match); unchanged, nothing is written and the summary says "
        "notModified (default: always download)",
    )
    download.add_argument(
        "--etag-file",
        metavar="FILE",
        help="keep the ETag in FILE: send the one saved there, if any (unless --etag), and "
        "save the new one after a download, as curl's --etag-compare/--etag-save do "
        "(default: none)",
    )
    return parser


def _value_after(argv: Sequence[str], flag: str) -> list[str]:
    """The word after an unknown option, when it reads as the option's value (not an option
    itself): what the user meant to give it, shown with it and used by its hint."""
    at = list(argv).index(flag) if flag in argv else None
    if at is None or at + 1 >= len(argv) or argv[at + 1].startswith("-"):
        return []
    return [argv[at + 1]]


def parse_command_line(argv: Sequence[str]) -> argparse.Namespace:
    """Parse a command line into the options its command runs with, defaults filled in.

    Words no parser took are a usage error of the (sub)command the line chose, whose --help
    lists what it takes. Options are taken by their whole names only: an unknown one (a prefix
    such as `--tok` among them) is a usage error of the (sub)command it follows, naming the
    closest option it has, even where argparse would first stumble on the word after it."""
    parser = build_parser()
    try:
        options, extras = parser.parse_known_args(list(argv))
    except UsageError:
        # argparse takes the value of an unknown option for the next positional word (a
        # subcommand's name, a resource) and stumbles on it: report the option instead.
        found = unknown_option(parser, argv)
        if found is None or not takes_positionals(found[0]):
            raise
        where, flag = found
        where.error(unrecognized(where, [flag, *_value_after(argv, flag)]))
    chosen = chosen_parser(options)
    options = settle(options)
    if extras:
        chosen.error(unrecognized(chosen, extras))
    return options
