"""Paging: decides which page comes next and what has been handed to the caller.

In: a list call's start (filters, page size, resume token) and each decoded page response.
Out: items in order, exactly once, with resume tokens; `PaginationError` when the sequence breaks.
Modules: `_protocol` (Paginator, PageRequest, PageResult), `_schemes` and `_auto` (the schemes and
their detection), `_envelope` and `_links` (where items and next signals sit), `_walk` (fetch and
trim each page), `_lookahead` (prefetch), `_dedupe` (repeated ids), `_resume` (tokens), `_pager`.
"""
