"""The simulator's command-line options, shared by `python -m remedy_async.simulator` and
`remedy-async serve`, and the loop that serves until SIGINT or SIGTERM.

`--paging list` asks for the table of paging conventions instead of a server: both commands
print `paging_listing` and exit 0. `--print-spec` asks for the run's OpenAPI document (what it
would serve at `/openapi.json`): both commands print `printed_spec` and exit 0. With
`--tenants N`, `--write-tenants DIR` writes the tenants file there once the server listens, and
its path is printed after the URL.

Adding the options needs only the configuration (`_run_config`): the server (and aiohttp.web with
it) is imported by `serve`, the OpenAPI document's builder by `printed_spec`, so a command line
that only parses, or prints its help, pays for neither.
"""

from __future__ import annotations

import argparse
import asyncio
import re
import signal
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Final

from remedy_async import CONVENTIONS

from ._composition import PREFIX, Composition
from ._run_config import (
    ERROR_FORMATS,
    ITEMS_KEYS,
    NAMINGS,
    ORDERS,
    PAGING_CONVENTIONS,
    RETRY_AFTER_FORMATS,
    ROUTE_NAMES,
    TENANTS_FILE,
    FaultKind,
    FaultSpec,
    SimulatorConfig,
)

PAGING_LIST: Final = "list"
"""The `--paging` value that prints the conventions instead of serving."""

_DEFAULTS = SimulatorConfig()
_FAULT_DEFAULTS = FaultSpec(FaultKind.LATENCY, 0.0)


def _plain(add: Callable[..., Any], flag: str, kind: type, text: str, defaults: object) -> None:
    """An option that sets one value of the configuration (or of every fault, `defaults`
    saying whose), its default shown."""
    default = getattr(defaults, flag[2:].replace("-", "_"))
    add(flag, type=kind, default=default, help=f"{text} (default: %(default)s)")


