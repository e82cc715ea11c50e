"""The client: holds the connection, settings and shared limits, and serves the collections.

Its `Connection` is its settings (headers, attempt timeout, retry policy) over its `Outlet`, its
way out: the sender its requests go through (with the client's gate, events and limits), and
the session it may own. A client given a `transport=` or `session=` sends through it from the
start. Otherwise the session is opened on the first request, in the event loop running it, and
belongs to that loop: a request from another loop raises ClientClosedError saying so, as does
one after `close()`, which closes the session.

`with_options` derives a client with other settings over the same outlet: one pool, one gate
(in-flight slots and the service's pauses), one rate budget and one token for a parent and
all its derived clients. Closing a derived client closes nothing shared; closing the parent
closes the outlet, and every client derived from it raises ClientClosedError from then on.
`with_raw_response` (`RawClient`, and each collection's) returns the response that answered a
call, with the value the plain call returns (`_raw`).
"""

from __future__ import annotations

import asyncio
import copy
import os
import ssl
import time
import warnings
from collections.abc import Awaitable, Callable, Mapping, Sequence
from functools import partial
from typing import TYPE_CHECKING, Any, NoReturn, TypeVar

import aiohttp
from yarl import URL

from . import _settings as config
from ._collection import ResourceCollection
from ._errors import ClientClosedError
from ._models import (
    ENDPOINTS,
    REMEDIATION_TARGETS,
    RESOURCES,
    SCOPES,
    VULNERABILITY_FINDINGS,
    Endpoint,
    HealthStatus,
    RemediationTarget,
    Resource,
    Scope,
    VulnerabilityFinding,
)
from ._raw import RawResponse
from ._redact import redact_headers
from ._sending._budget import RateLimit
from ._sending._credential import (
    Credential,
    CredentialSource,
    KnownSecrets,
    StaticSecrets,
    TokenProvider,
)
from ._sending._events import EventHook, Events
from ._sending._gate import RequestGate, wall_clock_of
from ._sending._headers import check_headers, default_headers, refuse_credential_header
from ._sending._proxies import ProxyRoutes
from ._sending._retry import RetryPolicy
from ._sending._sender import Answer, Sender
from ._sending._transport import (
    AiohttpTransport,
    ConnectionPool,
    Transport,
    attempt_timeout_of,
    open_session,
)
from ._settings import (
    DEFAULT_TIMEOUT,
    MAX_PAGE_SIZE,
    RequestOptions,
    Telemetry,
    Timeout,
    telemetry_for,
    to_client_timeout,
)
from ._wire._decode import decode_json, record_from
from ._wire._http import AttemptTimeout, JSONResponse, Request, Response
from ._wire._query import ExtraParams, encode_extra_params
from ._wire._record_reader import NamingSetting

if TYPE_CHECKING:
    from ._download import Destination, DownloadResult
    from ._paging._protocol import Convention, Paginator

T = TypeVar("T")

COLLECTION_NAMES = tuple(resource.attribute for resource in RESOURCES)
DEFAULT_MAX_RESPONSE_BYTES = 128 * 1024 * 1024
DEFAULT_RETRY = RetryPolicy()


