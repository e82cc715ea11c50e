"""Records show their data and write themselves back: every model's repr shows its `extra`
(keys as received, bounded, values under credential-named keys hidden), and `to_dict()` and
`to_json()` are `to_wire` and its exact JSON. Over the simulator, and over scripted JSON."""

from __future__ import annotations

import json
from typing import Any

import msgspec
import pytest

from remedy_async import (
    Endpoint,
    HealthStatus,
    RemedyClient,
    VulnerabilityFinding,
    from_wire,
    to_wire,
)
from remedy_async._models import EXTRA_REPR_LIMIT, MODEL_TYPES, VALUE_REPR_LIMIT, shown_extra
from remedy_async._wire._json import dumps
from remedy_async.simulator import Simulator
from tests.wire.test_codec import MINIMAL
from tests.wire.test_exact_numbers import ATTRIBUTES, BIG, RECORDS, ExactService, exact

FINDING_ID = "00000000-0000-4000-8000-000000000005"


def finding(**extra: Any) -> VulnerabilityFinding:
    """A finding read from the wire with `extra` beside its id."""
    return from_wire(VulnerabilityFinding, {"id": FINDING_ID, **extra})


# ---------------------------------------------------------------------------------------------
# to_dict() and to_json()


@pytest.mark.parametrize("segment", list(RECORDS))
async def test_to_dict_is_to_wire_with_every_number_and_null_as_sent(segment: str) -> None:
    """A record got by id: `to_dict()` equals `to_wire(record)`, which is the record as sent
    (explicit nulls kept, absent fields left out, numbers exact)."""
    sent = RECORDS[segment][0]
    async with ExactService().client() as client:
        record = await getattr(client, ATTRIBUTES[segment]).get(sent["id"])
    assert record.to_dict() == to_wire(record)
    assert exact(record.to_dict()) == exact(sent)


@pytest.mark.parametrize("segment", list(RECORDS))
async def test_to_json_is_the_exact_json_text_of_to_dict(segment: str) -> None:
    """`to_json()` is a str of compact JSON that reads back to exactly `to_dict()`, an integer
    past 64 bits written as its digits."""
    sent = RECORDS[segment][0]
    async with ExactService().client() as client:
        record = await getattr(client, ATTRIBUTES[segment]).get(sent["id"])
    text = record.to_json()
    assert isinstance(text, str)
    assert exact(msgspec.json.decode(text)) == exact(record.to_dict())
    assert str(BIG) in text or segment == "remediation-targets"
    assert text == dumps(to_wire(record)).decode()  # compact, as every output writes JSON


@pytest.mark.parametrize("model", MODEL_TYPES, ids=lambda model: model.__name__)
def test_every_model_nested_ones_too_has_to_dict_and_to_json(model: type[Any]) -> None:
    """Each model (records, the values nested in them, the health answer) writes itself as
    `to_wire` does, in any naming."""
    record = from_wire(model, {**MINIMAL[model], "unknown_key": [1, None]})
    assert record.to_dict() == to_wire(record)
    assert record.to_dict("camel") == to_wire(record, "camel")
    assert json.loads(record.to_json("kebab")) == to_wire(record, "kebab")


def test_a_record_built_in_code_writes_its_none_fields_as_null() -> None:
    """A record no structure function built has no note of absent fields: None is null."""
    built = VulnerabilityFinding(id=FINDING_ID, extra={"severity": "high"})
    assert built.to_dict() == {
        "id": FINDING_ID,
        "created_at": None,
        "updated_at": None,
        "severity": "high",
    }
    assert json.loads(built.to_json()) == built.to_dict()


def test_a_naming_that_does_not_exist_is_refused() -> None:
    """`to_dict(naming=...)` takes what `to_wire` takes, and refuses the rest the same way."""
    with pytest.raises(ValueError, match="naming must be one of"):
        finding().to_dict("shouty")  # type: ignore[arg-type]


async def test_every_record_the_simulator_serves_writes_back_as_to_wire() -> None:
    """Over loopback, each of the four lists' records: `to_dict()` is `to_wire(record)` and
    `to_json()` its JSON."""
    async with Simulator() as service, RemedyClient(service.url) as client:
        for attribute in ATTRIBUTES.values():
            records = await getattr(client, attribute).list(max_items=20).collect()
            assert records
            for record in records:
                assert record.to_dict() == to_wire(record)
                assert json.loads(record.to_json()) == json.loads(json.dumps(to_wire(record)))


# ---------------------------------------------------------------------------------------------
# repr


