"""Typed asyncio client for the Remedy device-management API.

    async with RemedyClient("https://api.example.com", token="...") as client:
        endpoint = await client.endpoints.get("ep-1")
        async for finding in client.vulnerability_findings.list(severity="critical"):
            ...

A list call meets in the collection: `_paging` (which page next, without I/O) forms each
request and reads each page, `_sending` (one attempt, retries, limits) fetches it, and `_wire`
turns bytes into values and models. Everything public is named here.
"""

import typing as _typing
from importlib import import_module as _import_module

import attrs as _attrs

from ._client import RemedyClient
from ._collection import ResourceCollection
from ._errors import (
    APIConnectionError,
    APIError,
    APIStatusError,
    APITimeoutError,
    AuthenticationError,
    BadRequestError,
    ChangeStateError,
    ClientClosedError,
    ConfigurationError,
    ConflictError,
    ContractDriftWarning,
    DecodeError,
    DuplicateItemWarning,
    MissingDependencyError,
    NotFoundError,
    PaginationError,
    PermissionDeniedError,
    ProxyError,
    RateLimitError,
    RemedyError,
    RemedyWarning,
    ResponseTooLargeError,
    ServerError,
    StateInUseError,
    StateVersionError,
    TenantErrors,
    TokenProviderError,
    UnprocessableEntityError,
)
from ._models import (
    RESOURCES,
    Endpoint,
    EndpointFilter,
    EndpointFilters,
    Filter,
    FindingFilter,
    FindingType,
    HealthStatus,
    OperatingSystem,
    OsFamily,
    RemediationTarget,
    RemediationTargetFilters,
    Resource,
    Scope,
    ScopeFilters,
    ScopeStatus,
    Severity,
    SubjectFilter,
    SubjectType,
    VulnerabilityFinding,
    VulnerabilityFindingFilters,
)
from ._raw import RawResponse
from ._sending._budget import RateLimit
from ._sending._events import ClientEvent
from ._sending._retry import RetryPolicy
from ._sending._transport import ConnectionPool, Transport
from ._settings import RequestOptions, Telemetry
from ._version import VERSION as _VERSION
from ._wire._codec import to_wire
from ._wire._fastpath import from_wire
from ._wire._http import JSONResponse

if _typing.TYPE_CHECKING:
    from ._bulk import GetResult
    from ._changes._change import Change, ChangeKind, PassResult
    from ._changes._feed import ChangeFeed
    from ._changes._state import ChangeState
    from ._download import DownloadResult
    from ._paging._conventions import CONVENTIONS
    from ._paging._pager import Page, Pager
    from ._paging._paginators._auto import AutoPaginator
    from ._paging._paginators._pinned import (
        CursorPaginator,
        LinkHeaderPaginator,
        OffsetPaginator,
        PageNumberPaginator,
        UnpagedPaginator,
    )
    from ._paging._protocol import (
        Convention,
        PageRequest,
        PageResult,
        Paginator,
        PagingFault,
        Shifts,
    )
    from ._probe import ProbeReport, ResourceProbe, probe
    from ._sending._mock import MockRequest, MockResponse, MockTransport
    from ._tenancy._clients import TenantClients
    from ._tenancy._pager import TenantPage, TenantPager, TenantRecord
    from ._tenancy._plan import Shard, Unit, plan_shards, plan_units
    from ._tenancy._tenant import Tenant
    from ._tenancy._tenants_file import load_tenants
    from ._wire._error_bodies import ERROR_SHAPES

__version__ = _VERSION
"""The installed version of remedy_async, such as `0.1.0`."""

_LAZY = {
    "AutoPaginator": "._paging._paginators._auto",
    **dict.fromkeys(("Change", "ChangeKind", "PassResult"), "._changes._change"),
    "CONVENTIONS": "._paging._conventions",
    "ERROR_SHAPES": "._wire._error_bodies",
    "ChangeFeed": "._changes._feed",
    "ChangeState": "._changes._state",
    "DownloadResult": "._download",
    "GetResult": "._bulk",
    **dict.fromkeys(("Page", "Pager"), "._paging._pager"),
    **dict.fromkeys(
        ("Convention", "PageRequest", "PageResult", "Paginator", "PagingFault", "Shifts"),
        "._paging._protocol",
    ),
    **dict.fromkeys(("MockRequest", "MockResponse", "MockTransport"), "._sending._mock"),
    **dict.fromkeys(("ProbeReport", "ResourceProbe", "probe"), "._probe"),
    "Tenant": "._tenancy._tenant",
    "TenantClients": "._tenancy._clients",
    **dict.fromkeys(("TenantPage", "TenantPager", "TenantRecord"), "._tenancy._pager"),
    **dict.fromkeys(("Shard", "Unit", "plan_shards", "plan_units"), "._tenancy._plan"),
    "load_tenants": "._tenancy._tenants_file",
    **dict.fromkeys(
        (
            "CursorPaginator",
            "LinkHeaderPaginator",
            "OffsetPaginator",
            "PageNumberPaginator",
            "UnpagedPaginator",
        ),
        "._paging._paginators._pinned",
    ),
}
"""Public names whose module is imported on first use (PEP 562): the paging code (loaded by a
first list, so a program that only gets records never loads it; the conventions one pins by
hand, which a program that lets the client detect its paging never needs), the probe,
the change feed (with sqlite3), reading many tenants, `get_many`, the agent configuration
download, the error-body conventions (read by a first error) and the test double of the
service (`MockTransport`)."""

