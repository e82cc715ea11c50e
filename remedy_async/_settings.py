"""The client's settings and a call's: their defaults, and the checks that make a bad one fail
at construction, before any request.

A client's settings are checked here once (`base_url`, `token`, `proxies`, `rate_limit`, the
collections' `collection_settings`, the page size a list asks for); a call's own settings are
one value, `RequestOptions`, instead of keyword arguments on every method; `Telemetry` says
where OpenTelemetry spans and metrics go. Nothing here imports OpenTelemetry, so
`import remedy_async` never does: the first client built with telemetry on (the default) tries
to import the bridge (`_otel`), which imports `opentelemetry-api`; when that is not installed
the attempt is remembered and costs nothing more, and the client builds no events for it.
"""

from __future__ import annotations

import importlib.util
import ipaddress
import math
import os
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from types import MappingProxyType, ModuleType
from typing import TYPE_CHECKING, Any, TypedDict, TypeVar

import aiohttp
from attrs import evolve, field, frozen
from yarl import URL

from ._errors import ConfigurationError, check_count
from ._redact import described_url, looks_like_token, shown_value
from ._sending._budget import RateLimit
from ._sending._credential import TokenFrom, TokenProvider
from ._sending._events import ClientEvent
from ._sending._events import Telemetry as EventsTelemetry
from ._sending._headers import check_headers
from ._sending._proxies import ProxyRoutes
from ._sending._retry import RetryPolicy
from ._wire._query import QueryParams, encode_extra_params
from ._wire._record_reader import NAMING_SETTINGS, NamingSetting

if TYPE_CHECKING:
    from ._paging._protocol import Convention, Paginator

V = TypeVar("V")

DEFAULT_BASE_URL = "https://api.furl.ai"
"""The service's own API (Furl's public API), where a client with no URL and no
REMEDY_BASE_URL talks to."""
BASE_URL_ENV = "REMEDY_BASE_URL"
TOKEN_ENV = "REMEDY_API_TOKEN"
AUTH_HEADER = "Authorization"
AUTH_SCHEME = "Bearer"
API_VERSION = "/v1"
"""The path prefix every request's path starts with (a base URL ending in it is taken without)."""
HEALTH_PATH = "/v1/health"
AGENT_CONFIGURATION_PATH = "/v1/agent-configuration"
"""The client's defaults for where the token goes and the two paths outside the collections."""


def is_loopback(host: str) -> bool:
    """Whether a host name or address stays on this machine."""
    if host.lower() in {"localhost", "localhost."}:
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def base_url(value: str | URL | None, *, allow_insecure_http: bool) -> URL:
    """Return the base URL from the argument, REMEDY_BASE_URL or the service's own
    (`DEFAULT_BASE_URL`), checked, without a trailing `/` or `/v1`.

    A trailing `/v1` is dropped, since every path the client asks for starts with it
    (`https://api.furl.ai/v1`, as OpenAI's base URLs are written, is the service's root).
    Plain http is refused for any host but loopback unless allow_insecure_http is set, since
    the token would cross the network in clear text. No message repeats the value given,
    which may be a token pasted in its place: it says what the value looks like instead.
    """
    from_env = value is None and bool(os.environ.get(BASE_URL_ENV))
    raw = value if value is not None else os.environ.get(BASE_URL_ENV) or DEFAULT_BASE_URL
    name = BASE_URL_ENV if from_env else "base_url"
    if not raw:
        raise ConfigurationError(
            f"empty base URL: pass one, e.g. RemedyClient('{DEFAULT_BASE_URL}'), or leave it "
            f"out for the service's own"
        )
    if isinstance(raw, str) and looks_like_token(raw):
        fix = (
            f"set {TOKEN_ENV} to it instead"
            if from_env
            else "pass it as token= (RemedyClient(token=...)), and a base URL, if any, first"
        )
        raise ConfigurationError(f"{name} looks like a token, not a URL: {fix}")
    try:
        url = URL(raw)
        usable = url.scheme in {"http", "https"} and bool(url.host)
    except (ValueError, TypeError, UnicodeError):
        usable = False
    if not usable:
        raise ConfigurationError(
            f"{name} must be an absolute http(s) URL such as {DEFAULT_BASE_URL}, got "
            f"{described_url(raw)}"
        )
    if url.user is not None or url.password is not None:
        raise ConfigurationError(f"{name} must not contain credentials; pass token= instead")
    if url.query_string or url.fragment:
        raise ConfigurationError(f"{name} must not have a query or fragment")
    if url.scheme == "http" and not allow_insecure_http and not is_loopback(url.host or ""):
        raise ConfigurationError(
            f"refusing plain http to {url.host}: the token would travel unencrypted; use https "
            "or pass allow_insecure_http=True"
        )
    path = url.path.rstrip("/")
    return url.with_path(path.removesuffix(API_VERSION))


