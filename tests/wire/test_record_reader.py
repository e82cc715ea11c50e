"""Record naming: snake, Pascal and kebab services are read fully, never as records of Nones."""

from __future__ import annotations

import gc
from typing import Any

import attrs
import pytest
from aiohttp import web

from remedy_async import (
    RESOURCES,
    ConfigurationError,
    ContractDriftWarning,
    DecodeError,
    Endpoint,
    RemedyClient,
    Scope,
    from_wire,
    to_wire,
)
from remedy_async._wire._naming import _READ_IN, detect_naming, spell
from remedy_async._wire._record_reader import RecordReader
from remedy_async.simulator import Simulator, SimulatorConfig
from tests.loopback import Serve

CAMEL = {
    "id": "ep-1",
    "hostname": "web-1",
    "displayName": "Web 1",
    "os": {"family": "linux", "name": "Debian", "version": "12"},
    "ipAddresses": ["10.0.0.1"],
    "lastSeenAt": "2026-11-01T10:00:00Z",
}


def respelled(record: dict[str, Any], naming: str) -> dict[str, Any]:
    """The camelCase record with every key spelled in another naming."""
    snake = {
        "id": "id",
        "hostname": "hostname",
        "displayName": "display_name",
        "os": "os",
        "ipAddresses": "ip_addresses",
        "lastSeenAt": "last_seen_at",
        "family": "family",
        "name": "name",
        "version": "version",
    }

    def walk(value: Any) -> Any:
        if isinstance(value, dict):
            return {spell(snake[k], naming): walk(v) for k, v in value.items()}  # type: ignore[arg-type]
        return value

    return walk(record)  # type: ignore[no-any-return]


EXPECTED = from_wire(Endpoint, CAMEL)
NOW = "2024-06-01T00:00:00Z"
"""The simulators' present, pinned so two of them serve the same records."""


@pytest.mark.parametrize("naming", ["snake", "pascal", "kebab"])
def test_a_respelled_record_is_read_in_its_naming(naming: str) -> None:
    """Every typed field is populated from a record in another naming."""
    record = from_wire(Endpoint, respelled(CAMEL, naming), naming=naming)  # type: ignore[arg-type]
    assert record == EXPECTED
    assert record.extra == {}


@pytest.mark.parametrize("naming", ["snake", "pascal", "kebab"])
def test_to_wire_writes_a_naming_back(naming: str) -> None:
    """to_wire(record, naming) spells the keys as they were read."""
    assert to_wire(EXPECTED, naming) == respelled(CAMEL, naming)  # type: ignore[arg-type]


@pytest.mark.parametrize("naming", ["camel", "snake", "pascal", "kebab"])
def test_to_wire_writes_back_the_naming_a_record_was_read_in(naming: str) -> None:
    """Without a naming, to_wire spells the keys as they came; camelCase for built records."""
    wire = respelled(CAMEL, naming)
    record = from_wire(Endpoint, wire, naming=naming)  # type: ignore[arg-type]
    assert to_wire(record) == wire
    assert to_wire(attrs.evolve(record)) == CAMEL  # a new record was read in no naming


def test_remembered_namings_leave_with_their_records() -> None:
    """The note of a record's naming lives as long as the record, no longer."""
    records = [from_wire(Endpoint, respelled(CAMEL, "snake"), naming="snake") for _ in range(50)]
    noted = len(_READ_IN)
    del records
    gc.collect()
    assert len(_READ_IN) <= noted - 50


@pytest.mark.parametrize(
    ("record", "found"),
    [
        (CAMEL, ("camel", True)),
        (respelled(CAMEL, "snake"), ("snake", True)),
        (respelled(CAMEL, "pascal"), ("pascal", True)),
        (respelled(CAMEL, "kebab"), ("kebab", True)),
        ({"id": "x"}, ("camel", False)),
        ({"id": "x", "hostname": "h"}, ("camel", False)),
        ({"foo": 1}, (None, False)),
    ],
)
def test_detect_naming(record: dict[str, Any], found: tuple[str | None, bool]) -> None:
    """The naming with the most fields present wins; a tie is uncertain."""
    assert detect_naming(record, Endpoint) == found


def test_a_record_with_none_of_the_fields_is_a_decode_error() -> None:
    """A record with keys but none of the model's fields (bar id) is refused, naming its keys."""
    with pytest.raises(ValueError, match=r"none of Endpoint's fields.*fqdn, id, uptime"):
        from_wire(Endpoint, {"id": "ep-1", "fqdn": "x", "uptime": 3})


def test_a_record_with_only_an_id_is_a_record() -> None:
    """A record carrying only its id is read (its fields simply absent)."""
    assert from_wire(Endpoint, {"id": "ep-1"}).hostname is None


