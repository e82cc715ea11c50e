"""Many organisations answering as the published reference does, each behind its own key: a
`MockTransport` handler routing every request by its token to that tenant's
`PublishedService` (an unknown key is the published 401)."""

from __future__ import annotations

from collections.abc import Mapping

from remedy_async import MockRequest, MockResponse, Tenant
from tests.published import PublishedService, dataset


class PublishedTenants:
    """One `PublishedService` per tenant (`services[name]`), each wanting its own token."""

    def __init__(self, sizes: Mapping[str, int]) -> None:
        self.services = {
            name: PublishedService(
                dataset(seed=index, sizes={"endpoints": size}), token=f"key-of-{name}"
            )
            for index, (name, size) in enumerate(sizes.items())
        }
        self.environ = {f"{name.upper()}_TOKEN": f"key-of-{name}" for name in sizes}
        self.tenants = [Tenant(name, token_env=f"{name.upper()}_TOKEN") for name in sizes]

    def handler(self, request: MockRequest) -> MockResponse:
        """Answer as the tenant whose key the request carries."""
        given = request.headers.get("Authorization", "")
        for service in self.services.values():
            if given == f"Bearer {service.token}":
                return service.handler(request)
        return MockResponse.json(401, {"error": "Missing or invalid API key."})

    def ids(self, name: str, collection: str = "endpoints") -> list[str]:
        """The ids of a tenant's records, in list order."""
        return [record["id"] for record in self.services[name].records[collection]]
