"""Auto-detection: reads each response to choose the paging scheme, so any service works.

The default paginator of every collection; its order of precedence is documented on the class.
"""

from __future__ import annotations

from attrs import field, frozen

from remedy_async._http import JSONResponse

from ._envelope import MISSING, dig, next_link_of, size_params
from ._protocol import PageRequest, PageResult
from ._schemes import (
    CursorPaginator,
    LinkHeaderPaginator,
    OffsetPaginator,
    PageNumberPaginator,
    UnpagedPaginator,
)


@frozen
class AutoPaginator:
    """Detects the paging scheme from each response, so lists work whatever the service uses.

    Order of precedence, first match wins:
      1. a `Link` header with rel="next"            -> the Link-header scheme
      2. a bare JSON array                           -> unpaged (or the last Link page)
      3. an envelope with the cursor scheme's next field -> the cursor scheme
         (`nextCursor` unless configured; null ends the list)
      4. an envelope with an `offset` field          -> the offset scheme
      5. an envelope with a `page` field             -> the page-number scheme
      6. any other envelope                          -> unpaged (refused if another next
                                                        marker says there is more)

    The first request carries the page size under every scheme's name (`limit` and `pageSize`);
    fix the scheme with `paginator=` if the service rejects parameters it does not use.
    """

    offset: OffsetPaginator = field(factory=OffsetPaginator)
    page_number: PageNumberPaginator = field(factory=PageNumberPaginator)
    cursor: CursorPaginator = field(factory=CursorPaginator)
    link: LinkHeaderPaginator = field(factory=LinkHeaderPaginator)
    unpaged: UnpagedPaginator = field(factory=UnpagedPaginator)

    @property
    def parameter_names(self) -> frozenset[str]:
        """The query parameters any of the detectable schemes sets."""
        schemes = (self.offset, self.page_number, self.cursor, self.link)
        return frozenset().union(*(scheme.parameter_names for scheme in schemes))

    def first(self, page_size: int | None) -> PageRequest:
        """Ask for the first page with the page size named for every scheme."""
        names = dict.fromkeys(
            (
                self.offset.limit_param,
                self.page_number.size_param,
                self.cursor.limit_param,
                self.link.page_size_param,
            )
        )
        params = tuple(param for name in names for param in size_params(name, page_size))
        return PageRequest(params=params)

    def read(self, request: PageRequest, response: JSONResponse) -> PageResult:
        """Read the page with the scheme the response shows."""
        return self.detect(response).read(request, response)

    def predict_next(self, request: PageRequest) -> PageRequest | None:
        """Guess the next request when `request` already shows an offset or page-number scheme."""
        names = {name for name, _ in request.params}
        if self.offset.offset_param in names:
            return self.offset.predict_next(request)
        if self.page_number.page_param in names:
            return self.page_number.predict_next(request)
        return None

    def detect(
        self, response: JSONResponse
    ) -> (
        OffsetPaginator
        | PageNumberPaginator
        | CursorPaginator
        | LinkHeaderPaginator
        | UnpagedPaginator
    ):
        """Return the scheme a response is paged with, by the documented order of precedence."""
        if next_link_of(response) is not None:
            return self.link
        body = response.body
        if not isinstance(body, dict):
            return self.unpaged
        if dig(body, self.cursor.next_field) is not MISSING:
            return self.cursor
        if self.offset.offset_param in body:
            return self.offset
        if self.page_number.page_param in body:
            return self.page_number
        return self.unpaged
