"""The corpus itself: every model is well formed, listable by its documented convention, and
answers forged tokens and unknown parameters as its API does. (No client here: these hold today.)"""

from __future__ import annotations

import pytest

from tests.paging.real_apis import CATALOGUE, RealApi, Reply, Request, Tokens, make_records
from tests.paging.real_apis._kit import Rejected
from tests.paging.real_apis._reference import TokenAt, dig, walk

IDS = [api.name for api in CATALOGUE]
SMALL_PAGE = 7
CATEGORIES = ("device-management/security vendor", "cloud", "saas")
ORIGIN = "http://127.0.0.1:1"


def first_request(api: RealApi, **extra: str) -> Request:
    """The first page's request with the API's required parameters (and `extra`)."""
    request = api.reference.first_request(api, ORIGIN, None)
    return Request(request.url.update_query(extra), request.headers) if extra else request


def test_the_catalogue_is_large_distinct_and_vendor_first() -> None:
    """At least 60 APIs, named once each, vendors of the service's kind before clouds and SaaS."""
    assert len(CATALOGUE) >= 60
    assert len(set(IDS)) == len(IDS)
    order = [CATEGORIES.index(api.category) for api in CATALOGUE]
    assert order == sorted(order)


@pytest.mark.parametrize("api", CATALOGUE, ids=IDS)
def test_each_model_cites_its_documentation_and_says_its_shape(api: RealApi) -> None:
    """A model names its sources (URLs), its shape, and a reason for any refusal it expects."""
    assert api.source
    assert all("://" in source for source in api.source)
    assert api.shape
    assert api.category in CATEGORIES
    assert (api.expected != "lists") == bool(api.expected_refusal_reason)


@pytest.mark.parametrize("api", CATALOGUE, ids=IDS)
def test_the_documented_convention_lists_every_record_once_in_order(api: RealApi) -> None:
    """Followed as documented, a model serves every record once, in order, by default and with a
    small page where it has a size parameter; a "refuses" model cannot be followed to the end."""
    records = make_records(api.sample_size)
    expected = [str(record["id"]) for record in records]
    sizes = [None] + ([max(SMALL_PAGE, api.sizing.minimum)] if api.size_param else [])
    for size in sizes:
        listed = walk(api, records, size)
        if api.expected != "refuses":
            assert listed == expected, f"page size {size}"
        else:
            assert len(listed) < len(expected)
            assert listed == expected[: len(listed)]


@pytest.mark.parametrize("api", CATALOGUE, ids=IDS)
def test_unknown_parameters_are_ignored_unless_the_api_rejects_them(api: RealApi) -> None:
    """An unknown query parameter changes no page, except where the docs make it an error."""
    records = make_records(api.sample_size)
    plain = api.reply(first_request(api), records)
    odd = api.reply(first_request(api, corpus_unknown="1"), records)
    if api.rejects_unknown_params:
        assert odd.status == 400
        return
    assert odd.status == plain.status
    assert items_of(api, odd) == items_of(api, plain)


def items_of(api: RealApi, reply: Reply) -> object:
    return reply.body if api.reference.items == () else dig(reply.body, api.reference.items)


def first_token(api: RealApi) -> str | None:
    """The opaque string token on the first page of a token-continued API, if it has one."""
    follow = api.reference.next
    if not isinstance(follow, TokenAt):
        return None
    records = make_records(api.sample_size)
    token = dig(api.reply(first_request(api), records).body, follow.path)
    ids = {str(record["id"]) for record in records}
    return token if isinstance(token, str) and token not in ids else None


OPAQUE = [api for api in CATALOGUE if first_token(api) is not None]


@pytest.mark.parametrize("api", OPAQUE, ids=[api.name for api in OPAQUE])
def test_a_forged_token_is_an_error(api: RealApi) -> None:
    """A token altered in one character is refused with the API's error, never served."""
    token, follow = first_token(api), api.reference.next
    assert token is not None
    assert isinstance(follow, TokenAt)
    middle = len(token) // 2
    forged = token[:middle] + ("A" if token[middle] != "A" else "B") + token[middle + 1 :]
    reply = api.reply(first_request(api, **{follow.param: forged}), make_records(api.sample_size))
    assert reply.status >= 400 or reply.body == {"ok": False, "error": "invalid_cursor"}


def test_a_token_of_another_api_does_not_verify() -> None:
    """Tokens are signed per API: one API's token is foreign to another."""
    with pytest.raises(Rejected):
        Tokens("one").decode(Tokens("other").encode(5))
    assert Tokens("one").decode(Tokens("one").encode(5)) == {"s": 5}
