"""`export --format parquet`: an Arrow stream while the export runs, Parquet once it is done.

A Parquet file is only readable once its footer is written, so an export killed mid-way could
not be continued from a half-written one. While a resource is exported, its `.parquet.part`
file is therefore an Arrow IPC stream: the schema, then one record batch per page, each batch
a self-contained message appended as the page arrives, so the checkpoint's byte length marks a
readable prefix exactly as it does for JSON lines. Once the list is complete the stream is
written to `<resource>.parquet` (one row group per page, read back batch by batch from the
memory-mapped stream, so memory stays flat), made durable, and the `.part` file removed.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from remedy_async import Resource
from remedy_async.columnar import arrow_schema, record_batch

END_OF_STREAM = b"\xff\xff\xff\xff\x00\x00\x00\x00"
"""The Arrow IPC stream's end marker (a continuation token and a zero length)."""


class ArrowStreamEncoder:
    """A resource's records as the messages of one Arrow IPC stream, a batch per call."""

    def __init__(self, resource: Resource[Any]) -> None:
        self.resource = resource
        self.schema = arrow_schema(resource)

    def start(self) -> bytes:
        """The stream's schema message."""
        data: bytes = self.schema.serialize().to_pybytes()
        return data

    def records(self, records: Iterable[Any]) -> bytes:
        """One record-batch message of these records (nothing for none)."""
        rows = list(records)
        if not rows:
            return b""
        data: bytes = record_batch(self.resource, rows).serialize().to_pybytes()
        return data

    def end(self) -> bytes:
        """The end-of-stream marker."""
        return END_OF_STREAM


def stream_to_parquet(stream: Path, parquet: Path) -> None:
    """Write the Arrow stream at `stream` to a Parquet file (a row group per batch), durably."""
    import pyarrow as pa  # noqa: PLC0415 - the export checked it is installed
    import pyarrow.parquet as pq  # noqa: PLC0415

    with pa.memory_map(str(stream)) as source:
        reader = pa.ipc.open_stream(source)
        with open(parquet, "wb") as sink:
            with pq.ParquetWriter(sink, reader.schema) as writer:
                for batch in reader:
                    writer.write_batch(batch)
            sink.flush()
            os.fsync(sink.fileno())
