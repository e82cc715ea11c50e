"""Resume tokens: round trips, checks against the list call, and refusal of malformed tokens."""

from __future__ import annotations

import base64
import contextlib
import re
import string
from random import Random
from typing import Any

import attrs
import msgspec
import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from msgspec.structs import replace
from yarl import URL

from remedy_async._paging._conventions import CONVENTIONS, convention_document, convention_from
from remedy_async._paging._paginators._proven import ResumedProof
from remedy_async._paging._protocol import Convention, PageRequest, Probe
from remedy_async._paging._resume import (
    TOKEN_PREFIX,
    ResumePoint,
    decode_token,
    encode_token,
    filters_fingerprint,
)
from remedy_async._redact import _SECRET_MARK
from tests.budget import examples
from tests.paging.strategies import CONVENTION_VALUES

FILTERS = filters_fingerprint((("severity", "high"), ("status", "open")))
POINT = ResumePoint(
    collection="vulnerability-findings",
    filters=FILTERS,
    paginator="CursorPaginator",
    request=PageRequest(params=(("cursor", "c2"), ("limit", "50"))),
    skip=3,
)
URL_SAFE = re.compile(r"[A-Za-z0-9_.-]+")


def decode(token: Any, point: ResumePoint = POINT) -> ResumePoint:
    """Decode a token for the list call `point` was made for."""
    return decode_token(
        token, collection=point.collection, filters=point.filters, paginator=point.paginator
    )


def raw_token(document: Any) -> str:
    """A token whose body is the given JSON document, as encode_token would wrap it."""
    return TOKEN_PREFIX + base64.urlsafe_b64encode(orjson.dumps(document)).decode().rstrip("=")


def document_of(token: str) -> dict[str, Any]:
    """The JSON document a token wraps."""
    body = token[len(TOKEN_PREFIX) :]
    document = orjson.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))
    assert isinstance(document, dict)
    return document


def good_document(**changes: Any) -> dict[str, Any]:
    """The JSON document of POINT's token, with some keys changed."""
    body = encode_token(POINT)[len(TOKEN_PREFIX) :]
    document = orjson.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))
    assert isinstance(document, dict)
    document.update(changes)
    return document


# Round trips

_HOSTS = st.from_regex(r"[a-z][a-z0-9-]{0,10}(\.[a-z][a-z0-9-]{0,10}){0,2}", fullmatch=True)
_URLS = st.builds(
    lambda scheme, host, port, segments, query: URL.build(
        scheme=scheme,
        host=host,
        port=port,
        path="/" + "/".join(segments),
        query=query,
    ),
    st.sampled_from(["http", "https"]),
    _HOSTS,
    st.none() | st.integers(1, 65535),
    st.lists(st.text(alphabet=string.ascii_letters + string.digits + "-._~", max_size=8)),
    st.lists(st.tuples(st.text(max_size=8), st.text(max_size=8)), max_size=3),
)
_PARAMS = st.lists(st.tuples(st.text(), st.text()), max_size=5).map(tuple)
_PLAIN_REQUESTS = st.builds(
    PageRequest,
    params=_PARAMS,
    url=st.none() | _URLS,
    convention=st.none() | CONVENTION_VALUES,
    headers=st.lists(st.tuples(st.text(), st.text()), max_size=2).map(tuple),
)
_PROBES = st.builds(
    Probe,
    first_id=st.text(),
    others=st.lists(_PLAIN_REQUESTS, max_size=3).map(tuple),
    refusal=st.none() | st.text(),
    unannounced=st.booleans(),
)
_REQUESTS = st.builds(
    PageRequest,
    params=_PARAMS,
    url=st.none() | _URLS,
    convention=st.none() | CONVENTION_VALUES,
    headers=st.lists(st.tuples(st.text(), st.text()), max_size=2).map(tuple),
    probe=st.none() | _PROBES,
    proof=st.none()
    | st.builds(
        ResumedProof,
        digests=st.lists(st.integers(-(2**63), 2**63 - 1), max_size=8).map(tuple),
        page_size=st.integers(0, 10**6),
        whole=st.booleans(),
    ),
)
_POINTS = st.builds(
    ResumePoint,
    collection=st.text(),
    filters=st.text(),
    paginator=st.text(),
    request=_REQUESTS,
    skip=st.integers(min_value=0, max_value=2**63 - 1),
)


