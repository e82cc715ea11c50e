"""The paginator that follows one convention, `paginator=<Convention>`, and how a paginator is
named in resume tokens.

`ConventionPaginator` reads every page through the page reader (`_read`) by the convention it
holds; a page it refuses is told with advice (`_detect._advice`): what to pin instead.
"""

from __future__ import annotations

import hashlib

import orjson
from attrs import frozen

from remedy_async._paging._conventions import convention_document
from remedy_async._paging._protocol import (
    Convention,
    PagePlan,
    PageRequest,
    PageResult,
    Paginator,
    PagingFault,
)
from remedy_async._paging._read._page import read_page
from remedy_async._paging._read._positions import first_request, plan_pages, predict_next
from remedy_async._wire._http import JSONResponse


@frozen
class ConventionPaginator:
    """Follows one convention for every list: what `paginator=<Convention>` pins."""

    convention: Convention

    @property
    def parameter_names(self) -> frozenset[str]:
        """The query parameters the convention sets (a filter may not use them)."""
        return self.convention.parameter_names

    def first(self, page_size: int | None) -> PageRequest:
        """Ask for the first page, with the page size in the convention's parameter."""
        return first_request(self.convention, page_size)

    def read(self, request: PageRequest, response: JSONResponse) -> PageResult:
        """Return the page's items and the next request, checked against the convention."""
        try:
            return read_page(self.convention, request, response)
        except PagingFault as fault:
            from remedy_async._paging._detect._advice import advised  # noqa: PLC0415 - only a refused page needs advice

            raise advised(fault, request, response) from None

    def predict_next(self, request: PageRequest) -> PageRequest | None:
        """Guess the next request when the convention computes it (offsets, page numbers)."""
        return predict_next(self.convention, request)

    def plan(
        self, request: PageRequest, response: JSONResponse, result: PageResult, count: int
    ) -> PagePlan | None:
        """Plan up to `count` later pages when the convention computes them from a size."""
        return plan_pages(self.convention, request, response, result, count)


def as_paginator(value: Paginator | Convention) -> Paginator:
    """The paginator for a `paginator=` setting: a Convention is followed as given."""
    return ConventionPaginator(value) if isinstance(value, Convention) else value


def paginator_name(paginator: Paginator) -> str:
    """The paginator's name in resume tokens (a token resumes only under the same paginator)."""
    if isinstance(paginator, ConventionPaginator):
        return f"Convention:{convention_key(paginator.convention)}"
    return type(paginator).__name__


def convention_key(convention: Convention) -> str:
    """A convention's name, with a digest of its fields when it is not a preset (two composed
    conventions may share a name)."""
    document = convention_document(convention)
    if isinstance(document, str):
        return document
    digest = hashlib.sha256(orjson.dumps(document, option=orjson.OPT_SORT_KEYS)).hexdigest()
    return f"{convention.name}:{digest[:12]}"
