"""The options the commands share, and the readers of their values: the connection and --debug
(global: before or after the command), progress, output, filters, --where and --fields.

Each help ends with the option's default, `(default: ...)`, and names the environment variable
it falls back to. An `add` argument is `add_shared` for an option a command shares with the
subcommands below it (see `_tree`), else `plain`.
"""

from __future__ import annotations

import argparse
import difflib
import re
from collections.abc import Callable, Sequence
from typing import Any, Final, TypeVar

from ._formats import OUTPUT_FORMATS
from ._query import parse_query
from ._server_filters import RESOURCE_NAMES, parse_filter, resource_named
from ._terminal import LINE_EVERY, PROGRESS_MODES
from ._tree import Parser, add_shared
from ._where import parse_where

T = TypeVar("T")

BASE_URL_ENV: Final = "REMEDY_BASE_URL"
CONTRACT_NAMING: Final = "snake"
"""How the published contract spells record keys: commands write records in it, whatever a
service sends (`to_wire(record, CONTRACT_NAMING)`)."""
DEFAULT_BASE_URL: Final = "https://api.furl.ai"
"""Where a command goes with neither --base-url nor REMEDY_BASE_URL: the client's own default,
the service (shown in --help; a test keeps the two equal)."""
TOKEN_ENV: Final = "REMEDY_API_TOKEN"
AUTH_HEADER_ENV: Final = "REMEDY_AUTH_HEADER"
CONFIG_ENV: Final = "REMEDY_CONFIG"
PROXY_ENV: Final = "REMEDY_PROXY"
LOG_ENV: Final = "REMEDY_LOG"
"""The library's logging switch, which `--debug` sets to `debug` while the command runs."""
PAGER_ENV: Final = "REMEDY_PAGER"
"""The pager of tables on a terminal, before `PAGER` (empty: none)."""
DEFAULT_PAGER: Final = "less -FRX"
"""The pager with neither variable set, as gh and git run it: it exits at once when the
table fits the screen (F), passes colours (R) and leaves the table on the screen (X)."""
NO_PROXY_WORDS: Final = frozenset({"none", "direct"})
"""--proxy values that connect straight to the service, ignoring the proxy variables."""
"""The environment the library reads too (see RemedyClient), named here for help and messages."""

CLIENT_TIMEOUT: Final = 30.0
CLIENT_RETRIES: Final = 2
CLIENT_MAX_IN_FLIGHT: Final = 64
"""The client's own defaults (`RemedyClient`'s timeout and max_in_flight, `RetryPolicy`'s
attempts less one), shown in the help. Written out, not read from the client, so the help
needs neither the client nor aiohttp; a test keeps them equal."""


def argument_type(convert: Callable[[str], T], name: str) -> Callable[[str], T]:
    def read(text: str) -> T:
        try:
            return convert(text)
        except ValueError as error:
            raise argparse.ArgumentTypeError(str(error)) from None

    read.__name__ = name
    return read


def whole(minimum: int) -> Callable[[str], int]:
    def read(text: str) -> int:
        value = int(text)
        if value < minimum:
            raise ValueError(f"must be at least {minimum}, got {value}")
        return value

    return argument_type(read, f"integer >= {minimum}")


def rate(text: str) -> str:
    """A --rate value, checked here for its shape; the client reads it (`RateLimit.parse`)."""
    if not re.fullmatch(r"\s*\d+\s*/\s*[0-9.e+-]*\s*[a-z]+\s*", text.lower()):
        raise ValueError(f"a rate is N/s, N/min, N/h or N/Xs, got {text!r}")
    return text


def seconds(text: str) -> float:
    value = float(text)
    if not 0 < value < float("inf"):
        raise ValueError(f"must be a positive number of seconds, got {text}")
    return value


def record_id(text: str) -> str:
    """An id as given (ids are opaque), once it names something: an empty or blank one is a
    usage error before any request."""
    if not text.strip():
        raise ValueError(f"a record id must not be empty, got {text!r}")
    return text