def add_serve_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the simulator's options to a parser (shared with `remedy-async serve`), in groups:
    the server, the data, the lists, auth and errors, faults, routes, and tenants.

    Args:
        parser: The command line's parser, or one of its subcommands'.
    """
    for title, add_group in _GROUPS:
        add_group(parser.add_argument_group(title).add_argument)


def _add_server_arguments(add: Callable[..., Any]) -> None:
    """Where the simulator listens, what it caches, and the document it can print instead."""
    _plain(add, "--host", str, "address to listen on", _DEFAULTS)
    _plain(add, "--port", int, "TCP port; 0 picks a free one", _DEFAULTS)
    add(
        "--cache",
        action=argparse.BooleanOptionalAction,
        default=_DEFAULTS.cache,
        help=f"cache encoded records and pages (default: {'on' if _DEFAULTS.cache else 'off'})",
    )
    _plain(
        add, "--cache-bytes", int, "memory for cached encodings (benchmarks: every page)", _DEFAULTS
    )
    add(
        "--print-spec",
        action="store_true",
        help="write the OpenAPI document of this run (as served at /openapi.json) and exit",
    )


def _add_data_arguments(add: Callable[..., Any]) -> None:
    """The seeded records: how many, when, how spelled, and how they change and are ordered."""
    _plain(add, "--seed", int, "seed of the data set and faults", _DEFAULTS)
    _plain(add, "--size", int, "number of endpoints, ~20 findings each", _DEFAULTS)
    add(
        "--now",
        metavar="TIME",
        help="the simulator's present, an ISO 8601 time such as 2024-06-01T00:00:00Z (UTC "
        "without an offset): records are dated before it (default: when it starts)",
    )
    add(
        "--naming",
        choices=NAMINGS,
        default=_DEFAULTS.naming,
        help="spelling of record keys (default: %(default)s, the published one)",
    )
    add(
        "--id-prefix",
        default=_DEFAULTS.id_prefix,
        help="prefix every id, e.g. 'tenant/a b:' (default: none)",
    )
    add(
        "--churn",
        type=float,
        default=_DEFAULTS.churn,
        metavar="SHARE",
        help="change the data over time: every --churn-every list requests of a collection, "
        "remove SHARE of its records, modify as many (their updated_at moves) and add as many, "
        "chosen by seed (default: 0, no change)",
    )
    add(
        "--churn-every",
        type=int,
        default=_DEFAULTS.churn_every,
        metavar="N",
        help="list requests of a collection between changes, with --churn or --churn-count; "
        "1 changes the data before every list request, so between every two pages "
        "(default: %(default)s)",
    )
    add(
        "--churn-count",
        type=int,
        default=_DEFAULTS.churn_count,
        metavar="N",
        help="change the data by N records instead of a share: every --churn-every list "
        "requests of a collection, remove N of its records, modify N and add N (default: none; "
        "not with --churn)",
    )
    add(
        "--order",
        choices=ORDERS,
        default=_DEFAULTS.order,
        help="order of every list: 'created' (stable, by creation) or 'updated' (by last "
        "change, as a service sorting by updated_at: a modified record moves to the end) "
        "(default: %(default)s)",
    )
    _plain(add, "--agent-configuration-size", int, "bytes of the agent configuration", _DEFAULTS)


def _add_list_arguments(add: Callable[..., Any]) -> None:
    """How the lists page, where they keep their items, and which parameters they take."""
    add(
        "--paging",
        type=_paging,
        default=_DEFAULTS.paging,
        metavar="CONVENTION",
        help="paging convention of the lists (default: %(default)s), or a composed mode "
        f"'compose:KEY=VALUE,...' (see the docs); '{PAGING_LIST}' prints every convention and "
        "exits",
    )
    add(
        "--disguise-paging",
        action="store_true",
        default=_DEFAULTS.disguise_paging,
        help="rename the paging signals to names no client knows (nxt_tok_x, Nxt-Tok-X), "
        "to check that clients fail loudly",
    )
    add(
        "--items-key",
        choices=ITEMS_KEYS,
        default=_DEFAULTS.items_key,
        help="envelope key of the items (default: %(default)s)",
    )
    _plain(add, "--page-size", int, "page size when a list asks for none", _DEFAULTS)
    _plain(add, "--max-page-size", int, "largest page size", _DEFAULTS)
    add(
        "--range-filters",
        action="store_true",
        default=_DEFAULTS.range_filters,
        help="let lists take updatedAt[gte]=TIME (on records' updated_at), as a change "
        "feed's narrowed passes ask (watch --since-filter 'updatedAt[gte]')",
    )
    add(
        "--strict-params",
        action="store_true",
        default=_DEFAULTS.strict_params,
        help="refuse (422) a list's query parameter that is neither a filter nor a paging "
        "parameter (default: ignore it, as the service does)",
    )


def _add_access_arguments(add: Callable[..., Any]) -> None:
    """Who may ask (the token and how it is sent), how often, and how errors are written."""
    add(
        "--token",
        default=None,
        help="require this token; health stays open (default: none, no auth)",
    )
    _plain(add, "--auth-header", str, "header that carries the token", _DEFAULTS)
    add(
        "--auth-scheme",
        default=_DEFAULTS.auth_scheme,
        help="scheme before the token; 'none' for the bare token (default: %(default)s)",
    )
    add(
        "--rate-limit",
        type=float,
        default=None,
        help="requests per second, a token bucket (default: no limit)",
    )
    add(
        "--errors",
        "--error-format",
        dest="error_format",
        choices=ERROR_FORMATS,
        default=_DEFAULTS.error_format,
        metavar="SHAPE",
        help=f"shape of error bodies, one of {', '.join(ERROR_FORMATS)} (default: %(default)s)",
    )
    add(
        "--echo-token",
        action="store_true",
        default=_DEFAULTS.echo_token,
        help="hostile-server test mode: echo each request's credential into cursors, next "
        "links, error bodies and a redirect of every get, to check that clients never show it",
    )


def _add_fault_arguments(add: Callable[..., Any]) -> None:
    """The faults injected, and the delays, stalls and waits they bring."""
    add(
        "--fault",
        action="append",
        default=[],
        metavar="KIND:RATE[:ROUTE]",
        help=(
            "inject a fault (repeatable) into a share RATE of the requests, by chance, or for "
            "certain into the ones counted by nth=N (or nth=1,3), every=N or first=N in place "
            "of RATE (KIND:first=2 fails the first two requests, then none); "
            f"kinds: {', '.join(kind.value for kind in FaultKind)}; "
            f"routes (comma-separated, * allowed): {', '.join(ROUTE_NAMES)} (default: none)"
        ),
    )
    add(
        "--latency-ms",
        type=float,
        metavar="MS",
        help="delay every request by MS milliseconds; with a latency --fault, that fault's "
        f"delay instead (default: no delay; a latency fault's is {_FAULT_DEFAULTS.latency_ms:g})",
    )
    add(
        "--jitter-ms",
        type=float,
        metavar="MS",
        help="add up to MS random milliseconds to the delay of --latency-ms or of a latency "
        f"--fault (default: {_FAULT_DEFAULTS.jitter_ms:g})",
    )
    _plain(add, "--stall-seconds", float, "how long stall faults stall", _FAULT_DEFAULTS)
    _plain(add, "--retry-after", int, "seconds http-429 faults ask to wait", _FAULT_DEFAULTS)
    add(
        "--retry-after-format",
        choices=RETRY_AFTER_FORMATS,
        default=_FAULT_DEFAULTS.retry_after_format,
        help="http-429 faults: Retry-After as seconds or an HTTP date (default: %(default)s)",
    )


def _add_route_arguments(add: Callable[..., Any]) -> None:
    """Where the routes are: a base path for all, and the health and agent configuration."""
    add(
        "--base-path",
        default=_DEFAULTS.base_path,
        metavar="PATH",
        help="mount every route under PATH, e.g. /wiki/rest/api (default: none, the root)",
    )
    _plain(add, "--health-path", str, "path of the health check", _DEFAULTS)
    _plain(add, "--agent-configuration-path", str, "path of the agent configuration", _DEFAULTS)


def _add_tenant_arguments(add: Callable[..., Any]) -> None:
    """The options of a run of many organisations (tenants), each with its token and records."""
    add(
        "--tenants",
        type=int,
        default=_DEFAULTS.tenants,
        metavar="N",
        help="serve N organisations (org-01, ...), each with its own token, records (its share "
        "of --size), churn and rate limit; a request's token picks its records; 0: one, whose "
        "token is --token (default: %(default)s)",
    )
    add(
        "--tenant-skew",
        type=float,
        default=_DEFAULTS.tenant_skew,
        metavar="SHARE",
        help="with --tenants 2 or more, the share of --size the first tenant gets; the others "
        "share the rest about evenly (default: %(default)s)",
    )
    add(
        "--tenant-rate-limit",
        type=int,
        default=_DEFAULTS.tenant_rate_limit,
        metavar="N",
        help="with --tenants, at most N requests of each token admitted in any "
        "--tenant-rate-window seconds (a sliding window), 429 with Retry-After beyond "
        "(default: no limit)",
    )
    add(
        "--tenant-rate-window",
        type=float,
        default=_DEFAULTS.tenant_rate_window,
        metavar="SECONDS",
        help="the window of --tenant-rate-limit (default: %(default)s)",
    )
    add(
        "--write-tenants",
        dest="tenants_directory",
        default=_DEFAULTS.tenants_directory,
        metavar="DIR",
        help=f"with --tenants, write DIR/{TENANTS_FILE} (and each token in DIR/tokens/) once "
        "listening, and print its path (default: none)",
    )


_GROUPS: Final[tuple[tuple[str, Callable[[Callable[..., Any]], None]], ...]] = (
    ("server", _add_server_arguments),
    ("data", _add_data_arguments),
    ("lists", _add_list_arguments),
    ("auth, rate limit and errors", _add_access_arguments),
    ("faults", _add_fault_arguments),
    ("routes", _add_route_arguments),
    ("tenants", _add_tenant_arguments),
)
"""Each group of the simulator's options, with what adds them."""


