"""The page loop: one pass over a list call's pages, each checked, fetched, read and trimmed.

`_page_walk` is the loop itself (`PageWalk`: where each next request may go, a request never
followed twice, a list that ends short of its announced total refused); `_ahead` fetches pages
ahead of it (prefetch and planned pages); `_dedupe` skips the ids a page repeats; `_overlap`
proves each offset page continues the list (`OffsetAlignment`: overlapping pages, re-reads on a
shift, a moved order refused); `_proof` holds that proof for one list as the walk reads it
(requests from the overlap, planned and prefetched pages, resume marks, `on_shift`, `Shifts`);
`_fetching` fetches a guess or a first request the service refuses.
"""
