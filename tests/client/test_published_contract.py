"""The default client against a service modelled on the published reference alone.

`tests/published.py` answers as `../shared/REAL-CONTRACT.md` documents the service, not as our
simulator does: with no configuration, every list is exact, every published field is typed with
its published name and type, the two published filters are sent as published, a misspelt filter
is refused before any request, no page asks for more than 100 records, and the published error
messages reach the typed errors.
"""

from __future__ import annotations

import warnings
from datetime import datetime
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import attrs
import pytest

from remedy_async import (
    RESOURCES,
    AuthenticationError,
    BadRequestError,
    Endpoint,
    EndpointFilter,
    FindingFilter,
    NotFoundError,
    OperatingSystem,
    OsFamily,
    RemedyClient,
    Scope,
    ScopeStatus,
    Severity,
    SubjectFilter,
    SubjectType,
    UnprocessableEntityError,
    VulnerabilityFinding,
)
from tests.loopback import serve_handler
from tests.mock_service import mock_client
from tests.published import (
    COLLECTIONS,
    ENDPOINT_FIELDS,
    SCOPE_FIELDS,
    TOKEN,
    PublishedService,
)

ATTRIBUTES = {segment: segment.replace("-", "_") for segment in COLLECTIONS}


@pytest.fixture
def service() -> PublishedService:
    """The published service, answering a client's MockTransport."""
    return PublishedService()


def queries(published: PublishedService) -> list[dict[str, str]]:
    return [dict(parse_qsl(urlsplit(line).query)) for line in published.requests]


@pytest.mark.parametrize("segment", COLLECTIONS)
async def test_every_list_is_exact_with_no_configuration(
    service: PublishedService, segment: str
) -> None:
    """Each of the four lists delivers every record once, in the service's order, unwarned."""
    published = service
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        async with mock_client(published.handler, token=TOKEN) as client:
            records = await getattr(client, ATTRIBUTES[segment]).list().collect()
    assert [record.id for record in records] == [r["id"] for r in published.records[segment]]


async def test_a_real_socket_serves_the_same_lists(service: PublishedService) -> None:
    """Over a loopback socket, the published service's lists arrive as they do in a mock."""
    async with serve_handler(service.handler) as url, RemedyClient(url, token=TOKEN) as client:
        endpoints = await client.endpoints.list().collect()
        with pytest.raises(NotFoundError, match="Endpoint not found"):
            await client.endpoints.get("00000000-0000-4000-8000-000000000000")
    assert [record.id for record in endpoints] == [r["id"] for r in service.records["endpoints"]]


async def test_pages_ask_for_the_published_maximum_and_never_more(
    service: PublishedService,
) -> None:
    """The default page size is 100, the published maximum; the offsets step by it, less the
    2 records each page repeats from the one before (issue 33)."""
    published = service
    async with mock_client(published.handler, token=TOKEN) as client:
        await client.endpoints.list().collect()
        await client.endpoints.list(page_size=40).collect()
    sent = queries(published)
    assert all(int(query["limit"]) <= 100 for query in sent)
    assert [query.get("offset", "0") for query in sent if query["limit"] == "100"] == [
        "0",
        "98",
        "196",
    ]


async def test_a_page_size_over_the_published_maximum_is_refused_before_any_request(
    service: PublishedService,
) -> None:
    """page_size=101 is a ValueError naming the bound; the service sees nothing."""
    published = service
    async with mock_client(published.handler, token=TOKEN) as client:
        with pytest.raises(ValueError, match="at most 100"):
            client.endpoints.list(page_size=101)
        with pytest.raises(ValueError, match=">= 1"):
            client.scopes.list(page_size=0)
    assert published.requests == []


