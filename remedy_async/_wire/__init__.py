"""Wire: turns bytes into values and values into request parts, with no I/O and no paging.

In: response bodies, filter values and ids. Out: JSON values, typed models, query parameters
and path segments, or a `WireFault`/`DecodeError` naming the JSON path that did not fit.
Modules: `_http` (the plain `Request` and `Response` of one exchange, which paging and sending
both pass), `_decode` (a response's body to JSON, and to one model), `_json` (JSON text in and
out, every number exact), `_absent` (the optional fields a record was read without, which
`to_wire` leaves out), `_naming` (camel, snake, Pascal, kebab keys), `_record_reader` (a
resource's records in its naming, detected once: the one entry for a get's record and a list's
page), `_views` (the C step: a body that is exactly a record's fields, or a page of them, read
by msgspec into generated typed views), `_types` (timestamps, unions, open enums, `TypedItem`
and `WireFault`), `_codec` (the converter's front door; `to_wire`), `_converter` (the cattrs
converter, imported on first use), `_fastpath` (generated structure functions, from JSON
objects and from typed views),
`_error_bodies` (what an error body says), `_query` (filters) and `_urls` (an id as one path
segment; whether a URL the service handed over may be requested).
Imports run one way: `_types` and `_naming` below everything, `_codec` above `_converter`.
"""
