"""Configures one simulator run: data set, paging convention, auth, errors, limits and faults.

`SimulatorConfig` is the run, `FaultSpec` one kind of fault injected into it; every field is
checked when a configuration is made, a bad value raising ValueError or TypeError that names it.
"""

from __future__ import annotations

import difflib
import enum
import fnmatch
import os
import re
from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Any, Final, Literal

import attrs

from remedy_async import CONVENTIONS, ERROR_SHAPES

from ._composition import PREFIX, Composition

RESOURCES: Final = ("endpoints", "remediation-targets", "scopes", "vulnerability-findings")
"""The collections, by their path segment under `/v1/`."""

ROUTE_NAMES: Final = (
    *(f"{operation}:{resource}" for resource in RESOURCES for operation in ("list", "get")),
    "health",
    "agent-configuration",
)
"""Every route the simulator serves, as named in fault specs and counters."""

DOCUMENT_PATH: Final = "/openapi.json"
"""Where a simulator serves the OpenAPI document of its run (see `_openapi`)."""

TENANTS_FILE: Final = "tenants.toml"
"""The name of the file `Simulator.write_tenants_file` writes the tenants' keys into."""

UNMATCHED_ROUTE: Final = "unmatched"
"""The counters' name for requests to a path the simulator does not serve."""

PAGING_CONVENTIONS: Final = tuple(CONVENTIONS)
"""Every paging convention the simulator serves: the names of `remedy_async.CONVENTIONS`."""
NAMINGS: Final = ("snake", "camel", "pascal", "kebab")
"""How the simulator spells record keys: snake_case as published, or respelled to test clients."""
ITEMS_KEYS: Final = ("items", "data", "results")
"""The envelope keys a run may put a page's items under (`SimulatorConfig.items_key`)."""
ERROR_FORMATS: Final = ERROR_SHAPES
"""Every error-body shape the simulator answers in, named as the client names the shapes it
tells apart (`remedy_async.ERROR_SHAPES`). The published one, `{"error": "<message>"}`, is
`error-string`; `error` is the nested `{"error": {"code", "message"}}`."""
PUBLISHED_ERROR_FORMAT: Final = "error-string"
"""The error body the service publishes: `{"error": "<human-readable message>"}`."""
RETRY_AFTER_FORMATS: Final = ("seconds", "http-date")
ORDERS: Final = ("created", "updated")
"""The list orders a run may serve (`SimulatorConfig.order`)."""

PagingName = str
"""A name of `PAGING_CONVENTIONS`, or a composed mode `compose:...` (checked when a configuration
is made)."""
COMPOSE_PREFIX: Final = PREFIX
ItemsKey = Literal["items", "data", "results"]
ErrorFormat = str
"""A name of `ERROR_FORMATS` (checked when a configuration is made)."""
RetryAfterFormat = Literal["seconds", "http-date"]
ListOrder = Literal["created", "updated"]
"""A name of `ORDERS`: by creation (stable), or by last change (`updated_at` ascending)."""

MAX_SIZE: Final = 1_000_000
DEFAULT_CACHE_BYTES: Final = 64 * 1024 * 1024

_PATH = re.compile(r"^(/[A-Za-z0-9._~-]+)+$")


# Checks (attrs validators, raising ValueError or TypeError naming the field) and
# conversions (attrs converters) of the fields below.

_HEADER_NAME = re.compile(r"^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")
"""An HTTP header name (an RFC 9110 token)."""


def _to_routes(value: str | Iterable[str] | None) -> tuple[str, ...] | None:
    if value is None:
        return None
    if isinstance(value, str):
        return tuple(part for part in value.split(",") if part)
    return tuple(value)


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


def _integer(_: object, attribute: attrs.Attribute[Any], value: object) -> None:
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError(f"{attribute.name} must be an int, got {value!r}")


def _positive(_: object, attribute: attrs.Attribute[Any], value: float) -> None:
    if value <= 0:
        raise ValueError(f"{attribute.name} must be positive, got {value!r}")


def _optional_count(_: object, attribute: attrs.Attribute[Any], value: object) -> None:
    if value is None:
        return
    _integer(_, attribute, value)
    if not isinstance(value, int) or value < 1:
        raise ValueError(f"{attribute.name} must be at least 1, or None; got {value!r}")


def _open_fraction(_: object, attribute: attrs.Attribute[Any], value: float) -> None:
    if not 0.0 < value < 1.0:
        raise ValueError(f"{attribute.name} must be between 0 and 1 (both excluded), got {value!r}")


