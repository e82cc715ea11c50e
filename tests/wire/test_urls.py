"""id_segment: a resource id is checked and encoded as exactly one URL path segment."""

from __future__ import annotations

import string
from urllib.parse import quote, unquote

import pytest
from hypothesis import given
from hypothesis import strategies as st

from remedy_async._wire._urls import MAX_ID_LENGTH, id_segment

valid_text_ids = st.text(
    st.characters(exclude_categories=("Cc", "Cs")), min_size=1, max_size=MAX_ID_LENGTH
).filter(lambda text: text not in {".", ".."})
control_chars = st.sampled_from([chr(c) for c in (*range(0x20), *range(0x7F, 0xA0))])


@pytest.mark.parametrize(
    ("value", "text"), [(0, "0"), (42, "42"), (-7, "-7"), (10**20, str(10**20))]
)
def test_int_becomes_its_decimal_string(value: int, text: str) -> None:
    """An int id is sent as its decimal string."""
    assert id_segment(value) == text


@pytest.mark.parametrize("value", [True, False, 1.0, None, b"ep-1", ["ep-1"]])
def test_other_types_are_a_type_error(value: object) -> None:
    """A bool, float, None or other non-str non-int id is a TypeError."""
    with pytest.raises(TypeError):
        id_segment(value)  # type: ignore[arg-type]


@pytest.mark.parametrize("value", ["", ".", ".."])
def test_empty_and_dot_segments_are_a_value_error(value: str) -> None:
    """An empty id, `.` or `..` would change the URL path and is a ValueError."""
    with pytest.raises(ValueError, match="resource id"):
        id_segment(value)


@pytest.mark.parametrize("char", ["\x00", "\n", "\r", "\t", "\x1b", "\x7f", "\x85", "\x9f"])
def test_control_characters_are_a_value_error(char: str) -> None:
    """Any control character (Unicode category Cc) anywhere in the id is a ValueError."""
    with pytest.raises(ValueError, match="control"):
        id_segment(f"ep{char}1")


@given(control_chars, st.text(max_size=5), st.text(max_size=5))
def test_any_control_character_is_a_value_error(char: str, before: str, after: str) -> None:
    """A Cc character makes any id invalid, wherever it is."""
    with pytest.raises(ValueError, match="control"):
        id_segment(before + char + after)


def test_max_length_is_accepted() -> None:
    """An id of exactly 1024 characters is accepted."""
    assert id_segment("a" * MAX_ID_LENGTH) == "a" * MAX_ID_LENGTH
    assert MAX_ID_LENGTH == 1024


def test_over_max_length_is_a_value_error() -> None:
    """An id of 1025 characters is a ValueError."""
    with pytest.raises(ValueError, match="1024"):
        id_segment("a" * (MAX_ID_LENGTH + 1))


def test_long_int_is_a_value_error() -> None:
    """An int whose decimal form exceeds 1024 digits is a ValueError."""
    with pytest.raises(ValueError, match="1024"):
        id_segment(10**MAX_ID_LENGTH)


@pytest.mark.parametrize(
    ("value", "segment"),
    [
        ("a/b", "a%2Fb"),
        ("a?b", "a%3Fb"),
        ("a#b", "a%23b"),
        ("100%", "100%25"),
        ("a b", "a%20b"),
        ("é", "%C3%A9"),
        ("日本", "%E6%97%A5%E6%9C%AC"),
        ("a+b", "a%2Bb"),
        ("a;b", "a%3Bb"),
        ("...", "..."),
        ("ep-1_x.y~z", "ep-1_x.y~z"),
    ],
)
def test_reserved_and_non_ascii_characters_are_percent_encoded(value: str, segment: str) -> None:
    """Reserved, space and non-ASCII characters are percent-encoded; unreserved ones are not."""
    assert id_segment(value) == segment


@given(valid_text_ids | st.integers())
def test_valid_id_round_trips_as_one_segment(value: str | int) -> None:
    """Any valid id decodes back to itself and is exactly one path segment."""
    segment = id_segment(value)
    assert unquote(segment, errors="strict") == str(value)
    assert not set(segment) & {"/", "?", "#"}
    assert segment.isascii()


unreserved_ids = st.text(
    alphabet=string.ascii_letters + string.digits + "-._~", min_size=1, max_size=40
).filter(lambda text: text not in {".", ".."})


@given(valid_text_ids | unreserved_ids)
def test_a_text_id_is_percent_encoded_as_quote_does(value: str) -> None:
    """Every valid text id is encoded exactly as urllib's quote with nothing safe encodes it,
    those of unreserved characters alone (returned as they are) included."""
    assert id_segment(value) == quote(value, safe="")
