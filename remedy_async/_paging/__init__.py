"""Paging: decides which page comes next and what has been handed to the caller.

In: a list call (`_call.ListCall`: its start, paginator, item reader, limits and secrets, built
once by the collection) and each decoded page response.
Out: items in order, exactly once, with resume tokens; `PaginationError` when the sequence breaks.
Modules: `_protocol` (Paginator, Convention, PageRequest, Probe), `_conventions` (the presets,
and a convention as a document), `_vocabulary` (what paging words mean, in any spelling),
`_scan` (items by structure, every signal of a page), `_detect` (compose a convention from a
first page), `_silent` (first pages that announce nothing), `_alike` (the preset a
composition amounts to), `_follow` (read a page by one),
`_positions` (offsets, page numbers, last ids), `_signals` (refuse what a convention does not
read), `_advice` (what to pin instead), `_auto` (the published paging at once, else detect,
verify guesses, follow), `_pinned`
(the paginators pinned by hand), `_envelope` and `_links` (where signals sit), `_walk` and
`_guards` (fetch, trim and check each page), `_fetching` (a guess or first request the service
refuses), `_ahead` (pages fetched ahead: prefetch and planned pages), `_dedupe` (repeated
ids), `_resume` (tokens), `_call` (the list call as one value), `_pager` (what the caller
iterates).
"""
