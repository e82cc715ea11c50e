"""Records in bulk, for the tools users load data with: checked wire dicts, Arrow, dlt.

In: a list call's pager (paging knows nothing of this package: each view here takes a pager).
Out: wire dicts each checked against its model (`_checked`), the fixed columns of each resource
(`_columns`), Arrow record batches in them (`_arrow`), and the optional dependencies these
need, named by their extra when missing (`_extras`). Nothing here is imported by
`import remedy_async`; pyarrow is imported only when a batch is first built.
Modules: `_checked`, `_columns`, `_arrow`, `_extras`.
"""
