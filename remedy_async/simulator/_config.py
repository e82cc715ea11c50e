"""Configures one simulator run: data set, paging convention, auth, errors, limits and faults."""

from __future__ import annotations

import difflib
import enum
import fnmatch
import re
from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Any, Final, Literal

import attrs

from remedy_async import CONVENTIONS, ERROR_SHAPES

from ._compose_text import PREFIX
from ._composition import Composition

RESOURCES: Final = ("endpoints", "remediation-targets", "scopes", "vulnerability-findings")
"""The collections, by their path segment under `/v1/`."""

ROUTE_NAMES: Final = (
    *(f"{operation}:{resource}" for resource in RESOURCES for operation in ("list", "get")),
    "health",
    "agent-configuration",
)
"""Every route the simulator serves, as named in fault specs and counters."""

DOCUMENT_PATH: Final = "/openapi.json"
"""Where a simulator serves the OpenAPI document of its run (see `_spec`)."""

UNMATCHED_ROUTE: Final = "unmatched"
"""The counters' name for requests to a path the simulator does not serve."""

PAGING_CONVENTIONS: Final = tuple(CONVENTIONS)
"""Every paging convention the simulator serves: the names of `remedy_async.CONVENTIONS`."""
NAMINGS: Final = ("camel", "snake", "pascal", "kebab")
"""How the simulator spells record keys: camelCase by contract, or respelled to test clients."""
ITEMS_KEYS: Final = ("items", "data", "results")
ERROR_FORMATS: Final = ERROR_SHAPES
"""Every error-body shape the simulator answers in, named as the client names the shapes it
tells apart (`remedy_async.ERROR_SHAPES`): the contract's own `error` first."""
RETRY_AFTER_FORMATS: Final = ("seconds", "http-date")

PagingName = str
"""A name of `PAGING_CONVENTIONS`, or a composed mode `compose:...` (checked when a configuration
is made)."""
COMPOSE_PREFIX: Final = PREFIX
ItemsKey = Literal["items", "data", "results"]
ErrorFormat = str
"""A name of `ERROR_FORMATS` (checked when a configuration is made)."""
RetryAfterFormat = Literal["seconds", "http-date"]

MAX_SIZE: Final = 1_000_000
DEFAULT_CACHE_BYTES: Final = 64 * 1024 * 1024

_HEADER_NAME = re.compile(r"^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")
_PATH = re.compile(r"^(/[A-Za-z0-9._~-]+)+$")


class FaultKind(enum.StrEnum):
    """What a fault does to a response; the value is the name used on the command line."""

    LATENCY = "latency"
    """Delay the answer by `latency_ms` plus up to `jitter_ms` (combines with any other fault)."""
    HTTP_500 = "http-500"
    HTTP_502 = "http-502"
    HTTP_503 = "http-503"
    HTTP_504 = "http-504"
    HTTP_429 = "http-429"
    """Answer 429 with `Retry-After` (seconds or an HTTP date, see FaultSpec)."""
    RESET = "reset"
    """Reset the TCP connection (RST) instead of answering."""
    TRUNCATE = "truncate"
    """Announce the full Content-Length, send about half the body, then close."""
    MALFORMED = "malformed"
    """Send a complete body, with a matching Content-Length, that is not valid JSON."""
    STALL = "stall"
    """Send the status line and headers, wait `stall_seconds`, then send the body."""
    WRONG_CONTENT_TYPE = "wrong-content-type"
    """Send the correct body labelled `text/html`."""
    CURSOR_EXPIRED = "cursor-expired"
    """Answer 410 `cursor_expired` to a list request that carries a cursor."""


FaultKindName = Literal[
    "latency",
    "http-500",
    "http-502",
    "http-503",
    "http-504",
    "http-429",
    "reset",
    "truncate",
    "malformed",
    "stall",
    "wrong-content-type",
    "cursor-expired",
]
"""The value of each `FaultKind`, as a type: `FaultSpec("http-5003", ...)` fails mypy."""