@settings(max_examples=examples(300), deadline=None)  # a busy machine is not a slow token
@given(_POINTS)
def test_round_trip(point: ResumePoint) -> None:
    """A token decodes to its point: composed convention, headers, probe and what it keeps of
    a proof (which is no part of a request's equality) included."""
    decoded = decode(encode_token(point), point)
    assert decoded == point
    assert decoded.request.proof == point.request.proof


@settings(max_examples=examples(300))
@given(CONVENTION_VALUES)
def test_a_conventions_document_reads_back_as_the_convention(convention: Convention) -> None:
    """A convention's document (a preset's name, or its fields) reads back as it."""
    assert convention_from(convention_document(convention)) == convention


def test_a_token_keeps_a_preset_by_name_and_a_composition_by_fields() -> None:
    """A preset is stored as its name; a composition as its fields that differ from defaults."""
    composed = Convention(
        name="detected", follow="token", items=(("data",),), next_at=("meta", "next"), param="c"
    )
    for convention, stored in [
        (CONVENTIONS["cursor"], "cursor"),
        (
            composed,
            {
                "name": "detected",
                "follow": "token",
                "items": [["data"]],
                "next_at": ["meta", "next"],
                "param": "c",
            },
        ),
    ]:
        point = replace(POINT, request=PageRequest(convention=convention))
        assert document_of(encode_token(point))["v"] == stored


def test_a_probe_resumes_with_its_remaining_guesses() -> None:
    """A token taken while a guess is tried resumes trying it, then the guesses after it."""
    after = PageRequest(params=(("page", "2"),), convention=CONVENTIONS["page"])
    probe = Probe("ep-0", (after,), refusal=None, unannounced=True)
    request = PageRequest(
        params=(("offset", "100"),), convention=CONVENTIONS["offset"], probe=probe
    )
    point = replace(POINT, request=request)
    decoded = decode(encode_token(point), point)
    assert decoded.request.probe == probe
    assert decoded.request.probe.next_try() == attrs.evolve(
        after, probe=Probe("ep-0", unannounced=True)
    )


def test_a_confirming_probe_resumes_confirming() -> None:
    """A token taken before the page that confirms a guess keeps the check and its refusal
    (not the ids of the page before, which would make tokens long)."""
    probe = Probe("ep-0", refusal="refuted", first_ids=("ep-2", "ep-3"), confirming=True)
    request = PageRequest(params=(("offset", "4"),), convention=CONVENTIONS["offset"], probe=probe)
    point = replace(POINT, request=request)
    decoded = decode(encode_token(point), point).request.probe
    assert decoded == replace(probe, first_ids=())


def test_a_probe_resumes_knowing_the_page_before_said_more() -> None:
    """A token taken before a guessed page keeps that the page before said more records follow,
    so an empty page after the resume still refutes the guess rather than ending the list."""
    probe = Probe("ep-0", announced_more=True)
    request = PageRequest(params=(("offset", "4"),), convention=CONVENTIONS["offset"], probe=probe)
    point = replace(POINT, request=request)
    assert decode(encode_token(point), point).request.probe == probe


def test_a_header_continuation_resumes_in_its_header() -> None:
    """A token sent back as a request header is kept as one."""
    convention = Convention(name="h", follow="token", param="X-Cursor", param_in="header")
    request = PageRequest(headers=(("X-Cursor", "c2"),), convention=convention)
    point = replace(POINT, request=request)
    assert decode(encode_token(point), point).request.headers == (("X-Cursor", "c2"),)


@given(_POINTS)
def test_token_is_url_safe_ascii_with_prefix(point: ResumePoint) -> None:
    """A token is URL-safe ASCII starting with `r1.`, with no padding."""
    token = encode_token(point)
    assert token.startswith("r1.")
    assert token.isascii()
    assert URL_SAFE.fullmatch(token)
    assert not token.endswith("=")


def test_round_trip_of_a_url_request() -> None:
    """A point whose request is a URL to follow keeps that URL exactly."""
    url = URL("https://api.example.com/v1/endpoints?cursor=a%2Bb%3D&limit=2")
    point = ResumePoint("endpoints", FILTERS, "LinkHeaderPaginator", PageRequest(url=url), 1)
    decoded = decode(encode_token(point), point)
    assert decoded == point
    assert decoded.request.url is not None
    assert decoded.request.url.query["cursor"] == "a+b="


