"""openapi.yaml against the published reference: the facts of REAL-CONTRACT.md, the markers that
tell published from assumed, and the client's models and filters, which must say the same.

The facts are written here as the reference states them (not read from the document), so a
change to the document that breaks one fails here.
"""

from __future__ import annotations

import re
import types
from pathlib import Path
from typing import Any, Final, Union, get_args, get_origin, get_type_hints

import attrs
import pytest
import yaml
from openapi_spec_validator import validate as validate_spec

import remedy_async
from remedy_async import (
    Endpoint,
    EndpointFilter,
    FindingFilter,
    FindingType,
    OperatingSystem,
    OsFamily,
    RemediationTarget,
    Scope,
    ScopeStatus,
    Severity,
    SubjectFilter,
    SubjectType,
    VulnerabilityFinding,
)
from remedy_async._models import FILTERS

SPEC: Final[dict[str, Any]] = yaml.safe_load(
    (Path(remedy_async.__file__).parent / "openapi.yaml").read_text(encoding="utf-8")
)
SCHEMAS: Final = SPEC["components"]["schemas"]
REFERENCE: Final = "https://furl-docs.pages.dev/api/operations/{}/"
PAGES: Final = {REFERENCE.format(page) for page in ("listendpoints", "getendpoint", "getscope")}
UUID: Final = {"type": "string", "format": "uuid"}
DATE_TIME: Final = {"type": "string", "format": "date-time"}
OPERATIONS: Final = ("get", "put", "post", "delete", "options", "head", "patch", "trace")


def resolve(node: dict[str, Any]) -> dict[str, Any]:
    """Follow a local `$ref` (its siblings, such as the markers, dropped)."""
    while "$ref" in node:
        target: Any = SPEC
        for token in node["$ref"].removeprefix("#/").split("/"):
            target = target[token]
        node = target
    return node


def plain(schema: dict[str, Any]) -> dict[str, Any]:
    """A schema without its annotations (markers, descriptions, examples)."""
    return {
        key: value
        for key, value in schema.items()
        if not key.startswith("x-") and key not in ("description", "examples")
    }


def operation(path: str) -> dict[str, Any]:
    found: dict[str, Any] = SPEC["paths"][path]["get"]
    return found


def parameters(path: str) -> dict[str, dict[str, Any]]:
    return {p["name"]: p for p in map(resolve, operation(path).get("parameters", []))}


def nullable(schema: dict[str, Any]) -> bool:
    kinds = schema.get("type")
    return isinstance(kinds, list) and "null" in kinds


def test_the_document_is_valid_openapi_3_1_and_names_the_service() -> None:
    """The document is valid OpenAPI 3.1; its first server is Furl's public API."""
    validate_spec(SPEC)
    assert SPEC["servers"][0]["url"] == "https://api.furl.ai"
    description = SPEC["info"]["description"]
    for page in ("listendpoints", "getendpoint", "getscope"):
        assert REFERENCE.format(page) in description.replace("<operationid>", page)
    assert "## Published" in description
    assert "## Assumed" in description


def test_endpoint_has_the_nine_published_properties_all_required() -> None:
    """Endpoint: nine properties, all required, the four published nullable ones nullable."""
    endpoint = SCHEMAS["Endpoint"]
    properties = endpoint["properties"]
    names = [
        "id", "hostname", "ip", "mac_address", "operating_system", "agent_id",
        "agent_version", "created_at", "updated_at",
    ]  # fmt: skip
    assert list(properties) == names
    assert sorted(endpoint["required"]) == sorted(names)
    assert {name for name, schema in properties.items() if nullable(schema)} == {
        "ip", "mac_address", "agent_id", "agent_version"
    }  # fmt: skip
    assert plain(properties["id"]) == UUID
    assert plain(properties["agent_id"]) == {"type": ["string", "null"], "format": "uuid"}
    assert plain(properties["created_at"]) == plain(properties["updated_at"]) == DATE_TIME
    assert resolve(properties["operating_system"]) is SCHEMAS["OperatingSystem"]


