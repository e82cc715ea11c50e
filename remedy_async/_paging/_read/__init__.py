"""Reading one page response, without judging the list: pure functions of one page.

Where its items are, by structure or by a convention (`_items`); every paging signal it carries,
and the refusal of one a convention does not read (`_signals`); what paging words mean in any
spelling (`_vocabulary`); body paths and Link values (`_envelope`, `_links`); where the next
page starts when the client computes it (`_positions`); and a page read by a convention: its
items, its announced total and its next request (`_page`). Nothing here detects, follows a
list or fetches.
"""
