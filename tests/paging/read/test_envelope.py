"""Looking things up in a list response: body paths (with `[rel=...]` steps) and Link values."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from multidict import CIMultiDict, CIMultiDictProxy

from remedy_async._paging._read._envelope import MISSING, dig, link_values

LINKS = {"links": [{"rel": "self", "href": "a"}, {"rel": "next", "href": "b"}]}


@given(st.lists(st.text(max_size=6), max_size=4), st.none() | st.integers() | st.text())
def test_a_path_finds_what_was_put_there(path: list[str], value: Any) -> None:
    """The value under any keys is found at their path (null included)."""
    body: Any = value
    for key in reversed(path):
        body = {key: body}
    assert dig(body, tuple(path)) == value


@pytest.mark.parametrize(
    ("body", "path"),
    [({}, ("a",)), ({"a": 1}, ("a", "b")), ({"a": [1]}, ("a", "b")), ([], ("a",))],
)
def test_a_path_the_body_lacks_is_missing(body: Any, path: tuple[str, ...]) -> None:
    """An absent key, or a step into a non-object, is MISSING (not None)."""
    assert dig(body, path) is MISSING


def test_null_is_a_value() -> None:
    """A key holding null is found as None, not MISSING."""
    assert dig({"next": None}, ("next",)) is None


def test_a_rel_step_picks_the_relation_in_an_array() -> None:
    """`[rel=next]` picks the object of the array whose `rel` is `next`."""
    assert dig(LINKS, ("links", "[rel=next]", "href")) == "b"


def test_a_rel_step_without_that_relation_is_missing() -> None:
    """No object with that `rel` (or a `[rel=...]` step on an object) is MISSING."""
    assert dig(LINKS, ("links", "[rel=prev]", "href")) is MISSING
    assert dig({"links": {"next": "x"}}, ("links", "[rel=next]")) is MISSING


def test_the_empty_path_is_the_body() -> None:
    """No keys: the body itself."""
    assert dig([1], ()) == [1]


def test_link_values_reads_every_link_header() -> None:
    """Every value of a repeated Link header is returned, in order."""
    headers = CIMultiDictProxy(CIMultiDict([("Link", "<a>; rel=first"), ("link", "<b>; rel=next")]))
    assert link_values(headers) == ["<a>; rel=first", "<b>; rel=next"]


def test_link_values_reads_a_plain_mapping() -> None:
    """Plain dict headers give their one Link value, or none."""
    assert link_values({"Link": "<b>; rel=next"}) == ["<b>; rel=next"]
    assert link_values({}) == []