class RemedyClient:
    """An async client for the service's public read-only API (Furl's, `https://api.furl.ai`
    by default); use it as `async with RemedyClient(...) as client`.

    Records are read through its collections (`client.endpoints`, `client.scopes`, ...), the
    rest through `health()`, `download_agent_configuration()` and `get_json()`. Arguments but
    `base_url` are keyword-only, and a bad one raises ConfigurationError here, before any
    request; `RemedyClient.from_config(path)` reads them from a file instead, such as the one
    `remedy-async probe --emit-config` writes.

    Every request goes through one gate per client: at most `max_in_flight` at once, none
    while the service has asked everyone to wait (429, or no rate-limit budget left), no more
    than `rate_limit` allows; waiting for a slot or a turn counts against the attempt's
    `timeout` and the call's deadline (`retry`). `with_options(...)` derives a client with
    another timeout, retry policy or headers that shares this one's connections, gate, rate
    budget and token; `with_raw_response` gives calls' responses with their values.

    The client logs on the `remedy_async` logger: at INFO each retry, each pause the service
    asks of its key and each shift of an offset list, at DEBUG every request and response too,
    never the token. `REMEDY_LOG=info` (or `debug`) in the environment, read here, switches
    that log on, with a stderr handler when the application configured no logging; another
    value raises ConfigurationError.

    Args:
        base_url: The API's root; a path prefix is kept, and a trailing `/v1` dropped (every
            path the client asks for starts with it, so `https://api.furl.ai/v1` is the same
            as `https://api.furl.ai`). Default: `REMEDY_BASE_URL`, else the service's own,
            `https://api.furl.ai` (Furl's public API). Plain `http://` is refused for any
            host but loopback (see `allow_insecure_http`). A value that looks like a token is
            refused saying so (pass it as `token=`), and no error repeats the value.
        token: The API token, or a token provider: an async callable returning it (`async
            def token() -> str`), asked before every attempt (a retried attempt carries a
            fresh token; caching tokens is the provider's own business) and once more after a
            401, the request then sent once more if the provider gives another token. Default:
            `REMEDY_API_TOKEN`, and with neither, requests carry no credential. No token
            appears in reprs, errors, events or logs; a provider that raises, or returns what
            is not a token, is a TokenProviderError, the request unsent. A 401's message says
            whether a token was sent, in which header and where it came from (the argument,
            the provider, `REMEDY_API_TOKEN` or a profile's `token_env`).
        auth_header: The header the token goes in.
        auth_scheme: The word before the token (`Authorization: Bearer <token>`); None sends
            the bare token (`auth_header="X-API-Key", auth_scheme=None`).
        timeout: The limit of each attempt: seconds for the whole request, or an
            `aiohttp.ClientTimeout` for separate connect, read and total limits. Default: 30 s
            in all, 10 s to connect.
        headers: Extra headers sent with every request; not the token's header.
        retry: When and how failed attempts are retried, and the deadline of a call: see
            RetryPolicy. Default: 3 attempts with backoff, within 60 s.
        max_in_flight: The most requests at once, across every task using the client.
        max_response_bytes: The largest response body read (default 128 MiB); a larger one
            raises ResponseTooLargeError, unread, and is not retried.
        follow_redirects: Follow redirects (301, 302, 303, 307, 308; up to 5). A redirect to
            another origin never carries the credential header. Default off: a redirect raises
            APIStatusError naming its `Location`.
        allow_insecure_http: Allow plain `http://` to a host other than loopback, although the
            token then crosses the network unencrypted (and through a proxy). Default refused.
        ssl_context: TLS settings, such as a private CA or a client certificate. Default: the
            system's trust store, certificates verified.
        proxy: A forward proxy, `http://host:port` (or `https://`); its credentials may be in
            the URL (`http://user:password@host:port`) and go to the proxy alone. https
            requests tunnel through it (CONNECT), so it sees only host and port. Default:
            requests go straight to the service.
        proxy_auth: `(user, password)` for the proxy, instead of putting them in its URL.
        trust_env: Also read the proxy from `HTTPS_PROXY`, `HTTP_PROXY` and `NO_PROXY` (or
            their lower-case forms) when the client is made; never `~/.netrc`, the system's
            proxy settings or any other variable.
        session: An `aiohttp.ClientSession` of your own, used as given and never closed by the
            client. Default: the client opens one on first use and closes it in `close()`.
        pool: A `ConnectionPool` this client shares with others: one ceiling of requests in
            flight and connections over all of them (each request holds a slot of it besides
            one of `max_in_flight`), each client keeping its own token, limits and rate budget.
            The client never closes it. Not with `session`, `ssl_context` or `trace_configs`
            (the pool holds the connections and their TLS settings).
        transport: A `Transport` every request is sent through instead of aiohttp, such as
            `MockTransport(handler)` in unit tests: no session is opened, everything else
            (retries, limits, errors, events, paging) applies as usual, and the transport is
            never closed. It replaces what `session`, `proxy`, `proxy_auth`, `trust_env`,
            `ssl_context` and `trace_configs` set, so none of them may be given with it.
        event_hooks: Callables given a ClientEvent for everything the client does (each call,
            request, response, retry, wait, paging convention chosen): for logs and metrics.
            They are called synchronously and never see the token.
        telemetry: OpenTelemetry: each call a span, each attempt a child span, with
            request-duration, retry, 429 and wait metrics. True: on when the `otel` extra is
            installed and an SDK sets the global providers; `Telemetry(...)` names the
            providers; False: off.
        trace_configs: `aiohttp.TraceConfig`s for the client's own session, to see
            connection-level events (DNS, connection reuse) aiohttp reports.
        health_path: Where `health()` asks, under the base URL.
        agent_configuration_path: Where `download_agent_configuration()` downloads from, under
            the base URL.
        rate_limit: A request-rate budget shared by every task, retries included:
            `RateLimit(600, per=60)`, or text such as `"600/min"` or `"10/s"`. One RateLimit
            value is one budget: clients given the same instance (in one event loop) share it,
            so together they stay within it; text is a budget of this client's own. Default:
            none; only the service's 429 answers and rate-limit headers slow the client.
        paginator: How every list pages: a `Convention` (`CONVENTIONS["odata"]`, or one of
            your own) or a `Paginator`. Default: an `AutoPaginator` per list, which detects
            the convention from the first page.
        paginators: Per collection, overriding `paginator`: `{"scopes": CONVENTIONS["odata"]}`.
        trusted_origins: Other origins next-page links may lead to, such as
            `["https://cdn.example.com"]`. Default: only the base URL's, since the credential
            goes with every page request.
        naming: How records spell their keys: `"snake"` (the published contract's),
            `"camel"`, `"pascal"` or `"kebab"`; `"auto"` reads snake_case until a record
            shows another spelling, then that one, with a ContractDriftWarning.
        namings: Per collection, overriding `naming`: `{"scopes": "camel"}`.
        since_filters: Per collection, the update-time range filter its change feed narrows
            passes with, a query parameter taking an RFC 3339 time: `{"scopes":
            "updatedAt[gte]"}`. Default: none, full passes (see `ResourceCollection.changes`).
        max_page_size: The largest page a list asks for, and lists' default page size: the
            published maximum of `limit`, 100. A `page_size` above it is a ValueError before
            any request; raise it only for a service that serves larger pages.
        clock: The time the client's limits, pauses and deadlines count in: monotonic
            seconds. Tests replace it (as `remedy_clock.time` does); an injected clock also
            dates the service's `Retry-After` and `X-RateLimit-Reset`, counting from the real
            time when the client is made.
        sleep: How the client waits (retry backoff, 429 pauses, the rate limit). Default:
            `asyncio.sleep`; tests pass one that returns at once.
    """

    endpoints: ResourceCollection[Endpoint]
    """The managed devices: `await client.endpoints.get(id)`, `client.endpoints.list(...)`."""
    remediation_targets: ResourceCollection[RemediationTarget]
    """The remediation work planned or done on endpoints."""
    scopes: ResourceCollection[Scope]
    """The remediation scopes: which endpoints a remediation applies to."""
    vulnerability_findings: ResourceCollection[VulnerabilityFinding]
    """The vulnerabilities scanners found on endpoints."""

    def __init__(
        self,
        base_url: str | URL | None = None,
        *,
        token: str | TokenProvider | None = None,
        auth_header: str = config.AUTH_HEADER,
        auth_scheme: str | None = config.AUTH_SCHEME,
        timeout: Timeout = DEFAULT_TIMEOUT,
        headers: Mapping[str, str] | None = None,
        retry: RetryPolicy = DEFAULT_RETRY,
        max_in_flight: int = 64,
        max_response_bytes: int = DEFAULT_MAX_RESPONSE_BYTES,
        follow_redirects: bool = False,
        allow_insecure_http: bool = False,
        ssl_context: ssl.SSLContext | None = None,
        proxy: str | URL | None = None,
        proxy_auth: tuple[str, str] | None = None,
        trust_env: bool = False,
        session: aiohttp.ClientSession | None = None,
        pool: ConnectionPool | None = None,
        transport: Transport | None = None,
        event_hooks: Sequence[EventHook] = (),
        telemetry: bool | Telemetry = True,
        trace_configs: Sequence[aiohttp.TraceConfig] = (),
        health_path: str = config.HEALTH_PATH,
        agent_configuration_path: str = config.AGENT_CONFIGURATION_PATH,
        rate_limit: RateLimit | str | None = None,
        paginator: Paginator | Convention | None = None,
        paginators: Mapping[str, Paginator | Convention] | None = None,
        trusted_origins: Sequence[str] = (),
        naming: NamingSetting = "auto",
        namings: Mapping[str, NamingSetting] | None = None,
        since_filters: Mapping[str, str] | None = None,
        max_page_size: int = MAX_PAGE_SIZE,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Awaitable[None]] | None = None,
    ) -> None:
        self.base_url = config.base_url(base_url, allow_insecure_http=allow_insecure_http)
        """The API's root every request goes under, without a trailing `/`."""
        given, origin = config.token(token)
        source = CredentialSource(None if given is None else auth_header, origin)
        attempt_timeout = attempt_timeout_of(to_client_timeout(timeout))
        retry = config.retry_policy(retry)
        credential: Credential | None = None
        if given is None or isinstance(given, str):
            self._secrets: Sequence[str] = StaticSecrets((given,) if given else (), source)
            """The tokens this client sends, which nothing it shows holds, and where they come
            from (which a 401 says)."""
            sent_headers = default_headers(headers or {}, given, auth_header, auth_scheme)
        else:  # a token provider: its tokens are put in each attempt's headers
            known = KnownSecrets(source)
            self._secrets = known
            sent_headers = default_headers(headers or {}, None, auth_header, auth_scheme)
            refuse_credential_header(headers or {}, auth_header)
            credential = Credential(given, auth_header, auth_scheme, known)
        self._auth = (
            "no token"
            if given is None
            else f"{auth_header}=***" + ("" if isinstance(given, str) else " (provider)")
        )
        self._credential_header = None if given is None else auth_header
        max_response_bytes = config.positive_count(max_response_bytes, "max_response_bytes")
        config.one_way_out(
            transport, pool, session=session, proxy=proxy, proxy_auth=proxy_auth,
            trust_env=trust_env, ssl_context=ssl_context, trace_configs=trace_configs,
        )  # fmt: skip
        self._proxies = config.proxies(
            proxy, proxy_auth, trust_env, self.base_url, given, allow_insecure_http
        )
        self._gate = RequestGate(
            config.positive_count(max_in_flight, "max_in_flight"),
            clock,
            max_pause=retry.max_retry_after,
            limit=config.rate_limit(rate_limit),
            wall=wall_clock_of(clock),
            shared=None if pool is None else pool.slots,
        )
        credentials = frozenset(
            {auth_header.lower(), "authorization", "cookie", "proxy-authorization"}
        )
        telemetry_ = telemetry_for(telemetry, clock)
        self._events = Events(
            event_hooks, credentials, self._secrets, telemetry=telemetry_, clock=clock
        )
        self._health_url = URL(str(self.base_url) + config.api_path(health_path, "health_path"))
        self._agent_configuration_url = URL(
            str(self.base_url)
            + config.api_path(agent_configuration_path, "agent_configuration_path")
        )
        self._trusted_origins = config.origins(trusted_origins, "trusted_origins")
        self._page_limit = config.positive_count(max_page_size, "max_page_size")
        self._collection_settings = config.collection_settings(
            COLLECTION_NAMES, paginator, paginators, naming, namings, since_filters
        )
        if session is not None:
            transport = AiohttpTransport(session, proxies=self._proxies)
        outlet = Outlet(
            transport=transport,
            make_sender=partial(
                Sender, gate=self._gate, events=self._events, secrets=self._secrets,
                credential_headers=credentials, follow_redirects=follow_redirects,
                max_response_bytes=max_response_bytes, clock=clock,
                sleep=sleep if sleep is not None else asyncio.sleep, credential=credential,
            ),
            open_session=partial(
                open_session, max_connections=self._gate.max_in_flight, ssl_context=ssl_context,
                headers=sent_headers, credential_headers=credentials, timeout=attempt_timeout,
                trace_configs=list(trace_configs), proxies=self._proxies,
            ) if pool is None else partial(_through_pool, pool, self._proxies),
        )  # fmt: skip
        self._connection = Connection(
            outlet, (sent_headers, attempt_timeout, retry), name=self.__repr__
        )
        self._serve_collections()

    def _serve_collections(self) -> None:
        """Make the client's collections, sending through its connection."""
        connection, settings = self._connection, self._collection_settings

        def collection(resource: Resource[T]) -> ResourceCollection[T]:
            return ResourceCollection(
                resource,
                base_url=self.base_url,
                send=connection.send,
                answer=connection.answer,
                secrets=self._secrets,
                events=self._events,
                trusted_origins=self._trusted_origins,
                max_page_size=self._page_limit,
                **settings[resource.attribute],
            )

        self.endpoints = collection(ENDPOINTS)
        self.remediation_targets = collection(REMEDIATION_TARGETS)
        self.scopes = collection(SCOPES)
        self.vulnerability_findings = collection(VULNERABILITY_FINDINGS)

    def with_options(
        self,
        *,
        timeout: Timeout | None = None,
        retry: RetryPolicy | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> RemedyClient:
        """Return a client that sends with these settings instead of this client's, and shares
        everything else with it: its connection pool (or session, or transport), its in-flight
        slots, its gate (a 429's pause holds both), its rate budget and its token.

        So this client and any number derived from it never exceed `max_in_flight` or
        `rate_limit` together. Closing a derived client closes nothing of this one's; closing
        this one closes the connections they share, and a derived client then raises
        ClientClosedError. A derived client can be derived from in turn. Query parameters stay
        per call (`RequestOptions(extra_params=...)`, `list(extra_params=...)`): they change
        what a list is, and so its resume tokens and change-feed states. A bad setting raises
        here, before any I/O, as the constructor would raise it.

            patient = client.with_options(timeout=120, retry=RetryPolicy(attempts=6))
            scope = await patient.scopes.get(scope_id)

        Args:
            timeout: The limit of each attempt instead of this client's: seconds, or an
                `aiohttp.ClientTimeout`. Default: this client's.
            retry: The retry policy instead of this client's. Default: this client's.
            headers: Headers added to this client's, replacing any of the same name (in any
                letter case); not the token's header. Default: none added.
        """
        base_headers, attempt_timeout, policy = self._connection.base_settings
        if headers:
            added = check_headers(headers)
            if self._credential_header is not None:
                refuse_credential_header(added, self._credential_header)
            replaced = {name.lower() for name in added}
            base_headers = {
                name: value for name, value in base_headers.items() if name.lower() not in replaced
            }
            base_headers.update(added)
        if timeout is not None:
            attempt_timeout = attempt_timeout_of(to_client_timeout(timeout))
        if retry is not None:
            policy = config.retry_policy(retry)
        derived = copy.copy(self)
        derived._connection = self._connection.derive(
            (base_headers, attempt_timeout, policy), name=derived.__repr__
        )
        derived._serve_collections()
        return derived

    @property
    def with_raw_response(self) -> RawClient:
        """This client's calls outside its collections (`health()`, `get_json()`), each
        returning the RawResponse that answered it: `await
        client.with_raw_response.health()`. A collection's `get` has its own
        (`client.endpoints.with_raw_response.get(id)`)."""
        return RawClient(self)

    @classmethod
    def from_config(
        cls,
        path: str | os.PathLike[str],
        *,
        profile: str = "default",
        environ: Mapping[str, str] | None = None,
        **overrides: Any,
    ) -> RemedyClient:
        """Return a client configured by a profile of a TOML file, such as `probe` writes.

        A bad file, profile or setting raises ConfigurationError naming it, before any I/O.

        Args:
            path: The TOML file. Each profile is a table of this class's arguments
                (`base_url`, `naming`, `paginators` with convention names, ...), and
                `token_env`, the variable holding the token: a token never goes in a file.
            profile: The table to read.
            environ: Where `token_env`, `REMEDY_BASE_URL` and `REMEDY_API_TOKEN` are read;
                it fills only what neither the file nor `overrides` set. Default: `os.environ`.
            **overrides: Arguments of this class, winning over the file.
        """
        from ._profiles import client_settings  # noqa: PLC0415 - only a profile reads a file

        return cls(**client_settings(path, profile, environ, overrides))

    def __repr__(self) -> str:
        connection = getattr(self, "_connection", None)  # None until construction succeeds
        state = "closed" if connection is None or connection.closed else "open"
        if connection is not None and connection.derived:
            state += ", derived"
        return f"<RemedyClient {str(self.base_url)!r} {self._auth} {state}>"

    async def __aenter__(self) -> RemedyClient:
        self._connection.sender()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()

    def __enter__(self) -> NoReturn:
        """TypeError saying to use `async with`: the client is asyncio's, with no sync form."""
        raise TypeError(
            "RemedyClient is asynchronous: use 'async with RemedyClient(...) as client' inside "
            "an async function run by asyncio.run(), not 'with'"
        )

    def __exit__(self, *exc_info: object) -> None:
        """Never reached: `__enter__` refuses a plain `with`."""

    async def close(self) -> None:
        """Release the connection pool; safe to call twice. An injected session stays open.

        A client made by `with_options` releases nothing shared: it only stops sending."""
        await self._connection.close()

    def __del__(self) -> None:
        connection = getattr(self, "_connection", None)
        if connection is not None and connection.left_open:
            warnings.warn(
                f"{self!r} was not closed; use 'async with' or await client.close()",
                ResourceWarning,
                source=self,
                stacklevel=1,
            )

    @property
    def _owned_session(self) -> aiohttp.ClientSession | None:
        return self._connection.owned_session

    async def get_json(
        self,
        path: str,
        *,
        params: ExtraParams | None = None,
        options: RequestOptions | None = None,
    ) -> JSONResponse:
        """GET a path under the base URL with the client's auth, retries and limits, and return
        the decoded JSON response: for endpoints the library has no method for. An error status
        raises as any call does. A secret the service echoed into a header is redacted there.

        Args:
            path: Appended to the base URL, so it never leaves the configured origin; it must
                start with `/` and have no query (`/v1/endpoints/ep-1/software`).
            params: Query parameters, sent as given (a mapping of names to values).
            options: Settings for this call, overriding the client's.
        """
        url = self._json_url(path, params, options)
        return await self._events.traced("get_json", url, self._get_json(url, options))

    def _json_url(
        self, path: str, params: ExtraParams | None, options: RequestOptions | None
    ) -> URL:
        """Where `get_json` asks: `path` under the base URL, with the query parameters."""
        url = URL(str(self.base_url) + config.api_path(path, "path"), encoded=False)
        query = encode_extra_params(params) + (options.extra_params if options else ())
        return url.extend_query(query) if query else url

    async def _get_json(self, url: URL, options: RequestOptions | None) -> JSONResponse:
        response = await self._connection.send(Request("GET", url), options)
        return self._json_of(response)

    def _json_of(self, response: Response) -> JSONResponse:
        """`get_json`'s value of its response."""
        decoded = decode_json(response, secrets=self._secrets)
        headers = redact_headers(decoded.headers, self._secrets)  # shown as they are (api -i)
        return JSONResponse(decoded.url, decoded.status, headers, decoded.body)

    async def health(self, *, options: RequestOptions | None = None) -> HealthStatus:
        """Ask the service whether it is healthy; an error status raises, any 2xx answer returns.

        Args:
            options: Settings for this call, overriding the client's.
        """
        return await self._events.traced("health", self._health_url, self._health(options))

    async def _health(self, options: RequestOptions | None) -> HealthStatus:
        response = await self._connection.send(Request("GET", self._health_url), options)
        return self._health_of(response)

    def _health_of(self, response: Response) -> HealthStatus:
        """`health()`'s value of its response."""
        return record_from(HealthStatus, response, secrets=self._secrets)

    async def _raw(
        self,
        url: URL,
        options: RequestOptions | None,
        decode: Callable[[Response], T],
    ) -> RawResponse[T]:
        """GET `url` as the plain call does; the response, with `decode` making its value."""
        response, elapsed = await self._connection.answer(Request("GET", url), options)
        return RawResponse(response.status, elapsed, response, self._secrets, decode)

    async def download_agent_configuration(
        self,
        destination: Destination,
        *,
        etag: str | None = None,
        options: RequestOptions | None = None,
    ) -> DownloadResult:
        """Download the agent configuration, streaming it in chunks.

        A failed download to a path is retried under the retry policy; one to a file object is
        not, since written bytes cannot be taken back.

        Args:
            destination: A file path (written atomically: nothing is left behind on failure;
                its directory must exist, else FileNotFoundError before any request), an
                existing directory (the service's suggested file name is used, made safe), or
                a writable binary file object (written as received, not closed).
            etag: A previous result's `etag`, to download only if it changed: it is sent as
                `If-None-Match`, and when the service answers 304 Not Modified nothing is
                written and the result says `not_modified=True`. A bare value is quoted.
            options: Settings for this call, overriding the client's.
        """
        from ._download import download  # noqa: PLC0415 - loaded by the first download

        url = self._agent_configuration_url
        sent = download(self._connection, url, destination, etag, options)
        return await self._events.traced("download_agent_configuration", url, sent)


# The raw responses of the client's own calls ------------------------------------------------


class RawClient:
    """`client.with_raw_response`: the client's calls outside its collections, each sent as
    the plain call is and returning the RawResponse that answered it; `parse()` gives the
    plain call's value."""

    def __init__(self, client: RemedyClient) -> None:
        self._client = client

    def __repr__(self) -> str:
        return f"<RawClient of {self._client!r}>"

    async def health(self, *, options: RequestOptions | None = None) -> RawResponse[HealthStatus]:
        """Ask the service whether it is healthy, as `health()` does; the response, its
        `parse()` the HealthStatus.

        Args:
            options: Settings for this call, overriding the client's.
        """
        client = self._client
        url = client._health_url
        return await client._events.traced(
            "health", url, client._raw(url, options, client._health_of)
        )

    async def get_json(
        self,
        path: str,
        *,
        params: ExtraParams | None = None,
        options: RequestOptions | None = None,
    ) -> RawResponse[JSONResponse]:
        """GET a path under the base URL as `get_json()` does; the response, its `parse()`
        the JSONResponse.

        Args:
            path: As for `get_json()`.
            params: As for `get_json()`.
            options: Settings for this call, overriding the client's.
        """
        client = self._client
        url = client._json_url(path, params, options)
        return await client._events.traced(
            "get_json", url, client._raw(url, options, client._json_of)
        )


# The client's way out ----------------------------------------------------------------------


def _through_pool(pool: ConnectionPool, proxies: ProxyRoutes | None) -> tuple[None, Transport]:
    """A client's way out through a shared pool: no session of its own to close."""
    return None, pool._transport(proxies)


Settings = tuple[Mapping[str, str], AttemptTimeout, RetryPolicy]
"""What a request is sent with: headers, the attempt's timeout, the retry policy."""


class Outlet:
    """A client's way out, shared with the clients derived from it: the sender its requests go
    through (its gate, events and limits), and the session it opened, if any.

    `make_sender` makes the Sender of a transport; `open_session` opens the client's own
    session on first use, in the event loop running it, and returns it with the transport that
    sends through it (no session when the connections are a shared pool's, which the client
    does not close).
    """

    def __init__(
        self,
        *,
        transport: Transport | None,
        make_sender: Callable[..., Sender],
        open_session: Callable[[], tuple[aiohttp.ClientSession | None, Transport]],
    ) -> None:
        self._make_sender = make_sender
        self._open_session = open_session
        self._sender = None if transport is None else make_sender(transport=transport)
        self.owned_session: aiohttp.ClientSession | None = None
        self._owned_loop: asyncio.AbstractEventLoop | None = None
        """The event loop the client's own connections were opened in (they cannot leave it)."""
        self.closed = False

    def sender(self, name: Callable[[], str]) -> Sender:
        """The sender to use now, opening the client's own session on first use; `name`
        describes the client asking, for the error of another event loop."""
        loop = self._owned_loop
        if loop is not None and loop is not asyncio.get_running_loop():
            raise ClientClosedError(
                f"{name()} opened its connections in another event loop"
                + (" (now closed)" if loop.is_closed() else "")
                + ", and connections cannot move between loops: create the client inside the "
                "asyncio.run() (or loop) that uses it, with 'async with', once per loop"
            )
        if self._sender is None:
            self._owned_loop = asyncio.get_running_loop()
            self.owned_session, transport = self._open_session()
            self._sender = self._make_sender(transport=transport)
        return self._sender

    async def close(self) -> None:
        """Close the session the client opened, if any; sending fails from now on."""
        self.closed = True
        session, self.owned_session = self.owned_session, None
        if session is not None:
            await session.close()


class Connection:
    """Sends a client's requests with its settings through its outlet, which the client owns,
    or shares with the client it was derived from (`derive`).

    `name` describes the client in errors (its repr); `settings` are what a request is sent
    with when a call's options do not say otherwise.
    """

    def __init__(
        self, outlet: Outlet, settings: Settings, *, name: Callable[[], str], derived: bool = False
    ) -> None:
        self._outlet = outlet
        self.base_settings = settings
        """The headers, attempt timeout and retry policy of a call without options."""
        self._name = name
        self.derived = derived
        """Whether the outlet is another client's (this client was made by `with_options`)."""
        self._closed = False

    @property
    def closed(self) -> bool:
        """Whether this client was closed, or the client whose outlet it shares was."""
        return self._closed or self._outlet.closed

    def derive(self, settings: Settings, *, name: Callable[[], str]) -> Connection:
        """The connection of a client derived from this one: `settings` over the same outlet."""
        return Connection(self._outlet, settings, name=name, derived=True)

    def sender(self) -> Sender:
        """The sender to use now, opening the client's own session on first use."""
        if self._closed or self._outlet.closed:
            raise self._closed_error()
        return self._outlet.sender(self._name)

    def _closed_error(self) -> ClientClosedError:
        return ClientClosedError(
            f"{self._name()} is closed; create a new client"
            if self._closed or not self.derived
            else f"{self._name()} was derived from a client that is closed now; derive one "
            "from an open client"
        )

    def settings(self, options: RequestOptions | None) -> Settings:
        """The headers, attempt timeout and retry policy of a call with these options."""
        if options is None:
            return self.base_settings
        headers, timeout, retry = self.base_settings
        if options.headers:
            headers = {**headers, **options.headers}
        if options.timeout is not None:
            timeout = attempt_timeout_of(options.timeout)
        return headers, timeout, options.retry or retry

    def send(self, request: Request, options: RequestOptions | None) -> Awaitable[Response]:
        """Send a request under the client's settings; returns the sender's own coroutine."""
        if self._closed or self._outlet.closed:  # as `sender()`, one call less on every request
            raise self._closed_error()
        return self._outlet.sender(self._name).send(request, *self.settings(options))

    def answer(self, request: Request, options: RequestOptions | None) -> Awaitable[Answer]:
        """Send a request as `send` does; its response, and how long the exchange that
        answered took."""
        return self.sender().answer(request, *self.settings(options))

    async def close(self) -> None:
        """Stop sending; close the session the client opened, if it owns the outlet."""
        self._closed = True
        if not self.derived:
            await self._outlet.close()

    @property
    def owned_session(self) -> aiohttp.ClientSession | None:
        """The session the client opened (None for a derived client: it is its parent's)."""
        return None if self.derived else self._outlet.owned_session

    @property
    def left_open(self) -> bool:
        """Whether the client's own session is still open (it should have been closed)."""
        session = self.owned_session
        return session is not None and not session.closed
