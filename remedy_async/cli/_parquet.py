"""`export --format parquet`: an Arrow stream to resume from, and the Parquet file beside it.

A Parquet file is only readable once its footer is written, so an export killed mid-way could
not be continued from a half-written one. While a resource is exported, its `.parquet.part`
file is therefore an Arrow IPC stream: the schema, then one record batch per page, each batch
a self-contained message appended as the page arrives, so the checkpoint's byte length marks a
readable prefix exactly as it does for JSON lines. Meanwhile `ParquetBeside` writes the same
batches to `<resource>.parquet.tmp` (one row group per page), so no second pass is needed at
the end; a resumed export first replays the stream's checkpointed batches into it. Once the
list is complete the Parquet file is closed, made durable and renamed to `<resource>.parquet`,
and the `.part` file removed.
"""

from __future__ import annotations

import contextlib
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
        self.last_batch: Any = None
        """The batch of the latest `records` call (None when it had no records)."""

    def start(self) -> bytes:
        """The stream's schema message."""
        data: bytes = self.schema.serialize().to_pybytes()
        return data

    def records(self, records: Iterable[Any]) -> bytes:
        """One record-batch message of these records (nothing for none)."""
        rows = list(records)
        self.last_batch = record_batch(self.resource, rows) if rows else None
        if self.last_batch is None:
            return b""
        data: bytes = self.last_batch.serialize().to_pybytes()
        return data

    def end(self) -> bytes:
        """The end-of-stream marker."""
        return END_OF_STREAM


class ParquetBeside:
    """Writes one resource's Parquet file as its batches arrive, a row group per batch.

    `start` replays the batches a resumed export's stream holds; `add` writes a batch (Arrow
    encodes a page of 100 findings in well under a millisecond, so this runs in the event
    loop's thread: a writer thread would spend more on handing the GIL back and forth);
    `finish` closes the file durably and renames it; `abandon` removes it.
    """

    def __init__(self, path: Path, schema: Any) -> None:
        self.path = path
        self._temporary = path.with_name(path.name + ".tmp")
        self._schema = schema
        self._writer: Any = None
        self._sink: Any = None

    def start(self, stream: Path, length: int) -> None:
        """Open the file, with the batches of the first `length` bytes of `stream` in it."""
        import pyarrow as pa  # noqa: PLC0415 - the export checked it is installed
        import pyarrow.parquet as pq  # noqa: PLC0415

        self._sink = open(self._temporary, "wb")  # noqa: SIM115 - closed by finish or abandon
        self._writer = pq.ParquetWriter(self._sink, self._schema)
        if length > len(self._schema.serialize()):
            with pa.memory_map(str(stream)) as source:
                for batch in pa.ipc.open_stream(source.read_buffer(length)):
                    self._writer.write_batch(batch)

    def add(self, batch: Any) -> None:
        """Write a batch as the file's next row group."""
        self._writer.write_batch(batch)

    def finish(self) -> None:
        """Close the file, make it durable and give it its final name."""
        self._writer.close()
        self._sink.flush()
        os.fsync(self._sink.fileno())
        self._sink.close()
        os.replace(self._temporary, self.path)

    def abandon(self) -> None:
        """Stop writing and remove the unfinished file (the stream stays, to resume from)."""
        for closing in (self._writer, self._sink):
            if closing is not None:
                with contextlib.suppress(Exception):  # the file is removed either way
                    closing.close()
        self._temporary.unlink(missing_ok=True)