def _to_directory(value: str | os.PathLike[str] | None) -> str | None:
    return None if value is None else os.fspath(value)


def _directory(_: object, attribute: attrs.Attribute[Any], value: str | None) -> None:
    if value is not None and (not value or "\0" in value):
        raise ValueError(f"{attribute.name} must be a directory's path, or None; got {value!r}")


def _port(_: object, attribute: attrs.Attribute[Any], value: int) -> None:
    if not 0 <= value <= 65535:
        raise ValueError(f"{attribute.name} must be between 0 and 65535, got {value!r}")


def _token(_: object, attribute: attrs.Attribute[Any], value: str | None) -> None:
    if value is not None and (not value or any(char in value for char in "\r\n\0")):
        raise ValueError(f"{attribute.name} must be a non-empty single-line string, or None")


def _header_name(_: object, attribute: attrs.Attribute[Any], value: str) -> None:
    if not _HEADER_NAME.match(value):
        raise ValueError(f"{attribute.name} must be an HTTP header name, got {value!r}")


def _scheme(_: object, attribute: attrs.Attribute[Any], value: str | None) -> None:
    if value is not None and not _HEADER_NAME.match(value):
        raise ValueError(f"{attribute.name} must be a single word such as 'Bearer', or None")


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


def _masked(token: str | None) -> str:
    return "None" if token is None else "'***'"


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


COUNTED: Final = ("nth", "every", "first")
"""The certain forms of a fault, by keyword: which of the requests it applies to it hits."""


def _to_numbers(value: int | Iterable[int] | None) -> tuple[int, ...] | None:
    if value is None or isinstance(value, int):
        return None if value is None else (value,)
    if isinstance(value, str):
        raise TypeError(f"nth must be an int or ints, such as 3 or (1, 3); got {value!r}")
    return tuple(value)


def _check_numbers(
    _: object, attribute: attrs.Attribute[Any], value: tuple[int, ...] | None
) -> None:
    if value is None:
        return
    if not value:
        raise ValueError(f"{attribute.name} must name at least one request, such as 3 or (1, 3)")
    for number in value:
        if not isinstance(number, int) or isinstance(number, bool):
            raise TypeError(f"{attribute.name} must hold ints, got {number!r}")
        if number < 1:
            raise ValueError(f"{attribute.name} counts requests from 1 (the first), got {number!r}")


def _to_rate(value: float | None) -> float | None:
    return None if value is None else float(value)


