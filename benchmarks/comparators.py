"""The comparator models: pydantic v2, msgspec and a default cattrs converter on attrs classes.

Imported only by the process measuring that variant (see `clients.py`), so no variant carries
another library's objects on its heap (a bigger heap makes every full garbage collection cost
more).
"""

# No `from __future__ import annotations`: the models are local classes, and cattrs and pydantic
# must see their annotations as real types, not strings naming locals.
from collections.abc import Callable
from datetime import datetime
from typing import Any


def pydantic_models() -> tuple[Callable[[bytes], list[Any]], Callable[[bytes], Any]]:
    """(page body -> items, record body -> record) with pydantic v2 models."""
    import pydantic  # noqa: PLC0415
    from pydantic.alias_generators import to_camel  # noqa: PLC0415

    config = pydantic.ConfigDict(alias_generator=to_camel, extra="allow")

    class Package(pydantic.BaseModel):
        model_config = config
        name: str | None = None
        installed_version: str | None = None
        fixed_version: str | None = None

    class Finding(pydantic.BaseModel):
        model_config = config
        id: str
        endpoint_id: str | None = None
        cve_id: str | None = None
        title: str | None = None
        severity: str | None = None
        cvss_score: float | None = None
        scanner: str | None = None
        status: str | None = None
        detected_at: datetime | None = None
        package: Package | None = None
        remediation_target_id: str | None = None

    class Page(pydantic.BaseModel):
        items: list[Finding]

    return (lambda body: Page.model_validate_json(body).items), Finding.model_validate_json


def msgspec_models() -> tuple[Callable[[bytes], list[Any]], Callable[[bytes], Any]]:
    """(page body -> items, record body -> record) with msgspec Structs."""
    import msgspec  # noqa: PLC0415

    class Package(msgspec.Struct, rename="camel"):
        name: str | None = None
        installed_version: str | None = None
        fixed_version: str | None = None

    class Finding(msgspec.Struct, rename="camel"):
        id: str
        endpoint_id: str | None = None
        cve_id: str | None = None
        title: str | None = None
        severity: str | None = None
        cvss_score: float | None = None
        scanner: str | None = None
        status: str | None = None
        detected_at: datetime | None = None
        package: Package | None = None
        remediation_target_id: str | None = None

    class Page(msgspec.Struct):
        items: list[Finding]

    page = msgspec.json.Decoder(Page)
    return (lambda body: page.decode(body).items), msgspec.json.Decoder(Finding).decode


def cattrs_models() -> tuple[Callable[[bytes], list[Any]], Callable[[bytes], Any]]:
    """(page body -> items, record body -> record) with a default cattrs converter."""
    import attrs  # noqa: PLC0415
    import cattrs  # noqa: PLC0415
    import orjson  # noqa: PLC0415

    @attrs.frozen
    class Package:
        name: str | None = None
        installedVersion: str | None = None  # wire names, as a naive SDK would have them
        fixedVersion: str | None = None

    @attrs.frozen
    class Finding:
        id: str
        endpointId: str | None = None
        cveId: str | None = None
        title: str | None = None
        severity: str | None = None
        cvssScore: float | None = None
        scanner: str | None = None
        status: str | None = None
        detectedAt: str | None = None
        package: Package | None = None
        remediationTargetId: str | None = None

    structure = cattrs.Converter().get_structure_hook(Finding)
    return (
        lambda body: [structure(item, Finding) for item in orjson.loads(body)["items"]],
        lambda body: structure(orjson.loads(body), Finding),
    )
