"""Records read straight into typed views in C are the records the general way reads, or are
refused and read that way; a fault is the same fault at the same JSON path either way."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from yarl import URL

from remedy_async import (
    DecodeError,
    Endpoint,
    OsFamily,
    RemediationTarget,
    Scope,
    VulnerabilityFinding,
    to_wire,
)
from remedy_async._wire._codec import cattrs_structure_hook
from remedy_async._wire._fastpath import structure_hook
from remedy_async._wire._http import Request, Response
from remedy_async._wire._json import dumps
from remedy_async._wire._naming import naming_of, spell, wire_names
from remedy_async._wire._record_reader import RecordReader
from remedy_async._wire._types import TypedItem, item_id
from remedy_async._wire._views import (
    _MAX_SHAPES,
    _MAX_UNKNOWN,
    _MISSES_BEFORE_RESTING,
    _RESTING_EVERY,
    TypedDecoder,
    page_shape,
    typed_decoder,
    view_type,
)
from tests.budget import examples
from tests.fakes import endpoint_record, scope_record
from tests.wire.test_fastpath import outcome, records

MODELS = [Endpoint, Scope, RemediationTarget, VulnerabilityFinding]


def decoder(model: type[Any], naming: Any = "snake") -> TypedDecoder:
    typed = typed_decoder(model, naming)
    assert typed is not None
    return typed


def full_endpoint() -> dict[str, Any]:
    """A published endpoint with every field of its operating system sent."""
    record = endpoint_record()
    record["operating_system"].update(vendor="Canonical", architecture=None)
    return record


def full_scope() -> dict[str, Any]:
    """A published scope with every field of its filters sent."""
    record = scope_record()
    record["subject_filter"] = dict.fromkeys(
        ["subject_types", "vendors", "products", "cpe_patterns"], None
    )
    record["endpoint_filter"] = {
        "os_families": ["macos", "plan9"], "endpoint_ids": None, "has_agent": True, "tags": ["a"],
    }  # fmt: skip
    record["finding_filter"] = {
        "finding_types": ["vulnerability"], "min_severity": "high", "min_cvss_score": 7.5,
        "kev_only": None,
    }  # fmt: skip
    return record


def response(body: bytes) -> Response:
    request = Request("GET", URL("http://service.test/v1/endpoints/x"))
    return Response(request=request, status=200, headers={}, body=body)


@pytest.mark.parametrize("model", MODELS)
@settings(max_examples=examples(300), deadline=None)
@given(data=st.data())
def test_a_record_read_in_c_is_the_record_read_the_general_way(
    model: type[Any], data: st.DataObject
) -> None:
    """Whatever the record, the typed decoder refuses it or gives what the general way gives:
    the same record (the same fields noted absent) or the same fault at the same path."""
    record = data.draw(records(model))
    typed = decoder(model)
    try:
        view = msgspec.json.decode(dumps(record), type=typed.view)
    except msgspec.ValidationError:
        assert typed.record(dumps(record)) is None
        return
    assert isinstance(view, TypedItem)
    expected = outcome(structure_hook(model), model, record)
    assert outcome(typed.structure, model, view) == expected
    if expected[0] == "ok":
        assert to_wire(typed.record(dumps(record))) == to_wire(expected[1])


@pytest.mark.parametrize("model", MODELS)
@settings(max_examples=examples(100), deadline=None)
@given(data=st.data())
def test_a_page_read_in_c_holds_the_records_the_general_way_reads(
    model: type[Any], data: st.DataObject
) -> None:
    """A page in a learned shape comes back with the same other keys and, item for item, views
    whose records are the general way's; a page that does not fit is refused whole."""
    first = data.draw(st.lists(records(model), min_size=1, max_size=3))
    page = data.draw(st.lists(records(model), max_size=4))
    typed = decoder(model)
    typed.learn(page_shape({"data": first, "total": 9, "offset": 0}))
    body = dumps({"data": page, "total": 9, "offset": 3})
    read = typed.page(body)
    if read is None:
        return
    assert read["total"] == 9
    assert read["offset"] == 3
    assert len(read["data"]) == len(page)
    hook = structure_hook(model)
    for view, record in zip(read["data"], page, strict=True):
        assert item_id(view) == record["id"]
        assert outcome(typed.structure, model, view) == outcome(hook, model, record)