__all__ = [
    "CONVENTIONS",
    "ERROR_SHAPES",
    "RESOURCES",
    "APIConnectionError",
    "APIError",
    "APIStatusError",
    "APITimeoutError",
    "AuthenticationError",
    "AutoPaginator",
    "BadRequestError",
    "Change",
    "ChangeFeed",
    "ChangeKind",
    "ChangeState",
    "ChangeStateError",
    "ClientClosedError",
    "ClientEvent",
    "ConfigurationError",
    "ConflictError",
    "ConnectionPool",
    "ContractDriftWarning",
    "Convention",
    "CursorPaginator",
    "DecodeError",
    "DownloadResult",
    "DuplicateItemWarning",
    "Endpoint",
    "EndpointFilter",
    "EndpointFilters",
    "Filter",
    "FindingFilter",
    "FindingType",
    "GetResult",
    "HealthStatus",
    "JSONResponse",
    "LinkHeaderPaginator",
    "MissingDependencyError",
    "MockRequest",
    "MockResponse",
    "MockTransport",
    "NotFoundError",
    "OffsetPaginator",
    "OperatingSystem",
    "OsFamily",
    "Page",
    "PageNumberPaginator",
    "PageRequest",
    "PageResult",
    "Pager",
    "PaginationError",
    "Paginator",
    "PagingFault",
    "PassResult",
    "PermissionDeniedError",
    "ProbeReport",
    "ProxyError",
    "RateLimit",
    "RateLimitError",
    "RawResponse",
    "RemediationTarget",
    "RemediationTargetFilters",
    "RemedyClient",
    "RemedyError",
    "RemedyWarning",
    "RequestOptions",
    "Resource",
    "ResourceCollection",
    "ResourceProbe",
    "ResponseTooLargeError",
    "RetryPolicy",
    "Scope",
    "ScopeFilters",
    "ScopeStatus",
    "ServerError",
    "Severity",
    "Shard",
    "Shifts",
    "StateInUseError",
    "StateVersionError",
    "SubjectFilter",
    "SubjectType",
    "Telemetry",
    "Tenant",
    "TenantClients",
    "TenantErrors",
    "TenantPage",
    "TenantPager",
    "TenantRecord",
    "TokenProviderError",
    "Transport",
    "Unit",
    "UnpagedPaginator",
    "UnprocessableEntityError",
    "VulnerabilityFinding",
    "VulnerabilityFindingFilters",
    "__version__",
    "from_wire",
    "load_tenants",
    "plan_shards",
    "plan_units",
    "probe",
    "to_wire",
]


def _present_as_public(value: object) -> None:
    """Give a public class or function this package as its `__module__`.

    So reprs, docs, tracebacks and pickles name `remedy_async.Endpoint`, not the private module
    it happens to live in, and moving code between private modules never breaks a user's
    pickled records or errors (as httpx does). An attrs class's string annotations are resolved
    first, in its own module, since they are looked up through `__module__`.
    """
    if isinstance(value, type) and _attrs.has(value):
        if any(isinstance(field.type, str) for field in _attrs.fields(value)):
            _attrs.resolve_types(value)
        value.__module__ = __name__
    elif callable(value):
        value.__module__ = __name__


def __getattr__(name: str) -> object:
    """Import a lazily loaded public name on first use, present it, and keep it."""
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    found = vars(_import_module(module, __name__))
    for lazy, where in _LAZY.items():
        if where == module:
            _present_as_public(found[lazy])
            globals()[lazy] = found[lazy]
    return found[name]


def __dir__() -> list[str]:
    """Every name of the package, the lazily loaded ones included."""
    return sorted({*globals(), *_LAZY})


for _name in __all__:
    if _name not in _LAZY:
        _present_as_public(globals()[_name])
del _name
