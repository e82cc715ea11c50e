"""A named convention is a name for a composition (`_rows`): each row of
`remedy_async.CONVENTIONS` becomes the composition its text form writes, with the run's items
key where the row keeps the contract's items, the resource's name for `*`, page numbers handed
out by a token row whose parameter is `page`, and the first page's link beside a Link
continuation. A disguise renames the last key of every body signal in order of first use and
sends the continuation header as `Nxt-Tok-X`; a row no composition can serve is refused naming
it."""

from __future__ import annotations

import pytest

from remedy_async import CONVENTIONS, Convention
from remedy_async.simulator import Composition
from remedy_async.simulator._rows import disguised, row_composition, served

from .test_composition import AS_COMPOSITIONS


@pytest.mark.parametrize("name", sorted(CONVENTIONS))
def test_each_row_is_the_composition_its_text_form_writes(name: str) -> None:
    """With `items` as the run's items key, a row serves the composition written for it."""
    assert row_composition(CONVENTIONS[name], "items") == Composition.parse(AS_COMPOSITIONS[name])


@pytest.mark.parametrize("items_key", ["items", "data", "results"])
def test_the_contracts_items_go_under_the_runs_items_key(items_key: str) -> None:
    """`offset` keeps its items where the contract does: under the run's `items_key`."""
    assert row_composition(CONVENTIONS["offset"], items_key).items == (items_key,)


def test_the_one_array_of_an_object_is_the_resources_name() -> None:
    """HAL's `_embedded.*` is served as `_embedded.{resource}` (camelCase)."""
    assert row_composition(CONVENTIONS["hal"], "data").items == ("_embedded", "{resource}")


def test_a_row_no_composition_can_serve_is_refused_naming_it() -> None:
    """Signals in a bare array body, or offsets counted from 1, are a ValueError naming the row."""
    bare = Convention(name="bare", follow="token", items=((),), next_at=("n",), param="c")
    with pytest.raises(ValueError, match=r"'bare' cannot be served: .*bare array body"):
        row_composition(bare, "data")
    scim = Convention(name="scim", follow="offset", param="startIndex", first_offset=1)
    with pytest.raises(ValueError, match="'scim': offsets from 1"):
        row_composition(scim, "data")


def test_a_disguise_renames_in_order_of_first_use() -> None:
    """Spring's `last`, `totalElements`, `totalPages`, `number`, `size` become x, y, z, w, v;
    its items and parameters stay."""
    plain = row_composition(CONVENTIONS["spring"], "data")
    how = disguised(plain)
    c = how.composition
    assert (c.last_at, c.total, c.pages, c.position_at, c.size_at) == (
        ("nxt_tok_x",), Composition(total="nxt_tok_y").total, Composition(pages="nxt_tok_z").pages,
        ("nxt_tok_w",), ("nxt_tok_v",),
    )  # fmt: skip
    assert (c.items, c.param, c.size_param) == (plain.items, plain.param, plain.size_param)
    assert how.renamed_headers == ()


def test_a_disguise_sends_the_continuation_header_under_another_name() -> None:
    """A header row keeps its composition and sends its header as `Nxt-Tok-X`."""
    how = served(CONVENTIONS["header-page"], "data", disguise=True)
    assert how.composition == row_composition(CONVENTIONS["header-page"], "data")
    assert how.renamed_headers == (("X-Next-Page", "Nxt-Tok-X"),)
