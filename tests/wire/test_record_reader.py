"""Record naming: the published snake_case is the contract; camel, Pascal and kebab services
are read fully after one ContractDriftWarning, never as records of Nones."""

from __future__ import annotations

import pickle
import warnings
import weakref
from typing import Any

import attrs
import pytest

from remedy_async import (
    RESOURCES,
    ConfigurationError,
    ContractDriftWarning,
    DecodeError,
    Endpoint,
    MockResponse,
    RemediationTarget,
    RemedyClient,
    VulnerabilityFinding,
    from_wire,
    to_wire,
)
from remedy_async._wire._codec import cattrs_structure_hook
from remedy_async._wire._naming import detect_naming, naming_of, spell
from remedy_async._wire._record_reader import RecordReader
from remedy_async.simulator import Simulator, SimulatorConfig
from tests.fakes import ENDPOINT_ID, endpoint_record, page
from tests.mock_service import Routes

SNAKE = endpoint_record(
    hostname="web-1",
    ip="10.0.0.1",
    mac_address="3c:22:fb:00:01:00",
    operating_system={"name": "Debian", "family": "linux", "version": "12"},
    agent_id="0d9c8b7a-6f5e-4d3c-8b2a-1f0e9d8c7b6a",
    agent_version="4.2.1",
)
"""An endpoint as the service publishes it: snake_case keys, a nested object among them."""


def respelled(record: dict[str, Any], naming: str) -> dict[str, Any]:
    """The snake_case record with every key, nested ones too, spelled in another naming."""

    def walk(value: Any) -> Any:
        if isinstance(value, dict):
            return {spell(k, naming): walk(v) for k, v in value.items()}  # type: ignore[arg-type]
        return value

    return walk(record)  # type: ignore[no-any-return]


EXPECTED = from_wire(Endpoint, SNAKE)
DRIFTS = ["camel", "pascal", "kebab"]
"""The namings a service may drift to from the published snake_case."""
NOW = "2024-06-01T00:00:00Z"
"""The simulators' present, pinned so two of them serve the same records."""


def test_the_published_record_is_read_in_the_contracts_naming() -> None:
    """A snake_case record is the contract: every field typed, nothing left in `extra`."""
    assert EXPECTED.mac_address == "3c:22:fb:00:01:00"
    assert EXPECTED.operating_system.version == "12"
    assert EXPECTED.agent_version == "4.2.1"
    assert EXPECTED.extra == EXPECTED.operating_system.extra == {}


@pytest.mark.parametrize("naming", DRIFTS)
def test_a_respelled_record_is_read_in_its_naming(naming: str) -> None:
    """Every typed field, nested ones too, is populated from a record in another naming."""
    record = from_wire(Endpoint, respelled(SNAKE, naming), naming=naming)  # type: ignore[arg-type]
    assert record == EXPECTED
    assert record.extra == record.operating_system.extra == {}


@pytest.mark.parametrize("naming", DRIFTS)
def test_to_wire_writes_a_naming_back(naming: str) -> None:
    """to_wire(record, naming) spells the keys as they were read."""
    assert to_wire(EXPECTED, naming) == respelled(SNAKE, naming)  # type: ignore[arg-type]


@pytest.mark.parametrize("naming", ["snake", *DRIFTS])
def test_to_wire_writes_back_the_naming_a_record_was_read_in(naming: str) -> None:
    """Without a naming, to_wire spells the keys as they came; snake_case for built records."""
    wire = respelled(SNAKE, naming)
    record = from_wire(Endpoint, wire, naming=naming)  # type: ignore[arg-type]
    assert to_wire(record) == wire
    assert to_wire(attrs.evolve(record)) == SNAKE  # a new record was read in no naming