def test_every_published_model_has_a_view_and_only_its_fields() -> None:
    for model in MODELS:
        view = view_type(model)
        assert view is not None
        fields = wire_names(model, "snake")
        assert set(view.__struct_encode_fields__) == {fields[n] for n in fields if n != "extra"}


def test_a_published_scope_is_read_in_c_with_enum_arrays_as_members_and_text() -> None:
    record = full_scope()
    scope = decoder(Scope).record(dumps(record))
    assert scope == structure_hook(Scope)(record, Scope)
    assert scope.endpoint_filter.os_families == (OsFamily.MACOS, "plan9")
    assert to_wire(scope) == record


def test_a_published_endpoint_is_read_in_c() -> None:
    record = full_endpoint()
    typed = decoder(Endpoint)
    endpoint = typed.record(dumps(record))
    assert isinstance(endpoint, Endpoint)
    assert type(endpoint) is Endpoint
    assert endpoint == structure_hook(Endpoint)(record, Endpoint)
    assert endpoint.extra == {}
    assert to_wire(endpoint) == record


def test_an_unpublished_key_is_refused_in_c_and_kept_in_extra_by_the_reader() -> None:
    record = {**full_endpoint(), "risk_score": 100000000000000000001}
    assert decoder(Endpoint).record(dumps(record)) is None
    endpoint = RecordReader(Endpoint, "snake", "endpoints").record(response(dumps(record)))
    assert endpoint.extra == {"risk_score": 100000000000000000001}


def test_a_field_left_out_is_refused_in_c_and_left_out_again_by_to_wire() -> None:
    record = full_endpoint()
    assert decoder(Endpoint).record(dumps(record)) is not None
    del record["operating_system"]["vendor"]
    assert decoder(Endpoint).record(dumps(record)) is None
    endpoint = RecordReader(Endpoint, "snake", "endpoints").record(response(dumps(record)))
    assert "vendor" not in to_wire(endpoint)["operating_system"]


def test_explicit_nulls_read_in_c_are_written_back_as_null() -> None:
    record = full_endpoint()
    record["ip"] = None
    record["operating_system"]["vendor"] = None
    endpoint = decoder(Endpoint).record(dumps(record))
    assert endpoint is not None
    assert to_wire(endpoint)["ip"] is None
    assert to_wire(endpoint)["operating_system"]["vendor"] is None


def test_an_unknown_enum_value_is_read_in_c_and_kept_as_text() -> None:
    record = full_endpoint()
    record["operating_system"]["family"] = "plan9"
    endpoint = decoder(Endpoint).record(dumps(record))
    assert endpoint is not None
    assert endpoint.operating_system.family == "plan9"
    record["operating_system"]["family"] = "linux"
    assert decoder(Endpoint).record(dumps(record)).operating_system.family is OsFamily.LINUX


def test_a_timestamp_that_does_not_read_is_the_same_decode_error_either_way() -> None:
    record = full_endpoint()
    record["created_at"] = "2026-13-45T00:00:00Z"
    reader = RecordReader(Endpoint, "snake", "endpoints")
    with pytest.raises(DecodeError) as typed_way:
        reader.record(response(dumps(record)))
    record["risk_score"] = 1  # an unknown key: read the general way from the start
    with pytest.raises(DecodeError) as general_way:
        reader.record(response(dumps(record)))
    assert typed_way.value.path == general_way.value.path == "$.created_at"


