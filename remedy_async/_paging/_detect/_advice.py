"""Advice that works, for a page a list cannot follow: what to pin so that it can.

The advice comes from what the page itself shows: the convention composed from it (named after
the preset that reads it alike, if one does), printed as the expression to pin; when that is
the very convention that failed, the page contradicts itself and no pinning helps; when no
convention can be composed, the advice says which axis could not be decided. A preset is never
named just because it tolerates the page (a preset that ignores a page's continuation would end
the list silently). The advised convention rides on the fault (`suggestion`).
"""

from __future__ import annotations

import attrs

from remedy_async._paging._conventions import CONVENTIONS
from remedy_async._paging._protocol import Convention, PageRequest, PagingFault
from remedy_async._wire._http import JSONResponse
from remedy_async._wire._types import WireFault


def advised(fault: PagingFault, request: PageRequest, response: JSONResponse) -> PagingFault:
    """The fault with its message ending in advice, and `suggestion` set when there is one."""
    if fault.advice is not None:
        return fault
    from remedy_async._paging._read._page import read_page  # noqa: PLC0415

    from ._compose import detect  # noqa: PLC0415 - detection reads pages, which raise faults

    failed = request.convention
    suggestion: Convention | None = None
    try:
        found = detect(attrs.evolve(request, convention=None, probe=None), response)
        if found.convention != failed:  # advice is given only if it reads the page itself
            read_page(
                found.convention, attrs.evolve(request, convention=found.convention), response
            )
    except (PagingFault, WireFault) as undecided:
        why = "" if failed is None else f" ({_first_clause(undecided)})"
        advice = (
            f"no convention could be composed from this page{why}: describe the service's "
            "paging with paginator=remedy_async.Convention(...), axis by axis (see the paging "
            "documentation)"
        )
    else:
        suggestion = found.convention
        if found.unannounced:
            suggestion = None
            advice = (
                "the page itself names no way forward; describe the service's paging with "
                "paginator=remedy_async.Convention(...), axis by axis"
            )
        elif failed is not None and suggestion == failed:
            suggestion = None
            advice = (
                "the page contradicts the convention it otherwise shows, so no convention can "
                "follow it (the list may have changed while it was listed: list it again)"
            )
        elif suggestion in CONVENTIONS.values():
            advice = (
                f"it reads like the {suggestion.name!r} convention: pin it with "
                f"paginator=remedy_async.CONVENTIONS[{suggestion.name!r}]"
            )
        else:
            guessed = " (its param is a guess: set the one the service reads)" * bool(found.guesses)
            advice = f"pin what this page shows with paginator=remedy_async.{suggestion!r}{guessed}"
    fault.args = (f"{fault}; {advice}",)
    fault.advice = advice
    fault.suggestion = suggestion
    return fault


def _first_clause(fault: PagingFault | WireFault) -> str:
    """A fault's reason without advice another module appended to it."""
    advice = fault.advice if isinstance(fault, PagingFault) else None
    text = str(fault)
    return text[: -len(advice) - 2] if advice and text.endswith(advice) else text