async def test_every_published_endpoint_field_is_typed_as_published(
    service: PublishedService,
) -> None:
    """Endpoint's attributes are the nine published names, each of its published type, and
    nothing published is left in `extra`."""
    published = service
    async with mock_client(published.handler, token=TOKEN) as client:
        endpoints = await client.endpoints.list().collect()
    assert tuple(field.name for field in attrs.fields(Endpoint))[:-1] == ENDPOINT_FIELDS
    by_id = {record["id"]: record for record in published.records["endpoints"]}
    for endpoint in endpoints:
        wire = by_id[endpoint.id]
        assert endpoint.extra == {}
        assert endpoint.hostname == wire["hostname"]
        assert endpoint.ip == wire["ip"]
        assert endpoint.mac_address == wire["mac_address"]
        assert endpoint.agent_id == wire["agent_id"]
        assert endpoint.agent_version == wire["agent_version"]
        assert isinstance(endpoint.created_at, datetime)
        assert endpoint.created_at.tzinfo is not None
        assert isinstance(endpoint.updated_at, datetime)
        system = endpoint.operating_system
        assert isinstance(system, OperatingSystem)
        assert system.extra == {}
        assert isinstance(system.family, OsFamily)
        assert system.family == wire["operating_system"]["family"]
        assert (system.name, system.version, system.vendor, system.architecture) == tuple(
            wire["operating_system"].get(key)
            for key in ("name", "version", "vendor", "architecture")
        )
    assert {endpoint.operating_system.family for endpoint in endpoints} >= {OsFamily.OTHER}
    assert any(endpoint.ip is None for endpoint in endpoints)


async def test_every_published_scope_field_is_typed_and_the_rest_kept_in_extra(
    service: PublishedService,
) -> None:
    """Scope types its seven published fields and their filter objects; a field after the
    published part of its page stays in `extra`."""
    published = service
    async with mock_client(published.handler, token=TOKEN) as client:
        first = published.records["scopes"][1]
        scope = await client.scopes.get(first["id"])
    assert tuple(field.name for field in attrs.fields(Scope))[:-1] == SCOPE_FIELDS
    assert scope.status is ScopeStatus.PAUSED
    assert scope.description == first["description"]
    assert scope.subject_filter == SubjectFilter(
        subject_types=(SubjectType.SOFTWARE,), vendors=("Google",)
    )
    assert scope.endpoint_filter == EndpointFilter(
        os_families=(OsFamily.MACOS, OsFamily.LINUX), has_agent=True
    )
    assert scope.finding_filter == FindingFilter(
        finding_types=("vulnerability",), min_severity=Severity.HIGH, min_cvss_score=7.5,
        kev_only=False,
    )  # fmt: skip
    assert scope.extra == {"created_at": first["created_at"]}


async def test_unpublished_records_type_only_the_published_pattern(
    service: PublishedService,
) -> None:
    """A finding types id and its two times; its own fields stay in `extra`, as sent."""
    published = service
    async with mock_client(published.handler, token=TOKEN) as client:
        findings = await client.vulnerability_findings.list(max_items=3).collect()
    wire = published.records["vulnerability-findings"][0]
    assert isinstance(findings[0], VulnerabilityFinding)
    assert findings[0].created_at is not None
    assert findings[0].extra == {"severity": wire["severity"], "cve_id": wire["cve_id"]}


@pytest.mark.parametrize(
    ("filters", "sent"),
    [
        ({"os_family": "macos"}, {"osFamily": "macos"}),
        ({"os_family": OsFamily.LINUX}, {"osFamily": "linux"}),
        ({"has_agent": False}, {"hasAgent": "false"}),
        ({"os_family": OsFamily.WINDOWS, "has_agent": True}, {"osFamily": "windows",
                                                              "hasAgent": "true"}),
    ],
)  # fmt: skip
async def test_the_published_filters_are_sent_as_published_and_exact(
    service: PublishedService, filters: dict[str, Any], sent: dict[str, str]
) -> None:
    """os_family and has_agent go out as osFamily and hasAgent, and the list is exactly the
    records the service filters to."""
    published = service
    async with mock_client(published.handler, token=TOKEN) as client:
        endpoints = await client.endpoints.list(**filters).collect()
    assert all(query.items() >= sent.items() for query in queries(published))
    family, has_agent = sent.get("osFamily"), sent.get("hasAgent")
    expected = [
        record["id"]
        for record in published.records["endpoints"]
        if family in (None, record["operating_system"]["family"])
        if has_agent in (None, str(record["agent_id"] is not None).lower())
    ]
    assert [endpoint.id for endpoint in endpoints] == expected
    assert 0 < len(expected) < len(published.records["endpoints"])