def test_an_integer_a_float_field_cannot_hold_is_refused_with_its_path() -> None:
    record = full_scope()
    record["finding_filter"]["min_cvss_score"] = 2**64 + 1
    with pytest.raises(DecodeError) as refused:
        RecordReader(Scope, "snake", "scopes").record(response(dumps(record)))
    assert refused.value.path == "$.finding_filter.min_cvss_score"
    record["finding_filter"]["min_cvss_score"] = 7
    scope = decoder(Scope).record(dumps(record))
    assert scope is not None
    assert scope.finding_filter.min_cvss_score == 7.0


def test_a_record_read_in_c_in_another_naming_is_written_back_in_it() -> None:
    record = {spell(key, "camel"): value for key, value in full_endpoint().items()}
    endpoint = decoder(Endpoint, "camel").record(dumps(record))
    assert endpoint is not None
    assert naming_of(endpoint) == "camel"
    assert to_wire(endpoint) == record


class CountingDecoder:
    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.tried = 0

    def decode(self, body: bytes) -> Any:
        self.tried += 1
        return self.inner.decode(body)


def test_a_decoder_refused_again_and_again_tries_one_body_in_many() -> None:
    typed = decoder(VulnerabilityFinding)
    counting = typed._record = CountingDecoder(typed._record)  # type: ignore[assignment]
    unpublished = dumps({"id": "f", "severity": "high"})
    for _ in range(_MISSES_BEFORE_RESTING):
        assert typed.record(unpublished) is None
    assert counting.tried == _MISSES_BEFORE_RESTING
    for _ in range(10 * _RESTING_EVERY):
        assert typed.record(unpublished) is None
    assert counting.tried == _MISSES_BEFORE_RESTING + 10
    published = dumps({"id": "f", "created_at": "2026-03-01T12:00:00Z",
                       "updated_at": "2026-03-01T12:00:00Z"})  # fmt: skip
    for _ in range(_RESTING_EVERY):
        if typed.record(published) is not None:
            break
    assert typed._misses == 0
    assert typed.record(published) is not None  # every body is tried again


def test_a_page_with_a_key_the_learned_shape_lacks_is_refused_then_learned() -> None:
    typed = decoder(Endpoint)
    items = [full_endpoint()]
    typed.learn(page_shape({"data": items, "total": 1}))
    assert typed.page(dumps({"data": items, "total": 1, "next": None})) is None
    typed.learn(page_shape({"data": items, "total": 1, "next": None}))
    read = typed.page(dumps({"data": items, "total": 1, "next": None}))
    assert read is not None
    assert read["next"] is None
    assert isinstance(read["data"][0], TypedItem)
    alone = typed.page(dumps({"data": items}))  # the other keys may be left out
    assert alone is not None
    assert list(alone) == ["data"]


def test_records_with_keys_the_model_lacks_are_read_in_c_once_a_page_showed_them() -> None:
    """A service that adds fields to its records: the page read the general way teaches the
    decoder those keys, and the pages after it are read into views that take them too, each
    record the one the general way reads (every added value in `extra`, exact; a record
    without one of them without it)."""
    records = [
        {**full_endpoint(), "risk_score": 100000000000000000001, "labels": ["a", {"b": None}]},
        {**full_endpoint(), "labels": []},
        {**full_endpoint(), "risk_score": 0.1, "labels": None},
    ]
    page = {"data": records, "total": 3}
    typed = decoder(Endpoint)
    typed.learn(page_shape(page))
    assert typed.page(dumps(page)) is None  # the keys the records add are not known yet
    typed.learn(page_shape(page), page)
    read = typed.page(dumps(page))
    assert read is not None
    items = read["data"]
    assert all(isinstance(item, TypedItem) for item in items)
    built = [typed.structure_of(type(item))(item, Endpoint) for item in items]
    assert built == [structure_hook(Endpoint)(record, Endpoint) for record in records]
    assert [record.extra for record in built] == [
        {"risk_score": 100000000000000000001, "labels": ["a", {"b": None}]},
        {"labels": []},
        {"risk_score": 0.1, "labels": None},
    ]
    assert [to_wire(record) for record in built] == records
    another = {"data": [{**full_endpoint(), "owner": "x"}], "total": 1}
    assert typed.page(dumps(another)) is None  # a key not learned: the general way again


