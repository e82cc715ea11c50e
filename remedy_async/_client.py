"""The client: holds the connection and settings, and hands requests to the collections."""

from __future__ import annotations

import os
import warnings
from collections.abc import Mapping
from importlib.metadata import version
from typing import TypeVar

import aiohttp
from yarl import URL

from ._collection import (
    ENDPOINTS,
    REMEDIATION_TARGETS,
    RESOURCES,
    SCOPES,
    VULNERABILITY_FINDINGS,
    Resource,
    ResourceCollection,
)
from ._download import (
    CHUNK_SIZE,
    Destination,
    DownloadResult,
    check_destination,
    target_path,
    write_atomically,
    write_stream,
)
from ._errors import ClientClosedError, ConfigurationError
from ._http import JSONResponse, Request
from ._models import (
    Endpoint,
    HealthStatus,
    RemediationTarget,
    Scope,
    VulnerabilityFinding,
)
from ._options import DEFAULT_TIMEOUT, RequestOptions, Timeout, check_headers, to_client_timeout
from ._paging import Paginator
from ._response import model_from, read_json, status_error
from ._schemes import AutoPaginator
from ._transport import AiohttpTransport, Transport

T = TypeVar("T")

BASE_URL_ENV = "REMEDY_BASE_URL"
TOKEN_ENV = "REMEDY_API_TOKEN"
USER_AGENT = f"remedy-async/{version('remedy-async')}"
AGENT_CONFIGURATION_FALLBACK_NAME = "agent-configuration"
ERROR_BODY_LIMIT = 64 * 1024


def _base_url(base_url: str | URL | None) -> URL:
    raw = base_url if base_url is not None else os.environ.get(BASE_URL_ENV)
    if not raw:
        raise ConfigurationError(
            f"no base URL: pass base_url, e.g. RemedyClient('https://api.example.com'), "
            f"or set {BASE_URL_ENV}"
        )
    url = URL(raw)
    if url.scheme not in {"http", "https"} or not url.host:
        raise ConfigurationError(f"base URL must be an absolute http(s) URL, got {str(url)!r}")
    if url.user is not None or url.password is not None:
        raise ConfigurationError("base URL must not contain credentials; pass token= instead")
    if url.query_string or url.fragment:
        raise ConfigurationError("base URL must not have a query or fragment")
    return url.with_path(url.path.rstrip("/"))


def _token(token: str | None) -> str | None:
    value = token if token is not None else os.environ.get(TOKEN_ENV)
    if not value:
        return None
    if any(char in value for char in "\r\n\0"):
        raise ConfigurationError("the token contains a line break or NUL, which cannot be sent")
    return value


def _api_path(path: str, name: str) -> str:
    if not path.startswith("/") or "?" in path or "#" in path:
        raise ConfigurationError(f"{name} must be a path starting with '/', got {path!r}")
    return path


