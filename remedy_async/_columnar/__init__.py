"""Records in bulk, for the tools users load data with: checked wire dicts, Arrow, dlt.

In: a list call's pager. Out: wire dicts each checked against its model (`_checked`), Arrow
record batches of a fixed schema per resource (`_schema`, `_arrow`), and the optional
dependencies these need, named by their extra when missing (`_extras`). Nothing here is
imported by `import remedy_async`; pyarrow is imported only when a batch is first built.
Modules: `_checked`, `_schema`, `_arrow`, `_extras`.
"""