def test_operating_system_requires_name_and_family() -> None:
    """OperatingSystem: name and family required; version, vendor, architecture optional and
    nullable; family one of macos, windows, linux, other."""
    system = SCHEMAS["OperatingSystem"]
    assert sorted(system["required"]) == ["family", "name"]
    properties = system["properties"]
    assert set(properties) == {"name", "version", "family", "vendor", "architecture"}
    assert [name for name, schema in properties.items() if nullable(schema)] == [
        "version", "vendor", "architecture"
    ]  # fmt: skip
    assert resolve(properties["family"])["enum"] == ["macos", "windows", "linux", "other"]


def test_scope_as_published_and_open_after_finding_filter() -> None:
    """Scope: the seven published properties, all required, description nullable, status's
    three values; any later field allowed, since the published page is cut there."""
    scope = SCHEMAS["Scope"]
    names = [
        "id", "name", "description", "status", "subject_filter", "endpoint_filter",
        "finding_filter",
    ]  # fmt: skip
    assert list(scope["properties"]) == names
    assert sorted(scope["required"]) == sorted(names)
    assert [name for name, schema in scope["properties"].items() if nullable(schema)] == [
        "description"
    ]
    assert scope["additionalProperties"] is True
    assert "cut after `finding_filter`" in " ".join(scope["description"].split())
    assert resolve(scope["properties"]["status"])["enum"] == ["active", "paused", "archived"]


def test_the_scope_filters_as_published() -> None:
    """SubjectFilter, EndpointFilter and FindingFilter: their published fields, all optional,
    with their published enums and bounds."""
    subject = SCHEMAS["SubjectFilter"]["properties"]
    assert list(subject) == ["subject_types", "vendors", "products", "cpe_patterns"]
    assert resolve(subject["subject_types"]["items"])["enum"] == [
        "software", "service", "configuration"
    ]  # fmt: skip
    endpoint = SCHEMAS["EndpointFilter"]["properties"]
    assert list(endpoint) == ["os_families", "endpoint_ids", "has_agent", "tags"]
    assert endpoint["os_families"]["items"]["enum"] == ["macos", "windows", "linux"]
    assert endpoint["has_agent"]["type"] == "boolean"
    finding = SCHEMAS["FindingFilter"]["properties"]
    assert list(finding) == ["finding_types", "min_severity", "min_cvss_score", "kev_only"]
    assert resolve(finding["finding_types"]["items"])["enum"] == [
        "vulnerability", "deprecation", "compliance", "licensing", "standardization"
    ]  # fmt: skip
    assert resolve(finding["min_severity"])["enum"] == [
        "critical", "high", "medium", "low", "info"
    ]  # fmt: skip
    assert (finding["min_cvss_score"]["type"], finding["min_cvss_score"]["maximum"]) == (
        "number",
        10,
    )
    for name in ("SubjectFilter", "EndpointFilter", "FindingFilter"):
        assert "required" not in SCHEMAS[name], name


def test_list_endpoints_takes_the_published_query() -> None:
    """`limit` 1..100 default 50, `offset` from 0 default 0, `osFamily` without `other`,
    `hasAgent` a boolean: nothing else, none required."""
    query = parameters("/v1/endpoints")
    assert list(query) == ["limit", "offset", "osFamily", "hasAgent"]
    assert not any(p.get("required") for p in query.values())
    limit = query["limit"]["schema"]
    assert (limit["type"], limit["minimum"], limit["maximum"], limit["default"]) == (
        "integer", 1, 100, 50
    )  # fmt: skip
    offset = query["offset"]["schema"]
    assert (offset["type"], offset["minimum"], offset["default"]) == ("integer", 0, 0)
    assert query["osFamily"]["schema"] == {"type": "string", "enum": ["macos", "windows", "linux"]}
    assert query["hasAgent"]["schema"] == {"type": "boolean"}