def command_line() -> argparse.ArgumentParser:
    """The parser of `python -m remedy_async.simulator`: whole option names only (`--por` is
    not `--port`), as `remedy-async serve` takes them."""
    parser = argparse.ArgumentParser(
        prog="python -m remedy_async.simulator",
        description="Serve the simulated Remedy API (see remedy_async/openapi.yaml).",
        allow_abbrev=False,
    )
    add_serve_arguments(parser)
    return parser


def _paging(value: str) -> str:
    """A `--paging` value: a convention's name, `list`, or a valid `compose:...` spec."""
    if value in PAGING_CONVENTIONS or value == PAGING_LIST:
        return value
    if not value.startswith(PREFIX):
        known = ", ".join((*PAGING_CONVENTIONS, PAGING_LIST))
        raise argparse.ArgumentTypeError(
            f"invalid choice: {value!r} (choose from {known}, or compose:...)"
        )
    try:
        Composition.parse(value)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None
    return value


def config_from_args(ns: argparse.Namespace) -> SimulatorConfig:
    """Build the configuration from parsed options; raises ValueError on bad values, naming
    the options the user typed (`--port must be between 0 and 65535, got 99999`).

    Args:
        ns: The options `add_serve_arguments` added, parsed.
    """
    try:
        return _config_from_args(ns)
    except ValueError as error:
        raise ValueError(_in_flags(str(error), _option_flags())) from None


_SETTING: Final = re.compile(r"'[^']*'|(?<![\w-])[a-z][a-z0-9_]*(?![\w-])")
"""A quoted value (left as it is) or a word that may name a setting."""


def _in_flags(text: str, flags: Mapping[str, str]) -> str:
    """`text` with each setting it names (a bare word, not inside quotes) spelt as the option
    that sets it: `page_size (500) must not exceed max_page_size` -> `--page-size (500) ...`."""
    return _SETTING.sub(lambda found: flags.get(found[0], found[0]), text)


