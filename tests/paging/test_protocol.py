"""The `Convention` value: every axis a hand-written or detected convention needs, its repr as
the expression that builds it, and what it reads and sets."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from yarl import URL

import remedy_async
from remedy_async._paging._conventions import CONVENTIONS
from remedy_async._paging._protocol import CONTRACT_ITEMS, Convention, PageRequest, request_identity
from tests.budget import examples
from tests.paging.strategies import CONVENTION_VALUES


def rebuilt(text: str) -> Any:
    """Evaluate a printed convention as a user pasting it would, after
    `from remedy_async import Convention`."""
    from remedy_async import Convention as Public  # noqa: PLC0415 - as a user would

    return eval(text, {"Convention": Public})


@settings(max_examples=examples(300))
@given(CONVENTION_VALUES)
def test_a_conventions_repr_builds_the_same_value(convention: Convention) -> None:
    """`repr(convention)` is an expression that evaluates back to an equal convention."""
    assert rebuilt(repr(convention)) == convention


def test_the_repr_leaves_defaults_out() -> None:
    """Only the name and the fields that differ from their default are printed."""
    convention = Convention(name="c", follow="token", next_at=("meta", "next"), param="cursor")
    assert repr(convention) == (
        "Convention(name='c', follow='token', next_at=('meta', 'next'), param='cursor')"
    )


def test_the_public_name_is_the_same_class() -> None:
    """`remedy_async.Convention` is the value detection composes."""
    assert remedy_async.Convention is Convention


def test_str_is_the_name_and_summary() -> None:
    """A preset prints as its name and summary; a composition as its name."""
    assert str(CONVENTIONS["cursor"]).startswith("cursor: ")
    assert str(Convention(name="detected")) == "detected"


def test_defaults_read_the_contract() -> None:
    """A convention written with nothing but a name reads the contract's items, whole."""
    convention = Convention()
    assert (convention.name, convention.follow, convention.items) == (
        "composed",
        "none",
        CONTRACT_ITEMS,
    )


def test_paths_convert_from_lists() -> None:
    """Paths given as lists (from a configuration file) become tuples; a lone string is a key."""
    convention = Convention(
        items=[["data"], []],
        next_at=["meta", "next"],
        more_at="has_more",
        ignore=[["prev"]],
        ignore_headers="X-Next-Page",
    )
    assert convention.items == (("data",), ())
    assert convention.next_at == ("meta", "next")
    assert convention.more_at == ("has_more",)
    assert convention.ignore == (("prev",),)
    assert convention.ignore_headers == ("X-Next-Page",)


@pytest.mark.parametrize(
    ("field", "value"),
    [("follow", "cursor"), ("param_in", "body"), ("links_from", "root")],
)
def test_axes_refuse_unknown_choices(field: str, value: str) -> None:
    """An unknown choice on an axis is refused, naming the choices."""
    with pytest.raises(ValueError, match=f"{field} must be one of"):
        Convention(**{field: value})  # type: ignore[arg-type]


@pytest.mark.parametrize("value", [3, [1], ("a", 2)])
def test_paths_refuse_other_values(value: Any) -> None:
    """A path that is not keys is refused."""
    with pytest.raises(TypeError, match="body path"):
        Convention(next_at=value)


def test_signal_paths_are_every_body_path_read() -> None:
    """The paths a convention reads paging from, set ones only (its items excluded)."""
    assert CONVENTIONS["spring"].signal_paths == (
        ("last",),
        ("totalElements",),
        ("totalPages",),
        ("number",),
        ("size",),
    )


def test_read_headers_are_every_header_read() -> None:
    """Continuation, total and page-count headers."""
    convention = Convention(
        next_header="Link", total_header="X-Total-Count", pages_header="X-Total-Pages"
    )
    assert convention.read_headers == ("Link", "X-Total-Count", "X-Total-Pages")


def test_a_header_continuation_is_not_a_query_parameter() -> None:
    """A token sent as a request header leaves its name free for filters."""
    in_query = Convention(follow="token", param="cursor", size_param="limit")
    in_header = Convention(follow="token", param="X-Cursor", param_in="header", size_param="limit")
    assert in_query.parameter_names == {"cursor", "limit"}
    assert in_header.parameter_names == {"limit"}


def test_conventions_are_hashable_values() -> None:
    """Equal conventions hash alike (requests carrying them are compared and hashed)."""
    assert hash(Convention(name="a", param="p")) == hash(Convention(name="a", param="p"))
    assert PageRequest(convention=CONVENTIONS["cursor"]) == PageRequest(
        convention=CONVENTIONS["cursor"]
    )


def test_links_differing_only_by_fragment_or_query_order_are_the_same_request() -> None:
    """The cycle guard compares requests as the server sees them."""
    a = PageRequest(url=URL("https://api.example.com/v1/e?a=1&b=2#one"))
    b = PageRequest(url=URL("https://api.example.com/v1/e?b=2&a=1#two"))
    c = PageRequest(url=URL("https://api.example.com/v1/e?a=1&b=3"))
    assert request_identity(a) == request_identity(b) != request_identity(c)


def test_parameter_requests_ignore_parameter_order() -> None:
    """Two parameter requests with the same pairs in another order are the same request."""
    a = PageRequest(params=(("cursor", "x"), ("limit", "2")))
    b = PageRequest(params=(("limit", "2"), ("cursor", "x")))
    assert request_identity(a) == request_identity(b)