@pytest.mark.parametrize(
    ("path", "record"),
    [
        ("/v1/endpoints", "Endpoint"),
        ("/v1/remediation-targets", "RemediationTarget"),
        ("/v1/scopes", "Scope"),
        ("/v1/vulnerability-findings", "VulnerabilityFinding"),
    ],
)
def test_every_list_answers_the_published_envelope(path: str, record: str) -> None:
    """200: `data` (the records), `total`, `limit`, `offset`, all four required; no cursor."""
    response = resolve(operation(path)["responses"]["200"])
    page = resolve(response["content"]["application/json"]["schema"])
    assert sorted(page["required"]) == ["data", "limit", "offset", "total"]
    assert set(page["properties"]) == {"data", "total", "limit", "offset"}
    assert page["properties"]["data"]["items"] == {"$ref": f"#/components/schemas/{record}"}
    for name in ("total", "limit", "offset"):
        assert page["properties"][name]["type"] == "integer"
    assert not {"Link", "link"} & set(response.get("headers", {}))


def error_example(path: str, status: str) -> Any:
    response = resolve(operation(path)["responses"][status])
    (media,) = response["content"].values()
    assert media["schema"] == {"$ref": "#/components/schemas/Error"}
    (example,) = media["examples"].values()
    return example["value"]


def test_the_error_body_is_one_string() -> None:
    """`{"error": "<message>"}`: one required string, no code, no request id."""
    error = SCHEMAS["Error"]
    assert (error["type"], error["required"]) == ("object", ["error"])
    assert list(error["properties"]) == ["error"]
    assert error["properties"]["error"]["type"] == "string"


def test_get_endpoint_documents_the_published_errors_and_messages() -> None:
    """getEndpoint: a UUID; 200 Endpoint; 400, 401, 404 and 500 with the published messages."""
    path = "/v1/endpoints/{endpointId}"
    assert parameters(path)["endpointId"]["schema"] == UUID
    assert error_example(path, "400") == {"error": "Invalid endpoint ID format."}
    assert error_example(path, "401") == {"error": "Missing or invalid API key."}
    assert error_example(path, "404") == {"error": "Endpoint not found."}
    assert error_example(path, "500") == {"error": "Internal server error."}
    assert error_example("/v1/endpoints", "401") == {"error": "Missing or invalid API key."}
    schema = operation(path)["responses"]["200"]["content"]["application/json"]["schema"]
    assert schema == {"$ref": "#/components/schemas/Endpoint"}


def test_get_scope_is_published_its_errors_assumed_by_the_pattern() -> None:
    """getScope: a UUID, 200 Scope (published); 400/401/404/500 by the pattern of
    getEndpoint."""
    path = "/v1/scopes/{scopeId}"
    assert parameters(path)["scopeId"]["schema"] == UUID
    assert error_example(path, "404") == {"error": "Scope not found."}
    assert error_example(path, "500") == {"error": "Internal server error."}
    for status in ("400", "404", "500"):
        assert resolve(operation(path)["responses"][status])["x-contract"] == "assumed"
    assert "401" in operation(path)["responses"]


def test_an_out_of_range_query_is_an_assumed_422() -> None:
    """Every list documents a 422 with the error body, marked assumed."""
    for path in ("/v1/endpoints", "/v1/scopes"):
        response = resolve(operation(path)["responses"]["422"])
        assert response["x-contract"] == "assumed"
        assert response["content"]["application/json"]["schema"] == {
            "$ref": "#/components/schemas/Error"
        }


def marked() -> list[tuple[str, dict[str, Any]]]:
    """Every operation, component schema and schema property, by where it is."""
    found = [
        (f"{method.upper()} {path}", item[method])
        for path, item in SPEC["paths"].items()
        for method in OPERATIONS
        if method in item
    ]
    for name, schema in SCHEMAS.items():
        found.append((name, schema))
        found += [(f"{name}.{key}", inner) for key, inner in schema.get("properties", {}).items()]
    return found


@pytest.mark.parametrize(("where", "node"), marked(), ids=[where for where, _ in marked()])
def test_every_part_says_whether_it_is_published(where: str, node: dict[str, Any]) -> None:
    """`x-contract` is `published` or `assumed`; an operation or schema that is published
    names its reference page, one that is assumed says why."""
    assert node.get("x-contract") in ("published", "assumed"), where
    if "." in where:
        return
    if node["x-contract"] == "published":
        assert node["x-reference"] in PAGES, where
    else:
        assert len(node["x-assumption"]) > 10, where