def _option_flags() -> dict[str, str]:
    """Each option's destination (the setting it fills) and its first long flag."""
    return {
        action.dest: next(flag for flag in action.option_strings if flag.startswith("--"))
        for action in command_line()._actions
        if action.option_strings
    }


def _config_from_args(ns: argparse.Namespace) -> SimulatorConfig:
    delays = {
        name: value
        for name, value in (("latency_ms", ns.latency_ms), ("jitter_ms", ns.jitter_ms))
        if value is not None
    }
    fault_options = {
        **delays,
        "stall_seconds": ns.stall_seconds,
        "retry_after": ns.retry_after,
        "retry_after_format": ns.retry_after_format,
    }
    faults = [FaultSpec.parse(text, **fault_options) for text in ns.fault]
    if delays and not any(fault.kind is FaultKind.LATENCY for fault in faults):
        # --latency-ms (or --jitter-ms) alone: every request of every route is delayed.
        every = FaultSpec(
            FaultKind.LATENCY, 1.0, latency_ms=ns.latency_ms or 0.0, jitter_ms=ns.jitter_ms or 0.0
        )
        faults.append(every)
    scheme = None if ns.auth_scheme in (None, "", "none") else ns.auth_scheme
    return SimulatorConfig(
        host=ns.host,
        port=ns.port,
        seed=ns.seed,
        size=ns.size,
        now=ns.now,
        paging=ns.paging,
        disguise_paging=ns.disguise_paging,
        items_key=ns.items_key,
        page_size=ns.page_size,
        max_page_size=ns.max_page_size,
        token=ns.token,
        auth_header=ns.auth_header,
        auth_scheme=scheme,
        error_format=ns.error_format,
        echo_token=ns.echo_token,
        rate_limit=ns.rate_limit,
        faults=tuple(faults),
        cache=ns.cache,
        cache_bytes=ns.cache_bytes,
        agent_configuration_size=ns.agent_configuration_size,
        id_prefix=ns.id_prefix,
        naming=ns.naming,
        health_path=ns.health_path,
        agent_configuration_path=ns.agent_configuration_path,
        base_path=ns.base_path,
        churn=ns.churn,
        churn_every=ns.churn_every,
        churn_count=ns.churn_count,
        order=ns.order,
        range_filters=ns.range_filters,
        strict_params=ns.strict_params,
        **_tenant_settings(ns),
    )


def _tenant_settings(ns: argparse.Namespace) -> dict[str, Any]:
    """The settings `_add_tenant_arguments` adds, as `SimulatorConfig` fields."""
    return {
        "tenants": ns.tenants,
        "tenant_skew": ns.tenant_skew,
        "tenant_rate_limit": ns.tenant_rate_limit,
        "tenant_rate_window": ns.tenant_rate_window,
        "tenants_directory": ns.tenants_directory,
    }


def paging_listing(ns: argparse.Namespace) -> str | None:
    """The paging conventions, one a line (name, then summary), if `--paging list` asked for
    them; else None, and the options are for a server.

    Args:
        ns: The parsed options.
    """
    if ns.paging != PAGING_LIST:
        return None
    width = max(len(name) for name in CONVENTIONS)
    return "".join(f"{name:<{width}}  {row.summary}\n" for name, row in CONVENTIONS.items())


def printed_spec(ns: argparse.Namespace, config: SimulatorConfig) -> bytes | None:
    """The run's OpenAPI document as indented JSON, if `--print-spec` asked for it; else None,
    and the options are for a server.

    Args:
        ns: The parsed options.
        config: The configuration they build (`config_from_args(ns)`).
    """
    if not ns.print_spec:
        return None
    from ._openapi import openapi_json  # noqa: PLC0415 - see the module's doc

    return openapi_json(config, indent=True)


async def serve(config: SimulatorConfig, *, until_signal: bool = True) -> None:
    """Run a simulator, announcing its URL on stdout (and then the path of the tenants file,
    with `tenants_directory`), until SIGINT or SIGTERM (then return normally), or until
    cancelled.

    Args:
        config: What to serve.
        until_signal: Stop on SIGINT or SIGTERM. False leaves signals to the caller
            (`remedy-async serve` exits 130 or 143 on them, as every command does).
    """
    from ._server import Simulator  # noqa: PLC0415 - see the module's doc

    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    signals = (signal.SIGINT, signal.SIGTERM) if until_signal else ()
    for signum in signals:
        loop.add_signal_handler(signum, stop.set)
    try:
        async with Simulator(config) as simulator:
            print(f"Remedy simulator listening on {simulator.url}", flush=True)
            if config.tenants_directory is not None:
                path = Path(config.tenants_directory) / TENANTS_FILE
                print(f"Remedy simulator tenants file: {path}", flush=True)
            await stop.wait()
    finally:
        for signum in signals:
            loop.remove_signal_handler(signum)