@attrs.frozen
class FaultSpec:
    """One kind of fault, injected into some requests of some routes: by chance (`rate`) or
    for certain (`nth`, `every` or `first`).

    Give exactly one of them. `rate` hits a share of the requests: whether a request is hit is
    decided by a roll derived from the seed, the route and how many requests that route has
    seen, so a run is reproducible and a retried request rolls again; but a small run may see
    no fault at all. The certain forms count the requests the fault applies to (of its
    `routes`, all routes together, from 1 when the simulator starts; for `cursor-expired`,
    those that carry a cursor) and hit exactly the ones they name, whatever the seed:
    `FaultSpec("http-503", first=2)` answers the first two 503 and the third normally (a
    client that retries twice gets through), `nth=3` hits the third only, `nth=(1, 3)` the
    first and the third, `every=5` the fifth, tenth, fifteenth, ... A retried request is a new
    request: it counts, and can be hit again.

    `routes` holds route names or shell-style patterns (`list:*`); None means every route.
    When two faults (latency aside) hit one request, the first configured answers it.
    """

    kind: FaultKind = attrs.field(converter=_to_kind)
    """What the fault does: a FaultKind, or its name (`http-503`)."""
    rate: float | None = attrs.field(
        default=None, converter=_to_rate, validator=attrs.validators.optional(_fraction)
    )
    """The share of the routes' requests it hits, from 0 to 1, by seeded chance; None: one
    of `nth`, `every` or `first` decides."""
    routes: tuple[str, ...] | None = attrs.field(
        default=None, converter=_to_routes, validator=_check_routes
    )
    """Route names or shell-style patterns (`list:*`; a comma-separated string too), of
    `ROUTE_NAMES`; None: every route."""
    nth: tuple[int, ...] | None = attrs.field(
        default=None, kw_only=True, converter=_to_numbers, validator=_check_numbers
    )
    """Hit exactly these requests of the ones it applies to, counted from 1: an int (`3`, the
    third) or several (`(1, 3)`), kept as a tuple."""
    every: int | None = attrs.field(default=None, kw_only=True, validator=_optional_count)
    """Hit every this-many-th request of the ones it applies to: `5` hits the 5th, 10th, ..."""
    first: int | None = attrs.field(default=None, kw_only=True, validator=_optional_count)
    """Hit the first this-many requests of the ones it applies to, then none: `2` makes a
    service that fails twice, then succeeds."""
    latency_ms: float = attrs.field(default=100.0, kw_only=True, validator=_non_negative)
    """Latency faults: the delay, in milliseconds."""
    jitter_ms: float = attrs.field(default=0.0, kw_only=True, validator=_non_negative)
    """Latency faults: up to this many random milliseconds more."""
    retry_after: int = attrs.field(default=1, kw_only=True, validator=_non_negative)
    """`http-429` faults: the seconds `Retry-After` asks to wait."""
    retry_after_format: RetryAfterFormat = attrs.field(
        default="seconds", kw_only=True, validator=_one_of(RETRY_AFTER_FORMATS)
    )
    """`http-429` faults: `Retry-After` as `seconds` or an `http-date`."""
    stall_seconds: float = attrs.field(default=5.0, kw_only=True, validator=_non_negative)
    """`stall` faults: how long the body waits after the headers."""

    def __attrs_post_init__(self) -> None:
        given = [name for name in ("rate", *COUNTED) if getattr(self, name) is not None]
        if not given:
            raise ValueError(
                f"fault {self.kind.value!r} needs a rate (the share of requests it hits, 0 to "
                "1, by chance) or a certain count: nth=N (the Nth request), every=N or first=N"
            )
        if len(given) > 1:
            named = " and ".join(f"{name}={getattr(self, name)!r}" for name in given)
            raise ValueError(
                f"fault {self.kind.value!r} takes one of rate, nth, every or first, got {named}"
            )

    def __str__(self) -> str:
        """The fault as written on the command line, such as `http-503:first=2:list:*`
        (the keyword-only options aside)."""
        how = (
            f"nth={','.join(map(str, self.nth))}"
            if self.nth is not None
            else f"every={self.every}"
            if self.every is not None
            else f"first={self.first}"
            if self.first is not None
            else f"{self.rate:g}"
        )
        routes = "" if self.routes is None else ":" + ",".join(self.routes)
        return f"{self.kind.value}:{how}{routes}"

    @property
    def certain(self) -> bool:
        """Whether it hits requests by their count (`nth`, `every`, `first`), not by chance."""
        return self.rate is None

    def hits(self, number: int) -> bool:
        """Tell whether a certain fault hits the `number`-th request it applies to (False for
        a fault by `rate`, which rolls instead).

        Args:
            number: The request's place among those the fault applies to, from 1.
        """
        if self.nth is not None:
            return number in self.nth
        if self.every is not None:
            return number % self.every == 0
        if self.first is not None:
            return number <= self.first
        return False

    def applies_to(self, route: str) -> bool:
        """Tell whether this fault may hit requests of `route`.

        Args:
            route: A route's name, of `ROUTE_NAMES`.
        """
        if self.routes is None:
            return True
        return any(fnmatch.fnmatchcase(route, pattern) for pattern in self.routes)

    @classmethod
    def parse(cls, text: str, **options: Any) -> FaultSpec:
        """Read a fault written as on the command line; ValueError names what is wrong.

        Args:
            text: `KIND:HOW[:ROUTE[,ROUTE...]]`, where HOW is a rate (`http-503:0.1`, a share
                of the requests, by chance) or a certain count: `nth=N` (or `nth=1,3`),
                `every=N` or `first=N`, such as `http-503:first=2:list:endpoints`.
            **options: The keyword-only fields (`latency_ms`, `stall_seconds`, ...).
        """
        kind, separator, rest = text.partition(":")
        if not separator:
            raise ValueError(
                f"fault {text!r} must look like KIND:RATE[:ROUTE] or KIND:first=N[:ROUTE] "
                "(nth=N, every=N)"
            )
        how, _, routes = rest.partition(":")
        try:
            fault_kind = kind_of(kind)
        except ValueError as error:
            raise ValueError(f"fault {text!r}: {error}") from None
        counted: dict[str, Any] = {}
        rate_value: float | None = None
        name, equals, number = how.partition("=")
        if equals:
            if name not in COUNTED:
                raise ValueError(
                    f"fault {text!r}: {name!r} is not nth, every or first (or a rate, such as 0.1)"
                )
            try:
                numbers = tuple(int(part) for part in number.split(","))
            except ValueError:
                raise ValueError(
                    f"fault {text!r}: {name} takes a whole number, got {number!r}"
                ) from None
            if name != "nth" and len(numbers) > 1:
                raise ValueError(f"fault {text!r}: {name} takes one number, got {number!r}")
            counted[name] = numbers if name == "nth" else numbers[0]
        else:
            try:
                rate_value = float(how)
            except ValueError:
                raise ValueError(
                    f"fault {text!r}: rate {how!r} is not a number (nor nth=N, every=N or first=N)"
                ) from None
        try:
            return cls(fault_kind, rate_value, routes or None, **counted, **options)
        except (TypeError, ValueError) as error:
            raise ValueError(f"fault {text!r}: {error}") from None