def test_only_the_published_parts_are_marked_published() -> None:
    """The three published operations and the published schemas; everything else assumed."""
    published = {where for where, node in marked() if "." not in where and node["x-contract"] ==
                 "published"}  # fmt: skip
    assert published == {
        "GET /v1/endpoints", "GET /v1/endpoints/{endpointId}", "GET /v1/scopes/{scopeId}",
        "OsFamily", "OperatingSystem", "Endpoint", "ScopeStatus", "SubjectType", "FindingType",
        "Severity", "SubjectFilter", "EndpointFilter", "FindingFilter", "Scope", "Error",
        "EndpointList",
    }  # fmt: skip


def test_targets_and_findings_type_only_the_pattern() -> None:
    """RemediationTarget and VulnerabilityFinding type `id`, `created_at`, `updated_at` only,
    allow any other field, and name the simulator's other fields in their description."""
    fields = {
        "RemediationTarget": "endpoint_id type name vendor version path package_manager",
        "VulnerabilityFinding": "endpoint_id remediation_target_id finding_type severity "
        "cve_id title cvss_score kev",
    }
    for name, described in fields.items():
        schema = SCHEMAS[name]
        assert (schema["x-contract"], schema["additionalProperties"]) == ("assumed", True)
        assert plain(schema["properties"]["id"]) == UUID
        assert plain(schema["properties"]["created_at"]) == DATE_TIME
        assert set(schema["properties"]) == {"id", "created_at", "updated_at"}
        said = re.findall(r"`([a-z_]+)`", schema["description"])
        assert set(described.split()) <= set(said), name


# --- the client says the same ----------------------------------------------------------------

MODELS: Final = {
    "Endpoint": Endpoint,
    "OperatingSystem": OperatingSystem,
    "Scope": Scope,
    "SubjectFilter": SubjectFilter,
    "EndpointFilter": EndpointFilter,
    "FindingFilter": FindingFilter,
    "RemediationTarget": RemediationTarget,
    "VulnerabilityFinding": VulnerabilityFinding,
}
ENUMS: Final = {
    "OsFamily": OsFamily,
    "ScopeStatus": ScopeStatus,
    "SubjectType": SubjectType,
    "FindingType": FindingType,
    "Severity": Severity,
}


def takes_none(hint: Any) -> bool:
    return get_origin(hint) in (Union, types.UnionType) and type(None) in get_args(hint)


@pytest.mark.parametrize("name", MODELS)
def test_each_model_types_exactly_the_documented_properties(name: str) -> None:
    """A model's fields are the schema's properties; required ones have no default, and a
    field takes None exactly when the schema makes it nullable or optional."""
    model, schema = MODELS[name], SCHEMAS[name]
    hints = get_type_hints(model)
    fields = {field.name: field for field in attrs.fields(model) if field.name != "extra"}
    assert set(fields) == set(schema["properties"]), name
    required = set(schema.get("required", ()))
    for key, field in fields.items():
        property_ = schema["properties"][key]
        assert (field.default is attrs.NOTHING) == (key in required), f"{name}.{key}"
        expected = nullable(property_) or key not in required
        assert takes_none(hints[key]) == expected, f"{name}.{key}"


@pytest.mark.parametrize("name", ENUMS)
def test_each_enum_has_the_documented_values(name: str) -> None:
    """The client's enums list the schema's values, in order."""
    assert [member.value for member in ENUMS[name]] == SCHEMAS[name]["enum"]


@pytest.mark.parametrize("resource", ["endpoints", "remediation-targets", "scopes",
                                      "vulnerability-findings"])  # fmt: skip
def test_the_client_filters_are_the_documented_ones(resource: str) -> None:
    """`_filters.FILTERS` names each list's documented filters (not its paging parameters),
    with the same kinds and values."""
    documented = {
        name: parameter["schema"]
        for name, parameter in parameters(f"/v1/{resource}").items()
        if name not in ("limit", "offset")
    }
    ours = FILTERS[resource.replace("-", "_")]
    assert {spec.wire_name for spec in ours.values()} == set(documented)
    for spec in ours.values():
        schema = documented[spec.wire_name]
        if spec.kind == "enum":
            assert list(spec.choices or ()) == schema["enum"], spec.wire_name
        else:
            assert schema == {"type": spec.kind}, spec.wire_name