def export_directory(text: str) -> str:
    """An export's --out, refused when it says stdout (`-`): export writes files, whose
    checkpoints make it resumable, and `list` is what writes records to stdout."""
    if text == "-":
        raise ValueError(
            "export writes files into a directory, not to stdout; to write records to stdout "
            "use 'remedy-async list RESOURCE' (a directory named - is ./-)"
        )
    return text


QUERY = argument_type(parse_query, "query")
RESOURCE = argument_type(resource_named, "resource")
FILTER = argument_type(parse_filter, "filter")
RECORD_ID = argument_type(record_id, "id")
EXPORT_DIRECTORY = argument_type(export_directory, "directory")
RESOURCE_HELP = f"one of {', '.join(RESOURCE_NAMES)} (snake_case accepted)"


def connection_options() -> Parser:
    """The options of every command that talks to the service: where, how to authenticate,
    and how patiently."""
    parent = Parser(add_help=False)
    group = parent.add_argument_group("connection (before or after the command)")
    add = group.add_argument
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
    add_shared(
        add,
        "--base-url",
        metavar="URL",
        help=f"API base URL (default: ${BASE_URL_ENV}, else {DEFAULT_BASE_URL})",
    )
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
        type=argument_type(seconds, "seconds"),
        metavar="SECONDS",
        help=f"seconds per request attempt (default: {CLIENT_TIMEOUT:g})",
    )
    add_shared(
        add,
        "--retries",
        type=whole(0),
        metavar="N",
        help=f"retries per request; 0 turns them off (default: {CLIENT_RETRIES})",
    )
    add_shared(
        add,
        "--max-in-flight",
        type=whole(1),
        metavar="N",
        help=f"requests at once (default: {CLIENT_MAX_IN_FLIGHT})",
    )
    add_shared(
        add,
        "--rate",
        type=argument_type(rate, "rate"),
        metavar="N/UNIT",
        help="at most N requests per second, minute or hour, shared by every request of the "
        "command: 10/s, 600/min, 5000/h, 100/10s (default: no limit but the service's)",
    )
    add_shared(
        add,
        "--proxy",
        metavar="URL",
        help="forward proxy, http://[user:password@]host:port (https:// too); 'none' connects "
        f"directly, ignoring HTTPS_PROXY and HTTP_PROXY (default: ${PROXY_ENV}, else "
        "HTTPS_PROXY/HTTP_PROXY with NO_PROXY, as gh and curl read them)",
    )
    add_shared(
        add,
        "--allow-insecure-http",
        action="store_true",
        default=False,
        help="allow plain http to a host other than loopback (the token travels in clear)",
    )
    return parent


def common_options() -> Parser:
    parent = Parser(add_help=False)
    add_shared(
        parent.add_argument,
        "--debug",
        action="store_true",
        default=False,
        help=f"log requests on stderr (credentials redacted) and show tracebacks; sets "
        f"{LOG_ENV}=debug for the command, so the library and the processes it starts log "
        "at DEBUG; before or after the command",
    )
    return parent


def pager_options() -> Parser:
    """`--no-pager`, of the commands that may draw a table (`list`, `get`) and of the top
    level, as git takes it (`remedy-async --no-pager list endpoints`)."""
    parent = Parser(add_help=False)
    add_shared(
        parent.add_argument,
        "--no-pager",
        action="store_true",
        default=False,
        help=f"write a table straight to the terminal; otherwise a table on a terminal goes "
        f"through ${PAGER_ENV}, else $PAGER, else {DEFAULT_PAGER} (either variable set empty: "
        "no pager); output into a pipe or a file never does",
    )
    return parent


def progress_options() -> Parser:
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
        action="store_true",
        default=False,
        help="nothing on stderr but errors: no progress, no summary lines",
    )
    add_shared(
        group.add_argument,
        "--progress-every",
        type=argument_type(seconds, "seconds"),
        default=LINE_EVERY,
        metavar="SECONDS",
        help=f"seconds between progress lines (default: {LINE_EVERY:g})",
    )
    return parent


