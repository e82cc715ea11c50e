"""The request handler: routing on the raw path, auth, rate limits, faults, the routes, and the
answer put on the wire.

One low-level handler serves everything (no aiohttp router): the router decodes `%2F` before
matching, which would split ids containing `/`; here the raw path is split first and only the
id segment is percent-decoded. `GET /openapi.json` answers the run's own OpenAPI document
(`_openapi`), before auth, rate limits and faults. Every other route but health needs a token
if the run has any, and the token picks, by one dict lookup, the organisation (`TenantState`)
whose records, churn and rate limit the request meets (a run of one organisation without a
token serves every request from its one state). Lists are answered by the page server
(`_pages`); the answer goes on the wire by `send`, honestly or bent by a shaping fault (stall,
truncate, malformed, wrong content type), or the connection is `reset`.

In echo mode (`SimulatorConfig.echo_token`) whatever credential a request carries is echoed:
into its cursors and page URLs, into its error body, and as a 307 redirect of a get to the
same URL plus `echo=<credential>`; the `echo` parameter is accepted and ignored.
"""

from __future__ import annotations

import asyncio
import itertools
import secrets
import socket
import struct
from collections.abc import Awaitable, Callable, Iterable, Iterator, Sequence
from importlib.metadata import PackageNotFoundError, version
from typing import Final
from urllib.parse import quote, unquote

from aiohttp import web

from ._agent_configuration import AgentConfiguration, agent_configuration_payload
from ._counters import CounterState
from ._dataset import Dataset
from ._injector import FaultCounts, FaultInjector, replacing_error
from ._matching import FilterError
from ._openapi import openapi_json
from ._pages import ECHO_PARAMETER, ListPaging, ListRequest, list_paging
from ._places import INVALID, carries_continuation
from ._prng import iso
from ._ratelimit import RateDecision, TokenBucket
from ._responses import ApiError, Payload, error_payload, json_payload
from ._run_config import (
    DOCUMENT_PATH,
    RESOURCES,
    UNMATCHED_ROUTE,
    FaultKind,
    FaultSpec,
    SimulatorConfig,
)
from ._tenants import TenantState

Sleep = Callable[[float], Awaitable[object]]
"""How latency and stall faults wait (`asyncio.sleep`; tests pass one that returns at once)."""

PAGING_HEADER: Final = "X-Simulator-Paging"
"""Request header that overrides the run's paging convention for one request (for tests)."""
REQUEST_ID_HEADER: Final = "X-Request-Id"
SPEC_ROUTE: Final = "openapi"
"""The counters' name for `GET /openapi.json`, the run's document: no auth, limits or faults."""

_SINGULAR: Final = {
    "endpoints": "endpoint",
    "remediation-targets": "remediation target",
    "scopes": "scope",
    "vulnerability-findings": "vulnerability finding",
}
UNAUTHORIZED_MESSAGE: Final = "Missing or invalid API key."
"""The published message of a 401 (a missing key and a wrong one alike)."""


def invalid_id_message(resource: str) -> str:
    """The published 400 message of a get whose id is no UUID: `Invalid endpoint ID format.`"""
    return f"Invalid {_SINGULAR[resource]} ID format."


def not_found_message(resource: str) -> str:
    """The published 404 message of a get of an unknown id: `Endpoint not found.`"""
    return f"{_SINGULAR[resource].capitalize()} not found."


_Route = tuple[str, str | None, str | None]


def _package_version() -> str:
    try:
        return version("remedy-async")
    except PackageNotFoundError:  # pragma: no cover - only when run from a bare checkout
        return "0+unknown"