async def test_a_findings_repr_shows_its_extra_in_the_order_received() -> None:
    """A finding from the simulator prints its severity and the rest of `extra`, keys in the
    order the service sent them."""
    async with Simulator() as service, RemedyClient(service.url) as client:
        found = await client.vulnerability_findings.list(max_items=1).first()
    assert found is not None
    shown = repr(found)
    assert f"severity': {found.extra['severity']!r}" in shown
    assert shown.endswith(f"extra={shown_extra(found.extra)})")
    positions = [shown.index(f"{key!r}: ") for key in found.extra]
    assert positions == sorted(positions)


def test_a_repr_shows_each_value_as_its_python_repr() -> None:
    """Values read from JSON show as Python values: strings quoted, null as None, nesting."""
    record = finding(severity="high", cve_id=None, kev=False, cvss=9.8, refs=["a", {"b": 1}])
    assert repr(record) == (
        f"VulnerabilityFinding(id='{FINDING_ID}', created_at=None, updated_at=None, "
        "extra={'severity': 'high', 'cve_id': None, 'kev': False, 'cvss': 9.8, "
        "'refs': ['a', {'b': 1}]})"
    )


def test_an_empty_extra_shows_as_an_empty_dict() -> None:
    """A record with nothing in `extra` says so."""
    assert repr(finding()).endswith("extra={})")


@pytest.mark.parametrize(
    "extra",
    [
        {"api_key": "sk_live_abc123"},
        {"password": "hunter2"},
        {"clientSecret": "s3cr3t"},
        {"connector": {"auth_token": "tk-998877"}},
        {"hooks": [{"name": "n", "Authorization": "Bearer tk-998877"}]},
        {"Credentials": {"user": "u", "pass": "p"}},
    ],
    ids=lambda extra: next(iter(extra)),
)
def test_a_value_under_a_credential_named_key_is_hidden_at_any_depth(
    extra: dict[str, Any],
) -> None:
    """A key named like a credential (password, token, secret, api_key, authorization, ...,
    in any naming, however deep) shows `'***'` for its value; the record keeps it as sent."""
    record = finding(**extra, severity="low")
    shown = repr(record)
    assert "'***'" in shown
    for secret in ("sk_live_abc123", "hunter2", "s3cr3t", "tk-998877", "'u'", "'p'"):
        assert secret not in shown
    assert "'severity': 'low'" in shown
    assert record.extra == {**extra, "severity": "low"}
    assert record.to_dict()["severity"] == "low"


def test_a_long_value_is_cut_at_its_bound() -> None:
    """A value longer than VALUE_REPR_LIMIT shows its first characters and `…`."""
    shown = repr(finding(description="d" * 10_000))
    value = shown.split("'description': ", 1)[1].removesuffix("})")
    assert len(value) == VALUE_REPR_LIMIT
    assert value.endswith("…")
    assert value.startswith("'ddd")


def test_many_keys_are_cut_at_the_bound_and_counted() -> None:
    """An `extra` of a thousand keys shows what fits in EXTRA_REPR_LIMIT characters and how
    many keys it leaves out."""
    record = finding(**{f"field_{index}": index for index in range(1000)})
    extra = shown_extra(record.extra)
    assert len(extra) <= EXTRA_REPR_LIMIT + len("…1000 more keys")
    shown_keys = extra.count(": ")
    assert extra.endswith(f", …{1000 - shown_keys} more keys}}")
    assert shown_keys > 10


def test_one_key_left_out_is_said_in_the_singular() -> None:
    """The count of keys left out reads right for one."""
    keys = {f"k{index}": "v" * (VALUE_REPR_LIMIT - 10) for index in range(6)}
    assert shown_extra(keys).endswith(", …1 more key}")


def test_a_huge_value_is_shown_without_walking_all_of_it() -> None:
    """A list of a million numbers and an integer of thousands of digits print in a few
    hundred characters (an integer too long for Python to print is described)."""
    record = finding(samples=list(range(1_000_000)), huge=10**5000)
    shown = repr(record)
    assert len(shown) < 600
    assert "'huge': <int of about 5001 digits>" in shown
    assert "'samples': [0, 1, 2, 3" in shown


def test_nested_models_show_their_extra_too() -> None:
    """The values nested in a record (its operating system) show their own `extra`."""
    record = from_wire(
        Endpoint,
        {
            **MINIMAL[Endpoint],
            "operating_system": {**MINIMAL[Endpoint]["operating_system"], "build": 22631},
        },
    )
    assert "extra={'build': 22631})" in repr(record.operating_system)
    assert "extra={'build': 22631})" in repr(record)


def test_the_health_answer_shows_its_fields() -> None:
    """`print(await client.health())` shows what the service said beside its status."""
    health = from_wire(HealthStatus, {"status": "ok", "version": "1.2"})
    assert repr(health) == "HealthStatus(status='ok', extra={'version': '1.2'})"
