"""One generic collection of records, configured per resource by path segment and model type."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Generic, TypeVar

from attrs import frozen
from yarl import URL

from ._codec import structure_hook
from ._http import JSONResponse, Request
from ._ids import id_segment
from ._models import Endpoint, RemediationTarget, Scope, VulnerabilityFinding
from ._options import RequestOptions
from ._pager import Pager
from ._paging import PageRequest, Paginator
from ._query import FilterValue, encode_filters
from ._response import model_from

T = TypeVar("T")

GetJSON = Callable[[Request, RequestOptions | None], Awaitable[JSONResponse]]


@frozen
class Resource(Generic[T]):
    """A resource group of the API: where it lives under /v1 and what its records are."""

    attribute: str
    segment: str
    model: type[T]


ENDPOINTS = Resource("endpoints", "endpoints", Endpoint)
REMEDIATION_TARGETS = Resource("remediation_targets", "remediation-targets", RemediationTarget)
SCOPES = Resource("scopes", "scopes", Scope)
VULNERABILITY_FINDINGS = Resource(
    "vulnerability_findings", "vulnerability-findings", VulnerabilityFinding
)
RESOURCES = (ENDPOINTS, REMEDIATION_TARGETS, SCOPES, VULNERABILITY_FINDINGS)


def check_page_size(page_size: int | None, max_items: int | None) -> None:
    """Reject a page size or item cap that is not a positive (or, for max_items, zero) int."""
    if page_size is not None and (
        isinstance(page_size, bool) or not isinstance(page_size, int) or page_size < 1
    ):
        raise ValueError(f"page_size must be a positive int or None, got {page_size!r}")
    if max_items is not None and (
        isinstance(max_items, bool) or not isinstance(max_items, int) or max_items < 0
    ):
        raise ValueError(f"max_items must be an int >= 0 or None, got {max_items!r}")


class ResourceCollection(Generic[T]):
    """Reads one kind of record: `get` one by id, `list` many lazily."""

    def __init__(
        self, resource: Resource[T], *, base_url: URL, get_json: GetJSON, paginator: Paginator
    ) -> None:
        self.resource = resource
        self.url = base_url.joinpath("v1", resource.segment)
        self.paginator = paginator
        self._get_json = get_json
        self._structure = structure_hook(resource.model)

    def __repr__(self) -> str:
        model = self.resource.model.__name__
        return f"<ResourceCollection {self.resource.attribute} of {model} at {self.url}>"

    async def get(self, resource_id: str | int, *, options: RequestOptions | None = None) -> T:
        """Return the record with this id; raises NotFoundError when there is none.

        The id is sent as exactly one percent-encoded path segment, whatever it contains.
        """
        url = self.url.joinpath(id_segment(resource_id), encoded=True)
        response = await self._get_json(Request("GET", url), options)
        return model_from(self.resource.model, response)

    def list(
        self,
        *,
        page_size: int | None = None,
        max_items: int | None = None,
        options: RequestOptions | None = None,
        **filters: FilterValue,
    ) -> Pager[T]:
        """Return a lazy Pager over the records matching the filters.

        Filters become query parameters (`endpoint_id="ep-1"` -> `endpointId=ep-1`; see
        `encode_filters`). Bad filters, page sizes and caps raise here, before any I/O.
        """
        check_page_size(page_size, max_items)
        filter_params = encode_filters(filters)
        first = self.paginator.first(page_size)
        clashes = {name for name, _ in filter_params} & {name for name, _ in first.params}
        if clashes:
            raise ValueError(
                f"filter(s) {sorted(clashes)} are paging parameters of "
                f"{type(self.paginator).__name__}; use page_size instead"
            )

        async def fetch(page: PageRequest) -> JSONResponse:
            if page.url is not None:
                url = page.url
            else:
                url = self.url.with_query(filter_params + page.params)
            return await self._get_json(Request("GET", url), options)

        return Pager(
            fetch=fetch,
            paginator=self.paginator,
            model=self.resource.model,
            structure=self._structure,
            page_size=page_size,
            max_items=max_items,
            description=self.resource.attribute,
        )
