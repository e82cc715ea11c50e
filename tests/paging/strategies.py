"""Hypothesis strategies for paging values: any `Convention` a user or detection may write."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from remedy_async._paging._conventions import CONVENTIONS
from remedy_async._paging._protocol import FOLLOWS, Convention

KEYS = st.text(max_size=8)
PATHS = st.lists(KEYS, max_size=3).map(tuple)
NAMES = st.text(min_size=1, max_size=12)


@st.composite
def composed_conventions(draw: st.DrawFn) -> Convention:
    """A convention with any value on every axis (most left at their default)."""
    optional_name = st.none() | NAMES
    fields: dict[str, Any] = {
        "name": draw(NAMES),
        "follow": draw(st.sampled_from(FOLLOWS)),
        "items": draw(st.lists(PATHS, min_size=1, max_size=3).map(tuple)),
        "next_at": draw(PATHS),
        "next_header": draw(optional_name),
        "param": draw(optional_name),
        "param_in": draw(st.sampled_from(("query", "header"))),
        "size_param": draw(optional_name),
        "more_at": draw(PATHS),
        "last_at": draw(PATHS),
        "total_at": draw(PATHS),
        "total_header": draw(optional_name),
        "pages_at": draw(PATHS),
        "pages_header": draw(optional_name),
        "position_at": draw(PATHS),
        "size_at": draw(PATHS),
        "first_page": draw(st.integers(min_value=-1, max_value=2)),
        "ignore": draw(st.lists(PATHS, max_size=2).map(tuple)),
        "ignore_headers": draw(st.lists(NAMES, max_size=2).map(tuple)),
        "links_from": draw(st.sampled_from(("request", "base"))),
        "summary": draw(st.text(max_size=20)),
    }
    shown = draw(st.sets(st.sampled_from(sorted(fields)), max_size=len(fields)))
    return Convention(**{name: value for name, value in fields.items() if name in shown})


CONVENTION_VALUES = st.sampled_from(list(CONVENTIONS.values())) | composed_conventions()
"""Presets and compositions alike."""