@pytest.mark.parametrize(
    ("filters", "error", "message"),
    [
        ({"os_famly": "macos"}, TypeError, "did you mean 'os_family'"),
        ({"osFamily": "macos"}, TypeError, "unknown filter 'osFamily'"),
        ({"os_family": "other"}, ValueError, "published values are macos, windows, linux"),
        ({"os_family": OsFamily.OTHER}, ValueError, "no value 'other'"),
        ({"os_family": ["macos", "linux"]}, TypeError, "one value"),
        ({"has_agent": "yes"}, ValueError, "True or False"),
        ({"has_agent": 1}, TypeError, "boolean"),
    ],
)
async def test_a_filter_not_as_published_is_refused_before_any_request(
    service: PublishedService,
    filters: dict[str, Any],
    error: type[Exception],
    message: str,
) -> None:
    """The service ignores a parameter it does not know and would list everything; the client
    refuses a misspelt filter, a value it does not publish or several values, sending nothing."""
    published = service
    async with mock_client(published.handler, token=TOKEN) as client:
        with pytest.raises(error, match=message):
            client.endpoints.list(**filters)
    assert published.requests == []


async def test_the_other_lists_refuse_any_filter_saying_none_is_published(
    service: PublishedService,
) -> None:
    """Scopes, targets and findings publish no filter: any keyword is a TypeError that says so."""
    published = service
    async with mock_client(published.handler, token=TOKEN) as client:
        with pytest.raises(TypeError, match="publishes no filters"):
            client.vulnerability_findings.list(severity="critical")  # type: ignore[call-arg]
    assert published.requests == []


async def test_the_published_error_messages_reach_the_typed_errors(
    service: PublishedService,
) -> None:
    """401, 400 and 404 carry the service's own messages; a 422 its message too."""
    published = service
    known = published.records["endpoints"][0]["id"]
    async with mock_client(published.handler, token="wrong") as client:
        with pytest.raises(AuthenticationError, match=r"Missing or invalid API key\."):
            await client.endpoints.get(known)
    async with mock_client(published.handler, token=TOKEN) as client:
        with pytest.raises(BadRequestError, match=r"Invalid endpoint ID format\.") as bad:
            await client.endpoints.get("not-a-uuid")
        with pytest.raises(NotFoundError, match=r"Endpoint not found\.") as missing:
            await client.endpoints.get("00000000-0000-4000-8000-000000000000")
        with pytest.raises(UnprocessableEntityError, match="limit must be between 1 and 100"):
            await client.get_json("/v1/endpoints", params={"limit": 500})
        endpoint = await client.endpoints.get(known)
    assert (bad.value.status, missing.value.status) == (400, 404)
    assert "wrong" not in str(bad.value)
    assert isinstance(endpoint, Endpoint)


def test_the_service_is_the_default_base_url(monkeypatch: pytest.MonkeyPatch) -> None:
    """With no URL and no REMEDY_BASE_URL, the client talks to https://api.furl.ai."""
    monkeypatch.delenv("REMEDY_BASE_URL", raising=False)
    client = RemedyClient(token=TOKEN)
    assert str(client.base_url) == "https://api.furl.ai"
    assert str(client.endpoints.url) == "https://api.furl.ai/v1/endpoints"


def test_a_resource_names_its_published_fields_flat() -> None:
    """`Resource.field_paths` lists the published fields, a nested object's as dotted names,
    in the reference's order (the command line's CSV columns)."""
    endpoints, _, scopes, findings = RESOURCES
    system = [f"operating_system.{name}" for name in attrs.fields_dict(OperatingSystem)]
    assert endpoints.field_paths == (*ENDPOINT_FIELDS[:4], *system[:-1], *ENDPOINT_FIELDS[5:])
    assert scopes.field_paths[:4] == SCOPE_FIELDS[:4]
    assert "finding_filter.kev_only" in scopes.field_paths
    assert findings.field_paths == ("id", "created_at", "updated_at")
