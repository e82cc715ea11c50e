"""The client: holds the connection, settings and shared limits, and serves the collections."""

from __future__ import annotations

import asyncio
import os
import ssl
import time
import warnings
from collections.abc import Awaitable, Callable, Mapping, Sequence
from functools import partial
from typing import Any, TypeVar

import aiohttp
from yarl import URL

from . import _config as config
from ._collection import ResourceCollection
from ._download import (
    Destination,
    DownloadResult,
    check_destination,
    entity_tag,
    receive,
    retry_for,
)
from ._errors import ClientClosedError
from ._http import AttemptTimeout, JSONResponse, Request, Response
from ._models import Endpoint, HealthStatus, RemediationTarget, Scope, VulnerabilityFinding
from ._options import DEFAULT_TIMEOUT, RequestOptions, Timeout, to_client_timeout
from ._paging._auto import AutoPaginator
from ._paging._follow import as_paginator
from ._paging._protocol import Convention, Paginator
from ._profiles import client_settings
from ._resources import (
    ENDPOINTS,
    REMEDIATION_TARGETS,
    RESOURCES,
    SCOPES,
    VULNERABILITY_FINDINGS,
    Resource,
)
from ._sending._budget import RateLimit
from ._sending._events import EventHook, Events
from ._sending._gate import RequestGate, wall_clock_of
from ._sending._headers import default_headers
from ._sending._retry import RetryPolicy
from ._sending._sender import Sender
from ._sending._transport import AiohttpTransport, Transport, attempt_timeout_of, open_session
from ._telemetry import Telemetry, telemetry_for
from ._wire._json import decode_json
from ._wire._query import ExtraParams, encode_extra_params
from ._wire._record_reader import NAMING_SETTINGS, NamingSetting
from ._wire._to_model import record_from

T = TypeVar("T")

COLLECTION_NAMES = tuple(resource.attribute for resource in RESOURCES)
DEFAULT_MAX_RESPONSE_BYTES = 128 * 1024 * 1024
DOWNLOAD_ACCEPT = "application/octet-stream, */*;q=0.1"
"""The agent configuration is a file of any type, not JSON (a strict server answers 406)."""
DEFAULT_RETRY = RetryPolicy()