class RemedyClient:
    """An async client for the Remedy API; use it as `async with RemedyClient(...) as client`.

    Settings absent from the arguments come from `REMEDY_BASE_URL` and `REMEDY_API_TOKEN`.
    The token goes in `Authorization: Bearer <token>` unless `auth_header`/`auth_scheme` say
    otherwise (`auth_header="X-API-Key", auth_scheme=None` sends the bare token). An injected
    `session` is used as given and never closed by the client. Lists detect the service's
    paging scheme (`AutoPaginator`) unless `paginator=` fixes one for every collection or
    `paginators={"scopes": ...}` for some.
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
        auth_header: str = "Authorization",
        auth_scheme: str | None = "Bearer",
        timeout: Timeout = DEFAULT_TIMEOUT,
        headers: Mapping[str, str] | None = None,
        session: aiohttp.ClientSession | None = None,
        health_path: str = "/v1/health",
        agent_configuration_path: str = "/v1/agent-configuration",
        paginator: Paginator | None = None,
        paginators: Mapping[str, Paginator] | None = None,
    ) -> None:
        self._closed = True  # until construction succeeds, so __del__ has nothing to report
        self._owned_session: aiohttp.ClientSession | None = None
        self.base_url = _base_url(base_url)
        self._token = _token(token)
        self._timeout = to_client_timeout(timeout)
        self._headers = self._default_headers(headers or {}, auth_header, auth_scheme)
        self._auth_header = auth_header
        self._health_url = URL(str(self.base_url) + _api_path(health_path, "health_path"))
        self._agent_configuration_url = URL(
            str(self.base_url) + _api_path(agent_configuration_path, "agent_configuration_path")
        )
        self._injected_session = session
        self._transport: Transport | None = (
            AiohttpTransport(session) if session is not None else None
        )
        default_paginator = paginator if paginator is not None else AutoPaginator()
        per_collection = dict(paginators or {})
        unknown = set(per_collection) - {resource.attribute for resource in RESOURCES}
        if unknown:
            raise ConfigurationError(f"paginators names unknown collections: {sorted(unknown)}")

        def collection(resource: Resource[T]) -> ResourceCollection[T]:
            return ResourceCollection(
                resource,
                base_url=self.base_url,
                get_json=self._get_json,
                paginator=per_collection.get(resource.attribute, default_paginator),
            )

        self.endpoints = collection(ENDPOINTS)
        self.remediation_targets = collection(REMEDIATION_TARGETS)
        self.scopes = collection(SCOPES)
        self.vulnerability_findings = collection(VULNERABILITY_FINDINGS)
        self._closed = False

    def _default_headers(
        self, headers: Mapping[str, str], auth_header: str, auth_scheme: str | None
    ) -> dict[str, str]:
        merged = {"Accept": "application/json", "User-Agent": USER_AGENT}
        merged.update(check_headers(headers))
        if self._token is not None:
            check_headers({auth_header: ""})
            if any(name.lower() == auth_header.lower() for name in headers):
                raise ConfigurationError(
                    f"headers sets {auth_header!r}, which the token also sets; pass one of them"
                )
            merged[auth_header] = f"{auth_scheme} {self._token}" if auth_scheme else self._token
        return merged

    def __repr__(self) -> str:
        state = "closed" if self._closed else "open"
        auth = f"{self._auth_header}=***" if self._token is not None else "no token"
        return f"<RemedyClient {str(self.base_url)!r} {auth} {state}>"

    async def __aenter__(self) -> RemedyClient:
        self._transport_or_open()
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

    def _transport_or_open(self) -> Transport:
        if self._closed:
            raise ClientClosedError(f"{self!r} is closed; create a new client")
        if self._transport is None:
            self._owned_session = aiohttp.ClientSession(
                timeout=self._timeout,
                trust_env=False,
                cookie_jar=aiohttp.DummyCookieJar(),
            )
            self._transport = AiohttpTransport(self._owned_session)
        return self._transport

    def _request_settings(
        self, options: RequestOptions | None
    ) -> tuple[Mapping[str, str], aiohttp.ClientTimeout]:
        if options is None:
            return self._headers, self._timeout
        headers = {**self._headers, **options.headers} if options.headers else self._headers
        return headers, options.timeout or self._timeout

    async def _get_json(self, request: Request, options: RequestOptions | None) -> JSONResponse:
        transport = self._transport_or_open()
        headers, timeout = self._request_settings(options)
        response = await transport.send(request, headers, timeout)
        return read_json(response, secrets=self._secrets)

    @property
    def _secrets(self) -> tuple[str, ...]:
        return (self._token,) if self._token else ()

    async def health(self, *, options: RequestOptions | None = None) -> HealthStatus:
        """Ask the service whether it is healthy; an error status raises, any 2xx answer returns."""
        response = await self._get_json(Request("GET", self._health_url), options)
        return model_from(HealthStatus, response)

    async def download_agent_configuration(
        self, destination: Destination, *, options: RequestOptions | None = None
    ) -> DownloadResult:
        """Download the agent configuration, streaming it in chunks.

        `destination` is a file path (written atomically: nothing is left behind on failure;
        its directory must exist, else FileNotFoundError before any request),
        an existing directory (the service's suggested file name is used, made safe), or a
        writable binary file object (written as received, not closed).
        """
        check_destination(destination)
        transport = self._transport_or_open()
        headers, timeout = self._request_settings(options)
        request = Request("GET", self._agent_configuration_url)
        async with transport.stream(request, headers, timeout) as response:
            if not 200 <= response.status < 300:
                raise status_error(await response.read(ERROR_BODY_LIMIT), secrets=self._secrets)
            disposition = response.headers.get("Content-Disposition")
            filename = _disposition_filename(disposition)
            chunks = response.chunks(CHUNK_SIZE)
            if isinstance(destination, str | os.PathLike):
                path = target_path(destination, filename, AGENT_CONFIGURATION_FALLBACK_NAME)
                written, digest = await write_atomically(path, chunks)
            else:
                path = None
                written, digest = await write_stream(destination, chunks)
            return DownloadResult(
                path=path,
                bytes_written=written,
                content_type=response.headers.get("Content-Type"),
                filename=filename,
                etag=response.headers.get("ETag"),
                sha256=digest,
            )


def _disposition_filename(value: str | None) -> str | None:
    if not value:
        return None
    _, params = aiohttp.multipart.parse_content_disposition(value)
    return aiohttp.multipart.content_disposition_filename(params, "filename")
