"""The comparator models: pydantic v2, msgspec and a default cattrs converter on attrs classes,
describing the records as the simulator serves them by default (the published contract).

Keys are snake_case as published, so no comparator needs aliases. Endpoints have the published
shape field for field (nested `operating_system`; `ip`, `mac_address`, `agent_id` and
`agent_version` required but nullable; the operating system's `version`, `vendor` and
`architecture` optional and nullable). Findings are unpublished: these models type the fields the
simulator serves (`id, endpoint_id, remediation_target_id, finding_type, severity, cve_id, title,
cvss_score, kev, created_at, updated_at`), as a user who read the responses would; remedy_async's
own `VulnerabilityFinding` types only `id`, `created_at` and `updated_at` and keeps the rest in
`extra`. Timestamps are parsed to datetimes by pydantic and msgspec and left as strings by the
default cattrs converter (it has no hook for datetime), as a naive SDK would have them.

Imported only by the process measuring that variant (see `clients.py`), so no variant carries
another library's objects on its heap (a bigger heap makes every full garbage collection cost
more). Each function returns `(page body -> items, record body -> record)` for a resource,
"endpoints" or "vulnerability-findings"; pages hold their records under `data`.
"""

# No `from __future__ import annotations`: the models are local classes, and cattrs and pydantic
# must see their annotations as real types, not strings naming locals.
from collections.abc import Callable
from datetime import datetime
from typing import Any

Decoders = tuple[Callable[[bytes], list[Any]], Callable[[bytes], Any]]


def pydantic_models(resource: str) -> Decoders:
    """(page body -> items, record body -> record) with pydantic v2 models."""
    import pydantic  # noqa: PLC0415

    config = pydantic.ConfigDict(extra="allow")

    class OperatingSystem(pydantic.BaseModel):
        model_config = config
        name: str
        family: str
        version: str | None = None
        vendor: str | None = None
        architecture: str | None = None

    class Endpoint(pydantic.BaseModel):
        model_config = config
        id: str
        hostname: str
        ip: str | None
        mac_address: str | None
        operating_system: OperatingSystem
        agent_id: str | None
        agent_version: str | None
        created_at: datetime
        updated_at: datetime

    class Finding(pydantic.BaseModel):
        model_config = config
        id: str
        endpoint_id: str
        remediation_target_id: str | None = None
        finding_type: str
        severity: str
        cve_id: str | None = None
        title: str
        cvss_score: float | None = None
        kev: bool
        created_at: datetime
        updated_at: datetime

    model: type[pydantic.BaseModel] = Endpoint if resource == "endpoints" else Finding

    class Page(pydantic.BaseModel):
        data: list[model]  # type: ignore[valid-type]

    return (lambda body: Page.model_validate_json(body).data), model.model_validate_json


def msgspec_models(resource: str) -> Decoders:
    """(page body -> items, record body -> record) with msgspec Structs."""
    import msgspec  # noqa: PLC0415

    class OperatingSystem(msgspec.Struct):
        name: str
        family: str
        version: str | None = None
        vendor: str | None = None
        architecture: str | None = None

    class Endpoint(msgspec.Struct):
        id: str
        hostname: str
        ip: str | None
        mac_address: str | None
        operating_system: OperatingSystem
        agent_id: str | None
        agent_version: str | None
        created_at: datetime
        updated_at: datetime

    class Finding(msgspec.Struct):
        id: str
        endpoint_id: str
        finding_type: str
        severity: str
        title: str
        kev: bool
        created_at: datetime
        updated_at: datetime
        remediation_target_id: str | None = None
        cve_id: str | None = None
        cvss_score: float | None = None

    if resource == "endpoints":

        class EndpointPage(msgspec.Struct):
            data: list[Endpoint]

        page: Any = msgspec.json.Decoder(EndpointPage)
        record: Any = msgspec.json.Decoder(Endpoint)
    else:

        class FindingPage(msgspec.Struct):
            data: list[Finding]

        page = msgspec.json.Decoder(FindingPage)
        record = msgspec.json.Decoder(Finding)
    return (lambda body: page.decode(body).data), record.decode


def cattrs_models(resource: str) -> Decoders:
    """(page body -> items, record body -> record) with a default cattrs converter."""
    import attrs  # noqa: PLC0415
    import cattrs  # noqa: PLC0415
    import orjson  # noqa: PLC0415

    @attrs.frozen
    class OperatingSystem:
        name: str
        family: str
        version: str | None = None
        vendor: str | None = None
        architecture: str | None = None

    @attrs.frozen
    class Endpoint:
        id: str
        hostname: str
        ip: str | None
        mac_address: str | None
        operating_system: OperatingSystem
        agent_id: str | None
        agent_version: str | None
        created_at: str
        updated_at: str

    @attrs.frozen
    class Finding:
        id: str
        endpoint_id: str
        finding_type: str
        severity: str
        title: str
        kev: bool
        created_at: str
        updated_at: str
        remediation_target_id: str | None = None
        cve_id: str | None = None
        cvss_score: float | None = None

    model: type[Any] = Endpoint if resource == "endpoints" else Finding
    structure = cattrs.Converter().get_structure_hook(model)
    return (
        lambda body: [structure(item, model) for item in orjson.loads(body)["data"]],
        lambda body: structure(orjson.loads(body), model),
    )