def kind_of(name: str) -> FaultKind:
    """The fault kind of a name; a ValueError lists the kinds (and the closest to `name`)."""
    try:
        return FaultKind(name)
    except ValueError:
        known = [kind.value for kind in FaultKind]
        close = difflib.get_close_matches(str(name), known, n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise ValueError(
            f"unknown kind {name!r}{hint}; fault kinds are {', '.join(known)}"
        ) from None


def _to_kind(value: FaultKind | FaultKindName) -> FaultKind:
    return kind_of(value)


def _to_routes(value: str | Iterable[str] | None) -> tuple[str, ...] | None:
    if value is None:
        return None
    if isinstance(value, str):
        return tuple(part for part in value.split(",") if part)
    return tuple(value)


def _check_routes(
    _: object, attribute: attrs.Attribute[Any], value: tuple[str, ...] | None
) -> None:
    if value is None:
        return
    if not value:
        raise ValueError("routes must name at least one route, or be None for every route")
    for pattern in value:
        if not fnmatch.filter(ROUTE_NAMES, pattern):
            known = ", ".join(ROUTE_NAMES)
            raise ValueError(f"{attribute.name}: {pattern!r} matches no route; routes are {known}")


def _fraction(_: object, attribute: attrs.Attribute[Any], value: float) -> None:
    if not 0.0 <= value <= 1.0:
        raise ValueError(f"{attribute.name} must be between 0 and 1, got {value!r}")


def _non_negative(_: object, attribute: attrs.Attribute[Any], value: float) -> None:
    if value < 0:
        raise ValueError(f"{attribute.name} must not be negative, got {value!r}")


def _one_of(choices: tuple[str, ...]) -> Any:
    def check(_: object, attribute: attrs.Attribute[Any], value: str) -> None:
        if value not in choices:
            raise ValueError(f"{attribute.name} must be one of {', '.join(choices)}; got {value!r}")

    return check


@attrs.frozen
class FaultSpec:
    """One kind of fault, injected into a share (`rate`) of the requests of some routes.

    Whether a request is hit is decided by a roll derived from the seed, the route and how many
    requests that route has seen, so a run is reproducible and a retried request rolls again.
    `routes` holds route names or shell-style patterns (`list:*`); None means every route.
    """

    kind: FaultKind = attrs.field(converter=_to_kind)
    rate: float = attrs.field(converter=float, validator=_fraction)
    routes: tuple[str, ...] | None = attrs.field(
        default=None, converter=_to_routes, validator=_check_routes
    )
    latency_ms: float = attrs.field(default=100.0, kw_only=True, validator=_non_negative)
    jitter_ms: float = attrs.field(default=0.0, kw_only=True, validator=_non_negative)
    retry_after: int = attrs.field(default=1, kw_only=True, validator=_non_negative)
    retry_after_format: RetryAfterFormat = attrs.field(
        default="seconds", kw_only=True, validator=_one_of(RETRY_AFTER_FORMATS)
    )
    stall_seconds: float = attrs.field(default=5.0, kw_only=True, validator=_non_negative)

    def applies_to(self, route: str) -> bool:
        """Tell whether this fault may hit requests of `route`."""
        if self.routes is None:
            return True
        return any(fnmatch.fnmatchcase(route, pattern) for pattern in self.routes)

    @classmethod
    def parse(cls, text: str, **options: Any) -> FaultSpec:
        """Read `KIND:RATE[:ROUTE[,ROUTE...]]`, e.g. `http-503:0.1:list:endpoints`.

        `options` fill the keyword-only fields (latency_ms, stall_seconds, ...). Raises
        ValueError naming what is wrong.
        """
        kind, separator, rest = text.partition(":")
        if not separator:
            raise ValueError(f"fault {text!r} must look like KIND:RATE[:ROUTE]")
        rate, _, routes = rest.partition(":")
        try:
            fault_kind = kind_of(kind)
        except ValueError as error:
            raise ValueError(f"fault {text!r}: {error}") from None
        try:
            rate_value = float(rate)
        except ValueError:
            raise ValueError(f"fault {text!r}: rate {rate!r} is not a number") from None
        try:
            return cls(fault_kind, rate_value, routes or None, **options)
        except ValueError as error:
            raise ValueError(f"fault {text!r}: {error}") from None


def _integer(_: object, attribute: attrs.Attribute[Any], value: object) -> None:
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError(f"{attribute.name} must be an int, got {value!r}")


def _check_size(_: object, attribute: attrs.Attribute[Any], value: int) -> None:
    if not 0 <= value <= MAX_SIZE:
        raise ValueError(f"{attribute.name} must be between 0 and {MAX_SIZE}, got {value!r}")


def _positive(_: object, attribute: attrs.Attribute[Any], value: float) -> None:
    if value <= 0:
        raise ValueError(f"{attribute.name} must be positive, got {value!r}")


def _check_port(_: object, attribute: attrs.Attribute[Any], value: int) -> None:
    if not 0 <= value <= 65535:
        raise ValueError(f"{attribute.name} must be between 0 and 65535, got {value!r}")


def _check_token(_: object, attribute: attrs.Attribute[Any], value: str | None) -> None:
    if value is not None and (not value or any(char in value for char in "\r\n\0")):
        raise ValueError(f"{attribute.name} must be a non-empty single-line string, or None")


def _check_header(_: object, attribute: attrs.Attribute[Any], value: str) -> None:
    if not _HEADER_NAME.match(value):
        raise ValueError(f"{attribute.name} must be an HTTP header name, got {value!r}")


def _check_scheme(_: object, attribute: attrs.Attribute[Any], value: str | None) -> None:
    if value is not None and not _HEADER_NAME.match(value):
        raise ValueError(f"{attribute.name} must be a single word such as 'Bearer', or None")


def _check_path(_: object, attribute: attrs.Attribute[Any], value: str) -> None:
    if not _PATH.match(value):
        raise ValueError(
            f"{attribute.name} must be a path such as '/v1/health' (unreserved characters "
            f"only), got {value!r}"
        )
    if value.split("/")[1:3] in (["v1", resource] for resource in RESOURCES):
        raise ValueError(f"{attribute.name} {value!r} collides with a collection path")
    if value == DOCUMENT_PATH:
        raise ValueError(f"{attribute.name} {value!r} is where the run's OpenAPI document is")


def _check_paging(_: object, attribute: attrs.Attribute[Any], value: str) -> None:
    if value in PAGING_CONVENTIONS:
        return
    if not value.startswith(COMPOSE_PREFIX):
        raise ValueError(
            f"{attribute.name} must be one of {', '.join(PAGING_CONVENTIONS)} or compose:...; "
            f"got {value!r}"
        )
    Composition.parse(value)


def _check_base_path(_: object, attribute: attrs.Attribute[Any], value: str) -> None:
    if value and not _PATH.match(value):
        raise ValueError(
            f"{attribute.name} must be '' or a path such as '/wiki/rest/api' (no trailing "
            f"slash, unreserved characters only), got {value!r}"
        )


def _to_now(value: datetime | str | None) -> datetime | None:
    """`now` in UTC: an aware datetime, or an ISO 8601 string (read as UTC without an offset)."""
    if value is None:
        return None
    if isinstance(value, str):
        try:
            moment = datetime.fromisoformat(value)
        except ValueError:
            raise ValueError(
                f"now must be an ISO 8601 date-time such as 2024-06-01T00:00:00Z, got {value!r}"
            ) from None
        value = moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)
    if not isinstance(value, datetime):
        raise TypeError(f"now must be a datetime (or an ISO 8601 string), got {value!r}")
    if value.tzinfo is None:
        raise ValueError(
            f"now must be timezone-aware, such as datetime(2024, 6, 1, tzinfo=UTC); got {value!r}"
        )
    return value.astimezone(UTC)