class SimulatorApp:
    """Answers requests for one configuration and its organisations (`tenants`: one per tenant,
    or the one of a run without tenants); counts into `counters`."""

    def __init__(
        self,
        config: SimulatorConfig,
        tenants: Sequence[TenantState],
        counters: CounterState,
        *,
        sleep: Sleep,
        clock: Callable[[], float],
        started: float,
    ) -> None:
        assert config.now is not None, "the Simulator fills in now"
        self._shift = config.now.timestamp() - started  # health: now + the time since then
        self._config = config
        self._counters = counters
        self._sleep = sleep
        self._clock = clock
        self._by_token = {tenant.token: tenant for tenant in tenants if tenant.token is not None}
        self._open = None if self._by_token else tenants[0]
        """The one organisation when no token is required, else None."""
        header, scheme = config.auth_header, config.auth_scheme
        self._challenge = (
            f'{scheme} realm="remedy"'
            if scheme is not None
            else f'ApiKey realm="remedy", header="{header}"'
        )
        self._echo = config.echo_token
        self._faults = FaultInjector(config.faults, config.seed)
        self._bucket = None if config.rate_limit is None else TokenBucket(config.rate_limit, clock)
        self._bucket_refusal = f"rate limit of {config.rate_limit} requests per second exceeded"
        self._token_refusal = (
            f"rate limit of {config.tenant_rate_limit} requests per "
            f"{config.tenant_rate_window:g} seconds exceeded for this API key"
        )
        self._agent_configuration = AgentConfiguration(config.seed, config.agent_configuration_size)
        self._request_ids = itertools.count(1)
        self._request_id_prefix = secrets.token_hex(4)
        self._version = _package_version()
        self._document: bytes | None = None
        base = self._base = config.base_path
        self._routes: dict[str, _Route] = {
            base + DOCUMENT_PATH: (SPEC_ROUTE, None, None),
            base + config.health_path: ("health", None, None),
            base + config.agent_configuration_path: ("agent-configuration", None, None),
        }
        for resource in RESOURCES:
            self._routes[f"{base}/v1/{resource}"] = (f"list:{resource}", resource, None)
        self._get_routes = {resource: f"get:{resource}" for resource in RESOURCES}
        self._in_flight: set[asyncio.Task[object]] = set()

    def __repr__(self) -> str:
        return f"SimulatorApp(config={self._config!r})"

    async def handle(self, request: web.BaseRequest) -> web.StreamResponse:
        """Answer one request (aiohttp low-level handler)."""
        route, resource, raw_id = self._resolve(request.rel_url.raw_path)
        self._counters.begin(route or UNMATCHED_ROUTE)
        task = asyncio.current_task()
        if task is not None:
            self._in_flight.add(task)
        status: int | None = None
        try:
            response = await self._answer(request, route, resource, raw_id)
            if response is None:
                return reset(request)
            status = response.status
            return response
        finally:
            self._counters.end(status)
            self._in_flight.discard(task)

    async def cancel_in_flight(self) -> None:
        """Cancel the requests still being handled (stalled or slow) and wait for them."""
        tasks = list(self._in_flight)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    def _resolve(self, raw_path: str) -> tuple[str | None, str | None, str | None]:
        known = self._routes.get(raw_path)
        if known is not None:
            return known
        if not raw_path.startswith(self._base):
            return None, None, None
        parts = raw_path[len(self._base) :].split("/")
        if len(parts) == 4 and parts[0] == "" and parts[1] == "v1" and parts[3]:
            route = self._get_routes.get(parts[2])
            if route is not None:
                return route, parts[2], parts[3]
        return None, None, None

    async def _answer(
        self,
        request: web.BaseRequest,
        route: str | None,
        resource: str | None,
        raw_id: str | None,
    ) -> web.StreamResponse | None:
        headers = {REQUEST_ID_HEADER: self._request_id()}
        echo = self._echoed(request) if self._echo else None
        shaping = None
        try:
            if route is None:
                raise ApiError(404, "not_found", f"no such route: {request.rel_url.raw_path}")
            if request.method != "GET":
                raise ApiError(
                    405, "method_not_allowed", "this API is read-only: use GET", {"Allow": "GET"}
                )
            if route == SPEC_ROUTE:
                return await send(request, self._document_payload(), headers, None, self._sleep)
            tenant = None
            arrived = _arrival(request)
            if route != "health":
                tenant = self._tenant_of(request)
                self._admit(tenant, headers, arrived if arrived is not None else self._clock())
            decision = self._faults.roll(route, has_cursor=self._has_cursor(request, route))
            if decision.latency is not None:
                self._counters.fault(route, decision.latency.kind.value)
                await self._sleep(decision.delay)
            if decision.fault is not None:
                self._counters.fault(route, decision.fault.kind.value)
            replacing = decision.replacing
            if replacing is not None:
                if replacing.kind is FaultKind.RESET:
                    return None
                raise replacing_error(replacing, self._clock())
            shaping = decision.shaping
            payload = await self._route(request, route, resource, raw_id, echo, tenant)
        except ApiError as error:
            if echo is not None:
                error = error.echoing(echo)
            payload = error_payload(error, self._config.error_format)
        return await send(request, payload, headers, shaping, self._sleep)

    def fault_counts(self) -> tuple[FaultCounts, ...]:
        """What each configured fault did so far, in configuration order."""
        return self._faults.counts()

    def _request_id(self) -> str:
        return f"{self._request_id_prefix}-{next(self._request_ids):08x}"

    def refusal(self, error: ApiError, *, count: bool) -> web.Response:
        """The answer to a request `handle` never saw (aiohttp could not parse it; `count` it
        as an unmatched one) or failed on: the run's error shape, with a request id."""
        if count:
            self._counters.begin(UNMATCHED_ROUTE)
            self._counters.end(error.status)
        payload = error_payload(error, self._config.error_format)
        headers = {REQUEST_ID_HEADER: self._request_id(), **payload.headers}
        if payload.content_type is not None:
            headers["Content-Type"] = payload.content_type
        return web.Response(status=error.status, body=payload.body, headers=headers)

    def _document_payload(self) -> Payload:
        """The run's OpenAPI document (made on first request, then kept)."""
        if self._document is None:
            self._document = openapi_json(self._config)
        return Payload(200, self._document)

    def _tenant_of(self, request: web.BaseRequest) -> TenantState:
        """The organisation whose token the request carries (the one, if none is required);
        401 for a missing or unknown token."""
        if self._open is not None:
            return self._open
        header = self._config.auth_header
        given = request.headers.get(header)
        tenant = None if given is None else self._by_token.get(self._credential_in(given))
        if tenant is None:
            raise ApiError(
                401,
                "unauthorized",
                UNAUTHORIZED_MESSAGE,
                {"WWW-Authenticate": self._challenge},
                location=("header", header),
            )
        return tenant

    def _credential_in(self, given: str) -> str:
        """The credential in an auth header's value: after the scheme, if any ('' if the
        scheme is not the configured one)."""
        scheme = self._config.auth_scheme
        if scheme is None:
            return given.strip()
        given_scheme, _, credential = given.partition(" ")
        return credential.strip() if given_scheme.lower() == scheme.lower() else ""

    def _echoed(self, request: web.BaseRequest) -> str | None:
        """What echo mode echoes of a request: its credential, valid or not (the whole auth
        header's value under another scheme); None without one, or one that is not printable."""
        given = request.headers.get(self._config.auth_header)
        if not given:
            return None
        credential = self._credential_in(given) or given.strip()
        return credential if credential and credential.isprintable() else None

    def _admit(self, tenant: TenantState, headers: dict[str, str], arrived: float) -> None:
        """Count a tenant's request as arrived at `arrived`, then let it through the run's rate
        limit and its token's, or answer 429."""
        name = tenant.name
        if name is not None:
            self._counters.arrived(name, arrived)
        if self._bucket is not None:
            _within(self._bucket.take(), headers, self._bucket_refusal)
        if tenant.limiter is not None:
            decision = tenant.limiter.take(arrived)
            if not decision.allowed and name is not None:
                self._counters.limited(name)
            _within(decision, headers, self._token_refusal)

    def _has_cursor(self, request: web.BaseRequest, route: str) -> bool:
        if not route.startswith("list:"):
            return False
        try:
            convention, _, query = self._paging(request)
        except ApiError:
            return False
        return carries_continuation(convention, query)

    def _paging(self, request: web.BaseRequest) -> ListPaging:
        """How a list request is paged (see `list_paging`); 400 for an unknown paging."""
        name = request.headers.get(PAGING_HEADER, self._config.paging)
        try:
            return list_paging(name, request.rel_url.query, request.headers)
        except ValueError as error:
            where = ("header", PAGING_HEADER)
            message = f"{PAGING_HEADER}: {error}"
            raise ApiError(400, "invalid_parameter", message, location=where) from None

    async def _route(
        self,
        request: web.BaseRequest,
        route: str,
        resource: str | None,
        raw_id: str | None,
        echo: str | None,
        tenant: TenantState | None,
    ) -> Payload:
        if route == "health":
            time = iso(self._clock() + self._shift)
            return json_payload({"status": "ok", "version": self._version, "time": time})
        if route == "agent-configuration":
            return await agent_configuration_payload(
                self._agent_configuration, request.headers.get("If-None-Match")
            )
        assert resource is not None
        assert tenant is not None, "every route but health has its tenant"
        if raw_id is None:
            return self._list(request, resource, echo, tenant)
        if echo is not None and ECHO_PARAMETER not in request.rel_url.query:
            return _echo_redirect(request, echo)
        return self._get(resource, raw_id, tenant.dataset)

    def _list(
        self, request: web.BaseRequest, resource: str, echo: str | None, tenant: TenantState
    ) -> Payload:
        tenant.churner.list_requested(resource)
        dataset = tenant.dataset
        convention, composition, query = self._paging(request)
        params: Iterable[tuple[str, str]] = query.items()
        if composition is not None:
            own = {composition.param, composition.size_param}
            params = [(name, value) for name, value in query.items() if name not in own]
        if self._echo:
            params = [(name, value) for name, value in params if name != ECHO_PARAMETER]
        try:
            filters = dataset.parse_filters(resource, params, strict=self._config.strict_params)
        except FilterError as error:
            where = () if error.parameter is None else ("query", error.parameter)
            raise ApiError(INVALID, error.code, error.message, location=where) from None
        listing = ListRequest(
            convention=convention,
            filters=filters,
            view=dataset.matches(filters),
            query=query,
            url=request.url,
            echo=echo,
            composition=composition,
        )
        return tenant.lists.page(listing)

    def _get(self, resource: str, raw_id: str, dataset: Dataset) -> Payload:
        try:
            record_id = unquote(raw_id, errors="strict")
        except UnicodeDecodeError:
            record_id = None
        if record_id is None or not dataset.well_formed(record_id):
            raise ApiError(400, "invalid_id", invalid_id_message(resource), location=("path", "id"))
        index = dataset.index_of(resource, record_id)
        if index is None:
            raise ApiError(404, "not_found", not_found_message(resource), location=("path", "id"))
        return Payload(200, dataset.encode(resource, index))


