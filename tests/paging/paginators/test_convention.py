"""The paginator that follows one convention: what `paginator=<Convention>` pins, its parameter
names, its name in resume tokens, and the advice its refusals carry."""

from __future__ import annotations

import pytest

from remedy_async._paging._paginators._auto import AutoPaginator
from remedy_async._paging._paginators._convention import (
    ConventionPaginator,
    as_paginator,
    paginator_name,
)
from remedy_async._paging._protocol import PagingFault
from tests.paging.responses import KEYSET, TOKEN, page, records

ITEMS = records(2)


def test_a_pinned_convention_is_followed_as_given() -> None:
    """`paginator=<Convention>` becomes a ConventionPaginator; a paginator stays itself."""
    assert as_paginator(TOKEN) == ConventionPaginator(TOKEN)
    auto = AutoPaginator()
    assert as_paginator(auto) is auto


def test_paginator_names_for_resume_tokens() -> None:
    """A pinned convention is named by its name, any other paginator by its class."""
    assert paginator_name(ConventionPaginator(TOKEN)).startswith("Convention:token")
    assert paginator_name(AutoPaginator()) == "AutoPaginator"


def test_a_convention_paginators_parameters_are_its_conventions() -> None:
    """The parameters a filter may not use are the convention's param and size param."""
    assert ConventionPaginator(KEYSET).parameter_names == {"starting_after", "limit"}


def test_a_pinned_conventions_refusal_carries_advice() -> None:
    """A page the pinned convention cannot read is refused with what to pin instead."""
    paginator = ConventionPaginator(TOKEN)
    with pytest.raises(PagingFault, match="pin") as info:
        paginator.read(paginator.first(2), page({"data": ITEMS, "nextPageToken": "t"}))
    assert info.value.suggestion is not None