def test_records_adding_more_keys_than_a_view_takes_are_read_the_general_way() -> None:
    many = {f"k{index}": index for index in range(_MAX_UNKNOWN + 1)}
    page = {"data": [{**full_endpoint(), **many}], "total": 1}
    typed = decoder(Endpoint)
    typed.learn(page_shape(page), page)
    assert typed.page(dumps(page)) is None


def test_records_whose_added_keys_keep_changing_keep_a_decoder_bounded() -> None:
    """A service adding a different key to every page: each page read the general way teaches
    its key, and the decoder keeps no more than a bounded number of views' functions."""
    typed = decoder(Endpoint)
    for index in range(3 * _MAX_SHAPES):
        page = {"data": [{**full_endpoint(), f"key{index}": index}], "total": 1}
        assert typed.page(dumps(page)) is None
        typed.learn(page_shape(page), page)
        read = typed.page(dumps(page))
        assert read is not None
        record = typed.structure_of(type(read["data"][0]))(read["data"][0], Endpoint)
        assert record.extra == {f"key{index}": index}
    assert len(typed._structures) <= _MAX_SHAPES


def test_the_reader_reads_records_with_an_added_field_in_c_from_its_second_page() -> None:
    reader = RecordReader(Endpoint, "snake", "endpoints")
    record = {**full_endpoint(), "risk_score": 7}
    body = dumps({"data": [record], "total": 1, "limit": 1, "offset": 0})
    first = reader.page(response(body))
    assert first.body["data"][0].__class__ is dict
    item = reader.page(response(body)).body["data"][0]
    assert isinstance(item, TypedItem)
    endpoint = reader.hook_for([item])(item, Endpoint)
    assert endpoint == reader.hook_for([record])(record, Endpoint)
    assert endpoint.extra == {"risk_score": 7}


def test_a_body_with_records_in_two_lists_arms_no_page_shape() -> None:
    typed = decoder(Endpoint)
    typed.learn(page_shape({"data": [full_endpoint()], "included": [{"id": "x"}]}))
    assert typed.page(dumps({"data": [full_endpoint()], "included": [{"id": "x"}]})) is None


def test_the_reader_reads_pages_in_c_once_it_has_seen_one() -> None:
    reader = RecordReader(Endpoint, "auto", "endpoints")
    body = dumps({"data": [full_endpoint()], "total": 1, "limit": 1, "offset": 0})
    first = reader.page(response(body))
    assert first.body["data"][0].__class__ is dict
    reader.hook_for(first.body["data"])  # the naming is decided on the first page's records
    second = reader.page(response(body))
    item = second.body["data"][0]
    assert isinstance(item, TypedItem)
    expected = structure_hook(Endpoint)(full_endpoint(), Endpoint)
    assert reader.hook_for([item])(item, Endpoint) == expected


def test_a_body_that_is_not_json_is_the_same_decode_error_through_the_reader() -> None:
    reader = RecordReader(Endpoint, "snake", "endpoints")
    with pytest.raises(DecodeError, match="expected JSON"):
        reader.record(response(b"<html>"))
    with pytest.raises(DecodeError, match="expected JSON"):
        reader.page(response(b"<html>"))


