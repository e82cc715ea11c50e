"""`probe`: reports the contract the simulator was started with, and pins it in a config file
(what it makes of a rejected token or rate-limit headers on a MockTransport)."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from remedy_async import (
    CONVENTIONS,
    ERROR_SHAPES,
    RESOURCES,
    ConfigurationError,
    MockResponse,
    MockTransport,
    ProbeReport,
    RemedyClient,
    probe,
)
from remedy_async._probe import HONOUR_CHECKS
from remedy_async.simulator import Simulator, SimulatorConfig
from remedy_async.simulator._run_config import ERROR_FORMATS, NAMINGS
from tests.mock_service import BASE_URL, Script
from tests.published import TOKEN as PUBLISHED_TOKEN
from tests.published import PublishedService

TOKEN = "probe-token"
UNKNOWN = "00000000-0000-4000-8000-000000000000"
"""An id in the published format (a UUID) that no record has: the service's 404."""
SIZE = 12
MODES = [
    (paging, NAMINGS[index % len(NAMINGS)], ERROR_FORMATS[index % len(ERROR_FORMATS)])
    for index, paging in enumerate(CONVENTIONS)
]
"""Every paging convention once, every naming and every error shape at least once."""


def test_the_modes_cover_every_convention_naming_and_error_shape() -> None:
    """The matrix below leaves no paging, naming or error mode of the simulator untried."""
    assert {mode[0] for mode in MODES} == set(CONVENTIONS)
    assert {mode[1] for mode in MODES} == set(NAMINGS)
    assert {mode[2] for mode in MODES} == set(ERROR_FORMATS) == set(ERROR_SHAPES)


@pytest.mark.parametrize(("paging", "naming", "errors"), MODES, ids=[mode[0] for mode in MODES])
async def test_probe_reports_the_mode_and_its_config_lists_everything_exactly(
    paging: str, naming: str, errors: str, tmp_path: Path
) -> None:
    """Probe finds the paging, naming and error shape; the emitted config reads every record."""
    config = SimulatorConfig(
        seed=5, size=SIZE, paging=paging, naming=naming, error_format=errors, token=TOKEN
    )
    async with Simulator(config) as simulator:
        report = await probe(simulator.url, token=TOKEN, missing_id=UNKNOWN)
        assert report.ok, report
        assert report.auth == "accepted"
        assert report.health == "ok"
        assert report.error_shape == errors
        assert report.agent_configuration is not None
        assert report.agent_configuration.bytes_written == config.agent_configuration_size
        for found in report.resources:
            assert (found.convention, found.naming, found.error_shape) == (paging, naming, errors)
            assert found.fetched_by_id
            assert found.missing_status == 404
        lists = {f"list:{resource.segment}" for resource in RESOURCES}
        assert {route: simulator.counters.requests[route] for route in lists} == dict.fromkeys(
            lists, 1 + len(HONOUR_CHECKS)
        )
        assert {event.method for event in report.exchanges} == {"GET"}

        path = tmp_path / "remedy.toml"
        path.write_text(report.to_config(), encoding="utf-8")
        async with RemedyClient.from_config(path, token=TOKEN) as client:
            for resource in RESOURCES:
                collection = getattr(client, resource.attribute)
                got = [record.id for record in await collection.list().collect()]
                assert got == list(simulator.dataset.ids(resource.segment))
                assert collection.naming == naming


async def test_an_unrecognised_convention_is_reported_and_left_to_detection(
    tmp_path: Path,
) -> None:
    """A service whose paging signals no client knows: a problem per list, no pinned paginator."""
    config = SimulatorConfig(seed=5, size=SIZE, paging="cursor", disguise_paging=True)
    async with Simulator(config) as simulator:
        report = await probe(simulator.url)
    assert not report.ok
    assert report.auth == "no token sent"
    for found in report.resources:
        assert found.convention is None
        assert found.problems
        assert found.problems[0].startswith("PaginationError:")
    assert "paginators" not in report.settings()
    assert "Left to detection" in report.to_config()


async def test_a_wrong_token_is_reported_as_rejected() -> None:
    """A 401 on the lists says the token was rejected, with the service's explanation."""
    service = MockTransport(PublishedService().handler)
    report = await probe(BASE_URL, token="not-" + PUBLISHED_TOKEN, transport=service)
    assert report.auth.startswith("rejected: AuthenticationError: 401 Missing or invalid API key.")
    assert PUBLISHED_TOKEN not in repr(report)
    assert not report.ok


async def test_rate_limit_headers_are_reported() -> None:
    """Headers that describe a rate limit are listed with their values."""
    limits = {"X-RateLimit-Limit": "1000", "X-RateLimit-Remaining": "999", "X-Other": "1"}
    empty = Script(MockResponse.json(200, {"data": [], "total": 0}, headers=limits))
    report = await probe(BASE_URL, transport=MockTransport(empty))
    assert dict(report.rate_limit_headers) == {
        "X-RateLimit-Limit": "1000",
        "X-RateLimit-Remaining": "999",
    }


async def test_probe_takes_no_setting_it_detects() -> None:
    """Pinning what the probe exists to find out is refused before any request."""
    with pytest.raises(ConfigurationError, match="naming"):
        await probe("http://127.0.0.1:9", naming="snake")


async def test_a_report_as_json_holds_everything_it_found() -> None:
    """as_dict gives JSON-ready values: resources, exchanges, download, shape and outcome."""
    async with Simulator(SimulatorConfig(size=SIZE, error_format="problem")) as simulator:
        report = await probe(simulator.url)
    document = orjson.loads(orjson.dumps(report.as_dict()))
    assert document["ok"] is True
    assert document["error_shape"] == "problem"
    assert [found["resource"] for found in document["resources"]] == [
        resource.attribute for resource in RESOURCES
    ]
    assert document["agent_configuration"]["bytes_written"] > 0
    assert len(document["exchanges"]) == len(report.exchanges) >= 14


def test_an_empty_report_is_ok_and_has_no_shape() -> None:
    """A report with nothing in it found no problem and no error shape."""
    report = ProbeReport(base_url="https://api.example.com", auth="accepted", resources=())
    assert report.ok
    assert report.error_shape is None


@pytest.mark.parametrize(("paging", "honoured"), [("offset", ("offset",)), ("page", ("page",))])
async def test_probe_reports_the_paging_parameters_the_service_honours(
    paging: str, honoured: tuple[str, ...]
) -> None:
    """Probe says which of offset, skip, page and after bring the next records when sent alone
    (the service's own default page is small: a `page` list does not read `limit`)."""
    config = SimulatorConfig(seed=5, size=SIZE, paging=paging, token=TOKEN, page_size=5)
    async with Simulator(config) as simulator:
        report = await probe(simulator.url, token=TOKEN)
    assert {found.honoured for found in report.resources} == {honoured}
