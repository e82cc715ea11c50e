"""The paginators: every class a list is paged by.

`ConventionPaginator` (`_convention`) follows one convention; the ones pinned by hand
(`_pinned`) are thin constructors over a convention; `AutoPaginator` (`_auto`) follows the
published paging or detects the list's convention. Detection (`_detect`) returns conventions
these classes follow.
"""