def _within(decision: RateDecision, headers: dict[str, str], refusal: str) -> None:
    """Send a rate limit's X-RateLimit-* headers; 429 with `refusal` and `Retry-After` if it
    refused the request."""
    headers.update(decision.headers())
    if not decision.allowed:
        raise ApiError(429, "rate_limited", refusal, {"Retry-After": str(decision.retry_after)})


def _arrival(request: web.BaseRequest) -> float | None:
    """When the request's first bytes reached the simulator's socket (None when its connection
    does not say: a request served some other way), taken so the next request's are noted."""
    protocol = request.protocol
    arrived: float | None = getattr(protocol, "arrived_at", None)
    if arrived is not None:
        setattr(protocol, "arrived_at", None)  # noqa: B010 - a protocol of ours, or not
    return arrived


def _echo_redirect(request: web.BaseRequest, echo: str) -> Payload:
    """307 to the same URL (same origin, raw path kept) plus `echo=<credential>`."""
    url = request.rel_url
    query = url.raw_query_string
    location = (
        f"{url.raw_path}?{query + '&' if query else ''}{ECHO_PARAMETER}={quote(echo, safe='')}"
    )
    return Payload(307, b"", content_type=None, headers={"Location": location})


# Putting a Payload on the wire, honestly or bent by a fault (stall, truncate, malformed, ...).