def test_a_class_of_the_callers_own_is_read_in_a_naming_without_the_note() -> None:
    """An attrs class that is not one of the models (no slot for the note) is still read by
    from_wire in another naming: it is only not noted."""

    @attrs.frozen(kw_only=True)
    class Device:
        id: str
        display_name: str
        extra: dict[str, Any] = attrs.field(factory=dict)

    device = from_wire(Device, {"id": "d-1", "displayName": "x", "z": 1}, naming="camel")
    assert device == Device(id="d-1", display_name="x", extra={"z": 1})
    assert naming_of(device) == "snake"


def test_a_record_keeps_its_naming_itself() -> None:
    """The naming a record was read in is a note on the record: nothing outside it holds the
    record, which is freed as soon as it is dropped, and a copy of it is read in no naming."""
    record = from_wire(Endpoint, respelled(SNAKE, "camel"), naming="camel")
    assert naming_of(record) == "camel"
    assert naming_of(pickle.loads(pickle.dumps(record))) == "snake"
    assert record == attrs.evolve(record)
    assert hash(record) == hash(attrs.evolve(record))
    assert "_read_in" not in repr(record)
    alive = weakref.ref(record)
    del record
    assert alive() is None


@pytest.mark.parametrize(
    ("record", "found"),
    [
        (SNAKE, ("snake", True)),
        (respelled(SNAKE, "camel"), ("camel", True)),
        (respelled(SNAKE, "pascal"), ("pascal", True)),
        (respelled(SNAKE, "kebab"), ("kebab", True)),
        ({"id": "x"}, ("snake", False)),
        ({"id": "x", "hostname": "h", "ip": None}, ("snake", False)),
        ({"foo": 1}, (None, False)),
    ],
)
def test_detect_naming(record: dict[str, Any], found: tuple[str | None, bool]) -> None:
    """The naming with the most fields present wins, the contract's snake_case on a tie; a tie
    is uncertain."""
    assert detect_naming(record, Endpoint) == found


def test_a_record_with_none_of_the_fields_is_a_decode_error() -> None:
    """A record with keys but none of the model's fields (bar id) is refused, naming its keys."""
    with pytest.raises(ValueError, match=r"none of Endpoint's fields.*fqdn, id, uptime"):
        from_wire(Endpoint, {"id": "ep-1", "fqdn": "x", "uptime": 3})


@pytest.mark.parametrize("model", [RemediationTarget, VulnerabilityFinding])
def test_an_unpublished_record_with_none_of_the_typed_fields_keeps_all_in_extra(
    model: type[Any],
) -> None:
    """Targets and findings type only what the published pattern gives (id and two times,
    both assumed): a record of the service's without those times is read, on the fast path and
    the cattrs path alike, its fields all in `extra`."""
    wire = {"id": "f-1", "severity": "high", "cve_id": "CVE-2024-1"}
    fast = from_wire(model, wire)
    slow = cattrs_structure_hook(model)(wire, model)
    assert fast == slow
    assert (fast.created_at, fast.updated_at) == (None, None)
    assert fast.extra == slow.extra == {"severity": "high", "cve_id": "CVE-2024-1"}


def test_a_record_with_only_an_id_is_a_record_where_only_the_id_is_required() -> None:
    """A target carrying only its id is read (its unpublished fields simply absent); an
    endpoint carrying only its id lacks published required fields, and says which."""
    assert from_wire(RemediationTarget, {"id": "rt-1"}).created_at is None
    with pytest.raises(ValueError, match=r"required field is missing at \$\.hostname"):
        from_wire(Endpoint, {"id": "ep-1"})


def test_published_records_read_with_auto_naming_never_warn() -> None:
    """With naming="auto", snake_case records are the contract: read as such, unannounced."""
    reader: RecordReader[Endpoint] = RecordReader(Endpoint, "auto", "endpoints")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert reader.hook_for([SNAKE])(SNAKE, Endpoint) == EXPECTED
    assert reader.naming == "snake"


