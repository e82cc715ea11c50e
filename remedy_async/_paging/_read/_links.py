"""Parses RFC 8288 `Link` headers, to find where the next page of a list is."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from attrs import field, frozen
from yarl import URL


@frozen
class Link:
    """One link of a Link header: its target, its relation types (lower-cased) and its other
    parameters (names lower-cased)."""

    target: str
    rels: frozenset[str]
    params: Mapping[str, str] = field(factory=dict, eq=False)


def parse_link_header(value: str) -> list[Link]:
    """Return the links in one Link header value.

    Handles several links per value, quoted and unquoted parameters (commas and semicolons
    inside quotes included), and space-separated relation lists such as `rel="next last"`.
    A malformed link is skipped, not guessed at.
    """
    links: list[Link] = []
    position, length = 0, len(value)
    while position < length:
        start = value.find("<", position)
        if start < 0:
            break
        end = value.find(">", start + 1)
        if end < 0:
            break
        stray = value.find("<", start + 1, end)
        if stray >= 0:  # this link never closed its target: skip it, keep the next one
            position = stray
            continue
        target = value[start + 1 : end].strip()
        params, position = _parameters(value, end + 1)
        rels = frozenset(rel.lower() for rel in params.get("rel", "").split() if rel)
        links.append(Link(target=target, rels=rels, params=params))
    return links


def _parameters(value: str, position: int) -> tuple[dict[str, str], int]:
    """Read `; name=value` parameters up to the comma ending the link; return them and the end."""
    params: dict[str, str] = {}
    length = len(value)
    while position < length:
        char = value[position]
        if char == ",":
            return params, position + 1
        if char != ";":
            position += 1
            continue
        position += 1
        name_end = position
        while name_end < length and value[name_end] not in "=;,":
            name_end += 1
        name = value[position:name_end].strip().lower()
        position = name_end
        if position < length and value[position] == "=":
            parsed, position = _parameter_value(value, position + 1)
            # RFC 8288: only the first occurrence of a parameter counts.
            params.setdefault(name, parsed)
        elif name:
            params.setdefault(name, "")
    return params, position


def _parameter_value(value: str, position: int) -> tuple[str, int]:
    length = len(value)
    while position < length and value[position] in " \t":
        position += 1
    if position < length and value[position] == '"':
        chars: list[str] = []
        position += 1
        while position < length and value[position] != '"':
            if value[position] == "\\" and position + 1 < length:
                position += 1
            chars.append(value[position])
            position += 1
        return "".join(chars), position + 1
    end = position
    while end < length and value[end] not in ";,":
        end += 1
    return value[position:end].strip(), end


def next_link(header_values: Iterable[str], base: URL) -> URL | None:
    """Return the absolute URL of the first rel="next" link, resolved against `base`; None
    when there is none, or it is marked `results="false"` (no more results behind it).

    Raises ValueError when that link's target is not a URL.
    """
    for value in header_values:
        for link in parse_link_header(value):
            if "next" in link.rels:
                if link.params.get("results", "").lower() == "false":
                    return None  # Sentry's mark: the next page exists as a link, but is empty
                return resolve(base, link.target)
    return None


def carries(url: str, token: str) -> bool:
    """Whether a URL carries a token as a whole query value or path segment (not merely as a
    substring: `1` is not carried by `/v1/x?page=12`)."""
    try:
        parsed = URL(url)
    except (ValueError, TypeError):
        return False
    return token in parsed.query.values() or token in parsed.path.split("/")


def resolve(base: URL, target: str) -> URL:
    """Resolve a link target against the URL it came from; ValueError if it is not a URL."""
    try:
        return base.join(URL(target))
    except ValueError as exc:
        raise ValueError(f"next-page link {target[:200]!r} is not a valid URL ({exc})") from None
