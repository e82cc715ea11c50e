"""RFC 8288 Link headers: parsing links and their relations, and finding the next page's URL."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from yarl import URL

from remedy_async._paging._read._links import Link, next_link, parse_link_header

BASE = URL("https://api.example.com/v1/endpoints?cursor=1&limit=2")


def test_one_link() -> None:
    """A single link yields its target and its relation."""
    assert parse_link_header('<https://api.example.com/v1/endpoints?page=2>; rel="next"') == [
        Link(target="https://api.example.com/v1/endpoints?page=2", rels=frozenset({"next"}))
    ]


def test_several_links_in_one_value() -> None:
    """Comma-separated links in one header value are returned in order."""
    links = parse_link_header(
        '<https://h.example/?page=1>; rel="first", <https://h.example/?page=1>; rel="prev", '
        '<https://h.example/?page=3>; rel="next", <https://h.example/?page=9>; rel="last"'
    )
    assert [(link.target[-6:], link.rels) for link in links] == [
        ("page=1", frozenset({"first"})),
        ("page=1", frozenset({"prev"})),
        ("page=3", frozenset({"next"})),
        ("page=9", frozenset({"last"})),
    ]


def test_empty_value_has_no_links() -> None:
    """An empty or blank header value has no links."""
    assert parse_link_header("") == []
    assert parse_link_header("   ") == []


def test_link_without_rel_has_no_relations() -> None:
    """A link with no rel parameter has an empty relation set."""
    assert parse_link_header('<https://h.example/a>; title="x"') == [
        Link(target="https://h.example/a", rels=frozenset())
    ]


@pytest.mark.parametrize("rel", ['rel="next"', "rel=next"])
def test_quoted_and_unquoted_rel(rel: str) -> None:
    """The rel parameter may be a quoted string or a bare token."""
    assert parse_link_header(f"<https://h.example/b>; {rel}")[0].rels == {"next"}


def test_rel_list_gives_every_relation() -> None:
    """rel="next last" gives both relation types."""
    assert parse_link_header('<https://h.example/b>; rel="next last"')[0].rels == {"next", "last"}


def test_rel_list_with_extra_whitespace() -> None:
    """Relation types separated by several spaces or tabs are split on any whitespace."""
    assert parse_link_header('<https://h.example/b>; rel="  prev \t next  "')[0].rels == {
        "prev",
        "next",
    }


def test_uppercase_parameter_name_and_relation() -> None:
    """Parameter names and relation types are case-insensitive: REL="Next" is rel="next"."""
    assert parse_link_header('<https://h.example/b>; REL="Next"')[0].rels == {"next"}


@pytest.mark.parametrize(
    "title",
    ['"a, b; c"', '"<https://evil.example/x>; rel=next, z"', '"a,b"', '";"', '","'],
)
def test_comma_and_semicolon_in_quoted_value_do_not_split(title: str) -> None:
    """Commas, semicolons and angle brackets inside a quoted value belong to the value."""
    links = parse_link_header(
        f'<https://h.example/a>; title={title}; rel="prev", <https://h.example/b>; rel="next"'
    )
    assert links == [
        Link(target="https://h.example/a", rels=frozenset({"prev"})),
        Link(target="https://h.example/b", rels=frozenset({"next"})),
    ]


def test_escaped_quote_does_not_end_a_quoted_value() -> None:
    r"""A \" inside a quoted value is part of it, so what follows it is not a parameter."""
    links = parse_link_header(r'<https://h.example/a>; title="x\", rel=\"prev"; rel="next"')
    assert links == [Link(target="https://h.example/a", rels=frozenset({"next"}))]


def test_escaped_backslash_then_closing_quote() -> None:
    r"""A \\ inside a quoted value is one backslash, and the quote after it closes the value."""
    links = parse_link_header(r'<https://h.example/a>; title="x\\"; rel="next"')
    assert links == [Link(target="https://h.example/a", rels=frozenset({"next"}))]