def token(value: str | TokenProvider | None) -> tuple[str | TokenProvider | None, str]:
    """Return the token from the argument or REMEDY_API_TOKEN (None when neither is set), or
    the token provider given (an async callable, asked when requests are sent); and where it
    came from, as a 401 names it (`REMEDY_API_TOKEN`, or a `TokenFrom`'s own origin)."""
    if value is not None and not isinstance(value, str):
        if not callable(value):
            raise ConfigurationError(
                "token must be a str or an async callable returning one (a token provider), "
                f"not a {type(value).__name__}"
            )
        return value, "the token provider given as token="
    found = value if value is not None else os.environ.get(TOKEN_ENV)
    if not found:
        given = "token= was an empty string" if value == "" else "none was given (token=)"
        return None, f"{given} and {TOKEN_ENV} is not set"
    if any(char in found for char in "\r\n\0"):
        raise ConfigurationError("the token contains a line break or NUL, which cannot be sent")
    if isinstance(found, TokenFrom):
        return str(found), found.origin
    return str(found), "the token= argument" if value is not None else TOKEN_ENV


def api_path(path: str, name: str) -> str:
    """Check a path appended to the base URL (health, agent configuration, `get_json`): it
    starts with one `/` and has no query or fragment, so it names a place under the base URL."""
    if not isinstance(path, str) or not path.startswith("/") or path[1:2] in ("/", "\\"):
        raise ConfigurationError(
            f"{name} must be a path starting with '/' (it is appended to the base URL), not a "
            f"URL or '//host/...', got {_shown_path(path)}"
        )
    if "?" in path or "#" in path:
        shown = path.split("?", 1)[0].split("#", 1)[0]
        raise ConfigurationError(
            f"{name} must be a path without a query or fragment ('?' or '#'), got {shown!r} "
            "followed by one (get_json takes a query as params=)"
        )
    return path


def _shown_path(path: object) -> str:
    """A path setting's value as a message shows it: as given, unless it is a URL or carries a
    query, where a secret may be (then what it looks like)."""
    plain = isinstance(path, str) and not any(mark in path for mark in ("://", "?", "#", "@"))
    return repr(path) if plain and not looks_like_token(str(path)) else described_url(path)


def origins(values: Iterable[str], name: str) -> frozenset[str]:
    """Check a list of origins (`https://host[:port]`) and return them normalised."""
    if isinstance(values, str):
        raise ConfigurationError(f"{name} must be a list of origins, not one string")
    found = set()
    for value in values:
        try:
            url = URL(str(value))
            usable = url.scheme in {"http", "https"} and bool(url.host)
            usable = usable and url.path in {"", "/"} and url.user is None and not url.query_string
        except (ValueError, UnicodeError):
            usable = False
        if not usable:
            raise ConfigurationError(
                f"{name} entries are origins like https://host, not {described_url(value)}"
            )
        found.add(str(url.origin()))
    return frozenset(found)


def one_of(value: str, choices: tuple[str, ...], name: str) -> Any:
    """Check a setting that must be one of a few names."""
    if value not in choices:
        raise ConfigurationError(
            f"{name} must be one of {', '.join(choices)}, got {shown_value(value)}"
        )
    return value


