"""List filters: the contract's are accepted and typed, a misspelt one fails before any I/O."""

from __future__ import annotations

import enum
import textwrap
from pathlib import Path
from typing import Any, get_type_hints

import pytest
import yaml
from aiohttp import web
from aioresponses import aioresponses
from mypy import api as mypy_api
from yarl import URL

import remedy_async
from remedy_async import RESOURCES, RemedyClient, RequestOptions, Resource
from remedy_async._filters import TYPED_FILTERS
from remedy_async.simulator import Simulator, SimulatorConfig
from tests.loopback import Serve

SPEC = yaml.safe_load((Path(remedy_async.__file__).parent / "openapi.yaml").read_text())
KINDS = {"string": "string", "number": "number", "integer": "integer", "boolean": "boolean"}


def spec_filters(resource: Resource[Any]) -> dict[str, dict[str, Any]]:
    """The list operation's filters in the contract: wire name to item schema (refs resolved)."""
    schemas = SPEC["components"]["schemas"]
    found = {}
    for parameter in SPEC["paths"][f"/v1/{resource.segment}"]["get"]["parameters"]:
        if "$ref" in parameter:
            continue  # the paging parameters, shared by every list
        schema = parameter["schema"]
        if "$ref" in schema:
            schema = schemas[schema["$ref"].rsplit("/", 1)[1]]
        item = schema["items"]
        # An enum or timestamp filter may also take other strings (`null`, a value the service
        # added); the documented alternative is the one with a schema of its own.
        item = next((choice for choice in item.get("anyOf", ()) if "$ref" in choice), item)
        if "$ref" in item:
            name = item["$ref"].rsplit("/", 1)[1]
            item = {**schemas[name], "x-name": name}
        found[parameter["name"]] = item
    return found


def kind_of(item: dict[str, Any]) -> str:
    if "enum" in item:
        return "enum"
    if item.get("format") == "date-time":
        return "timestamp"
    return KINDS[item["type"]]


@pytest.mark.parametrize("resource", RESOURCES, ids=lambda resource: resource.attribute)
def test_the_filters_are_the_contracts(resource: Resource[Any]) -> None:
    """Names, kinds and enum values agree with openapi.yaml; the TypedDict has the same keys."""
    documented = spec_filters(resource)
    ours = resource.filters
    assert {spec.wire_name for spec in ours.values()} == set(documented)
    for spec in ours.values():
        item = documented[spec.wire_name]
        if spec.choices is None:
            assert spec.kind == kind_of(item), spec.wire_name
        else:  # the contract's values, as an enum or as examples of a free string
            values = item.get("enum", item.get("examples"))
            assert [member.value for member in spec.choices] == values, spec.wire_name
    assert set(get_type_hints(TYPED_FILTERS[resource.attribute])) == set(ours)


def sample(kind: str, choices: type[enum.Enum] | None) -> tuple[Any, str]:
    """A value of a filter kind and how it is sent."""
    if choices is not None:
        member = next(iter(choices))
        return member, str(member.value)
    return {
        "string": ("x y/z", "x y/z"),
        "timestamp": ("2024-05-01T10:00:00Z", "2024-05-01T10:00:00Z"),
        "number": (9.5, "9.5"),
        "integer": (3, "3"),
        "boolean": (False, "false"),
    }[kind]


@pytest.mark.parametrize("resource", RESOURCES, ids=lambda resource: resource.attribute)
async def test_every_documented_filter_reaches_the_wire(resource: Resource[Any]) -> None:
    """Each filter is accepted by the client and by the simulator, sent under its wire name."""
    simulator = Simulator(SimulatorConfig(size=5))
    async with simulator, RemedyClient(simulator.url) as client:
        collection = getattr(client, resource.attribute)
        for name, spec in resource.filters.items():
            value, sent = sample(spec.kind, spec.choices)
            pager = collection.list(**{name: value})
            pages = [page async for page in pager.pages()]
            assert (spec.wire_name, sent) in URL(pages[0].url).query.items(), name