def completes_resources(action: argparse.Action) -> None:
    """Let shell completion offer the resource names (argcomplete reads `completer`)."""
    action.completer = lambda **_: RESOURCE_NAMES  # type: ignore[attr-defined]


def plain(add: Callable[..., argparse.Action], *flags: str, **kwargs: Any) -> argparse.Action:
    """`add_shared`'s signature, for an option of one parser only."""
    return add(*flags, **kwargs)


Adder = Callable[..., argparse.Action]
"""`add_shared` for an option a command shares with the subcommands below it, else `plain`."""


def add_filter_options(add_argument: Adder, add: Adder) -> None:
    add(
        add_argument,
        "--filter",
        "-f",
        type=FILTER,
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a published server-side filter, checked here (KEY as on the wire, osFamily, or "
        "in snake_case, os_family; one value each): only endpoints have any, osFamily and "
        "hasAgent, also given as --os-family and --has-agent (default: none)",
    )
    add(
        add_argument,
        "--param",
        type=FILTER,
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a query parameter sent as is, unchecked (a filter the service has and does not "
        "publish: it ignores one it does not know), repeatable (default: none)",
    )
    add(
        add_argument,
        "--where",
        type=parse_where,
        action="append",
        default=[],
        metavar="CONDITION",
        help="keep only records meeting it, checked here after fetching, repeatable (all must "
        "hold): 'operating_system.family=macos', 'severity in (critical,high)', "
        "'cvss_score>=7', 'agent_id=null'. PATH is a published field, or a field the records "
        "carry beside them (every field of targets and findings but id, created_at and "
        "updated_at), checked against the first page; a name no record has is an error; "
        "extra.NAME skips that check, for a field only some records have (default: every "
        "record)",
    )


def output_format(choices: Sequence[str], destination: str) -> Callable[[str], str]:
    """The reader of `-o`/`--output`/`--format`: a format name, in any case, as aws's and
    kubectl's `-o` take one. Any other value is a usage error listing the formats; one that
    looks like a path says to write files with `destination` (`--out-file FILE`, `--out DIR`),
    so that no value ever becomes a file by surprise."""

    def read(text: str) -> str:
        name = text.strip().lower()
        if name in choices:
            return name
        formats = ", ".join(choices)
        if looks_like_a_path(text):
            raise ValueError(
                f"-o/--output takes a format ({formats}), as aws's and kubectl's do, not a "
                f"file: to write to {text}, use {destination.split(maxsplit=1)[0]} {text}"
            )
        close = difflib.get_close_matches(name, choices, n=1, cutoff=0.5)
        hint = f" (did you mean {close[0]}?)" if close else ""
        raise ValueError(
            f"{text!r} is not a format{hint}; choose from {formats} (a file is {destination})"
        )

    return argument_type(read, "format")


def looks_like_a_path(text: str) -> bool:
    """Whether a value names a file rather than a format: it has a directory or an extension
    (`out/records`, `scopes.jsonl`, `~/x`), or is `-`."""
    return text == "-" or any(mark in text for mark in ("/", "\\", ".", "~"))


def out_file(text: str) -> str:
    """An `--out-file` path; a format's name alone (`--out-file json`) is refused, since that
    is `-o json` misplaced: a file of that name is `./json`."""
    if text.strip().lower() in OUTPUT_FORMATS:
        raise ValueError(
            f"{text} is a format's name, not a file: for the format use -o {text.lower()}; for a "
            f"file of that name write ./{text}"
        )
    return text


OUT_FILE = argument_type(out_file, "file")


def add_format(
    add_argument: Adder,
    add: Adder,
    *,
    choices: Sequence[str],
    destination: str,
    default: str | None,
    help: str,
) -> None:
    """Add a command's output format as `-o`/`--output` (aws's and kubectl's spelling) and
    `--format` (see `output_format`; `destination` is the command's way to name a file)."""
    add(
        add_argument,
        "--output",
        "-o",
        "--format",
        dest="format",
        type=output_format(choices, destination),
        choices=choices,
        default=default,
        metavar="FORMAT",
        help=help,
    )


def add_output_options(add_argument: Adder, add: Adder, *, table_on_terminal: bool = False) -> None:
    """-o/--output/--format (of list and get) and --fields. With `table_on_terminal` the default
    format is None: a table when stdout is a terminal, else jsonl (`_sinks.format_for`)."""
    add_format(
        add_argument,
        add,
        choices=OUTPUT_FORMATS,
        destination="--out-file",
        default=None if table_on_terminal else "jsonl",
        help="the format: jsonl, json (one array, valid even if the command fails), csv, or "
        "table, as aws's and kubectl's -o take one; a file is --out-file FILE "
        + (
            "(default: table when stdout is a terminal, as gh does; jsonl into a pipe or "
            "--out-file)"
            if table_on_terminal
            else "(default: jsonl)"
        ),
    )
    add_fields(add_argument, add)
    add_query(add_argument, add)


def add_fields(add_argument: Adder, add: Adder) -> None:
    add(
        add_argument,
        "--fields",
        metavar="PATHS",
        help="keep only these fields, comma-separated dotted paths, published or not: "
        "id,hostname,operating_system.family or id,severity,cve_id (csv and table get one "
        "column each) (default: every field)",
    )


def add_query(add_argument: Adder, add: Adder) -> None:
    add(
        add_argument,
        "--query",
        type=QUERY,
        metavar="EXPR",
        help="a JMESPath expression, as aws's --query takes it, applied to each record after "
        "--where and before --format writes what it gives: 'hostname', '{id: id, os: "
        "operating_system.family}', '[id, hostname]'; a record it makes null is written as null "
        "(an empty cell), never skipped; csv and table get a column per key of a {...} it ends "
        "with, else one; not with --fields (default: whole records)",
    )


def list_options() -> Parser:
    """What `list` takes besides the connection and progress, before or after the resource."""
    parent = Parser(add_help=False)
    add_filter_options(parent.add_argument, add_shared)
    add_shared(
        parent.add_argument,
        "--max-items",
        type=whole(0),
        metavar="N",
        help="write at most N records, as gh's --limit and aws's --max-items cap their "
        "output: with --where, pages are fetched until N records met it (default: all)",
    )
    add_shared(
        parent.add_argument,
        "--page-size",
        type=whole(1),
        metavar="N",
        help="records per page request, at most 100 (default: 100, the most the service serves)",
    )
    add_shared(
        parent.add_argument,
        "--starting-token",
        metavar="TOKEN",
        help="continue a list where an earlier one stopped, as aws's --starting-token does: "
        "the token a list stopped by --max-items (or an error) prints on stderr, for the same "
        "collection and filters (default: from the start)",
    )
    add_concurrency(parent.add_argument, add_shared)
    group = parent.add_argument_group("output")
    add_output_options(group.add_argument, add_shared, table_on_terminal=True)
    add_output_file(group.add_argument, add_shared)
    return parent


def add_concurrency(add_argument: Adder, add: Adder) -> None:
    add(
        add_argument,
        "--concurrency",
        type=whole(1),
        default=1,
        metavar="N",
        help="pages fetched at once, for offset and page-number lists that announce their "
        "total; records still come in order, exactly once. Cursor and link lists stay "
        "sequential, each page naming the next (default: 1)",
    )


def add_output_file(add_argument: Adder, add: Adder) -> None:
    add(
        add_argument,
        "--out-file",
        type=OUT_FILE,
        metavar="FILE",
        help="write to FILE instead of stdout, as a redirect does; it appears only once complete "
        "(default: stdout)",
    )
