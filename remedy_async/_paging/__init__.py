"""Paging: decides which page comes next and what has been handed to the caller.

In: a list call (`_call.ListCall`: its start, paginator, item reader, limits and secrets, built
once by the collection) and each decoded page response.
Out: items in order, exactly once, with resume tokens; `PaginationError` when the sequence breaks.
Modules: `_protocol` (Paginator, Convention, PageRequest), `_conventions` (the table of public
APIs' conventions), `_follow` (read a page by one), `_auto` (detect it), `_schemes` (fixed
schemes), `_signals` (unread continuations), `_envelope` and `_links` (where signals sit),
`_walk` and `_guards` (fetch, trim and check each page), `_lookahead` (prefetch), `_dedupe`
(repeated ids), `_resume` (tokens), `_call` (the list call as one value), `_pager` (what the
caller iterates).
"""
