"""Checks of arguments that every layer shares, raising before any I/O."""

from __future__ import annotations


def check_count(name: str, value: int | None, minimum: int) -> None:
    """ValueError unless `value` is None or an int of at least `minimum` (bools are not)."""
    if value is not None and (
        isinstance(value, bool) or not isinstance(value, int) or value < minimum
    ):
        raise ValueError(f"{name} must be an int >= {minimum} or None, got {value!r}")


MAX_PAGE_SIZE = 100
"""The published maximum of a list's `limit`: the largest page the service serves, and the
client's default page size."""


def sized_page(page_size: int | None, maximum: int) -> int:
    """The page size a list asks for: `page_size`, or `maximum` when it is None; ValueError for
    one outside 1..`maximum`, naming the bound."""
    if page_size is None:
        return maximum
    check_count("page_size", page_size, 1)
    if page_size > maximum:
        raise ValueError(
            f"page_size must be at most {maximum}, got {page_size!r}: the service serves at "
            f"most {maximum} records a page (for a service that allows more, raise "
            f"RemedyClient(max_page_size=...))"
        )
    return page_size
