"""Page-sequence guards: where a next page may come from, cycles, announced totals."""

from __future__ import annotations

import pytest
from multidict import CIMultiDict
from yarl import URL

from remedy_async._paging._guards import declared_total, request_identity, target_problem
from remedy_async._paging._protocol import PageRequest

BASE = URL("https://api.example.com/api")


@pytest.mark.parametrize(
    ("link", "problem"),
    [
        ("ftp://api.example.com/api/v1/endpoints?c=2", "scheme 'ftp'"),
        ("javascript://api.example.com/v1/x", "scheme 'javascript'"),
        ("https://user:pw@api.example.com/api/v1/endpoints", "user information"),
        ("https://evil.example.net/v1/endpoints?c=2", "another origin"),
        ("http://api.example.com/api/v1/endpoints?c=2", "another origin"),
        ("https://api.example.com:8443/api/v1/endpoints", "another origin"),
        ("https://api.example.com/admin/users", "outside the API's base path"),
    ],
)
def test_unsafe_next_links_are_named(link: str, problem: str) -> None:
    """Each kind of unsafe next link is refused with a reason that names it."""
    found = target_problem(URL(link), BASE, frozenset())
    assert found is not None
    assert problem in found


def test_a_link_without_a_host_is_refused() -> None:
    """A next link with no host is never fetched."""
    found = target_problem(URL("https:///v1/endpoints"), BASE, frozenset())
    assert found is not None


def test_a_same_origin_link_under_the_base_path_is_safe() -> None:
    """A next link on the API's own origin and path is followed."""
    assert (
        target_problem(URL("https://api.example.com/api/v1/endpoints?c=2"), BASE, frozenset())
        is None
    )


def test_a_trusted_origin_is_followed() -> None:
    """A next link on an origin the client trusts is followed."""
    link = URL("https://cdn.example.com/pages/2")
    assert target_problem(link, BASE, frozenset({"https://cdn.example.com"})) is None


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


@pytest.mark.parametrize(
    ("body", "headers", "total"),
    [
        ({"items": [], "total": 7}, {}, 7),
        ({"value": [], "@odata.count": 9}, {}, 9),
        ({"data": [], "meta": {"totalCount": 3}}, {}, 3),
        ({"content": [], "totalElements": 4}, {}, 4),
        ([], {"X-Total-Count": "12"}, 12),
        ({"items": [], "total": "7"}, {}, None),
        ({"items": [], "total": True}, {}, None),
        ([], {}, None),
    ],
)
def test_declared_total_reads_common_spellings(
    body: object, headers: dict[str, str], total: int | None
) -> None:
    """The total a list announces is read from the common keys and headers, ints only."""
    assert declared_total(body, CIMultiDict(headers)) == total
