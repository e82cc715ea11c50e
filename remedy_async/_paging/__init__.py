"""Paging: decides which page comes next and what has been handed to the caller.

In: a list call (`_call.ListCall`: its start, paginator, item reader, limits and secrets, built
once by the collection) and each decoded page response.
Out: items in order, exactly once, with resume tokens; `PaginationError` when the sequence breaks.

Modules: in layers from the bottom up, each importing only from its own layer and those below
(`tests/test_layout.py` holds it to that).
- `_protocol` (Paginator and its optional abilities, Convention, PageRequest, Probe, PagingFault)
  and `_conventions` (the presets, and a convention as a document).
- `_read`, reading one page response: `_items` (where the item array is, by structure or by a
  convention), `_signals` (every paging signal of a page; refusing one the convention does not
  read), `_vocabulary` (what paging words mean, in any spelling), `_envelope` and `_links` (body
  paths, Link headers), `_positions` (offsets, page numbers, last ids, page sizes), `_ids` (an
  item's id, from a JSON object or a typed view alike), `_page` (a page read by a convention:
  its items, its announced total, its next request).
- `_detect`, a convention from a first page: `_compose` (compose it, axis by axis),
  `_unannounced` (first pages that announce nothing), `_preset` (the preset a composition
  amounts to), `_advice` (what to pin for a page a convention cannot follow).
- `_paginators`, every class a list is paged by: `_convention` (ConventionPaginator, what
  `paginator=<Convention>` pins), `_pinned` (the paginators pinned by hand), `_auto`
  (AutoPaginator: the published paging at once, else detect, verify guesses, follow), and the
  offset proof: `_proof` (each offset page proven to continue the list, without I/O) and
  `_proven` (ProvenPaginator, around the list's paginator: the proof's requests, deliveries,
  resume digests, `on_shift`; its state rides on the requests).
- `_resume` (resume tokens), then `_call` (the list call as one value).
- `_walk`, the page loop, one path for every paginator (it forms no request): `_page_walk`
  (fetch, read, trim and check each page), `_ahead` (pages fetched ahead: prefetch and planned
  pages), `_dedupe` (the items a page delivers: the ones its paginator chose, or repeated ids
  skipped), `_fetching` (a guess or a first request the service refuses).
- `_pager` (what the caller iterates).
"""
