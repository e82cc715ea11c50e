"""List filters: the published ones (`osFamily`, `hasAgent` of endpoints) are accepted, typed
and sent as published; a misspelt one, a value the reference does not list, several values, or
any filter of a list that publishes none fails before any I/O."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any, get_type_hints

import pytest
from mypy import api as mypy_api
from yarl import URL

from remedy_async import (
    RESOURCES,
    MockRequest,
    MockResponse,
    OsFamily,
    RequestOptions,
    Resource,
)
from remedy_async._models import FILTERS, TYPED_FILTERS, check_filters
from tests.fakes import page, scope_record
from tests.mock_service import Routes, mock_client
from tests.published import TOKEN as PUBLISHED_TOKEN
from tests.published import PublishedService

PUBLISHED: dict[str, dict[str, tuple[str, str, tuple[str, ...] | None]]] = {
    "endpoints": {
        "os_family": ("osFamily", "enum", ("macos", "windows", "linux")),
        "has_agent": ("hasAgent", "boolean", None),
    },
    "remediation_targets": {},
    "scopes": {},
    "vulnerability_findings": {},
}
"""Each list's published filters: keyword, query parameter, kind and values (REAL-CONTRACT:
`GET /v1/endpoints` takes `osFamily` (macos, windows, linux) and `hasAgent` (boolean); the
other three lists publish none)."""


@pytest.mark.parametrize("resource", RESOURCES, ids=lambda resource: resource.attribute)
def test_the_filters_are_the_published_ones(resource: Resource[Any]) -> None:
    """Names, wire names, kinds and enum values are exactly the published filters; the
    TypedDict type checkers see has the same keys."""
    ours = {
        name: (spec.wire_name, spec.kind, spec.choices) for name, spec in resource.filters.items()
    }
    assert ours == PUBLISHED[resource.attribute]
    assert FILTERS[resource.attribute] is resource.filters
    assert set(get_type_hints(TYPED_FILTERS[resource.attribute])) == set(ours)


@pytest.mark.parametrize(
    ("filters", "sent"),
    [
        ({"os_family": OsFamily.MACOS}, [("osFamily", "macos")]),
        ({"os_family": "windows"}, [("osFamily", "windows")]),
        ({"has_agent": True}, [("hasAgent", "true")]),
        ({"has_agent": "false"}, [("hasAgent", "false")]),
        ({"os_family": "linux", "has_agent": False}, [("osFamily", "linux"),
                                                      ("hasAgent", "false")]),
    ],
)  # fmt: skip
async def test_every_published_filter_reaches_the_wire_and_filters(
    filters: dict[str, Any], sent: list[tuple[str, str]]
) -> None:
    """Each filter is accepted by the client and by the published service, sent under its
    published name, and the service answers only the matching endpoints."""
    async with mock_client(PublishedService().handler, token=PUBLISHED_TOKEN) as client:
        pages = [page async for page in client.endpoints.list(**filters).pages()]
        everything = await client.endpoints.list().collect()
    query = list(URL(pages[0].url).query.items())
    assert all(pair in query for pair in sent)
    got = [endpoint.id for page in pages for endpoint in page.items]
    family = dict(sent).get("osFamily")
    agent = dict(sent).get("hasAgent")
    expected = [
        endpoint.id
        for endpoint in everything
        if family in (None, endpoint.operating_system.family)
        if agent in (None, str(endpoint.agent_id is not None).lower())
    ]
    assert got == expected
    assert 0 < len(expected) < len(everything)


@pytest.mark.parametrize(
    ("resource", "typo", "suggestion"),
    [
        ("endpoints", "os_famly", "'os_family'"),
        ("endpoints", "hasagent", "'has_agent'"),
        ("endpoints", "max_item", "'max_items'"),
        ("vulnerability_findings", "page_sise", "'page_size'"),
    ],
)
def test_a_misspelt_filter_is_a_type_error_that_sends_nothing(
    resource: str, typo: str, suggestion: str
) -> None:
    """The error names the collection, the closest names and extra_params; no request is made."""
    service = Routes({})
    client = service.client()
    with pytest.raises(
        TypeError, match=f"unknown filter '{typo}' \\(did you mean {suggestion}.*extra_params"
    ):
        getattr(client, resource).list(**{typo: "x"})
    assert not service.requests


@pytest.mark.parametrize("resource", ["remediation_targets", "scopes", "vulnerability_findings"])
@pytest.mark.parametrize("keyword", ["severity", "os_family", "endpoint_id", "status"])
def test_the_lists_without_published_filters_refuse_any(resource: str, keyword: str) -> None:
    """Targets, scopes and findings publish no filter: any keyword, even one another list
    takes, is a TypeError saying none is published and pointing to extra_params."""
    service = Routes({})
    client = service.client()
    with pytest.raises(TypeError, match=r"publishes no filters.*extra_params") as caught:
        getattr(client, resource).list(**{keyword: "x"})
    assert not service.requests
    assert f"{resource}.list() got an unknown filter '{keyword}'" in str(caught.value)


@pytest.mark.parametrize(
    ("filters", "error", "message"),
    [
        ({"os_family": "other"}, ValueError,
         "no value 'other'; the published values are macos, windows, linux"),
        ({"os_family": OsFamily.OTHER}, ValueError, "no value 'other'"),
        ({"os_family": "MacOS"}, ValueError, "no value 'MacOS'"),
        ({"os_family": ["macos", "linux"]}, TypeError,
         "'os_family' takes one value \\(the service reads one\\), got list"),
        ({"os_family": ("macos",)}, TypeError, "takes one value"),
        ({"has_agent": ["true"]}, TypeError, "takes one value"),
        ({"os_family": 3}, TypeError, "'os_family' takes a enum value, got int 3"),
        ({"has_agent": 1}, TypeError, "'has_agent' takes a boolean value, got int 1"),
        ({"has_agent": "yes"}, ValueError, "takes True or False \\(or 'true', 'false'\\)"),
        ({"has_agent": "True"}, ValueError, "got 'True'"),
    ],
)  # fmt: skip
def test_a_value_the_filter_does_not_take_is_refused_before_any_request(
    filters: dict[str, Any], error: type[Exception], message: str
) -> None:
    """os_family takes one of the published values (an OsFamily or its text, never `other`,
    which the filter does not publish), has_agent a bool or 'true'/'false': one value each."""
    service = Routes({})
    client = service.client()
    with pytest.raises(error, match=message):
        client.endpoints.list(**filters)
    assert not service.requests


@pytest.mark.parametrize(
    "filters",
    [
        {"os_family": OsFamily.LINUX},
        {"os_family": "macos"},
        {"has_agent": True},
        {"has_agent": "false"},
        {"os_family": None, "has_agent": None},
    ],
)
def test_check_filters_takes_the_published_values(filters: dict[str, Any]) -> None:
    """An OsFamily member or its text, a bool or its text, and None (left out) all pass."""
    check_filters("endpoints", filters)


async def test_extra_params_reach_the_wire_unchanged() -> None:
    """extra_params and RequestOptions.extra_params are sent as given, on lists and gets."""
    seen: list[list[tuple[str, str]]] = []

    def listing(request: MockRequest) -> MockResponse:
        seen.append(list(request.query.items()))
        return MockResponse.json(200, page([], limit=2))

    def record(request: MockRequest, id: str) -> MockResponse:
        seen.append(list(request.query.items()))
        return MockResponse.json(200, scope_record(id))

    service = Routes({"/v1/scopes": listing, "/v1/scopes/{id}": record})
    options = RequestOptions(extra_params={"X-odd_Name": "a b", "flag": True})
    async with service.client() as client:
        pager = client.scopes.list(
            page_size=2, extra_params={"region": ["eu", "us"]}, options=options
        )
        assert await pager.collect() == []
        assert (await client.scopes.get("sc-1", options=options)).id == "sc-1"
    extra = [("X-odd_Name", "a b"), ("flag", "true")]
    listed = [("region", "eu"), ("region", "us"), *extra]
    assert seen[0][: len(listed)] == listed
    assert ("limit", "2") in seen[0][len(listed) :]
    assert seen[1] == extra


def test_type_checkers_see_each_collections_filters(tmp_path: Path) -> None:
    """mypy flags a misspelt filter (with a suggestion), a filter of another collection, and
    `os_family="other"`, which the filter does not take."""
    code = textwrap.dedent(
        """
        from remedy_async import OsFamily, RemedyClient

        def use(client: RemedyClient) -> None:
            client.endpoints.list(os_family=OsFamily.MACOS, has_agent=True)
            client.endpoints.list(os_family="linux")
            client.endpoints.list(os_famly="linux")
            client.vulnerability_findings.list(os_family="linux")
            client.endpoints.list(os_family="other")
        """
    )
    source = tmp_path / "use.py"
    source.write_text(code)
    out, _, status = mypy_api.run(
        ["--strict", "--no-incremental", "--cache-dir", str(tmp_path / "cache"), str(source)]
    )
    errors = [line for line in out.splitlines() if ": error:" in line]
    assert status == 1
    assert len(errors) == 3, out
    assert 'Unexpected keyword argument "os_famly"' in errors[0]
    assert 'did you mean "os_family"' in errors[0]
    assert 'Unexpected keyword argument "os_family"' in errors[1]
    assert 'No overload variant of "list"' in errors[2]  # os_family="other"
