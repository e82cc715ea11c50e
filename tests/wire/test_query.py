"""encode_filters: list filters given as keyword arguments become query parameters."""

from __future__ import annotations

import enum
import math
from datetime import UTC, date, datetime, timedelta, timezone, tzinfo

import pytest
from hypothesis import given
from hypothesis import strategies as st

from remedy_async._models import OsFamily, Severity
from remedy_async._wire._query import encode_filters


class Colour(enum.Enum):
    """A plain (non-str) enum."""

    RED = 1
    BLUE = "blue"


class _NoOffset(tzinfo):
    """A tzinfo whose utcoffset() is None, which by Python's definition makes a datetime naive."""

    def utcoffset(self, dt: datetime | None) -> timedelta | None:
        return None

    def dst(self, dt: datetime | None) -> timedelta | None:
        return None

    def tzname(self, dt: datetime | None) -> str | None:
        return None


def test_str_is_sent_as_is() -> None:
    """A string value is sent unchanged."""
    assert encode_filters({"hostname": "web 1/é"}) == (("hostname", "web 1/é"),)


def test_int_is_sent_as_decimal() -> None:
    """An int value is sent as its decimal text."""
    assert encode_filters({"attempts": -3}) == (("attempts", "-3"),)


@given(st.floats(allow_nan=False, allow_infinity=False))
def test_finite_float_is_sent_so_it_reads_back_exactly(value: float) -> None:
    """A finite float is sent as text that parses back to the same float."""
    ((name, text),) = encode_filters({"score": value})
    assert name == "score"
    assert float(text) == value


def test_float_is_sent_as_is() -> None:
    """A float value is sent as its usual text form."""
    assert encode_filters({"cvss_score": 7.5}) == (("cvssScore", "7.5"),)


@pytest.mark.parametrize(("value", "text"), [(True, "true"), (False, "false")])
def test_bool_is_lower_case(value: bool, text: str) -> None:
    """A bool is sent as `true`/`false`, never `True`/`1`."""
    assert encode_filters({"has_agent": value}) == (("hasAgent", text),)


def test_str_enum_is_sent_by_value() -> None:
    """A StrEnum member is sent as its value."""
    assert encode_filters({"os_family": OsFamily.MACOS}) == (("osFamily", "macos"),)


@pytest.mark.parametrize(
    ("filters", "params"),
    [
        ({"os_family": "linux"}, (("osFamily", "linux"),)),
        ({"os_family": OsFamily.WINDOWS, "has_agent": True},
         (("osFamily", "windows"), ("hasAgent", "true"))),
        ({"has_agent": "false"}, (("hasAgent", "false"),)),
    ],
)  # fmt: skip
def test_the_published_filters_go_out_as_published(
    filters: dict[str, object], params: tuple[tuple[str, str], ...]
) -> None:
    """os_family and has_agent are sent as `osFamily` and `hasAgent`, the reference's
    camelCase query parameters, with the enum's value and a lower-case boolean."""
    assert encode_filters(filters) == params


def test_plain_enum_is_sent_by_value() -> None:
    """A plain Enum member is sent as its value, an int value as decimal."""
    assert encode_filters({"c": Colour.RED, "d": Colour.BLUE}) == (("c", "1"), ("d", "blue"))


def test_utc_datetime_is_iso_with_z() -> None:
    """An aware UTC datetime is sent as ISO 8601 ending in `Z`."""
    when = datetime(2024, 5, 1, 12, 30, tzinfo=UTC)
    assert encode_filters({"since": when}) == (("since", "2024-05-01T12:30:00Z"),)


def test_offset_datetime_keeps_its_offset() -> None:
    """An aware datetime at another offset is sent with that offset."""
    when = datetime(2024, 5, 1, 14, 30, 0, 250000, tzinfo=timezone(timedelta(hours=2)))
    assert encode_filters({"since": when}) == (("since", "2024-05-01T14:30:00.250000+02:00"),)


def test_date_is_iso() -> None:
    """A date is sent as ISO 8601 `YYYY-MM-DD`."""
    assert encode_filters({"day": date(2024, 2, 29)}) == (("day", "2024-02-29"),)


def test_naive_datetime_is_a_value_error() -> None:
    """A naive datetime is refused: its instant is ambiguous."""
    with pytest.raises(ValueError, match="naive"):
        encode_filters({"since": datetime(2024, 5, 1)})


def test_datetime_with_offsetless_tzinfo_is_a_value_error() -> None:
    """A datetime whose tzinfo gives no UTC offset is naive and refused."""
    with pytest.raises(ValueError, match="naive"):
        encode_filters({"since": datetime(2024, 5, 1, tzinfo=_NoOffset())})


