"""The change feed: what was added, modified and removed in a collection since last time.

`collection.changes(state=...)` runs one pass, `collection.watch(state=...)` one every interval:
each relists the collection (as wire dicts, as `Pager.as_dicts()`: no model is built for an
unchanged record) and diffs it, page by page, against a durable SQLite state, handing out
`Change` values.

Modules:
- `_change`: what a feed hands out (`Change`, `ChangeKind`, `PassResult`);
- `_fingerprint`: a record's content digest, key order and spelling ignored, and field sums;
- `_state_file`: the state's SQLite file: its format, opening it, the lock against a second
  watcher, and the statements a pass runs on it;
- `_state`: `ChangeState`, the state's reads and writes, one transaction per page;
- `_feed_settings`: the values a feed is made of (`FeedSource`, `FeedSettings`);
- `_pass`: one pass (list, diff, commit per page, removals once the list is complete);
- `_feed`: `ChangeFeed`, one pass or a watch, batches, records as dicts.

The collection (`_collection`) makes a feed from the named arguments of `changes()` and
`watch()`: it checks them before any I/O, as `list()` checks its own, and builds the
`FeedSource` (its list, a get by id) and `FeedSettings`; nothing here reaches into it.

Nothing here is imported by `import remedy_async`: sqlite3 loads with the first feed.
"""