def test_skip_defaults_to_zero() -> None:
    """A point made without skip round-trips with skip 0."""
    point = ResumePoint("scopes", FILTERS, "OffsetPaginator", PageRequest())
    assert decode(encode_token(point), point).skip == 0


# Checks against the list call the token is given to


def test_other_collection_is_refused() -> None:
    """A token made for another collection is refused, naming both collections."""
    with pytest.raises(ValueError, match="'vulnerability-findings', not for 'endpoints'"):
        decode_token(
            encode_token(POINT), collection="endpoints", filters=FILTERS, paginator=POINT.paginator
        )


def test_other_filters_are_refused() -> None:
    """A token made for a list call with other filters is refused."""
    other = filters_fingerprint((("severity", "low"), ("status", "open")))
    with pytest.raises(ValueError, match="other filters"):
        decode_token(
            encode_token(POINT),
            collection=POINT.collection,
            filters=other,
            paginator=POINT.paginator,
        )


def test_no_filters_is_other_filters() -> None:
    """A token made with filters is refused by the same list call without them."""
    with pytest.raises(ValueError, match="other filters"):
        decode_token(
            encode_token(POINT),
            collection=POINT.collection,
            filters=filters_fingerprint(()),
            paginator=POINT.paginator,
        )


def test_other_paginator_is_refused() -> None:
    """A token made with another paginator is refused, naming both paginators."""
    with pytest.raises(ValueError, match="CursorPaginator, this list uses OffsetPaginator"):
        decode_token(
            encode_token(POINT),
            collection=POINT.collection,
            filters=FILTERS,
            paginator="OffsetPaginator",
        )


# Malformed tokens


@pytest.mark.parametrize("token", ["", "r1", "r2.abc", "R1.abc", " r1.abc", "abc", "r1:abc"])
def test_wrong_prefix_is_refused(token: str) -> None:
    """A string without the `r1.` prefix is refused as not a resume token."""
    with pytest.raises(ValueError, match=r"resume_token is not a remedy_async resume token"):
        decode(token)


@pytest.mark.parametrize("token", [None, 1, b"r1.abc", ["r1.abc"], POINT])
def test_non_str_is_refused(token: Any) -> None:
    """Anything but a str is refused with ValueError, not TypeError or AttributeError."""
    with pytest.raises(ValueError, match="resume_token is not a remedy_async resume token"):
        decode(token)


@pytest.mark.parametrize(
    "token",
    [
        "r1.",
        "r1.a",
        "r1.!!!!",
        "r1.é",
        "r1.\x00",
        "r1." + base64.urlsafe_b64encode(b"not json").decode(),
        "r1." + base64.urlsafe_b64encode(b"\xff\xfe").decode(),
        "r1." + base64.urlsafe_b64encode(b'{"c": "x"').decode(),
        encode_token(POINT)[:-5],
    ],
)
def test_bad_base64_or_not_json_is_malformed(token: str) -> None:
    """Bad base64, or base64 of something that is not JSON, is a malformed token."""
    with pytest.raises(ValueError, match="resume_token is malformed"):
        decode(token)


@pytest.mark.parametrize("document", [None, 1, "text", [1, 2], [], {}, True])
def test_json_not_an_object_is_malformed(document: Any) -> None:
    """A token whose JSON is not an object is malformed."""
    with pytest.raises(ValueError, match="resume_token is malformed"):
        decode(raw_token(document))