def _check_size(_: object, attribute: attrs.Attribute[Any], value: int) -> None:
    if not 0 <= value <= MAX_SIZE:
        raise ValueError(f"{attribute.name} must be between 0 and {MAX_SIZE}, got {value!r}")


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


def _to_faults(value: Iterable[FaultSpec]) -> tuple[FaultSpec, ...]:
    return tuple(value)


def _check_faults(_: object, attribute: attrs.Attribute[Any], value: tuple[FaultSpec, ...]) -> None:
    for fault in value:
        if not isinstance(fault, FaultSpec):
            raise TypeError(f"{attribute.name} must hold FaultSpec values, got {fault!r}")


@attrs.frozen(kw_only=True)
class SimulatorConfig:
    """Everything that shapes one simulator run; the defaults are the service's published
    contract.

    By default a run serves what the service publishes (REAL-CONTRACT.md): snake_case records
    with exactly the published fields and UUID ids, `limit`/`offset` in and `data`, `total`,
    `limit`, `offset` out (`limit` 1 to 100, default 50; a value out of bounds is a 422),
    `osFamily`/`hasAgent` on endpoints, undeclared query parameters ignored,
    `{"error": "<message>"}` bodies with the published messages, and 400 for a malformed id.
    Assumed where nothing is published: the lists of scopes, targets and findings follow the
    endpoints' pattern, targets' and findings' fields are in the spirit of the product's
    concepts, list order is creation order (`order`), and the health and agent-configuration
    paths are configurable guesses. Every other option serves a contract the service might drift to.

    The data set is a pure function of `seed`, `size` and `now`. Every field is a keyword
    argument (and an option of `python -m remedy_async.simulator`); a bad value raises
    ValueError or TypeError naming it.
    """

    host: str = "127.0.0.1"
    """The address to listen on."""
    port: int = attrs.field(default=0, validator=[_integer, _port])
    """The TCP port; 0 picks a free one (`Simulator.url` says which)."""
    seed: int = attrs.field(default=0, validator=_integer)
    """The seed of the data set and of the faults: the same seed, the same run."""
    size: int = attrs.field(default=100, validator=[_integer, _check_size])
    """The number of endpoints (about 20 findings each); the other collections scale with it."""
    now: datetime | None = attrs.field(default=None, converter=_to_now)
    """The simulator's present (UTC): every record's timestamps lie a seeded distance before it, and
    health reports it (plus the time since the simulator was made). A datetime, or an ISO 8601
    string read as UTC without an offset. None: the simulator's clock when it is made
    (`Simulator.config.now` then says which); pin it to get the same records on every run."""
    paging: PagingName = attrs.field(default="offset", validator=_check_paging)
    """The lists' paging convention: a name of `PAGING_CONVENTIONS` (`offset`, the published
    one: `limit`/`offset` in, `data`/`total`/`limit`/`offset` out), or a composed mode
    `compose:...` (see `Composition`). A request may pick another with the `X-Simulator-Paging`
    header."""
    disguise_paging: bool = False
    """Rename a named convention's continuation signals to names no client knows (`nxt_tok_x`, ...
    in the body, `Nxt-Tok-X` for a header), to prove that clients fail loudly on a service they
    cannot follow."""
    items_key: ItemsKey = attrs.field(default="data", validator=_one_of(ITEMS_KEYS))
    """The envelope key of a page's items: `data` (published), `items` or `results`."""
    naming: str = attrs.field(default="snake", validator=_one_of(NAMINGS))
    """How record keys are spelled: `snake` (published), or `camel`, `pascal`, `kebab` to test
    clients against services that differ only in spelling."""
    page_size: int = attrs.field(default=50, validator=[_integer, _positive])
    """Records per page when a list asks for no size (published: 50)."""
    max_page_size: int = attrs.field(default=100, validator=[_integer, _positive])
    """The largest page size a list may ask for (published: 100); a larger one, or one below 1,
    is a 422, in every paging convention."""
    token: str | None = attrs.field(default=None, validator=_token, repr=_masked)
    """The token every route but health requires; None: no auth. It never appears in the repr."""
    auth_header: str = attrs.field(default="Authorization", validator=_header_name)
    """The header that carries the token."""
    auth_scheme: str | None = attrs.field(default="Bearer", validator=_scheme)
    """The word before the token (`Authorization: Bearer <token>`); None: the bare token."""
    error_format: ErrorFormat = attrs.field(
        default=PUBLISHED_ERROR_FORMAT, validator=_one_of(ERROR_FORMATS)
    )
    """The shape of every error body: a name of `ERROR_FORMATS` (`error-string`, the published
    `{"error": "<message>"}`; `error`, `fastapi`, `json-api`, `html`, ...)."""
    echo_token: bool = False
    """A hostile server for tests: whatever credential a request carries is echoed into the cursors
    and next links it is given, into error bodies, and into a redirect of every get (to the same
    URL plus `echo=<credential>`), to prove that a client never shows it."""
    rate_limit: float | None = attrs.field(
        default=None, validator=attrs.validators.optional(_positive)
    )
    """Requests per second, as a token bucket (429 with `Retry-After` beyond it); None: no limit."""
    faults: tuple[FaultSpec, ...] = attrs.field(
        default=(), converter=_to_faults, validator=_check_faults
    )
    """The faults to inject (see FaultSpec), in order: the first that fires wins, latency adds to
    any."""
    cache: bool = True
    """Cache encoded records and pages (faster; turn off to measure encoding)."""
    cache_bytes: int = attrs.field(default=DEFAULT_CACHE_BYTES, validator=[_integer, _positive])
    """The memory the cache may use, in bytes."""
    agent_configuration_size: int = attrs.field(
        default=64 * 1024, validator=[_integer, _non_negative]
    )
    """The size of the agent configuration file, in bytes."""
    extra_fields_rate: float = attrs.field(default=0.0, validator=_fraction)
    """The share of records carrying fields the client's models do not know (kept in their
    `extra`); 0 serves exactly the published fields."""
    id_prefix: str = ""
    """A prefix of every id (`tenant/a b:`, to test ids that need encoding); a get's id must be
    the prefix and a well-formed UUID (else 400)."""
    strict_params: bool = False
    """Refuse (422, naming it) a list's query parameter that is neither a filter nor a paging
    parameter. The service ignores undeclared parameters, as FastAPI does: so does the default
    run."""
    health_path: str = attrs.field(default="/v1/health", validator=_check_path)
    """The path of the health check (unpublished: an assumed default, configurable)."""
    agent_configuration_path: str = attrs.field(
        default="/v1/agent-configuration", validator=_check_path
    )
    """The path of the agent configuration download (unpublished: an assumed default,
    configurable)."""
    base_path: str = attrs.field(default="", validator=_check_base_path)
    """A path every route is mounted under (`/wiki/rest/api`: lists at
    `/wiki/rest/api/v1/endpoints`, and `Simulator.url` ends with it); `""`: the root."""
    churn: float = attrs.field(default=0.0, validator=_fraction)
    """Make the data set change as a service's does: every `churn_every` list requests of a
    collection, this share of its visible records (rounded, at least one) is removed, as many
    modified and as many added, chosen by seed (see `Dataset.churn`). 0: the data never
    changes (unless `churn_count` is set)."""
    churn_count: int | None = attrs.field(default=None, validator=_optional_count)
    """Make the data set change by a number of records instead of a share: every `churn_every`
    list requests of a collection, exactly this many of its records are removed, this many
    modified and this many added (fewer when there are not enough), whatever its size; with
    `churn_every=1`, before every list request, so between every two pages. None: `churn`
    decides. Give `churn` or `churn_count`, not both."""
    churn_every: int = attrs.field(default=10, validator=[_integer, _positive])
    """List requests of a collection between changes, with `churn` or `churn_count` (1: a
    change before every list request). The step runs before the request is answered."""
    churn_reserve: float = attrs.field(default=0.2, validator=_fraction)
    """The share of records held back at the start, for `churn` or `churn_count` to add (they
    come back at their place in the order, i.e. anywhere in a list by creation)."""
    order: ListOrder = attrs.field(default="created", validator=_one_of(ORDERS))
    """The order of every list. `created` (default; the service's is unpublished, assumed
    stable): by creation, so a modified record keeps its place and an added one comes back at
    its own. `updated`: as a service sorting by `updated_at` ascending would be: the records
    never changed since they were generated first, by creation, then the records modified or
    added since, by the time of their last change, then by creation; so a modification *moves*
    a record to the end of the list, and offsets, totals, cursors and keyset ids follow that
    order (a scope, which publishes no `updated_at`, moves by its revisions too; `Dataset.update`
    moves nothing). The OpenAPI document is the same in both: the contract has no sort
    parameter."""
    range_filters: bool = False
    """Let lists take `updatedAt[gte]=TIME`, on records' `updated_at` (the filter a change feed
    narrows its passes with; unpublished)."""
    tenants: int = attrs.field(default=0, validator=[_integer, _non_negative])
    """The organisations (tenants) served, each with its own API key and records. 0: one, as the
    service serves one key (its token is `token`, None for no auth). N: N tenants named
    `org-01`, `org-02`, ... (see `SimulatedTenant`), each with a token derived from `seed`;
    then `token` must be None, every route but health and the OpenAPI document requires one of
    the tenants' tokens (another is the published 401), and the token picks whose records a
    request sees. Each tenant's records are a data set of its own (seeded from `seed` and its
    place, so ids differ between tenants), its share of `size`, churned by its own list
    requests; `cache_bytes` is shared out by size."""
    tenant_skew: float = attrs.field(default=0.4, converter=float, validator=_open_fraction)
    """With two tenants or more, the share of `size` (then the endpoints of every tenant
    together) the first tenant gets; the others share the rest, each within about half to one
    and a half of an even share (by seed), every tenant at least one endpoint. Between 0 and
    1, both excluded."""
    tenant_rate_limit: int | None = attrs.field(default=None, validator=_optional_count)
    """With tenants: the requests each token may have admitted in any window of
    `tenant_rate_window` seconds (a sliding window on the simulator's clock); one more is a
    429 with `Retry-After`, for that token only. Health and the OpenAPI document are not
    limited. None: no limit per token (the run-wide `rate_limit` applies either way)."""
    tenant_rate_window: float = attrs.field(default=1.0, converter=float, validator=_positive)
    """The window of `tenant_rate_limit`, in seconds."""
    tenants_directory: str | None = attrs.field(
        default=None, converter=_to_directory, validator=_directory
    )
    """A directory to write the tenants file into once the simulator listens (see
    `Simulator.write_tenants_file`; `--write-tenants DIR`); None: none. Needs tenants."""

    def __attrs_post_init__(self) -> None:
        if self.page_size > self.max_page_size:
            raise ValueError(
                f"page_size ({self.page_size}) must not exceed max_page_size ({self.max_page_size})"
            )
        if self.health_path == self.agent_configuration_path:
            raise ValueError("health_path and agent_configuration_path must differ")
        if any(char in self.id_prefix for char in "\r\n\0"):
            raise ValueError("id_prefix must not contain line breaks or NUL")
        if self.churn and self.churn_count is not None:
            raise ValueError(
                f"give churn (a share, {self.churn!r}) or churn_count (a number, "
                f"{self.churn_count!r}), not both"
            )
        self._check_tenants()

    def _check_tenants(self) -> None:
        if not self.tenants:
            for name in ("tenant_rate_limit", "tenants_directory"):
                if getattr(self, name) is not None:
                    raise ValueError(f"{name} needs tenants, 1 or more (this run has none)")
            return
        if self.token is not None:
            raise ValueError("token must be None with tenants: each tenant has its own")
        if self.size < self.tenants:
            raise ValueError(
                f"size ({self.size}) must be at least tenants ({self.tenants}): every tenant "
                "gets at least one endpoint"
            )

    @property
    def churning(self) -> bool:
        """Whether the data set changes as lists are requested (`churn` or `churn_count`)."""
        return bool(self.churn) or self.churn_count is not None
