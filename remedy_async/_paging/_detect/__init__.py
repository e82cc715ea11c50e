"""Detection: the convention a list's first page shows, and advice for a page that fails.

`_compose` composes a convention from a first page axis by axis (what cannot be read off the
page becomes guesses a later page must confirm); `_unannounced` handles first pages that
announce no paging at all (the whole list, or a silent cap to check); `_preset` names a
composition after the preset that reads the page alike; `_advice` tells what to pin for a page
a convention cannot follow. Detection reads pages (`_read`) and returns conventions; the
paginators (`_paginators`) follow them.
"""