@pytest.mark.parametrize("key", ["c", "f", "s", "p", "u", "k"])
def test_json_missing_key_is_malformed(key: str) -> None:
    """A token missing any of its keys is malformed."""
    document = good_document()
    del document[key]
    with pytest.raises(ValueError, match="resume_token is malformed"):
        decode(raw_token(document))


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("c", 1),
        ("c", None),
        ("f", ["x"]),
        ("s", {"name": "CursorPaginator"}),
        ("p", None),
        ("p", 3),
        ("p", "text"),
        ("p", [["cursor"]]),
        ("p", [["cursor", "c2", "extra"]]),
        ("p", [["cursor", 2]]),
        ("p", [[None, "c2"]]),
        ("p", [3]),
        ("u", 3),
        ("u", ["https://api.example.com/"]),
        ("u", "http://[oops/"),
        ("u", "https://api.example.com:99999/"),
        ("k", -1),
        ("k", 1.5),
        ("k", "3"),
        ("k", True),
        ("k", None),
        ("v", "nope"),
        ("v", 3),
        ("v", {"follow": "sideways"}),
        ("v", {"bogus": 1}),
        ("h", 3),
        ("h", [["X-Cursor"]]),
        ("q", 3),
        ("q", {"o": []}),
        ("q", {"i": 1, "o": []}),
        ("q", {"i": "ep-0", "o": 3}),
        ("q", {"i": "ep-0", "o": [3]}),
        ("q", {"i": "ep-0", "o": [], "r": 3}),
    ],
)
def test_wrong_types_are_malformed(key: str, value: Any) -> None:
    """A wrong type, negative skip, unknown convention or broken probe is malformed."""
    with pytest.raises(ValueError, match="resume_token is malformed"):
        decode(raw_token(good_document(**{key: value})))


@pytest.mark.parametrize("params", [["ab", "cd"], {"ab": "x"}])
def test_params_not_pairs_are_malformed(params: Any) -> None:
    """Parameters that are not a list of [name, value] pairs make the token malformed."""
    with pytest.raises(ValueError, match="resume_token is malformed"):
        decode(raw_token(good_document(p=params)))


@pytest.mark.parametrize("url", ["", "/v1/endpoints?cursor=2", "page2"])
def test_relative_url_is_malformed(url: str) -> None:
    """A token whose next-page URL is not absolute is malformed."""
    with pytest.raises(ValueError, match="resume_token is malformed"):
        decode(raw_token(good_document(u=url)))


@given(st.text())
def test_arbitrary_text_after_prefix_is_only_ever_a_value_error(text: str) -> None:
    """Any text after `r1.` decodes or raises ValueError, never another exception."""
    with contextlib.suppress(ValueError):
        decode(TOKEN_PREFIX + text)


@given(st.text(alphabet=string.ascii_letters + string.digits + "-_="))
def test_arbitrary_base64_after_prefix_is_malformed(text: str) -> None:
    """Arbitrary base64-alphabet text after `r1.` is refused as malformed."""
    with pytest.raises(ValueError, match="resume_token is malformed"):
        decode(TOKEN_PREFIX + text)


_JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**63), 2**63 - 1)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=3), children, max_size=3)
    ),
    max_leaves=8,
)


@given(st.fixed_dictionaries({}, optional=dict.fromkeys("cfspukvhq", _JSON)))
def test_arbitrary_json_document_is_only_ever_a_value_error(document: dict[str, Any]) -> None:
    """A token of any JSON object decodes or raises ValueError, never another exception."""
    with contextlib.suppress(ValueError):
        decode(raw_token(document))


# Fingerprints


def test_fingerprint_is_order_insensitive() -> None:
    """The same filters in another order have the same fingerprint."""
    assert filters_fingerprint((("a", "1"), ("b", "2"))) == filters_fingerprint(
        (("b", "2"), ("a", "1"))
    )


@given(st.lists(st.tuples(st.text(), st.text()), max_size=6), st.randoms())
def test_fingerprint_is_order_insensitive_for_any_filters(
    params: list[tuple[str, str]], random: Random
) -> None:
    """Shuffling any filters leaves the fingerprint unchanged."""
    shuffled = list(params)
    random.shuffle(shuffled)
    assert filters_fingerprint(tuple(params)) == filters_fingerprint(tuple(shuffled))


@pytest.mark.parametrize(
    "other",
    [
        (),
        (("severity", "low"),),
        (("severity", "high"), ("status", "open")),
        (("severity", "high"), ("severity", "high")),
        (("severityhigh", ""),),
        (("severit", "yhigh"),),
    ],
)
def test_fingerprint_differs_for_different_filters(other: tuple[tuple[str, str], ...]) -> None:
    """Different filters have different fingerprints, including look-alike splits."""
    assert filters_fingerprint((("severity", "high"),)) != filters_fingerprint(other)


def test_fingerprint_is_short_hex() -> None:
    """A fingerprint is 16 lower-case hex digits."""
    assert re.fullmatch(r"[0-9a-f]{16}", filters_fingerprint((("q", "é"),)))


SECRET = "s3cr3t/+= é"
ECHOED = str(URL("https://api.example.com/v1/scopes").with_query(cursor=f"c1.{SECRET}", n="2"))