HTML: Final = "text/html; charset=utf-8"
MALFORMED_TAIL: Final = b"\n<<< malformed >>>"


def malformed(body: bytes) -> bytes:
    """Half of a JSON object or array plus junk: never valid JSON."""
    return body[: max(1, len(body) // 2)] + MALFORMED_TAIL


async def send(
    request: web.BaseRequest,
    payload: Payload,
    headers: dict[str, str],
    shaping: FaultSpec | None,
    sleep: Sleep,
) -> web.StreamResponse:
    """Answer `request` with `payload` plus `headers`, applying the shaping fault if any."""
    headers = {**headers, **payload.headers}
    kind = shaping.kind if shaping is not None else None
    content_type = HTML if kind is FaultKind.WRONG_CONTENT_TYPE else payload.content_type
    if content_type is not None:
        headers["Content-Type"] = content_type
    body = payload.body
    if body is not None and kind is FaultKind.MALFORMED:
        body = malformed(body)
    if body is not None and kind not in (FaultKind.STALL, FaultKind.TRUNCATE):
        return web.Response(status=payload.status, body=body, headers=headers)
    if body is not None:
        chunks: Iterator[bytes] = iter((body,))
        length: int | None = len(body)
    else:
        assert payload.chunks is not None
        chunks, length = payload.chunks(), payload.length
        if kind is FaultKind.MALFORMED:
            first = malformed(next(chunks, b"[]"))
            chunks, length = iter((first,)), None if length is None else len(first)
    response = web.StreamResponse(status=payload.status, headers=headers)
    if length is None:
        response.enable_chunked_encoding()
    else:
        response.content_length = length
    await response.prepare(request)
    if kind is FaultKind.STALL:
        assert shaping is not None
        await sleep(shaping.stall_seconds)
    if kind is FaultKind.TRUNCATE:
        await _send_part(request, response, chunks, length)
        return response
    for chunk in chunks:
        await response.write(chunk)
    await response.write_eof()
    return response


async def _send_part(
    request: web.BaseRequest,
    response: web.StreamResponse,
    chunks: Iterator[bytes],
    length: int | None,
) -> None:
    if length is None:
        for _ in range(2):
            await response.write(next(chunks, b""))
    else:
        first = next(chunks, b"")
        await response.write(first[: max(1, min(len(first), length // 2))])
    # close() still flushes what was written; the client then finds the body cut short.
    if request.transport is not None:
        request.transport.close()


def reset(request: web.BaseRequest) -> web.StreamResponse:
    """Drop the connection with a TCP RST; the returned response is never sent."""
    transport = request.transport
    if transport is not None:
        sock = transport.get_extra_info("socket")
        if sock is not None:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        transport.abort()
    return web.Response(status=500)
