"""The presets and a convention as a document (resume tokens, configuration files)."""

from __future__ import annotations

from typing import Any

import pytest

from remedy_async._paging._conventions import CONVENTIONS, convention_document, convention_from
from remedy_async._paging._protocol import Convention


def test_presets_are_keyed_by_their_names() -> None:
    """Each preset is found under its own name, and every name is unique."""
    assert all(name == row.name for name, row in CONVENTIONS.items())
    assert len(CONVENTIONS) == 20


def test_a_preset_reads_back_from_its_name() -> None:
    """A preset's document is its name, and the name gives the preset."""
    for name, row in CONVENTIONS.items():
        assert convention_document(row) == name
        assert convention_from(name) is row


def test_a_composition_named_like_a_preset_is_kept_by_its_fields() -> None:
    """A convention named `cursor` that differs from the preset is not stored as the preset."""
    mine = Convention(name="cursor", follow="token", next_at=("next",), param="cursor")
    document = convention_document(mine)
    assert isinstance(document, dict)
    assert convention_from(document) == mine


def test_a_document_holds_lists_not_tuples() -> None:
    """Paths are lists of keys, as JSON and TOML hold them."""
    document = convention_document(Convention(name="m", items=(("a", "b"),), ignore_headers=("X",)))
    assert document == {"name": "m", "items": [["a", "b"]], "ignore_headers": ["X"]}


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("nope", "'nope' is not a paging convention; use one of link, "),
        (3, "expected a convention's name or a table of its fields"),
        ({"nope": 1}, "'nope' is not a Convention field; its fields are example, "),
        ({"follow": "sideways"}, "follow must be one of none, url, token"),
        ({"next_at": 3}, "a body path is a tuple of keys"),
    ],
)
def test_a_bad_document_is_refused_naming_the_bad_part(value: Any, message: str) -> None:
    """A wrong name, type, field or value is a ValueError naming where it is."""
    with pytest.raises(ValueError, match=r"^paginators\.scopes: ") as info:
        convention_from(value, "paginators.scopes")
    assert message in str(info.value)