def _mask_token(token: str | None) -> str:
    return "None" if token is None else "'***'"


def _to_faults(value: Iterable[FaultSpec]) -> tuple[FaultSpec, ...]:
    return tuple(value)


def _check_faults(_: object, attribute: attrs.Attribute[Any], value: tuple[FaultSpec, ...]) -> None:
    for fault in value:
        if not isinstance(fault, FaultSpec):
            raise TypeError(f"{attribute.name} must hold FaultSpec values, got {fault!r}")


@attrs.frozen(kw_only=True)
class SimulatorConfig:
    """Everything that shapes one simulator run; the defaults are the assumed service contract.

    The data set is a pure function of `seed`, `size` (the number of endpoints; findings,
    remediation targets and scopes scale with it) and `now`, the simulator's present (UTC):
    every record's timestamps lie a seeded distance before it, and health reports it (plus the
    time since the simulator was made). `now=None`, the default, is the simulator's clock when
    it is made (`Simulator.config.now` then says which time that was); pin it (a datetime, or
    an ISO 8601 string read as UTC without an offset) to get the same records on every run.

    `paging` picks the run's paging convention, any name of `remedy_async.CONVENTIONS` or a
    composed mode `compose:...` (see `Composition`; a request may override it with the
    `X-Simulator-Paging` header); `disguise_paging` renames
    a named convention's continuation signals to names no client knows (`nxt_tok_x`, ... in the
    body, `Nxt-Tok-X` for a header), to prove that clients fail loudly on a service they cannot
    follow. With `token` set, every route but health needs
    `<auth_header>: <auth_scheme> <token>` (or just the token when `auth_scheme` is None).
    `error_format` shapes every error body (any name of `ERROR_FORMATS`, e.g. `fastapi`,
    `json-api`, `html`). `echo_token` makes a hostile server for tests: whatever credential a
    request carries is echoed into the cursors and next links it is given, into error bodies,
    and into a redirect of every get (to the same URL plus `echo=<credential>`), to prove that
    a client never shows it. `naming` respells every record key (snake, pascal, kebab) to test
    clients against services that differ only in spelling. `rate_limit` turns on a token
    bucket of that many requests per second. `base_path` mounts every route under a path
    (`/wiki/rest/api`: lists at `/wiki/rest/api/v1/endpoints`, and `Simulator.url` ends with
    it). `churn` makes the data set change as a service's does: every `churn_every` list
    requests of a collection, a `churn` share of its records is removed, as many modified and
    as many added (from a `churn_reserve` share held back at the start, or removed before),
    chosen by seed (see `Dataset.churn`). `range_filters` lets lists take `FIELD[gte]=TIME`
    on timestamp fields and `updatedAt` (the filter a change feed narrows its passes with).
    The token never appears in the repr.
    """

    host: str = "127.0.0.1"
    port: int = attrs.field(default=0, validator=[_integer, _check_port])
    seed: int = attrs.field(default=0, validator=_integer)
    size: int = attrs.field(default=100, validator=[_integer, _check_size])
    now: datetime | None = attrs.field(default=None, converter=_to_now)
    paging: PagingName = attrs.field(default="cursor", validator=_check_paging)
    disguise_paging: bool = False
    items_key: ItemsKey = attrs.field(default="items", validator=_one_of(ITEMS_KEYS))
    naming: str = attrs.field(default="camel", validator=_one_of(NAMINGS))
    page_size: int = attrs.field(default=100, validator=[_integer, _positive])
    max_page_size: int = attrs.field(default=1000, validator=[_integer, _positive])
    token: str | None = attrs.field(default=None, validator=_check_token, repr=_mask_token)
    auth_header: str = attrs.field(default="Authorization", validator=_check_header)
    auth_scheme: str | None = attrs.field(default="Bearer", validator=_check_scheme)
    error_format: ErrorFormat = attrs.field(default="error", validator=_one_of(ERROR_FORMATS))
    echo_token: bool = False
    rate_limit: float | None = attrs.field(
        default=None, validator=attrs.validators.optional(_positive)
    )
    faults: tuple[FaultSpec, ...] = attrs.field(
        default=(), converter=_to_faults, validator=_check_faults
    )
    cache: bool = True
    cache_bytes: int = attrs.field(default=DEFAULT_CACHE_BYTES, validator=[_integer, _positive])
    agent_configuration_size: int = attrs.field(
        default=64 * 1024, validator=[_integer, _non_negative]
    )
    extra_fields_rate: float = attrs.field(default=0.1, validator=_fraction)
    id_prefix: str = ""
    health_path: str = attrs.field(default="/v1/health", validator=_check_path)
    agent_configuration_path: str = attrs.field(
        default="/v1/agent-configuration", validator=_check_path
    )
    base_path: str = attrs.field(default="", validator=_check_base_path)
    churn: float = attrs.field(default=0.0, validator=_fraction)
    churn_every: int = attrs.field(default=10, validator=_positive)
    churn_reserve: float = attrs.field(default=0.2, validator=_fraction)
    range_filters: bool = False

    def __attrs_post_init__(self) -> None:
        if self.page_size > self.max_page_size:
            raise ValueError(
                f"page_size ({self.page_size}) must not exceed max_page_size ({self.max_page_size})"
            )
        if self.health_path == self.agent_configuration_path:
            raise ValueError("health_path and agent_configuration_path must differ")
        if any(char in self.id_prefix for char in "\r\n\0"):
            raise ValueError("id_prefix must not contain line breaks or NUL")