class RemedyClient:
    """An async client for the Remedy API; use it as `async with RemedyClient(...) as client`.

    Settings absent from the arguments come from `REMEDY_BASE_URL` and `REMEDY_API_TOKEN`.
    The token goes in `Authorization: Bearer <token>` unless `auth_header`/`auth_scheme` say
    otherwise (`auth_header="X-API-Key", auth_scheme=None` sends the bare token). An injected
    `session` is used as given and never closed by the client. `transport=` sends every request
    through a `Transport` instead of aiohttp (`MockTransport(handler)` in unit tests): no
    session is opened, everything else applies as usual, and the transport is never closed.

    With OpenTelemetry installed (the `otel` extra), each call is a span, each attempt a child
    span, with request-duration, retry, 429 and wait metrics, once an SDK sets the global
    providers (or `telemetry=Telemetry(...)` names some); `telemetry=False` turns it off.

    Requests go straight to the service unless `proxy="http://host:port"` (or `https://`)
    names a forward proxy: https requests tunnel through it (CONNECT), so it sees only the
    host and port; credentials for it come from its URL (`http://user:password@host:port`) or
    `proxy_auth=(user, password)` and go to the proxy alone. `trust_env=True` also reads
    exactly `HTTPS_PROXY`, `HTTP_PROXY` and `NO_PROXY` (and their lower-case forms) when the
    client is built; never `~/.netrc`, the system's proxy settings or any other variable.

    Every request goes through one gate per client: at most `max_in_flight` at once, none
    while the service has asked everyone to wait (429, or no rate-limit budget left), and, with
    `rate_limit=RateLimit(requests=..., per=...)`, no more than that budget allows, shared by
    every task; waits for the pause, a slot or a turn count against the attempt's timeout and
    the call's deadline. Failed attempts are retried by `retry` (see RetryPolicy); `clock`
    (monotonic seconds) and `sleep` (default asyncio.sleep) can be replaced so tests never wait
    (an injected clock also dates the service's Retry-After and X-RateLimit-Reset, counting
    from the real time when the client is made). Lists detect the service's paging convention
    (`AutoPaginator`) unless `paginator=` fixes one for every collection or
    `paginators={"scopes": ...}` for some; likewise record key naming, detected unless `naming=`
    or `namings={"scopes": "snake"}` pins it. `since_filters={"scopes": "updatedAt[gte]"}` names
    the update-time range filter a collection's change feed narrows its passes with.
    `RemedyClient.from_config(path)` reads all of these from a file, such as the one
    `remedy-async probe --emit-config` writes.
    """

    endpoints: ResourceCollection[Endpoint]
    remediation_targets: ResourceCollection[RemediationTarget]
    scopes: ResourceCollection[Scope]
    vulnerability_findings: ResourceCollection[VulnerabilityFinding]

    def __init__(
        self,
        base_url: str | URL | None = None,
        *,
        token: str | None = None,
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
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Awaitable[None]] | None = None,
    ) -> None:
        self._closed = True  # until construction succeeds, so __del__ has nothing to report
        self._owned_session: aiohttp.ClientSession | None = None
        self._owned_loop: asyncio.AbstractEventLoop | None = None
        """The event loop the client's own connections were opened in (they cannot leave it)."""
        self.base_url = config.base_url(base_url, allow_insecure_http=allow_insecure_http)
        self._token = config.token(token)
        self._timeout = attempt_timeout_of(to_client_timeout(timeout))
        self._headers = default_headers(headers or {}, self._token, auth_header, auth_scheme)
        self._auth_header = auth_header
        self._retry = retry
        self._max_response_bytes = config.positive_count(max_response_bytes, "max_response_bytes")
        self._follow_redirects = follow_redirects
        self._ssl_context = ssl_context
        config.one_way_out(
            transport, session=session, proxy=proxy, proxy_auth=proxy_auth, trust_env=trust_env,
            ssl_context=ssl_context, trace_configs=trace_configs,
        )  # fmt: skip
        self._proxies = config.proxies(
            proxy, proxy_auth, trust_env, self.base_url, self._token, allow_insecure_http
        )
        self._trace_configs = list(trace_configs)
        self._clock = clock
        self._sleep = sleep if sleep is not None else asyncio.sleep
        self._gate = RequestGate(
            config.positive_count(max_in_flight, "max_in_flight"),
            clock,
            max_pause=retry.max_retry_after,
            budget=config.budget(rate_limit),
            wall=wall_clock_of(clock),
        )
        credential_headers = frozenset(
            {auth_header.lower(), "authorization", "cookie", "proxy-authorization"}
        )
        self._credential_headers = credential_headers
        self._events = Events(
            event_hooks,
            credential_headers,
            self._secrets,
            telemetry=telemetry_for(telemetry, clock),
            clock=clock,
        )
        self._health_url = URL(str(self.base_url) + config.api_path(health_path, "health_path"))
        self._agent_configuration_url = URL(
            str(self.base_url)
            + config.api_path(agent_configuration_path, "agent_configuration_path")
        )
        if session is not None:
            transport = AiohttpTransport(session, proxies=self._proxies)
        self._sender = None if transport is None else self._make_sender(transport)
        self._trusted_origins = config.origins(trusted_origins, "trusted_origins")
        self._naming = config.one_of(naming, NAMING_SETTINGS, "naming")
        self._namings = config.per_collection(
            namings or {},
            "namings",
            COLLECTION_NAMES,
            lambda value, name: config.one_of(value, NAMING_SETTINGS, name),
        )
        self._since_filters = config.per_collection(
            since_filters or {}, "since_filters", COLLECTION_NAMES, config.parameter_name
        )
        self._build_collections(
            paginator, config.per_collection(paginators or {}, "paginators", COLLECTION_NAMES)
        )
        self._closed = False

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

        The profile's settings are this class's arguments (`base_url`, `naming`, `paginators`
        with convention names, ...; `token_env` names the variable holding the token, since a
        token never goes in a file). `overrides` are arguments too and win over the file; the
        environment (`environ`, default `os.environ`) fills only what neither sets. A bad file,
        profile or setting raises ConfigurationError naming it, before any I/O.
        """
        return cls(**client_settings(path, profile, environ, overrides))

    def _build_collections(
        self,
        paginator: Paginator | Convention | None,
        paginators: Mapping[str, Paginator | Convention],
    ) -> None:
        default_paginator = as_paginator(paginator) if paginator is not None else AutoPaginator()

        def collection(resource: Resource[T]) -> ResourceCollection[T]:
            return ResourceCollection(
                resource,
                base_url=self.base_url,
                send=self._send,
                secrets=self._secrets,
                paginator=as_paginator(paginators.get(resource.attribute, default_paginator)),
                events=self._events,
                trusted_origins=self._trusted_origins,
                naming=self._namings.get(resource.attribute, self._naming),
                since_filter=self._since_filters.get(resource.attribute),
            )

        self.endpoints = collection(ENDPOINTS)
        self.remediation_targets = collection(REMEDIATION_TARGETS)
        self.scopes = collection(SCOPES)
        self.vulnerability_findings = collection(VULNERABILITY_FINDINGS)

    def _make_sender(self, transport: Transport) -> Sender:
        return Sender(
            transport=transport,
            gate=self._gate,
            events=self._events,
            secrets=self._secrets,
            credential_headers=self._credential_headers,
            follow_redirects=self._follow_redirects,
            max_response_bytes=self._max_response_bytes,
            clock=self._clock,
            sleep=self._sleep,
        )

    def __repr__(self) -> str:
        state = "closed" if self._closed else "open"
        auth = f"{self._auth_header}=***" if self._token is not None else "no token"
        return f"<RemedyClient {str(self.base_url)!r} {auth} {state}>"

    async def __aenter__(self) -> RemedyClient:
        self._open_sender()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()

    async def close(self) -> None:
        """Release the connection pool; safe to call twice. An injected session stays open."""
        self._closed = True
        session, self._owned_session = self._owned_session, None
        if session is not None:
            await session.close()

    def __del__(self) -> None:
        if self._owned_session is not None and not self._owned_session.closed:
            warnings.warn(
                f"{self!r} was not closed; use 'async with' or await client.close()",
                ResourceWarning,
                source=self,
                stacklevel=1,
            )

    def _open_sender(self) -> Sender:
        if self._closed:
            raise ClientClosedError(f"{self!r} is closed; create a new client")
        if self._owned_loop is not None and self._owned_loop is not asyncio.get_running_loop():
            raise ClientClosedError(
                f"{self!r} opened its connections in another event loop"
                + (" (now closed)" if self._owned_loop.is_closed() else "")
                + ", and connections cannot move between loops: create the client inside the "
                "asyncio.run() (or loop) that uses it, with 'async with', once per loop"
            )
        if self._sender is None:
            self._owned_loop = asyncio.get_running_loop()
            self._owned_session, transport = open_session(
                max_connections=self._gate.max_in_flight,
                ssl_context=self._ssl_context,
                headers=self._headers,
                credential_headers=self._credential_headers,
                timeout=self._timeout,
                trace_configs=self._trace_configs,
                proxies=self._proxies,
            )
            self._sender = self._make_sender(transport)
        return self._sender

    def _settings(
        self, options: RequestOptions | None
    ) -> tuple[Mapping[str, str], AttemptTimeout, RetryPolicy]:
        if options is None:
            return self._headers, self._timeout, self._retry
        headers = {**self._headers, **options.headers} if options.headers else self._headers
        timeout = self._timeout if options.timeout is None else attempt_timeout_of(options.timeout)
        return headers, timeout, options.retry or self._retry

    def _send(self, request: Request, options: RequestOptions | None) -> Awaitable[Response]:
        """Send a request under the client's settings; returns the sender's own coroutine."""
        sender = self._open_sender()
        headers, timeout, policy = self._settings(options)
        return sender.send(request, headers, timeout, policy)

    @property
    def _secrets(self) -> tuple[str, ...]:
        return (self._token,) if self._token else ()

    async def get_json(
        self,
        path: str,
        *,
        params: ExtraParams | None = None,
        options: RequestOptions | None = None,
    ) -> JSONResponse:
        """GET a path under the base URL with the client's auth, retries and limits, and return
        the decoded JSON response: for endpoints the library has no method for.

        `path` must start with `/` and is appended to the base URL (so it never leaves the
        configured origin); `params` are sent as given. An error status raises as any call does.
        """
        url = URL(str(self.base_url) + config.api_path(path, "path"), encoded=False)
        query = encode_extra_params(params) + (options.extra_params if options else ())
        if query:
            url = url.extend_query(query)
        return await self._events.traced("get_json", url, self._get_json(url, options))

    async def _get_json(self, url: URL, options: RequestOptions | None) -> JSONResponse:
        response = await self._send(Request("GET", url), options)
        return decode_json(response, secrets=self._secrets)

    async def health(self, *, options: RequestOptions | None = None) -> HealthStatus:
        """Ask the service whether it is healthy; an error status raises, any 2xx answer returns."""
        return await self._events.traced("health", self._health_url, self._health(options))

    async def _health(self, options: RequestOptions | None) -> HealthStatus:
        response = await self._send(Request("GET", self._health_url), options)
        return record_from(HealthStatus, response, secrets=self._secrets)

    async def download_agent_configuration(
        self,
        destination: Destination,
        *,
        etag: str | None = None,
        options: RequestOptions | None = None,
    ) -> DownloadResult:
        """Download the agent configuration, streaming it in chunks.

        `destination` is a file path (written atomically: nothing is left behind on failure;
        its directory must exist, else FileNotFoundError before any request), an existing
        directory (the service's suggested file name is used, made safe), or a writable binary
        file object (written as received, not closed). A failed download to a path is retried
        under the retry policy; one to a file object is not, since written bytes cannot be
        taken back.

        `etag` (a previous result's `etag`) makes the download conditional: it is sent as
        `If-None-Match`, and when the service answers 304 Not Modified nothing is written (the
        file, directory or file object is left as it was) and the result says
        `not_modified=True`. A bare value is quoted (`abc` is sent as `"abc"`).
        """
        check_destination(destination)
        sender = self._open_sender()
        headers, timeout, policy = self._settings(options)
        headers = {**headers, "Accept": DOWNLOAD_ACCEPT}
        if etag is not None:
            headers["If-None-Match"] = entity_tag(etag)
        request = Request("GET", self._agent_configuration_url)
        read_body = partial(receive, destination, etag)
        download = sender.stream(
            request, headers, timeout, retry_for(destination, policy), read_body
        )
        return await self._events.traced("download_agent_configuration", request.url, download)
