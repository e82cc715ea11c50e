"""`remedy-async api PATH`: a raw authenticated GET, printed as JSON, the way `gh api` works.

With `--paginate` on a collection's path, every page is followed (the client's paging,
resume and safety rules) and the records are printed as one JSON array, closed even if the
command fails midway.
"""

from __future__ import annotations

import argparse
from typing import Any

import orjson

from remedy_async import RESOURCES, ResourceCollection

from ._errors import EXIT_OK, UsageError
from ._formats import JsonArrayEncoder
from ._server_filters import group_filters
from ._settings import open_client
from ._sinks import StreamSink, finished
from ._terminal import Terminal

_COLLECTION_PATHS = {f"/v1/{resource.segment}": resource for resource in RESOURCES}


async def run_api(options: argparse.Namespace, terminal: Terminal) -> int:
    """Send the GET and print its JSON body, or with --paginate a collection's every record."""
    if options.method.upper() != "GET":
        raise UsageError(f"api {options.method}: the API is read-only; only GET is sent")
    path = options.path  # the client refuses one that is not a path under the base URL
    params = group_filters(options.field)
    if options.paginate:
        resource = _COLLECTION_PATHS.get(path.rstrip("/"))
        if resource is None:
            known = ", ".join(_COLLECTION_PATHS)
            raise UsageError(f"api --paginate {path}: only a collection pages ({known})")
        async with open_client(options, terminal.env) as client:
            collection: ResourceCollection[Any] = getattr(client, resource.attribute)
            sink = StreamSink(JsonArrayEncoder(), terminal.stdout)
            with finished(sink):
                async for page in collection.list(extra_params=params).as_dicts().pages():
                    sink.write(page.items)
        return EXIT_OK
    async with open_client(options, terminal.env) as client:
        response = await client.get_json(path, params=params)
    terminal.stdout.write(orjson.dumps(response.body, option=orjson.OPT_APPEND_NEWLINE))
    terminal.stdout.flush()
    return EXIT_OK
