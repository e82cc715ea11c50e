"""Auto-detection: reads the first response of a list to choose its paging convention.

The default paginator of every collection. The convention is chosen once per list, from its
first page, by the order of `CONVENTIONS`, and kept for the rest of that list (the requests it
makes carry its name); a later page that contradicts it is refused, never re-detected.
"""

from __future__ import annotations

from collections.abc import Mapping

from attrs import field, frozen

from remedy_async._http import JSONResponse
from remedy_async._wire._faults import WireFault, json_type_name

from ._conventions import CONVENTIONS
from ._envelope import MISSING, has_link_next
from ._envelope import dig_path as dig
from ._follow import locate_items, plan_pages, predict_next, read_page
from ._protocol import Convention, PagePlan, PageRequest, PageResult, PagingFault


def _table(rows: Mapping[str, Convention] | tuple[Convention, ...]) -> tuple[Convention, ...]:
    return tuple(rows.values()) if isinstance(rows, Mapping) else tuple(rows)


@frozen
class AutoPaginator:
    """Detects each list's paging convention from its first response, then follows it exactly.

    The first request carries the page size under the contract's names (`limit` and
    `pageSize`); later requests use the detected convention's own. What was chosen is on
    `pager.convention`; pin it with `paginator=` to skip detection. `conventions` are tried in
    order; the first that recognises the response (its items where it keeps them, and its
    continuation signal present, even as null) wins.
    """

    conventions: tuple[Convention, ...] = field(default=CONVENTIONS, converter=_table)
    _by_name: Mapping[str, Convention] = field(init=False, repr=False, eq=False)

    def __attrs_post_init__(self) -> None:
        object.__setattr__(self, "_by_name", {row.name: row for row in self.conventions})

    @property
    def parameter_names(self) -> frozenset[str]:
        """The query parameters any of the conventions sets (a filter may not use them)."""
        return frozenset().union(*(row.parameter_names for row in self.conventions))

    def first(self, page_size: int | None) -> PageRequest:
        """Ask for the first page with the page size under the contract's two names."""
        if page_size is None:
            return PageRequest()
        return PageRequest(params=(("limit", str(page_size)), ("pageSize", str(page_size))))

    def read(self, request: PageRequest, response: JSONResponse) -> PageResult:
        """Read the page by the list's convention, detecting it on the first page."""
        convention = self.named(request.convention) or self.detect(response)
        return read_page(convention, request, response)

    def predict_next(self, request: PageRequest) -> PageRequest | None:
        """Guess the next request once the list's convention is known and computes it."""
        convention = self.named(request.convention)
        return None if convention is None else predict_next(convention, request)

    def plan(
        self, request: PageRequest, response: JSONResponse, result: PageResult, count: int
    ) -> PagePlan | None:
        """Plan up to `count` later pages when the list's convention computes them from a size."""
        convention = result.convention
        return (
            None if convention is None else plan_pages(convention, request, response, result, count)
        )

    def named(self, name: str | None) -> Convention | None:
        """The convention of this name (from a request or a resume token), if any."""
        if name is None:
            return None
        row = self._by_name.get(name)
        if row is not None:
            return row
        raise PagingFault(f"this list was started with the {name!r} convention, unknown here")

    def detect(self, response: JSONResponse) -> Convention:
        """Return the first convention that recognises the response."""
        for row in self.conventions:
            if recognises(row, response):
                return row
        body = response.body
        if isinstance(body, dict):
            raise WireFault(
                "$", "expected an array, or an object with the items of a known convention"
            )
        raise WireFault("$", f"expected an array or an object, got {json_type_name(body)}")


def recognises(convention: Convention, response: JSONResponse) -> bool:
    """Whether a response shows a convention: its items where it keeps them and its signal."""
    try:
        locate_items(convention, response)
    except (PagingFault, WireFault):
        return False
    follow, body = convention.follow, response.body
    if follow == "none":
        return True
    header = convention.next_header
    if header is not None:
        if header.lower() == "link":
            return has_link_next(response.headers)
        return header in response.headers
    if follow in ("url", "token"):
        return dig(body, convention.next_at) is not MISSING
    if follow == "keyset":
        return dig(body, convention.more_at) is not MISSING
    return bool(convention.position_at) and dig(body, convention.position_at) is not MISSING