@pytest.mark.parametrize("naming", DRIFTS)
def test_the_reader_decides_once_and_warns_once(naming: str) -> None:
    """Auto naming switches from snake_case to the drifted naming on the first decisive record
    and announces it with one ContractDriftWarning."""
    reader: RecordReader[Endpoint] = RecordReader(Endpoint, "auto", "endpoints")
    drifted = respelled(SNAKE, naming)
    assert reader.hook_for([{"id": "a"}]) is reader.hook  # not decisive: still snake
    assert reader.naming == "snake"
    with pytest.warns(ContractDriftWarning, match=f"endpoints.*{naming}.*not snake_case") as seen:
        hook = reader.hook_for([drifted, drifted])
    assert len(seen) == 1
    assert hook(drifted, Endpoint) == EXPECTED
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert reader.hook_for([SNAKE]) is hook  # decided: no more detection, no warnings
    assert reader.naming == naming


def test_a_pinned_naming_neither_detects_nor_warns() -> None:
    """naming="camel" reads camelCase records without a warning."""
    reader: RecordReader[Endpoint] = RecordReader(Endpoint, "camel", "endpoints")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert reader.read(respelled(SNAKE, "camel")) == EXPECTED


def test_an_unknown_naming_is_a_configuration_error() -> None:
    """RemedyClient(naming=...) takes auto, snake, camel, pascal or kebab."""
    with pytest.raises(ConfigurationError, match="naming"):
        RemedyClient("https://api.furl.ai", naming="screaming")  # type: ignore[arg-type]


@pytest.mark.parametrize("naming", DRIFTS)
async def test_a_service_in_another_naming_lists_and_gets_every_field(
    naming: str,
) -> None:
    """List and get of a respelled service give fully populated records."""
    record = respelled(SNAKE, naming)
    other = record | {spell("id", naming): "ep-2"}  # type: ignore[arg-type]
    service = Routes(
        {
            "/v1/endpoints": lambda _: MockResponse.json(200, page([record, other])),
            f"/v1/endpoints/{ENDPOINT_ID}": lambda _: MockResponse.json(200, record),
        }
    )
    async with service.client() as client:
        with pytest.warns(ContractDriftWarning):
            listed = await client.endpoints.list().collect()
        got = await client.endpoints.get(ENDPOINT_ID)
    assert listed[0] == got == EXPECTED
    assert listed[1].hostname == "web-1"
    assert listed[1].operating_system.version == "12"


async def test_a_service_of_unknown_records_fails_loudly() -> None:
    """Records with none of the model's fields raise DecodeError, never records of Nones."""
    unknown = page([{"id": "a", "HOST_NAME": "x", "OS_NAME": "y"}])
    service = Routes({"/v1/endpoints": lambda _: MockResponse.json(200, unknown)})
    async with service.client() as client:
        with pytest.raises(DecodeError, match="HOST_NAME"):
            await client.endpoints.list().collect()


@pytest.mark.parametrize("naming", DRIFTS)
@pytest.mark.parametrize("pinned", [False, True], ids=["detected", "pinned"])
async def test_every_resource_in_every_naming_matches_the_contract(
    naming: str, pinned: bool
) -> None:
    """Over the simulator, every resource lists and gets in each drifted naming with every
    typed field of the same records served in the published snake_case."""
    snake_sim = Simulator(SimulatorConfig(seed=3, size=12, now=NOW, naming="snake"))
    other_sim = Simulator(SimulatorConfig(seed=3, size=12, now=NOW, naming=naming))
    setting: Any = naming if pinned else "auto"
    async with (
        snake_sim,
        other_sim,
        RemedyClient(snake_sim.url) as snake,
        RemedyClient(other_sim.url, naming=setting) as other,
    ):
        for resource in RESOURCES:
            with warnings.catch_warnings():
                warnings.simplefilter("error")
                expected = await getattr(snake, resource.attribute).list().collect()
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
    """A record without the part whose keys follow the service's own spelling: its unknown
    keys (`extra`), the service's JSON as sent."""
    return attrs.evolve(record, extra={})