def test_naive_datetime_inside_a_list_is_a_value_error() -> None:
    """A naive datetime is refused inside a sequence too."""
    with pytest.raises(ValueError, match="naive"):
        encode_filters({"since": [datetime(2024, 5, 1, tzinfo=UTC), datetime(2024, 5, 2)]})


@pytest.mark.parametrize("sequence", [["b", "a", "c"], ("b", "a", "c")])
def test_list_and_tuple_repeat_the_parameter_in_order(
    sequence: list[str] | tuple[str, ...],
) -> None:
    """A list or tuple becomes the parameter repeated, in the given order."""
    assert encode_filters({"tag": sequence}) == (("tag", "b"), ("tag", "a"), ("tag", "c"))


def test_sequence_items_are_encoded_like_scalars() -> None:
    """Each item of a sequence is encoded by the scalar rules."""
    assert encode_filters({"x": [True, 2, Severity.LOW, date(2024, 1, 1)]}) == (
        ("x", "true"),
        ("x", "2"),
        ("x", "low"),
        ("x", "2024-01-01"),
    )


def test_generator_is_a_sequence() -> None:
    """A generator is consumed and sent as repeated parameters."""
    assert encode_filters({"id": (str(n) for n in range(3))}) == (
        ("id", "0"),
        ("id", "1"),
        ("id", "2"),
    )


@given(st.sets(st.text(), min_size=1, max_size=8))
def test_set_is_repeated_in_a_deterministic_order(values: set[str]) -> None:
    """A set becomes repeated parameters in sorted order, however the set iterates."""
    params = encode_filters({"tag": values})
    assert params == tuple(("tag", v) for v in sorted(values))
    assert encode_filters({"tag": frozenset(values)}) == params


def test_set_of_enums_is_sorted() -> None:
    """A set of enum members is sent sorted, by value."""
    values = {Severity.LOW, Severity.CRITICAL, Severity.HIGH}
    assert encode_filters({"severity": values}) == (
        ("severity", "critical"),
        ("severity", "high"),
        ("severity", "low"),
    )


def test_none_is_left_out() -> None:
    """A None filter is left out entirely."""
    assert encode_filters({"a": None, "b": "x", "c": None}) == (("b", "x"),)


@pytest.mark.parametrize("empty", [[], (), set(), frozenset()])
def test_empty_sequence_is_a_value_error(empty: list[str]) -> None:
    """An empty sequence is refused: it has no faithful query form."""
    with pytest.raises(ValueError, match="empty"):
        encode_filters({"tag": empty})


@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf])
def test_non_finite_float_is_a_value_error(value: float) -> None:
    """NaN and infinities are refused."""
    with pytest.raises(ValueError, match="finite"):
        encode_filters({"score": value})


def test_non_finite_float_inside_a_list_is_a_value_error() -> None:
    """NaN is refused inside a sequence too."""
    with pytest.raises(ValueError, match="finite"):
        encode_filters({"score": [1.0, math.nan]})


@pytest.mark.parametrize(
    "value",
    [b"bytes", bytearray(b"x"), {"a": 1}, object(), 1 + 2j, [[1]], [None], [b"x"]],
    ids=[
        "bytes",
        "bytearray",
        "dict",
        "object",
        "complex",
        "nested-list",
        "none-item",
        "bytes-item",
    ],
)
def test_unsupported_type_is_a_type_error(value: object) -> None:
    """Bytes, mappings, arbitrary objects and nested sequences are refused with TypeError."""
    with pytest.raises(TypeError):
        encode_filters({"f": value})  # type: ignore[dict-item]


@pytest.mark.parametrize(
    ("name", "wire"),
    [
        ("os_family", "osFamily"),
        ("has_agent", "hasAgent"),
        ("remediation_target_id", "remediationTargetId"),
        ("severity", "severity"),
        ("osFamily", "osFamily"),
    ],
)
def test_snake_case_names_become_camel_case(name: str, wire: str) -> None:
    """Filter names go from snake_case to camelCase, as the service spells its query
    parameters; camelCase names pass through."""
    assert encode_filters({name: "x"}) == ((wire, "x"),)


def test_filter_order_is_kept() -> None:
    """Parameters come out in the order the filters were given."""
    assert encode_filters({"b_x": "1", "a_y": "2"}) == (("bX", "1"), ("aY", "2"))


def test_no_filters_is_no_params() -> None:
    """No filters give no parameters."""
    assert encode_filters({}) == ()