def positive_count(value: int, name: str) -> int:
    """Check a setting that must be an int >= 1."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ConfigurationError(f"{name} must be an int >= 1, got {shown_value(value)}")
    return value


def rate_limit(limit: RateLimit | str | None) -> RateLimit | None:
    """The RateLimit of a `rate_limit` setting (a RateLimit, shared by every client given it,
    or text such as `10/s`, a budget of the client's own)."""
    if limit is None:
        return None
    if isinstance(limit, str):
        try:
            limit = RateLimit.parse(limit)
        except ValueError as error:
            raise ConfigurationError(f"rate_limit: {error}") from None
    if not isinstance(limit, RateLimit):
        raise ConfigurationError(f"rate_limit must be a RateLimit, got {shown_value(limit)}")
    return limit


def retry_policy(value: RetryPolicy) -> RetryPolicy:
    """Check a `retry` setting: a RetryPolicy."""
    if not isinstance(value, RetryPolicy):
        raise ConfigurationError(f"retry must be a RetryPolicy, got {type(value).__name__}")
    return value


def proxies(
    proxy: str | URL | None,
    proxy_auth: tuple[str, str] | None,
    trust_env: bool,
    base: URL,
    token: str | TokenProvider | None,
    allow_insecure_http: bool,
) -> ProxyRoutes | None:
    """The proxy routes for the proxy settings (the environment read now, if trusted).

    A token is not sent in clear through a proxy: an http base URL that would be proxied is
    refused unless allow_insecure_http is set."""
    if isinstance(proxy, str) and looks_like_token(proxy):
        raise ConfigurationError(
            "proxy looks like a token, not a proxy URL: the API token goes in token=, a proxy's "
            "credentials in proxy_auth="
        )
    try:
        routes = ProxyRoutes.from_settings(proxy, proxy_auth, trust_env, os.environ)
    except ValueError as error:
        raise ConfigurationError(str(error)) from None
    if routes is None or base.scheme != "http" or not token or allow_insecure_http:
        return routes
    through = routes.for_url(base)
    if through is not None:
        raise ConfigurationError(
            f"refusing plain http through the proxy {through.shown}: the token would cross it "
            "unencrypted; use https, bypass the proxy (NO_PROXY), or pass allow_insecure_http=True"
        )
    return routes


def one_way_out(transport: object, pool: object, **session_settings: object) -> None:
    """Refuse settings of the aiohttp session given beside a `transport` that replaces it, or
    beside a `pool` that holds the connections (and its own TLS settings)."""
    given = [f"{name}=" for name, value in session_settings.items() if value]
    if transport is not None and (given or pool is not None):
        given += ["pool="] if pool is not None else []
        raise ConfigurationError(
            f"transport= sends every request itself, so {', '.join(given)} cannot apply: "
            "give them to the transport, or leave transport= out"
        )
    shared = [name for name in ("session=", "ssl_context=", "trace_configs=") if name in given]
    if pool is not None and shared:
        raise ConfigurationError(
            f"pool= holds the connections, so {', '.join(shared)} cannot apply: give the pool "
            "its ssl_context, or leave pool= out"
        )


def closest(name: str, choices: Iterable[str]) -> str:
    """` (did you mean 'x'?)` for the choice closest to a misspelt name, else an empty string."""
    import difflib  # noqa: PLC0415 - only a mistake pays for it

    found = difflib.get_close_matches(name, list(choices), n=1)
    return f" (did you mean {found[0]!r}?)" if found else ""


def per_collection(
    values: Mapping[str, V],
    name: str,
    collections: Sequence[str],
    check: Callable[[V, str], V] | None = None,
) -> dict[str, V]:
    """Check a per-collection setting (`paginators=`, `namings=`): keys are collection names."""
    checked = {}
    for key, value in values.items():
        if key not in collections:
            raise ConfigurationError(
                f"{name} names an unknown collection {key!r}{closest(key, collections)}; "
                f"collections are {', '.join(collections)}"
            )
        checked[key] = value if check is None else check(value, f"{name}[{key!r}]")
    return checked


def parameter_name(value: object, name: str) -> str:
    """Check a query parameter's name (a since filter's, `updatedAt[gte]`): a non-blank string."""
    if not isinstance(value, str) or not value.strip() or any(c in value for c in "&=#\r\n"):
        raise ConfigurationError(f"{name} must be a query parameter name, got {shown_value(value)}")
    return value


class CollectionSettings(TypedDict):
    """A collection's own settings: how its lists page and spell keys, its change feed's filter."""

    paginator: Paginator | None
    naming: NamingSetting
    since_filter: str | None


def collection_settings(
    collections: Sequence[str],
    paginator: Paginator | Convention | None,
    paginators: Mapping[str, Paginator | Convention] | None,
    naming: NamingSetting,
    namings: Mapping[str, NamingSetting] | None,
    since_filters: Mapping[str, str] | None,
) -> dict[str, CollectionSettings]:
    """Check the client-wide and per-collection settings and return each collection's own."""
    naming = one_of(naming, NAMING_SETTINGS, "naming")
    named = per_collection(
        namings or {},
        "namings",
        collections,
        lambda value, name: one_of(value, NAMING_SETTINGS, name),
    )
    since = per_collection(since_filters or {}, "since_filters", collections, parameter_name)
    pinned = per_collection(paginators or {}, "paginators", collections)
    chosen: dict[str, Paginator | None] = dict.fromkeys(collections)
    if paginator is not None or pinned:
        # only a program that sets paging loads it here; the default is made by a first list
        from ._paging._paginators._convention import as_paginator  # noqa: PLC0415

        for name in collections:
            value = pinned.get(name, paginator)
            chosen[name] = None if value is None else as_paginator(value)
    return {
        name: {
            "paginator": chosen[name],
            "naming": named.get(name, naming),
            "since_filter": since.get(name),
        }
        for name in collections
    }


# A list's page size -----------------------------------------------------------------------

MAX_PAGE_SIZE = 100
"""The published maximum of a list's `limit`: the largest page the service serves, and the
client's default page size."""


def sized_page(page_size: int | None, maximum: int) -> int:
    """The page size a list asks for: `page_size`, or `maximum` when it is None; ValueError for
    one outside 1..`maximum`, naming the bound."""
    if page_size is None:
        return maximum
    check_count("page_size", page_size, 1)
    if page_size > maximum:
        raise ValueError(
            f"page_size must be at most {maximum}, got {page_size!r}: the service serves at "
            f"most {maximum} records a page (for a service that allows more, raise "
            f"RemedyClient(max_page_size=...))"
        )
    return page_size


# A call's settings ---------------------------------------------------------------------------

Timeout = float | aiohttp.ClientTimeout
"""Seconds for the whole request, or an aiohttp.ClientTimeout for connect/read/total limits."""

DEFAULT_TIMEOUT = aiohttp.ClientTimeout(total=30, connect=10)
"""Per attempt: a call's 60 s deadline (RetryPolicy) leaves room for a retry. No separate read
timeout: the total bounds a stall, and a read timer costs a reschedule on every chunk."""


def to_client_timeout(timeout: Timeout) -> aiohttp.ClientTimeout:
    """Return an aiohttp.ClientTimeout for a timeout given in seconds or as one already."""
    if isinstance(timeout, aiohttp.ClientTimeout):
        return timeout
    if (
        isinstance(timeout, bool)
        or not isinstance(timeout, int | float)
        or not 0 < timeout < math.inf
    ):
        raise ValueError(f"timeout must be a positive number of seconds, got {timeout!r}")
    return aiohttp.ClientTimeout(total=float(timeout), connect=min(float(timeout), 10.0))


def frozen_headers(headers: Mapping[str, str]) -> Mapping[str, str]:
    """Return checked headers as a read-only mapping."""
    return MappingProxyType(check_headers(headers))


def _checked_timeout(timeout: Timeout | None) -> aiohttp.ClientTimeout | None:
    return None if timeout is None else to_client_timeout(timeout)


@frozen
class RequestOptions:
    """Settings for one call, overriding the client's: timeout, extra headers, retry policy,
    extra query parameters.

    For a list call they apply to every page request (the retry policy's deadline to each page).
    """

    timeout: aiohttp.ClientTimeout | None = field(default=None, converter=_checked_timeout)
    """The limit of each attempt, instead of the client's: seconds, or an
    `aiohttp.ClientTimeout`."""
    headers: Mapping[str, str] = field(factory=dict, converter=frozen_headers, hash=False)
    """Headers added to the client's (replacing any of the same name)."""
    retry: RetryPolicy | None = None
    """The retry policy, instead of the client's."""
    extra_params: QueryParams = field(default=(), converter=encode_extra_params)
    """Query parameters added, as given and unchecked, to a get's request and to a list's first
    request (a mapping of wire names to values); for filters the contract does not list."""


def with_headers(
    options: RequestOptions | None, headers: tuple[tuple[str, str], ...]
) -> RequestOptions:
    """A call's options with a page's own request headers (a header-borne continuation)."""
    if options is None:
        return RequestOptions(headers=dict(headers))
    return evolve(options, headers={**options.headers, **dict(headers)})


# OpenTelemetry, when it is installed ------------------------------------------------------


@frozen
class Telemetry:
    """Where a client's OpenTelemetry spans and metrics go (`RemedyClient(telemetry=...)`).

    By default the global providers (`opentelemetry.trace.set_tracer_provider`, and
    `metrics.set_meter_provider`) receive them, once an SDK sets them; until then the client
    builds nothing for them. Give providers here to send one client's telemetry elsewhere.
    """

    tracer_provider: Any = None
    """An `opentelemetry.trace.TracerProvider`, or None for the global one."""
    meter_provider: Any = None
    """An `opentelemetry.metrics.MeterProvider`, or None for the global one."""


_bridge: ModuleType | None = None
_tried = False


def _bridge_module() -> ModuleType | None:
    """The OpenTelemetry bridge, imported on first use; None when OpenTelemetry is missing."""
    global _bridge, _tried  # noqa: PLW0603 - one import attempt per process
    if not _tried:
        _tried = True
        try:
            from . import _otel  # noqa: PLC0415 - imports opentelemetry: only when a client asks
        except ImportError:
            _otel = None  # type: ignore[assignment]
        _bridge = _otel
    return _bridge


def telemetry_for(setting: bool | Telemetry, clock: Callable[[], float]) -> EventsTelemetry | None:
    """The consumer of a client's events that makes its spans and metrics, if any.

    `False` turns telemetry off; `True` uses the global providers when OpenTelemetry is
    installed (and is nothing otherwise); a `Telemetry` value names providers, and needs it.
    """
    if setting is False:
        return None
    if setting is not True and not isinstance(setting, Telemetry):
        raise ConfigurationError(
            f"telemetry must be True, False or a Telemetry, got {shown_value(setting)}"
        )
    if setting is True and _OPENTELEMETRY not in sys.modules:
        return _UntilImported(clock) if _installed("opentelemetry") else None
    module = _bridge_module()
    if module is None:
        if isinstance(setting, Telemetry):
            raise ConfigurationError(
                "telemetry=Telemetry(...) needs OpenTelemetry: pip install 'remedy-async[otel]'"
            )
        return None
    chosen = setting if isinstance(setting, Telemetry) else Telemetry()
    bridge: EventsTelemetry = module.OpenTelemetryBridge(
        chosen.tracer_provider, chosen.meter_provider, clock
    )
    return bridge


def _installed(package: str) -> bool:
    """Whether a package can be imported, found without importing it."""
    try:
        return importlib.util.find_spec(package) is not None
    except (ImportError, ValueError):
        return False


_OPENTELEMETRY = "opentelemetry.trace"
"""What an application (or its SDK) has imported once it can have set a global provider."""


class _UntilImported:
    """The global providers' bridge, made once the application has imported OpenTelemetry.

    Until then no SDK can have set a provider, so nothing listens, and a client built in a
    process that never uses OpenTelemetry does not import it (about 10 ms). Asked at most once
    a second on the client's clock, as the bridge itself asks whether an SDK has been set up
    since.
    """

    def __init__(self, clock: Callable[[], float]) -> None:
        self._clock = clock
        self._bridge: EventsTelemetry | None = None
        self._ask_again_at = 0.0

    def __repr__(self) -> str:
        return f"<telemetry {'bridged' if self._bridge else 'until OpenTelemetry is imported'}>"

    @property
    def listening(self) -> bool:
        """Whether the bridge, once made, has anyone to send to."""
        bridge = self._bridge
        if bridge is not None:
            return bridge.listening
        now = self._clock()
        if now < self._ask_again_at:
            return False
        self._ask_again_at = now + 1.0
        module = _bridge_module() if _OPENTELEMETRY in sys.modules else None
        if module is None:
            return False
        self._bridge = bridge = module.OpenTelemetryBridge(None, None, self._clock)
        return bool(bridge.listening)

    def __call__(self, event: ClientEvent) -> None:
        if self._bridge is not None:
            self._bridge(event)