def echoing_point(url: str = ECHOED) -> ResumePoint:
    return ResumePoint(
        collection="scopes",
        filters=FILTERS,
        paginator="AutoPaginator",
        request=PageRequest(params=(("cursor", f"c1.{SECRET}"),), url=URL(url, encoded=True)),
    )


def decode_echoing(token: str, secrets: tuple[str, ...]) -> ResumePoint:
    return decode_token(
        token, collection="scopes", filters=FILTERS, paginator="AutoPaginator", secrets=secrets
    )


@given(st.text(min_size=8, max_size=24))
def test_an_echoed_secret_is_never_stored_in_a_token(secret: str) -> None:
    """Whatever the secret, the token holds a mark, and resumes with it spelled as it was."""
    url = str(URL("https://api.example.com/v1/x").with_query(cursor=f"c.{secret}"))
    point = ResumePoint(
        collection="scopes",
        filters=FILTERS,
        paginator="AutoPaginator",
        request=PageRequest(params=(("cursor", secret),), url=URL(url, encoded=True)),
    )
    token = encode_token(point, (secret,))
    body = base64.urlsafe_b64decode(token[3:] + "=" * (-len(token[3:]) % 4)).decode()
    stored = orjson.loads(body)
    without_marks = [_SECRET_MARK.sub("", text) for text in (stored["p"][0][1], stored["u"])]
    assert [secret in text for text in without_marks] == [False, False]
    assert decode_echoing(token, (secret,)) == point


def test_a_rotated_secret_is_put_in_its_place() -> None:
    """A token resumed by a client with a new token carries the new one where the old was."""
    token = encode_token(echoing_point(), (SECRET,))
    resumed = decode_echoing(token, ("fresh",))
    assert resumed.request.params == (("cursor", "c1.fresh"),)
    assert "cursor=c1.fresh" in str(resumed.request.url)


def test_a_token_with_an_echo_needs_a_client_with_a_secret() -> None:
    """Without a token to put back, the resume token is refused with a reason."""
    token = encode_token(echoing_point(), (SECRET,))
    with pytest.raises(ValueError, match="cannot be used: it holds a credential the service"):
        decode_echoing(token, ())


def test_an_echoed_secret_in_a_header_or_a_guess_is_never_stored() -> None:
    """Request headers and the requests of later guesses conceal an echoed secret too."""
    guess = PageRequest(params=(("pageToken", f"t.{SECRET}"),), convention=CONVENTIONS["google"])
    request = PageRequest(
        headers=(("X-Cursor", f"c.{SECRET}"),),
        convention=Convention(name="h", follow="token", param="X-Cursor", param_in="header"),
        probe=Probe("sc-1", (guess,)),
    )
    point = replace(echoing_point(), request=request)
    token = encode_token(point, (SECRET,))
    assert SECRET not in str(document_of(token))
    assert decode_echoing(token, (SECRET,)) == point


def test_a_token_without_digests_reads_as_one_without_a_proof() -> None:
    """Tokens made before proofs were kept (no `a` key) still decode: the list resumes
    unproven."""
    assert decode(raw_token(good_document())).request.proof is None


def test_a_token_keeps_a_proof_under_its_published_key() -> None:
    """What a token keeps of a proof is stored as tokens already issued store it (`a`: digests
    `i`, page size `z`, whole `w`), so those resume proven as before."""
    kept = ResumedProof(digests=(5, -7), page_size=100, whole=True)
    point = ResumePoint("endpoints", "f", "AutoPaginator", PageRequest(proof=kept))
    assert document_of(encode_token(point))["a"] == {"i": [5, -7], "z": 100, "w": True}
    issued = good_document(a={"i": [5, -7], "z": 100})
    assert decode(raw_token(issued)).request.proof == msgspec.structs.replace(kept, whole=False)


@pytest.mark.parametrize(
    "digests",
    [
        {"i": ["1"], "z": 10},
        {"i": [2**63], "z": 10},
        {"i": [True], "z": 10},
        {"i": [1], "z": -1},
        {"i": [1], "z": 10, "w": "yes"},
        {"i": list(range(65)), "z": 10},
        [1, 2],
    ],
)
def test_malformed_digests_are_refused(digests: Any) -> None:
    with pytest.raises(ValueError, match="malformed"):
        decode(raw_token(good_document(a=digests)))