@pytest.mark.parametrize(
    "value",
    [
        "<https://h.example/a>;rel=next,<https://h.example/b>;rel=prev",
        "  <https://h.example/a> ; rel = next , <https://h.example/b> ; rel = prev  ",
        '<https://h.example/a>;\trel="next"\t,\t<https://h.example/b>;\trel="prev"',
        '< https://h.example/a >; rel ="next",   <https://h.example/b>;rel= "prev"',
    ],
)
def test_whitespace_variations(value: str) -> None:
    """Optional whitespace around targets, separators and `=` does not change the result."""
    assert parse_link_header(value) == [
        Link(target="https://h.example/a", rels=frozenset({"next"})),
        Link(target="https://h.example/b", rels=frozenset({"prev"})),
    ]


def test_comma_inside_the_target_does_not_split() -> None:
    """A comma inside <...> is part of the target."""
    assert parse_link_header("<https://h.example/a?ids=1,2>; rel=next")[0].target == (
        "https://h.example/a?ids=1,2"
    )


@pytest.mark.parametrize(
    "value",
    [
        '<https://h.example/a; rel="next"',
        "<",
        "<https://h.example/a",
        'rel="next"',
        '>; rel="next"',
        ";;;,,,",
        '<https://h.example/a>; rel="next',
        "<https://h.example/a>; rel=",
        "<https://h.example/a>; =next; rel",
        '<https://h.example/a>; title="unterminated \\',
    ],
)
def test_malformed_value_does_not_crash(value: str) -> None:
    """A malformed value is parsed without raising, and gives no link with a guessed target."""
    for link in parse_link_header(value):
        assert "<" not in link.target
        assert ">" not in link.target


def test_link_missing_closing_bracket_is_skipped() -> None:
    """A link with no closing `>` gives no link (and no next page)."""
    assert parse_link_header('<https://h.example/a; rel="next"') == []
    assert next_link(['<https://h.example/a; rel="next"'], BASE) is None


def test_link_missing_closing_bracket_does_not_swallow_the_next_link() -> None:
    """A link missing its `>` is skipped, and the well-formed link after it is still read."""
    links = parse_link_header('<https://h.example/a; rel="prev", <https://h.example/b>; rel="next"')
    assert links == [Link(target="https://h.example/b", rels=frozenset({"next"}))]


def test_first_rel_parameter_wins() -> None:
    """When rel appears twice in one link, only the first occurrence counts (RFC 8288 §3)."""
    assert parse_link_header('<https://h.example/a>; rel="prev"; rel="next"')[0].rels == {"prev"}
    assert parse_link_header('<https://h.example/a>; rel=""; rel="next"')[0].rels == frozenset()


def test_next_link_returns_the_next_target() -> None:
    """next_link returns the target of the link whose relations include next."""
    value = '<https://api.example.com/v1/endpoints?cursor=0>; rel="prev", ' + (
        '<https://api.example.com/v1/endpoints?cursor=2>; rel="next"'
    )
    assert next_link([value], BASE) == URL("https://api.example.com/v1/endpoints?cursor=2")


def test_next_link_in_a_rel_list() -> None:
    """A link with rel="next last" is the next link."""
    assert next_link(['<https://h.example/9>; rel="next last"'], BASE) == URL("https://h.example/9")


def test_next_link_over_several_header_values() -> None:
    """next_link searches every Link header value, in order."""
    values = [
        '<https://api.example.com/v1/endpoints?cursor=0>; rel="first"',
        '<https://api.example.com/v1/endpoints?cursor=2>; rel="next"',
        '<https://api.example.com/v1/endpoints?cursor=3>; rel="next"',
    ]
    assert next_link(values, BASE) == URL("https://api.example.com/v1/endpoints?cursor=2")


def test_next_link_first_next_wins_within_a_value() -> None:
    """Of two next links in one value, the first is returned."""
    value = '<https://h.example/1>; rel="next", <https://h.example/2>; rel="next"'
    assert next_link([value], BASE) == URL("https://h.example/1")