@pytest.mark.parametrize(
    ("resource", "typo", "suggestion"),
    [
        ("vulnerability_findings", "severty", "'severity'"),
        ("vulnerability_findings", "max_item", "'max_items'"),
        ("endpoints", "last_seen", "'last_seen_at'"),
        ("remediation_targets", "scopeId", "'scope_id'"),
        ("scopes", "enabld", "'enabled'"),
    ],
)
def test_a_misspelt_filter_is_a_type_error_that_sends_nothing(
    resource: str, typo: str, suggestion: str
) -> None:
    """The error names the collection, the closest names and extra_params; no request is made."""
    client = RemedyClient("https://api.example.com")
    with aioresponses() as mocked:
        with pytest.raises(
            TypeError, match=f"unknown filter '{typo}' \\(did you mean {suggestion}"
        ):
            getattr(client, resource).list(**{typo: "x"})
        assert not mocked.requests


def test_an_enum_value_the_contract_lacks_is_a_value_error_pointing_to_extra_params() -> None:
    """A severity the contract does not list fails, and says how to send it anyway."""
    client = RemedyClient("https://api.example.com")
    with pytest.raises(ValueError, match=r"extra_params=\{'severity': 'catastrophic'\}"):
        client.vulnerability_findings.list(severity=["high", "catastrophic"])


def test_a_value_of_the_wrong_type_is_a_type_error() -> None:
    """A number filter refuses a bool, a bool filter refuses a number."""
    client = RemedyClient("https://api.example.com")
    with pytest.raises(TypeError, match="'cvss_score' takes number values"):
        client.vulnerability_findings.list(cvss_score=True)
    with pytest.raises(TypeError, match="'enabled' takes boolean values"):
        client.scopes.list(enabled=1)  # type: ignore[arg-type]


async def test_extra_params_reach_the_wire_unchanged(serve: Serve) -> None:
    """extra_params and RequestOptions.extra_params are sent as given, on lists and gets."""
    seen: list[list[tuple[str, str]]] = []

    async def answer(request: web.Request) -> web.Response:
        seen.append(list(request.query.items()))
        return web.json_response({"id": "sc-1"} if "id" in request.match_info else [])

    url = await serve({"/v1/scopes": answer, "/v1/scopes/{id}": answer})
    options = RequestOptions(extra_params={"X-odd_Name": "a b", "flag": True})
    async with RemedyClient(url) as client:
        pager = client.scopes.list(
            page_size=2, extra_params={"region": ["eu", "us"]}, options=options
        )
        assert await pager.collect() == []
        assert (await client.scopes.get("sc-1", options=options)).id == "sc-1"
    extra = [("X-odd_Name", "a b"), ("flag", "true")]
    listed = [("region", "eu"), ("region", "us"), *extra, ("limit", "2"), ("pageSize", "2")]
    assert seen == [listed, extra]


def test_type_checkers_see_each_collections_filters(tmp_path: Path) -> None:
    """mypy flags a misspelt filter, and one of another collection, with a suggestion."""
    code = textwrap.dedent(
        """
        from remedy_async import RemedyClient, Severity

        def use(client: RemedyClient) -> None:
            client.vulnerability_findings.list(severity=[Severity.HIGH, "low"], cvss_score=9.8)
            client.vulnerability_findings.list(severty="high")
            client.endpoints.list(severity="high")
        """
    )
    source = tmp_path / "use.py"
    source.write_text(code)
    out, _, status = mypy_api.run(
        ["--strict", "--no-incremental", "--cache-dir", str(tmp_path / "cache"), str(source)]
    )
    errors = [line for line in out.splitlines() if ": error:" in line]
    assert status == 1
    assert len(errors) == 2, out
    assert 'Unexpected keyword argument "severty"' in errors[0]
    assert 'did you mean "severity"' in errors[0]
    assert 'Unexpected keyword argument "severity"' in errors[1]