async def test_a_typed_list_over_the_wire_is_the_general_ways_records_page_after_page(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Over loopback, the simulator's endpoints, read typed (every page after the first in C)
    and as JSON then structured the general way, are the same records in the same order, and
    the later pages did come as typed views."""
    from remedy_async import RemedyClient  # noqa: PLC0415
    from remedy_async.simulator import Simulator  # noqa: PLC0415

    typed_pages = 0
    page = TypedDecoder.page

    def counting(self: TypedDecoder, body: bytes) -> dict[str, Any] | None:
        nonlocal typed_pages
        read = page(self, body)
        typed_pages += read is not None
        return read

    monkeypatch.setattr(TypedDecoder, "page", counting)
    async with Simulator() as service, RemedyClient(service.url) as client:
        typed = await client.endpoints.list(page_size=20).collect()
        wire = await client.endpoints.list(page_size=20).as_dicts().collect()
    assert typed_pages >= 4
    hook = structure_hook(Endpoint)
    assert typed == [hook(record, Endpoint) for record in wire]
    assert [to_wire(record) for record in typed] == wire


def test_a_key_sent_twice_reads_as_the_general_way_reads_it_the_last_one() -> None:
    body = dumps(full_endpoint()).replace(b'"hostname":"web-1"', b'"hostname":"a","hostname":"b"')
    endpoint = decoder(Endpoint).record(body)
    assert endpoint is not None
    assert endpoint.hostname == "b"
    assert structure_hook(Endpoint)(msgspec.json.decode(body), Endpoint) == endpoint


def test_a_page_whose_other_keys_are_no_python_names_is_read_in_c() -> None:
    """Any envelope key reads, whatever its spelling: one that is no Python name, and one
    spelt like another's stand-in."""
    typed = decoder(Endpoint)
    body = {"value": [full_endpoint()], "@odata.count": 1, "k0": "x", "f1": None, "items_": 2}
    typed.learn(page_shape(body))
    read = typed.page(dumps(body))
    assert read is not None
    assert {key: value for key, value in read.items() if key != "value"} == {
        "@odata.count": 1, "k0": "x", "f1": None, "items_": 2
    }  # fmt: skip
    assert isinstance(read["value"][0], TypedItem)


@st.composite
def timestamp_texts(draw: st.DrawFn) -> str:
    """ISO 8601 and RFC 3339 times in the forms services write, and near misses: either case
    of `T` and `Z`, a space, 0 to 12 digits of a second, offsets of any size, no seconds, a
    date alone."""
    moment = draw(st.datetimes(min_value=datetime(1, 1, 2), max_value=datetime(9998, 12, 30)))
    text = moment.strftime("%Y-%m-%d")
    form = draw(st.sampled_from(["date", "minutes", "seconds"]))
    if form != "date":
        text += draw(st.sampled_from("Tt ")) + moment.strftime("%H:%M")
    if form == "seconds":
        text += moment.strftime(":%S")
        digits = draw(st.integers(0, 12))
        if digits:
            text += "." + "".join(
                draw(st.lists(st.sampled_from("0123456789"), min_size=digits, max_size=digits))
            )
    zone = draw(st.sampled_from(["", "Z", "z", "+00:00", "-00:00", "offset", "+0530"]))
    if zone == "offset":
        minutes = draw(st.integers(-24 * 60 + 1, 24 * 60 - 1))
        sign, minutes = ("-", -minutes) if minutes < 0 else ("+", minutes)
        zone = f"{sign}{minutes // 60:02d}:{minutes % 60:02d}"
    return text + zone


@settings(max_examples=examples(500), deadline=None)
@given(text=timestamp_texts())
def test_a_timestamp_reads_the_same_in_c_on_the_fast_path_and_through_cattrs(text: str) -> None:
    """Whatever the timestamp's form, the typed view (in C), the generated function and cattrs
    give the same record, or all three refuse it with the same fault."""
    record = full_endpoint()
    record["created_at"] = text
    general = outcome(structure_hook(Endpoint), Endpoint, record)
    assert outcome(cattrs_structure_hook(Endpoint), Endpoint, record) == general
    in_c = decoder(Endpoint).record(dumps(record))
    if in_c is not None:
        assert general == ("ok", in_c)
        assert in_c.created_at.utcoffset() == general[1].created_at.utcoffset()