@pytest.mark.parametrize(
    "values",
    [
        [],
        [""],
        ['<https://h.example/1>; rel="prev"', '<https://h.example/9>; rel="last"'],
        ['<https://h.example/1>; rel="nextish"'],
        ['<https://h.example/1>; title="next"'],
    ],
)
def test_next_link_none_without_next(values: list[str]) -> None:
    """Without a rel="next" link, next_link is None."""
    assert next_link(values, BASE) is None


@pytest.mark.parametrize(
    ("target", "expected"),
    [
        ("/v1/x?cursor=2", "https://api.example.com/v1/x?cursor=2"),
        ("?page=3", "https://api.example.com/v1/endpoints?page=3"),
        ("page2", "https://api.example.com/v1/page2"),
        ("//other.example/p?q=1", "https://other.example/p?q=1"),
        (
            "https://api.example.com/v1/y?cursor=a%2Bb%3D",
            "https://api.example.com/v1/y?cursor=a%2Bb%3D",
        ),
    ],
)
def test_next_link_resolves_relative_targets(target: str, expected: str) -> None:
    """A relative next target is resolved against the request URL (RFC 3986 §5)."""
    assert next_link([f'<{target}>; rel="next"'], BASE) == URL(expected)


def test_next_link_keeps_an_encoded_query() -> None:
    """Percent-escapes in the next target's query survive, so a cursor decodes unchanged."""
    url = next_link(['</v1/endpoints?cursor=a%2Bb%2F%3D%3D>; rel="next"'], BASE)
    assert url is not None
    assert url.query["cursor"] == "a+b/=="


# Round trip: links formatted into a header value parse back to the same targets and rels.

_TARGET = st.text(
    alphabet="abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~/?=&%:@!$'()*+,;",
    min_size=1,
    max_size=40,
)
_REL_TOKEN = st.sampled_from(
    ["next", "prev", "first", "last", "self", "alternate", "related", "x-custom.rel"]
)
_QUOTED_TEXT = st.text(alphabet='ab ,;<>=\\"\t-', max_size=20)
_EXTRA_NAME = st.sampled_from(["title", "type", "hreflang", "anchor", "media", "x-note"])
_SPACE = st.sampled_from(["", " ", "  ", "\t"])


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


@st.composite
def _formatted_link(draw: st.DrawFn) -> tuple[str, str, frozenset[str]]:
    target = draw(_TARGET)
    rels = draw(st.lists(_REL_TOKEN, unique=True, max_size=3))
    params = [
        f"{name}={_quote(text)}"
        for name, text in draw(st.lists(st.tuples(_EXTRA_NAME, _QUOTED_TEXT), max_size=3))
    ]
    if rels:
        if len(rels) == 1 and draw(st.booleans()):
            rel_value = rels[0]
        else:
            rel_value = _quote(
                " ".join(rel.upper() if draw(st.booleans()) else rel for rel in rels)
            )
        name = draw(st.sampled_from(["rel", "REL", "Rel"]))
        params.insert(
            draw(st.integers(0, len(params))), f"{name}{draw(_SPACE)}={draw(_SPACE)}{rel_value}"
        )
    separator = draw(_SPACE) + ";" + draw(_SPACE)
    text = f"<{target}>" + "".join(separator + param for param in params)
    return text, target, frozenset(rels)


@given(st.lists(_formatted_link(), max_size=6), _SPACE)
def test_formatted_links_parse_back(
    links: list[tuple[str, str, frozenset[str]]], space: str
) -> None:
    """Links formatted into one header value parse back to the same targets and rels, in order."""
    value = ("," + space).join(text for text, _, _ in links)
    parsed = parse_link_header(value)
    assert [(link.target, link.rels) for link in parsed] == [
        (target, rels) for _, target, rels in links
    ]
