"""Typed asyncio client for the Remedy device-management API.

async with RemedyClient("https://api.example.com", token="...") as client:
    endpoint = await client.endpoints.get("ep-1")
    async for finding in client.vulnerability_findings.list(severity="critical"):
        ...
"""

from importlib.metadata import version as _version

from ._bulk import GetResult
from ._client import RemedyClient
from ._codec import to_wire
from ._collection import ResourceCollection
from ._download import DownloadResult
from ._errors import (
    APIConnectionError,
    APIError,
    APIStatusError,
    APITimeoutError,
    AuthenticationError,
    BadRequestError,
    ClientClosedError,
    ConfigurationError,
    ConflictError,
    DecodeError,
    DuplicateItemWarning,
    NotFoundError,
    PaginationError,
    PermissionDeniedError,
    RateLimitError,
    RemedyError,
    RemedyWarning,
    ResponseTooLargeError,
    ServerError,
    UnprocessableEntityError,
)
from ._events import ClientEvent
from ._fastpath import from_wire
from ._http import JSONResponse
from ._models import (
    Endpoint,
    EndpointStatus,
    FindingStatus,
    HealthStatus,
    OperatingSystem,
    OsFamily,
    Package,
    RemediationAction,
    RemediationStatus,
    RemediationTarget,
    Scope,
    ScopeSelector,
    Severity,
    VulnerabilityFinding,
)
from ._options import RequestOptions
from ._pager import Page, Pager
from ._paging import PageRequest, PageResult, Paginator, PagingFault, UnpagedPaginator
from ._retry import RetryPolicy
from ._schemes import (
    AutoPaginator,
    CursorPaginator,
    LinkHeaderPaginator,
    OffsetPaginator,
    PageNumberPaginator,
)

__version__ = _version("remedy-async")

__all__ = [
    "APIConnectionError",
    "APIError",
    "APIStatusError",
    "APITimeoutError",
    "AuthenticationError",
    "AutoPaginator",
    "BadRequestError",
    "ClientClosedError",
    "ClientEvent",
    "ConfigurationError",
    "ConflictError",
    "CursorPaginator",
    "DecodeError",
    "DownloadResult",
    "DuplicateItemWarning",
    "Endpoint",
    "EndpointStatus",
    "FindingStatus",
    "GetResult",
    "HealthStatus",
    "JSONResponse",
    "LinkHeaderPaginator",
    "NotFoundError",
    "OffsetPaginator",
    "OperatingSystem",
    "OsFamily",
    "Package",
    "Page",
    "PageNumberPaginator",
    "PageRequest",
    "PageResult",
    "Pager",
    "PaginationError",
    "Paginator",
    "PagingFault",
    "PermissionDeniedError",
    "RateLimitError",
    "RemediationAction",
    "RemediationStatus",
    "RemediationTarget",
    "RemedyClient",
    "RemedyError",
    "RemedyWarning",
    "RequestOptions",
    "ResourceCollection",
    "ResponseTooLargeError",
    "RetryPolicy",
    "Scope",
    "ScopeSelector",
    "ServerError",
    "Severity",
    "UnpagedPaginator",
    "UnprocessableEntityError",
    "VulnerabilityFinding",
    "__version__",
    "from_wire",
    "to_wire",
]