def test_the_reader_decides_once_and_warns_once() -> None:
    """Auto naming switches to snake on the first decisive record and announces it once."""
    reader: RecordReader[Endpoint] = RecordReader(Endpoint, "auto", "endpoints")
    snake = respelled(CAMEL, "snake")
    assert reader.hook_for([{"id": "a"}]) is reader.hook  # not decisive: still camel
    assert reader.naming == "camel"
    with pytest.warns(ContractDriftWarning, match="endpoints.*snake"):
        hook = reader.hook_for([snake])
    assert hook(snake, Endpoint) == EXPECTED
    assert reader.hook_for([CAMEL]) is hook  # decided: no more detection, no more warnings
    assert reader.naming == "snake"


def test_a_pinned_naming_neither_detects_nor_warns() -> None:
    """naming="snake" reads snake records without a warning."""
    reader: RecordReader[Endpoint] = RecordReader(Endpoint, "snake", "endpoints")
    assert reader.read(respelled(CAMEL, "snake")) == EXPECTED


def test_an_unknown_naming_is_a_configuration_error() -> None:
    """RemedyClient(naming=...) takes auto, camel, snake, pascal or kebab."""
    with pytest.raises(ConfigurationError, match="naming"):
        RemedyClient("https://api.example.com", naming="screaming")  # type: ignore[arg-type]


@pytest.mark.parametrize("naming", ["snake", "pascal", "kebab"])
async def test_a_service_in_another_naming_lists_and_gets_every_field(
    serve: Serve, naming: str
) -> None:
    """Over loopback, list and get of a respelled service give fully populated records."""
    record = respelled(CAMEL, naming)

    async def listing(_: web.Request) -> web.Response:
        return web.json_response({"items": [record, record | {spell("id", naming): "ep-2"}]})  # type: ignore[arg-type]

    async def one(_: web.Request) -> web.Response:
        return web.json_response(record)

    url = await serve({"/v1/endpoints": listing, "/v1/endpoints/ep-1": one})
    async with RemedyClient(url) as client:
        with pytest.warns(ContractDriftWarning):
            listed = await client.endpoints.list().collect()
        got = await client.endpoints.get("ep-1")
    assert listed[0] == got == EXPECTED
    assert listed[1].hostname == "web-1"


async def test_a_service_of_unknown_records_fails_loudly(serve: Serve) -> None:
    """Records with none of the model's fields raise DecodeError, never records of Nones."""

    async def listing(_: web.Request) -> web.Response:
        return web.json_response({"items": [{"id": "a", "HOST_NAME": "x", "OS_NAME": "y"}]})

    url = await serve({"/v1/endpoints": listing})
    async with RemedyClient(url) as client:
        with pytest.raises(DecodeError, match="HOST_NAME"):
            await client.endpoints.list().collect()


@pytest.mark.parametrize("naming", ["snake", "pascal", "kebab"])
@pytest.mark.parametrize("pinned", [False, True], ids=["detected", "pinned"])
async def test_every_resource_in_every_naming_matches_the_contract(
    naming: str, pinned: bool
) -> None:
    """Over the simulator, every resource lists and gets in each naming with every typed field."""
    camel_sim = Simulator(SimulatorConfig(seed=3, size=12, now=NOW))
    other_sim = Simulator(SimulatorConfig(seed=3, size=12, now=NOW, naming=naming))
    setting: Any = naming if pinned else "auto"
    async with (
        camel_sim,
        other_sim,
        RemedyClient(camel_sim.url) as camel,
        RemedyClient(other_sim.url, naming=setting) as other,
    ):
        for resource in RESOURCES:
            expected = await getattr(camel, resource.attribute).list().collect()
            collection = getattr(other, resource.attribute)
            if pinned:
                got = await collection.list().collect()
            else:
                with pytest.warns(ContractDriftWarning, match=naming):
                    got = await collection.list().collect()
            one = await collection.get(expected[0].id)
            assert [typed(r) for r in got] == [typed(r) for r in expected]
            assert typed(one) == typed(expected[0])
            assert to_wire(got[0]) == to_wire(got[0], naming)  # type: ignore[arg-type]
            assert to_wire(one) == to_wire(one, naming)  # type: ignore[arg-type]
            assert collection.naming == naming


def typed(record: Any) -> Any:
    """A record without the parts whose keys follow the service's own spelling.

    Unknown keys (`extra`) and a scope's free-form `rules` are the service's JSON as sent.
    """
    opaque = {"rules": None} if isinstance(record, Scope) else {}
    return attrs.evolve(record, extra={}, **opaque)
