"""The page loop: one pass over a list call's pages, each checked, fetched, read and trimmed.

`_page_walk` is the loop itself (`PageWalk`: the list's paginator wrapped once in the offset
proof, where each next request may go, a request never followed twice, a list that ends short
of its announced total refused); `_ahead` fetches pages ahead of it (prefetch and planned
pages); `_dedupe` cuts a page to the items it delivers; `_fetching` fetches a guess or a first
request the service refuses. The loop forms no request: its paginator does.
"""
